"""Lines ↔ messages for protocol ``bidref/1``.

Decoding is strict and its errors are narrow: each quotes the offending line
(truncated) and says what would have been accepted. Encoding writes compact
JSON without the trailing newline; the transport adds the line end.

The request line is the hot path of the referee, so :func:`encode_request`
builds it from plain dicts with :func:`json.dumps` (no model validation); a
test checks that it equals :func:`encode` of the :class:`Request` model.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from pydantic import TypeAdapter, ValidationError

from bidref.errors import BidrefError

from .messages import (
    ActionMsg,
    EngineMessage,
    ErrorCode,
    Log,
    Pong,
    RefereeMessage,
    RulesRequest,
    _Message,
)

MAX_QUOTE: Final = 200
MAX_DEPTH: Final = 32
"""The deepest nesting of arrays and objects accepted in a line (no message
needs more than 4; deeper JSON could exhaust the parser's recursion)."""
_STRINGS: Final = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS: Final = re.compile(r"[\[\]{}]")
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")

_ENGINE_ADAPTER: TypeAdapter[EngineMessage] = TypeAdapter(EngineMessage)
_REFEREE_ADAPTER: TypeAdapter[RefereeMessage] = TypeAdapter(RefereeMessage)
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def quote(line: str, limit: int = MAX_QUOTE) -> str:
    """``line`` as a repr, cut to ``limit`` characters with a marker."""
    if len(line) > limit:
        return repr(line[:limit]) + f"… ({len(line)} chars)"
    return repr(line)


class ProtocolError(BidrefError, ValueError):  # ValueError: as before, for one release
    """A line that is not a valid message. ``line`` is the raw line; ``code`` is
    the error code sent back to the engine (bad_json or bad_message)."""

    code: ErrorCode = "bad_message"

    def __init__(self, line: str, problem: str) -> None:
        self.line = line
        self.problem = problem
        super().__init__(f"{problem}: {quote(line)}")


class BadJson(ProtocolError):
    code: ErrorCode = "bad_json"


class BadMessage(ProtocolError):
    code: ErrorCode = "bad_message"


def encode(message: _Message) -> str:
    """One message as a compact JSON line (without the newline)."""
    return message.model_dump_json(exclude_none=False)


def encode_request(
    req_id: int, view: dict[str, Any], clock: dict[str, int], legal: list[str]
) -> str:
    """The request line, built without pydantic (hot path). Same text as
    ``encode(Request(...))``."""
    return _dumps({"type": "request", "id": req_id, "view": view, "clock": clock, "legal": legal})


def _nesting(line: str) -> int:
    """How deep arrays and objects nest in ``line`` (brackets inside strings do not count)."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(_STRINGS.sub("", line)):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _load_object(line: str) -> dict[str, Any]:
    # Most lines have a few brackets: only those with many are scanned.
    if line.count("[") + line.count("{") > MAX_DEPTH and _nesting(line) > MAX_DEPTH:
        raise BadJson(
            line,
            f"JSON nested more than {MAX_DEPTH} levels deep (the limit); "
            "send one flat JSON object per line",
        )
    try:
        obj = load_json(line)
    except json.JSONDecodeError as e:
        raise BadJson(
            line, f"not JSON ({e.msg} at column {e.colno}); send one JSON object per line"
        ) from None
    except ValueError as e:  # e.g. a number too long to convert
        raise BadJson(line, f"not JSON ({e}); send one JSON object per line") from None
    except RecursionError:  # (the depth check makes this unreachable; never a traceback)
        raise BadJson(line, "JSON nested too deeply; send one flat JSON object per line") from None
    if not isinstance(obj, dict):
        raise BadJson(
            line,
            f"a JSON {type(obj).__name__}, not an object; "
            'send an object like {"type": "action", ...}',
        )
    return obj


def load_json(line: str) -> Any:
    r"""The JSON value of a line an engine sent, as the referee reads it: the one
    way from raw line to values, used by the referee (through
    :func:`decode_engine_line`) and by ``bidref replay``, so that what replay
    rebuilds from a transcript's raw line is what the referee saw. Raises what
    :func:`json.loads` raises.

    A lone surrogate escape (``"\ud800"``) is valid JSON but no text: it could
    not be written to the transcript or echoed back. It becomes U+FFFD, as
    invalid UTF-8 bytes do (framing), so nothing after the codec ever sees one.

    >>> load_json(r'{"action": "\ud800 x"}') == {"action": "\ufffd x"}
    True
    """
    value = json.loads(line)
    if _SURROGATE_ESCAPE.search(line):
        return _without_surrogates(value)
    return value


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    return value


def _validate(adapter: TypeAdapter[Any], obj: dict[str, Any], line: str, known: str) -> Any:
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise BadMessage(line, f'no "type" string; give one of {known}')
    try:
        return adapter.validate_python(obj)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'message'}: {err['msg']}"
            for err in e.errors()[:3]
        )
        raise BadMessage(
            line, f"not a valid {kind!r} message ({problems}); types are {known}"
        ) from None


_ENGINE_TYPES = "hello, action, rules, log, pong"
_REFEREE_TYPES = "hello, request, error, event, rules, ping, quit"


_WS = r"[ \t\r\n]*"  # JSON whitespace (not \s: that also matches other Unicode spaces)
_ACTION_LINE: Final = re.compile(
    _WS.join(
        [
            "",
            r"\{",
            r'"type"',
            ":",
            r'"action"',
            ",",
            r'"id"',
            ":",
            r"(0|[1-9][0-9]{0,17})",
            ",",
            r'"action"',
            ":",
            r'"([^"\\\x00-\x1f]*)"',
            r"\}",
            "",
        ]
    )
)
"""An action line in its usual form: keys in this order, a non-negative id of at
most 18 digits, and an action string without escapes or control characters.
For such a line the JSON text *is* the value, so no JSON parser is needed."""
_COMPACT_ACTION_LINE: Final = re.compile(_ACTION_LINE.pattern.replace(_WS, ""))
"""The same without whitespace (what engines usually write; tried first, it is faster)."""


def action_reply(line: str) -> tuple[int, str] | None:
    """``(id, action)`` when ``line`` is an action message in its usual form, else None.

    The referee's fast path for the most frequent line: where it answers, the
    answer is exactly what :func:`decode_engine_line` gives (an
    :class:`ActionMsg` with this ``id`` and ``action``); None only means "not
    this form" — decode the line with :func:`decode_engine_line`, which may
    still accept it (other key order, escapes, extra fields) or reject it.

    >>> action_reply('{"type":"action","id":3,"action":"play 1-3 1-1:line_a"}')
    (3, 'play 1-3 1-1:line_a')
    >>> action_reply('{"type":"action","id":3,"action":"draw","note":1}') is None
    True
    """
    m = _COMPACT_ACTION_LINE.fullmatch(line) or _ACTION_LINE.fullmatch(line)
    if m is None:
        return None
    return int(m.group(1)), m.group(2)


def decode_engine_line(line: str) -> EngineMessage:
    """Parse one line an engine sent.

    >>> decode_engine_line('{"type":"log","message":"thinking"}')
    Log(type='log', message='thinking')
    >>> try:
    ...     decode_engine_line('draw')
    ... except BadJson as e:
    ...     print(e)
    not JSON (Expecting value at column 1); send one JSON object per line: 'draw'
    """
    obj = _load_object(line)
    # Fast path for the common replies (the referee's per-decision overhead).
    kind = obj.get("type")
    if kind == "action":
        i, a = obj.get("id"), obj.get("action")
        if type(i) is int and type(a) is str:
            return ActionMsg.model_construct(type="action", id=i, action=a)
    elif kind == "log":
        m = obj.get("message")
        if type(m) is str:
            return Log.model_construct(type="log", message=m)
    elif kind == "pong":
        i = obj.get("id")
        if type(i) is int:
            return Pong.model_construct(type="pong", id=i)
    elif kind == "rules":
        i, t = obj.get("id"), obj.get("topic")
        if type(i) in (int, str) and (t is None or type(t) is str):
            return RulesRequest.model_construct(type="rules", id=i, topic=t)
    msg: EngineMessage = _validate(_ENGINE_ADAPTER, obj, line, _ENGINE_TYPES)
    return msg


def decode_referee_line(line: str) -> RefereeMessage:
    """Parse one line the referee sent (for engines, the SDK and replay)."""
    msg: RefereeMessage = _validate(_REFEREE_ADAPTER, _load_object(line), line, _REFEREE_TYPES)
    return msg
