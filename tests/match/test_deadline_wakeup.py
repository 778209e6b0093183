"""The referee's thread wakes for a deadline to the microsecond: no timer slack
rounds its waits (Linux adds up to 50 us by default)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bidref.engines.io import SPIN_BACKOFF, TIMER_SLACK_NS, IoGroup, Reader, Writer
from bidref.rules import SECOND
from bidref.testing import FakeClock, SteppingClock

US = 1000

SLACK = Path("/proc/self/timerslack_ns")  # (the main thread's)


@pytest.mark.skipif(not SLACK.exists(), reason="no /proc/<pid>/timerslack_ns (Linux >= 4.6)")
def test_the_thread_that_makes_a_match_io_group_gets_a_one_microsecond_timer_slack() -> None:
    # Timer slack is per thread and inherited: look in a fresh process's main
    # thread, given the kernel's usual 50 us first.
    code = (
        "import ctypes; from pathlib import Path; from bidref.engines.io import IoGroup\n"
        "ctypes.CDLL(None).prctl(29, 50000, 0, 0, 0)\n"
        "p = Path('/proc/self/timerslack_ns')\n"
        "before = p.read_text().strip(); IoGroup(); print(before, p.read_text().strip())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.split()
    assert out[1] == str(TIMER_SLACK_NS)
    assert out[0] == "50000"  # (it was not so before: the group set it)


# -- the look before sleeping (IoGroup.wait): real pipes, a clock that moves per reading --


@pytest.fixture
def engine_stdout() -> Iterator[tuple[IoGroup, Reader, int, SteppingClock]]:
    """A group with one engine whose stdout is a pipe the test writes to."""
    r, w = os.pipe()
    in_r, in_w = os.pipe()
    clock = SteppingClock(10 * US)
    reader = Reader(r, clock, 1000)
    group = IoGroup(spin_ns=50 * US)
    group.add(reader, Writer(in_w))
    try:
        yield group, reader, w, clock
    finally:
        for fd in (r, w, in_r, in_w):
            os.close(fd)


def test_a_wait_after_a_quick_reply_finds_the_next_one_without_sleeping(
    engine_stdout: tuple[IoGroup, Reader, int, SteppingClock],
) -> None:
    group, reader, w, _ = engine_stdout
    group.quick = True
    os.write(w, b'{"type":"action"}\n')
    group.wait(SECOND)
    assert [i.text for i in reader.items] == ['{"type":"action"}']  # type: ignore[union-attr]
    assert group.quick and group.spin_off == 0  # it keeps looking first


def test_a_look_before_sleeping_that_finds_nothing_backs_off(
    engine_stdout: tuple[IoGroup, Reader, int, SteppingClock],
) -> None:
    group, reader, _, clock = engine_stdout
    group.quick = True
    start = clock.now
    group.wait(60 * US)
    # It looked for 50 us by the clock, then slept the rest of the timeout.
    assert 50 * US <= clock.now - start <= 90 * US
    assert not reader.items and not group.quick
    assert group.spin_off == SPIN_BACKOFF
    readings = clock.readings
    group.wait(10 * US)  # backing off: no look loop (one reading, the wait's start)
    assert clock.readings - readings == 1 and group.spin_off == SPIN_BACKOFF - 1


def test_the_look_before_sleeping_never_goes_past_the_timeout(
    engine_stdout: tuple[IoGroup, Reader, int, SteppingClock],
) -> None:
    group, _, _, clock = engine_stdout
    group.quick = True
    start = clock.now
    group.wait(20 * US)  # (the deadline is nearer than the spin)
    assert clock.now - start <= 20 * US + 3 * clock.step


def test_the_look_before_sleeping_is_bounded_with_a_clock_that_stands_still() -> None:
    r, w = os.pipe()
    try:
        group = IoGroup(spin_ns=50 * US)
        group.add(Reader(r, FakeClock(), 1000), Writer(w))
        group.quick = True
        group.wait(1000)  # returns: at most SPIN_LOOKS looks, then a 1 us select
        assert group.spin_off == SPIN_BACKOFF
    finally:
        os.close(r)
        os.close(w)


def test_no_look_before_sleeping_after_a_slow_reply_or_when_turned_off(
    engine_stdout: tuple[IoGroup, Reader, int, SteppingClock],
) -> None:
    group, _, _, clock = engine_stdout
    assert not group.quick  # (a fresh group: nothing came quickly yet)
    readings = clock.readings
    group.wait(10 * US)
    assert clock.readings - readings == 1  # the wait's start only: no look loop
    off = IoGroup()  # (the default: off)
    off.quick = True
    off.readers, off.writers = group.readers, group.writers
    readings = clock.readings
    off.wait(10 * US)
    assert clock.readings - readings == 1


def test_an_empty_look_is_a_look_and_a_closed_pipe_still_reads_as_eof() -> None:
    # (an empty look asks poll() instead of reading: it must still count as the
    # last look that found nothing, and EOF must still be seen)
    r, w = os.pipe()
    clock = FakeClock()
    reader = Reader(r, clock, 1000)
    try:
        clock.advance(5 * US)
        assert not reader.look() and reader.quiet == clock.now
        os.write(w, b'{"a":1}\n')
        os.close(w)
        w = -1
        clock.advance(5 * US)
        assert reader.look() and type(reader.take()).__name__ == "Line"
        assert reader.look() and type(reader.take()).__name__ == "Eof"
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
