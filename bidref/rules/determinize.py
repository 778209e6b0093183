"""Search support: whole matches consistent with what one player knows.

A search engine sees only its :class:`PlayerView`; to simulate it needs a full
state. This module deals the tiles the view hides at random, consistently with
everything the view shows, and rebuilds the layout by placing its tiles again
in their recorded order (:func:`match_from_view`); deals again what a match
hides from a player (:func:`redeal_hidden`); and makes the what-if copy of an
auction in which one player opens for free (:func:`with_free_opening`).

It builds on :class:`Match` and :class:`Match` knows nothing of it (issue 30:
the two used to import each other).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .deal import seeded_deals
from .errors import RulesError
from .layout import Layout
from .match import Match, MatchConfig
from .phase import Phase
from .tiles import TILES, Tile

if TYPE_CHECKING:
    from .view import LayoutView, PlayerView

_BY_INDEX = operator.attrgetter("index")


def layout_from_view(view: LayoutView) -> Layout:
    """Rebuild a layout by placing its tiles again in the order they were placed."""
    lay = Layout()
    if not view.placed:
        return lay
    lay.open_tile(view.placed[0])
    for t, (at, _joined) in zip(view.placed[1:], view.connections, strict=True):
        lay.place(t, at)
    return lay


def deal_hidden(
    hidden: list[Tile], n: int, rng: random.Random, opponent_hand: Sequence[Tile] | None = None
) -> tuple[list[Tile], list[Tile]]:
    """Split the tiles hidden from a player into the opponent's hand of ``n``
    (sorted) and a boneyard in random draw order. With ``opponent_hand`` the
    opponent gets exactly those tiles; only the boneyard is shuffled."""
    if opponent_hand is None:
        pool = list(hidden)
        rng.shuffle(pool)
        return sorted(pool[:n], key=_BY_INDEX), pool[n:]
    hand = sorted(opponent_hand, key=_BY_INDEX)
    chosen = set(hand)
    if len(hand) != n or len(chosen) != n or not chosen.issubset(hidden):
        raise RulesError(
            f"opponent_hand {[str(t) for t in hand]} is not {n} distinct tiles "
            "hidden from the player"
        )
    rest = [t for t in hidden if t not in chosen]
    rng.shuffle(rest)
    return hand, rest


def redeal_hidden(
    m: Match, player: int, rng: random.Random, opponent_hand: Sequence[Tile] | None = None
) -> Match:
    """A copy of ``m`` in which everything hidden from ``player`` is dealt again at random.

    The opponent's hand and the boneyard keep their sizes; ``player``'s own
    hand, the layout and all public facts stay. This is the determinization
    step of Monte Carlo search over the hidden hands. With ``opponent_hand``
    (e.g. sampled by an opponent model) the opponent gets exactly those
    tiles and only the boneyard is shuffled. Later rounds of the copy are
    dealt from ``rng`` too, so the copy carries no secret seed.
    """
    new = m.copy()
    opp = 1 - player
    hidden = new.hands[opp] + new.boneyard
    opp_hand, rest = deal_hidden(hidden, len(new.hands[opp]), rng, opponent_hand)
    own = new.hands[player]
    new.hands = (own, opp_hand) if player == 0 else (opp_hand, own)
    new.boneyard = rest
    new.deals = seeded_deals(rng.getrandbits(64))
    new._legal = None
    return new


def with_free_opening(m: Match, opener: int) -> Match:
    """A hypothetical copy of an auction position in which ``opener`` opens
    for free now, as after a decline (RULES.md §6.1) — for search that
    weighs what winning the opening is worth. ``m`` is untouched.
    """
    if m.phase is not Phase.AUCTION:
        raise RulesError(f"with_free_opening needs an auction, not the {m.phase.value} phase")
    c = m.copy()
    c.phase = Phase.OPENING
    c.forced_tile = None
    c.bid = None
    c.bidder = None
    c.to_act = opener  # a new turn, as Match._new_turn makes it
    c.turn += 1
    c.drawn_this_turn = 0
    c._legal = None
    return c


def match_from_view(
    view: PlayerView,
    rng: random.Random,
    config: MatchConfig | None = None,
    opponent_hand: Sequence[Tile] | None = None,
) -> Match:
    """A match that agrees with everything ``view`` shows, the tiles hidden
    from its player (the opponent's hand, the boneyard, later deals) dealt
    at random from ``rng`` — one determinization for search. Its
    ``legal_actions()`` equal the view's when it is the player's turn.
    """
    me = view.player
    seen = set(view.hand) | set(view.layout.placed)
    hidden = [t for t in TILES if t not in seen]
    n = view.opponent_hand_size
    if n + view.boneyard_size != len(hidden):
        raise RulesError(
            f"the view does not add up: {len(hidden)} hidden tiles, but the opponent holds "
            f"{n} and the boneyard {view.boneyard_size}"
        )
    opp, boneyard = deal_hidden(hidden, n, rng, opponent_hand)
    own = list(view.hand)
    hands = (own, opp) if me == 0 else (opp, own)
    phase = Phase(view.phase)

    # A round's own deal is secret; the copy's later rounds come from rng.
    m = Match(seeded_deals(rng.getrandbits(64)), config or MatchConfig())
    m.balances = list(view.balances)
    m.round_number = view.round
    m.hands = hands
    m.boneyard = boneyard
    m.layout = layout_from_view(view.layout)
    m.phase = phase
    m.over = phase is Phase.OVER
    m.to_act = me if view.to_act is None else view.to_act
    m.turn = view.turn
    m.jockey = view.jockey
    m.next_jockey = None
    m.forced_tile = None
    if view.opening == "forced" and phase is Phase.OPENING and view.legal_actions:
        first = view.legal_actions[0]
        m.forced_tile = getattr(first, "tile", None)
    m.bid = view.standing_bid
    m.bidder = view.bidder
    m.passes = 0  # a player asked to act never faces a pending pass
    m.round_actions = len(view.layout.placed)
    m.drawn_this_turn = view.drawn_this_turn
    m.result = None
    m.start_events = []
    m._legal = None
    return m
