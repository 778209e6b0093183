"""One engine's jail: its spec (:mod:`.spec`), the parts the spec names (a
leased account, a control group, a network namespace, the filter's descriptor,
a private copy of its folder), what its process does before exec, and its
removal.

:func:`open_jail` makes it when the engine starts (:func:`bidref.engines.start_engine`);
the transport keeps it as ``transport.jail`` (None without one) and closes it
after the engine is reaped. The referee may call :meth:`Jail.freeze`,
:meth:`Jail.thaw` and :meth:`Jail.cpu_ns` when :attr:`Jail.has_group`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import resource
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from . import accounts, bwrap, cgroups, copies, environ, netns, seccomp
from .breach import Breach, judge
from .policy import JailSetupError, Machine, Plan, SandboxConfig, SandboxError, machine
from .spares import Spares
from .spec import COPY_LIMIT, JailSpec, OsFs, absolute, build

log = logging.getLogger(__name__)


@functools.cache
def _python_paths() -> tuple[str, ...]:
    """What a Python engine needs read-only: this interpreter (venv and base, the
    interpreter first) and every bidref package it may import: ours, and the one
    the interpreter imports by itself (with the compiled build, ``build/compiled``,
    ours is not the checkout's that an editable install points engines to)."""
    import bidref

    pkg = Path(bidref.__file__).resolve().parent
    paths = {sys.prefix, sys.base_prefix, str(pkg)}
    # The compiled build (build/compiled, docs/perf.md) keeps mypyc's shared runtime
    # beside the package: bound alone, not the folder, which may be the checkout.
    paths |= {str(f) for f in pkg.parent.glob("*__mypyc*")}
    paths |= _imported_by_interpreter()
    paths.add(os.path.dirname(os.path.realpath(sys.executable)))
    first = os.path.dirname(os.path.abspath(sys.executable))  # (a venv's bin, on PATH)
    paths.discard(first)
    return (first, *sorted(paths))


def _imported_by_interpreter() -> set[str]:
    """The bidref package this interpreter imports with no PYTHONPATH (once)."""
    code = "import importlib.util as u; s = u.find_spec('bidref'); print(s.origin if s else '')"
    try:
        r = subprocess.run(
            [sys.executable, "-I", "-c", code],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
            env=environ.HELPER_ENV,
        )
    except (OSError, subprocess.TimeoutExpired):
        return set()
    origin = r.stdout.strip()
    return {str(Path(origin).resolve().parent)} if origin.endswith("__init__.py") else set()


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

    def __init__(
        self,
        argv: Sequence[str],
        cwd: str | None,
        config: SandboxConfig,
        env: Mapping[str, str] | None = None,
    ) -> None:
        m = machine()
        self.config = config
        self.group: cgroups.Group | None = None
        self._group_key: tuple[str, frozenset[str], str] = ("", frozenset(), "")
        self.cores: tuple[int, ...] = ()
        self.uid: int | None = None
        self.netns: int | None = None  # our own network namespace (root), else bubblewrap's
        self._lease: accounts.Lease | None = None
        self._copy: str | None = None
        self._seccomp_fd: int | None = None
        self._bwrap: str | None = None
        code = seccomp.program(seccomp.DEFAULT)
        self.spec: JailSpec = _spec_here(argv, cwd, config, env, m, code is not None)
        self.plan = Plan(self.spec.level, self.spec.active, self.spec.missing)
        try:
            self._set_up(m, code)
        except OSError as e:  # (the kernel or the machine refused us: not the engine's doing)
            self.close()
            raise JailSetupError(f"the referee could not make the engine's jail: {e}") from None
        except BaseException:  # nothing made for it is left behind
            self.close()
            raise

    def _set_up(self, m: Machine, code: bytes | None) -> None:
        spec = self.spec
        if spec.account:
            self._lease = accounts.lease()
            self.uid = self._lease.uid
        if spec.folder_mode == "private copy" and spec.folder and self.uid is not None:
            self._copy = copies.make(spec.folder, self.uid, COPY_LIMIT)
        if spec.cgroup is not None and m.cgroup is not None:
            wanted = set(m.controllers)
            if not spec.cgroup.cores:
                wanted.discard("cpuset")
            _sweep_once(m.cgroup, m.controllers)
            label = "AB"[self.config.seat % 2]
            self._group_key = (m.cgroup, frozenset(wanted), label)
            self.group = _GROUPS.take(self._group_key, self._make_group)
            have = self.group.dirs  # (v2: those the kernel would enable)
            if spec.cgroup.cores and "cpuset" not in have:
                raise SandboxError(
                    "cannot give the engine cores of its own: the cpuset controller could "
                    "not be enabled for its group; leave --cpus out"
                )
            try:
                if spec.cgroup.memory is not None and "memory" in have:
                    self.group.limit_memory(spec.cgroup.memory)
                if spec.cgroup.pids is not None and "pids" in have:
                    self.group.limit_pids(spec.cgroup.pids)
                if spec.cgroup.cores:
                    self.cores = spec.cgroup.cores
                    self.group.pin(self.cores)
            except OSError as e:
                raise SandboxError(f"cannot set the engine's cgroup limits: {e}") from None
        if spec.seccomp is not None and code is not None:
            self._seccomp_fd = seccomp.memfd(code)
        # the helpers' own fixed environment, with the containment mark
        helper_env = {
            **environ.HELPER_ENV,
            **{k: v for k, v in spec.env.items() if k == "BIDREF_CONTAIN"},
        }
        if spec.namespaces and m.bwrap is not None:
            if spec.own_netns:  # no loopback either (bidref.sandbox.netns)
                try:
                    self.netns = _NETNS.take("net", netns.make)
                except OSError as e:
                    log.debug("%s: bubblewrap makes it (with a loopback)", e)
                    self.spec = dataclasses.replace(spec, own_netns=False)
            self._bwrap = m.bwrap
            self.argv = bwrap.argv(
                self.spec,
                m.bwrap,
                uid=self.uid,
                seccomp_fd=self._seccomp_fd,
                folder_source=self._copy,
            )
            self.cwd: str | None = None
            self.env: dict[str, str] = helper_env
        elif self.uid is not None and "setpriv" in spec.helpers:
            # no namespaces (no bubblewrap): the account alone, the variables by env
            self.argv = [*bwrap.switch_account(spec.helpers["setpriv"], self.uid)]
            self.argv += bwrap.hand_over(spec)
            self.cwd = spec.chdir
            self.env = helper_env
        else:
            self.argv = list(spec.argv)
            self.cwd = spec.chdir
            self.env = dict(spec.env)

    def stdio_argv(self, stdin_fd: int, stdout_fd: int) -> list[str] | None:
        """The command line that takes the engine's stdin and stdout from these
        two descriptors (passed on, not as bubblewrap's own 0 and 1), or None
        where the jail cannot (no bubblewrap, no bash): see bwrap.argv."""
        if not self.spec.wrapped or "bash" not in self.spec.helpers or self._bwrap is None:
            return None
        return bwrap.argv(
            self.spec,
            self._bwrap,
            uid=self.uid,
            seccomp_fd=self._seccomp_fd,
            folder_source=self._copy,
            stdio=(stdin_fd, stdout_fd),
        )

    @property
    def wrapped(self) -> bool:
        """Its process is bubblewrap's (breach(): exit codes 128 + n for signals)."""
        return self.spec.wrapped

    @property
    def has_group(self) -> bool:
        return self.group is not None

    @property
    def pass_fds(self) -> tuple[int, ...]:
        """Descriptors the engine's process must inherit across exec (bubblewrap
        reads the filter from it)."""
        return () if self._seccomp_fd is None else (self._seccomp_fd,)

    @property
    def keep_fds(self) -> tuple[int, ...]:
        """Descriptors :meth:`preexec` uses, which a spawner that closes the
        others before calling it must keep (they close themselves at exec, but
        for :attr:`pass_fds`)."""
        return (*(() if self.netns is None else (self.netns,)), *self.pass_fds)

    def record(self) -> dict[str, object]:
        """What this jail gave (transcript header, results): level, protections,
        what was missing, account, folder, filter, each limit and its mechanism."""
        return self.spec.record(self.uid)

    def preexec(self, inner: Callable[[], None]) -> Callable[[], None]:
        """The child's set-up before exec: ``inner`` (containment), a new session
        keyring, then join the group and lower the limits (for good: soft and
        hard alike)."""
        procs = self.group.join_fn() if self.group is not None else ()
        enter_netns = netns.entering(self.netns) if self.netns is not None else None
        rlimits = [v for v in self.spec.limits.rlimits().values()]
        rlimits.append((resource.RLIMIT_CORE, 0))
        passed = self.pass_fds
        new_keyring = accounts.new_session_keyring

        def setup() -> None:
            if enter_netns is not None:
                enter_netns()
            inner()
            new_keyring()
            for fd in passed:  # (ptyprocess does not clear close-on-exec)
                os.set_inheritable(fd, True)
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

    def rlimits(self) -> dict[str, int]:
        """The limits :meth:`preexec` sets as rlimits (what the kernel enforces by
        a failed call or a signal, counting nothing), by their names
        (bidref/sandbox/breach.py). (RLIMIT_NPROC is left out: a refused fork
        fails with EAGAIN, "Resource temporarily unavailable", the words of any
        would-block call too.)"""
        return {
            name: value
            for name, (which, value) in self.spec.limits.rlimits().items()
            if which != resource.RLIMIT_NPROC
        }

    def breach(self, exit_code: int | None, signal_name: str | None, stderr: str) -> Breach | None:
        """The limit the engine, which ended as ``exit_code``/``signal_name`` with
        ``stderr`` its last words, ran into, or None (see bidref/sandbox/breach.py)."""
        return judge(
            counted=None if self.group is None else self.group.breach(),
            signal_name=signal_name,
            exit_code=exit_code,
            wrapped=self.wrapped,
            stderr=stderr,
            set_by_rlimit=self.rlimits(),
            values=dict(self.spec.limits.value),
        )

    def _make_group(self) -> cgroups.Group:
        return cgroups.Group(*self._group_key)

    def close(self) -> None:
        """End what is left in the jail and remove it; then make the next jail's
        parts (spares.py), off the path of the next start."""
        if self._seccomp_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._seccomp_fd)
            self._seccomp_fd = None
        if self.netns is not None:
            netns.close(self.netns)
            self.netns = None
            _NETNS.restock("net", netns.make)
        if self.group is not None:
            with contextlib.suppress(OSError):
                self.group.remove()
            self.group = None
            _GROUPS.restock(self._group_key, self._make_group)
        if self._copy is not None:
            copies.remove(self._copy)
            self._copy = None
        if self._lease is not None:  # last: nothing of the jail's account runs now
            self._lease.close()
            self._lease = None


