#!/usr/bin/env python3
"""A greedy engine for protocol bidref/1: takes the most points now, bids sensibly.

- Play: the legal play that scores the most at once (the count after it, if a
  multiple of 5); ties go to the heaviest tile (fewer pips left in hand).
- Opening: the tile that scores most, else the heaviest.
- Auction: bids only with a strong hand (many points of tiles it can open
  with), never more than it can comfortably pay and never its whole balance;
  otherwise declines or accepts.

Uses the rules library (``bidref.rules``) to evaluate plays; run it with the
Python that has bidref installed (the referee runs ``.py`` engines that way).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

try:
    import bidref.rules  # noqa: F401  (installed?)
except ImportError:  # running from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bidref.rules import (
    Draw,
    Layout,
    Open,
    Play,
    Tile,
    action_points,
    parse_action,
    parse_point,
    tile,
)

View = dict[str, Any]


def _tile(pair: list[int]) -> Tile:
    return tile(pair[0], pair[1])


def _point_text(p: View) -> str:
    return f"{p['tile'][0]}-{p['tile'][1]}:{p['side']}"


def layout_from_view(view: View) -> Layout:
    """Rebuild the layout: the opening tile, then each connection (old point, new tile)."""
    lay = Layout()
    placed = view["layout"]["placed"]
    if not placed:
        return lay
    lay.open_tile(_tile(placed[0]))
    for at, joined in view["layout"]["connections"]:
        lay.place(_tile(joined["tile"]), parse_point(_point_text(at)))
    return lay


def score_after(view: View, action_text: str) -> int:
    """The points the action scores at once (-1 for a non-placing action): the
    rules' own scoring (``bidref.rules.action_points``)."""
    action = parse_action(action_text)
    if not isinstance(action, Open | Play):
        return -1
    return action_points(layout_from_view(view), action)


def weight(action_text: str) -> int:
    a = parse_action(action_text)
    if isinstance(a, Open | Play):
        return a.tile.low + a.tile.high
    return -1


def choose(msg: View) -> str:
    view: View = msg["view"]
    legal: list[str] = msg["legal"]
    if len(legal) == 1:
        return str(legal[0])
    if view["phase"] == "auction":
        hand = [_tile(p) for p in view["hand"]]
        strength = sum(5 for t in hand if (t.low + t.high) % 5 == 0) + sum(
            1 for t in hand if t.low == t.high
        )
        me = view["player"]
        credit = 15 if view["jockey"] == me else 0  # the jockey's own bid costs 15 less
        # Never a bid that would cost the whole balance: accepted, it loses the match.
        bids = [
            a
            for a in legal
            if a.startswith("bid ") and max(0, int(a.split()[1]) - credit) < view["balances"][me]
        ]
        base = "accept" if "accept" in legal else "decline"
        if strength >= 11 and bids:
            cheapest = min(bids, key=lambda a: int(a.split()[1]))
            if int(cheapest.split()[1]) <= 25:
                return cheapest
        return base
    if all(isinstance(parse_action(a), Draw) for a in legal):
        return str(legal[0])
    return max(legal, key=lambda a: (score_after(view, a), weight(a), a))


def main() -> None:
    out = sys.stdout
    pending: tuple[int, dict[str, Any]] | None = None  # the request waiting for an answer
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {
                "type": "hello",
                "name": "python_greedy",
                "author": "bidref samples",
                "version": "1",
                "protocol": "bidref/1",
            }
        elif kind == "request":
            pending = (msg["id"], msg)
            reply = {"type": "action", "id": msg["id"], "action": choose(msg)}
        elif kind == "error" and pending is not None and msg.get("id") == pending[0]:
            # The referee refused our action and the same request stays pending:
            # choose again among the legal actions not yet tried.
            request = pending[1]
            if msg.get("code") not in ("illegal", "bad_action") or len(request["legal"]) < 2:
                continue
            request["legal"] = [a for a in request["legal"] if a != request.get("_sent")]
            reply = {"type": "action", "id": pending[0], "action": choose(request)}
        elif kind == "ping":
            reply = {"type": "pong", "id": msg["id"]}
        elif kind == "quit":
            return
        else:
            continue
        if reply["type"] == "action" and pending is not None:
            pending[1]["_sent"] = reply["action"]
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
