"""The transcript's line types: one typed model per line (``protocols/transcript.md``).

The writer encodes these, and the reader decodes every line into one of them
(``type`` is the tag), so a field of the wrong type or a missing one is a
problem of that line before any check of its meaning. The models are
msgspec structs: decoding a line straight into its struct is ~4× faster than
``json.loads`` into a dict and ~10× faster than pydantic (measured in
``benchmarks/transcript_models.py``; see CHANGELOG).

Both formats decode into the same models: ``bidref-transcript/2`` leaves out
what the rules and the clock derive (a request's clock, a reply's charge,
the event lines, the raw request lines) and the fields that only
``bidref-transcript/1`` has are optional here. Unknown fields are ignored on
reading, so a newer writer may add fields (e.g. to the header or a result's
detail) without breaking an older replay.
"""

from __future__ import annotations

from typing import Any, Final, Literal, Union

import msgspec

from ..rules import clock as _clock

FORMAT_V1: Final = "bidref-transcript/1"
FORMAT: Final = "bidref-transcript/2"
FORMATS: Final = (FORMAT_V1, FORMAT)


class _Line(msgspec.Struct, tag_field="type", omit_defaults=True):
    seq: int
    t_ns: int


class TimeControlField(msgspec.Struct):
    bank_ns: int
    delay_ns: int


class Header(_Line, tag="header"):
    """The first line: what was played, by whom, under which settings."""

    format: str
    rules: str
    protocol: str
    time_control: TimeControlField
    illegal: str
    bidref: str | None = None
    started_at: str | None = None
    max_rounds: int | None = None
    transport: str | None = None
    seeded: bool = False
    explicit_deals: int = 0
    seed_commitment: str | None = None
    engines: list[dict[str, Any]] = []
    raw_lines: bool = False  # v2: the raw request and reply lines are kept too
    # Each seat's own clock in a handicap match (None: both play on time_control).
    time_controls: list[TimeControlField] | None = None
    # The referee's clock at t_ns 0, as the raw CLOCK_MONOTONIC value (ns), so that
    # an engine's own CLOCK_MONOTONIC stamps line up with the transcript's t_ns.
    monotonic_origin_ns: int | None = None
    timing_tolerance_ns: int | None = None  # see docs/match.md, "Clock promises"


class Hello(_Line, tag="hello"):
    seat: int
    sent: str  # the referee's hello line as written
    received: str  # the engine's hello line as read
    engine: dict[str, Any]
    elapsed_ns: int


class RoundStart(_Line, tag="round_start"):
    round: int
    deal_commitment: str
    opening: str
    jockey: int | None = None
    balances: list[int] | None = None


class RequestClock(msgspec.Struct):
    delay_left_ns: int
    bank_ns: int
    opponent_bank_ns: int


class Request(_Line, tag="request"):
    """A decision request was written to ``seat``. v1 also states the game position
    and the clock (v2 derives them)."""

    seat: int
    id: int
    round: int | None = None
    turn: int | None = None
    phase: str | None = None
    clock: RequestClock | None = None
    deadline_ns: int | None = None


class Charge(msgspec.Struct):
    delay_used_ns: int
    bank_used_ns: int
    timed_out: bool
    overrun_ns: int


Status = Literal["accepted", "illegal", "bad_action"]


class Reply(_Line, tag="reply"):
    """A line answering the pending request: ``action`` when accepted (v2 leaves
    ``status`` out then), ``status`` and ``rule`` when rejected."""

    seat: int
    id: int
    status: Status = "accepted"
    action: str | None = None
    rule: str | None = None
    elapsed_ns: int | None = None
    charge: Charge | None = None
    banks_ns: list[int] | None = None


class Retry(_Line, tag="retry"):
    seat: int
    id: int
    deadline_ns: int | None = None
    delay_left_ns: int | None = None
    bank_ns: int | None = None


class Timeout(_Line, tag="timeout"):
    seat: int
    overrun_ns: int


class Stale(_Line, tag="stale"):
    seat: int
    id: int | None = None
    pending: int | None = None


class RulesAsked(_Line, tag="rules"):
    seat: int
    id: str | int | None = None
    topic: str | None = None


class LogLine(_Line, tag="log"):
    seat: int
    chars: int


class Resign(_Line, tag="resign"):
    seat: int


class EventLine(_Line, tag="event"):
    """v1 only: a game event in its public form (v2 derives the events)."""

    event: dict[str, Any]


