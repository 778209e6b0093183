"""Engine I/O without reader threads: non-blocking reads and writes, one wait per match.

The referee's own thread reads each engine's stdout when it looks (``look``),
and waits for it in one ``select``/``poll`` over every engine of the match
(:class:`IoGroup`), so the engine that is thinking wakes the referee directly,
and the other engine's output and pending input are moved while it waits. No
thread hand-off stands between a reply and the referee, and every stamp comes
from a look the referee made itself, which is what makes its clock judgeable:

- a line carries ``t``, the clock when the read that completed it returned,
  and ``after``, the start of the last look before it that found the pipe
  empty: the line's newline reached the pipe in ``(after, t]``;
- an empty look that started at or after a deadline proves a time loss;
  a line with ``after`` before the deadline and ``t`` too far after it cannot
  be judged (the referee was not looking): see docs/match.md, "Clock promises".

Writes never block: what the pipe does not take now waits in a per-engine
out-queue (moved on by every look and wait), capped at :data:`OUT_CAP` bytes;
beyond the cap the engine is not reading and further output to it is dropped
(its clock keeps running, so it loses on time).
"""

from __future__ import annotations

import array
import ctypes
import fcntl
import os
import select
import stat
import sys
import termios
import threading
from collections import deque
from collections.abc import Callable
from typing import Final

from .framing import LineFramer, LineTooLong
from .transport import Clock, Eof, Incoming, Line, Overlong, WriteError

READ_SIZE: Final = 65536
READS_PER_LOOK: Final = 16  # at most 1 MiB per look, so one look is bounded work
BACKLOG_CAP: Final = 4 << 20  # characters of lines read and not taken: beyond, stop reading
LINE_WEIGHT: Final = 64  # what a queued line costs beyond its characters
OUT_CAP: Final = 4 << 20  # bytes queued for an engine that does not read its stdin
_SELECT_FDS: Final = 1024  # select() takes only descriptors below FD_SETSIZE
TIMER_SLACK_NS: Final = 1000  # the referee's thread's timer slack (Linux; the default is 50 us)
_PR_SET_TIMERSLACK: Final = 29
# Looking before sleeping (IoGroup.wait): for spin_ns at most, in at most SPIN_LOOKS
# zero-timeout selects; after a spin that found nothing, SPIN_BACKOFF waits without one.
# Off by default: measured side by side it gained nothing (docs/perf.md, issue 13).
SPIN_NS: Final = 0
SPIN_LOOKS: Final = 200
SPIN_BACKOFF: Final = 16
SETTLE_STEP_S: Final = 0.0002  # how often :meth:`IoGroup.settle` looks whether engines have read


class Reader:
    """One engine's stdout: framed, stamped lines, read only when someone looks."""

    def __init__(
        self,
        fd: int,
        clock: Clock,
        max_line: int,
        on_other: Callable[[bytes], None] | None = None,
        backlog_cap: int = BACKLOG_CAP,
    ) -> None:
        os.set_blocking(fd, False)
        self.fd = fd
        self.clock = clock
        self.framer = LineFramer(max_line)
        self.on_other = on_other  # (pty) lines that are not JSON objects: stderr
        self.backlog_cap = backlog_cap
        self.items: deque[Incoming] = deque()
        self.weight = 0  # of the lines in ``items``
        self.quiet = clock()  # start of the last look that found no complete line
        self.done = False  # EOF has been queued
        self.closed = False
        # An empty look asks poll() first: a read that fails with EAGAIN costs
        # five times as much (the exception), and looks are on the hot path.
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)

    def wants_read(self) -> bool:
        return not self.done and not self.closed and self.weight <= self.backlog_cap

    def look(self) -> bool:
        """Read what is in the pipe now (never waits); True if items are queued."""
        if not self.wants_read():
            return bool(self.items)
        clock = self.clock
        t0 = clock()
        if not self._poll.poll(0):
            self.quiet = t0  # nothing to read (EOF, errors and a closed descriptor say so)
            return bool(self.items)
        chunks: list[bytes] = []
        drained = False
        eof = False
        for _ in range(READS_PER_LOOK):
            try:
                data = os.read(self.fd, READ_SIZE)
            except BlockingIOError:
                drained = True
                break
            except OSError:  # EIO on a pty whose other side is closed; EBADF after close
                data = b""
            if not data:
                eof = drained = True
                break
            chunks.append(data)
            if len(data) < READ_SIZE:
                drained = True
                break
        if chunks or eof:
            # Stamp before framing: splitting and decoding is our work, not the engine's.
            t = clock()
            after = self.quiet
            items = self.items
            on_other = self.on_other
            for chunk in chunks:
                for item in self.framer.feed(chunk):
                    if isinstance(item, LineTooLong):
                        items.append(Overlong(item.prefix, item.length, t))
                    elif on_other is not None and not item.lstrip().startswith("{"):
                        on_other((item + "\n").encode())
                    else:
                        self.weight += len(item) + LINE_WEIGHT
                        items.append(Line(item, t, after))
            if eof:
                self.done = True
                items.append(Eof(t, self.framer.rest()))
        if drained:
            self.quiet = t0
        return bool(self.items)

    def take(self) -> Incoming:
        item = self.items.popleft()
        if type(item) is Line:
            self.weight -= len(item.text) + LINE_WEIGHT
        return item

    def discard_until_eof(self) -> threading.Thread:
        """The match is over: keep the pipe empty (on a thread, as the process is
        being ended by blocking calls) so the engine can still exit cleanly."""
        self.backlog_cap = -1
        self.items.clear()

        def run() -> None:
            while not self.closed:
                try:
                    if not os.read(self.fd, READ_SIZE):
                        return
                except BlockingIOError:
                    select.select([self.fd], [], [], 0.05)
                except OSError:
                    return

        th = threading.Thread(target=run, name=f"drain-{self.fd}", daemon=True)
        th.start()
        return th  # join it (after setting ``closed``) before closing the descriptor


