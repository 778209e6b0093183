"""What the pipe and pty transports share: one engine process, its non-blocking
stdin and stdout (:mod:`.io`), its stderr log, and the teardown policy (see
:mod:`bidref.engines.transport`).

A subclass starts the process (and its stderr thread), then calls
:meth:`_attach` with the descriptors lines are written to and read from; it
says how to reap the process and what to release after it (:meth:`_reap`,
:meth:`_release`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from . import contain
from .cputime import Jail, ProcTreeCpu
from .io import IoGroup, Reader, Writer
from .lifecycle import escaped_descendants, exit_info_of, signal_group, terminate, wait_exit
from .priority import engine_nice
from .schedwait import (
    ListedTasks,
    Sample,
    TaskWait,
    TreeTasks,
    cores_of,
    priority_lowered,
    runnable_tasks,
)
from .transport import (
    EXIT_POLL_NS,
    Clock,
    Eof,
    ExitInfo,
    Incoming,
    StderrSink,
    write_all,
)

if TYPE_CHECKING:
    from ..sandbox.jail import Jail as SandboxJail

QUIT_WRITE_NS: Final = 50_000_000  # how long the quit line may wait for a full pipe


class ProcessTransport:
    clock: Clock
    pid: int
    _reader: Reader
    _writer: Writer
    _group: IoGroup
    _sink: StderrSink
    _closed: ExitInfo | None = None
    # close() once at a time: a second caller (another thread) waits for the
    # first and gets its result, never a second release of the same descriptors
    _close_lock: threading.RLock
    _noted: dict[int, int] | None = None  # escaped descendants noted before the end
    _cpu: ProcTreeCpu | None = None
    _wait: TaskWait | None = None  # run-queue wait of the engine's tasks (schedwait.py)
    _waits_in: str | None = None  # ... listed by this jail file, once there is one
    _nice = 0  # the nice value it was started with
    _frozen = False
    jail: Jail | None = None
    """The engine's jail (bidref.engines.cputime.Jail), once the sandbox has made it:
    its cpu_ns(), freeze() and thaw() then replace /proc and process-group signals."""

    def _prologue(self, clock: Clock, jail: SandboxJail | None, stderr_log: Path | None) -> None:
        """What the pipe and pty transports do before they start the engine."""
        self.clock = clock
        self.jail = jail
        self._close_lock = threading.RLock()
        # first: if the log cannot be made, start nothing; its chunks are stamped by our clock
        self._sink = StderrSink(stderr_log, clock=clock)

    @staticmethod
    def _child_setup(jail: SandboxJail | None) -> Callable[[], None]:
        """The engine's ``preexec_fn``: containment (bidref.engines.contain), then the jail's."""
        setup = contain.child_setup()
        return setup if jail is None else jail.preexec(setup)

    def _not_started(self, jail: SandboxJail | None) -> None:
        """The engine could not be started: release what :meth:`_prologue` made."""
        self._sink.close()
        if jail is not None:
            jail.close()

    def _attach(
        self,
        rfd: int,
        wfd: int,
        max_line: int,
        group: IoGroup | None,
        on_other: Callable[[bytes], None] | None = None,
    ) -> None:
        contain.started(self.pid)
        self._cpu = ProcTreeCpu(self.pid)
        self._wait = TaskWait(TreeTasks(self.pid))
        nice = engine_nice()  # (contain.child_setup gave it this one)
        self._nice = os.getpriority(os.PRIO_PROCESS, 0) if nice is None else nice
        self._reader = Reader(rfd, self.clock, max_line, on_other)
        self._writer = Writer(wfd)
        self._group = group if group is not None else IoGroup()
        self._group.add(self._reader, self._writer)

    def write_line(self, text: str) -> int:
        # Stamped before the write: the engine cannot read a byte of it earlier.
        t = self.clock()
        self._writer.write((text + "\n").encode())
        return t

    def read(self, deadline: int | None) -> Incoming | None:
        """The next line; None once a look that started at or after ``deadline``
        found nothing. Every call looks at the pipe first, so a line queued just
        as the deadline passes is returned, and a backlog being worked through
        never hides the deadline: lines read after a look past the deadline
        carry that look as their ``after``. When the engine has exited but its
        stdout is still open (a process it started holds it), what it wrote is
        returned, then :class:`Eof`."""
        r = self._reader
        clock = self.clock
        group = self._group
        next_exit_check = 0
        while True:
            if r.look() or r.items:
                return r.take()
            now = r.quiet if r.wants_read() else clock()
            if deadline is not None and now >= deadline:
                return None
            if now >= next_exit_check:
                if next_exit_check and exit_info_of(self.pid, "running") is not None:
                    if not r.look():
                        return Eof(clock())
                    continue
                next_exit_check = now + EXIT_POLL_NS
            until = next_exit_check if deadline is None else min(deadline, next_exit_check)
            group.wait(until - clock())

    def has_input(self) -> bool:
        """Whether a complete line (or EOF) is there that :meth:`read` has not
        returned yet; bytes in the pipe are read (and stamped) now. The start of
        a line is not input: it is stamped when its newline is read."""
        return bool(self._reader.items) or self._reader.look()

    def note_descendants(self) -> None:
        if self._closed is None:
            self._noted = {**(self._noted or {}), **escaped_descendants(self.pid)}

    def poll_exit(self) -> ExitInfo | None:
        return self._closed or self._seen(exit_info_of(self.pid, "running"))

    def _seen(self, info: ExitInfo | None) -> ExitInfo | None:
        """``info`` marked as the jail's (bubblewrap's exit code 128 + n for a
        signal) when the process is bubblewrap."""
        if info is None or self.jail is None or not self.jail.wrapped:
            return info
        return dataclasses.replace(info, jailed=True)

    def cpu_ns(self) -> int | None:
        # A jail with a CPU-accounting group counts everything it ever ran; one
        # without (no root) counts nothing, and /proc's process tree does.
        jail = self.jail
        if jail is not None:
            ns = jail.cpu_ns()
            if ns is not None:
                return ns
        cpu = self._cpu
        return None if cpu is None else cpu.read()

    def wait_sample(self) -> Sample | None:
        """The schedstat counters of the engine's tasks now (:mod:`.schedwait`):
        every thread of its jail's group where it has one, else of its process tree."""
        wait = self._wait
        if wait is None or self._closed is not None:
            return None
        listed = None if self.jail is None else self.jail.tasks_path
        if listed is not None and listed != self._waits_in:
            self._waits_in = listed
            wait.close()
            wait = self._wait = TaskWait(ListedTasks(listed))
        return wait.sample()

    def priority_lowered(self) -> bool:
        """Whether a task of the engine now runs below the priority it was started
        with (a higher nice value, the batch or idle policy): its wait is its own."""
        wait = self._wait
        return wait is not None and priority_lowered(wait.lister(), self._nice)

    def runnable_tasks(self) -> set[int]:
        """Which of the engine's tasks are runnable now (:func:`.schedwait.unseen_ns`)."""
        wait = self._wait
        return set() if wait is None else runnable_tasks(wait.lister())

    def cores(self) -> int | None:
        """How many CPUs the engine may run on (its affinity, a jail's cpuset included)."""
        return cores_of(self.pid) if self._closed is None else None

    def freeze(self) -> None:
        """Stop the engine's process group (SIGSTOP; the jail's freezer where there is
        one). Writes to it never block (they queue), and SIGKILL, the end's last
        word and the watchdog's, ends a stopped process as any other."""
        if self._closed is not None or self._frozen:
            return
        self._frozen = True
        if self.jail is not None and self.jail.freezes:
            self.jail.freeze()
        else:
            self._signal_all(signal.SIGSTOP)

    def thaw(self) -> None:
        if not self._frozen:
            return
        self._frozen = False
        if self.jail is not None and self.jail.freezes:
            self.jail.thaw()
        else:
            self._signal_all(signal.SIGCONT)

    def _signal_all(self, sig: signal.Signals) -> None:
        """``sig`` to the engine's process group, and to every descendant outside it:
        a child that called setsid (and, in a jail without a freezer, the engine
        itself: bubblewrap starts it in a session of its own) is in another group,
        which the group signal does not reach."""
        signal_group(self.pid, sig)
        for pid in escaped_descendants(self.pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    def wait_exit(self, timeout_ns: int) -> ExitInfo | None:
        return self._closed or self._seen(wait_exit(self.pid, timeout_ns, "running"))

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        """Quit line, grace, SIGTERM and SIGKILL to the group, reap; idempotent
        (and one caller at a time)."""
        with self._close_lock:
            if self._closed is not None:
                return self._closed
            return self._close(quit_line, grace_ns)

    def _close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        self.thaw()  # a stopped engine would neither read its quit line nor exit
        self._group.remove(self._reader, self._writer)
        drainer = self._reader.discard_until_eof()  # it may write on its way out
        writer = self._writer

        def send_quit() -> None:
            # At the end (only) a write may wait, briefly: an engine that has not
            # read what it was sent will not read its quit line either.
            data = bytes(writer.out) + (quit_line + "\n").encode() if quit_line else b""
            writer.out.clear()
            if data and writer.broken is None:
                write_all(writer.fd, data, timeout_ns=min(grace_ns, QUIT_WRITE_NS))

        info = terminate(
            self.pid,
            send_quit if quit_line or writer.out else None,
            grace_ns,
            self._reap,
            self._noted,
        )
        contain.ended(self.pid)
        if self.jail is not None:  # after the reap: what is left in its group dies with it
            self.jail.close()
        self._reader.closed = True
        drainer.join(timeout=1.0)  # before the descriptor can be closed and reused
        # Nothing is written to the engine's stdin from here: its number may be
        # another pipe's once released (a late line would reach another engine).
        writer.broken = "the engine was closed"
        writer.out.clear()
        self._release()
        self._sink.close()
        if self._cpu is not None:
            self._cpu.close()
        if self._wait is not None:
            self._wait.close()
        self._closed = self._seen(info) or info
        return self._closed

    def _reap(self) -> None:
        raise NotImplementedError

    def _release(self) -> None:
        """Close descriptors and join threads once the process is gone."""
        raise NotImplementedError

    def stderr_tail(self) -> str:
        return self._sink.tail()

    def settle_stderr(self, timeout_ns: int) -> None:
        """Once the engine has exited: wait up to ``timeout_ns`` until all it wrote
        to stderr has been read (its end of the pipe is closed), so that a crash
        report's tail ends where the engine's output did. The pty transport reads
        stderr with stdout, so there is nothing to wait for."""

    def stderr_bytes(self) -> int:
        return self._sink.total
