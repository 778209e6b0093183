"""Transports: move lines between the referee and one engine process.

A transport starts the engine in its own process group, writes lines to its
stdin, and reads its stdout and stderr **at all times** on background threads,
so an engine can never block on a full pipe. Each stdout line is stamped with
the injected monotonic clock the moment its newline is read; the referee
charges time from the end of a request write to that stamp. Stderr is drained
into a capped log.

Ending the process is a policy (:func:`.lifecycle.terminate`): a quit line, a grace
period, SIGTERM to the whole group, SIGKILL to the group, reap. The group
leader is only reaped after the group has been killed, so its process-group id
cannot be reused by an unrelated process in between.
"""

from __future__ import annotations

import logging
import os
import queue
import select
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final, Protocol

from .framing import LineFramer, LineTooLong

log = logging.getLogger(__name__)

Clock = Callable[[], int]
"""A monotonic clock in integer nanoseconds (``time.monotonic_ns`` in real use)."""

STDERR_CAP: Final = 1 << 20  # bytes of stderr kept in a per-engine log
STDERR_TAIL: Final = 2000  # characters of stderr kept in memory for crash reports
WRITE_TIMEOUT_NS: Final = 10_000_000_000
EXIT_POLL_NS: Final = 50_000_000  # how often a read looks whether the engine has exited
BACKLOG_CAP: Final = 16 << 20  # stdout kept that the referee has not taken (chars, ~)
LINE_WEIGHT: Final = 64  # what a queued line costs beyond its characters


@dataclass(frozen=True, slots=True)
class Line:
    """A complete line read from the engine's stdout at clock time ``t``."""

    text: str
    t: int


@dataclass(frozen=True, slots=True)
class Overlong:
    """A stdout line over the limit (its start is kept)."""

    prefix: str
    length: int
    t: int


@dataclass(frozen=True, slots=True)
class Eof:
    """The engine closed its stdout (usually: it exited)."""

    t: int
    rest: str = ""  # bytes after the last newline, if any


Incoming = Line | Overlong | Eof


@dataclass(frozen=True, slots=True)
class ExitInfo:
    """How an engine process ended."""

    exit_code: int | None  # None when killed by a signal (or unknown)
    signal: str | None  # e.g. "SIGKILL"
    how: str  # exited | quit | sigterm | sigkill | reaped | not_started | running

    def describe(self) -> str:
        if self.signal:
            return f"killed by {self.signal}"
        if self.exit_code is None:
            return "still running"
        return f"exit code {self.exit_code}"


class EngineStartError(Exception):
    """The engine could not be started (e.g. the command does not exist)."""


class WriteError(Exception):
    """A line could not be written: the engine closed its stdin or stopped reading."""


class Transport(Protocol):
    """A line-level connection to one engine process."""

    pid: int

    def write_line(self, text: str) -> int:
        """Write ``text`` + newline; return the clock time once it is written.
        Raises :class:`WriteError`."""
        ...

    def read(self, deadline: int | None) -> Incoming | None:
        """The next incoming item, or None once the clock reaches ``deadline``."""
        ...

    def note_descendants(self) -> None:
        """Note the engine's descendants outside its process group now, so that
        :meth:`close` ends them even if the engine exits first."""
        ...

    def has_input(self) -> bool:
        """Whether the engine has written a complete line (or an over-long one,
        or closed stdout) that :meth:`read` has not returned yet."""
        ...

    def poll_exit(self) -> ExitInfo | None:
        """The exit status if the process has exited (without reaping it)."""
        ...

    def wait_exit(self, timeout_ns: int) -> ExitInfo | None:
        """Wait up to ``timeout_ns`` for the process to exit (without reaping)."""
        ...

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        """End the process and all of its group; see :func:`terminate`."""
        ...

    def stderr_tail(self) -> str: ...

    def stderr_bytes(self) -> int: ...


# -- helpers shared by the pipe and pty transports ----------------------------------------------


