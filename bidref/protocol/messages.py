"""The messages of engine protocol ``bidref/1`` as pydantic v2 models.

One UTF-8 JSON object per line on the engine's stdin (referee → engine) and
stdout (engine → referee). Every object has a ``"type"``; the same type name
may mean different messages in the two directions (``hello``, ``rules``), so
there is one discriminated union per direction: :data:`RefereeMessage` and
:data:`EngineMessage`.

>>> from bidref.protocol import encode, decode_engine_line
>>> encode(Ping(id=3))
'{"type":"ping","id":3}'
>>> decode_engine_line('{"type": "action", "id": 3, "action": "draw"}')
ActionMsg(type='action', id=3, action='draw')

The models are the single source of the JSON Schema in
``protocols/bidref-1.schema.json`` (see :mod:`bidref.protocol.schema`). The
``view`` of a request is a plain dict at run time (the referee writes it from
cached fragments, an engine reads what it needs); its shape is the
:class:`View` model, which types it in the schema.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = "bidref/1"

# Optional features an engine may ask for in its hello ("features": [...]).
FEATURES = ("points",)

ErrorCode = Literal[
    "illegal",  # a well-formed action the rules forbid now; same request stays pending
    "bad_action",  # the action text is not bidref notation
    "bad_json",  # the line is not a JSON object
    "bad_message",  # JSON object, but not a valid message of this protocol
    "stale_id",  # a reply to a request that is no longer pending (ignored)
    "unexpected",  # a message the referee does not expect now (ignored)
]


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)


# -- referee → engine ----------------------------------------------------------------------


class Settings(_Message):
    """The match settings an engine is told in the referee's ``hello``."""

    bank_ms: int = Field(description="Each player's bank for the whole match, in ms.")
    delay_ms: int = Field(description="The delay at the start of every genuine turn, in ms.")
    max_rounds: int | None = Field(description="The referee's round limit, or null.")
    illegal: Literal["reject", "forfeit"] = Field(
        description="What an illegal action costs: an error reply (reject) or the match."
    )
    startup_ms: int = Field(description="How long the engine has to answer this hello, in ms.")


class RefereeHello(_Message):
    """The referee's greeting, first line on the engine's stdin."""

    type: Literal["hello"] = "hello"
    protocol: str = PROTOCOL_VERSION
    bidref: str = Field(description="The bidref version of the referee.")
    rules: str = Field(description="The rules version, e.g. spectacular-bid/1.")
    seat: int = Field(ge=0, le=1, description="Your seat: 0 (player A) or 1 (player B).")
    settings: Settings
    options: dict[str, Any] = Field(
        default_factory=dict, description="Engine options from the engine file, if any."
    )


class ClockInfo(_Message):
    """The clocks as they stand when a request is written."""

    delay_left_ms: int = Field(description="What is left of your delay in this turn.")
    bank_ms: int = Field(description="Your bank.")
    opponent_bank_ms: int = Field(description="Your opponent's bank.")
    deadline_ms: int = Field(description="delay_left_ms + bank_ms: your time for this reply.")


# -- the view (typed for the schema; a dict at run time) ---------------------------------

TileList = Annotated[
    list[int],
    Field(
        min_length=2,
        max_length=2,
        description="A tile as [low, high] pips, e.g. [1, 3]; a double is [n, n].",
    ),
]
SideName = Literal["high", "low", "line_a", "line_b", "branch_a", "branch_b"]


class PointModel(_Message):
    """An attachment point: a tile and one of its sides (RULES.md §3)."""

    tile: TileList
    side: SideName = Field(
        description="high/low: a non-double's high end (its larger half) and low end; "
        "line_a/line_b: a double's two sides along the line (attached by line_a, so "
        "line_b is open); branch_a/branch_b: the spinner's crosswise sides."
    )


class OpenPointModel(PointModel):
    value: int = Field(ge=0, le=6, description="The pips a tile must show to attach here.")


class ScoringEnd(_Message):
    tile: TileList
    value: int = Field(description="What this end adds to the count (a double's: both halves).")


class LayoutModel(_Message):
    """The layout: tiles in the order placed, which point joined which, what is open."""

    placed: list[TileList]
    connections: list[Annotated[list[PointModel], Field(min_length=2, max_length=2)]] = Field(
        description="[the open point attached to, the new tile's joined side], in the order played."
    )
    attachment_points: list[OpenPointModel] = Field(description="Where a tile can go now.")
    scoring: list[ScoringEnd] = Field(description="The ends that count (RULES.md §4).")
    count: int = Field(description="The sum of the scoring ends.")
    spinner: TileList | None = Field(description="The first double of the round, if placed.")


class AuctionModel(_Message):
    standing_bid: int | None
    bidder: int | None = Field(description="Who made the standing bid (0 = A, 1 = B).")


