#!/usr/bin/env python3
"""A random engine for protocol bidref/1: answers each request with a random legal action.

Standalone (standard library only). Seeded by the option ``seed`` (engine file)
or the environment variable ``BIDREF_RANDOM_SEED``; otherwise by the seat.
"""

from __future__ import annotations

import json
import os
import random
import sys


def main() -> None:
    rng = random.Random()
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            seed = msg.get("options", {}).get("seed", os.environ.get("BIDREF_RANDOM_SEED"))
            rng.seed(int(seed) if seed is not None else 1000 + int(msg["seat"]))
            reply = {"type": "hello", "name": "python_random", "author": "bidref samples",
                     "version": "1", "protocol": "bidref/1"}
        elif kind == "request":
            reply = {"type": "action", "id": msg["id"], "action": rng.choice(msg["legal"])}
        elif kind == "ping":
            reply = {"type": "pong", "id": msg["id"]}
        elif kind == "quit":
            return
        else:
            continue
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
