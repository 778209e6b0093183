"""The clock promises of docs/match.md ("Clock promises"), one by one, on a fake
clock with fake engines behind fake pipes (tests/match/fakes.PipeSeat): a line
is read by a look, after the last look that found nothing."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bidref.engines import EngineSpec
from bidref.match.referee import MatchOutcome, MatchSpec, run_match
from bidref.match.session import EXTRA_LINES_PER_TURN, REJECTED_PER_TURN, RULES_PER_TURN
from bidref.rules import MILLISECOND, SECOND, TimeControl
from bidref.transcript import counter_salt
from bidref.transcript.expand import expanded_lines
from bidref.transcript.replay import replay

from .fakes import FakeClock, FakeSeat, PipeSeat, Reply, Script, action_line, first_legal

MS = MILLISECOND
US = 1000
BANK, DELAY = 2 * SECOND, 100 * MS
AVAILABLE = BANK + DELAY  # of the first request
SPEC = MatchSpec(
    engines=(EngineSpec("a", ("fake",)), EngineSpec("b", ("fake",))),
    seed=5,
    time_control=TimeControl(bank=BANK, delay=DELAY),
    max_rounds=1,
)


def first_request_at(offset_ns: int, extra: list[Reply] | None = None) -> Script:
    """First-legal, but the first request is answered ``offset_ns`` after it was
    sent (negative: before its deadline), after ``extra`` lines."""
    good = first_legal()
    n = 0

    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        nonlocal n
        if msg["type"] == "request":
            n += 1
            if n == 1:
                lines = [(d, x.replace("{ID}", str(msg["id"]))) for d, x in extra or []]
                return [*lines, (AVAILABLE + offset_ns, action_line(msg["id"], msg["legal"][0]))]
        return good(msg, seat)

    return script


def play(
    script: Script, tmp_path: Path, spec: MatchSpec = SPEC, **seat_kw: Any
) -> tuple[MatchOutcome, list[dict[str, Any]], PipeSeat]:
    clock = FakeClock()
    a = PipeSeat("a", clock, script, **seat_kw)
    b = PipeSeat("b", clock, first_legal())
    path = tmp_path / "t.jsonl"
    out = run_match(
        spec,
        seats=[a, b],
        clock=clock,
        transcript_path=path,
        salt=counter_salt(),
        started_at="2026-01-01T00:00:00Z",
    )
    report = replay(path.read_bytes())
    assert report.ok, report.problem  # the referee's own transcript always verifies
    lines = expanded_lines(path.read_bytes())
    ts = [x["t_ns"] for x in lines]
    assert ts == sorted(ts), "t_ns must never go back"
    return out, lines, a


def first_reply(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """Seat A's first reply."""
    return next(x for x in lines if x["type"] == "reply" and x["seat"] == 0)


@pytest.mark.parametrize("margin", [1, US, MS, 5 * MS])
def test_a_reply_before_the_deadline_never_loses(margin: int, tmp_path: Path) -> None:
    out, lines, _ = play(first_request_at(-margin), tmp_path)
    assert out.reason == "round_limit"
    assert first_reply(lines)["elapsed_ns"] == AVAILABLE - margin


@pytest.mark.parametrize("late", [0, 200 * US, 900 * US])
def test_a_reply_in_time_read_within_the_tolerance_late_counts(late: int, tmp_path: Path) -> None:
    # The reply came 100 us before the deadline; the referee woke ``late`` after
    # the arrival (within its 1 ms tolerance): it may have been in time, so it counts.
    out, lines, _ = play(first_request_at(-100 * US), tmp_path, wake_late_ns=late)
    assert out.reason == "round_limit"
    reply = first_reply(lines)
    assert reply["status"] == "accepted" and not reply["charge"]["timed_out"]


@pytest.mark.parametrize("after", [1, 500 * US, MS + 1, 2 * MS, 5 * MS])
def test_a_reply_after_the_deadline_loses(after: int, tmp_path: Path) -> None:
    # The referee looks at the deadline, finds nothing: a proven time loss.
    out, lines, _ = play(first_request_at(after), tmp_path)
    assert (out.reason, out.winner, out.rated) == ("time", 1, True)
    assert out.end.overrun_ns == 0
    assert next(x for x in lines if x["type"] == "timeout")["overrun_ns"] == 0


def test_a_reply_after_the_tolerance_loses_even_to_a_late_look(tmp_path: Path) -> None:
    # Woken 3 ms late to an empty pipe (the reply comes at +5 ms): still proven.
    out, _, _ = play(first_request_at(5 * MS), tmp_path, wake_late_ns=3 * MS)
    assert (out.reason, out.rated) == ("time", True)
    assert out.end.overrun_ns == 3 * MS


def test_a_stalled_referee_that_finds_a_reply_aborts_unrated(tmp_path: Path) -> None:
    # The reply came 1 ms before the deadline; the referee was stopped for 300 ms
    # and finds it 299 ms after the deadline: it cannot judge, it aborts.
    out, lines, _ = play(first_request_at(-MS), tmp_path, wake_late_ns=300 * MS)
    assert (out.reason, out.winner, out.rated) == ("aborted", None, False)
    assert out.end.cause == "timing_fault"
    assert out.end.late_ns == 299 * MS
    assert out.end.quiet_before_ns == AVAILABLE  # its last empty look: the request
    assert lines[-1]["detail"]["late_ns"] == 299 * MS  # the lateness is in the transcript


