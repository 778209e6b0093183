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

The same models are what the referee writes (:class:`.writer.TranscriptWriter`
takes a :class:`Line`): a line knows its own JSON in each format,
:meth:`Line.full_json` (``/1``: everything spelled out) and
:meth:`Line.compact_json` (``/2``: what the rules and the clock derive left out;
None for a line ``/2`` does not keep). Each model's field order and its
``omit_defaults`` are those of the format (a field ``/2`` writes as ``null`` is
not left out), so encoding a model is writing its line.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Final, Literal, Union

import msgspec

from ..rules import clock as _clock

FORMAT_V1: Final = "bidref-transcript/1"
FORMAT: Final = "bidref-transcript/2"
FORMATS: Final = (FORMAT_V1, FORMAT)

RAW_CAP: Final = 1000
"""Characters kept of a raw engine line or a log message held back (the referee's cut:
``…[N chars]`` marks it, see :func:`cut_raw`)."""
LINES_CAP: Final = 200
"""Per seat and match: log lines, stale replies, rules requests recorded as lines, and
rejected replies whose raw line is kept (the referee's caps); further ones are counted
(``engine_exit``)."""


def cut_raw(raw: str) -> str:
    """An engine's line as held back in a transcript: at most RAW_CAP characters,
    and a mark of its length when cut."""
    if len(raw) <= RAW_CAP:
        return raw
    return f"{raw[:RAW_CAP]}…[{len(raw)} chars]"


def is_cut(text: str) -> bool:
    """A raw line the referee cut (:func:`cut_raw`)."""
    return len(text) > RAW_CAP and text[RAW_CAP] == "…" and text.endswith(" chars]")


class Line(msgspec.Struct, tag_field="type", omit_defaults=True):
    """One transcript line (a model per ``type``): ``seq`` is its place in the file,
    ``t_ns`` the referee's clock when it was written, from the header's 0."""

    seq: int
    t_ns: int

    def full_json(self) -> bytes:
        """The line in ``bidref-transcript/1`` (compact JSON, no newline)."""
        return encode_line(self)

    def compact_json(self) -> bytes | None:
        """The line in ``bidref-transcript/2``; None when ``/2`` leaves it out."""
        return encode_line(self)


_Line = Line


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
    engines: list[dict[str, Any]] = msgspec.field(default_factory=list)
    raw_lines: bool = False  # v2: the raw request and reply lines are kept too
    # Each seat's own clock in a handicap match (None: both play on time_control).
    time_controls: list[TimeControlField] | None = None
    # The referee's clock at t_ns 0, as the raw CLOCK_MONOTONIC value (ns), so that
    # an engine's own CLOCK_MONOTONIC stamps line up with the transcript's t_ns.
    monotonic_origin_ns: int | None = None
    timing_tolerance_ns: int | None = None  # see docs/match.md, "Clock promises"

    # The order the referee writes a header's fields in (the model's own order is
    # the documentation's); ``time_controls`` only in a handicap match,
    # ``raw_lines`` only in /2.
    _WRITTEN: ClassVar[tuple[str, ...]] = (
        "format",
        "bidref",
        "protocol",
        "rules",
        "started_at",
        "time_control",
        "time_controls",
        "monotonic_origin_ns",
        "timing_tolerance_ns",
        "max_rounds",
        "illegal",
        "transport",
        "seeded",
        "explicit_deals",
        "seed_commitment",
        "engines",
    )

    def _json(self, compact: bool) -> bytes:
        out: dict[str, Any] = {"type": "header", "seq": self.seq, "t_ns": self.t_ns}
        for name in self._WRITTEN:
            value = getattr(self, name)
            if name != "time_controls" or value is not None:
                out[name] = value
        if compact:
            out["raw_lines"] = self.raw_lines
        return encode_line(out)

    def full_json(self) -> bytes:
        return self._json(False)

    def compact_json(self) -> bytes | None:
        return self._json(True)


class Hello(_Line, tag="hello"):
    seat: int
    sent: str  # the referee's hello line as written
    received: str  # the engine's hello line as read
    engine: dict[str, Any]
    elapsed_ns: int
    # what the engine's jail gave it (bidref/sandbox/spec.py JailSpec.record); absent
    # for an unjailed seat
    jail: dict[str, Any] | None = None


class RoundStart(_Line, tag="round_start", omit_defaults=False):
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

    def compact_json(self) -> bytes | None:
        # the hot line, made without the encoder (benchmarks/referee_overhead.py)
        return (
            f'{{"type":"request","seq":{self.seq},"t_ns":{self.t_ns},'
            f'"seat":{self.seat},"id":{self.id}}}'
        ).encode()


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
    # User + system CPU time (ns) of the replying engine since its request was
    # written (or its last rejected reply), and before that, since its previous
    # reply (the hellos for its first): what it used while not on move. Absent
    # where unknown (a person, a network seat). Not checked: nothing derives it.
    cpu_ns: int | None = None
    idle_cpu_ns: int | None = None
    charge: Charge | None = None
    banks_ns: list[int] | None = None

    def full_json(self) -> bytes:
        # /1 spells out an accepted reply's status and null action or rule too
        out: dict[str, Any] = {
            "type": "reply",
            "seq": self.seq,
            "t_ns": self.t_ns,
            "seat": self.seat,
            "id": self.id,
            "status": self.status,
            "action": self.action,
            "rule": self.rule,
            "elapsed_ns": self.elapsed_ns,
        }
        if self.cpu_ns is not None:
            out["cpu_ns"] = self.cpu_ns
        if self.idle_cpu_ns is not None:
            out["idle_cpu_ns"] = self.idle_cpu_ns
        out["charge"] = self.charge
        out["banks_ns"] = self.banks_ns
        return encode_line(out)

    def compact_json(self) -> bytes | None:
        if self.status == "accepted" and self.action is not None and self.rule is None:
            # the hot line, made without the encoder (benchmarks/referee_overhead.py)
            cpu = "" if self.cpu_ns is None else f',"cpu_ns":{self.cpu_ns}'
            if self.idle_cpu_ns is not None:
                cpu += f',"idle_cpu_ns":{self.idle_cpu_ns}'
            return (
                f'{{"type":"reply","seq":{self.seq},"t_ns":{self.t_ns},"seat":{self.seat},'
                f'"id":{self.id},"action":{_json_str(self.action)}{cpu}}}'
            ).encode()
        return encode_line(
            msgspec.structs.replace(self, elapsed_ns=None, charge=None, banks_ns=None)
        )


