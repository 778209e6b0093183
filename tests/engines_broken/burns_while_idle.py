#!/usr/bin/env python3
"""An engine that burns CPU all the time: while it waits for a request it spins
(polling stdin without blocking), and it thinks THINK_MS of CPU time before each
answer (the first legal action). Standalone (standard library only); for the
--freeze-idle tests. Not a test module. Bounded: it exits when stdin closes, and
after MAX_S seconds in all."""

from __future__ import annotations

import json
import os
import select
import sys
import time

THINK_S = float(os.environ.get("BURN_THINK_MS", "40")) / 1000
MAX_S = 120.0


def main() -> None:
    fd = sys.stdin.fileno()
    os.set_blocking(fd, False)
    buf = b""
    born = time.monotonic()
    spins = 0
    while time.monotonic() - born < MAX_S:
        ready, _, _ = select.select([fd], [], [], 0)  # never waits: spin
        if not ready:
            spins += 1
            continue
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            continue
        if not data:
            return
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            kind = msg.get("type")
            if kind == "hello":
                reply = {
                    "type": "hello",
                    "name": "burner",
                    "author": "tests",
                    "version": "1",
                    "protocol": "bidref/1",
                }
            elif kind == "request":
                t = time.process_time()
                while time.process_time() - t < THINK_S:
                    pass
                reply = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
            elif kind == "ping":
                reply = {"type": "pong", "id": msg["id"]}
            elif kind == "quit":
                return
            else:
                continue
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def setsid_burner() -> None:
    """With BURN_SETSID=1: a child in a session of its own spins too (outside the
    engine's process group), until its parent is gone or MAX_S."""
    parent = os.getpid()
    if os.fork() == 0:
        os.setsid()
        born = time.monotonic()
        while os.getppid() == parent and time.monotonic() - born < MAX_S:
            pass
        os._exit(0)


if __name__ == "__main__":
    if os.environ.get("BURN_SETSID") == "1":
        setsid_burner()
    main()