class StderrSink:
    """Capped storage of an engine's stderr: a file (optional) and an in-memory tail."""

    def __init__(self, path: Path | None, cap: int = STDERR_CAP) -> None:
        self.path = path
        self.cap = cap
        self.total = 0
        self._tail = ""
        self._lock = threading.Lock()
        # The log gets its name only when the engine has ended (close): until then
        # it is an unnamed file, so the other engine (same user) cannot open it
        # by name. Made and published 0600: not readable by other users.
        self._file = _unnamed_file(path.parent) if path is not None else None

    def write(self, data: bytes) -> None:
        with self._lock:
            room = self.cap - self.total
            self.total += len(data)
            if self._file is not None and room > 0:
                self._file.write(data[:room])
                if len(data) >= room:
                    self._file.write(b"\n[bidref: stderr log capped]\n")
                self._file.flush()
            self._tail = (self._tail + data.decode("utf-8", "replace"))[-STDERR_TAIL:]

    def tail(self) -> str:
        with self._lock:
            return self._tail

    def close(self) -> None:
        with self._lock:
            if self._file is not None and self.path is not None:
                _publish(self._file, self.path)
                self._file = None


def _unnamed_file(folder: Path) -> BinaryIO:
    return tempfile.TemporaryFile(dir=folder)  # O_TMPFILE (or unlinked at once), mode 0600


def _publish(file: BinaryIO, path: Path) -> None:
    try:
        file.seek(0)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)  # an older log of the same name may be readable
        with open(fd, "wb") as out:
            shutil.copyfileobj(file, out)
    except OSError as e:
        log.warning("cannot write the stderr log %s: %s", path, e)
    finally:
        file.close()


def _read(fd: int) -> bytes:
    """One blocking read of ``fd`` (which may be non-blocking); b"" at EOF or error."""
    while True:
        try:
            return os.read(fd, 65536)
        except BlockingIOError:
            select.select([fd], [], [])
        except OSError:  # EIO on a pty whose other side is closed; EBADF after close
            return b""


class StdoutReader:
    """Reads one engine's stdout: frames lines, stamps them, queues them.

    A background thread (:meth:`run`) reads at all times, so the engine never
    blocks on a full pipe. The referee may also take bytes that are already
    there itself (:meth:`take_waiting`), when it is awake anyway, instead of
    waking up later for the thread's hand-over; a lock keeps the two from
    splitting one read between them.

    ``on_other`` (pty transport) receives lines that do not look like JSON
    objects, which are then treated as stderr output.

    What is queued and not yet taken (:meth:`taken`) is kept up to
    ``backlog_cap``: beyond it the thread stops reading until the referee takes
    lines, so an engine flooding its stdout waits on its full pipe instead of
    filling the referee's memory.
    """

    def __init__(
        self,
        fd: int,
        clock: Clock,
        out: queue.SimpleQueue[Incoming],
        max_line: int,
        on_other: Callable[[bytes], None] | None = None,
        backlog_cap: int = BACKLOG_CAP,
    ) -> None:
        os.set_blocking(fd, False)
        self.fd = fd
        self.clock = clock
        self.out = out
        self.on_other = on_other
        self.framer = LineFramer(max_line)
        self.lock = threading.Lock()
        self.done = False  # EOF has been queued
        self.backlog_cap = backlog_cap
        self.queued = 0  # weight of the lines queued (written by the reading side only)
        self.taken_weight = 0  # weight of the lines taken (written by the taking side only)
        self.room = threading.Event()  # set while the backlog is under the cap
        self.room.set()
        self._poller = select.poll()
        self._poller.register(fd, select.POLLIN)

    def run(self) -> None:
        """Thread body: read until EOF."""
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        while True:
            self._wait_for_room()
            # Wait for bytes without taking them: they stay in the pipe until this
            # thread holds the GIL to stamp them, so that meanwhile the referee can
            # see them (waiting) and take them itself.
            poller.poll()
            with self.lock:
                if not self._take():
                    return

    def _wait_for_room(self) -> None:
        while self.queued - self.taken_weight > self.backlog_cap:
            self.room.clear()
            if self.queued - self.taken_weight > self.backlog_cap:  # (no lost wake-up)
                self.room.wait(0.5)

    def taken(self, item: Incoming) -> None:
        """The referee took ``item`` from the queue: room for more."""
        if type(item) is Line:
            self.taken_weight += len(item.text) + LINE_WEIGHT
            if not self.room.is_set() and self.queued - self.taken_weight <= self.backlog_cap:
                self.room.set()

    def release(self) -> None:
        """Stop holding the thread back (the process is being ended)."""
        self.backlog_cap = 1 << 62
        self.room.set()

    def waiting(self) -> bool:
        """Whether bytes (or EOF) are in the pipe, not read yet."""
        return not self.done and bool(self._poller.poll(0))

    def take_all(self, max_reads: int = 64) -> None:
        """Read what is in the pipe now, after any read of the thread in progress
        (e.g. what an engine wrote before it exited)."""
        with self.lock:
            for _ in range(max_reads):
                if not (self.waiting() and self._take()):
                    return

    def take_waiting(self) -> None:
        """Read what is in the pipe now, if the thread is not reading already."""
        if self.lock.acquire(blocking=False):
            try:
                self._take()
            finally:
                self.lock.release()

    def _take(self) -> bool:
        """One read (the lock held); False once EOF is queued."""
        if self.done:
            return False
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return True
        except OSError:  # EIO on a pty whose other side is closed; EBADF after close
            data = b""
        # Stamp before framing: splitting and decoding the bytes is our work, not
        # the engine's time.
        t = self.clock()
        framer = self.framer
        if not data:
            self.done = True
            self.out.put(Eof(t, framer.rest()))
            return False
        on_other = self.on_other
        for item in framer.feed(data):
            if isinstance(item, LineTooLong):
                self.out.put(Overlong(item.prefix, item.length, t))
            elif on_other is not None and not item.lstrip().startswith("{"):
                on_other((item + "\n").encode())
            else:
                self.queued += len(item) + LINE_WEIGHT
                self.out.put(Line(item, t))
        return True


