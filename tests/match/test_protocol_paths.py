"""Every protocol path of the referee, with scripted fake engines on a fake clock."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bidref.engines import EngineSpec, ExitInfo
from bidref.match.referee import END_REASONS, MatchOutcome, MatchSpec, run_match
from bidref.match.session import STDERR_SETTLE_NS
from bidref.players import SeatGone
from bidref.rules import MILLISECOND, SECOND, Deal, TimeControl
from bidref.transcript import counter_salt
from bidref.transcript.expand import expanded_lines
from bidref.transcript.replay import replay

from .fakes import (
    EOF_MARK,
    INTERRUPT_MARK,
    OVERLONG_MARK,
    FakeClock,
    FakeSeat,
    Reply,
    Script,
    action_line,
    first_legal,
    hello_line,
    on_nth_request,
)

MS = MILLISECOND
SPEC = MatchSpec(
    engines=(EngineSpec("a", ("fake",)), EngineSpec("b", ("fake",))),
    seed=5,
    time_control=TimeControl(bank=2 * SECOND, delay=100 * MS),
)  # seed 5: first-legal engines finish in 9 rounds


def play(
    script_a: Script,
    script_b: Script | None = None,
    *,
    spec: MatchSpec = SPEC,
    transcript: Path | None = None,
    **seat_kw: Any,
) -> tuple[MatchOutcome, FakeSeat, FakeSeat]:
    clock = FakeClock()
    a = FakeSeat("a", clock, script_a, **seat_kw)
    b = FakeSeat("b", clock, script_b or first_legal())
    out = run_match(
        spec,
        seats=[a, b],
        clock=clock,
        transcript_path=transcript,
        salt=counter_salt(),
        started_at="2026-01-01T00:00:00Z",
    )
    assert a.closed and b.closed, "every seat is closed at the end"
    return out, a, b


def read(path: Path) -> list[dict[str, Any]]:
    """The transcript verified and spelled out (the v1 form of its lines)."""
    return expanded_lines(path.read_bytes())


def test_a_clean_match_ends_by_balance_and_reports_it() -> None:
    out, a, b = play(first_legal())
    assert out.reason == "balance"
    assert out.winner in (0, 1)
    assert sorted(out.balances) == [0, 300]
    assert out.rated
    assert out.engines == ("a", "b")
    # every request had exactly one reply; the last message was quit
    assert a.received[-1]["type"] == "quit" and b.received[-1]["type"] == "quit"
    assert a.received[-2] == {
        "type": "event",
        "event": {
            "kind": "match_ended",
            "winner": out.winner,
            "reason": "balance",
            "balances": list(out.balances),
            "rounds": out.rounds,
        },
    }


def test_bad_json_ends_the_match_as_a_protocol_error_quoting_the_line() -> None:
    out, a, _ = play(on_nth_request(3, [(MS, "play 1-3 please")]))
    assert (out.reason, out.winner) == ("protocol", 1)
    assert out.end.seat == 0
    assert out.end.line == "'play 1-3 please'"
    assert "not JSON" in out.end.problem
    assert a.messages("error")[-1]["code"] == "bad_json"


def test_a_valid_json_but_invalid_message_is_a_protocol_error() -> None:
    out, _, _ = play(on_nth_request(1, [(MS, '{"type":"action","id":"{ID}","action":7}')]))
    assert out.reason == "protocol"
    assert "not a valid 'action' message" in out.end.problem


def test_an_overlong_line_is_a_protocol_error() -> None:
    out, _, _ = play(on_nth_request(2, [(MS, OVERLONG_MARK)]))
    assert out.reason == "protocol"
    assert f"a line of more than {SPEC.max_line} bytes" in out.end.problem
    assert len(out.end.line) < 300


def test_a_stale_reply_is_recorded_and_ignored_never_applied(tmp_path: Path) -> None:
    # On its 2nd request the engine first repeats an answer to request 1 (a stale id),
    # then answers properly.
    def stale_then_good(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        return [
            (MS, action_line(msg["id"] - 2, "draw")),
            (2 * MS, action_line(msg["id"], msg["legal"][0])),
        ]

    path = tmp_path / "t.jsonl"
    out, a, _ = play(on_nth_request(2, stale_then_good), transcript=path)
    assert out.reason == "balance"
    errors = a.messages("error")
    assert [e["code"] for e in errors] == ["stale_id"]
    lines = read(path)
    stale = [x for x in lines if x["type"] == "stale"]
    assert len(stale) == 1 and stale[0]["seat"] == 0
    assert stale[0]["pending"] == stale[0]["id"] + 2
    # the stale reply's text is private until the round ends
    reveal = next(x for x in lines if x["type"] == "round_reveal" and x["round"] == 1)
    assert any(p["kind"] == "reply_raw" and p["seq"] == stale[0]["seq"] for p in reveal["private"])


def test_an_illegal_action_is_rejected_and_the_same_decision_stays_pending(tmp_path: Path) -> None:
    def illegal_then_legal(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if seat.messages("error"):
            return []
        return [(30 * MS, action_line(msg["id"], "play 6-6 6-6:line_a"))]

    base = on_nth_request(1, illegal_then_legal)

    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "error":
            # retry the pending request (its id) 50 ms after the error
            req = seat.requests()[-1]
            return [(50 * MS, action_line(req["id"], req["legal"][0]))]
        return base(msg, seat)

    path = tmp_path / "t.jsonl"
    out, a, _ = play(script, transcript=path)
    assert out.reason == "balance"
    err = a.messages("error")[0]
    assert err["code"] == "illegal"
    assert err["id"] == a.requests()[0]["id"]
    assert err["rule"] and err["rule"].startswith("§")
    lines = read(path)
    replies = [x for x in lines if x["type"] == "reply" and x["seat"] == 0]
    assert replies[0]["status"] == "illegal" and replies[0]["action"] is None
    assert replies[0]["elapsed_ns"] == 30 * MS
    # the retry is charged from the error line, with what is left of the delay (70 ms)
    assert replies[1]["status"] == "accepted" and replies[1]["elapsed_ns"] == 50 * MS
    assert replies[1]["charge"] == {
        "delay_used_ns": 50 * MS,
        "bank_used_ns": 0,
        "timed_out": False,
        "overrun_ns": 0,
    }
    retry = next(x for x in lines if x["type"] == "retry")
    assert retry["delay_left_ns"] == 70 * MS
    # only one request was written for the decision
    assert (
        len(
            [x for x in lines if x["type"] == "request" and x["seat"] == 0 and x["id"] == err["id"]]
        )
        == 1
    )


def test_bad_notation_is_rejected_with_its_own_code() -> None:
    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "error":
            req = seat.requests()[-1]
            return [(MS, action_line(req["id"], req["legal"][0]))]
        if msg["type"] == "request" and len(seat.requests()) == 1:
            return [(MS, action_line(msg["id"], "jump 9-9"))]
        return first_legal()(msg, seat)

    out, a, _ = play(script)
    assert out.reason == "balance"
    assert a.messages("error")[0]["code"] == "bad_action"
    assert "jump 9-9" in a.messages("error")[0]["message"]


def test_forfeit_policy_makes_the_first_illegal_action_lose() -> None:
    spec = MatchSpec(
        engines=SPEC.engines, seed=5, time_control=SPEC.time_control, illegal="forfeit"
    )
    out, a, _ = play(
        on_nth_request(1, [(MS, action_line(0, "draw").replace("0", "{ID}", 1))]), spec=spec
    )
    assert (out.reason, out.winner) == ("illegal", 1)
    assert out.end.seat == 0 and out.end.action == "draw"
    assert out.end.rule
    assert not a.messages("error")


def test_rules_help_is_answered_and_the_clock_keeps_running(tmp_path: Path) -> None:
    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "rules":
            req = seat.requests()[-1]
            return [(40 * MS, action_line(req["id"], req["legal"][0]))]
        if msg["type"] == "request" and len(seat.requests()) == 1:
            return [(70 * MS, json.dumps({"type": "rules", "id": "q1", "topic": "7"}))]
        return first_legal()(msg, seat)

    path = tmp_path / "t.jsonl"
    out, a, _ = play(script, transcript=path)
    assert out.reason == "balance"
    answer = a.messages("rules")[0]
    assert answer["id"] == "q1" and "match clock" in answer["text"].lower()
    reply = next(x for x in read(path) if x["type"] == "reply" and x["seat"] == 0)
    # 70 ms until the question + 40 ms after the answer: all charged, 10 ms from the bank
    assert reply["elapsed_ns"] == 110 * MS
    assert reply["charge"]["bank_used_ns"] == 10 * MS


def test_log_lines_are_recorded_privately_and_capped(tmp_path: Path) -> None:
    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "request" and len(seat.requests()) == 1:
            return [
                (MS, json.dumps({"type": "log", "message": "m" * 5000})),
                (2 * MS, action_line(msg["id"], msg["legal"][0])),
            ]
        return first_legal()(msg, seat)

    path = tmp_path / "t.jsonl"
    play(script, transcript=path)
    lines = read(path)
    log = next(x for x in lines if x["type"] == "log")
    assert log == {"type": "log", "seq": log["seq"], "t_ns": log["t_ns"], "seat": 0, "chars": 5000}
    private = [
        p for x in lines if x["type"] == "round_reveal" for p in x["private"] if p["kind"] == "log"
    ]
    assert private[0]["message"] == "m" * 1000


def test_what_an_engine_makes_the_referee_record_is_capped(tmp_path: Path) -> None:
    # An engine that floods stale replies, rules requests and illegal actions (with
    # long junk) at one request must not blow up the transcript or the referee's
    # memory: at most 200 such lines per seat are recorded, each raw line held
    # back is cut to 1000 characters, and the rest is counted. (100 of each per
    # request, over three requests: more rejected replies to one request are a
    # protocol loss, see the next test.)
    junk = "j" * 5000

    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "request" and len(seat.requests()) <= 3:
            flood = [
                (MS, json.dumps({"type": "action", "id": 0, "action": "draw", "x": junk})),
                (MS, json.dumps({"type": "rules", "id": junk, "topic": junk})),
                (MS, json.dumps({"type": "action", "id": msg["id"], "action": junk})),
            ]
            return [*flood * 100, (2 * MS, action_line(msg["id"], msg["legal"][0]))]
        return first_legal()(msg, seat)

    path = tmp_path / "t.jsonl"
    out, _, _ = play(script, transcript=path, spec=replace(SPEC, max_rounds=1))
    assert out.reason == "round_limit"
    lines = read(path)
    kinds = [x["type"] for x in lines]
    assert kinds.count("stale") == 200 and kinds.count("rules") == 200
    assert all(len(x["topic"]) + len(x["id"]) <= 2200 for x in lines if x["type"] == "rules")
    assert sum(1 for x in lines if x["type"] == "reply" and x["status"] == "bad_action") == 300
    private = [
        p
        for x in lines
        if x["type"] == "round_reveal"
        for p in x["private"]
        if p["kind"] in ("reply_raw", "error_raw")
    ]
    assert all(len(p.get("raw", p.get("message", ""))) <= 1100 for p in private)
    assert len([p for p in private if p["kind"] == "reply_raw"]) <= 400 + out.decisions
    exit_a = next(x for x in lines if x["type"] == "engine_exit" and x["seat"] == 0)
    assert (exit_a["stale_lines"], exit_a["rules_requests"], exit_a["rejected"]) == (300, 300, 300)
    assert len(path.read_bytes()) < 1_500_000  # the junk alone would be 7.5 MB


def test_a_crash_ends_the_match_with_the_exit_status() -> None:
    out, _, _ = play(
        on_nth_request(2, [(5 * MS, EOF_MARK)]), exit=ExitInfo(None, "SIGSEGV", "exited")
    )
    assert (out.reason, out.winner) == ("crash", 1)
    assert out.end.signal == "SIGSEGV" and out.end.exit_code is None
    assert out.end.stderr_tail == "fake stderr"


def test_a_crash_report_waits_for_the_engines_last_stderr_bytes() -> None:
    # The stderr reader may not have read the end of the pipe when the exit is
    # seen: the report asks the seat to settle first, then takes the tail.
    clock = FakeClock()
    settled: list[int] = []

    class Lagging(FakeSeat):
        def settle_stderr(self, timeout_ns: int) -> None:
            settled.append(timeout_ns)

        def stderr_tail(self) -> str:
            return "partial" + (" ... last words" if settled else "")

    a = Lagging(
        "a", clock, on_nth_request(2, [(5 * MS, EOF_MARK)]), exit=ExitInfo(3, None, "exited")
    )
    b = FakeSeat("b", clock, first_legal())
    out = run_match(SPEC, seats=[a, b], clock=clock, salt=counter_salt())
    assert (out.reason, out.winner) == ("crash", 1)
    assert out.end.stderr_tail == "partial ... last words"
    assert settled == [STDERR_SETTLE_NS]


def test_a_hang_loses_on_time_with_the_overrun() -> None:
    out, _, _ = play(on_nth_request(2, []))
    assert (out.reason, out.winner) == ("time", 1)
    assert out.end.to_dict() == {"seat": 0, "overrun_ns": 0, "overrun_ms": 0.0}


@pytest.mark.parametrize(
    "script",
    [
        on_nth_request(2, []),  # time
        on_nth_request(2, [(MS, EOF_MARK)]),  # crash
        on_nth_request(2, [(MS, "{bad json")]),  # protocol
    ],
)
def test_every_engine_is_told_how_the_match_ended_before_quit(script: Script) -> None:
    # PROTOCOL.md: the last event is match_ended, and all remaining events come
    # before quit — also when the match ends by time, a crash or a protocol error.
    out, a, b = play(script)
    assert out.reason in ("time", "crash", "protocol")
    for seat in (a, b):
        kinds = [m["type"] for m in seat.received]
        assert kinds[-1] == "quit"
        assert seat.received[-2] == {
            "type": "event",
            "event": {
                "kind": "match_ended",
                "winner": 1,
                "reason": out.reason,
                "balances": list(out.balances),
                "rounds": out.rounds,
            },
        }
    # B's own last action's events were still pending for it: they come first
    placed_b = [m for m in b.messages("event") if m["event"]["kind"] == "placed"]
    placed_a = [m for m in a.messages("event") if m["event"]["kind"] == "placed"]
    assert placed_b == placed_a


def test_a_reply_read_after_the_deadline_loses_with_its_overrun() -> None:
    # bank 2 s + delay 0.1 s: a reply 2.1 s + 7 ms after the request is 7 ms late
    out, _, _ = play(
        on_nth_request(1, [(2100 * MS + 7 * MS, action_line(0, "x"))]), deliver_late=True
    )
    assert (out.reason, out.winner) == ("time", 1)
    assert out.end.to_dict() == {"seat": 0, "overrun_ns": 7 * MS, "overrun_ms": 7.0}


def test_a_reply_exactly_at_the_deadline_is_late() -> None:
    out, _, _ = play(on_nth_request(1, [(2100 * MS, action_line(0, "x"))]), deliver_late=True)
    assert out.reason == "time" and out.end.overrun_ns == 0


def test_a_reply_just_before_the_deadline_counts() -> None:
    out, _, _ = play(
        on_nth_request(1, lambda m, s: [(2100 * MS - 1, action_line(m["id"], m["legal"][0]))])
    )
    assert out.reason == "balance"


def test_a_referee_that_woke_late_to_an_empty_pipe_awards_a_certain_time_loss() -> None:
    # (Changed on purpose: this used to abort.) The seat looked, late, and found
    # nothing: the reply was not there at the deadline either, so the time loss is
    # proven however late the look was; the overrun is how late it was.
    out, _, _ = play(on_nth_request(2, []), wake_late_ns=SECOND)
    assert (out.reason, out.winner, out.rated) == ("time", 1, True)
    assert out.end.overrun_ns == SECOND


def test_a_reply_stamped_exactly_long_after_the_deadline_is_a_time_loss() -> None:
    # (Changed on purpose: this used to abort.) A seat that stamps each line exactly
    # (no ``after``) proves the reply came 5 s after the deadline.
    out, _, _ = play(on_nth_request(1, [(5 * SECOND, action_line(0, "x"))]), deliver_late=True)
    assert (out.reason, out.rated) == ("time", True)


def test_silence_at_start_up_is_a_startup_failure() -> None:
    def silent(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        return []

    out, _, _ = play(silent)
    assert (out.reason, out.winner, out.rated) == ("startup", 1, False)
    assert "no hello within the start-up timeout of 10 s" in out.end.problem
    assert out.rounds == 0


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        (hello_line("x", protocol="bidref/2"), "speaks protocol 'bidref/2'"),
        ('{"type":"action","id":1,"action":"draw"}', "expected a hello, got a 'action'"),
        ("hello!", "expected a hello: not JSON"),
        (EOF_MARK, "ended before its hello"),
    ],
)
def test_a_bad_hello_is_a_startup_failure(reply: str, says: str) -> None:
    out, _, _ = play(lambda m, s: [(MS, reply)] if m["type"] == "hello" else [])
    assert out.reason == "startup"
    assert says in out.end.problem


def test_an_engine_gone_before_the_hello_is_written_says_how_it_ended() -> None:
    # The engine exited before the referee wrote its hello: the write finds a closed
    # stdin, and the problem names the exit, not the broken pipe.
    class GoneSeat(FakeSeat):
        def send(self, text: str) -> int:
            raise SeatGone("the engine's stdin is closed (Broken pipe)")

    clock = FakeClock()
    a = GoneSeat("a", clock, first_legal(), exit=ExitInfo(1, None, "exited"))
    out = run_match(
        SPEC,
        seats=[a, FakeSeat("b", clock, first_legal())],
        clock=clock,
        salt=counter_salt(),
        started_at="2026-01-01T00:00:00Z",
    )
    assert (out.reason, out.winner, out.rated) == ("startup", 1, False)
    assert "ended before its hello (exit code 1)" in out.end.problem


def test_logs_before_the_hello_are_fine() -> None:
    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "hello":
            return [(0, json.dumps({"type": "log", "message": "booting"})), (MS, hello_line("a"))]
        return first_legal()(msg, seat)

    out, _, _ = play(script)
    assert out.reason == "balance"


def test_round_limit_adjudicates_by_balance() -> None:
    spec = MatchSpec(engines=SPEC.engines, seed=5, time_control=SPEC.time_control, max_rounds=1)
    out, a, _ = play(first_legal(), spec=spec)
    assert out.reason == "round_limit"
    assert out.rounds == 1
    assert out.end.to_dict() == {"max_rounds": 1}
    assert a.received[0]["settings"]["max_rounds"] == 1


def test_an_engine_that_resigns_loses_a_rated_match(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    resign = json.dumps({"type": "resign", "message": "my hand is hopeless"})
    out, _, _ = play(on_nth_request(4, [(2 * MS, resign)]), transcript=path)
    assert (out.reason, out.winner, out.rated) == ("resign", 1, True)
    assert out.end.to_dict() == {"seat": 0}
    assert out.summary().startswith("A (a) resigned: B (b) wins")
    lines = read(path)
    (line,) = [x for x in lines if x["type"] == "resign"]
    assert line["seat"] == 0
    reveal = [x for x in lines if x["type"] == "round_reveal"][-1]
    assert any(
        i["kind"] == "resign_message" and i["message"] == "my hand is hopeless"
        for i in reveal["private"]
    )
    report = replay(path.read_bytes())
    assert report.ok and report.truncated is None, report.problem
    # A result that blames the other seat is caught.
    result = json.loads(path.read_text().splitlines()[-1])
    result["winner"], result["detail"]["seat"] = 0, 1
    forged = "\n".join([*path.read_text().splitlines()[:-1], json.dumps(result)]) + "\n"
    report = replay(forged.encode())
    assert not report.ok and report.problem is not None
    assert "no resign line of that seat" in str(report.problem)


def test_ctrl_c_aborts_the_match_and_still_closes_the_seats() -> None:
    out, _, _ = play(on_nth_request(3, [(MS, INTERRUPT_MARK)]))
    assert (out.reason, out.rated, out.winner) == ("aborted", False, None)
    assert out.end.to_dict() == {"cause": "interrupted"}


def test_every_end_reason_is_reachable() -> None:
    # The tests above cover: balance, round_limit, resign, time, illegal, crash,
    # protocol, startup, aborted — one name each, no more; resources: tests/sandbox.
    assert set(END_REASONS) == {
        "balance",
        "round_limit",
        "resign",
        "time",
        "illegal",
        "crash",
        "protocol",
        "resources",
        "startup",
        "aborted",
    }


def test_match_spec_and_outcome_are_picklable() -> None:
    import pickle

    from bidref.rules import Deal

    spec = MatchSpec(
        engines=(
            EngineSpec("a", ("x",), env={"K": "v"}, options={"d": 1}),
            EngineSpec("b", ("y",)),
        ),
        seed=1,
        deals=(Deal.from_seed(3, 1),),
    )
    assert pickle.loads(pickle.dumps(spec)) == spec
    out, _, _ = play(first_legal())
    again = pickle.loads(pickle.dumps(out))
    assert again == out
    assert json.loads(json.dumps(out.to_dict()))["reason"] == "balance"


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"max_rounds": 0}, "max_rounds=0"),
        ({"illegal": "maybe"}, "illegal='maybe'"),
        ({"transport": "ssh"}, "transport='ssh'"),
        ({"deals": (Deal.from_seed(3, 1),), "max_rounds": 2}, "give a seed for the rounds"),
    ],
)
def test_a_bad_match_spec_is_refused_with_the_fix(kw: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        MatchSpec(engines=SPEC.engines, **kw)


def test_a_referee_bug_still_closes_every_seat() -> None:
    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "request":
            raise RuntimeError("bug in a seat")
        return first_legal()(msg, seat)

    clock = FakeClock()
    a, b = FakeSeat("a", clock, script), FakeSeat("b", clock, script)
    with pytest.raises(RuntimeError, match="bug in a seat"):
        run_match(SPEC, seats=[a, b], clock=clock)
    assert a.closed and b.closed


class InterruptedAtClose(FakeSeat):
    """Ctrl-C (or SIGTERM, which `bidref match` turns into it) while the seat is
    being ended, e.g. during the grace period of an engine that does not quit."""

    interrupts = 1
    closes = 0

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        self.closes += 1
        if self.interrupts:
            self.interrupts -= 1
            raise KeyboardInterrupt
        return super().close(quit_line, grace_ns)


@pytest.mark.parametrize("when", ["after a finished match", "after Ctrl-C"])
def test_an_interrupt_while_the_engines_are_ended_still_ends_them(when: str) -> None:
    clock = FakeClock()
    script = (
        first_legal()
        if when == "after a finished match"
        else on_nth_request(3, [(MS, INTERRUPT_MARK)])
    )
    a = InterruptedAtClose("a", clock, script)
    b = InterruptedAtClose("b", clock, first_legal())
    out = run_match(SPEC, seats=[a, b], clock=clock)
    assert out.reason == ("balance" if when == "after a finished match" else "aborted")
    assert a.closed and b.closed
