"""The pipe transport: stdin/stdout/stderr pipes, the engine in its own process group."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from . import contain
from .framing import MAX_LINE
from .io import IoGroup
from .process import ProcessTransport
from .transport import Clock, EngineStartError, drain

if TYPE_CHECKING:
    from ..sandbox.jail import Jail


def _jail_stdio(
    jail: Jail | None, argv: Sequence[str]
) -> tuple[Sequence[str], tuple[int, int, int, int] | None]:
    """A jail whose bubblewrap would hold the engine's pipes open as its own stdin
    and stdout gets them as two other descriptors instead, which bubblewrap
    closes and the jail moves onto the engine's (bidref.sandbox.bwrap.argv): its
    command line and the pipes' (stdin read, stdin write, stdout read, stdout
    write) ends; else ``argv`` and None (Popen's pipes)."""
    if jail is None:
        return argv, None
    in_r, in_w = os.pipe2(os.O_CLOEXEC)
    out_r, out_w = os.pipe2(os.O_CLOEXEC)
    moved = jail.stdio_argv(in_r, out_w)
    if moved is None:
        for fd in (in_r, in_w, out_r, out_w):
            os.close(fd)
        return argv, None
    return moved, (in_r, in_w, out_r, out_w)


class PipeTransport(ProcessTransport):
    """Start ``argv`` with pipes; see :mod:`bidref.engines.transport`."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        clock: Clock = time.monotonic_ns,
        stderr_log: Path | None = None,
        max_line: int = MAX_LINE,
        group: IoGroup | None = None,
        jail: Jail | None = None,
    ) -> None:
        self._prologue(clock, jail, stderr_log)
        # (a jail's ``env`` is the whole environment of its helpers: bidref.sandbox.environ)
        full_env = contain.engine_env(
            None if env is None else {**os.environ, **env} if jail is None else env
        )
        self._own: tuple[int, int] | None = None  # (read stdout, write stdin) ends
        argv, ends = _jail_stdio(jail, argv)
        try:
            self.proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE if ends is None else subprocess.DEVNULL,
                stdout=subprocess.PIPE if ends is None else subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=full_env,
                bufsize=0,
                start_new_session=True,
                close_fds=True,
                pass_fds=()
                if jail is None
                else (*jail.pass_fds, *(() if ends is None else (ends[0], ends[3]))),
                preexec_fn=self._child_setup(jail),
            )
        except OSError as e:
            for fd in () if ends is None else (ends[1], ends[2]):  # (0 and 3: below)
                os.close(fd)
            self._not_started(jail)
            raise EngineStartError(f"cannot start {list(argv)!r}: {e.strerror or e}") from None
        finally:
            if ends is not None:  # the engine's ends are its own now
                with contextlib.suppress(OSError):
                    os.close(ends[0])
                with contextlib.suppress(OSError):
                    os.close(ends[3])
        assert self.proc.stderr
        self.pid = self.proc.pid
        if ends is not None:
            self._own = (ends[2], ends[1])
            self._attach(ends[2], ends[1], max_line, group)
        else:
            assert self.proc.stdin and self.proc.stdout
            self._attach(self.proc.stdout.fileno(), self.proc.stdin.fileno(), max_line, group)
        self._threads = [
            threading.Thread(
                target=drain,
                name=f"engine-{self.pid}-stderr",
                daemon=True,
                args=(os.dup(self.proc.stderr.fileno()), self._sink),  # (the thread's own)
            ),
        ]
        for t in self._threads:
            t.start()

    def settle_stderr(self, timeout_ns: int) -> None:
        # the stderr thread ends at EOF: when every holder of the pipe closed it
        self._threads[0].join(timeout=max(timeout_ns, 0) / 1e9)

    def _reap(self) -> None:
        self.proc.wait()

    def _release(self) -> None:
        # (once: a close interrupted and run again must not close the numbers
        # twice, as they may be another engine's by then)
        own, self._own = self._own, None
        for fd in own or ():
            with contextlib.suppress(OSError):
                os.close(fd)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()
        for t in self._threads:
            t.join(timeout=1.0)
