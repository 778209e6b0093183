#!/usr/bin/env python3
"""An engine that tells, on its stderr, what its jail lets it see and do, then
plays its first legal action (on bidref.sdk, which a jail keeps readable).

At the hello it writes one line ``SPY {json}``: its pid (small inside a PID
namespace: bubblewrap's init is 1) and uid; whether the paths of the option
``peek`` (comma-separated: the opponent's folder, the tournament's folder)
exist for it; whether it could write a file in its own folder (named after the
option ``write`` and its uid; not tried without it).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from bidref.sdk import Engine, run


def probe(options: dict[str, Any]) -> dict[str, object]:
    peek = str(options.get("peek", ""))
    seen = {p: os.path.exists(p) for p in peek.split(",") if p}
    found: dict[str, object] = {"pid": os.getpid(), "uid": os.getuid(), "sees": seen, "wrote": None}
    name = options.get("write")
    if isinstance(name, str):
        # one file per account: the two seats' own accounts (uid 61400, 61401)
        # cannot overwrite each other's (the referee's umask 077)
        target = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.{os.getuid()}")
        try:
            with open(target, "w", encoding="utf-8") as f:
                f.write("written from inside\n")
            found["wrote"] = "ok"
        except OSError as e:
            found["wrote"] = f"{type(e).__name__}: {e.strerror}"
    return found


class Spy(Engine):
    name = "spy"

    def on_hello(self, hello: dict[str, Any]) -> None:
        print("SPY " + json.dumps(probe(hello.get("options", {}))), file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(run(Spy()))
