"""Run `bidref` as a user would (the installed program, in its own process) against
misbehaving engines (engines/chaos.py), and look at what is left behind."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CHAOS = Path(__file__).resolve().parent / "engines" / "chaos.py"
BIDREF = Path(sys.executable).with_name("bidref")
BANK_S = 1.0
DELAY_S = 0.05
STARTUP_S = 2.0  # a Python engine starts in ~0.1 s alone, up to ~1 s on a loaded 2-core CI machine
GRACE_S = 0.5  # MatchSpec.grace_ns: the quit grace, then the SIGTERM grace
SECOND = 1_000_000_000


# These batteries check what the referee itself promises for engines that run as
# the referee's own account (--sandbox off keeps the death signal, the watchdog,
# the subreaper sweep, the caps and the secrecy): their engines write marker files
# in the test's folder and are watched in /proc from outside, which a jail forbids.
# tests/sandbox checks the jail.
UNJAILED = ("--sandbox", "off")


def bidref() -> list[str]:
    if not BIDREF.exists():
        pytest.fail(f"{BIDREF} is missing: install the package (make venv)")
    return [str(BIDREF)]


def new_token(folder: Path, seat: str) -> str:
    """A unique mark for one engine's argv (a path prefix for its files too)."""
    return str(folder / f"chaos-{secrets.token_hex(6)}-{seat}")


def engine(mode: str, token: str, arg: str = "") -> str:
    return f"{sys.executable} {CHAOS} {mode} {token}" + (f" {arg}" if arg else "")


def _state(pid: str) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0].decode()
    except OSError:
        return None


def living(marks: Sequence[str]) -> list[str]:
    """The processes (not zombies) whose command line holds one of ``marks``."""
    me = str(os.getpid())
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid == me:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if any(m.encode() in cmdline for m in marks) and _state(pid) not in (None, "Z", "X"):
            shown = cmdline.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{pid}: {shown}")
    return found


def assert_nothing_left(marks: Sequence[str], within_s: float = 15.0) -> None:
    # (a bound, not a wait: it returns as soon as they are gone; generous for a
    # loaded machine, where a killed process may take a while to be reaped)
    end = time.monotonic() + within_s
    while (left := living(marks)) and time.monotonic() < end:
        time.sleep(0.02)
    assert not left, f"processes left behind: {left}"


def wait_for(path: Path, proc: subprocess.Popen[bytes], within_s: float = 30.0) -> None:
    end = time.monotonic() + within_s
    while not path.exists():
        assert proc.poll() is None, f"bidref ended before {path.name} appeared"
        assert time.monotonic() < end, f"{path.name} did not appear within {within_s} s"
        time.sleep(0.005)


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    wall_s: float
    transcript: Path

    def result(self) -> dict[str, Any]:
        try:
            return dict(json.loads(self.stdout))
        except ValueError:
            raise AssertionError(
                f"no JSON result (exit {self.code}): {self.stdout[-500:]!r} {self.stderr[-2000:]!r}"
            ) from None

    def lines(self) -> list[dict[str, Any]]:
        """The transcript's lines spelled out (a v2 file leaves out what replay derives,
        such as each request's clock); it must replay clean for that."""
        from bidref.transcript.expand import expanded_lines

        return expanded_lines(self.transcript.read_bytes())


def match(
    engine_a: str,
    engine_b: str,
    folder: Path,
    *extra: str,
    max_rounds: int = 2,
    timeout_s: float = 60.0,
) -> Run:
    transcript = folder / "t.jsonl"
    argv = [
        *bidref(),
        "match",
        *UNJAILED,
        engine_a,
        engine_b,
        "--bank",
        str(BANK_S),
        "--delay",
        str(DELAY_S),
        "--startup",
        str(STARTUP_S),
        "--max-rounds",
        str(max_rounds),
        "--json",
        "--transcript",
        str(transcript),
        *extra,
    ]
    t0 = time.monotonic()
    done = subprocess.run(argv, capture_output=True, timeout=timeout_s, cwd=folder)
    return Run(
        done.returncode,
        done.stdout.decode(errors="replace"),
        done.stderr.decode(errors="replace"),
        time.monotonic() - t0,
        transcript,
    )


def replay_verifies(transcript: Path) -> None:
    """`bidref replay FILE` (in this process: the imports cost more than the check)."""
    from typer.testing import CliRunner

    from bidref.cli import app

    res = CliRunner().invoke(app, ["replay", str(transcript)])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 0, (
        f"bidref replay {transcript.name}: exit {res.exit_code}: {res.output}"
    )