def _spec_here(
    argv: Sequence[str],
    cwd: str | None,
    config: SandboxConfig,
    env: Mapping[str, str] | None,
    m: Machine,
    filter_known: bool,
) -> JailSpec:
    """The spec of this engine's jail on this machine, in this process."""
    from ..engines.contain import ENV_KEY, token

    return build(
        config,
        absolute(argv, cwd),
        cwd,
        m,
        OsFs(),
        python=_python_paths(),
        mark=(ENV_KEY, token()),
        outer_env=os.environ,
        own_env=env or {},
        arch_filter=filter_known,
    )


def preview(
    argv: Sequence[str],
    cwd: str | None,
    config: SandboxConfig | None,
    env: Mapping[str, str] | None = None,
) -> dict[str, object] | None:
    """What the jail of an engine not started yet will be (the transcript
    header's per-seat record: its account is known once it starts), or None."""
    if config is None or config.level == "off":
        return None
    known = seccomp.program(seccomp.DEFAULT) is not None
    try:
        spec = _spec_here(argv, cwd, config, env, machine(), known)
    except SandboxError as e:
        return {"level": config.level, "refused": str(e)}
    return spec.record(None)


def open_jail(
    argv: Sequence[str],
    cwd: str | None,
    config: SandboxConfig | None,
    env: Mapping[str, str] | None = None,
) -> Jail | None:
    """The jail of an engine about to start, or None (``off``, or no config)."""
    if config is None or config.level == "off":
        return None
    return Jail(argv, cwd, config, env)
