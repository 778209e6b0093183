"""Signals to the referee (`bidref match` in its own process) at any moment:
nothing is left running, the result says what happened, no traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from .harness import (
    UNJAILED,
    assert_nothing_left,
    bidref,
    engine,
    living,
    new_token,
    replay_verifies,
    wait_for,
)

pytestmark = pytest.mark.e2e


def _start(engine_a: str, engine_b: str, folder: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            *bidref(),
            "match",
            *UNJAILED,
            engine_a,
            engine_b,
            "--bank",
            "30",
            "--delay",
            "1",
            "--startup",
            "20",
            "--json",
            "--transcript",
            str(folder / "t.jsonl"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=folder,
    )


def _handles(pid: int, sig: signal.Signals) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` (/proc's SigCgt)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False


def _wait_for_bidref_code(proc: subprocess.Popen[bytes]) -> None:
    """Until bidref's own entry code runs: it handles SIGTERM (the Python interpreter
    itself does not), from before its first import on."""
    end = time.monotonic() + 30
    while not _handles(proc.pid, signal.SIGTERM):
        assert proc.poll() is None and time.monotonic() < end, "bidref did not start"
        time.sleep(0.001)


# Delays after bidref's entry code starts: imports (about 0.3 s unloaded), then
# the engines' start (seat A, seat B), then the wait for their hellos.
MOMENTS = [0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5]


@pytest.mark.parametrize("after_s", MOMENTS)
def test_ctrl_c_at_any_moment_of_the_start_exits_130_quietly(
    after_s: float, tmp_path: Path
) -> None:
    a, b = new_token(tmp_path, "A"), new_token(tmp_path, "B")
    proc = _start(engine("slow_hello", a, "30"), engine("slow_hello", b, "30"), tmp_path)
    try:
        _wait_for_bidref_code(proc)
        time.sleep(after_s)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (out, err)
    assert b"Traceback" not in err, err.decode()
    if out:  # the match had begun: its result says so
        assert json.loads(out)["detail"]["cause"] == "interrupted"
    assert_nothing_left([a, b])


@pytest.mark.parametrize("after_s", [0.0, 0.002, 0.01, 0.03, 0.1])
def test_sigterm_while_engines_start_ends_them_and_the_result_says_so(
    after_s: float, tmp_path: Path
) -> None:
    a, b = new_token(tmp_path, "A"), new_token(tmp_path, "B")
    proc = _start(engine("slow_hello", a, "30"), engine("slow_hello", b, "30"), tmp_path)
    try:
        # Seat A's engine runs; seat B's is being started (or about to be).
        wait_for(Path(a + ".started"), proc)
        time.sleep(after_s)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (out, err)
    assert b"Traceback" not in err, err.decode()
    result = json.loads(out)
    assert result["reason"] == "aborted" and result["detail"]["cause"] == "interrupted"
    assert result["rated"] is False
    for seat, token in enumerate((a, b)):
        how = result["exits"][seat]["how"]
        if Path(token + ".started").exists():
            assert how != "not_started", (seat, result["exits"])
    assert_nothing_left([a, b])
    replay_verifies(tmp_path / "t.jsonl")


@pytest.mark.parametrize("phase", ["start-up", "match"])
def test_sigkill_of_the_referee_ends_engines_that_ignore_everything(
    phase: str, tmp_path: Path
) -> None:
    """Engines that ignore SIGTERM, quit and the end of stdin, each with a
    double-forked daemon: the kernel (death signal) and the watchdog end them."""
    a, b = new_token(tmp_path, "A"), new_token(tmp_path, "B")
    mode = "stubborn" if phase == "match" else "slow_hello"
    proc = _start(engine(mode, a, "30"), engine("stubborn", b), tmp_path)
    try:
        wait_for(Path(a + ".started"), proc)
        wait_for(Path(b + ".started"), proc)
        if phase == "match":
            end = time.monotonic() + 30
            transcript = tmp_path / "t.jsonl"
            while '"request"' not in (transcript.read_text() if transcript.exists() else ""):
                assert time.monotonic() < end, "the match did not begin"
                time.sleep(0.01)
        _wait_for_daemons([a, b], 2 if phase == "match" else 1)  # the daemons are out
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert_nothing_left([a, b])


def _daemons(marks: list[str]) -> int:
    """How many of the engines' daemons run their own program (chaos.py's DAEMON)."""
    return sum(" daemon " in p for p in living(marks))


def _wait_for_daemons(marks: list[str], count: int) -> None:
    end = time.monotonic() + 30
    while _daemons(marks) < count:
        assert time.monotonic() < end, f"{count} daemon(s) did not start: {living(marks)}"
        time.sleep(0.01)


def _pids_of(marks: list[str]) -> dict[int, bytes]:
    """pid -> start time of the living processes whose own arguments include one of
    ``marks`` (engines and their daemons; not bidref, whose argument holds the
    whole engine command line)."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != b"Z" and any(m.encode() in args for m in marks):
            out[int(pid)] = fields[19]
    return out


def _still_there(pids: dict[int, bytes]) -> list[int]:
    left = []
    for pid, start in pids.items():
        try:
            fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[19] == start and fields[0] != b"Z":
            left.append(pid)
    return left


def test_sigkill_of_a_tournament_worker_ends_its_engines(tmp_path: Path) -> None:
    hang, stubborn = new_token(tmp_path, "hang"), new_token(tmp_path, "stub")
    proc = subprocess.Popen(
        [
            *bidref(),
            "tournament",
            *UNJAILED,
            f"h={engine('hang', hang)}",
            f"s={engine('stubborn', stubborn)}",
            "--deals",
            "1",
            "--bank",
            "30",
            "--delay",
            "1",
            "--concurrency",
            "1",
            "--out",
            str(tmp_path / "out"),
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    try:
        end = time.monotonic() + 60
        # two engines and a daemon, the daemon running its own program (its fork's
        # parent gone): waited for, not slept on (issue 35, item 8)
        while len(first := _pids_of([hang, stubborn])) != 3 or _daemons([hang, stubborn]) < 1:
            assert proc.poll() is None and time.monotonic() < end, "the match did not start"
            time.sleep(0.02)
        parents = {
            int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
            for pid in first
        }
        workers = parents - {proc.pid, 1, os.getpid()}
        assert len(workers) == 1, (parents, proc.pid)  # the engines' parent (and the daemon's)
        worker = workers.pop()
        os.kill(worker, signal.SIGKILL)
        end = time.monotonic() + 30  # (a bound: it returns once they are gone)
        while _still_there(first) and time.monotonic() < end:
            time.sleep(0.02)
        assert not _still_there(first), "the killed worker's engines outlived it"
    finally:
        proc.send_signal(signal.SIGINT)  # the runner plays the match again: stop it
        try:
            proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert_nothing_left([hang, stubborn])