def test_the_late_look_finds_a_line_the_wait_missed(tmp_path: Path) -> None:
    # The queued-line race: the wait gives up at the deadline without seeing the
    # reply that came 1 us before it; the look made at the deadline finds it (in
    # the tolerance: it may have been in time, and it was).
    out, lines, _ = play(first_request_at(-US), tmp_path, miss_wakeups=True)
    assert out.reason == "round_limit"
    reply = first_reply(lines)
    assert reply["status"] == "accepted" and reply["elapsed_ns"] == AVAILABLE - 1


def test_a_rules_flood_is_answered_capped_and_loses_at_the_deadline(tmp_path: Path) -> None:
    rules = json.dumps({"type": "rules", "id": 1, "topic": None})
    flood = [(50 * MS, rules)] * 40
    script = first_request_at(10 * SECOND, flood)  # the reply never comes in time
    out, _lines, a = play(script, tmp_path)
    assert (out.reason, out.winner, out.rated) == ("time", 1, True)
    assert out.end.overrun_ns == 0  # the deadline was seen on time
    answers = a.messages("rules")
    errors = [m for m in a.messages("error") if "rules requests" in m["message"]]
    assert (len(answers), len(errors)) == (RULES_PER_TURN, 40 - RULES_PER_TURN)


def test_lines_beyond_the_per_request_cap_lose_by_protocol(tmp_path: Path) -> None:
    log = json.dumps({"type": "log", "message": "x"})
    out, _, _ = play(first_request_at(-MS, [(MS, log)] * (EXTRA_LINES_PER_TURN + 1)), tmp_path)
    assert (out.reason, out.winner, out.rated) == ("protocol", 1, True)
    assert "the cap" in out.end.problem


def test_repeated_illegal_actions_lose_by_protocol_and_keep_the_transcript_small(
    tmp_path: Path,
) -> None:
    bad = '{"type":"action","id":{ID},"action":"play 9-9 9-9:line_a"}'
    out, lines, _ = play(first_request_at(-MS, [(MS, bad)] * 5000), tmp_path)
    assert (out.reason, out.winner) == ("protocol", 1)
    rejected = [x for x in lines if x["type"] == "reply" and x["seat"] == 0]
    assert len(rejected) == REJECTED_PER_TURN and all(x["status"] != "accepted" for x in rejected)


def test_a_double_reply_is_stale_and_stamped_after_the_next_request(tmp_path: Path) -> None:
    # Item 3 of issue 14: the second copy was read with the first, before the next
    # request; its stale line must not be stamped before that request's line.
    good = first_legal()

    def double(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "request":
            line = action_line(msg["id"], msg["legal"][0])
            return [(MS, line), (MS, line)]
        return good(msg, seat)

    out, lines, _ = play(double, tmp_path)  # (play checks t_ns and replays)
    assert out.reason == "round_limit"
    assert any(x["type"] == "stale" for x in lines)


def test_deeply_nested_json_is_a_protocol_loss_not_a_crash(tmp_path: Path) -> None:
    deep = '{"type":"action","id":1,"action":' + "[" * 100_000 + "]" * 100_000 + "}"
    out, _, _ = play(first_request_at(-MS, [(MS, deep)]), tmp_path)
    assert (out.reason, out.winner) == ("protocol", 1)
    assert "nested" in out.end.problem


def test_per_seat_time_controls_are_kept_and_recorded(tmp_path: Path) -> None:
    slow, fast = TimeControl(bank=2 * SECOND, delay=100 * MS), TimeControl(bank=SECOND, delay=0)
    spec = replace(SPEC, time_controls=(slow, fast))
    out, lines, _a = play(first_legal(), tmp_path, spec=spec)
    assert out.reason == "round_limit"
    header = lines[0]
    assert header["time_controls"] == [
        {"bank_ns": 2 * SECOND, "delay_ns": 100 * MS},
        {"bank_ns": SECOND, "delay_ns": 0},
    ]
    req_b = next(x for x in lines if x["type"] == "request" and x["seat"] == 1)
    assert req_b["clock"]["delay_left_ns"] == 0 and req_b["deadline_ns"] <= req_b["t_ns"] + SECOND
    hello_b = json.loads(next(x for x in lines if x["type"] == "hello" and x["seat"] == 1)["sent"])
    assert (hello_b["settings"]["bank_ms"], hello_b["settings"]["delay_ms"]) == (1000, 0)


def test_replay_checks_per_seat_time_controls_against_the_hellos(tmp_path: Path) -> None:
    slow, fast = TimeControl(bank=2 * SECOND, delay=100 * MS), TimeControl(bank=SECOND, delay=0)
    play(first_legal(), tmp_path, spec=replace(SPEC, time_controls=(slow, fast)))
    path = tmp_path / "t.jsonl"
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["time_controls"][1]["bank_ns"] = 3 * SECOND  # not what seat B was told
    forged = "\n".join([json.dumps(header), *lines[1:]]) + "\n"
    report = replay(forged.encode())
    assert not report.ok
    assert "other settings than the header's" in str(report.problem)
