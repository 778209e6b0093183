"""``loopback.children`` reads the process table through ``bidref.engines.procfs``
(the one ``/proc/PID/stat`` parse), and finds a real child, only its own."""

from __future__ import annotations

import os
import subprocess
import sys

from bidref.tournament.loopback import children

# the child names itself (prctl PR_SET_NAME, 15) with spaces and ")", then waits
_RENAMED = """
import ctypes, sys
ctypes.CDLL(None).prctl(15, b"x) 1 2 (y", 0, 0, 0)
print("renamed", flush=True)
sys.stdin.read()
"""


def test_children_are_the_processes_whose_parent_is_the_pid() -> None:
    # a child whose command name holds a space and a ")": the parse splits after the last one
    child = subprocess.Popen(
        [sys.executable, "-c", _RENAMED],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == b"renamed\n"
        with open(f"/proc/{child.pid}/stat", "rb") as f:
            assert b"(x) 1 2 (y)" in f.read()  # the name a naive split would misread
        assert child.pid in children(os.getpid())
        assert children(child.pid) == []
    finally:
        assert child.stdin is not None
        child.stdin.close()  # it reads to the end, then exits
        child.wait(timeout=30)
    assert child.pid not in children(os.getpid())
