"""Build the benchmarks' C programs (clock_engine, floor, replay) with the system C compiler."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def build(name: str) -> Path:
    """``benchmarks/engines/<name>.c`` compiled next to it (rebuilt when older)."""
    src = HERE / f"{name}.c"
    out = HERE / name
    if not out.exists() or out.stat().st_mtime < src.stat().st_mtime:
        cc = os.environ.get("CC", "cc")
        subprocess.run(
            [cc, "-O2", "-Wall", "-Wextra", "-std=c11", "-o", str(out), str(src)], check=True
        )
    return out
