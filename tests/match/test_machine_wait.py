"""The machine's wait (issue 41): a late reply that the machine's run-queue wait
excuses ends aborted (``machine_wait``), unrated, with the figures; one it does
not excuse, or an engine that overloads itself, still loses on time; replay
--check recomputes the rule from the transcript alone.

Scripted seats on a fake clock, with a fake wait reader (the seat's
``wait_sample``): nothing sleeps. The real counters are tested in
tests/engines/test_schedwait.py and, on a really loaded machine, in
tests/match/test_machine_wait_loaded.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bidref.outcome.excuse import MAX_EXTENSION_NS, MachineWait
from bidref.rules import MILLISECOND
from bidref.testing import FakeClock
from bidref.transcript.replay import replay
from tests.transcript.scripted_seats import ScriptedSeat, referee_transcript

MS = MILLISECOND


class WaitingSeat(ScriptedSeat):
    """Seat A: late by ``late_ms`` past its deadline at its 3rd decision (or never
    replies there, ``late_ms`` None), while its ``tasks`` tasks each wait on a run
    queue ``share`` of the time and run ``run_share`` of it (a fake schedstat
    driven by the fake clock)."""

    late_ms: int | None = 50
    share = 0.5
    run_share = 0.1
    tasks = 1
    cores_n = 2

    def __init__(self, name: str, clock: FakeClock, seed: int, **kw: Any) -> None:
        kw.pop("late_at", None)
        super().__init__(name, clock, seed, **kw)
        self.t0 = clock.now

    def wait_sample(self) -> dict[int, tuple[int, int]]:
        t = self.clock.now - self.t0
        return {100 + i: (int(t * self.run_share), int(t * self.share)) for i in range(self.tasks)}

    def cores(self) -> int:
        return self.cores_n

    def _on(self, msg: dict[str, Any]) -> None:
        if msg.get("type") == "request" and self.decisions == 2:
            self.decisions += 1
            clock = msg["clock"]
            if self.late_ms is None:
                return  # never replies
            late = clock["delay_left_ms"] + clock["bank_ms"] + self.late_ms
            self._reply(late, {"type": "action", "id": msg["id"], "action": msg["legal"][0]})
            return
        super()._on(msg)


def play(tmp_path: Path, seat: type[WaitingSeat]) -> tuple[bytes, dict[str, Any]]:
    data = referee_transcript(tmp_path / "t.jsonl", bank_s=30, delay_s=0.5, seat_class=seat)
    return data, json.loads(data.splitlines()[-1])


def test_a_late_reply_the_machine_wait_excuses_ends_aborted_unrated(tmp_path: Path) -> None:
    data, result = play(tmp_path, WaitingSeat)  # 50 ms late, waited half the decision
    assert (result["reason"], result["rated"], result["winner"]) == ("aborted", False, None)
    d = result["detail"]
    assert d["cause"] == "machine_wait" and d["seat"] == 0
    m = d["machine"]
    assert m["excused_ns"] == m["wait_max_ns"] > d["late_ns"] >= 0
    assert "the machine, not the engine, made it late" in d["problem"]
    r = replay(data)
    assert r.exit_code == 0, r.problem
    # every reply of the seat with a wait reader carries its wait; the other's none
    replies = [json.loads(x) for x in data.splitlines() if b'"reply"' in x]
    assert all(isinstance(x["wait_ns"], int) for x in replies if x["seat"] == 0)
    assert all("wait_ns" not in x for x in replies if x["seat"] == 1)


class AsksRules(WaitingSeat):
    """Late as :class:`WaitingSeat`, after asking the referee for the rules."""

    def _on(self, msg: dict[str, Any]) -> None:
        if msg.get("type") == "request" and self.decisions == 2:
            self._reply(1, {"type": "rules", "id": "r", "topic": "7"})
        super()._on(msg)


def test_an_engine_that_made_the_referee_work_for_it_is_not_excused(tmp_path: Path) -> None:
    # (a flood of rules requests answered at the referee's priority is wait it bought)
    data, result = play(tmp_path, AsksRules)
    assert (result["reason"], result["winner"]) == ("time", 1)
    m = result["detail"]["machine"]
    assert m["rules_requests"] == 1 and m["excused_ns"] == 0
    assert "made the referee work for it" in m["why_not"]
    assert replay(data).exit_code == 0


class BornLate(WaitingSeat):
    """A task missing from the request's reading shows up with a lifetime of wait."""

    share = 0.001
    cores_n = 8  # (so that the sum does not read as its own load)
    asked_at: int | None = None

    def _on(self, msg: dict[str, Any]) -> None:
        if msg.get("type") == "request" and self.decisions == 2:
            self.asked_at = self.clock.now
        super()._on(msg)

    def wait_sample(self) -> dict[int, tuple[int, int]]:
        out = super().wait_sample()
        if self.asked_at is not None and self.clock.now > self.asked_at:
            out[999] = (0, 100 * 10**9)  # 100 s: counted from 0, its whole life
        return out


