"""Read a transcript (JSONL, ``protocols/transcript.md``) into numbered, typed lines.

Each line is decoded straight into its model (:mod:`.lines`): a line that is not
JSON, not UTF-8, not an object of a known ``type`` or with a field of the wrong
type is a :class:`LineProblem` that names the field. Reading never raises on bad
input; an unfinished last line (no newline and not readable, as a killed referee
leaves it) marks the transcript truncated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

import msgspec

from .lines import AnyLine, decoder

MESSAGE_LIMIT = 300


def shorten(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """A message that quotes input, cut in the middle when the input was huge (the start
    says what and where, the end says how to fix it)."""
    if len(message) <= limit:
        return message
    keep = (limit - 3) // 2
    return f"{message[:keep]} … {message[-keep:]}"


class Line(NamedTuple):
    """One transcript line: its 1-based number in the file and its model."""

    number: int
    item: AnyLine

    @property
    def type(self) -> str:
        return str(type(self.item).__struct_config__.tag)

    @property
    def data(self) -> dict[str, object]:
        """The line as a JSON object (for display and ``--json``)."""
        d: dict[str, object] = msgspec.to_builtins(self.item)
        return d


@dataclass(frozen=True, slots=True)
class LineProblem:
    number: int
    message: str


@dataclass
class ReadResult:
    lines: list[Line] = field(default_factory=list)
    problem: LineProblem | None = None  # the first bad line; reading stops there
    truncated_at: int | None = None  # number of an unfinished last line


def _why(raw: bytes, e: Exception) -> str:
    if isinstance(e, RecursionError):
        return "not a transcript line: nested too deeply"
    text = str(e)
    if "UTF-8" in text:
        return f"not UTF-8: {text}"
    if isinstance(e, msgspec.ValidationError):
        if "`$.type`" in text or "missing required field `type`" in text:
            return f"not a transcript line ({text}): expected a JSON object with a known 'type'"
        if text.startswith("Expected `object`"):
            return "not a transcript line: expected a JSON object with a 'type'"
        return f"a malformed line: {text}"
    if b"\\u" in raw.lower() and re.search(rb"\\u[dD][89a-fA-F]", raw):
        return "a string holds a lone surrogate escape (e.g. \\ud800): not Unicode text"
    return f"not valid JSON: {text}"


def read_transcript(data: bytes) -> ReadResult:
    """Split ``data`` into lines and decode each; stop at the first bad line."""
    out = ReadResult()
    raw_lines = data.split(b"\n")
    last_complete = data.endswith(b"\n")
    if last_complete:
        raw_lines.pop()  # the empty piece after the final newline
    decode = decoder.decode
    append = out.lines.append
    last = len(raw_lines)
    for i, raw in enumerate(raw_lines, 1):
        try:
            append(Line(i, decode(raw)))
            continue
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as e:
            unfinished = i == last and not last_complete
            if unfinished and (not raw.strip() or isinstance(e, msgspec.DecodeError)):
                if raw.strip():
                    out.truncated_at = i
                return out
            if not raw.strip():
                out.problem = LineProblem(i, "an empty line: every line is one JSON object")
            else:
                out.problem = LineProblem(i, _why(raw, e))
            return out
    return out
