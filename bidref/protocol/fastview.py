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

from ..rules import POINTS as _POINTS
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
from ..rules.tiles import TILES

_TILE: Final = [f"[{t.low},{t.high}]" for t in TILES]
_PT: Final = [f'{{"tile":{_TILE[p.tile.index]},"side":"{p.side.label}"}}' for p in _POINTS]
_AP: Final = [f'{{"tile":{_TILE[p.tile.index]},"side":"{p.side.label}","value":{p.value}}}'
              for p in _POINTS]


def _null(v: int | None) -> str:
    return "null" if v is None else str(v)


PHASE_TEXT: Final = {ph: ph.value for ph in Phase}
"""``phase.value`` without the enum's property lookup."""


class RequestEncoder:
    """Encodes request lines for one match (keeps per-round caches).

    What did not change since the previous request is not encoded again: the
    layout's JSON is kept while no tile is placed (a layout only ever grows
    within a round; a new round has a new :class:`Layout`), its ``placed`` and
    ``connections`` lists are extended incrementally, and every action's JSON
    string is made once.
    """

    __slots__ = ("_actions", "_conns", "_lay", "_lay_json", "_lay_n", "_placed",
                 "actions_by_text")

    def __init__(self) -> None:
        self._actions: dict[int, tuple[Action, str]] = {}
        """id(action) -> (action, its JSON string); holding the action keeps its id unique."""
        self.actions_by_text: dict[str, Action] = {}
        """Every action this encoder has written, by its canonical text (a parse cache)."""
        self._lay: Layout | None = None
        self._lay_n = -1
        self._lay_json = ""
        self._placed: list[str] = []
        self._conns: list[str] = []

    def _layout(self, lay: Layout) -> str:
        """The layout object's JSON (cached while no tile is placed)."""
        placed = lay.placed
        n = len(placed)
        if lay is self._lay and n == self._lay_n:
            return self._lay_json
        tile = _TILE
        pt = _PT
        if lay is not self._lay or n < self._lay_n:
            self._lay = lay
            self._placed = []
            self._conns = []
        parts = self._placed
        for t in placed[len(parts):]:
            parts.append(tile[t.index])
        conns = lay.connections
        cparts = self._conns
        for a, b in conns[len(cparts):]:
            cparts.append(f"[{pt[a.index]},{pt[b.index]}]")
        ops = lay.open_points
        points = ",".join([_AP[q.index] for q in ops])
        scoring = ",".join([f'{{"tile":{tile[t.index]},"value":{v}}}'
                            for t, v in lay.scoring()])
        spinner = "null" if lay.spinner is None else tile[lay.spinner.index]
        self._lay_n = n
        text = self._lay_json = (
            f'{{"placed":[{",".join(parts)}],"connections":[{",".join(cparts)}],'
            f'"attachment_points":[{points}],"scoring":[{scoring}],"count":{lay.count()},'
            f'"spinner":{spinner}}}')
        return text

    def _action(self, a: Action) -> str:
        text = str(a)
        s = json.dumps(text)
        self._actions[id(a)] = (a, s)
        self.actions_by_text[text] = a
        return s

    def action_json(self, a: Action) -> str:
        """``json.dumps(str(a))``, cached."""
        e = self._actions.get(id(a))
        return e[1] if e is not None else self._action(a)

    def encode(self, match: Match, req_id: int, clock: dict[str, int]) -> str:
        """The request line for the player to act in ``match``."""
        p = match.to_act
        tile = _TILE
        acts = self._actions
        parts: list[str] = []
        for a in match.legal_actions():
            e = acts.get(id(a))
            parts.append(e[1] if e is not None else self._action(a))
        legal = ",".join(parts)
        hand = ",".join([tile[t.index] for t in match.hands[p]])
        b = match.balances
        jockey = match.jockey
        return (
            f'{{"type":"request","id":{req_id},"view":'
            f'{{"player":{p},"round":{match.round_number},"phase":"{PHASE_TEXT[match.phase]}",'
            f'"to_act":{p},"turn":{match.turn},"hand":[{hand}],'
            f'"opponent_hand_size":{len(match.hands[1 - p])},'
            f'"boneyard_size":{len(match.boneyard)},'
            f'"layout":{self._layout(match.layout)},"balances":[{b[0]},{b[1]}],'
            f'"jockey":{"null" if jockey is None else jockey},'
            f'"opening":"{"forced" if jockey is None else "auction"}",'
            f'"auction":{{"standing_bid":{_null(match.bid)},"bidder":{_null(match.bidder)}}},'
            f'"drawn_this_turn":{match.drawn_this_turn},"legal_actions":[{legal}]}},'
            f'"clock":{{"delay_left_ms":{clock["delay_left_ms"]},"bank_ms":{clock["bank_ms"]},'
            f'"opponent_bank_ms":{clock["opponent_bank_ms"]},'
            f'"deadline_ms":{clock["deadline_ms"]}}},'
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
