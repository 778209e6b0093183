"""A player's view: exactly what that player may know, and nothing hidden.

RULES.md §2 keeps hands hidden from the opponent; the boneyard is hidden from
both. A view holds the player's own hand, the layout, the sizes of the
opponent's hand and the boneyard, balances, the auction, whose turn it is,
the clocks if given, and the legal actions when it is the player's turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action
from .clock import MILLISECOND, MatchClock
from .layout import Point
from .match import Match
from .tiles import Tile


@dataclass(frozen=True, slots=True)
class LayoutView:
    placed: tuple[Tile, ...]
    connections: tuple[tuple[Point, Point], ...]
    attachment_points: tuple[Point, ...]
    scoring: tuple[tuple[Tile, int], ...]
    count: int
    spinner: Tile | None

    def to_dict(self) -> dict[str, object]:
        def pt(p: Point) -> dict[str, object]:
            return {"tile": p.tile.as_list(), "side": p.side.label}

        return {
            "placed": [t.as_list() for t in self.placed],
            "connections": [[pt(a), pt(b)] for a, b in self.connections],
            "attachment_points": [{**pt(p), "value": p.value} for p in self.attachment_points],
            "scoring": [{"tile": t.as_list(), "value": v} for t, v in self.scoring],
            "count": self.count,
            "spinner": None if self.spinner is None else self.spinner.as_list(),
        }


@dataclass(frozen=True, slots=True)
class PlayerView:
    player: int
    round: int
    phase: str
    to_act: int | None
    turn: int
    hand: tuple[Tile, ...]
    opponent_hand_size: int
    boneyard_size: int
    layout: LayoutView
    balances: tuple[int, int]
    jockey: int | None
    opening: str  # "forced" or "auction"
    standing_bid: int | None
    bidder: int | None
    drawn_this_turn: int
    legal_actions: tuple[Action, ...]
    clock: MatchClock | None = None

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {
            "player": self.player,
            "round": self.round,
            "phase": self.phase,
            "to_act": self.to_act,
            "turn": self.turn,
            "hand": [t.as_list() for t in self.hand],
            "opponent_hand_size": self.opponent_hand_size,
            "boneyard_size": self.boneyard_size,
            "layout": self.layout.to_dict(),
            "balances": list(self.balances),
            "jockey": self.jockey,
            "opening": self.opening,
            "auction": {"standing_bid": self.standing_bid, "bidder": self.bidder},
            "drawn_this_turn": self.drawn_this_turn,
            "legal_actions": [str(a) for a in self.legal_actions],
        }
        if self.clock is not None:
            c = self.clock
            d["clock"] = {
                "bank_ms": [b // MILLISECOND for b in c.banks],
                "delay_ms": c.control.delay // MILLISECOND,
                "delay_left_ms": (c.delay_left // MILLISECOND) if c.player == self.player else None,
            }
        return d


def layout_view(match: Match) -> LayoutView:
    lay = match.layout
    return LayoutView(
        tuple(lay.placed),
        tuple(lay.connections),
        tuple(lay.open_points),
        tuple(lay.scoring()),
        lay.count(),
        lay.spinner,
    )


def player_view(match: Match, player: int, clock: MatchClock | None = None) -> PlayerView:
    """What ``player`` may know of ``match`` now."""
    over = match.over
    mine = not over and match.to_act == player
    return PlayerView(
        player=player,
        round=match.round_number,
        phase=match.phase.value,
        to_act=None if over else match.to_act,
        turn=match.turn,
        hand=tuple(match.hands[player]),
        opponent_hand_size=len(match.hands[1 - player]),
        boneyard_size=len(match.boneyard),
        layout=layout_view(match),
        balances=(match.balances[0], match.balances[1]),
        jockey=match.jockey,
        opening="forced" if match.jockey is None else "auction",
        standing_bid=match.bid,
        bidder=match.bidder,
        drawn_this_turn=match.drawn_this_turn if mine else 0,
        legal_actions=tuple(match.legal_actions()) if mine else (),
        clock=clock,
    )
