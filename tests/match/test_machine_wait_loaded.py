"""The clock on a really loaded machine (issue 41): busy processes outside the
engines, started and ended by this test (by pid), more of them than CPUs.

- an engine replying 3 ms early by its own clock (from when it read the
  request) never loses on time: the machine's delays are not its loss;
- one replying 3 ms late by its own clock always does (or, at worst, the
  referee could not judge it: a timing fault) — the machine's wait never
  excuses it;
- one that overloads itself (busy children of its own) and replies late
  loses on time although its tasks waited far longer than it was late: its
  own tasks caused that wait.

Unjailed and jailed alike. The engine is benchmarks/engines/clock_engine.c,
built here. Matches are one round at 20 ms a decision.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bidref.engines import EngineSpec
from bidref.match.referee import MatchSpec, run_match
from bidref.outcome import MatchOutcome
from bidref.rules import MILLISECOND, TimeControl
from bidref.sandbox.policy import SandboxConfig
from bidref.transcript.expand import expanded_lines
from bidref.transcript.replay import replay

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler"),
]


@pytest.fixture(scope="module")
def clock_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("clock") / "clock_engine"
    src = ROOT / "benchmarks" / "engines" / "clock_engine.c"
    subprocess.run(["cc", "-O2", "-std=c11", "-o", str(out), str(src)], check=True)
    out.parent.chmod(0o777)  # its logs go there, from a jail's own account too
    return out


def _written_late(log: Path, deadline_of: dict[int, int]) -> bool:
    """Whether the engine's last reply (by its log: request id, received, write
    started, write done, CLOCK_MONOTONIC) was written after the referee's deadline:
    then the engine itself was late (e.g. its sleep woke late: a virtual machine's
    host can stop a CPU where the guest's counters do not see it)."""
    rows = [r.split() for r in log.read_text().splitlines() if r.startswith("R ")]
    if not rows:
        return True  # it wrote no reply at all
    rid, done = int(rows[-1][1]), int(rows[-1][4])
    return rid not in deadline_of or done >= deadline_of[rid]


@pytest.fixture(scope="module")
def loaded() -> Iterator[int]:
    """One more busy process than there are CPUs, at the engines' priority."""
    n = len(os.sched_getaffinity(0)) + 1
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield n
    finally:
        for p in busy:
            p.kill()  # by its pid: ours
            p.wait(timeout=10)


def _engine(path: Path, offset_us: int, jailed: bool, *mode: str, log: str = "-") -> EngineSpec:
    spec = EngineSpec(f"clock{offset_us}", (str(path), str(offset_us), log, *mode))
    return replace(spec, sandbox=SandboxConfig("auto", dir_writable=True)) if jailed else spec


def _deadlines(path: Path, seat: int) -> dict[int, int]:
    lines = expanded_lines(path.read_bytes())
    origin = lines[0]["monotonic_origin_ns"]
    return {
        x["id"]: origin + x["deadline_ns"]
        for x in lines
        if x["type"] in ("request", "retry") and x["seat"] == seat
    }


def _play(tmp_path: Path, a: EngineSpec, b: EngineSpec, seed: int) -> MatchOutcome:
    path = tmp_path / f"{seed}.jsonl"
    spec = MatchSpec(
        engines=(a, b),
        seed=seed,
        time_control=TimeControl(bank=0, delay=20 * MILLISECOND),
        max_rounds=1,
    )
    out = run_match(spec, transcript_path=path)
    r = replay(path.read_bytes())
    assert r.ok, r.problem  # the figures and the end check out from the transcript alone
    return out


@pytest.mark.parametrize("jailed", [False, True], ids=["unjailed", "jailed"])
def test_on_a_loaded_machine_early_replies_never_lose_and_late_ones_always_do(
    clock_engine: Path, loaded: int, tmp_path: Path, jailed: bool
) -> None:
    other = _engine(clock_engine, -10_000, jailed)  # mid-delay: never near its deadline
    for seed in (1, 2):
        logs = [clock_engine.parent / f"{jailed}-{seed}-{s}.log" for s in "ab"]
        a = _engine(clock_engine, -3000, jailed, log=str(logs[0]))
        b = _engine(clock_engine, -10_000, jailed, log=str(logs[1]))
        out = _play(tmp_path, a, b, seed)
        if out.reason == "time":
            # never a reply written before the deadline: only one the engine
            # itself wrote late (its own timer kept back where no counter sees it)
            seat = out.end.seat
            deadlines = _deadlines(tmp_path / f"{seed}.jsonl", seat)
            assert _written_late(logs[seat], deadlines), (out.summary(), out.end)
            continue
        assert out.reason in ("round_limit", "balance", "aborted"), out.summary()
        if out.reason == "aborted":
            assert out.end.cause in ("machine_wait", "timing_fault"), out.end
    losses = 0
    for seed in (3, 4, 5, 6):
        out = _play(tmp_path, _engine(clock_engine, 3000, jailed), other, seed)
        if out.end.at_seat == 1:  # the other one (checked above): another seed
            continue
        if out.reason == "time":
            assert out.end.seat == 0 and out.winner == 1
            losses += 1
            break
        else:  # the referee's own stall can leave it unjudged; nothing else may
            assert (out.reason, out.end.cause) == ("aborted", "timing_fault"), out.end
    assert losses == 1  # (a late reply is never excused: at least one was judged)


@pytest.mark.parametrize("jailed", [False, True], ids=["unjailed", "jailed"])
def test_an_engine_that_overloads_itself_still_loses_on_time(
    clock_engine: Path, loaded: int, tmp_path: Path, jailed: bool
) -> None:
    hog = _engine(clock_engine, 3000, jailed, "hog", "6")  # six busy children
    for seed in (5, 6, 7, 8):
        out = _play(tmp_path, hog, _engine(clock_engine, -10_000, jailed), seed)
        if out.end.at_seat == 1:
            continue  # its opponent, kept back by its children: another seed
        if out.reason == "aborted":  # (a referee stall, never the machine's wait)
            assert out.end.cause == "timing_fault", (out.end, out.summary())
            continue
        assert (out.reason, out.winner) == ("time", 1), out.summary()
        m = out.end.machine.to_dict()
        assert m["tasks"] >= 2, m  # its children were read with it
        # its tasks waited for a CPU, but for each other: nothing is excused
        assert m["excused_ns"] == 0 and "its own tasks wanted more" in m["why_not"], m
        return
    pytest.fail("no match ended on the self-overloading engine's own reply")