def test_one_task_is_never_excused_more_than_the_window(tmp_path: Path) -> None:
    _, result = play(tmp_path, BornLate)
    m = result["detail"]["machine"]
    assert m["wait_ns"] > 100 * 10**9  # the sum says what was read
    assert m["wait_max_ns"] == m["excused_ns"] == m["window_ns"] < 100 * 10**9


class ShortWait(WaitingSeat):
    share = 0.001  # ~30 ms of wait in a ~30.5 s decision: less than 50 ms late


def test_a_reply_later_than_the_wait_excuses_still_loses_on_time(tmp_path: Path) -> None:
    data, result = play(tmp_path, ShortWait)
    assert (result["reason"], result["winner"], result["rated"]) == ("time", 1, True)
    m = result["detail"]["machine"]
    assert 0 < m["excused_ns"] <= result["detail"]["overrun_ns"] < 50 * MS
    assert replay(data).exit_code == 0


class SelfOverloaded(WaitingSeat):
    # eight busy tasks on two cores: each runs a quarter and waits three quarters
    tasks = 8
    share = 0.75
    run_share = 0.25


def test_an_engine_that_overloads_itself_still_loses_on_time(tmp_path: Path) -> None:
    data, result = play(tmp_path, SelfOverloaded)
    assert (result["reason"], result["winner"]) == ("time", 1)
    m = result["detail"]["machine"]
    assert m["excused_ns"] == 0 and m["wait_max_ns"] > result["detail"]["overrun_ns"]
    assert "wanted more than its 2 CPU(s)" in m["why_not"]
    assert replay(data).exit_code == 0


class HiddenHog(WaitingSeat):
    """Busy children the counters hardly show: on a crowded run queue each got one
    short slice, its current wait not counted yet (the kernel adds a wait when it
    ends), but all of them are runnable at the reading."""

    tasks = 7
    share = 0.02
    run_share = 0.02

    def runnable_tasks(self) -> set[int]:
        return {100 + i for i in range(1, self.tasks)}  # every child; the main task replied


def test_busy_children_whose_wait_is_not_counted_yet_still_excuse_nothing(
    tmp_path: Path,
) -> None:
    data, result = play(tmp_path, HiddenHog)
    assert (result["reason"], result["winner"]) == ("time", 1), result
    m = result["detail"]["machine"]
    assert m["unseen_ns"] > 5 * m["window_ns"] and m["excused_ns"] == 0
    assert "still runnable and not yet counted" in m["why_not"]
    assert replay(data).exit_code == 0
    # without the runnable tasks, the same counters would excuse the reply
    assert MachineWait.of({**m, "unseen_ns": 0}).excused_ns > 0


class Starved(WaitingSeat):
    late_ms = None
    share = 1.0  # it never gets a CPU again
    run_share = 0.0


def test_an_engine_the_machine_never_lets_run_ends_aborted_after_the_cap(tmp_path: Path) -> None:
    data, result = play(tmp_path, Starved)
    d = result["detail"]
    assert (result["reason"], d["cause"]) == ("aborted", "machine_wait")
    assert d["late_ns"] == MAX_EXTENSION_NS
    assert replay(data).exit_code == 0


class NoWait(WaitingSeat):
    late_ms = None
    share = 0.0


def test_without_wait_a_silent_engine_loses_at_its_deadline(tmp_path: Path) -> None:
    data, result = play(tmp_path, NoWait)
    assert result["reason"] == "time" and result["detail"]["overrun_ns"] == 0
    assert result["detail"]["machine"]["why_not"] == "none of its tasks waited for a CPU"
    assert replay(data).exit_code == 0


# -- replay --check recomputes the rule ------------------------------------------------------


def _tampered(data: bytes, change: Any) -> bytes:
    lines = data.splitlines()
    last = json.loads(lines[-1])
    change(last["detail"])
    lines[-1] = json.dumps(last, separators=(",", ":")).encode()
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d["machine"].update(excused_ns=d["machine"]["excused_ns"] + 1), "the rule"),
        (lambda d: d["machine"].update(wait_max_ns=d["late_ns"] - 1), "the rule makes"),
        (lambda d: d.update(late_ns=d["late_ns"] + 1), "late_ns"),
        (lambda d: d.update(at_ns=0, late_ns=-1), "it was not late"),
        (lambda d: d["machine"].pop("cores"), "no 'cores'"),
        (lambda d: d["machine"].update(priority_lowered=True), "the rule makes"),
        (lambda d: d["machine"].update(rules_requests=2), "the rule makes"),
        (lambda d: d["machine"].update(priority_lowered=1), "not true/false"),
        (lambda d: d.update(seat=1), "no decision of it is pending"),
    ],
)
def test_replay_check_recomputes_the_machine_wait_abort(
    change: Any, says: str, tmp_path: Path
) -> None:
    data, _ = play(tmp_path, WaitingSeat)
    r = replay(_tampered(data, change))
    assert r.exit_code == 1 and r.problem is not None
    assert says in r.problem.message, r.problem.message


