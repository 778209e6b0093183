#!/usr/bin/env python3
"""Benchmark engine (benchmarks/sandbox_overhead.py): a fixed amount of CPU work
per decision, written to stderr as ``WORK <start_ns> <end_ns> <cpu_ns>``
(CLOCK_MONOTONIC at its start and end, and the CPU time this thread spent on
it); plays the first legal action. Standard library only."""

from __future__ import annotations

import json
import sys
import time

WORK = 60_000  # loop turns per decision: about 2-4 ms of one core


def main() -> None:
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("type") == "hello":
            reply = {"type": "hello", "name": "cpu_victim", "protocol": "bidref/1"}
        elif msg.get("type") == "request":
            cpu = time.thread_time_ns()
            t = time.monotonic_ns()
            x = 0
            for i in range(WORK):
                x ^= i * i
            end = time.monotonic_ns()
            sys.stderr.write(f"WORK {t} {end} {time.thread_time_ns() - cpu}\n")
            reply = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
        elif msg.get("type") == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
