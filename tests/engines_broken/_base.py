"""A small correct bidref/1 engine (standard library only) that the broken
engines beside it bend in one way each. Not a test module."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import IO, Any

Hook = Callable[[dict[str, Any]], Any]


def play(
    *,
    name: str = "broken",
    protocol: str | None = "bidref/1",
    out: IO[str] | None = None,
    flush: bool = True,
    id_offset: int = 0,
    action: Hook | None = None,
    on_request: Hook | None = None,
    exit_on_quit: bool = True,
    stdout_noise: bool = False,
    id_as_text: bool = False,
    answer_errors: bool = True,
) -> None:
    out = out or sys.stdout
    pending: dict[str, Any] | None = None
    last = ""

    def send(obj: dict[str, Any]) -> None:
        out.write(json.dumps(obj) + "\n")
        if flush:
            out.flush()

    def answer(req: dict[str, Any], avoid: str = "") -> None:
        nonlocal last
        choice = (
            action(req)
            if action
            else next((a for a in req["legal"] if a != avoid), req["legal"][0])
        )
        last = choice
        if stdout_noise:
            out.write(f"thinking about {choice}...\n")
        rid = req["id"] + id_offset
        send({"type": "action", "id": str(rid) if id_as_text else rid, "action": choice})

    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            send({"type": "hello", "name": name, "protocol": protocol})
        elif kind == "ping":
            send({"type": "pong", "id": msg["id"]})
        elif kind == "request":
            pending = msg
            if on_request:
                on_request(msg)
            answer(msg)
        elif kind == "error" and msg["code"] == "illegal" and pending is not None and answer_errors:
            answer(pending, avoid=last)
        elif kind == "quit":
            if exit_on_quit:
                return
            while True:  # ignore it: run until killed
                time.sleep(1)
