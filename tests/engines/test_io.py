"""The referee's engine I/O (bidref.engines.io): non-blocking, stamped, one wait per match."""

from __future__ import annotations

import os
import sys
import time

import pytest

from bidref.engines import Eof, IoGroup, Line, PipeTransport, WriteError
from bidref.engines.io import Reader, Writer
from bidref.engines.process import ProcessTransport
from bidref.testing import FakeClock

SECOND = 1_000_000_000


def pipe_transport(clock: FakeClock | None = None) -> tuple[ProcessTransport, int, int]:
    """A transport over a bare pipe pair (no process): returns it and the engine's
    ends (the fd it writes its stdout to, the fd it reads its stdin from)."""
    out_r, out_w = os.pipe()
    in_r, in_w = os.pipe()
    t = ProcessTransport()
    t.clock = clock or time.monotonic_ns
    t.pid = os.getpid()
    t._attach(out_r, in_w, 1000, None)
    return t, out_w, in_r


def test_a_line_already_in_the_pipe_is_returned_after_the_deadline() -> None:
    # The queued-line race: a reply that reached the pipe before the referee's late
    # look is read by that look, with the stamps that let the referee judge it.
    clock = FakeClock(100)
    t, w, _ = pipe_transport(clock)
    clock.now = 200
    assert t.read(deadline=150) is None  # an empty look after the deadline: nothing
    os.write(w, b'{"type":"action","id":1,"action":"draw"}\n')
    clock.now = 300
    got = t.read(deadline=150)
    assert isinstance(got, Line) and got.text.endswith('"draw"}')
    assert (got.after, got.t) == (200, 300)  # it came after the look at 200, by 300


def test_a_line_carries_the_last_empty_look_before_it() -> None:
    clock = FakeClock(10)
    t, w, _ = pipe_transport(clock)
    clock.now = 20
    assert not t.has_input()  # a look at 20: nothing
    os.write(w, b'{"type":"action",')  # the start of a line is not input
    clock.now = 30
    assert not t.has_input()
    os.write(w, b'"id":1,"action":"draw"}\n{"type"')
    clock.now = 40
    assert t.has_input()
    got = t.read(None)
    assert isinstance(got, Line) and got.text == '{"type":"action","id":1,"action":"draw"}'
    assert (got.after, got.t) == (30, 40)
    assert not t.has_input()


def test_lines_come_in_order_with_one_eof_and_ordered_stamps() -> None:
    r, w = os.pipe()
    reader = Reader(r, time.monotonic_ns, max_line=1000)
    got: list[Line | Eof] = []
    n = 3000
    for i in range(n):
        os.write(w, f'{{"n":{i}}}\n'.encode())
        if i % 7 == 0:
            reader.look()
    os.close(w)
    while not got or not isinstance(got[-1], Eof):
        reader.look()
        while reader.items:
            item = reader.take()
            assert isinstance(item, Line | Eof)
            got.append(item)
    os.close(r)
    assert [x.text for x in got[:-1]] == [f'{{"n":{i}}}' for i in range(n)]  # type: ignore[union-attr]
    stamps = [x.t for x in got]
    assert stamps == sorted(stamps)
    assert all(x.after is not None and x.after <= x.t for x in got[:-1])  # type: ignore[union-attr]


def test_a_flooding_engine_is_held_back_by_the_backlog_cap() -> None:
    r, w = os.pipe()
    os.set_blocking(w, False)
    reader = Reader(r, time.monotonic_ns, max_line=1000, backlog_cap=100_000)
    line = b'{"type":"log","message":"' + b"f" * 100 + b'"}\n'
    written = 0
    try:
        for _ in range(5):
            while True:
                try:
                    os.write(w, line)
                    written += 1
                except BlockingIOError:
                    break
            reader.look()
        assert reader.weight <= 100_000 + 1_100_000  # the cap, and one look's reads
        assert not reader.wants_read()
        n = 0
        while reader.items or reader.look():
            reader.take()
            n += 1
        assert n > 0
    finally:
        os.close(w)
        os.close(r)


def test_a_write_never_blocks_and_what_is_queued_is_capped() -> None:
    r, w = os.pipe()
    writer = Writer(w, cap=1 << 20)
    t0 = time.monotonic()
    for _ in range(100):
        writer.write(b"x" * 100_000)  # 10 MB to a pipe nobody reads
    assert time.monotonic() - t0 < 2.0
    assert len(writer.out) <= 1 << 20 and writer.dropped > 0
    os.close(r)
    writer.flush()
    with pytest.raises(WriteError, match="stdin is closed"):
        writer.write(b"y\n")
    os.close(w)


def test_a_request_is_stamped_before_it_is_written() -> None:
    order: list[str] = []
    t, _, in_r = pipe_transport()
    t.clock = lambda: order.append("clock") or 7  # type: ignore[func-returns-value]
    real = t._writer.write

    def write(data: bytes) -> None:
        order.append("write")
        real(data)

    t._writer.write = write  # type: ignore[method-assign]
    assert t.write_line('{"type":"ping","id":1}') == 7
    assert order == ["clock", "write"]
    assert os.read(in_r, 100) == b'{"type":"ping","id":1}\n'


def test_waiting_for_one_engine_drains_the_other() -> None:
    # 2 MB of log lines from B, far more than a pipe holds (and within the backlog
    # cap), while the referee waits for A: one wait moves both, so B is never stuck
    # on its full pipe.
    code = (
        "import sys\nfor i in range(20000):\n"
        '    sys.stdout.write(\'{"type":"log","message":"\' + \'x\' * 80 + \'"}\\n\')\n'
        "sys.stdout.flush()\n"
    )
    group = IoGroup()
    a = PipeTransport([sys.executable, "-c", "import time; time.sleep(60)"], group=group)
    b = PipeTransport([sys.executable, "-c", code], group=group)
    try:
        give_up = time.monotonic() + 30
        while b.poll_exit() is None:
            assert time.monotonic() < give_up, "B blocked on its stdout"
            assert a.read(time.monotonic_ns() + SECOND // 10) is None
        assert b.poll_exit().exit_code == 0  # type: ignore[union-attr]
        n = 0
        while isinstance(b.read(time.monotonic_ns() + SECOND), Line):
            n += 1
        assert n == 20000
    finally:
        a.close(None, SECOND // 10)
        b.close(None, SECOND)


def test_an_engine_that_never_reads_cannot_block_the_referee() -> None:
    # Issue 13, item 4: 12 rules answers (and far more) to an engine that stopped
    # reading its stdin: every write returns at once; the queue is capped.
    t = PipeTransport([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        t0 = time.monotonic()
        for _ in range(200):
            t.write_line("r" * 60_000)  # 12 MB in all, against a 64 KiB pipe
        assert time.monotonic() - t0 < 2.0
        assert len(t._writer.out) <= t._writer.cap and t._writer.dropped > 0
    finally:
        t0 = time.monotonic()
        t.close('{"type":"quit"}', SECOND // 5)
        assert time.monotonic() - t0 < 3.0  # the quit line does not wait on it for long
