"""A shared fixture: the compiled sample engine, built on demand (imported by conftests)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def c_first() -> Path:
    """The compiled first-legal C engine; runs `make -C sample_engines` if needed."""
    exe = ROOT / "sample_engines" / "c_first" / "engine"
    src = exe.with_name("engine.c")
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        subprocess.run(["make", "-C", str(ROOT / "sample_engines")], check=True,
                       capture_output=True)
    return exe
