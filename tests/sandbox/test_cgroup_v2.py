"""The cgroup v2 side of the jail's groups, on a real unified hierarchy.

A machine runs either v1 (one hierarchy per controller: the CI machine) or v2;
a v1 machine usually mounts the unified hierarchy too (``/sys/fs/cgroup/unified``,
"hybrid"), with no controllers but with v2's own files: ``cgroup.procs``,
``cgroup.freeze``, ``cgroup.kill`` and ``cpu.stat``. That is enough to run the
v2 code of :class:`bidref.sandbox.cgroups.Group` for real there: joining,
freezing, CPU time, the kill and the removal. (Memory, pids and cpuset limits
in v2 need the controllers, which such a machine keeps in v1.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bidref.sandbox import cgroups

from .conftest import assert_freezes_and_thaws


def _unified() -> Path | None:
    """Where a writable cgroup2 hierarchy is mounted, or None."""
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[2] == "cgroup2":
            where = Path(fields[1])
            if os.access(where, os.W_OK) and (where / "cgroup.procs").exists():
                return where
    return None


UNIFIED = _unified()
pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or UNIFIED is None,
    reason="needs root and a cgroup2 hierarchy (CI: the hybrid one at /sys/fs/cgroup/unified)",
)


def test_a_v2_group_joins_freezes_counts_and_kills(monkeypatch: pytest.MonkeyPatch) -> None:
    assert UNIFIED is not None
    monkeypatch.setattr(cgroups, "ROOT", UNIFIED)
    g = cgroups.Group("v2", frozenset({"freezer", "cpuacct"}), "V")
    (folder,) = set(g.dirs.values())
    assert folder.parent == UNIFIED and folder.name.startswith(f"bidref-{os.getpid()}-V-")
    # v2 has one way in: cgroup.procs (a child writes "0" before exec)
    assert g.join_fn() == (str(folder / "cgroup.procs"),)
    files = g.join_fn()
    burn = (
        "import os, time\n"
        "if os.fork() == 0:\n"  # a grandchild: it must go with the group too
        "    os.setsid()\n"
        "end = time.monotonic() + 20\n"
        "while time.monotonic() < end: pass\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", burn],
        preexec_fn=lambda: [Path(f).write_text("0") for f in files] and None,
    )
    try:
        deadline = time.monotonic() + 30  # (generous: a loaded machine starts slowly)
        while len(g.pids()) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        pids = g.pids()
        assert proc.pid in pids and len(pids) == 2
        assert_freezes_and_thaws(g)
    finally:
        g.remove()
        proc.wait(timeout=5)
    assert proc.returncode == -signal.SIGKILL
    assert not folder.exists()
    for pid in pids:  # the grandchild (its own session) went with the group
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text()


def test_a_dead_referees_v2_groups_are_swept(monkeypatch: pytest.MonkeyPatch) -> None:
    assert UNIFIED is not None
    monkeypatch.setattr(cgroups, "ROOT", UNIFIED)
    # a pid that is certainly gone: a child that has exited and been reaped
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = UNIFIED / f"bidref-{gone.pid}-A-1"
    stale.mkdir()
    try:
        assert cgroups.sweep_stale("v2", frozenset({"freezer"})) >= 1
        assert not stale.exists()
    finally:
        if stale.exists():
            stale.rmdir()


def test_a_v2_group_gets_only_the_controllers_the_kernel_enables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The hybrid hierarchy has no controllers at all: asked for every one, the
    # probe and a group get only v2's own freezer and CPU time (a jail then
    # limits memory by rlimit, and says so), never a controller that is not on.
    assert UNIFIED is not None
    monkeypatch.setattr(cgroups, "ROOT", UNIFIED)
    on = set((UNIFIED / "cgroup.controllers").read_text().split())
    version, names = cgroups.probe()
    assert version == "v2"
    assert names == {"freezer", "cpuacct"} | ({"memory", "pids", "cpuset", "cpu"} & on)
    g = cgroups.Group("v2", frozenset({"memory", "pids", "cpu", "freezer", "cpuacct"}), "W")
    try:
        assert set(g.dirs) == {"freezer", "cpuacct"} | ({"memory", "pids", "cpu"} & on)
    finally:
        g.remove()
    assert not list(UNIFIED.glob(f"bidref-probe-{os.getpid()}"))
