"""The bidref/1 loop the benchmark engines beside it share: say hello, play the
first legal action of every request, stop at ``quit`` or the end of stdin.
Standard library only, and imported from the engine's own folder (the only one
its jail shows), so an engine here runs without bidref. Not an engine itself."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Hook = Callable[[dict[str, Any]], None]


def play_first_legal(
    name: str, on_hello: Hook | None = None, on_request: Hook | None = None
) -> None:
    """Answer the referee on stdin and stdout as engine ``name``; ``on_hello`` and
    ``on_request`` run on their message before the reply is written (the work a
    benchmark measures, or the mischief it makes)."""
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            if on_hello is not None:
                on_hello(msg)
            reply = {"type": "hello", "name": name, "protocol": "bidref/1"}
        elif kind == "request":
            if on_request is not None:
                on_request(msg)
            reply = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
        elif kind == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
