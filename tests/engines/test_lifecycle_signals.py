"""An interrupt (SIGTERM, Ctrl-C) that comes while an engine is being started
must not lose it: the engine is either not started, or held by its seat (which
the referee ends), never running with no seat to end it."""

from __future__ import annotations

import os
import secrets
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from bidref.cli.common import signals_interrupt
from bidref.engines import EngineSpec
from bidref.players import EngineSeat

pytestmark = pytest.mark.e2e


def _running(mark: str) -> set[int]:
    """Our children whose command line holds ``mark`` (zombies included)."""
    me = os.getpid()
    out = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{pid}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == me and mark.encode() in cmdline:
            out.add(int(pid))
    return out


@pytest.fixture
def stray_sigterm_is_harmless() -> Iterator[None]:
    """Outside the guard a SIGTERM that the kernel delivers late (the guard's own
    exit races with it) must not end the test process: it is ignored here."""
    saved = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, saved)


@pytest.mark.usefixtures("stray_sigterm_is_harmless")
def test_an_interrupt_during_engine_starts_never_loses_an_engine() -> None:
    # SIGTERM (Ctrl-C and SIGHUP take the same path in the guard).
    sig = signal.SIGTERM
    mark = f"bidref-test-{secrets.token_hex(6)}"
    spec = EngineSpec(command=("sh", "-c", "sleep 30; :", mark), name="sleeper")
    lost: list[int] = []
    interrupted = 0
    for attempt in range(8):
        seats: list[EngineSeat] = []
        # Engines are started one after the other: the interrupt comes during one.
        timer = threading.Timer(0.005 + 0.003 * attempt, os.kill, (os.getpid(), sig))
        try:
            with signals_interrupt():
                try:
                    # (inside the try: on a loaded machine the signal may come
                    # before start() returns, which is an interrupt like any other)
                    timer.start()
                    for _ in range(200):
                        seat = EngineSeat(spec)
                        seats.append(seat)
                        seat.open()
                        time.sleep(0.001)  # (the referee, too, does more than start engines)
                    timer.cancel()
                except KeyboardInterrupt:
                    interrupted += 1
                timer.join()  # (its signal comes within the guard, or never)
        finally:
            timer.cancel()
            held = {s.pid for s in seats if s.pid is not None}
            lost.extend(_running(mark) - held)
            for s in seats:
                s.close(None, 0)
            for pid in _running(mark):  # what no seat held (the failure)
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        time.sleep(0.05)  # a retried signal of the guard has come and gone
    assert interrupted >= 4, "the interrupts came too late to test anything"
    assert not lost, f"engines started but held by no seat: {lost}"


class _InterruptedFinalizer:
    """Its finalizer takes a SIGINT: the KeyboardInterrupt is raised inside it."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):  # the handler runs at one of these bytecodes
            pass


def test_an_interrupt_swallowed_by_a_finalizer_is_delivered_again() -> None:
    # Python prints and drops an exception raised in a __del__; the match must
    # still stop (seen in CI: Ctrl-C during a lazy import went unheard).
    unheard = []
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt), signals_interrupt():
        _InterruptedFinalizer()  # collected at once
        while time.monotonic() - started < 3:
            time.sleep(0.01)
        unheard.append(True)
    assert not unheard
    assert time.monotonic() - started < 2


def test_an_interrupt_delivered_again_wakes_a_blocked_wait() -> None:
    """The second delivery is a real signal to the main thread: one blocked in a
    long wait (the referee's select for an engine's hello, up to the start-up
    timeout) stops at once, not when the wait ends on its own."""
    import select

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt), signals_interrupt():
        _InterruptedFinalizer()  # taken in the finalizer: delivered again 20 ms on
        select.select([], [], [], 20)  # one C call, 20 s long
    assert time.monotonic() - started < 10