def test_replay_check_refuses_a_wait_excuse_beyond_the_figures(tmp_path: Path) -> None:
    # an abort whose figures excuse less than it was late is a time loss in disguise
    data, _ = play(tmp_path, WaitingSeat)

    def lie(d: dict[str, Any]) -> None:
        m = d["machine"]
        m["wait_max_ns"] = m["excused_ns"] = d["late_ns"]

    r = replay(_tampered(data, lie))
    assert r.problem is not None and "it is a time loss" in r.problem.message


def test_replay_check_refuses_a_time_loss_the_wait_excused(tmp_path: Path) -> None:
    data, _ = play(tmp_path, ShortWait)

    def excuse(d: dict[str, Any]) -> None:
        m = d["machine"]
        m["wait_max_ns"] = m["excused_ns"] = d["overrun_ns"] + 1

    r = replay(_tampered(data, excuse))
    assert r.problem is not None and "should have ended aborted" in r.problem.message


# -- the rule itself ---------------------------------------------------------------------------


def _mw(**kw: Any) -> MachineWait:
    base: dict[str, Any] = {
        "window_ns": 100 * MS,
        "wait_ns": 40 * MS,
        "wait_max_ns": 40 * MS,
        "run_ns": 50 * MS,
        "cpu_ns": 50 * MS,
        "tasks": 1,
        "cores": 1,
    }
    return MachineWait(**{**base, **kw})


def test_one_task_is_excused_its_whole_wait() -> None:
    assert _mw().excused_ns == 40 * MS
    # (a running task's CPU figure may lag a tick: up to 4 ms more still counts as one task)
    assert _mw(run_ns=63 * MS, cpu_ns=63 * MS).excused_ns == 40 * MS


def test_more_runnable_tasks_than_cores_excuse_nothing() -> None:
    two_busy = _mw(tasks=2, run_ns=100 * MS, cpu_ns=100 * MS, wait_ns=100 * MS)
    assert two_busy.excused_ns == 0 and two_busy.own_load
    assert _mw(cores=2, tasks=2, run_ns=100 * MS, cpu_ns=100 * MS, wait_ns=100 * MS).excused_ns > 0


def test_an_engine_that_lowered_its_own_priority_is_excused_nothing() -> None:
    niced = _mw(priority_lowered=True)  # (nice 19 on a busy machine: waiting by choice)
    assert niced.excused_ns == 0 and "below the priority" in (niced.why_not() or "")


def test_lines_besides_the_reply_are_free_up_to_a_few() -> None:
    from bidref.outcome.excuse import OTHER_LINES_FREE

    assert _mw(other_lines=OTHER_LINES_FREE).excused_ns == 40 * MS
    assert _mw(other_lines=OTHER_LINES_FREE + 1).excused_ns == 0
    assert _mw(rules_requests=1, other_lines=1).excused_ns == 0


def test_tasks_that_ended_with_cpu_time_excuse_nothing() -> None:
    gone = _mw(cpu_ns=80 * MS)  # 30 ms of CPU by tasks no longer there
    assert gone.gone_tasks and gone.excused_ns == 0
    assert "ended" in (gone.why_not() or "")


def test_tasks_still_runnable_count_as_runnable_through_the_window() -> None:
    # one task, counted 50 ms run + 40 ms wait in 100 ms, and a child runnable at the
    # reading with nothing counted yet: 190 ms wanted of 100 ms on one CPU
    assert _mw(unseen_ns=100 * MS).excused_ns == 0
    assert _mw(cores=2, unseen_ns=100 * MS).excused_ns == 40 * MS


def test_evidence_written_before_unseen_was_recorded_reads_as_none() -> None:
    d = _mw().to_dict()
    del d["unseen_ns"]
    assert MachineWait.of(d) == _mw()


def test_many_tasks_are_excused_one_tasks_wait_not_their_sum() -> None:
    m = _mw(cores=4, tasks=3, wait_ns=60 * MS, wait_max_ns=25 * MS, run_ns=90 * MS, cpu_ns=90 * MS)
    assert m.excused_ns == 25 * MS


def test_replay_check_refuses_a_negative_wait(tmp_path: Path) -> None:
    data, _ = play(tmp_path, WaitingSeat)
    lines = data.splitlines()
    i = next(i for i, x in enumerate(lines) if b'"wait_ns":' in x)
    x = json.loads(lines[i])
    x["wait_ns"] = -1
    lines[i] = json.dumps(x, separators=(",", ":")).encode()
    r = replay(b"\n".join(lines) + b"\n")
    assert r.problem is not None and r.problem.line == i + 1
    assert "never negative" in r.problem.message