class View(_Message):
    """Your view of the match (the rules library's ``PlayerView.to_dict()``): never a
    tile hidden from you."""

    player: int = Field(ge=0, le=1, description="You: 0 (player A) or 1 (player B).")
    round: int = Field(ge=1)
    phase: Literal["auction", "opening", "play"]
    to_act: int | None = Field(description="Whose decision it is (you, in a request).")
    turn: int
    hand: list[TileList] = Field(description="Your tiles, sorted.")
    opponent_hand_size: int
    boneyard_size: int
    layout: LayoutModel
    balances: list[int] = Field(min_length=2, max_length=2, description="[A's, B's].")
    jockey: int | None = Field(description="The round's jockey (auction rounds), or null.")
    opening: Literal["forced", "auction"]
    auction: AuctionModel
    drawn_this_turn: int = Field(description="Tiles you drew in this turn so far.")
    legal_actions: list[str] = Field(
        description="The same list as the request's legal (kept so that a view is complete "
        "on its own, e.g. in a transcript or a tool that only reads views)."
    )


class Request(_Message):
    """A decision request: reply with an ``action`` echoing ``id``."""

    type: Literal["request"] = "request"
    id: int = Field(description="Echo this id in your action.")
    view: dict[str, Any] = Field(description="Your view of the match: a View.")
    clock: ClockInfo
    legal: list[str] = Field(
        description="Every legal action, in canonical notation, sorted: answer one of them. "
        "The view's legal_actions is the same list."
    )
    legal_points: list[int] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # absent, not null, for engines that did not ask
        description="Only for an engine whose hello asked for the 'points' feature: what "
        "each action of legal earns at once, in the same order (0 for all but plays and "
        "openings; the payer pays at most its balance).",
    )


class ErrorMsg(_Message):
    """An error about something the engine sent. For ``illegal`` and ``bad_action``
    the same request stays pending and the clock keeps running."""

    type: Literal["error"] = "error"
    id: int | str | None = Field(description="The id the bad message carried, if any.")
    code: ErrorCode
    message: str = Field(description="What was wrong, quoting the input, and the fix.")
    rule: str | None = Field(default=None, description="The RULES.md section, e.g. §4.")


class EventMsg(_Message):
    """Something public that happened (or, for a draw, private to you)."""

    type: Literal["event"] = "event"
    event: dict[str, Any] = Field(description="An event dict with a 'kind' field.")


class RulesAnswer(_Message):
    """The answer to a rules-help request. The clock did not stop."""

    type: Literal["rules"] = "rules"
    id: int | str
    topic: str | None
    text: str


class Ping(_Message):
    """Reply with a ``pong`` echoing ``id`` (outside the game clock)."""

    type: Literal["ping"] = "ping"
    id: int


class Quit(_Message):
    """The match is over for this engine: exit promptly."""

    type: Literal["quit"] = "quit"
    reason: str = "match_over"


# -- engine → referee ----------------------------------------------------------------------


class EngineHello(_Message):
    """The engine's answer to the referee's hello, within the start-up timeout."""

    type: Literal["hello"] = "hello"
    name: str = Field(min_length=1, max_length=100)
    author: str = Field(default="", max_length=100)
    version: str = Field(default="", max_length=50)
    protocol: str = Field(description="The protocol version the engine speaks: bidref/1.")
    features: list[str] = Field(
        default_factory=list,
        exclude_if=lambda v: not v,  # transcripts of engines that ask for nothing: unchanged
        description="Optional features asked for: 'points' adds legal_points to every "
        "request. Unknown names are ignored.",
    )


class ActionMsg(_Message):
    """The engine's reply to a request."""

    type: Literal["action"] = "action"
    id: int = Field(description="The id of the request this answers.")
    action: str = Field(
        description="One action in canonical bidref notation, e.g. 'play 1-3 1-1:line_a', "
        "'bid 20', 'draw' (best: one of the request's legal)."
    )


class RulesRequest(_Message):
    """Ask for (a section of) the rules. Answered at once; the clock keeps running."""

    type: Literal["rules"] = "rules"
    id: int | str
    topic: str | None = Field(default=None, description="A section number or word; null: all.")


class Log(_Message):
    """A line for the transcript (capped in size), not shown to the opponent."""

    type: Literal["log"] = "log"
    message: str


class Pong(_Message):
    type: Literal["pong"] = "pong"
    id: int


class Resign(_Message):
    """Give up the match: it ends at once as a loss for the sender (end reason
    ``resign``), rated like any finished match. Read when the referee next
    waits for the sender."""

    type: Literal["resign"] = "resign"
    message: str | None = Field(default=None, description="Why, for the transcript.")


RefereeMessage = Annotated[
    RefereeHello | Request | ErrorMsg | EventMsg | RulesAnswer | Ping | Quit,
    Field(discriminator="type"),
]
EngineMessage = Annotated[
    EngineHello | ActionMsg | RulesRequest | Log | Pong | Resign,
    Field(discriminator="type"),
]
