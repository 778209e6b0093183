"""The bubblewrap command line of a jail (:class:`~.spec.JailSpec`).

The jail sees: the system's programs and libraries read-only (/usr, /etc, /bin,
/lib..., /opt), the Python that runs bidref and the bidref package it imports
read-only (Python engines import ``bidref.sdk``), the engine's own folder
(read-only, writable by the operator's option, or a private copy), a private
/proc (its own PID namespace: only its own processes), a minimal read-only /dev
with a size-capped /dev/shm, and a size-capped private /tmp. Nothing else. New
PID, mount, IPC, UTS, network and cgroup namespaces; no capabilities (as root,
CAP_SETUID and CAP_SETGID for setpriv alone, which drops them with the uid);
the system-call filter (:mod:`.seccomp`) from the descriptor the jail passes.

Inside, the command is ``[setpriv ...] env -i VAR=VALUE... -- ENGINE...``:
bubblewrap and setpriv run with a fixed environment of their own, and the
engine's variables are handed over by ``env`` as the very last step, so a
variable such as ``LD_PRELOAD`` can reach nothing but the engine.
"""

from __future__ import annotations

from .spec import JailSpec, Mount

_UNSHARE = {
    "pid": "--unshare-pid",
    "ipc": "--unshare-ipc",
    "uts": "--unshare-uts",
    "net": "--unshare-net",
    "cgroup": "--unshare-cgroup-try",
}


def argv(
    spec: JailSpec,
    bwrap: str,
    *,
    uid: int | None,
    seccomp_fd: int | None,
    folder_source: str | None = None,
    stdio: tuple[int, int] | None = None,
) -> list[str]:
    """``bwrap ... -- [setpriv ...] [bash ...] env -i ... -- ENGINE``. ``uid``: the
    leased account (root); ``folder_source``: where the folder's bytes are (a
    private copy), bound at the folder's own path; ``stdio``: the descriptors of
    the engine's stdin and stdout pipes, which bubblewrap's own processes close
    (they keep their descriptors 0 to 2 open for as long as the jail runs), moved
    onto the engine's 0 and 1 as the last step but one: an engine that closes
    its stdout (or stdin) is seen to at once, as without a jail."""
    spaces = [
        _UNSHARE[n] for n in spec.namespaces if not (n == "net" and spec.own_netns)
    ]  # (the referee's own network namespace is entered before: bidref.sandbox.netns)
    out = [bwrap, *spaces, "--die-with-parent", "--new-session", "--hostname", "engine"]
    for mnt in spec.mounts:
        if mnt.op in ("bind", "ro-bind") and mnt.dest == spec.folder and folder_source:
            mnt = Mount(mnt.op, mnt.dest, folder_source)
        out += mount_args(mnt)
    if spec.chdir:
        out += ["--chdir", spec.chdir]
    out += ["--cap-drop", "ALL"]
    switch: list[str] = []
    if uid is not None and "setpriv" in spec.helpers:
        out += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        switch = switch_account(spec.helpers["setpriv"], uid)
    if seccomp_fd is not None:
        out += ["--seccomp", str(seccomp_fd)]
    move: list[str] = []
    if stdio is not None and "bash" in spec.helpers:
        i, o = stdio
        script = f'exec 0<&{i} 1>&{o} {i}<&- {o}>&- && exec "$@"'
        move = [spec.helpers["bash"], "-c", script, "bidref-jail"]
    return [*out, "--", *switch, *move, *hand_over(spec)]


def hand_over(spec: JailSpec) -> list[str]:
    """``env -i VAR=VALUE... ENGINE...``: the engine with its own variables only."""
    env = spec.helpers.get("env", "/usr/bin/env")
    return [env, "-i", *(f"{k}={v}" for k, v in sorted(spec.env.items())), *spec.argv]


def mount_args(m: Mount) -> list[str]:
    pre: list[str] = []
    if m.perms is not None:
        pre += ["--perms", f"{m.perms:04o}"]
    if m.size is not None:
        pre += ["--size", str(m.size)]
    if m.op == "ro-bind":
        return ["--ro-bind", m.source, m.dest]
    if m.op == "bind":
        return ["--bind", m.source, m.dest]
    if m.op == "symlink":
        return ["--symlink", m.source, m.dest]
    if m.op == "tmpfs":
        return [*pre, "--tmpfs", m.dest]
    if m.op == "dir":
        return [*pre, "--dir", m.dest]
    if m.op == "remount-ro":
        return ["--remount-ro", m.dest]
    return [f"--{m.op}", m.dest]  # proc, dev


def switch_account(setpriv: str, uid: int) -> list[str]:
    """setpriv: to ``uid`` (gid too, no groups), no capabilities in any set, no
    new privileges, and the death signal set again (the kernel clears it when
    the uid changes)."""
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
