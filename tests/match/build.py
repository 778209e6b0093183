"""A shared fixture: the compiled sample engine, built on demand (imported by conftests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sample_build import build_c_engines

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def c_first() -> Path:
    """The compiled first-legal C engine; runs `make -C sample_engines` if needed."""
    exe = ROOT / "sample_engines" / "c_first" / "engine"
    src = exe.with_name("engine.c")
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        build_c_engines()
    return exe
