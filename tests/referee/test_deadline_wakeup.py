"""The referee's thread wakes for a deadline to the microsecond: no timer slack
rounds its waits (Linux adds up to 50 us by default)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bidref.engines.io import TIMER_SLACK_NS

SLACK = Path("/proc/self/timerslack_ns")  # (the main thread's)


@pytest.mark.skipif(not SLACK.exists(), reason="no /proc/<pid>/timerslack_ns (Linux >= 4.6)")
def test_the_thread_that_makes_a_match_io_group_gets_a_one_microsecond_timer_slack() -> None:
    # Timer slack is per thread and inherited: look in a fresh process's main
    # thread, given the kernel's usual 50 us first.
    code = (
        "import ctypes; from pathlib import Path; from bidref.engines.io import IoGroup\n"
        "ctypes.CDLL(None).prctl(29, 50000, 0, 0, 0)\n"
        "p = Path('/proc/self/timerslack_ns')\n"
        "before = p.read_text().strip(); IoGroup(); print(before, p.read_text().strip())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.split()
    assert out[1] == str(TIMER_SLACK_NS)
    assert out[0] == "50000"  # (it was not so before: the group set it)
