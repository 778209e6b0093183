"""The engine watchdog: ends a referee's engines when the referee dies.

Run by :mod:`bidref.engines.contain` as ``python -I -S watchdog.py REFEREE_PID
TOKEN`` with the read end of a pipe on stdin whose write end only the referee
holds. It waits for the pipe's end of file, which comes when the referee exits
or is killed (even by SIGKILL), then thaws the referee's frozen jails (a process
in a frozen cgroup does not die of SIGKILL until it is thawed: ``--freeze-idle``
in a jail), kills every process whose environment carries
``BIDREF_CONTAIN=TOKEN`` (the referee's engines and what they started), the
sessions and process groups they lead, and exits. It uses the standard
library only: it must start in milliseconds and never import bidref.
"""

from __future__ import annotations

import contextlib
import glob
import os
import signal
import sys
import time


def _stat(pid: str) -> tuple[int, int, int] | None:
    """(process group, session, state is zombie) of ``pid``; None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return int(fields[2]), int(fields[3]), fields[0] == b"Z"
    except (OSError, IndexError, ValueError):
        return None


def _marked(pid: str, mark: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return mark in f.read().split(b"\0")
    except OSError:
        return False


def sweep(mark: bytes) -> int:
    """Kill the marked processes and the groups and sessions they lead; how many."""
    me = os.getpid()
    stats: dict[int, tuple[int, int, int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != me:
            st = _stat(name)
            if st is not None and not st[2]:
                stats[int(name)] = st
    marked = {pid for pid in stats if _marked(str(pid), mark)}
    # What a marked process leads (as session or group) is an engine's too,
    # whatever its environment.
    leads = {pid for pid in marked if stats[pid][0] == pid or stats[pid][1] == pid}
    victims = marked | {pid for pid, (pg, sid, _) in stats.items() if pg in leads or sid in leads}
    for pid in victims:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(victims)


def thaw_jails(referee: str) -> None:
    """Let the referee's jails run again (bidref.sandbox.cgroups names them
    ``bidref-PID-SEAT-N``): cgroup v1's freezer.state, v2's cgroup.freeze."""
    root = "/sys/fs/cgroup"
    # (recursive: jails are made under the referee's own group, which may be nested)
    v1 = glob.glob(f"{root}/freezer/**/bidref-{referee}-*/freezer.state", recursive=True)
    v2 = glob.glob(f"{root}/**/bidref-{referee}-*/cgroup.freeze", recursive=True)
    for path, word in [*((p, "THAWED") for p in v1), *((p, "0") for p in v2)]:
        with contextlib.suppress(OSError), open(path, "w") as f:
            f.write(word)


def main() -> None:
    mark = b"BIDREF_CONTAIN=" + sys.argv[2].encode()
    for s in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(s, signal.SIG_IGN)
    while True:
        try:
            if not os.read(0, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    # Several rounds: a process may be forking while the first one runs; the
    # jails are thawed after each (the kills are pending on frozen processes).
    for _ in range(10):
        killed = sweep(mark)
        thaw_jails(sys.argv[1])
        if not killed:
            break
        time.sleep(0.02)


if __name__ == "__main__":
    main()
