"""What a jail is asked for (level and limits) and what this machine allows.

Levels (``--sandbox``): ``off`` starts engines as before (containment only:
docs/match.md "Containment"); ``auto`` (the default) uses every protection
this machine allows and says which; ``strict`` refuses to start unless every
protection is active (namespaces, the seat's own account, cgroup limits and
cpusets: the referee must be root on Linux with bubblewrap installed).

Pure data and parsing here; the machine is probed once per process
(:func:`machine`).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from ..errors import UsageError

Level = Literal["auto", "off", "strict"]
LEVELS: Final[tuple[Level, ...]] = ("off", "auto", "strict")

KIB: Final = 1024
MIB: Final = 1024 * KIB
GIB: Final = 1024 * MIB


class SandboxError(UsageError, ValueError):  # ValueError: as before, for one release
    """A sandbox setting that cannot be used, or a jail this machine cannot give;
    the message says why and the fix."""


class JailSetupError(SandboxError):
    """The referee could not make a jail it should be able to make (its group, an
    account, a namespace, a copy): the referee's fault, never the engine's, so
    the match is aborted, not lost."""


@dataclass(frozen=True)
class Limits:
    """Per-engine resource limits (documented defaults: docs/match.md)."""

    memory: int = 1 * GIB  # bytes: cgroup memory, else RLIMIT_DATA
    max_procs: int = 64  # processes and threads: pids cgroup, else RLIMIT_NPROC (own account)
    max_files: int = 256  # open files (RLIMIT_NOFILE, soft and hard: it cannot raise it)
    max_file_size: int = 64 * MIB  # RLIMIT_FSIZE; also the size of the private /tmp
    tmp_size: int = 64 * MIB  # the private /tmp (a tmpfs)
    cpus: int | None = None  # cores per seat (a cpuset); None: no cpuset


@dataclass(frozen=True)
class SandboxConfig:
    """How to jail the engines of a command. Picklable (tournament workers)."""

    level: Level = "auto"
    limits: Limits = field(default_factory=Limits)
    dir_writable: bool = False
    # Folders and files engines must never see (transcripts, results, logs).
    hide: tuple[str, ...] = ()
    seat: int = 0  # which seat (own account and cpuset); set per seat by the command

    def cpus(self) -> int | None:
        """Cores per seat: ``--cpus``, or 1 under ``strict`` (which needs a cpuset)."""
        if self.limits.cpus is None and self.level == "strict":
            return 1
        return self.limits.cpus

    def for_seat(self, seat: int) -> SandboxConfig:
        return replace(self, seat=seat)

    def stricter(self, level: Level | None) -> SandboxConfig:
        """This config at ``level`` if that is stricter (an engine's own ``sandbox=``)."""
        if level is None or LEVELS.index(level) <= LEVELS.index(self.level):
            return self
        return replace(self, level=level)


def parse_level(text: str, flag: str = "--sandbox") -> Level:
    for level in LEVELS:
        if text == level:
            return level
    raise SandboxError(
        f"{flag} {text!r}: use auto (the strongest jail this machine allows), strict "
        "(refuse to start without every protection) or off"
    )


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)(?:i?[bB])?\s*$")


def parse_size(text: str, flag: str) -> int:
    """``1G``, ``512M``, ``64k`` or bytes: binary units.

    >>> parse_size("1G", "--memory"), parse_size("512M", "--memory")
    (1073741824, 536870912)
    """
    m = _SIZE.match(text)
    if m is None:
        raise SandboxError(f"{flag} {text!r}: give a size such as 512M or 1G (binary units)")
    unit = {"": 1, "k": KIB, "m": MIB, "g": GIB}[m.group(2).lower()]
    value = int(float(m.group(1)) * unit)
    if value < 1 * MIB or value > 1024 * GIB:
        raise SandboxError(f"{flag} {text!r}: give a size from 1M to 1024G, e.g. 512M")
    return value


