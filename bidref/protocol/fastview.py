"""Fast encoding of request and event lines (the referee's hot path).

:class:`RequestEncoder` writes exactly the text of
``encode_request(id, player_view(match, p).to_dict(), clock, legal)`` — the same
keys, order and compact separators — but from cached JSON fragments of tiles,
attachment points and actions, with the layout's JSON kept while no tile is placed
and its ``placed`` and ``connections`` lists extended incrementally within a
round. Tests check the equality on many random games (tests/protocol,
tests/match/test_fast_paths.py).

An engine that asks for it in its hello (``"features": ["points"]``) also gets
``"legal_points"``: what each legal action earns at once, in the order of
``legal`` (:meth:`RequestEncoder.legal_points`). The referee sets
:attr:`RequestEncoder.points` per player; the default request is unchanged, byte
for byte, and costs one test more.
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
    Placed,
    Point,
    Transfer,
)
from ..rules.scoring import action_points
from ..rules.tiles import TILES

_TILE: Final = [f"[{t.low},{t.high}]" for t in TILES]
_PT: Final = [f'{{"tile":{_TILE[p.tile.index]},"side":"{p.side.label}"}}' for p in _POINTS]
_AP: Final = [
    f'{{"tile":{_TILE[p.tile.index]},"side":"{p.side.label}","value":{p.value}}}' for p in _POINTS
]
# What each attachment point adds to the count (RULES.md §4), by point index: a
# free end of a non-double adds its value, a free line side of a double adds
# twice its value (once per double), an opened branch adds 0.
_SCORE_KIND: Final = [0 if p.side <= 1 else 1 if p.side <= 3 else 2 for p in _POINTS]
_SC: Final = [
    f'{{"tile":{_TILE[p.tile.index]},"value":{p.value if p.side <= 1 else 2 * p.value}}}'
    for p in _POINTS
]


_ENDS: dict[tuple[Point, ...], str] = {}
"""The attachment points, scoring ends and count of a layout (JSON members), by its
open points: they depend on nothing else (shared by all encoders)."""
_ENDS_CAP: Final = 50_000


_ACTION_JSON: dict[int, tuple[Action, str]] = {}
"""id(action) -> (action, ``json.dumps(str(action))``), shared by all encoders: the
rules core hands out interned actions, so this stays small. Holding the action
keeps its id from being reused."""
ACTIONS_BY_TEXT: dict[str, Action] = {}
"""Every action an encoder has written, by its canonical text: a cache of
:func:`~bidref.rules.parse_action` for canonical texts (shared, like the above)."""
_ACTION_JSON_CAP: Final = 20_000


def action_json(a: Action) -> str:
    """``json.dumps(str(a))``, cached; the action is added to :data:`ACTIONS_BY_TEXT`."""
    e = _ACTION_JSON.get(id(a))
    if e is not None:
        return e[1]
    if len(_ACTION_JSON) >= _ACTION_JSON_CAP:  # actions that are not interned
        _ACTION_JSON.clear()
        ACTIONS_BY_TEXT.clear()
    text = str(a)
    s = json.dumps(text)
    _ACTION_JSON[id(a)] = (a, s)
    ACTIONS_BY_TEXT[text] = a
    return s


def _ends(ops: list[Point]) -> str:
    """The ``attachment_points``, ``scoring`` and ``count`` members of a layout
    with these open points (same as :meth:`Layout.scoring` and :meth:`Layout.count`)."""
    kind = _SCORE_KIND
    sc = _SC
    scoring: list[str] = []
    count = 0
    last_double = -1
    for q in ops:
        i = q.index
        k = kind[i]
        if k == 0:
            scoring.append(sc[i])
            count += q.value
        elif k == 1 and q.tile.index != last_double:
            scoring.append(sc[i])
            count += 2 * q.value
            last_double = q.tile.index
    points = ",".join([_AP[q.index] for q in ops])
    return f'"attachment_points":[{points}],"scoring":[{",".join(scoring)}],"count":{count}'


class RequestEncoder:
    """Encodes request lines for one match (keeps per-round caches).

    What did not change since the previous request is not encoded again: the
    layout's JSON is kept while no tile is placed (a layout only ever grows
    within a round; a new round has a new :class:`Layout`), its ``placed`` and
    ``connections`` lists are extended incrementally, and every action's JSON
    string is made once.
    """

    __slots__ = (
        "_conns",
        "_conns_n",
        "_lay",
        "_lay_json",
        "_lay_n",
        "_placed",
        "actions_by_text",
        "points",
    )

    def __init__(self, points: tuple[bool, bool] = (False, False)) -> None:
        self.points = points
        """Per player: add ``legal_points`` to that player's requests (the
        engine's hello asked for the ``points`` feature)."""
        self.actions_by_text = ACTIONS_BY_TEXT
        """Every action written, by its canonical text (a parse cache)."""
        self._lay: Layout | None = None
        self._lay_n = -1
        self._lay_json = ""
        self._placed = ""  # the JSON list items of layout.placed[:_lay_n]
        self._conns = ""  # the JSON list items of layout.connections[:_conns_n]
        self._conns_n = 0

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
            self._lay_n = 0
            self._placed = ""
            self._conns = ""
            self._conns_n = 0
        k = self._lay_n
        # the usual case: one more tile
        new = tile[placed[k].index] if n == k + 1 else ",".join([tile[t.index] for t in placed[k:]])
        self._placed = f"{self._placed},{new}" if self._placed else new
        conns = lay.connections
        k = self._conns_n
        if len(conns) > k:
            new = ",".join([f"[{pt[a.index]},{pt[b.index]}]" for a, b in conns[k:]])
            self._conns = f"{self._conns},{new}" if self._conns else new
            self._conns_n = len(conns)
        ops = lay.open_points
        key = tuple(ops)  # points hash by identity (they are interned)
        ends = _ENDS.get(key)
        if ends is None:
            if len(_ENDS) >= _ENDS_CAP:
                _ENDS.clear()
            ends = _ENDS[key] = _ends(ops)
        spinner = "null" if lay.spinner is None else tile[lay.spinner.index]
        self._lay_n = n
        text = self._lay_json = (
            f'{{"placed":[{self._placed}],"connections":[{self._conns}],{ends},'
            f'"spinner":{spinner}}}'
        )
        return text

    @staticmethod
    def action_json(a: Action) -> str:
        """``json.dumps(str(a))``, cached (see :func:`action_json`)."""
        return action_json(a)

    def encode(self, match: Match, req_id: int, clock: dict[str, int]) -> str:
        """The request line for the player to act in ``match``; ``clock`` holds the
        :class:`~bidref.protocol.ClockInfo` fields."""
        return self.encode_ms(
            match,
            req_id,
            clock["delay_left_ms"],
            clock["bank_ms"],
            clock["opponent_bank_ms"],
            clock["deadline_ms"],
        )

    def encode_ms(
        self,
        match: Match,
        req_id: int,
        delay_left_ms: int,
        bank_ms: int,
        opponent_bank_ms: int,
        deadline_ms: int,
    ) -> str:
        """:meth:`encode` with the clock fields as arguments."""
        head, tail = self.encode_parts(match, req_id)
        return head + clock_members(delay_left_ms, bank_ms, opponent_bank_ms, deadline_ms) + tail

    def encode_parts(self, match: Match, req_id: int) -> tuple[str, str]:
        """The request line without the members of its ``clock`` object: the text
        before and after them (see :func:`clock_members`). The referee prepares
        these while a player thinks, before the clock values are known."""
        p = match.to_act
        tile = _TILE
        acts = _ACTION_JSON
        parts: list[str] = []
        for a in match.legal_actions():
            e = acts.get(id(a))
            parts.append(e[1] if e is not None else action_json(a))
        legal = ",".join(parts)
        hand = ",".join([tile[t.index] for t in match.hands[p]])
        b = match.balances
        jockey = match.jockey
        bid = match.bid
        bidder = match.bidder
        return (
            f'{{"type":"request","id":{req_id},"view":'
            f'{{"player":{p},"round":{match.round_number},"phase":"{match.phase._value_}",'
            f'"to_act":{p},"turn":{match.turn},"hand":[{hand}],'
            f'"opponent_hand_size":{len(match.hands[1 - p])},'
            f'"boneyard_size":{len(match.boneyard)},'
            f'"layout":{self._layout(match.layout)},"balances":[{b[0]},{b[1]}],'
            f'"jockey":{"null" if jockey is None else jockey},'
            f'"opening":"{"forced" if jockey is None else "auction"}",'
            f'"auction":{{"standing_bid":{"null" if bid is None else bid},'
            f'"bidder":{"null" if bidder is None else bidder}}},'
            f'"drawn_this_turn":{match.drawn_this_turn},"legal_actions":[{legal}]}},'
            f'"clock":{{',
            f'}},"legal":[{legal}]}}'
            if not self.points[p]
            else f'}},"legal":[{legal}],"legal_points":'
            f"[{','.join(map(str, legal_points(match)))}]}}",
        )

    def fork(self, layout: Layout, copy: Layout) -> RequestEncoder:
        """An encoder for a copy of a match: ``copy`` is a copy of ``layout`` (the
        layout this encoder last wrote), so what is cached for ``layout`` holds for
        ``copy`` too. The two encoders are independent from here on."""
        new = RequestEncoder(self.points)
        if self._lay is layout:
            new._lay = copy
            new._lay_n = self._lay_n
            new._lay_json = self._lay_json
            new._placed = self._placed
            new._conns = self._conns
            new._conns_n = self._conns_n
        return new