class Writer:
    """One engine's stdin: non-blocking writes, a capped out-queue."""

    def __init__(self, fd: int, cap: int = OUT_CAP) -> None:
        os.set_blocking(fd, False)
        self.fd = fd
        self.cap = cap
        self.out = bytearray()
        self.dropped = 0  # bytes not queued: the engine had stopped reading
        self.broken: str | None = None  # why the engine can no longer be written to
        try:  # the kernel says how much of a pipe is unread (not of a pty's)
            self.is_pipe = stat.S_ISFIFO(os.fstat(fd).st_mode)
        except OSError:
            self.is_pipe = False
        self._nread = array.array("i", [0])  # FIONREAD writes a C int

    @property
    def pending(self) -> bool:
        return bool(self.out)

    def unread(self) -> int | None:
        """Bytes written for the engine that it has not read yet (the out-queue
        and what sits in the pipe); None where the kernel cannot say (a pty)."""
        if self.broken is not None:
            return 0
        if not self.is_pipe:
            return None
        try:
            fcntl.ioctl(self.fd, termios.FIONREAD, self._nread)
        except OSError:
            return None
        return len(self.out) + self._nread[0]

    def write(self, data: bytes) -> None:
        """Write ``data`` now as far as the pipe takes it; queue the rest (capped).
        Raises :class:`WriteError` once the engine has closed its stdin."""
        if self.broken is not None:
            raise WriteError(self.broken)
        if self.out:
            self.flush()
        if not self.out:
            try:
                n = os.write(self.fd, data)
            except BlockingIOError:
                n = 0
            except OSError as e:
                self.broken = f"the engine's stdin is closed ({e.strerror or e})"
                raise WriteError(self.broken) from None
            if n == len(data):
                return
            data = data[n:]
        if len(self.out) + len(data) > self.cap:
            self.dropped += len(data)  # it has not read for OUT_CAP bytes: it loses on time
            return
        self.out += data

    def flush(self) -> None:
        """Move queued bytes on (never waits)."""
        while self.out and self.broken is None:
            try:
                n = os.write(self.fd, self.out)
            except BlockingIOError:
                return
            except OSError as e:
                self.broken = f"the engine's stdin is closed ({e.strerror or e})"
                self.out.clear()
                return
            del self.out[:n]


_libc: ctypes.CDLL | None = None


