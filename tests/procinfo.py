"""What /proc says of a process, for tests that watch engine processes."""

from __future__ import annotations

import os


def state(pid: int) -> str:
    """The state letter of ``pid`` (R, S, T stopped, Z zombie, ...), "gone" if none."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return "gone"


def alive(pid: int) -> bool:
    return state(pid) not in ("Z", "gone")


def children(pid: int) -> list[int]:
    """The children of every thread of ``pid``."""
    out: list[int] = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            out += [int(c) for c in f.read().split()]
    return out