class Retry(_Line, tag="retry"):
    seat: int
    id: int
    deadline_ns: int | None = None
    delay_left_ns: int | None = None
    bank_ns: int | None = None

    def compact_json(self) -> bytes | None:
        return encode_line(
            msgspec.structs.replace(self, deadline_ns=None, delay_left_ns=None, bank_ns=None)
        )


class Timeout(_Line, tag="timeout"):
    seat: int
    overrun_ns: int


class Stale(_Line, tag="stale"):
    seat: int
    id: int | None = None
    pending: int | None = None


class RulesAsked(_Line, tag="rules", omit_defaults=False):
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

    def compact_json(self) -> bytes | None:
        return None  # the replay derives the events


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
    private: list[PrivateItem] = msgspec.field(default_factory=list)
    requests: RequestDigest | None = None  # v2
    reply_forms: list[str | None] | None = None  # v2, per seat: see REPLY_FORMS

    def full_json(self) -> bytes:
        # /1: the private items always (an empty list too), no digest
        return encode_line(
            {
                "type": "round_reveal",
                "seq": self.seq,
                "t_ns": self.t_ns,
                "round": self.round,
                "salt": self.salt,
                "deal": self.deal,
                "private": self.private,
            }
        )


class Connection(_Line, tag="connection", kw_only=True):
    """A network seat's connect, resume, disconnect, refused connection or restarted
    engine (docs/network.md); ``at_ns`` is when it happened, ``t_ns`` when written."""

    seat: int
    event: str
    connection: int | None = None
    fresh: bool | None = None
    reason: str | None = None
    at_ns: int


class SeedReveal(_Line, tag="seed_reveal"):
    seed: int
    salt: str


class EngineExit(_Line, tag="engine_exit", omit_defaults=False, kw_only=True):
    seat: int
    exit_code: int | None = None
    signal: str | None = None
    how: str
    stderr_bytes: int | None = None
    log_lines: int | None = None
    stale_lines: int | None = None
    rules_requests: int | None = None
    rejected: int | None = None
    stderr_log: str | None = None


class Result(_Line, tag="result", omit_defaults=False, kw_only=True):
    winner: int | None
    reason: str
    detail: dict[str, Any] = msgspec.field(default_factory=dict)
    balances: list[int]
    rounds: int
    rated: bool
    engines: list[str] = msgspec.field(default_factory=list)


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

LINE_TYPES: Final[tuple[type[Line], ...]] = AnyLine.__args__  # type: ignore[attr-defined]

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
_encode = encoder.encode
_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_str(text: str) -> str:
    """``text`` as a JSON string (lone surrogates as U+FFFD)."""
    if _SURROGATE.search(text) is not None:
        text = _SURROGATE.sub("\ufffd", text)
    return _encode(text).decode()


def _clean(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, msgspec.Struct):
        return _clean(msgspec.to_builtins(value))
    return value


def utf8(text: str) -> bytes:
    """``text`` as UTF-8, lone surrogates as U+FFFD (never raises)."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text).encode()


def encode_line(obj: Any) -> bytes:
    """One line's JSON (no newline): compact, UTF-8, never failing on a string (a
    lone surrogate, which an engine can send as ``"\\ud800"``, becomes U+FFFD)."""
    try:
        return _encode(obj)
    except UnicodeEncodeError:
        return _encode(_clean(obj))


def tag_of(cls: type[Line]) -> str:
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
    cpu_ns: int | None = None,
    idle_cpu_ns: int | None = None,
) -> dict[str, Any]:
    """The fields of a ``reply`` line after its seat and id, as
    ``bidref-transcript/1`` spells them out (the CPU times only where known):
    what replay's expansion derives, in the order :class:`Reply` writes them."""
    cpu: dict[str, int] = {}
    if cpu_ns is not None:
        cpu["cpu_ns"] = cpu_ns
    if idle_cpu_ns is not None:
        cpu["idle_cpu_ns"] = idle_cpu_ns
    return {
        "status": status,
        "action": action,
        "rule": rule,
        "elapsed_ns": charge.elapsed,
        **cpu,
        "charge": {
            "delay_used_ns": charge.delay_used,
            "bank_used_ns": charge.bank_used,
            "timed_out": charge.timed_out,
            "overrun_ns": charge.overrun,
        },
        "banks_ns": list(banks),
    }
