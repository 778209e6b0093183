"""--freeze-idle with real engine processes: the engine not on move gets no CPU
(its CPU time while idle, recorded in the transcript, is about 0), the clocks
are kept as without it, and a stopped engine still ends (teardown, a killed
referee)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bidref.engines import EngineSpec
from bidref.match.referee import MatchSpec, run_match
from bidref.rules import MILLISECOND, SECOND, TimeControl
from bidref.transcript.expand import expanded_lines
from tests.procinfo import alive, children, state

ROOT = Path(__file__).resolve().parents[2]
BURNER = ROOT / "tests" / "engines_broken" / "burns_while_idle.py"
THINK = 40 * MILLISECOND


def _burner(name: str) -> EngineSpec:
    return EngineSpec(name, (sys.executable, str(BURNER)))


def _play(tmp_path: Path, freeze: bool) -> tuple[list[dict[str, Any]], Any]:
    spec = MatchSpec(
        engines=(_burner("a"), _burner("b")),
        seed=3,
        max_rounds=1,
        time_control=TimeControl(bank=60 * SECOND, delay=2 * SECOND),
        freeze_idle=freeze,
    )
    path = tmp_path / f"freeze-{freeze}.jsonl"
    out = run_match(spec, transcript_path=path)
    return expanded_lines(path.read_bytes()), out


def test_an_engine_that_burns_cpu_while_idle_gets_none_while_frozen(tmp_path: Path) -> None:
    free, out_free = _play(tmp_path, freeze=False)
    frozen, out_frozen = _play(tmp_path, freeze=True)
    assert out_free.reason == out_frozen.reason == "round_limit"
    replies_free = [x for x in free if x["type"] == "reply"]
    replies = [x for x in frozen if x["type"] == "reply"]
    # the same game (one seed, the first legal action): the same decisions
    assert [x["action"] for x in replies] == [x["action"] for x in replies_free]
    # each decision's CPU time is the engine's thinking (40 ms), measured for real
    for x in replies:
        assert x["cpu_ns"] >= THINK * 0.9, x
    # while the other thinks 40 ms, an engine left running spins meanwhile ...
    idle_free = sorted(x["idle_cpu_ns"] for x in replies_free)
    assert idle_free[len(idle_free) // 2] >= 10 * MILLISECOND, idle_free
    # ... and a frozen one does not (what it spins between its reply and being
    # stopped: well below a millisecond, a few on a loaded machine)
    idle = [x["idle_cpu_ns"] for x in replies]
    assert max(idle) < 10 * MILLISECOND, idle
    assert sum(idle) < sum(idle_free) / 10, (sum(idle), sum(idle_free))
    # the clocks: charged from each request as without freezing (the replay
    # re-derives every charge from the stamps) and never more than the engine's
    # thinking plus a generous margin for the resumption
    for x in replies:
        assert THINK <= x["elapsed_ns"] < THINK + 1 * SECOND, x
    assert [x["charge"]["timed_out"] for x in replies] == [False] * len(replies)
    # and the stopped engines were let go at the end: both left on their quit line
    exits = [x for x in frozen if x["type"] == "engine_exit"]
    assert [e["how"] for e in exits] == ["quit", "quit"], exits


def test_a_child_in_a_session_of_its_own_is_frozen_too(tmp_path: Path) -> None:
    # unjailed (--sandbox off): the group signal misses a setsid child; the freeze
    # reaches every descendant
    burner = EngineSpec("a", (sys.executable, str(BURNER)), env={"BURN_SETSID": "1"})
    spec = MatchSpec(
        engines=(burner, _burner("b")),
        seed=3,
        max_rounds=1,
        time_control=TimeControl(bank=60 * SECOND, delay=2 * SECOND),
        freeze_idle=True,
    )
    path = tmp_path / "setsid.jsonl"
    out = run_match(spec, transcript_path=path)
    assert out.reason == "round_limit"
    replies = [x for x in expanded_lines(path.read_bytes()) if x["type"] == "reply"]
    idle = sorted(x["idle_cpu_ns"] for x in replies if x["seat"] == 0)
    # (a child left running spins through every decision of the other; a frozen one
    # only between a reply and its freeze: well below a millisecond, more now and
    # then on a loaded machine, hence the median)
    assert idle[len(idle) // 2] < 5 * MILLISECOND, idle


def _referee_burning(tmp_path: Path, sandbox: str) -> tuple[Path, subprocess.Popen[bytes]]:
    """`bidref match --freeze-idle` between two engines that spin while idle."""
    transcript = tmp_path / "t.jsonl"
    argv = ["match", f"{sys.executable} {BURNER}", f"{sys.executable} {BURNER}"]
    argv += ["--freeze-idle", "--sandbox", sandbox, "--seed", "3"]
    referee = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from bidref.launch import main; main()",
            *argv,
            "--transcript",
            str(transcript),
            "--json",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "BURN_THINK_MS": "200"},
    )
    return transcript, referee


@pytest.mark.timeout(120)
def test_a_stopped_engine_dies_with_a_killed_referee(tmp_path: Path) -> None:
    """SIGKILL the referee mid-match: the engine it had stopped ends all the same
    (the death signal and the watchdog send SIGKILL, which a stopped process obeys)."""
    # the group SIGSTOP path, seen in /proc from here (a jail hides it)
    transcript, referee = _referee_burning(tmp_path, "off")
    try:
        end = time.monotonic() + 60
        stopped: list[int] = []
        while time.monotonic() < end and not stopped:
            time.sleep(0.05)
            if transcript.exists() and '"reply"' in transcript.read_text():
                engines = [c for c in children(referee.pid) if alive(c)]
                stopped = [c for c in engines if state(c) == "T"]
        assert stopped, "no engine was seen stopped while the other thought"
        engines = [c for c in children(referee.pid) if alive(c)]
    finally:
        referee.send_signal(signal.SIGKILL)
        referee.wait()
    end = time.monotonic() + 10
    while time.monotonic() < end and any(alive(p) for p in engines):
        time.sleep(0.05)
    assert not any(alive(p) for p in engines), [(p, state(p)) for p in engines]


def _frozen_jails(referee: int) -> dict[Path, list[int]]:
    """The referee's jails whose cgroup v1 freezer is FROZEN, with their processes."""
    out: dict[Path, list[int]] = {}
    for group in Path("/sys/fs/cgroup/freezer").glob(f"bidref-{referee}-*"):
        with contextlib.suppress(OSError):
            if (group / "freezer.state").read_text().strip() == "FROZEN":
                procs = (group / "cgroup.procs").read_text().split()
                out[group] = [int(p) for p in procs]
    return out


