"""Fast encoding of request and event lines (the referee's hot path).

:class:`RequestEncoder` writes exactly the text of
``encode_request(id, player_view(match, p).to_dict(), clock, legal)`` — the same
keys, order and compact separators — but from cached JSON fragments of tiles,
attachment points and actions, and with the layout's connection list extended
incrementally within a round. A test checks the equality on many random games.
"""

from __future__ import annotations

import json
from typing import Final

from ..rules import (
    Action,
    AuctionMove,
    Drew,
    Event,
    Layout,
    Match,
    Passed,
    Phase,
    Placed,
    Transfer,
)
from ..rules.layout import _POINTS
from ..rules.tiles import TILES

_TILE: Final = [f"[{t.low},{t.high}]" for t in TILES]
_PT: Final = [f'{{"tile":{_TILE[p.tile.index]},"side":"{p.side.label}"}}' for p in _POINTS]
_AP: Final = [f'{{"tile":{_TILE[p.tile.index]},"side":"{p.side.label}","value":{p.value}}}'
              for p in _POINTS]


def _null(v: int | None) -> str:
    return "null" if v is None else str(v)


class RequestEncoder:
    """Encodes request lines for one match (keeps per-round caches)."""

    __slots__ = ("_actions", "_conn_layout", "_conn_n", "_conn_parts", "actions_by_text")

    def __init__(self) -> None:
        self._actions: dict[Action, str] = {}
        self.actions_by_text: dict[str, Action] = {}
        """Every action this encoder has written, by its canonical text (a parse cache)."""
        self._conn_layout: Layout | None = None
        self._conn_n = 0
        self._conn_parts: list[str] = []

    def _connections(self, lay: Layout) -> str:
        conns = lay.connections
        if lay is not self._conn_layout or len(conns) < self._conn_n:
            self._conn_layout = lay
            self._conn_n = 0
            self._conn_parts = []
        parts = self._conn_parts
        pt = _PT
        for a, b in conns[self._conn_n:]:
            parts.append(f"[{pt[a.index]},{pt[b.index]}]")
        self._conn_n = len(conns)
        return ",".join(parts)

    def _action(self, a: Action) -> str:
        s = self._actions.get(a)
        if s is None:
            text = str(a)
            s = self._actions[a] = json.dumps(text)
            self.actions_by_text[text] = a
        return s

    def encode(self, match: Match, req_id: int, clock: dict[str, int]) -> str:
        """The request line for the player to act in ``match``."""
        p = match.to_act
        tile = _TILE
        lay = match.layout
        legal = ",".join([self._action(a) for a in match.legal_actions()])
        hand = ",".join([tile[t.index] for t in match.hands[p]])
        placed = ",".join([tile[t.index] for t in lay.placed])
        points = ",".join([_AP[q.index] for q in lay.open_points])
        scoring = ",".join([f'{{"tile":{tile[t.index]},"value":{v}}}'
                            for t, v in lay.scoring()])
        spinner = "null" if lay.spinner is None else tile[lay.spinner.index]
        b = match.balances
        phase: Phase = match.phase
        view = (
            f'{{"player":{p},"round":{match.round_number},"phase":"{phase.value}",'
            f'"to_act":{p},"turn":{match.turn},"hand":[{hand}],'
            f'"opponent_hand_size":{len(match.hands[1 - p])},'
            f'"boneyard_size":{len(match.boneyard)},'
            f'"layout":{{"placed":[{placed}],"connections":[{self._connections(lay)}],'
            f'"attachment_points":[{points}],"scoring":[{scoring}],"count":{lay.count()},'
            f'"spinner":{spinner}}},"balances":[{b[0]},{b[1]}],"jockey":{_null(match.jockey)},'
            f'"opening":"{"forced" if match.jockey is None else "auction"}",'
            f'"auction":{{"standing_bid":{_null(match.bid)},"bidder":{_null(match.bidder)}}},'
            f'"drawn_this_turn":{match.drawn_this_turn},"legal_actions":[{legal}]}}'
        )
        c = (f'{{"delay_left_ms":{clock["delay_left_ms"]},"bank_ms":{clock["bank_ms"]},'
             f'"opponent_bank_ms":{clock["opponent_bank_ms"]},'
             f'"deadline_ms":{clock["deadline_ms"]}}}')
        return (f'{{"type":"request","id":{req_id},"view":{view},"clock":{c},'
                f'"legal":[{legal}]}}')




_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_PLACED_TEXT: dict[tuple[int, int], str] = {}


def event_json(event: Event) -> str:
    """``event.to_dict()`` as compact JSON, fast for the frequent kinds.

    Same text as ``json.dumps(event.to_dict(), separators=(",", ":"))``.
    """
    tp = type(event)
    if tp is Placed:
        assert isinstance(event, Placed)
        t = event.tile
        at = event.at
        key = (t.index, -1 if at is None else at.index)
        text = _PLACED_TEXT.get(key)
        if text is None:
            text = _PLACED_TEXT[key] = (
                f'"tile":{_TILE[t.index]},"at":{"null" if at is None else _PT[at.index]},'
                f'"action":{json.dumps(event.action_text())}')
        return (f'{{"kind":"placed","player":{event.player},{text},"count":{event.count},'
                f'"points":{event.points}}}')
    if tp is Transfer:
        assert isinstance(event, Transfer)
        b = event.balances
        return (f'{{"kind":"transfer","payer":{event.payer},"payee":{event.payee},'
                f'"requested":{event.requested},"amount":{event.amount},'
                f'"reason":"{event.reason}","balances":[{b[0]},{b[1]}]}}')
    if tp is Drew:
        assert isinstance(event, Drew)
        dt = event.tile
        return (f'{{"kind":"drew","player":{event.player},'
                f'"tile":{"null" if dt is None else _TILE[dt.index]},'
                f'"boneyard_left":{event.boneyard_left}}}')
    if tp is Passed:
        assert isinstance(event, Passed)
        return f'{{"kind":"passed","player":{event.player}}}'
    if tp is AuctionMove:
        assert isinstance(event, AuctionMove)
        return (f'{{"kind":"auction","player":{event.player},'
                f'"action":{json.dumps(event.action)}}}')
    return _dumps(event.to_dict())
