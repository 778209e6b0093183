"""One engine's jail: its command line, what its process does before exec, and
its control group (limits, cpuset, freezer, CPU time), removed with it.

:func:`open_jail` makes it when the engine starts (:func:`bidref.engines.start_engine`);
the transport keeps it as ``transport.jail`` (None without one) and closes it
after the engine is reaped. The referee may call :meth:`Jail.freeze`,
:meth:`Jail.thaw` and :meth:`Jail.cpu_ns` when :attr:`Jail.has_group`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import resource
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import accounts, bwrap, cgroups, netns
from .breach import Breach, judge
from .policy import Machine, Plan, SandboxConfig, SandboxError, machine, plan, seat_cores
from .spares import Spares

log = logging.getLogger(__name__)


@functools.cache
def _python_paths() -> tuple[str, ...]:
    """What a Python engine needs read-only: this interpreter (venv and base) and
    the bidref package (for ``bidref.sdk``)."""
    import bidref

    pkg = Path(bidref.__file__).resolve().parent
    paths = {sys.prefix, sys.base_prefix, str(pkg)}
    # The compiled build (build/compiled, docs/perf.md) keeps mypyc's shared runtime
    # beside the package: bound alone, not the folder, which may be the checkout.
    paths |= {str(f) for f in pkg.parent.glob("*__mypyc*")}
    paths.add(os.path.dirname(os.path.realpath(sys.executable)))
    return tuple(sorted(paths))


_swept: set[int] = set()

# A jail's group and network namespace are made ahead, one of each (spares.py).
_GROUPS: Spares[cgroups.Group] = Spares(lambda g: g.remove())
_NETNS: Spares[int] = Spares(netns.close)


def _sweep_once(version: str, controllers: frozenset[str]) -> None:
    """Once per process: remove what killed referees left (cgroups.sweep_stale)."""
    if os.getpid() not in _swept:
        _swept.add(os.getpid())
        cgroups.sweep_stale(version, controllers)


class Jail:
    """See the module docstring."""

    def __init__(self, argv: Sequence[str], cwd: str | None, config: SandboxConfig) -> None:
        m = machine()
        self.plan: Plan = plan(config, m)
        self.config = config
        self.group: cgroups.Group | None = None
        self._group_key: tuple[str, frozenset[str], str] = ("", frozenset(), "")
        self.cores: tuple[int, ...] = ()
        self.uid: int | None = None
        self.netns: int | None = None  # our own network namespace (root), else bubblewrap's
        self.memory_by_rlimit = True
        self.wrapped = False
        try:
            self._set_up(m, bwrap.absolute(argv, cwd), cwd)
        except BaseException:  # nothing made for it is left behind
            self.close()
            raise

    def _set_up(self, m: Machine, argv: list[str], cwd: str | None) -> None:
        config, lim = self.config, self.config.limits
        folder = bwrap.engine_folder(argv, cwd)
        active = self.plan.active
        if "account" in active:
            self.uid = self._account(folder, config)
        if m.cgroup is not None and ("cgroups" in active or "cpuset" in active):
            wanted = set(m.controllers)
            if "cpuset" not in active:
                wanted.discard("cpuset")
            _sweep_once(m.cgroup, m.controllers)
            version, parts, label = m.cgroup, frozenset(wanted), "AB"[config.seat % 2]
            self._group_key = (version, parts, label)
            self.group = _GROUPS.take(self._group_key, self._make_group)
            have = self.group.dirs  # (v2: those the kernel would enable)
            if "cpuset" in active and "cpuset" not in have:
                raise SandboxError(
                    "cannot give the engine cores of its own: the cpuset controller could "
                    "not be enabled for its group; leave --cpus out"
                )
            try:
                if "memory" in have:
                    self.group.limit_memory(lim.memory)
                if "pids" in have:
                    self.group.limit_pids(lim.max_procs)
                if "cpuset" in active:
                    self.cores = seat_cores(config.cpus() or 1, config.seat, m.cores)
                    self.group.pin(self.cores)
            except OSError as e:
                raise SandboxError(f"cannot set the engine's cgroup limits: {e}") from None
        # No memory cgroup: memory is limited by RLIMIT_DATA (kept: the group's
        # folders are gone once it is removed)
        self.memory_by_rlimit = self.group is None or "memory" not in self.group.dirs
        self.cwd = folder or cwd
        if "namespaces" in active and m.bwrap is not None:
            private = None
            if folder is None:  # a command with no folder of its own: an empty one
                private = "/tmp"
            switch = (
                bwrap.switch_account(m.setpriv, self.uid)
                if self.uid is not None and m.setpriv
                else []
            )
            extra = [*_python_paths(), *(w for w in argv if os.path.isabs(w))]
            if m.root:  # no loopback either (bidref.sandbox.netns)
                try:
                    self.netns = _NETNS.take("net", netns.make)
                except OSError as e:
                    log.debug("%s: bubblewrap makes it (with a loopback)", e)
            self.argv = bwrap.command(
                m.bwrap,
                argv,
                folder=folder or "/tmp",
                writable=config.dir_writable and private is None,
                extra_ro=extra,
                hide=config.hide,
                tmp_size=lim.tmp_size,
                switch=switch,
                unshare_net=self.netns is None,
            )
            self.cwd = None
            self.wrapped = True  # its process is bubblewrap's (breach(): exit codes)
        else:
            self.argv = list(argv)
            self.wrapped = False

    @staticmethod
    def _account(folder: str | None, config: SandboxConfig) -> int | None:
        """The seat's own uid, when the engine's folder lets it in; under ``auto``
        an engine in a folder closed to it runs without (``strict`` refuses)."""
        uid = accounts.uid_of(config.seat)
        if folder is None or accounts.can(uid, Path(folder), config.dir_writable):
            return uid
        what = "write" if config.dir_writable else "read"
        if config.level != "strict":
            log.warning(
                "engine folder %r is not %sable by uid %d: the engine runs without its "
                "own account (chmod the folder to give it one)",
                folder,
                what,
                uid,
            )
            return None
        raise SandboxError(
            f"the engine's folder {folder!r} is not {what}able by its seat's own "
            f"account (uid {uid}): `chmod o+rx{'w' if config.dir_writable else ''} "
            f"{folder}` or `chown -R {uid} {folder}`, or use --sandbox auto or off"
        )

    @property
    def has_group(self) -> bool:
        return self.group is not None

    @property
    def keep_fds(self) -> tuple[int, ...]:
        """Descriptors :meth:`preexec` uses, which a spawner that closes the
        others before calling it must keep (they close themselves at exec)."""
        return () if self.netns is None else (self.netns,)

    def preexec(self, inner: Callable[[], None]) -> Callable[[], None]:
        """The child's set-up before exec: ``inner`` (containment), then join the
        group and lower the limits (for good: soft and hard alike)."""
        procs = self.group.join_fn() if self.group is not None else ()
        enter_netns = netns.entering(self.netns) if self.netns is not None else None
        lim = self.config.limits
        memory = self.memory_by_rlimit
        nproc = self.uid is not None and (self.group is None or "pids" not in self.group.dirs)
        rlimits = [
            (resource.RLIMIT_NOFILE, lim.max_files),
            (resource.RLIMIT_FSIZE, lim.max_file_size),
            (resource.RLIMIT_CORE, 0),
        ]
        if memory:
            rlimits.append((resource.RLIMIT_DATA, lim.memory))
        if nproc:
            rlimits.append((resource.RLIMIT_NPROC, lim.max_procs))

        def setup() -> None:
            if enter_netns is not None:
                enter_netns()
            inner()
            for path in procs:
                fd = os.open(path, os.O_WRONLY)
                os.write(fd, b"0")
                os.close(fd)
            for which, value in rlimits:
                resource.setrlimit(which, (value, value))

        return setup

    @property
    def freezes(self) -> bool:
        """Whether :meth:`freeze` stops the engine (a freezer group); without one the
        transport signals the engine's processes instead."""
        return self.group is not None and "freezer" in self.group.dirs

    def freeze(self) -> None:
        if self.group is not None and "freezer" in self.group.dirs:
            self.group.freeze()

    def thaw(self) -> None:
        if self.group is not None and "freezer" in self.group.dirs:
            self.group.thaw()

    def cpu_ns(self) -> int | None:
        """User + system CPU time of everything the jail ran, or None without a group."""
        if self.group is None or "cpuacct" not in self.group.dirs:
            return None
        return self.group.cpu_ns()

    @property
    def tasks_path(self) -> str | None:
        """The file listing every thread the jail's group holds (v1 ``tasks``, v2
        ``cgroup.threads``), read for the run-queue wait (bidref/engines/
        schedwait.py); None without a group. Read-only: nothing is written there."""
        if self.group is None or not self.group.dirs:
            return None
        folder = min(self.group.dirs.values(), key=str)
        return str(folder / ("cgroup.threads" if self.group.version == "v2" else "tasks"))

    def rlimits(self) -> dict[str, int]:
        """The limits :meth:`preexec` sets as rlimits (what the kernel enforces by
        a failed call or a signal, counting nothing), by their names
        (bidref/sandbox/breach.py)."""
        lim = self.config.limits
        out = {"open files": lim.max_files, "file size": lim.max_file_size}
        if self.memory_by_rlimit:
            out["memory"] = lim.memory
        # (RLIMIT_NPROC is left out: a refused fork fails with EAGAIN, "Resource
        # temporarily unavailable", the words of any would-block call too)
        return out

    def breach(self, exit_code: int | None, signal_name: str | None, stderr: str) -> Breach | None:
        """The limit the engine, which ended as ``exit_code``/``signal_name`` with
        ``stderr`` its last words, ran into, or None (see bidref/sandbox/breach.py)."""
        lim = self.config.limits
        return judge(
            counted=None if self.group is None else self.group.breach(),
            signal_name=signal_name,
            exit_code=exit_code,
            wrapped=self.wrapped,
            stderr=stderr,
            set_by_rlimit=self.rlimits(),
            values={"memory": lim.memory, "processes": lim.max_procs},
        )

    def _make_group(self) -> cgroups.Group:
        return cgroups.Group(*self._group_key)

    def close(self) -> None:
        """End what is left in the jail and remove it; then make the next jail's
        parts (spares.py), off the path of the next start."""
        if self.netns is not None:
            netns.close(self.netns)
            self.netns = None
            _NETNS.restock("net", netns.make)
        if self.group is not None:
            with contextlib.suppress(OSError):
                self.group.remove()
            self.group = None
            _GROUPS.restock(self._group_key, self._make_group)


def open_jail(argv: Sequence[str], cwd: str | None, config: SandboxConfig | None) -> Jail | None:
    """The jail of an engine about to start, or None (``off``, or no config)."""
    if config is None or config.level == "off":
        return None
    return Jail(argv, cwd, config)
