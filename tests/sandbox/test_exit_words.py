"""How a jailed engine's end is said: bubblewrap, the jail's process, reports
its child's death by signal n as exit code 128 + n; the referee says which
signal that stands for (a segfaulting engine is "killed by SIGSEGV" jailed or
not)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from bidref.engines import start_engine
from bidref.engines.spec import resolve_engine
from bidref.engines.transport import ExitInfo
from bidref.sandbox import SandboxConfig

from .conftest import root_with_jail


def test_a_jails_exit_code_names_the_signal_it_stands_for() -> None:
    assert ExitInfo(139, None, "exited", jailed=True).describe() == (
        "exit code 139: killed by SIGSEGV"
    )
    assert ExitInfo(139, None, "exited").describe() == "exit code 139"  # unjailed: its own
    assert ExitInfo(1, None, "exited", jailed=True).describe() == "exit code 1"
    assert ExitInfo(200, None, "exited", jailed=True).describe() == "exit code 200"  # no signal 72
    assert ExitInfo(None, "SIGKILL", "sigkill", jailed=True).describe() == "killed by SIGKILL"


@pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))
@pytest.mark.parametrize("transport", ["pipe", "pty"])
def test_a_segfault_in_a_jail_is_said_as_one(transport: str) -> None:
    top = Path(tempfile.mkdtemp(prefix="bidref-segv-"))
    try:
        top.chmod(0o755)
        script = top / "segv.py"
        script.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
        spec = replace(resolve_engine(f"{sys.executable} {script}"), sandbox=SandboxConfig("auto"))
        t = start_engine(spec, transport)
        try:
            info = t.wait_exit(20_000_000_000)
            assert info is not None
            assert info.describe() == "exit code 139: killed by SIGSEGV"
        finally:
            t.close(None, 500_000_000)
    finally:
        shutil.rmtree(top, ignore_errors=True)
