#!/usr/bin/env python3
"""A test engine that thinks a while (``BIDREF_SLOW_MS``, default 40 ms) before each
decision, then plays the minimal engine's move: a match lasts long enough to be
watched while it runs."""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bidref from this checkout
from bidref.rules import Play
from bidref.sdk import Request, run

SLOW_S = float(os.environ.get("BIDREF_SLOW_MS", "40")) / 1000


def choose(req: Request) -> str:
    time.sleep(SLOW_S)
    plays = [a for a in req.legal if isinstance(a, Play)]
    if plays:
        return str(max(plays, key=req.points_of))
    return str(req.legal[0])


if __name__ == "__main__":
    sys.exit(run(choose, name="slow", author="bidref tests"))
