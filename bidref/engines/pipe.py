"""The pipe transport: stdin/stdout/stderr pipes, the engine in its own process group."""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from .framing import MAX_LINE
from .transport import (
    Clock,
    EngineStartError,
    ExitInfo,
    Incoming,
    StderrSink,
    drain,
    exit_info_of,
    get_incoming,
    read_stdout,
    terminate,
    wait_exit,
    write_all,
)


class PipeTransport:
    """Start ``argv`` with pipes; see :mod:`bidref.engines.transport`."""

    def __init__(self, argv: Sequence[str], *, cwd: str | None = None,
                 env: Mapping[str, str] | None = None, clock: Clock = time.monotonic_ns,
                 stderr_log: Path | None = None, max_line: int = MAX_LINE) -> None:
        self.clock = clock
        full_env = None if env is None else {**os.environ, **env}
        try:
            self.proc = subprocess.Popen(
                list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, cwd=cwd, env=full_env, bufsize=0,
                start_new_session=True, close_fds=True,
            )
        except OSError as e:
            raise EngineStartError(f"cannot start {list(argv)!r}: {e.strerror or e}") from None
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self.pid = self.proc.pid
        self._stdin = self.proc.stdin.fileno()
        os.set_blocking(self._stdin, False)
        self._queue: queue.SimpleQueue[Incoming] = queue.SimpleQueue()
        self._sink = StderrSink(stderr_log)
        self._threads = [
            threading.Thread(target=read_stdout, name=f"engine-{self.pid}-stdout", daemon=True,
                             args=(self.proc.stdout.fileno(), clock, self._queue, max_line)),
            threading.Thread(target=drain, name=f"engine-{self.pid}-stderr", daemon=True,
                             args=(self.proc.stderr.fileno(), self._sink)),
        ]
        for t in self._threads:
            t.start()
        self._closed: ExitInfo | None = None

    def write_line(self, text: str) -> int:
        write_all(self._stdin, (text + "\n").encode())
        return self.clock()

    def read(self, deadline: int | None) -> Incoming | None:
        return get_incoming(self._queue, self.clock, deadline)

    def poll_exit(self) -> ExitInfo | None:
        return self._closed or exit_info_of(self.pid, "running")

    def wait_exit(self, timeout_ns: int) -> ExitInfo | None:
        return self._closed or wait_exit(self.pid, timeout_ns, "running")

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        if self._closed is not None:
            return self._closed

        def send_quit() -> None:
            if quit_line is not None:
                write_all(self._stdin, (quit_line + "\n").encode(), timeout_ns=grace_ns)

        info = terminate(self.pid, send_quit if quit_line else None, grace_ns, self._reap)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()
        for t in self._threads:
            t.join(timeout=1.0)
        self._sink.close()
        self._closed = info
        return info

    def _reap(self) -> None:
        self.proc.wait()

    def stderr_tail(self) -> str:
        return self._sink.tail()

    def stderr_bytes(self) -> int:
        return self._sink.total
