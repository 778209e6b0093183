#!/usr/bin/env python3
"""The smallest useful engine on the bidref SDK: score now if it can."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bidref from this checkout
from bidref.rules import Play
from bidref.sdk import Request, run


def choose(req: Request) -> str:
    plays = [a for a in req.legal if isinstance(a, Play)]
    if plays:  # the play that earns the most points now
        return str(max(plays, key=req.points_of))
    return str(req.legal[0])  # decline / accept / open / draw


if __name__ == "__main__":
    sys.exit(run(choose, name="python_sdk_minimal", author="bidref"))
