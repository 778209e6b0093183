"""The pty transport: the engine runs under a pseudo-terminal (via pexpect).

For engines whose language buffers stdout when it is a pipe (C stdio, many
runtimes): on a terminal they flush every line. The terminal is put in raw
mode (no echo, no line-length limit, no ``\\r\\n`` translation). A terminal
has one output stream, so the engine's stderr arrives mixed with its stdout:
lines that do not start with ``{`` are treated as stderr and go to the log.
pexpect starts the child in a new session, so it leads its own process group.
"""

from __future__ import annotations

import contextlib
import os
import time
import tty
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pexpect

from . import contain
from .framing import MAX_LINE
from .io import IoGroup
from .process import ProcessTransport
from .transport import Clock, EngineStartError

if TYPE_CHECKING:
    from ..sandbox.jail import Jail


class PtyTransport(ProcessTransport):
    """Start ``argv`` under a pty; see :mod:`bidref.engines.transport`."""

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
        full_env = contain.engine_env({**os.environ, **(env or {})} if jail is None else env)
        argv = list(argv)
        try:
            self.child = _Spawn(
                () if jail is None else jail.keep_fds,
                argv[0],
                argv[1:],
                cwd=cwd,
                env=full_env,
                echo=False,
                use_poll=True,
                preexec_fn=self._child_setup(jail),
            )
        except (pexpect.ExceptionPexpect, OSError) as e:
            self._not_started(jail)
            raise EngineStartError(f"cannot start {argv!r}: {e}") from None
        self.pid = int(self.child.pid)
        self._fd = int(self.child.child_fd)
        tty.setraw(self._fd)
        self._wfd = os.dup(self._fd)
        self._fds_open: tuple[int, ...] = (self._wfd, self._fd)
        self._attach(self._fd, self._wfd, max_line, group, self._sink.write)

    def _reap(self) -> None:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        # Tell pexpect the child is gone so it does not signal a reused pid later.
        self.child.terminated = True
        self.child.closed = True

    def _release(self) -> None:
        # Once: a close interrupted and run again must not close the numbers twice,
        # as they may be another engine's by then. The pty's own descriptor is
        # closed through the file object ptyprocess keeps of it: closed by number
        # here, that object closed the number again whenever it was collected,
        # by then another engine's pipe (which saw its stdin end: "exit code 0").
        fds, self._fds_open = self._fds_open, ()
        if not fds:
            return
        with contextlib.suppress(OSError):
            os.close(self._wfd)  # (our own duplicate)
        proc = self.child.ptyproc
        with contextlib.suppress(OSError, ValueError):
            proc.fileobj.close()
        proc.closed = True  # (its __del__ closes nothing more)


class _Spawn(pexpect.spawn):  # type: ignore[misc]
    """pexpect's spawn, keeping ``keep`` open in the child: ptyprocess closes
    every other descriptor before it calls ``preexec_fn`` (the jail's needs its
    network namespace's)."""

    def __init__(self, keep: Sequence[int], *args: Any, **kwargs: Any) -> None:
        self._keep = tuple(keep)
        super().__init__(*args, **kwargs)

    def _spawnpty(self, args: list[str], **kwargs: Any) -> Any:
        return super()._spawnpty(args, pass_fds=self._keep, **kwargs)
