"""One jail, declared: :class:`JailSpec` is a pure value (namespaces, mounts as
data, environment, rlimits, cgroup settings, system-call filter, account),
built by :func:`build` from the operator's settings, the engine's command and
folder, and what the machine offers; :func:`bidref.sandbox.bwrap.argv` turns it
into the bubblewrap command line, and :mod:`.jail` makes the parts it names
(the group, the lease of an account, the filter's descriptor).

``build`` reads the filesystem only through ``fs`` (:class:`Fs`), so the
whole decision is unit-tested without root, bubblewrap or real folders.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Final, Literal, Protocol

from . import environ, seccomp
from .limits import Choice, enforcement
from .policy import Level, Machine, SandboxConfig, SandboxError, plan, seat_cores

SYSTEM: Final = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
NAMESPACES: Final = ("pid", "ipc", "uts", "net", "cgroup")
# An engine's folder may lie inside none of these, nor hold one (bound over the
# jail's own /proc, /dev and /tmp, it would show the host's).
_KERNEL: Final = ("/proc", "/sys", "/dev", "/run")
COPY_LIMIT: Final = 256 << 20  # the largest folder given as a private copy


class Fs(Protocol):
    """What :func:`build` may ask of the filesystem."""

    def kind(self, path: str) -> Literal["dir", "file", "link"] | None: ...
    def readlink(self, path: str) -> str: ...
    def others_can(self, path: str, write: bool) -> bool: ...
    def listdir(self, path: str) -> list[str]: ...
    def resolve(self, path: str) -> str: ...


class OsFs:
    """:class:`Fs` of this machine."""

    def kind(self, path: str) -> Literal["dir", "file", "link"] | None:
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            return "link"
        return "dir" if stat.S_ISDIR(st.st_mode) else "file"

    def readlink(self, path: str) -> str:
        return os.readlink(path)

    def others_can(self, path: str, write: bool) -> bool:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return False
        want = stat.S_IROTH | stat.S_IXOTH | (stat.S_IWOTH if write else 0)
        return mode & want == want

    def listdir(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(path))
        except OSError:
            return []

    def resolve(self, path: str) -> str:
        return os.path.realpath(path)


@dataclass(frozen=True)
class Mount:
    """One step of the jail's filesystem, in order. ``op``: ``ro-bind``,
    ``bind``, ``tmpfs``, ``proc``, ``dev``, ``symlink`` (``source`` is the
    target), ``dir`` (a folder on the way, ``perms``), ``remount-ro``."""

    op: Literal["ro-bind", "bind", "tmpfs", "proc", "dev", "symlink", "dir", "remount-ro"]
    dest: str
    source: str = ""
    perms: int | None = None
    size: int | None = None


@dataclass(frozen=True)
class CgroupSpec:
    memory: int | None
    pids: int | None
    cores: tuple[int, ...]


@dataclass(frozen=True)
class JailSpec:
    """Everything about one engine's jail (see the module docstring)."""

    level: Level
    active: tuple[str, ...]  # protections given (policy.PROTECTIONS)
    missing: tuple[str, ...]  # protections this machine could not give
    limits: Choice
    namespaces: tuple[str, ...]  # () : no bubblewrap
    own_netns: bool  # the referee makes the network namespace (no loopback)
    mounts: tuple[Mount, ...]
    chdir: str | None
    env: Mapping[str, str]
    argv: tuple[str, ...]  # the engine's own command
    cgroup: CgroupSpec | None
    seccomp: seccomp.Policy | None
    account: bool  # runs as a leased uid of its own (root)
    folder: str | None
    folder_mode: Literal["read-only", "writable", "private copy", "none"]
    helpers: Mapping[str, str] = field(default_factory=dict)  # setpriv, env: real paths

    @property
    def wrapped(self) -> bool:
        """Its process is bubblewrap's (exit codes 128 + n for signals)."""
        return bool(self.namespaces)

    def record(self, uid: int | None) -> dict[str, object]:
        """What the jail gave, for the transcript header and results (per seat)."""
        return {
            "level": self.level,
            "protections": list(self.active),
            "missing": list(self.missing),
            "own_account": self.account,
            "account": uid,
            "folder": self.folder_mode,
            "seccomp": self.seccomp is not None,
            "limits": {
                name: {"value": self.limits.value[name], "by": by}
                for name, by in self.limits.by.items()
            },
        }


