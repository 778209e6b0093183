#!/usr/bin/env python3
"""Benchmark engine (benchmarks/sandbox_overhead.py): plays the first legal
action at once, and from its hello on keeps 4 busy processes running, each in
its own session (the issue's CPU theft). Bounded: each burner stops after 30 s
or as soon as the engine is gone."""

from __future__ import annotations

import json
import os
import sys
import time


def burn(parent: int) -> None:
    os.setsid()
    end = time.monotonic() + 30
    while time.monotonic() < end and os.getppid() == parent:
        for _ in range(20_000):
            pass
    os._exit(0)


def main() -> None:
    me = os.getpid()
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("type") == "hello":
            for _ in range(4):
                if os.fork() == 0:
                    burn(me)
            reply = {"type": "hello", "name": "cpu_thief", "protocol": "bidref/1"}
        elif msg.get("type") == "request":
            reply = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
        elif msg.get("type") == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