def drain(fd: int, sink: StderrSink) -> None:
    """Thread body: copy ``fd`` into ``sink`` until EOF."""
    while True:
        data = _read(fd)
        if not data:
            return
        sink.write(data)


def get_incoming(
    q: queue.SimpleQueue[Incoming], clock: Clock, deadline: int | None
) -> Incoming | None:
    """The next item of ``q``, or None when ``deadline`` (clock ns) has passed."""
    # No get_nowait() first: raising and catching Empty costs the referee time
    # right after it has written a request, when the reply may already be back.
    while True:
        if deadline is None:
            timeout = 3600.0
        else:
            left = deadline - clock()
            if left <= 0:
                return None if q.empty() else q.get()
            timeout = left / 1e9
        try:
            return q.get(timeout=timeout)
        except queue.Empty:
            if deadline is not None and clock() >= deadline:
                return None


def write_all(fd: int, data: bytes, timeout_ns: int = WRITE_TIMEOUT_NS) -> None:
    """Write ``data`` to the non-blocking ``fd``; raise :class:`WriteError` on a
    closed pipe or when the engine has not read for ``timeout_ns``."""
    try:
        n = os.write(fd, data)  # the usual case: it all fits in the pipe at once
    except BlockingIOError:
        n = 0
    except OSError as e:
        raise WriteError(f"the engine's stdin is closed ({e.strerror or e})") from None
    if n == len(data):
        return
    view = memoryview(data)[n:]
    end = time.monotonic_ns() + timeout_ns
    while view:
        try:
            n = os.write(fd, view)
        except BlockingIOError:
            left = end - time.monotonic_ns()
            if left <= 0:
                raise WriteError(
                    f"the engine has not read its stdin for {timeout_ns / 1e9:g} s"
                ) from None
            select.select([], [fd], [], left / 1e9)
            continue
        except OSError as e:
            raise WriteError(f"the engine's stdin is closed ({e.strerror or e})") from None
        view = view[n:]