def inside(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def engine_folder(argv: Sequence[str], cwd: str | None, fs: Fs) -> str | None:
    """The engine's own folder: its ``cwd``, else the folder of the script an
    interpreter runs or of its program; None when the command names neither."""
    if cwd:
        return fs.resolve(cwd)
    for word in [*argv[1:], argv[0]] if len(argv) > 1 else argv:
        p = PurePosixPath(word)
        if (os.sep in word or p.suffix) and os.path.isabs(word) and fs.kind(word) == "file":
            return str(PurePosixPath(fs.resolve(word)).parent)
    return None


def absolute(argv: Sequence[str], cwd: str | None) -> list[str]:
    """``argv`` with its relative paths made absolute (the jail runs elsewhere)."""
    base = Path(cwd or os.getcwd())
    out = []
    for i, word in enumerate(argv):
        p = base / word
        if not os.path.isabs(word) and (os.sep in word or i > 0) and p.exists():
            out.append(os.path.abspath(p))
        else:
            out.append(word)
    return out


def check_folder(folder: str, writable: bool, python: Sequence[str]) -> None:
    """Refuse a folder that would show the host (``/``, a system tree, the
    kernel's, ``/tmp``) or, writable, would let the engine change the referee."""
    why = None
    if folder == "/":
        why = "it is the root of the filesystem"
    elif any(inside(folder, k) for k in _KERNEL):
        why = "it lies in the kernel's or the system's run-time folders"
    elif any(inside(s, folder) for s in (*SYSTEM, "/tmp")):
        why = "it is or holds a system folder"
    elif writable and any(inside(p, folder) for p in python):
        why = "writable, it would hold the Python (or bidref) that runs the referee"
    if why:
        raise SandboxError(
            f"the engine's folder {folder!r} cannot be given to a jail: {why}; give the "
            "engine a folder of its own (its engine file's folder, or --engine dir=...)"
        )


def build(
    config: SandboxConfig,
    argv: Sequence[str],
    cwd: str | None,
    m: Machine,
    fs: Fs,
    *,
    python: Sequence[str],
    mark: tuple[str, str],
    outer_env: Mapping[str, str],
    own_env: Mapping[str, str] | None = None,
    arch_filter: bool = True,
) -> JailSpec:
    """The jail of ``argv`` (absolute, :func:`absolute`) started in ``cwd``.

    ``python``: what a Python engine needs read-only, the folder of the
    interpreter's program first (put on ``PATH``), then its install and the
    bidref package it imports; ``mark``: the containment variable;
    ``outer_env``: the referee's environment (only allow-listed names are
    read); ``own_env``: the engine entry's variables; ``arch_filter``: a filter
    program exists for this machine (:func:`bidref.sandbox.seccomp.program`).
    Raises :class:`SandboxError` for a jail that cannot be given.
    """
    p = plan(config, m, seccomp_known=arch_filter)
    active = p.active
    folder = engine_folder(argv, cwd, fs)
    writable = config.dir_writable and folder is not None
    namespaces = "namespaces" in active and m.bwrap is not None
    account = "account" in active
    if folder is not None:
        check_folder(folder, writable, python)
    folder_mode: Literal["read-only", "writable", "private copy", "none"] = (
        "none" if folder is None else "writable" if writable else "read-only"
    )
    if account and folder is not None and not fs.others_can(folder, writable):
        if writable:
            raise SandboxError(
                f"the engine's folder {folder!r} is not writable by the jails' own "
                "accounts (uids 61400-61499, a new one each match), and dir_writable asks "
                f"for it: `chmod o+rwx {folder}` (only this engine's jail sees the folder), "
                "or leave dir_writable out"
            )
        if not namespaces:
            raise SandboxError(
                f"the engine's folder {folder!r} is closed to the jails' own accounts "
                f"(uids 61400-61499): `chmod o+rx {folder}`, or install bubblewrap "
                "(the jail then gives the engine a private copy)"
            )
        folder_mode = "private copy"
    cores: tuple[int, ...] = ()
    cpus = config.cpus()
    groups = frozenset(m.controllers) if "cgroups" in active or "cpuset" in active else frozenset()
    if "cpuset" not in active:
        groups -= {"cpuset"}
    elif cpus:
        cores = seat_cores(cpus, config.seat, m.cores)
    choice = enforcement(
        config.limits,
        cgroups=groups,
        own_account=account,
        namespaces=namespaces,
        cpus=cpus if "cpuset" in active else None,
    )
    cgroup = (
        CgroupSpec(
            config.limits.memory if choice.by.get("memory") == "cgroup memory" else None,
            config.limits.max_procs if choice.by.get("processes") == "cgroup pids" else None,
            cores,
        )
        if groups
        else None
    )
    interpreter_bin = python[0] if python else None
    env = environ.engine_env(own_env or {}, mark, outer_env, interpreter_bin, namespaces)
    helpers: dict[str, str] = {}
    if account and m.setpriv:
        helpers["setpriv"] = m.setpriv
    if namespaces and m.env:
        helpers["env"] = m.env
    if namespaces and m.bash:
        helpers["bash"] = m.bash
    mounts: tuple[Mount, ...] = ()
    if namespaces:
        mounts = _mounts(config, argv, folder, writable, python, helpers, fs)
    missing = p.missing
    return JailSpec(
        level=config.level,
        active=active,
        missing=missing,
        limits=choice,
        namespaces=NAMESPACES if namespaces else (),
        own_netns=namespaces and m.root,
        mounts=mounts,
        chdir=folder or ("/tmp" if namespaces else cwd),
        env=env,
        argv=tuple(argv),
        cgroup=cgroup,
        seccomp=seccomp.DEFAULT if "seccomp" in active else None,
        account=account,
        folder=folder,
        folder_mode=folder_mode,
        helpers=helpers,
    )


def _mounts(
    config: SandboxConfig,
    argv: Sequence[str],
    folder: str | None,
    writable: bool,
    python: Sequence[str],
    helpers: Mapping[str, str],
    fs: Fs,
) -> tuple[Mount, ...]:
    out: list[Mount] = []
    bound: list[str] = []
    for s in SYSTEM:
        k = fs.kind(s)
        if k == "link":
            out.append(Mount("symlink", s, fs.readlink(s)))
        elif k == "dir":
            out.append(Mount("ro-bind", s, s))
            bound.append(s)
    tmp = config.limits.tmp_size
    # first: the binds below may lie under /tmp (the folders on the way are made after)
    out += [
        Mount("proc", "/proc"),
        Mount("dev", "/dev"),
        Mount("tmpfs", "/dev/shm", perms=0o1777, size=tmp),  # (bubblewrap's is unsized)
        Mount("remount-ro", "/dev"),
        Mount("tmpfs", "/tmp", perms=0o1777, size=tmp),
    ]
    # Only the interpreter's install (and bidref) and the helpers, besides the
    # folder: a command word naming any other file binds nothing.
    wanted = {*python, *(h for h in helpers.values())}
    words = [w for w in argv if os.path.isabs(w)]
    wanted |= {w for w in words if any(inside(w, q) for q in python)}
    extra = [
        q
        for q in sorted(wanted)
        if fs.kind(q) is not None
        and not any(inside(q, b) for b in bound)
        and not (folder and inside(q, folder))
    ]
    extra = [q for q in extra if not any(inside(q, r) and q != r for r in extra)]
    made: set[str] = set()
    for q in (*extra, *([folder] if folder else [])):
        for a in reversed(PurePosixPath(q).parents):
            a_text = str(a)
            if a_text != "/" and a_text not in made and not any(inside(a_text, b) for b in bound):
                out.append(Mount("dir", a_text, perms=0o755))
                made.add(a_text)
    for q in extra:
        out.append(Mount("ro-bind", q, q))
        bound.append(q)
    if folder:
        out.append(Mount("bind" if writable else "ro-bind", folder, folder))
        bound.append(folder)
    needed = [*([folder] if folder else []), *extra]
    for h in config.hide:
        if not any(inside(h, b) for b in bound):
            continue  # not in any bound tree: not there at all
        if not any(inside(n, h) for n in needed):
            out += _mask(h, fs)
            continue
        if any(inside(h, n) for n in needed):
            continue  # outputs inside the engine's own folder: file modes only (umask 077)
        # the engine's folder lies below it: cover what is there now but the way to
        # the engine (files made later: by file modes)
        for name in fs.listdir(h):
            e = os.path.join(h, name)
            if not any(inside(n, e) for n in needed):
                out += _mask(e, fs)
    return tuple(out)


def _mask(path: str, fs: Fs) -> list[Mount]:
    k = fs.kind(path)
    if k == "dir":
        return [Mount("tmpfs", path)]
    if k == "file":
        return [Mount("ro-bind", path, "/dev/null")]
    return []
