#!/usr/bin/env python3
"""Benchmark engine (benchmarks/sandbox_overhead.py): a fixed amount of CPU work
per decision, its wall time written to stderr as ``WORK <ns>``; plays the first
legal action. Standard library only."""

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
            t = time.monotonic_ns()
            x = 0
            for i in range(WORK):
                x ^= i * i
            sys.stderr.write(f"WORK {time.monotonic_ns() - t}\n")
            reply = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
        elif msg.get("type") == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
