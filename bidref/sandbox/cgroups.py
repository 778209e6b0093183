"""Per-engine control groups, v1 (one hierarchy per controller) or v2 (unified),
detected at run time. A jail's group holds its memory and process limits, its
cpuset, its freezer and its CPU-time counter; it is made under the group this
process is in (so limits nest) and removed with the engine. In the ``cpu``
controller it is one scheduling entity of the default weight: however many
busy processes an engine starts, together they weigh as much as the opponent's
jail and as the referee (without it each process, or each session, weighs as
much as the opponent's whole engine).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from pathlib import Path
from typing import Final

ROOT: Final = Path("/sys/fs/cgroup")
WANTED: Final = ("memory", "pids", "cpuset", "freezer", "cpuacct", "cpu")
_serial = itertools.count(1)


def _own_path(controller: str) -> str:
    """This process's group in ``controller``'s hierarchy ("" in v2: the unified one)."""
    return _own_paths(os.getpid()).get(controller, "/")


@functools.lru_cache(maxsize=4)
def _own_paths(pid: int) -> dict[str, str]:
    """Read once per process (``pid``: a forked worker reads its own): each jail
    is made beside the last, and the file costs a few hundred us to read."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    out: dict[str, str] = {}
    for line in lines:
        _, ctrls, path = line.split(":", 2)
        for c in ctrls.split(",") if ctrls else [""]:
            out.setdefault(c, path)
    return out


def _writable(folder: Path) -> bool:
    probe = folder / f"bidref-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return False
    with contextlib.suppress(OSError):
        probe.rmdir()
    return True


V2_CONTROLLERS: Final = ("memory", "pids", "cpuset", "cpu")


def _enable_v2(base: Path, controllers: frozenset[str] | tuple[str, ...]) -> None:
    """Enable ``controllers`` for the children of ``base``, one by one (one the
    kernel refuses must not cost the others: e.g. ``cpu`` beside a realtime
    process, or any of them in a group that holds processes and is not the root)."""
    for c in V2_CONTROLLERS:
        if c in controllers:
            with contextlib.suppress(OSError):
                _write(base / "cgroup.subtree_control", f"+{c}")


def _v2_usable(base: Path) -> set[str] | None:
    """What a child group of ``base`` really gets: a probe group is made and its
    ``cgroup.controllers`` read (None: no group can be made here)."""
    probe = base / f"bidref-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return None
    try:
        _enable_v2(base, V2_CONTROLLERS)
        return set((probe / "cgroup.controllers").read_text().split())
    except OSError:
        return set()
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()


def probe() -> tuple[str | None, frozenset[str]]:
    """("v1" | "v2" | None, the controllers whose groups we can make)."""
    if (ROOT / "cgroup.controllers").exists():  # v2
        usable = _v2_usable(ROOT / _own_path("").lstrip("/"))
        if usable is None:
            return None, frozenset()
        names: set[str] = {c for c in V2_CONTROLLERS if c in usable}
        names |= {"freezer", "cpuacct"}  # cgroup.freeze and cpu.stat are core files in v2
        return "v2", frozenset(names)
    names = set[str]()
    for c in WANTED:
        folder = ROOT / c
        if folder.is_dir() and _writable(folder / _own_path(c).lstrip("/")):
            names.add(c)
    return ("v1" if names else None), frozenset(names)


