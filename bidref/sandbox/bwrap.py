"""The bubblewrap command line of a jail.

The jail sees: the system's programs and libraries read-only (/usr, /etc, /bin,
/lib..., /opt), the Python that runs bidref and the bidref package read-only
(Python engines import ``bidref.sdk``), the engine's own folder (read-only, or
writable by option), a private /proc (its own PID namespace: only its own
processes), a minimal /dev and a size-capped private /tmp. Nothing else: the
opponent's folder, the transcripts, results and logs are not there at all;
those that lie inside a bound tree are covered (``hide``: an empty tmpfs over a
folder, /dev/null over a file). New PID, mount, IPC, UTS, network and cgroup
namespaces; the network namespace has no interface but its own loopback,
which leads nowhere (and as root, when the referee made the namespace, is
down: :mod:`.netns`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Final

SYSTEM: Final = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
NAMESPACES: Final = (
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--unshare-cgroup-try",
)


def _inside(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def command(
    bwrap: str,
    argv: Sequence[str],
    *,
    folder: str,
    writable: bool,
    extra_ro: Sequence[str],
    hide: Sequence[str],
    tmp_size: int,
    switch: Sequence[str] = (),
    unshare_net: bool = True,
) -> list[str]:
    """``bwrap ... -- [switch...] argv``: ``argv`` jailed, run in ``folder``.

    ``extra_ro``: more paths bound read-only (the interpreter, the program when
    it lies outside ``folder``). ``switch``: a command that drops to the seat's
    own account before running ``argv`` (root only; bubblewrap keeps the two
    capabilities it needs, and nothing else). ``unshare_net`` False: the caller
    has put the process in a network namespace of its own already
    (:mod:`bidref.sandbox.netns`).
    """
    spaces = [n for n in NAMESPACES if unshare_net or n != "--unshare-net"]
    out = [bwrap, *spaces, "--die-with-parent", "--new-session", "--hostname", "engine"]
    bound: list[str] = []
    for p in SYSTEM:
        if os.path.islink(p):
            out += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            out += ["--ro-bind", p, p]
            bound.append(p)
    # first: the binds below may lie under /tmp (the folders on the way are made after)
    out += ["--proc", "/proc", "--dev", "/dev"]
    out += ["--perms", "1777", "--size", str(tmp_size), "--tmpfs", "/tmp"]
    extra = [
        p
        for p in sorted(set(extra_ro))
        if os.path.exists(p) and not any(_inside(p, b) for b in (*bound, folder))
    ]
    extra = [p for p in extra if not any(_inside(p, q) and p != q for q in extra)]
    # The folders on the way to what is bound: made searchable by everyone (as
    # root, bubblewrap would make them 0700, closed to the seat's own account).
    made: set[str] = set()
    for p in (*extra, folder):
        parents = [str(a) for a in reversed(Path(p).parents) if str(a) != "/"]
        for a in parents:
            if a not in made and not any(_inside(a, b) for b in bound):
                out += ["--perms", "0755", "--dir", a]
                made.add(a)
    for p in extra:
        out += ["--ro-bind", p, p]
        bound.append(p)
    out += ["--bind" if writable else "--ro-bind", folder, folder]
    bound.append(folder)
    needed = [folder, *extra]
    for h in hide:
        if not any(_inside(h, b) for b in bound):
            continue  # not in any bound tree: not there at all
        if not any(_inside(n, h) for n in needed):
            out += _mask(h)
            continue
        if any(_inside(h, n) for n in needed):
            continue  # outputs inside the engine's own folder: file modes only (umask 077)
        # the engine's folder lies below it: cover what is there now but the way to
        # the engine (files made later: by file modes)
        with os.scandir(h) as entries:
            for e in entries:
                if not any(_inside(n, e.path) for n in needed):
                    out += _mask(e.path)
    out += ["--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", "--chdir", folder]
    if switch:
        out += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [*out, "--", *switch, *argv]


def _mask(path: str) -> list[str]:
    if os.path.isdir(path) and not os.path.islink(path):
        return ["--tmpfs", path]
    if os.path.isfile(path):
        return ["--ro-bind", "/dev/null", path]
    return []


def switch_account(setpriv: str, uid: int) -> list[str]:
    """setpriv: to ``uid`` (gid too, no groups), no new privileges, and the death
    signal set again (the kernel clears it when the uid changes)."""
    return [
        setpriv,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--no-new-privs",
        "--pdeathsig=SIGKILL",
        "--",
    ]


def engine_folder(argv: Sequence[str], cwd: str | None) -> str | None:
    """The engine's own folder: its ``cwd``, else the folder of the script an
    interpreter runs or of its program; None when the command names neither."""
    if cwd:
        return str(Path(cwd).resolve())
    for word in [*argv[1:], argv[0]] if len(argv) > 1 else argv:
        p = Path(word)
        if (os.sep in word or p.suffix) and p.is_file():
            return str(p.resolve().parent)
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
