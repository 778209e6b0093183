#!/usr/bin/env python3
"""The victim engine (tests/sandbox): plays the first legal action. Its command
line holds ``victim.py``, which the hostile engine looks for in /proc."""

from __future__ import annotations

import json
import sys


def main() -> None:
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("type") == "hello":
            reply = {"type": "hello", "name": "victim", "protocol": "bidref/1"}
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
