#!/usr/bin/env python3
"""Benchmark engine (benchmarks/sandbox_overhead.py): a fixed amount of CPU work
per decision, written to stderr as ``WORK <start_ns> <end_ns> <cpu_ns>``
(CLOCK_MONOTONIC at its start and end, and the CPU time this thread spent on
it); plays the first legal action (first_legal_loop.py). Standard library only."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (run as a script, the engine imports its sibling by its own folder)
    from benchmarks.engines.first_legal_loop import play_first_legal
else:
    from first_legal_loop import play_first_legal

WORK = 60_000  # loop turns per decision: about 2-4 ms of one core


def work(request: dict[str, Any]) -> None:
    cpu = time.thread_time_ns()
    t = time.monotonic_ns()
    x = 0
    for i in range(WORK):
        x ^= i * i
    end = time.monotonic_ns()
    sys.stderr.write(f"WORK {t} {end} {time.thread_time_ns() - cpu}\n")


def main() -> None:
    play_first_legal("cpu_victim", on_request=work)


if __name__ == "__main__":
    main()