class PrivateItem(msgspec.Struct, omit_defaults=True):
    """Something held back until the round's reveal, for the public line ``seq``."""

    seq: int
    kind: str  # request_raw, reply_raw, error_raw, drew (v1), log, resign_message
    seat: int | None = None
    raw: str | None = None
    message: str | None = None
    tile: list[int] | None = None


class RequestDigest(msgspec.Struct):
    """v2: the request lines sent in a round, proven without storing them: their
    count, the SHA-256 of all of them (each with its newline, in order), and the
    first 8 hex digits of each one's SHA-256 (to name the first that differs)."""

    count: int
    sha256: str
    tags: list[str]


class RoundReveal(_Line, tag="round_reveal"):
    round: int
    salt: str
    deal: dict[str, Any]
    private: list[PrivateItem] = []
    requests: RequestDigest | None = None  # v2
    reply_forms: list[str | None] | None = None  # v2, per seat: see REPLY_FORMS


class Connection(_Line, tag="connection"):
    """A network seat's connect, resume, disconnect, refused connection or restarted
    engine (docs/network.md); ``at_ns`` is when it happened, ``t_ns`` when written."""

    seat: int
    event: str
    at_ns: int
    connection: int | None = None
    fresh: bool | None = None
    reason: str | None = None


class SeedReveal(_Line, tag="seed_reveal"):
    seed: int
    salt: str


class EngineExit(_Line, tag="engine_exit"):
    seat: int
    how: str
    exit_code: int | None = None
    signal: str | None = None
    stderr_bytes: int | None = None
    log_lines: int | None = None
    stale_lines: int | None = None
    rules_requests: int | None = None
    rejected: int | None = None
    stderr_log: str | None = None


class Result(_Line, tag="result"):
    winner: int | None
    reason: str
    balances: list[int]
    rounds: int
    rated: bool
    detail: dict[str, Any] = {}
    engines: list[str] = []


AnyLine = Union[  # noqa: UP007 - msgspec needs a Union of the tagged structs
    Header,
    Hello,
    RoundStart,
    Request,
    Reply,
    Retry,
    Timeout,
    Stale,
    RulesAsked,
    LogLine,
    Resign,
    EventLine,
    RoundReveal,
    SeedReveal,
    EngineExit,
    Result,
    Connection,
]

LINE_TYPES: Final[tuple[type[_Line], ...]] = AnyLine.__args__  # type: ignore[attr-defined]

REPLY_FORMS: Final = {
    "compact": '{{"type":"action","id":{id},"action":{action}}}',
    "spaced": '{{"type": "action", "id": {id}, "action": {action}}}',
}
"""v2: the usual spellings of an action reply (``action`` as a JSON string). A
round's reveal names each seat's form; an accepted reply spelled otherwise (or
cut) has its raw line in ``private``."""


_FORM_TEXT: Final = {
    "compact": lambda i, a: f'{{"type":"action","id":{i},"action":{a}}}',
    "spaced": lambda i, a: f'{{"type": "action", "id": {i}, "action": {a}}}',
}


def reply_form_text(form: str, reply_id: int, action_json: str) -> str:
    """The raw line of an accepted reply spelled in ``form`` (one of REPLY_FORMS)."""
    text: str = _FORM_TEXT[form](reply_id, action_json)
    return text


decoder: Final = msgspec.json.Decoder(AnyLine)
encoder: Final = msgspec.json.Encoder()


def tag_of(cls: type[_Line]) -> str:
    return str(cls.__struct_config__.tag)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of every line type (``protocols/transcript.schema.json``)."""
    _, components = msgspec.json.schema_components(LINE_TYPES, ref_template="#/$defs/{name}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "bidref transcript line",
        "description": "One line of a bidref transcript (bidref-transcript/1 or /2): "
        "see protocols/transcript.md.",
        "anyOf": [{"$ref": f"#/$defs/{cls.__name__}"} for cls in LINE_TYPES],
        "$defs": components,
    }


def reply_fields(
    status: str,
    action: str | None,
    rule: str | None,
    charge: _clock.Charge,
    banks: tuple[int, int] | list[int],
) -> dict[str, Any]:
    """The fields of a ``reply`` line after its seat and id, as
    ``bidref-transcript/1`` spells them out: what the referee writes for a
    rejected reply and what replay's expansion derives (one dict, not two)."""
    return {
        "status": status,
        "action": action,
        "rule": rule,
        "elapsed_ns": charge.elapsed,
        "charge": {
            "delay_used_ns": charge.delay_used,
            "bank_used_ns": charge.bank_used,
            "timed_out": charge.timed_out,
            "overrun_ns": charge.overrun,
        },
        "banks_ns": list(banks),
    }
