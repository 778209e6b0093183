"""A whole match of Spectacular Bid as one mutable state machine.

RULES.md §1–§6 and "Decided here". The state has one player to act
(``to_act``), a deterministic sorted list of ``legal_actions()``, and
``apply(action)`` which either raises :class:`IllegalActionError` and leaves the
state unchanged, or changes it and returns the events it caused. Forced passes
(RULES.md "Decided here"), round ends, settlements and the next deal happen
inside ``apply``; they show in the returned events.

>>> m = Match.new(seed=1)
>>> m.phase, m.round_number
(<Phase.OPENING: 'opening'>, 1)
>>> events = m.apply(m.legal_actions()[0])
>>> events[0].kind
'placed'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, cast

from .actions import (
    ACCEPT,
    DECLINE,
    DRAW,
    OPENS,
    Action,
    Bid,
    Decline,
    Draw,
    Open,
    Play,
    describe,
    is_action,
)
from .deal import Deal, DealSource, seeded_deals
from .errors import IllegalActionError, RulesError
from .events import (
    AuctionMove,
    Drew,
    Event,
    MatchEnded,
    Passed,
    Placed,
    RoundEnded,
    RoundEndReason,
    RoundStarted,
    Transfer,
    TransferReason,
)
from .explain import explain, where
from .layout import _POINTS, Layout, Point, points_earned
from .opening import forced_opening_tile
from .phase import BID_STEP, JOCKEY_CREDIT, MIN_BID, START_BALANCE, TOTAL_POINTS, Phase
from .tiles import TILES, Tile

# Module constants, not ``Phase.X`` and the action classes by name, in the hot
# paths: in the compiled build a Final name is a C static, an enum member an
# attribute look-up on its class.
_AUCTION: Final = Phase.AUCTION
_OPENING: Final = Phase.OPENING
_PLAY: Final = Phase.PLAY
_OVER: Final = Phase.OVER
_PLAY_CLASS: Final = Play
_DRAW_CLASS: Final = Draw
_OPEN_CLASS: Final = Open


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """Options of a match. ``max_rounds`` is the referee's optional round limit
    with adjudication by balance (RULES.md "Decided here"), not a rule of the game."""

    start_balances: tuple[int, int] = (START_BALANCE, START_BALANCE)
    max_rounds: int | None = None
    first_jockey: int | None = None
    """Start with an auction in which this player is the jockey, as in a round
    after their domino. For positions taken from the middle of a match (tests,
    move files, conformance checks); a match from its start leaves it None."""

    def __post_init__(self) -> None:
        a, b = self.start_balances
        if a + b != TOTAL_POINTS or a <= 0 or b <= 0:
            raise RulesError(
                f"starting balances {a}-{b} are not possible: both must be positive "
                f"and add up to {TOTAL_POINTS} (RULES.md §1)"
            )
        if self.first_jockey not in (None, 0, 1):
            raise RulesError(f"first_jockey={self.first_jockey}: give 0, 1 or None")
        if self.max_rounds is not None and self.max_rounds < 1:
            raise RulesError(f"max_rounds={self.max_rounds}: give at least 1, or no limit")


def _build_play_table() -> list[Play | None]:
    table: list[Play | None] = [None] * (len(TILES) * len(_POINTS))
    for t in TILES:
        for p in _POINTS:
            if p.is_valid_side() and p.tile is not t and t.has(p.value):
                table[t.index * len(_POINTS) + p.index] = Play(t, p)
    return table


_PLAY_TABLE: Final = _build_play_table()
_NPOINTS: Final = len(_POINTS)
_BIDS: Final = tuple(Bid(n) for n in range(0, TOTAL_POINTS + JOCKEY_CREDIT + 1, BID_STEP))


def _BLANK(round_number: int) -> Deal:
    """The deal source that tells ``Match.__init__`` to leave the fields to ``copy``."""
    raise RulesError("a blank match has no deals")  # never called


def round_to_five(n: int) -> int:
    """Round a hand total to the nearest 5 (RULES.md §5): 17 → 15, 18 → 20."""
    return (n + 2) // 5 * 5


def _insert_tile(hand: list[Tile], t: Tile) -> None:
    """Insert ``t`` into ``hand``, sorted by tile index (``bisect`` on the
    index, without a key function)."""
    ti = t.index
    lo = 0
    hi = len(hand)
    while lo < hi:
        mid = (lo + hi) // 2
        if hand[mid].index < ti:
            lo = mid + 1
        else:
            hi = mid
    hand.insert(lo, t)


_DEFAULT_CONFIG: Final = MatchConfig()


class Match:
    """The state of a match. Use :meth:`new` or :meth:`from_deals`."""

    # One flat set of slots, not grouped into smaller objects (the auction, the
    # round, the turn): search copies a match for every playout (``copy`` below)
    # and the playout path reads these fields on every action; one object is one
    # allocation per copy and one attribute load per read, which a compiled
    # ``Match`` turns into a C struct field. That is why this class is above the
    # ~15 attributes other classes keep to (tests/test_architecture.py). What is
    # not the state machine lives beside it: rules/explain.py, rules/determinize.py.
    __slots__ = (
        "_legal",
        "balances",
        "bid",
        "bidder",
        "boneyard",
        "config",
        "deal",
        "deals",
        "drawn_this_turn",
        "forced_tile",
        "hands",
        "jockey",
        "layout",
        "next_jockey",
        "over",
        "passes",
        "phase",
        "result",
        "round_actions",
        "round_number",
        "start_events",
        "to_act",
        "turn",
    )

    config: MatchConfig
    deals: DealSource
    balances: list[int]
    round_number: int
    deal: Deal
    hands: tuple[list[Tile], list[Tile]]
    boneyard: list[Tile]  # reversed draw order: the next tile is boneyard[-1]
    layout: Layout
    phase: Phase
    over: bool  # the match has ended (phase OVER)
    to_act: int
    turn: int
    jockey: int | None
    next_jockey: int | None
    forced_tile: Tile | None
    bid: int | None
    bidder: int | None
    passes: int
    drawn_this_turn: int
    result: MatchEnded | None
    round_actions: int  # actions applied in this round so far
    start_events: list[Event]
    _legal: list[Action] | None

    def __init__(self, deals: DealSource, config: MatchConfig | None = None) -> None:
        if deals is _BLANK:
            return  # copy() sets every field itself
        self.config = _DEFAULT_CONFIG if config is None else config
        self.deals = deals
        self.balances = list(self.config.start_balances)
        self.round_number = 0
        self.turn = 0
        self.next_jockey = self.config.first_jockey
        self.result = None
        self.over = False
        self._legal = None
        self.start_events = self._start_round()

    @classmethod
    def new(cls, seed: int, config: MatchConfig | None = None) -> Match:
        """A match whose deals all come from ``seed``."""
        return cls(seeded_deals(seed), config)

    @classmethod
    def from_deal(
        cls, deal: Deal, config: MatchConfig | None = None, then_seed: int | None = None
    ) -> Match:
        """A match whose first round uses ``deal`` (later rounds: ``then_seed``)."""
        from .deal import listed_deals

        return cls(listed_deals([deal], then_seed), config)

    # -- copying (search support: rules/determinize.py) ---------------------------

    def copy(self) -> Match:
        """An independent copy, for search."""
        # Field by field (not a loop over __slots__): search copies a match for
        # every playout, and a mypyc-compiled Match has no __slots__ to loop over.
        # Match(_BLANK), not Match.__new__(Match): a mypyc-compiled class runs
        # __init__ from __new__ too.
        new = Match(_BLANK)
        new.config = self.config
        new.deals = self.deals
        new.balances = self.balances.copy()
        new.round_number = self.round_number
        new.deal = self.deal
        new.hands = (self.hands[0].copy(), self.hands[1].copy())
        new.boneyard = self.boneyard.copy()
        new.layout = self.layout.copy()
        new.phase = self.phase
        new.over = self.over
        new.to_act = self.to_act
        new.turn = self.turn
        new.jockey = self.jockey
        new.next_jockey = self.next_jockey
        new.forced_tile = self.forced_tile
        new.bid = self.bid
        new.bidder = self.bidder
        new.passes = self.passes
        new.drawn_this_turn = self.drawn_this_turn
        new.result = self.result
        new.round_actions = self.round_actions
        new.start_events = self.start_events
        new._legal = self._legal
        return new

    # -- queries ------------------------------------------------------------------

    def arrange_next_draw(self, t: Tile) -> None:
        """Make ``t`` the next tile drawn from the boneyard.

        For score sheets that record which tile each draw gave but not the
        boneyard's order: the order of an unknown boneyard is the order of its
        draws. Raises :class:`RulesError` if ``t`` is not in the boneyard.
        """
        try:
            self.boneyard.remove(t)
        except ValueError:
            raise RulesError(f"{t} is not in the boneyard, so it cannot be drawn") from None
        self.boneyard.append(t)

    def boneyard_order(self) -> list[Tile]:
        """The boneyard in draw order (first is drawn next)."""
        return self.boneyard[::-1]

    def min_bid(self) -> int:
        return MIN_BID if self.bid is None else self.bid + BID_STEP

    def net_payment(self, player: int, amount: int) -> int:
        """What ``player`` pays if their bid of ``amount`` is accepted (§6.4)."""
        if player == self.jockey:
            return max(0, amount - JOCKEY_CREDIT)
        return amount

    def max_bid(self, player: int) -> int:
        """The largest bid ``player`` can afford (§6.5); a multiple of 5."""
        limit = self.balances[player] + (JOCKEY_CREDIT if player == self.jockey else 0)
        return limit - limit % BID_STEP

    def legal_actions(self) -> list[Action]:
        """Every legal action of the player to act, sorted; empty once the match is over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> list[Action]:
        phase = self.phase
        if phase is _PLAY:
            lay = self.layout
            open_mask = lay.open_mask
            ops = lay.open_points
            table = _PLAY_TABLE
            out: list[Action] = []
            for t in self.hands[self.to_act]:
                if t.mask & open_mask:
                    base = t.index * _NPOINTS
                    lo = t.low
                    hi = t.high
                    for p in ops:
                        v = p.value
                        if v == lo or v == hi:
                            out.append(table[base + p.index])  # type: ignore[arg-type]
            if not out:
                out.append(DRAW)
            return out
        if phase is _OPENING:
            if self.forced_tile is not None:
                return [OPENS[self.forced_tile.index]]
            return [OPENS[t.index] for t in self.hands[self.to_act]]
        if phase is _AUCTION:
            out = [DECLINE] if self.bid is None else [ACCEPT]
            hi_bid = self.max_bid(self.to_act)
            out.extend(_BIDS[self.min_bid() // BID_STEP : hi_bid // BID_STEP + 1])
            return out
        return []

    def can_play(self, player: int) -> bool:
        open_mask = self.layout.open_mask
        for t in self.hands[player]:  # noqa: SIM110 (any() of a generator is slower)
            if t.mask & open_mask:
                return True
        return False

    # -- applying actions -----------------------------------------------------------

    def apply(self, action: Action, player: int | None = None) -> list[Event]:
        """Apply ``action`` for the player to act and return what it caused.

        With ``player`` given, an action out of turn is refused. An illegal
        action raises :class:`IllegalActionError` and changes nothing; so does
        anything that is not an action value of this game (``"draw"``, ``None``,
        an action built around its field checks), RULES.md §8.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if player is not None and player != self.to_act:
            raise explain(self, action, player)
        # The legal actions are interned values, and callers usually pass one of
        # them back: an identity scan is the fast path.
        for chosen in legal:
            if chosen is action:
                break
        else:
            chosen = self._legal_equal_to(action, legal)
        self._legal = None
        self.round_actions += 1
        kind = type(chosen)
        if kind is _PLAY_CLASS:
            played = cast(Play, chosen)
            return self._play(played.tile, played.at)
        if kind is _DRAW_CLASS:
            return self._draw()
        if kind is _OPEN_CLASS:
            return self._open(cast(Open, chosen).tile)
        return self._auction(chosen)

    def _legal_equal_to(self, action: object, legal: list[Action]) -> Action:
        """The legal action equal to ``action``, or raise why there is none.

        Only a well-typed action value can match: ``Bid`` compares by value, so
        without the check a ``Bid`` whose amount is ``15.0`` (built around its
        field check) would be taken for ``Bid(15)``.
        """
        if not is_action(action):
            raise IllegalActionError(
                describe(action),
                self.where(),
                f"{type(action).__name__} is not an action of the game: give an action value "
                "(one of legal_actions(), or parse_action('draw'))",
                "§8",
            )
        for a in legal:
            if a == action:
                return a
        raise explain(self, cast(Action, action), None)

    def _play(self, t: Tile, at: Point) -> list[Event]:
        p = self.to_act
        hand = self.hands[p]
        hand.remove(t)
        count = self.layout._attach(t, at)  # (a legal action: the checks are done)
        pts = points_earned(count)
        events: list[Event] = [Placed(p, t, at, count, pts)]
        self.passes = 0
        if pts and (ended := self._transfer(1 - p, pts, "count", events)):
            if hand:
                self._end_mid_round(ended, events)
            else:  # the domino's own count emptied the opponent's balance
                self._round_ended("domino", p, events)
                self._finish(ended, events)
            return events
        if not hand:
            self._end_round("domino", p, events)
        else:
            self._next_turn(1 - p, events)
        return events

    def _open(self, t: Tile) -> list[Event]:
        p = self.to_act
        self.hands[p].remove(t)
        count = self.layout.open_tile(t)
        pts = points_earned(count)
        events: list[Event] = [Placed(p, t, None, count, pts)]
        self.phase = _PLAY
        self.forced_tile = None
        if pts and (ended := self._transfer(1 - p, pts, "count", events)):
            self._end_mid_round(ended, events)
            return events
        self._next_turn(1 - p, events)
        return events

    def _draw(self) -> list[Event]:
        p = self.to_act
        t = self.boneyard.pop()
        _insert_tile(self.hands[p], t)
        self.drawn_this_turn += 1
        events: list[Event] = [Drew(p, t, len(self.boneyard))]
        if not self.boneyard and not self.layout.can_play(t):
            # Nothing playable and nothing left to draw: the pass is forced.
            self._pass(p, events)
        return events

    def _auction(self, action: Action) -> list[Event]:
        p = self.to_act
        events: list[Event] = [AuctionMove(p, str(action))]
        if isinstance(action, Bid):
            self.bid = action.amount
            self.bidder = p
            self._new_turn(1 - p)
            return events
        if isinstance(action, Decline):
            # Decline is legal only before any bid, in an auction, which has a jockey.
            opener = cast(int, self.jockey)
        else:
            # Accept is legal only with a standing bid, which has a bidder.
            opener = cast(int, self.bidder)
            price = self.net_payment(opener, cast(int, self.bid))
            if ended := self._transfer(opener, price, "auction", events):
                # Paying the whole balance loses before the opening (§6.6).
                self._end_mid_round(ended, events)
                return events
        self.phase = _OPENING
        self._new_turn(opener)
        return events

    # -- turn and round flow ----------------------------------------------------------

    def _new_turn(self, player: int) -> None:
        self.to_act = player
        self.turn += 1
        self.drawn_this_turn = 0

    def _next_turn(self, player: int, events: list[Event]) -> None:
        # _new_turn, written out: this runs after every play.
        self.to_act = player
        self.turn += 1
        self.drawn_this_turn = 0
        if not self.boneyard and not self.can_play(player):
            self._pass(player, events)

    def _pass(self, player: int, events: list[Event]) -> None:
        events.append(Passed(player))
        self.passes += 1
        if self.passes >= 2:
            self._settle_block(events)
        else:
            self._next_turn(1 - player, events)

    def _settle_block(self, events: list[Event]) -> None:
        pips = (sum(t.pips for t in self.hands[0]), sum(t.pips for t in self.hands[1]))
        if pips[0] == pips[1]:
            self._end_round("block", None, events, pips)
            return
        winner = 0 if pips[0] < pips[1] else 1
        payout = round_to_five(pips[1 - winner])
        if payout and (ended := self._transfer(1 - winner, payout, "block", events)):
            self._round_ended("block", winner, events, pips, payout)
            self._finish(ended, events)
            return
        self._end_round("block", winner, events, pips, payout)

    def _round_ended(
        self,
        reason: RoundEndReason,
        winner: int | None,
        events: list[Event],
        pips: tuple[int, int] | None = None,
        payout: int = 0,
    ) -> None:
        hands = (tuple(self.hands[0]), tuple(self.hands[1]))
        if pips is None:
            pips = (sum(t.pips for t in hands[0]), sum(t.pips for t in hands[1]))
        events.append(RoundEnded(self.round_number, reason, winner, hands, pips, payout))

    def _end_round(
        self,
        reason: RoundEndReason,
        winner: int | None,
        events: list[Event],
        pips: tuple[int, int] | None = None,
        payout: int = 0,
    ) -> None:
        self._round_ended(reason, winner, events, pips, payout)
        self.next_jockey = winner if reason == "domino" else None
        limit = self.config.max_rounds
        if limit is not None and self.round_number >= limit:
            a, b = self.balances
            best = None if a == b else (0 if a > b else 1)
            self._finish(MatchEnded(best, "round_limit", (a, b), self.round_number), events)
            return
        events.extend(self._start_round())

    def _end_mid_round(self, result: MatchEnded, events: list[Event]) -> None:
        """A balance reached 0 inside a round: reveal the hands and end the match."""
        self._round_ended("match_over", None, events)
        self._finish(result, events)

    def _finish(self, result: MatchEnded, events: list[Event]) -> None:
        self.result = result
        self.phase = _OVER
        self.over = True
        self._legal = []
        events.append(result)

    def _transfer(
        self, payer: int, amount: int, reason: TransferReason, events: list[Event]
    ) -> MatchEnded | None:
        """Move points, capped at the payer's balance (§1); the match's end if the
        payer is at 0 (the caller finishes the match), else None."""
        bal = self.balances
        paid = min(amount, bal[payer])
        bal[payer] -= paid
        bal[1 - payer] += paid
        events.append(Transfer(payer, 1 - payer, amount, paid, reason, (bal[0], bal[1])))
        if bal[payer] > 0:
            return None
        return MatchEnded(1 - payer, "balance", (bal[0], bal[1]), self.round_number)

    def _start_round(self) -> list[Event]:
        self.round_number += 1
        deal = self.deals(self.round_number)
        self.deal = deal
        self.hands = (list(deal.hands[0]), list(deal.hands[1]))
        self.boneyard = list(reversed(deal.boneyard))
        self.layout = Layout()
        self.passes = 0
        self.round_actions = 0
        self.bid = None
        self.bidder = None
        self.jockey = self.next_jockey
        self.next_jockey = None
        self._legal = None
        if self.jockey is None:
            opener, t = forced_opening_tile(deal.hands)
            self.forced_tile = t
            self.phase = _OPENING
            self._new_turn(opener)
            return [RoundStarted(self.round_number, "forced", None, deal)]
        self.forced_tile = None
        self.phase = _AUCTION
        self._new_turn(1 - self.jockey)
        return [RoundStarted(self.round_number, "auction", self.jockey, deal)]

    # -- explaining illegal actions (rules/explain.py) -------------------------------

    def where(self) -> str:
        """Where the match stands, for messages: round, phase and player to act."""
        return where(self)

    def hidden_from(self, player: int) -> set[Tile]:
        """The tiles ``player`` cannot see: the opponent's hand and the boneyard."""
        return set(self.hands[1 - player]) | set(self.boneyard)

    def opponents_hand_size(self, player: int) -> int:
        return len(self.hands[1 - player])

    def hand(self, player: int) -> Sequence[Tile]:
        return self.hands[player]
