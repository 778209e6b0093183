"""The rules of Spectacular Bid (RULES.md) as a pure library: no I/O, no clocks read.

Typical use from an engine or a referee::

    from bidref.rules import Match, parse_action

    m = Match.new(seed=7)
    while not m.over:
        action = m.legal_actions()[0]
        events = m.apply(action)
"""

from .actions import (
    ACCEPT,
    DECLINE,
    DRAW,
    Accept,
    Action,
    Bid,
    Decline,
    Draw,
    Open,
    Play,
    parse_action,
    play,
    sort_actions,
)
from .clock import MILLISECOND, SECOND, Charge, MatchClock, TimeControl, seconds
from .deal import Deal, DealSource, forced_opening_tile, listed_deals, seeded_deals
from .describe import describe_layout
from .determinize import match_from_view, redeal_hidden, with_free_opening
from .errors import DealError, IllegalActionError, NotationError, PlacementError, RulesError
from .events import (
    AuctionMove,
    Drew,
    Event,
    MatchEnded,
    MatchEndKind,
    Passed,
    Placed,
    RoundEnded,
    RoundStarted,
    Transfer,
    public_event,
)
from .explain import explain
from .layout import (
    POINTS,
    Layout,
    Point,
    Side,
    count_after,
    opening_count,
    parse_point,
    parse_side,
    point,
    points_earned,
)
from .match import Match, MatchConfig, round_to_five
from .phase import Phase
from .scoring import action_points
from .tiles import DOUBLES, TILES, Tile, parse_tile, pip_total, tile
from .view import LayoutView, PlayerView, layout_view, player_view

RULES_VERSION = "spectacular-bid/1"

__all__ = [
    "ACCEPT",
    "DECLINE",
    "DOUBLES",
    "DRAW",
    "MILLISECOND",
    "POINTS",
    "RULES_VERSION",
    "SECOND",
    "TILES",
    "Accept",
    "Action",
    "AuctionMove",
    "Bid",
    "Charge",
    "Deal",
    "DealError",
    "DealSource",
    "Decline",
    "Draw",
    "Drew",
    "Event",
    "IllegalActionError",
    "Layout",
    "LayoutView",
    "Match",
    "MatchClock",
    "MatchConfig",
    "MatchEndKind",
    "MatchEnded",
    "NotationError",
    "Open",
    "Passed",
    "Phase",
    "Placed",
    "PlacementError",
    "Play",
    "PlayerView",
    "Point",
    "RoundEnded",
    "RoundStarted",
    "RulesError",
    "Side",
    "Tile",
    "TimeControl",
    "Transfer",
    "action_points",
    "count_after",
    "describe_layout",
    "explain",
    "forced_opening_tile",
    "layout_view",
    "listed_deals",
    "match_from_view",
    "opening_count",
    "parse_action",
    "parse_point",
    "parse_side",
    "parse_tile",
    "pip_total",
    "play",
    "player_view",
    "point",
    "points_earned",
    "public_event",
    "redeal_hidden",
    "round_to_five",
    "seconds",
    "seeded_deals",
    "sort_actions",
    "tile",
    "with_free_opening",
]
