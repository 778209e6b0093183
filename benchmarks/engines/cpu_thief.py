#!/usr/bin/env python3
"""Benchmark engine (benchmarks/sandbox_overhead.py): plays the first legal
action at once, and from its hello on keeps 4 busy processes, each in its own
session (the issue's CPU theft). It switches them on and off (SIGCONT,
SIGSTOP) every 20-60 ms at random and writes each switch to stderr as
``THIEF ON <ns>`` / ``THIEF OFF <ns>`` (CLOCK_MONOTONIC, which the jail does
not change), so that the victim's decisions with and without theft come from
the same matches, interleaved (the machine's speed drifts: a VM's core runs at
one of two speeds for seconds at a time). Bounded: each burner stops after 60 s
or as soon as the engine is gone, and the engine kills them when it quits."""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (run as a script, the engine imports its sibling by its own folder)
    from benchmarks.engines.first_legal_loop import play_first_legal
else:
    from first_legal_loop import play_first_legal


def burn(parent: int) -> None:
    os.setsid()
    end = time.monotonic() + 60
    while time.monotonic() < end and os.getppid() == parent:
        for _ in range(20_000):
            pass
    os._exit(0)


def switcher(burners: list[int], done: threading.Event) -> None:
    on = True
    rng = random.Random(os.getpid())
    while not done.wait(rng.uniform(0.020, 0.060)):
        on = not on
        for pid in burners:
            os.kill(pid, signal.SIGCONT if on else signal.SIGSTOP)
        sys.stderr.write(f"THIEF {'ON' if on else 'OFF'} {time.monotonic_ns()}\n")
        sys.stderr.flush()


def main() -> None:
    me = os.getpid()
    burners: list[int] = []
    done = threading.Event()

    def start_burners(hello: dict[str, Any]) -> None:
        for _ in range(4):
            pid = os.fork()
            if pid == 0:
                burn(me)
            burners.append(pid)
        sys.stderr.write(f"THIEF ON {time.monotonic_ns()}\n")
        threading.Thread(target=switcher, args=(burners, done), daemon=True).start()

    try:
        play_first_legal("cpu_thief", on_hello=start_burners)
    finally:
        done.set()
        for pid in burners:
            os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
