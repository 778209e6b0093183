"""What the pipe and pty transports share: one engine process, its line queue,
its stderr log, and the teardown policy (see :mod:`bidref.engines.transport`).

A subclass starts the process and its reader threads, then sets ``pid``,
``_wfd`` (the descriptor lines are written to), ``_reader`` (a
:class:`StdoutReader`, whose thread it starts), ``_queue`` and ``_sink``; it
says how to reap the process and what to release after it (:meth:`_reap`,
:meth:`_release`).
"""

from __future__ import annotations

import queue

from .lifecycle import escaped_descendants, exit_info_of, terminate, wait_exit
from .transport import (
    EXIT_POLL_NS,
    Clock,
    Eof,
    ExitInfo,
    Incoming,
    StderrSink,
    StdoutReader,
    get_incoming,
    write_all,
)


class ProcessTransport:
    clock: Clock
    pid: int
    _wfd: int
    _reader: StdoutReader
    _queue: queue.SimpleQueue[Incoming]
    _sink: StderrSink
    _closed: ExitInfo | None = None
    _noted: dict[int, int] | None = None  # escaped descendants noted before the end

    def write_line(self, text: str) -> int:
        write_all(self._wfd, (text + "\n").encode())
        return self.clock()

    def read(self, deadline: int | None) -> Incoming | None:
        """The next line; None at ``deadline``. When the engine has exited but
        its stdout is still open (a process it started holds it), what it wrote
        is returned, then :class:`Eof`."""
        clock = self.clock
        while True:
            look = clock() + EXIT_POLL_NS
            until = look if deadline is None or look < deadline else deadline
            got = get_incoming(self._queue, clock, until)
            if got is not None:
                self._reader.taken(got)
                return got
            if until == deadline:
                return None
            if exit_info_of(self.pid, "running") is not None:
                self._reader.take_all()
                if self._queue.empty():
                    return Eof(clock())

    def has_input(self) -> bool:
        """Whether a complete line (or EOF) is there that :meth:`read` has not
        returned yet; bytes still in the pipe are read (and stamped) now. The
        start of a line is not input: it is stamped when its newline is read."""
        if not self._queue.empty():
            return True
        if self._reader.waiting():
            self._reader.take_waiting()
            return not self._queue.empty()
        return False

    def note_descendants(self) -> None:
        if self._closed is None:
            self._noted = {**(self._noted or {}), **escaped_descendants(self.pid)}

    def poll_exit(self) -> ExitInfo | None:
        return self._closed or exit_info_of(self.pid, "running")

    def wait_exit(self, timeout_ns: int) -> ExitInfo | None:
        return self._closed or wait_exit(self.pid, timeout_ns, "running")

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        """Quit line, grace, SIGTERM and SIGKILL to the group, reap; idempotent."""
        if self._closed is not None:
            return self._closed

        def send_quit() -> None:
            if quit_line is not None:
                write_all(self._wfd, (quit_line + "\n").encode(), timeout_ns=grace_ns)

        self._reader.release()
        info = terminate(
            self.pid, send_quit if quit_line else None, grace_ns, self._reap, self._noted
        )
        self._release()
        self._sink.close()
        self._closed = info
        return info

    def _reap(self) -> None:
        raise NotImplementedError

    def _release(self) -> None:
        """Close descriptors and join reader threads once the process is gone."""
        raise NotImplementedError

    def stderr_tail(self) -> str:
        return self._sink.tail()

    def stderr_bytes(self) -> int:
        return self._sink.total