def legal_points(match: Match) -> list[int]:
    """What each legal action of the player to act earns at once (RULES.md §4),
    in the order of ``match.legal_actions()``: a play or an opening earns the
    count it makes if that is a multiple of 5, every other action 0. (The payer
    pays at most its balance; see the ``transfer`` event.)

    >>> from bidref.rules import Match
    >>> m = Match.new(seed=3)
    >>> [str(a) for a in m.legal_actions()], legal_points(m)
    (['open 6-6'], [0])
    """
    lay = match.layout
    return [action_points(lay, a) for a in match.legal_actions()]


def clock_members(delay_left_ms: int, bank_ms: int, opponent_bank_ms: int, deadline_ms: int) -> str:
    """The members of a request's ``clock`` object, as JSON text."""
    return (
        f'"delay_left_ms":{delay_left_ms},"bank_ms":{bank_ms},'
        f'"opponent_bank_ms":{opponent_bank_ms},"deadline_ms":{deadline_ms}'
    )


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
                f'"action":{json.dumps(event.action_text())}'
            )
        return (
            f'{{"kind":"placed","player":{event.player},{text},"count":{event.count},'
            f'"points":{event.points}}}'
        )
    if tp is Transfer:
        assert isinstance(event, Transfer)
        b = event.balances
        return (
            f'{{"kind":"transfer","payer":{event.payer},"payee":{event.payee},'
            f'"requested":{event.requested},"amount":{event.amount},'
            f'"reason":"{event.reason}","balances":[{b[0]},{b[1]}]}}'
        )
    if tp is Drew:
        assert isinstance(event, Drew)
        dt = event.tile
        return (
            f'{{"kind":"drew","player":{event.player},'
            f'"tile":{"null" if dt is None else _TILE[dt.index]},'
            f'"boneyard_left":{event.boneyard_left}}}'
        )
    if tp is Passed:
        assert isinstance(event, Passed)
        return f'{{"kind":"passed","player":{event.player}}}'
    if tp is AuctionMove:
        assert isinstance(event, AuctionMove)
        return f'{{"kind":"auction","player":{event.player},"action":{json.dumps(event.action)}}}'
    return _dumps(event.to_dict())
