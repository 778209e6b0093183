#!/usr/bin/env python3
"""A random engine for protocol bidref/1: answers each request with a random legal action.

After an error reply (its action refused) it answers the still-pending request
again with another legal action.

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
    pending: tuple[int, list[str]] | None = None  # the request waiting, and actions not yet tried
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            seed = msg.get("options", {}).get("seed", os.environ.get("BIDREF_RANDOM_SEED"))
            rng.seed(int(seed) if seed is not None else 1000 + int(msg["seat"]))
            reply = {
                "type": "hello",
                "name": "python_random",
                "author": "bidref samples",
                "version": "1",
                "protocol": "bidref/1",
            }
        elif kind == "request":
            pending = (msg["id"], list(msg["legal"]))
            reply = {"type": "action", "id": msg["id"], "action": rng.choice(msg["legal"])}
            pending[1].remove(reply["action"])
        elif kind == "error" and pending is not None and msg.get("id") == pending[0]:
            # The referee refused our action; the same request stays pending.
            if msg.get("code") not in ("illegal", "bad_action"):
                continue
            if not pending[1]:
                continue  # every legal action was refused: nothing else to offer
            reply = {"type": "action", "id": pending[0], "action": rng.choice(pending[1])}
            pending[1].remove(reply["action"])
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
