"""Transports: move lines between the referee and one engine process.

A transport starts the engine in its own process group, writes lines to its
stdin without ever blocking (:mod:`.io`: a capped out-queue), and reads its
stdout on the referee's own thread whenever the referee looks or waits (one
wait per match moves every engine's I/O, :class:`.io.IoGroup`). Each stdout
line is stamped with the injected monotonic clock when the read that completed
it returned, together with the start of the last look that found nothing
(:class:`Line`). A request's clock is stamped *before* it is written. Stderr
is drained into a capped log by a thread (an engine that floods it must never
wait on the referee); each chunk read is stamped with the same injected clock,
and the stamps go to a sidecar next to the log (:func:`stderr_times_path`), so
that the log itself holds exactly the engine's bytes.

Ending the process is a policy (:func:`.lifecycle.terminate`): a quit line, a grace
period, SIGTERM to the whole group, SIGKILL to the group, reap. The group
leader is only reaped after the group has been killed, so its process-group id
cannot be reused by an unrelated process in between.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Final, Protocol

from bidref.errors import BidrefError

if TYPE_CHECKING:
    from .cputime import Jail
    from .schedwait import Sample

log = logging.getLogger(__name__)

Clock = Callable[[], int]
"""A monotonic clock in integer nanoseconds (``time.monotonic_ns`` in real use)."""

STDERR_CAP: Final = 1 << 20  # bytes of stderr kept in a per-engine log
STDERR_TAIL: Final = 2000  # characters of stderr kept in memory for crash reports
STDERR_TIMES_CAP: Final = 20_000  # chunks of stderr stamped per engine (the rest: no time)
STDERR_TIMES_FORMAT: Final = "bidref-stderr-times/1"
WRITE_TIMEOUT_NS: Final = 10_000_000_000
EXIT_POLL_NS: Final = 50_000_000  # how often a read looks whether the engine has exited


@dataclass(frozen=True, slots=True)
class Line:
    """A complete line read from the engine's stdout at clock time ``t``.

    ``after``: the start of the last look before it that found no complete line
    (the line's end arrived in ``(after, t]``); None when ``t`` is exact (a seat
    that stamps each line as it is made, e.g. a person's input).
    """

    text: str
    t: int
    after: int | None = None


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
    # The process was bubblewrap (the jail), which reports its child's death by
    # signal n as exit code 128 + n.
    jailed: bool = False

    def describe(self) -> str:
        """``killed by SIGSEGV``, ``exit code 1``; from a jail ``exit code 139:
        killed by SIGSEGV`` (which an engine could also mean by exit(139))."""
        if self.signal:
            return f"killed by {self.signal}"
        if self.exit_code is None:
            return "still running"
        inner = self.signal_in_jail()
        return f"exit code {self.exit_code}" + (f": killed by {inner}" if inner else "")

    def signal_in_jail(self) -> str | None:
        """The signal a jail's exit code 128 + n stands for, or None."""
        if not self.jailed or self.exit_code is None or self.exit_code <= 128:
            return None
        try:
            return signal.Signals(self.exit_code - 128).name
        except ValueError:
            return None


class EngineStartError(BidrefError):
    """The engine could not be started (e.g. the command does not exist)."""


class JailStartError(EngineStartError):
    """The referee's own set-up of an engine's jail failed (bidref.sandbox.JailSetupError):
    the match is aborted, as for any fault of the referee's."""


class WriteError(Exception):
    """A line could not be written: the engine closed its stdin or stopped reading."""


class Transport(Protocol):
    """A line-level connection to one engine process."""

    pid: int

    @property
    def jail(self) -> Jail | None:
        """The engine's jail, where the sandbox made one (:mod:`.cputime`)."""
        ...

    def write_line(self, text: str) -> int:
        """Write ``text`` + newline without blocking (what the pipe does not take is
        queued, capped); return the clock time taken just *before* the write, so
        the engine could not read a byte of it earlier. Raises :class:`WriteError`."""
        ...

    def read(self, deadline: int | None) -> Incoming | None:
        """The next incoming item, or None after a look that started at or after
        ``deadline`` found nothing (what is already in the pipe is always returned
        first, even after the deadline)."""
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

    def settle_stderr(self, timeout_ns: int) -> None:
        """Once the process has exited, wait (bounded) until its stderr is all read."""
        ...

    def stderr_bytes(self) -> int: ...

    def cpu_ns(self) -> int | None:
        """User + system time (ns) of everything the engine has run so far, or None
        where it cannot be known (see :mod:`.cputime`). Cheap: read per decision."""
        ...

    def freeze(self) -> None:
        """Stop the engine (all its processes) until :meth:`thaw`; a no-op where
        it cannot be done. Lines written meanwhile wait in the pipe."""
        ...

    def thaw(self) -> None:
        """Let a frozen engine run again (a no-op when it is not frozen)."""
        ...

    def wait_sample(self) -> Sample | None:
        """The run-queue counters of the engine's tasks now (:mod:`.schedwait`)."""
        ...

    def cores(self) -> int | None:
        """How many CPUs the engine may run on, None once it is gone."""
        ...

    def priority_lowered(self) -> bool:
        """Whether a task of the engine runs below the priority it was started with."""
        ...

    def runnable_tasks(self) -> set[int]:
        """Which of the engine's tasks are runnable now."""
        ...


# -- helpers shared by the pipe and pty transports ----------------------------------------------


def stderr_times_path(log_path: Path) -> Path:
    """Where the times of a stderr log's chunks are kept: beside it, ``….times.json``."""
    return log_path.with_name(log_path.name + ".times.json")


class StderrSink:
    """Capped storage of an engine's stderr: a file (optional) and an in-memory tail.

    With a ``clock`` (the match's injected monotonic clock), every chunk written is
    stamped when it arrives: :attr:`times` holds ``(end, t)`` — the byte offset in
    the stream just after the chunk, and the clock then — for the chunks within the
    log's cap (at most STDERR_TIMES_CAP). A line of the log is placed at the time
    of the chunk that completed it, as a stdout line is. On :meth:`close` they are
    written beside the log (:func:`stderr_times_path`)."""

    def __init__(
        self, path: Path | None, cap: int = STDERR_CAP, clock: Clock | None = None
    ) -> None:
        self.path = path
        self.cap = cap
        self.clock = clock
        self.total = 0
        self.times: list[tuple[int, int]] = []
        self._tail = ""
        self._lock = threading.Lock()
        # The log gets its name only when the engine has ended (close): until then
        # it is an unnamed file, so the other engine (same user) cannot open it
        # by name. Made and published 0600: not readable by other users.
        self._file = _unnamed_file(path.parent) if path is not None else None

    def write(self, data: bytes) -> None:
        t = self.clock() if self.clock is not None else None
        with self._lock:
            room = self.cap - self.total
            self.total += len(data)
            if t is not None and room > 0 and len(self.times) < STDERR_TIMES_CAP:
                self.times.append((self.total, t))
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
                side = stderr_times_path(self.path)
                if self.times:
                    _write_times(side, self.times)
                else:  # no chunk: an older run's times must not stay beside this log
                    with contextlib.suppress(OSError):
                        side.unlink()


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


def _write_times(path: Path, times: list[tuple[int, int]]) -> None:
    """The sidecar of a stderr log (protocols/transcript.md, "Stderr times"): 0600
    like the log; its stamps are the referee's clock, whose value at t_ns 0 the
    transcript's header gives (``monotonic_origin_ns``)."""
    text = json.dumps(
        {"format": STDERR_TIMES_FORMAT, "chunks": [[end, t] for end, t in times]},
        separators=(",", ":"),
    )
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)
        with open(fd, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    except OSError as e:
        log.warning("cannot write the stderr times %s: %s", path, e)


def _read(fd: int) -> bytes:
    """One blocking read of ``fd`` (which may be non-blocking); b"" at EOF or error."""
    while True:
        try:
            return os.read(fd, 65536)
        except BlockingIOError:
            select.select([fd], [], [])
        except OSError:  # EIO on a pty whose other side is closed; EBADF after close
            return b""


def drain(fd: int, sink: StderrSink) -> None:
    """Thread body: copy ``fd`` into ``sink`` until EOF, then close ``fd``.

    ``fd`` is the thread's own (a duplicate): a descendant of the engine that
    still holds the pipe keeps it from EOF after the engine is closed, and a
    number the transport had closed meanwhile would be another pipe's by the
    next read (another engine's output, read away)."""
    try:
        while True:
            data = _read(fd)
            if not data:
                return
            sink.write(data)
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


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