def precise_timers() -> bool:
    """Let this thread's timed waits end within a microsecond of their time
    (Linux: ``PR_SET_TIMERSLACK``; the kernel otherwise adds up to 50 us to every
    timeout, which a deadline look would be late by). True where it was set."""
    global _libc
    if not sys.platform.startswith("linux"):
        return False
    try:
        if _libc is None:
            _libc = ctypes.CDLL(None, use_errno=True)
        return int(_libc.prctl(_PR_SET_TIMERSLACK, TIMER_SLACK_NS, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


class IoGroup:
    """The engines of one match: one wait moves all of their I/O. Made on the
    thread that runs the match, it makes that thread's timed waits precise
    (:func:`precise_timers`)."""

    def __init__(self, spin_ns: int = SPIN_NS) -> None:
        self.readers: list[Reader] = []
        self.writers: list[Writer] = []
        self.spin_ns = spin_ns  # 0: never look before sleeping (see :meth:`wait`)
        self.spin_off = 0  # waits left without a spin, after a spin that found nothing
        self.quick = False  # the last wait found output within ``spin_ns``
        precise_timers()

    def add(self, reader: Reader, writer: Writer) -> None:
        self.readers.append(reader)
        self.writers.append(writer)

    def remove(self, reader: Reader, writer: Writer) -> None:
        if reader in self.readers:
            self.readers.remove(reader)
        if writer in self.writers:
            self.writers.remove(writer)

    def wait(self, timeout_ns: int) -> None:
        """Wait up to ``timeout_ns`` for any engine's output (or room for its
        pending input), then look at every engine that has some.

        When the last wait found output within ``spin_ns``, this one first
        looks without sleeping for up to ``spin_ns`` (never past
        ``timeout_ns``): an engine that answers that fast is then read by a
        referee that is still running, instead of waking one that slept (tens of
        microseconds, more across CPUs). A look that found nothing turns it off
        for :data:`SPIN_BACKOFF` waits (a thinking engine, or a machine with
        more to run than CPUs: the CPU is theirs)."""
        rs = [r for r in self.readers if r.wants_read()]
        ws = [w for w in self.writers if w.out and w.broken is None]
        rfds = [r.fd for r in rs]
        wfds = [w.fd for w in ws]
        if not rs or timeout_ns <= 0:
            timeout_ns = max(timeout_ns, 0)
        elif self.spin_off:
            self.spin_off -= 1
        elif self.quick and self.spin_ns and max(rfds + wfds) < _SELECT_FDS:
            clock = rs[0].clock
            t0 = clock()
            end = t0 + min(self.spin_ns, timeout_ns)
            for _ in range(SPIN_LOOKS):
                try:
                    ready = select.select(rfds, wfds, [], 0)
                except (OSError, ValueError):
                    break
                if ready[0] or ready[1]:
                    self._move(rs, ws, ready[0], ready[1])
                    return  # (``quick`` stays)
                now = clock()
                if now >= end:
                    break
            else:
                now = clock()
            self.spin_off = SPIN_BACKOFF
            timeout_ns -= now - t0
        t_wait = rs[0].clock() if rs else 0
        timeout = max(timeout_ns, 0) / 1e9
        try:
            if max(rfds + wfds, default=0) < _SELECT_FDS:
                # select() sleeps to the microsecond (poll and epoll round up to ms)
                ready_r, ready_w, _ = select.select(rfds, wfds, [], timeout)
            else:  # pragma: no cover - a process with over 1024 descriptors open
                p = select.poll()
                for fd in rfds:
                    p.register(fd, select.POLLIN)
                for fd in wfds:
                    p.register(fd, select.POLLOUT)
                ev = p.poll(timeout * 1000)
                ready_r = [fd for fd, e in ev if e & ~select.POLLOUT]
                ready_w = [fd for fd, e in ev if e & select.POLLOUT]
        except (OSError, ValueError):  # a descriptor closed meanwhile: look at all
            ready_r, ready_w = rfds, wfds
        if rs:
            self.quick = bool(ready_r) and rs[0].clock() - t_wait <= self.spin_ns
        self._move(rs, ws, ready_r, ready_w)

    @staticmethod
    def _move(rs: list[Reader], ws: list[Writer], ready_r: list[int], ready_w: list[int]) -> None:
        for r in rs:
            if r.fd in ready_r:
                r.look()
        for w in ws:
            if w.fd in ready_w:
                w.flush()

    def settle(self, timeout_ns: int, clock: Clock) -> None:
        """Sleep, moving queued input on, until every engine has read what it was
        written, or for ``timeout_ns`` at most. The match is over and the engines
        have just been told: what the referee does next (the /proc scans, the
        teardown) is CPU work that would otherwise compete with them for the CPU
        they need to read the news (on a busy machine, for milliseconds)."""
        until = clock() + timeout_ns
        while True:
            # (an engine that closed its stdout has exited, or will not read)
            pairs = zip(self.readers, self.writers, strict=True)  # (added and removed together)
            waiting = [w for r, w in pairs if not r.done and w.unread()]
            if not waiting or clock() >= until:
                return
            for w in waiting:
                w.flush()
            select.select([], [], [], SETTLE_STEP_S)