def _write(path: Path, value: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def sweep_stale(version: str, controllers: frozenset[str]) -> int:
    """Remove the groups of referees that are gone (``bidref-PID-...`` with no
    process PID: killed before they could remove them); the number removed.
    What is still inside (nothing, normally: the kernel killed the jail with
    its parent) is killed first."""
    parents = (
        {ROOT / _own_path("").lstrip("/")}
        if version == "v2"
        else {ROOT / c / _own_path(c).lstrip("/") for c in controllers}
    )
    removed = 0
    for parent in parents:
        for folder in parent.glob("bidref-*-*-*"):
            pid = folder.name.split("-")[1]
            if not pid.isdigit() or Path(f"/proc/{pid}").exists():
                continue
            with contextlib.suppress(OSError, ValueError):
                for victim in (folder / "cgroup.procs").read_text().split():
                    os.kill(int(victim), signal.SIGKILL)
            with contextlib.suppress(OSError):
                folder.rmdir()
                removed += 1
    return removed


class Group:
    """One jail's group in every controller we can use."""

    def __init__(self, version: str, controllers: frozenset[str], label: str) -> None:
        self.version = version
        name = f"bidref-{os.getpid()}-{label}-{next(_serial)}"
        self.dirs: dict[str, Path] = {}
        if version == "v2":
            base = ROOT / _own_path("").lstrip("/")
            folder = base / name
            folder.mkdir()
            _enable_v2(base, controllers)  # the group gets those that are on
            try:
                on = set((folder / "cgroup.controllers").read_text().split())
            except OSError:
                on = set()
            on |= {"freezer", "cpuacct"}  # cgroup.freeze and cpu.stat: in every v2 group
            self.dirs = {c: folder for c in controllers if c in on}
        else:
            for c in controllers:
                folder = ROOT / c / _own_path(c).lstrip("/") / name
                folder.mkdir()
                self.dirs[c] = folder
        self.procs_files = tuple(sorted({str(d / "cgroup.procs") for d in self.dirs.values()}))
        # How a starting child joins. In v1 it writes "0" into each ``tasks`` file:
        # that moves one thread (all a child has between fork and exec) and skips
        # the global threadgroup lock, whose RCU grace period made each start
        # 5-35 ms slower; ``cgroup.procs`` (v2: the only way) takes that lock.
        join = "cgroup.procs" if version == "v2" else "tasks"
        self.join_files = tuple(sorted({str(d / join) for d in self.dirs.values()}))

    # -- limits --------------------------------------------------------------
    def limit_memory(self, nbytes: int) -> None:
        d = self.dirs["memory"]
        if self.version == "v2":
            _write(d / "memory.max", str(nbytes))
            with contextlib.suppress(OSError):
                _write(d / "memory.swap.max", "0")
        else:
            _write(d / "memory.limit_in_bytes", str(nbytes))
            with contextlib.suppress(OSError):  # no swap accounting: no swap to escape to
                _write(d / "memory.memsw.limit_in_bytes", str(nbytes))

    def limit_pids(self, count: int) -> None:
        _write(self.dirs["pids"] / "pids.max", str(count))

    def pin(self, cores: tuple[int, ...]) -> None:
        d = self.dirs["cpuset"]
        cpus = ",".join(map(str, cores))
        if self.version == "v2":
            _write(d / "cpuset.cpus", cpus)
        else:
            _write(d / "cpuset.mems", (d.parent / "cpuset.mems").read_text().strip())
            _write(d / "cpuset.cpus", cpus)

    # -- the processes -------------------------------------------------------
    def join_fn(self) -> tuple[str, ...]:
        """The files a starting child (one thread, before exec) writes "0" into."""
        return self.join_files

    def pids(self) -> set[int]:
        out: set[int] = set()
        for f in self.procs_files:
            with contextlib.suppress(OSError, ValueError):
                out |= {int(x) for x in Path(f).read_text().split()}
        return out

    def freeze(self) -> None:
        if self.version == "v2":
            _write(self.dirs["freezer"] / "cgroup.freeze", "1")
        else:
            _write(self.dirs["freezer"] / "freezer.state", "FROZEN")

    def thaw(self) -> None:
        if self.version == "v2":
            _write(self.dirs["freezer"] / "cgroup.freeze", "0")
        else:
            _write(self.dirs["freezer"] / "freezer.state", "THAWED")

    def cpu_ns(self) -> int:
        """CPU time (user + system) of every process the group ever held, in ns."""
        if self.version == "v2":
            for line in (self.dirs["cpuacct"] / "cpu.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) * 1000
            return 0
        return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text())

    def breach(self) -> str | None:
        """The limit the group hit ("memory" when the kernel killed for it,
        "processes" when a fork was refused), or None."""
        if "memory" in self.dirs:
            d = self.dirs["memory"]
            name = "memory.events" if self.version == "v2" else "memory.oom_control"
            with contextlib.suppress(OSError, ValueError):
                for line in (d / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and int(value) > 0:
                        return "memory"
        if "pids" in self.dirs:
            with contextlib.suppress(OSError, ValueError):
                for line in (self.dirs["pids"] / "pids.events").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "max" and int(value) > 0:
                        return "processes"
        return None

    def remove(self, timeout_s: float = 2.0) -> None:
        """Kill what is left in the group, then remove it (idempotent)."""
        if "freezer" in self.dirs:
            with contextlib.suppress(OSError):
                self.thaw()  # a frozen process does not die until thawed
        end = time.monotonic() + timeout_s
        for folder in sorted(set(self.dirs.values()), key=str):
            while folder.exists():
                if self.version == "v2":
                    with contextlib.suppress(OSError):
                        _write(folder / "cgroup.kill", "1")
                for pid in self.pids():
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
                try:
                    folder.rmdir()
                except OSError:
                    if time.monotonic() >= end:
                        break
                    time.sleep(0.005)
        self.dirs = {}
        self.procs_files = ()
        self.join_files = ()