@pytest.mark.timeout(120)
@pytest.mark.skipif(
    os.geteuid() != 0 or not Path("/sys/fs/cgroup/freezer").is_dir(),
    reason="a jail with a freezer group needs root and the cgroup v1 freezer",
)
def test_a_frozen_jailed_engine_dies_with_a_killed_referee(tmp_path: Path) -> None:
    """SIGKILL the referee while the jail's freezer holds an engine: a frozen process
    does not die of SIGKILL until it is thawed, so the watchdog thaws the dead
    referee's groups before it kills what they hold."""
    transcript, referee = _referee_burning(tmp_path, "strict")
    held: list[int] = []
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end and not held:
            time.sleep(0.05)
            if transcript.exists() and '"reply"' in transcript.read_text():
                held = [p for procs in _frozen_jails(referee.pid).values() for p in procs]
        assert held, "no jail was seen frozen while the other engine thought"
    finally:
        referee.send_signal(signal.SIGKILL)
        referee.wait()
    end = time.monotonic() + 10
    while time.monotonic() < end and any(alive(p) for p in held):
        time.sleep(0.05)
    assert not any(alive(p) for p in held), [(p, state(p)) for p in held]


def test_replay_check_verifies_a_frozen_match_and_shows_cpu(tmp_path: Path) -> None:
    frozen, _ = _play(tmp_path, freeze=True)
    from bidref.transcript.replay import replay

    report = replay((tmp_path / "freeze-True.jsonl").read_bytes())
    assert report.ok, report.problem
    assert any("(CPU 4" in s.text for s in report.steps), [s.text for s in report.steps[:5]]
    json.dumps(frozen)  # (the expanded lines are plain JSON)


def test_the_seat_not_on_move_is_held_and_both_run_at_the_end() -> None:
    """Fake seats, fake clock: before each request the other seat is frozen and the
    one to move thawed (before its request is written); after the match both are
    thawed before they are told the result; a seat without freeze/thaw (a person)
    is simply left alone."""
    from tests.match.fakes import FakeClock, FakeSeat, first_legal

    clock = FakeClock()
    log: list[tuple[str, str]] = []

    class Holdable(FakeSeat):
        frozen = False

        def freeze(self) -> None:
            self.frozen = True
            log.append(("freeze", self.name))

        def thaw(self) -> None:
            self.frozen = False
            log.append(("thaw", self.name))

        def send(self, text: str) -> int:
            # (events may be written to a frozen seat: they wait in its pipe)
            for line in text.split("\n"):
                kind = json.loads(line)["type"]
                if kind == "request":
                    assert not self.frozen, "a request written to a frozen seat"
                    log.append(("request", self.name))
                if kind == "quit":
                    assert not self.frozen, "quit written to a frozen seat"
                    log.append(("quit", self.name))
            return super().send(text)

    a, b = Holdable("a", clock, first_legal()), Holdable("b", clock, first_legal())
    spec = MatchSpec(
        engines=(EngineSpec("a", ("x",)), EngineSpec("b", ("x",))),
        seed=4,
        max_rounds=1,
        time_control=TimeControl(bank=60 * SECOND, delay=SECOND),
        freeze_idle=True,
    )
    out = run_match(spec, seats=[a, b], clock=clock)
    assert out.reason == "round_limit"
    requests = [i for i, e in enumerate(log) if e[0] == "request"]
    assert len(requests) == out.decisions
    for i in requests:
        mover = log[i][1]
        other = "b" if mover == "a" else "a"
        before = [e for e in log[:i] if e[0] in ("freeze", "thaw")]
        # the last hold of each seat before this request: the mover runs, the other not
        assert [e for e in before if e[1] == mover][-1] == ("thaw", mover)
        assert [e for e in before if e[1] == other][-1] == ("freeze", other)
    assert not a.frozen and not b.frozen  # thawed at the end
    quits = [i for i, e in enumerate(log) if e[0] == "quit"]
    assert len(quits) == 2 and all(log[i - 1][0] != "freeze" for i in quits)
    # a seat without freeze/thaw: nothing to hold, the match plays as before
    c = FakeSeat("c", clock, first_legal())
    out = run_match(spec, seats=[c, Holdable("b", clock, first_legal())], clock=clock)
    assert out.reason == "round_limit"
