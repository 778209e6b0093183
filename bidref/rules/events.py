"""What happens in a match, as values the referee can log and forward.

Events are plain slotted dataclasses rather than frozen ones because they are
created on every action of every playout (frozen dataclasses cost four times
as much to build); treat them as immutable. Each spells out its ``__init__``
(``init=False``): the compiled build (docs/perf.md) compiles a written one, but
runs the one ``dataclass`` generates as interpreted code. ``kind`` is a property
rather than a class attribute for the same build, which would make it a field.

``Match.apply`` returns the events an action caused, in order. Events that
hold hidden information (a deal, a drawn tile) say so with ``private_to`` and
give a public form via :meth:`public`, so the referee can tell each player
exactly what that player may know.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from .deal import Deal
from .layout import Point
from .tiles import Tile

Player = int  # 0 or 1
# How the rules end a game. The referee ends matches for more reasons (time, crash,
# ...): those, with these two, are bidref.outcome.EndReason.
MatchEndKind = Literal["balance", "round_limit"]
RoundEndReason = Literal["domino", "block", "match_over"]
TransferReason = Literal["count", "auction", "block"]


def _tile(t: Tile | None) -> list[int] | None:
    return None if t is None else t.as_list()


def _point(p: Point | None) -> dict[str, object] | None:
    return None if p is None else {"tile": p.tile.as_list(), "side": p.side.label}


@dataclass(slots=True, init=False)
class RoundStarted:
    round: int
    opening: Literal["forced", "auction"]
    jockey: Player | None
    deal: Deal
    private_to: Literal["referee"] = "referee"

    @property
    def kind(self) -> str:
        return "round_started"

    def __init__(
        self,
        round: int,
        opening: Literal["forced", "auction"],
        jockey: Player | None,
        deal: Deal,
        private_to: Literal["referee"] = "referee",
    ) -> None:
        self.round = round
        self.opening = opening
        self.jockey = jockey
        self.deal = deal
        self.private_to = private_to

    def public(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "round": self.round,
            "opening": self.opening,
            "jockey": self.jockey,
        }

    def to_dict(self) -> dict[str, object]:
        return {**self.public(), "deal": self.deal.to_dict()}


@dataclass(slots=True, init=False)
class AuctionMove:
    player: Player
    action: str  # canonical notation: decline, accept or bid N

    @property
    def kind(self) -> str:
        return "auction"

    def __init__(self, player: Player, action: str) -> None:
        self.player = player
        self.action = action

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "player": self.player, "action": self.action}


@dataclass(slots=True, init=False)
class Placed:
    player: Player
    tile: Tile
    at: Point | None  # None for the opening tile
    count: int
    points: int  # earned before the cap at the payer's balance

    @property
    def kind(self) -> str:
        return "placed"

    def __init__(
        self, player: Player, tile: Tile, at: Point | None, count: int, points: int
    ) -> None:
        self.player = player
        self.tile = tile
        self.at = at
        self.count = count
        self.points = points

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "player": self.player,
            "tile": _tile(self.tile),
            "at": _point(self.at),
            "action": self.action_text(),
            "count": self.count,
            "points": self.points,
        }

    def action_text(self) -> str:
        if self.at is None:
            return f"open {self.tile}"
        return f"play {self.tile} {self.at}"


@dataclass(slots=True, init=False)
class Drew:
    player: Player
    tile: Tile | None  # None in the public form
    boneyard_left: int

    @property
    def kind(self) -> str:
        return "drew"

    def __init__(self, player: Player, tile: Tile | None, boneyard_left: int) -> None:
        self.player = player
        self.tile = tile
        self.boneyard_left = boneyard_left

    @property
    def private_to(self) -> Player:
        return self.player

    def public_form(self) -> Drew:
        return replace(self, tile=None)

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "player": self.player,
            "tile": _tile(self.tile),
            "boneyard_left": self.boneyard_left,
        }


@dataclass(slots=True, init=False)
class Passed:
    player: Player

    @property
    def kind(self) -> str:
        return "passed"

    def __init__(self, player: Player) -> None:
        self.player = player

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "player": self.player}


@dataclass(slots=True, init=False)
class Transfer:
    payer: Player
    payee: Player
    requested: int
    amount: int  # after the cap at the payer's balance (RULES.md §1)
    reason: TransferReason
    balances: tuple[int, int]  # after the transfer

    @property
    def kind(self) -> str:
        return "transfer"

    def __init__(
        self,
        payer: Player,
        payee: Player,
        requested: int,
        amount: int,
        reason: TransferReason,
        balances: tuple[int, int],
    ) -> None:
        self.payer = payer
        self.payee = payee
        self.requested = requested
        self.amount = amount
        self.reason = reason
        self.balances = balances

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "payer": self.payer,
            "payee": self.payee,
            "requested": self.requested,
            "amount": self.amount,
            "reason": self.reason,
            "balances": list(self.balances),
        }


@dataclass(slots=True, init=False)
class RoundEnded:
    round: int
    reason: RoundEndReason
    winner: Player | None  # who dominoed or won the block; None for an equal block
    hands: tuple[tuple[Tile, ...], tuple[Tile, ...]]
    pips: tuple[int, int]
    payout: int  # the block's rounded hand total; 0 for a domino

    @property
    def kind(self) -> str:
        return "round_ended"

    def __init__(
        self,
        round: int,
        reason: RoundEndReason,
        winner: Player | None,
        hands: tuple[tuple[Tile, ...], tuple[Tile, ...]],
        pips: tuple[int, int],
        payout: int,
    ) -> None:
        self.round = round
        self.reason = reason
        self.winner = winner
        self.hands = hands
        self.pips = pips
        self.payout = payout

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "round": self.round,
            "reason": self.reason,
            "winner": self.winner,
            "hands": [[t.as_list() for t in h] for h in self.hands],
            "pips": list(self.pips),
            "payout": self.payout,
        }


@dataclass(slots=True, init=False)
class MatchEnded:
    winner: Player | None  # None: a draw by equal balances at the round limit
    reason: MatchEndKind
    balances: tuple[int, int]
    rounds: int

    @property
    def kind(self) -> str:
        return "match_ended"

    def __init__(
        self, winner: Player | None, reason: MatchEndKind, balances: tuple[int, int], rounds: int
    ) -> None:
        self.winner = winner
        self.reason = reason
        self.balances = balances
        self.rounds = rounds

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "winner": self.winner,
            "reason": self.reason,
            "balances": list(self.balances),
            "rounds": self.rounds,
        }


Event = RoundStarted | AuctionMove | Placed | Drew | Passed | Transfer | RoundEnded | MatchEnded


def public_event(event: Event, viewer: Player | None) -> Event | None:
    """The form of ``event`` that ``viewer`` may see (None: nobody but the referee).

    ``viewer=None`` asks for what is public to both players.
    """
    if isinstance(event, RoundStarted):
        return None
    if isinstance(event, Drew) and event.player != viewer:
        return event.public_form()
    return event
