"""The result line says what happened, in sentences (issues 29.6 and 29.11): a time
loss names the time the player had, not how late the referee's last look was; a
crash, a resignation and an abort name the seat, the engine and its last stderr
line (a Rust panic message, say), never raw ``key=value`` fields.

Fake engines on a fake clock: the times are exact."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bidref.engines import EngineSpec, ExitInfo
from bidref.match.referee import MatchSpec, run_match
from bidref.outcome import EndReason, MatchOutcome, TimeLoss, decode_detail, last_words
from bidref.outcome.details import InterruptedDetail
from bidref.rules import MILLISECOND, SECOND, TimeControl
from bidref.testing import FakeClock
from bidref.transcript import counter_salt

from .fakes import (
    EOF_MARK,
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
    engines=(EngineSpec("slow", ("fake",)), EngineSpec("fast", ("fake",))),
    seed=5,
    time_control=TimeControl(bank=700 * MS, delay=500 * MS),
)
PANIC = (
    "thread 'main' panicked at src/main.rs:14:9:\n"
    "index out of bounds: the len is 3 but the index is 7\n"
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)


def think_then(times: list[int | None]) -> Script:
    """Answer request n after times[n] ns (None: never; past the list: at once)."""
    n = 0

    def script(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        nonlocal n
        if msg["type"] == "hello":
            return [(0, hello_line(seat.name))]
        if msg["type"] != "request":
            return []
        n += 1
        wait = times[n - 1] if n <= len(times) else MS
        return [] if wait is None else [(wait, action_line(msg["id"], msg["legal"][0]))]

    return script


@dataclass
class Panicky(FakeSeat):
    said: str = ""

    def stderr_tail(self) -> str:
        return self.said


def play(a: FakeSeat, b: FakeSeat, clock: FakeClock) -> MatchOutcome:
    return run_match(SPEC, seats=[a, b], clock=clock, salt=counter_salt(), started_at="x")


def test_a_silent_engine_is_told_the_time_it_had() -> None:
    clock = FakeClock()
    out = play(
        FakeSeat("slow", clock, think_then([None])), FakeSeat("fast", clock, first_legal()), clock
    )
    assert (out.reason, out.winner) == (EndReason.TIME, 1)
    assert out.time_loss == TimeLoss(1200 * MS, 700 * MS, 500 * MS, None)
    assert out.summary().startswith(
        "B (fast) wins by time: A (slow) sent no reply within 1.2 s (bank 0.7 s + delay 0.5 s)"
    )
    assert "overran" not in out.summary()


def test_the_time_it_had_is_the_clock_as_it_stood_at_the_deadline() -> None:
    # its first reply takes 600 ms: the delay (500) and 100 ms of bank; then silence
    clock = FakeClock()
    a = FakeSeat("slow", clock, think_then([600 * MS, None]))
    out = play(a, FakeSeat("fast", clock, first_legal()), clock)
    assert out.reason is EndReason.TIME
    assert out.time_loss == TimeLoss(1100 * MS, 600 * MS, 500 * MS, None)
    assert "sent no reply within 1.1 s (bank 0.6 s + delay 0.5 s)" in out.summary()


def test_a_late_reply_far_past_the_deadline_is_told_the_same() -> None:
    # a reply 3 s after the request, against 1.2 s: not "overran by 0.3 ms"
    clock = FakeClock()
    out = play(
        FakeSeat("slow", clock, think_then([3 * SECOND]), deliver_late=True),
        FakeSeat("fast", clock, first_legal()),
        clock,
    )
    assert out.reason is EndReason.TIME
    assert "A (slow) sent no reply within 1.2 s (bank 0.7 s + delay 0.5 s)" in out.summary()


def test_a_rust_panic_is_quoted_in_the_crash_sentence() -> None:
    clock = FakeClock()
    crashes = on_nth_request(2, [(5 * MS, EOF_MARK)], then=think_then([MS]))
    a = Panicky("slow", clock, crashes, exit=ExitInfo(101, None, "exited"), said=PANIC)
    out = play(a, FakeSeat("fast", clock, first_legal()), clock)
    assert (out.reason, out.winner) == (EndReason.CRASH, 1)
    said = out.summary()
    assert said.startswith(
        "B (fast) wins by crash: A (slow) crashed (exit code 101); its stderr ends: "
        "thread 'main' panicked at src/main.rs:14:9: index out of bounds: the len is 3 "
        "but the index is 7; balances"
    ), said
    assert "exit_code=" not in said and "problem=" not in said and "seat=" not in said
    assert out.last_stderr[0] == last_words(PANIC)


def test_a_resignation_is_a_sentence_with_the_last_stderr_line() -> None:
    clock = FakeClock()

    def resigns(msg: dict[str, Any], seat: FakeSeat) -> list[Reply]:
        if msg["type"] == "request":
            return [(MS, '{"type":"resign","message":"hopeless"}')]
        return first_legal()(msg, seat)

    a = Panicky("slow", clock, resigns, said="eval -9.5\nno way out\n")
    out = play(a, FakeSeat("fast", clock, first_legal()), clock)
    assert out.summary().startswith(
        "A (slow) resigned: B (fast) wins; its stderr ends: no way out; balances"
    )


def test_an_abort_says_why_in_words() -> None:
    out = MatchOutcome(
        winner=None,
        reason=EndReason.ABORTED,
        end=InterruptedDetail(),
        balances=(150, 150),
        rounds=1,
        engines=("a", "b"),
        transcript_path=None,
        rated=False,
    )
    assert out.summary() == (
        "aborted: interrupted (Ctrl-C or a signal), so no result; balances 150-150 after 1 rounds"
    )
    fault = MatchOutcome(
        winner=None,
        reason=EndReason.ABORTED,
        end=decode_detail(
            "aborted",
            {"cause": "timing_fault", "seat": 0, "problem": "the referee found a line late"},
        ),
        balances=(150, 150),
        rounds=1,
        engines=("a", "b"),
        transcript_path=None,
        rated=False,
        last_stderr=("thinking hard", ""),
    )
    assert fault.summary().startswith(
        "aborted: the referee found a line late; its stderr ends: thinking hard; balances"
    )


def test_last_words_skip_the_backtrace_note_and_cut_long_lines() -> None:
    assert last_words("") == "" and last_words("\n  \n") == ""
    assert last_words("a\nb\n") == "b"
    assert last_words("x" * 500).endswith("…") and len(last_words("x" * 500)) == 200
