"""Build the compiled sample engines once at a time across pytest-xdist workers."""

from __future__ import annotations

import fcntl
import hashlib
import subprocess
import tempfile
from pathlib import Path

SE = Path(__file__).resolve().parents[1] / "sample_engines"


def build_c_engines() -> None:
    """`make -C sample_engines` under a file lock, so that two workers never link the
    same binary at once (or run it while the other one writes it)."""
    tag = hashlib.sha256(str(SE).encode()).hexdigest()[:12]
    lock = Path(tempfile.gettempdir()) / f"bidref-sample-engines-{tag}.lock"
    with lock.open("w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        subprocess.run(["make", "-s", "-C", str(SE)], check=True)
