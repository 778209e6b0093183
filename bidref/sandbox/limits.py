"""The one table of the jail's limits: name, option, unit, default, range, what
enforces each (in order of preference) and how a breach is recognised.

:func:`enforcement` picks, for one jail on one machine, the mechanism of each
limit (or none, said on the start line and in the transcript); the jail's spec
(:mod:`.spec`) is built from that choice alone, and the breach judge
(:mod:`.breach`) reads the same choice back from the spec, so a limit cannot be
set in one place and forgotten in another.
"""

from __future__ import annotations

import resource
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from .policy import GIB, MIB, Limits

Mechanism = Literal[
    "cgroup memory", "cgroup pids", "cgroup cpuset", "rlimit AS", "rlimit NPROC",
    "rlimit NOFILE", "rlimit FSIZE", "tmpfs size",
]  # fmt: skip

RLIMITS: Final[Mapping[str, int]] = {
    "rlimit AS": resource.RLIMIT_AS,
    "rlimit NPROC": resource.RLIMIT_NPROC,
    "rlimit NOFILE": resource.RLIMIT_NOFILE,
    "rlimit FSIZE": resource.RLIMIT_FSIZE,
}


@dataclass(frozen=True)
class LimitDef:
    """One row of :data:`TABLE`."""

    name: str  # as the loss names it ("memory", "processes", ...)
    field: str  # the attribute of :class:`~.policy.Limits`
    flag: str  # the command-line option
    unit: Literal["bytes", "count", "cores"]
    low: int
    high: int
    enforced_by: tuple[Mechanism, ...]  # the first this jail can use is used
    breach: str  # how the referee knows the engine met it

    def default(self) -> int | None:
        value: int | None = getattr(Limits(), self.field)
        return value


TABLE: Final = (
    LimitDef(
        "memory", "memory", "--memory", "bytes", 1 * MIB, 1024 * GIB,
        ("cgroup memory", "rlimit AS"),
        "cgroup: the kernel's OOM-kill count; rlimit AS (which counts shared mappings "
        "too): the engine's last words (Cannot allocate memory, MemoryError, ...)",
    ),
    LimitDef(
        "processes", "max_procs", "--max-procs", "count", 4, 100_000,
        ("cgroup pids", "rlimit NPROC"),
        "cgroup: the pids controller's count of refused forks; rlimit NPROC (own "
        "account only: it counts the account's processes): none, a crash",
    ),
    LimitDef(
        "open files", "max_files", "--max-files", "count", 16, 1_000_000,
        ("rlimit NOFILE",),
        "the engine's last words (Too many open files)",
    ),
    LimitDef(
        "file size", "max_file_size", "--max-file-size", "bytes", 1 * MIB, 1024 * GIB,
        ("rlimit FSIZE",),
        "killed by SIGXFSZ (under bubblewrap: exit code 153), or its last words "
        "(File too large)",
    ),
    LimitDef(
        "tmp size", "tmp_size", "--tmp-size", "bytes", 1 * MIB, 1024 * GIB,
        ("tmpfs size",),
        "writes fail with ENOSPC (No space left on device): the engine's own affair",
    ),
    LimitDef(
        "cores", "cpus", "--cpus", "cores", 1, 1024,
        ("cgroup cpuset",),
        "none needed: the engine cannot run elsewhere",
    ),
)  # fmt: skip
BY_NAME: Final = {d.name: d for d in TABLE}


@dataclass(frozen=True)
class Choice:
    """How one jail enforces each limit: ``by`` maps a limit's name to its
    mechanism (None: not enforced); ``value`` to its value."""

    by: Mapping[str, Mechanism | None]
    value: Mapping[str, int]

    def rlimits(self) -> dict[str, tuple[int, int]]:
        """The limits set as rlimits: name -> (resource, value)."""
        return {
            name: (RLIMITS[m], self.value[name])
            for name, m in self.by.items()
            if m is not None and m in RLIMITS
        }

    def not_enforced(self) -> tuple[str, ...]:
        return tuple(name for name, m in self.by.items() if m is None and name in self.value)


def enforcement(
    limits: Limits,
    *,
    cgroups: frozenset[str],
    own_account: bool,
    namespaces: bool,
    cpus: int | None,
) -> Choice:
    """Pick each limit's mechanism. ``cgroups``: the controllers the jail's group
    has; ``own_account``: the engine runs as a uid of its own (an ``NPROC``
    limit counts the whole account); ``namespaces``: a private ``/tmp`` (a sized
    tmpfs); ``cpus``: cores per seat asked for (None: no cpuset wanted).

    >>> c = enforcement(Limits(), cgroups=frozenset(), own_account=False,
    ...                 namespaces=False, cpus=None)
    >>> c.by["memory"], c.by["processes"], c.not_enforced()
    ('rlimit AS', None, ('processes', 'tmp size'))
    """
    usable: set[Mechanism] = {"rlimit AS", "rlimit NOFILE", "rlimit FSIZE"}
    if "memory" in cgroups:
        usable.add("cgroup memory")
    if "pids" in cgroups:
        usable.add("cgroup pids")
    if "cpuset" in cgroups:
        usable.add("cgroup cpuset")
    if own_account:
        usable.add("rlimit NPROC")
    if namespaces:
        usable.add("tmpfs size")
    by: dict[str, Mechanism | None] = {}
    value: dict[str, int] = {}
    for d in TABLE:
        v = cpus if d.name == "cores" else getattr(limits, d.field)
        if v is None:
            continue
        value[d.name] = v
        by[d.name] = next((x for x in d.enforced_by if x in usable), None)
    return Choice(by, value)


def asked(limits: Limits) -> list[str]:
    """The limits set away from their defaults, as options (``--memory 512M``):
    what ``--sandbox off`` must say it does not enforce.

    >>> asked(Limits(memory=512 * MIB, cpus=1))
    ['--memory 512M', '--cpus 1']
    """
    out = []
    for d in TABLE:
        value = getattr(limits, d.field)
        if value is None or value == d.default():
            continue
        if d.unit == "bytes":
            text = f"{value // GIB}G" if value % GIB == 0 else f"{value // MIB}M"
        else:
            text = str(value)
        out.append(f"{d.flag} {text}")
    return out
