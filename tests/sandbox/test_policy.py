"""The jail's pure parts: settings, engine keys, the bubblewrap command line,
what a level needs; and one real cgroup (freeze, thaw, CPU time, removal)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bidref.engines.spec import EngineSpecError, load_engine_file, parse_engine_args
from bidref.sandbox import cgroups
from bidref.sandbox.policy import (
    GIB,
    Limits,
    Machine,
    SandboxConfig,
    SandboxError,
    parse_size,
    plan,
    seat_cores,
)

from .conftest import assert_freezes_and_thaws


def test_sizes_and_levels_are_checked_with_the_fix() -> None:
    assert parse_size("1G", "--memory") == GIB
    assert parse_size("512M", "--memory") == 512 << 20
    with pytest.raises(SandboxError, match=r"--memory '3X': give a size such as 512M"):
        parse_size("3X", "--memory")
    with pytest.raises(EngineSpecError, match=r"use auto .* strict .* or off"):
        parse_engine_args("cmd=./e sandbox=hard")


def test_engine_keys_and_files_take_a_level_and_a_writable_folder(tmp_path: Path) -> None:
    a = parse_engine_args("cmd=./e sandbox=strict dir_writable=yes")
    assert (a.sandbox_level, a.dir_writable) == ("strict", True)
    f = tmp_path / "bot.toml"
    f.write_text('command = ["./e"]\nsandbox = "strict"\ndir_writable = false\n')
    spec = load_engine_file(f)
    assert (spec.sandbox_level, spec.dir_writable) == ("strict", False)
    # the stricter level wins: the command's off does not lower the engine's strict
    assert spec.jail_config() is not None and spec.jail_config().level == "strict"  # type: ignore[union-attr]
    off = SandboxConfig(level="off")
    assert off.stricter("strict").level == "strict" and off.stricter(None).level == "off"


def test_strict_names_what_is_missing() -> None:
    bare = Machine(True, False, "/usr/bin/bwrap", None, None, frozenset(), (0, 1))
    with pytest.raises(SandboxError) as e:
        plan(SandboxConfig(level="strict"), bare)
    assert "account (needs the referee running as root" in str(e.value)
    assert "cgroups (needs writable memory and pids" in str(e.value)
    got = plan(SandboxConfig(level="auto"), bare)
    assert got.active == ("namespaces", "seccomp") and "cgroups" in got.missing
    line = got.describe(SandboxConfig(limits=Limits()))
    assert line.startswith("sandbox: namespaces+seccomp; memory 1024M, 64 procs")
    # a limit no mechanism here enforces is said, never dropped quietly
    assert line.endswith("; NOT enforced: processes")


def test_each_seat_its_own_cores_the_referee_the_rest() -> None:
    assert seat_cores(1, 0, (0, 1)) == (1,) and seat_cores(1, 1, (0, 1)) == (0,)
    assert seat_cores(2, 0, tuple(range(8))) == (6, 7)
    assert seat_cores(2, 1, tuple(range(8))) == (4, 5)


needs_cgroups = pytest.mark.skipif(
    os.geteuid() != 0 or cgroups.probe()[0] is None, reason="needs root and writable cgroups"
)


@needs_cgroups
def test_a_group_freezes_thaws_counts_cpu_and_goes() -> None:
    version, controllers = cgroups.probe()
    assert version is not None and {"freezer", "cpuacct", "pids"} <= controllers
    g = cgroups.Group(version, controllers - {"cpuset"}, "T")
    files = g.join_fn()
    burn = "import time\nend = time.monotonic() + 20\nwhile time.monotonic() < end: pass\n"
    proc = subprocess.Popen(
        [sys.executable, "-c", burn],
        preexec_fn=lambda: [Path(f).write_text("0") for f in files] and None,
    )
    try:
        time.sleep(0.3)
        assert proc.pid in g.pids()
        assert_freezes_and_thaws(g)
    finally:
        g.remove()
        proc.wait(timeout=5)
    assert proc.returncode == -signal.SIGKILL
    assert g.dirs == {}