def parse_count(text: str | int, flag: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise SandboxError(f"{flag} {text!r}: give a whole number, e.g. {low * 4}") from None
    if not low <= value <= high:
        raise SandboxError(f"{flag} {text}: give a number from {low} to {high}")
    return value


@dataclass(frozen=True)
class Machine:
    """What this machine allows (probed once)."""

    linux: bool
    root: bool
    bwrap: str | None  # the bubblewrap program, when it runs here
    setpriv: str | None  # for the own account (root only)
    cgroup: str | None  # "v1", "v2" or None: no writable cgroup for our controllers
    controllers: frozenset[str]  # writable: memory, pids, cpuset, freezer, cpuacct/cpu
    cores: tuple[int, ...]  # the cores this process may run on
    env: str | None = "/usr/bin/env"  # env(1), which hands the engine its variables inside the jail
    bash: str | None = "/bin/bash"  # moves the engine's pipes onto its stdin and stdout (bwrap.py)


def _bwrap_works(path: str) -> bool:
    try:
        r = subprocess.run(
            [path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


@functools.cache
def machine() -> Machine:
    from . import cgroups

    linux = os.uname().sysname == "Linux"
    bwrap = shutil.which("bwrap") if linux else None
    if bwrap is not None and not _bwrap_works(bwrap):
        bwrap = None
    root = linux and os.geteuid() == 0
    setpriv = _helper("setpriv") if root else None
    version, controllers = cgroups.probe() if linux else (None, frozenset[str]())
    cores = tuple(sorted(os.sched_getaffinity(0))) if linux else ()
    return Machine(
        linux, root, bwrap, setpriv, version, controllers, cores, _helper("env"), _helper("bash")
    )


def _helper(name: str) -> str | None:
    """A helper program by its real path (a link on PATH may lead anywhere: the
    jail binds the real file), looked up in the system's folders only."""
    from .environ import SYSTEM_PATH

    found = shutil.which(name, path=SYSTEM_PATH) or shutil.which(name)
    return None if found is None else os.path.realpath(found)


# Every protection and what it needs, in the order the start line names them.
PROTECTIONS: Final = ("namespaces", "account", "cgroups", "cpuset", "seccomp")
NEEDS: Final = {
    "namespaces": "bubblewrap (`make sandbox-tools`) and user namespaces or root",
    "account": "the referee running as root, and setpriv (util-linux)",
    "cgroups": "writable memory and pids cgroup controllers (root)",
    "cpuset": "a writable cpuset cgroup controller (root); under auto, --cpus N",
    "seccomp": "bubblewrap and an x86_64 or aarch64 machine (the filter's system-call numbers)",
}


@dataclass(frozen=True)
class Plan:
    """The protections a jail will have on this machine, and those it lacks."""

    level: Level
    active: tuple[str, ...]
    missing: tuple[str, ...]
    not_enforced: tuple[str, ...] = ()  # limits asked for that no mechanism here enforces

    def describe(self, config: SandboxConfig, cpusets: tuple[str, ...] = ()) -> str:
        """One line for stderr, e.g. ``sandbox: namespaces+account+cgroups (cpuset 1,0) ...``."""
        if self.level == "off":
            from .limits import asked

            line = "sandbox: off (engines run as this account, unjailed: docs/match.md)"
            if machine().root:
                line += "; this account is root: an engine can do all root can"
            given = asked(config.limits)
            if given:
                line += "; NOT enforced under --sandbox off: " + ", ".join(given)
            return line
        lim = config.limits
        what = "+".join(p for p in self.active if p != "cpuset") or "rlimits only"
        if "cpuset" in self.active and cpusets:
            what += f" (cpuset {','.join(cpusets)})"
        line = (
            f"sandbox: {what}; memory {lim.memory // MIB}M, {lim.max_procs} procs, "
            f"{lim.max_files} files, file size {lim.max_file_size // MIB}M"
        )
        if self.missing:
            line += "; without " + ", ".join(self.missing)
        if self.not_enforced:
            line += "; NOT enforced: " + ", ".join(self.not_enforced)
        return line


def plan(config: SandboxConfig, m: Machine | None = None, *, seccomp_known: bool = True) -> Plan:
    """What ``config`` gets on this machine; raises :class:`SandboxError` under
    ``strict`` when a protection is missing, and under any level as root when
    the engine could not be given an account of its own (never uid 0)."""
    from .limits import enforcement

    m = m or machine()
    if config.level == "off":
        return Plan("off", (), ())
    have = {
        "namespaces": m.bwrap is not None and m.env is not None,
        "account": m.root and m.setpriv is not None,
        "cgroups": {"memory", "pids"} <= m.controllers,
        "cpuset": "cpuset" in m.controllers and config.cpus() is not None,
        "seccomp": m.bwrap is not None and seccomp_known,
    }
    active = tuple(p for p in PROTECTIONS if have[p])
    missing = tuple(p for p in PROTECTIONS if not have[p] and not _unasked(p, config))
    if config.level == "strict" and missing:
        raise SandboxError(
            "--sandbox strict: this machine cannot give "
            + "; ".join(f"{p} (needs {NEEDS[p]})" for p in missing)
            + "; run the referee as root with bubblewrap installed, or use --sandbox auto"
        )
    if m.root and "account" not in active:
        raise SandboxError(
            "the referee runs as root but cannot give the engines an account of their own "
            f"({NEEDS['account']}): engines never run as root; install util-linux's "
            "setpriv, run the referee as another user, or use --sandbox off"
        )
    groups = m.controllers if "cgroups" in active or "cpuset" in active else frozenset()
    cpus = config.cpus() if "cpuset" in active else None
    choice = enforcement(
        config.limits,
        cgroups=groups if "cpuset" in active else groups - {"cpuset"},
        own_account="account" in active,
        namespaces="namespaces" in active,
        cpus=cpus if cpus is not None else config.limits.cpus,
    )
    return Plan(config.level, active, missing, choice.not_enforced())


def _unasked(protection: str, config: SandboxConfig) -> bool:
    """A protection nobody asked for is not missing (cores without --cpus under auto)."""
    return protection == "cpuset" and config.cpus() is None


def seat_cores(cpus: int, seat: int, cores: tuple[int, ...]) -> tuple[int, ...]:
    """The cores of ``seat``'s cpuset: from the top of ``cores``, seat A above
    seat B, the rest left to the referee. With fewer than ``2 * cpus`` cores
    the seats share round-robin (a 1-core machine: both on it).

    >>> seat_cores(1, 0, (0, 1)), seat_cores(1, 1, (0, 1)), seat_cores(1, 0, (0, 1, 2, 3))
    ((1,), (0,), (3,))
    """
    if not cores:
        return ()
    picked = [cores[(len(cores) - 1 - (seat * cpus + i)) % len(cores)] for i in range(cpus)]
    return tuple(sorted(set(picked)))
