"""The end of a match: both engines are told at the decision, before anything
slow (docs/match.md, "Clock promises": told within 5 ms); then they get the CPU
to read it (IoGroup.settle) before the /proc scans and the teardown."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from bidref.engines.io import IoGroup, Reader, Writer
from bidref.match.referee import run_match
from bidref.rules import MILLISECOND
from bidref.testing import FakeClock, SteppingClock
from bidref.transcript import counter_salt

from .fakes import FakeSeat, first_legal
from .test_protocol_paths import SPEC, on_nth_request

MS = MILLISECOND
SCAN_NS = 30 * MS  # what a /proc scan can take on a busy machine


@dataclass
class SlowScanSeat(FakeSeat):
    """A fake engine whose before_end (the /proc scan) takes SCAN_NS, and that
    notes the clock of every match_ended line it is sent."""

    told_at: list[int] = field(default_factory=list)
    scanned_at: list[int] = field(default_factory=list)

    def send(self, text: str) -> int:
        if '"kind":"match_ended"' in text:
            self.told_at.append(self.clock.now)
        return super().send(text)

    def before_end(self) -> None:
        self.scanned_at.append(self.clock.now)
        self.clock.advance(SCAN_NS)


def play_slow_scan(script: Any) -> tuple[Any, SlowScanSeat, SlowScanSeat, FakeClock]:
    clock = FakeClock()
    a = SlowScanSeat("a", clock, script)
    b = SlowScanSeat("b", clock, first_legal())
    out = run_match(SPEC, seats=[a, b], clock=clock, salt=counter_salt())
    return out, a, b, clock


def test_both_engines_are_told_of_a_time_loss_before_the_slow_scans() -> None:
    out, a, b, _ = play_slow_scan(on_nth_request(2, []))
    assert (out.reason, out.winner) == ("time", 1)
    # The deadline's empty look ended the match at the deadline: both were told
    # then, though each scan takes 30 ms.
    assert len(a.told_at) == len(b.told_at) == 1
    assert a.told_at == b.told_at
    assert a.scanned_at[0] >= a.told_at[0] and b.scanned_at[0] >= b.told_at[0]
    assert sorted(a.scanned_at + b.scanned_at)[1] == a.told_at[0] + SCAN_NS


def test_the_told_line_is_the_last_event_and_quit_comes_after_the_scans() -> None:
    _, a, b, _ = play_slow_scan(on_nth_request(2, []))
    for seat in (a, b):
        kinds = [m["type"] for m in seat.received]
        assert kinds[-2:] == ["event", "quit"]
        assert seat.received[-2]["event"]["kind"] == "match_ended"


# -- IoGroup.settle: real pipes, a clock that moves on each look ------------------------


@pytest.fixture
def pipe_pair() -> Iterator[tuple[IoGroup, Writer, int]]:
    """A group with one engine's stdin (a pipe whose other end the test reads)."""
    r, w = os.pipe()
    out_r, out_w = os.pipe()
    group = IoGroup()
    writer = Writer(w)
    group.add(Reader(out_r, FakeClock(), 1000), writer)
    try:
        yield group, writer, r
    finally:
        for fd in (r, w, out_r, out_w):
            os.close(fd)


def test_a_pipe_writer_counts_what_the_engine_has_not_read(
    pipe_pair: tuple[IoGroup, Writer, int],
) -> None:
    _, writer, r = pipe_pair
    assert writer.unread() == 0
    writer.write(b"x" * 100 + b"\n")
    assert writer.unread() == 101
    os.read(r, 60)
    assert writer.unread() == 41


def test_settle_returns_at_once_when_the_engines_have_read_everything(
    pipe_pair: tuple[IoGroup, Writer, int],
) -> None:
    group, writer, r = pipe_pair
    writer.write(b"told\n")
    os.read(r, 100)
    clock = SteppingClock(MS)
    group.settle(2 * MS, clock)
    assert clock.readings == 1  # the start only: no wait


def test_settle_gives_up_at_its_timeout_for_an_engine_that_does_not_read(
    pipe_pair: tuple[IoGroup, Writer, int],
) -> None:
    group, writer, _ = pipe_pair
    writer.write(b"told\n")
    clock = SteppingClock(MS)
    start = clock.now
    group.settle(3 * MS, clock)
    assert clock.now - start <= 4 * MS  # it gave up by the clock
    assert writer.unread() == 5  # (nobody read it)


def test_settle_ignores_an_engine_whose_stdin_is_gone(
    pipe_pair: tuple[IoGroup, Writer, int],
) -> None:
    group, writer, _ = pipe_pair
    writer.write(b"told\n")
    writer.broken = "the engine's stdin is closed"
    clock = SteppingClock(MS)
    group.settle(50 * MS, clock)
    assert clock.readings == 1


def test_settle_does_not_wait_for_an_engine_that_closed_its_stdout(
    pipe_pair: tuple[IoGroup, Writer, int],
) -> None:
    group, writer, _ = pipe_pair
    writer.write(b"told\n")  # (it will never read it: it has exited)
    group.readers[0].done = True
    clock = SteppingClock(MS)
    group.settle(50 * MS, clock)
    assert clock.readings == 1
