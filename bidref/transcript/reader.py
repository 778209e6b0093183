"""Read a transcript (JSONL, ``protocols/transcript.md``) into numbered lines.

Reading never raises on bad input: a line that is not a JSON object with a
``type`` is a :class:`LineProblem`; an unfinished last line (no newline and
not parseable, as a killed referee leaves it) marks the transcript truncated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

MESSAGE_LIMIT = 300


def shorten(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """A message that quotes input, cut in the middle when the input was huge (the start
    says what and where, the end says how to fix it)."""
    if len(message) <= limit:
        return message
    keep = (limit - 3) // 2
    return f"{message[:keep]} … {message[-keep:]}"


@dataclass(frozen=True, slots=True)
class Line:
    """One transcript line: its 1-based number in the file and its JSON object."""

    number: int
    data: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.data.get("type"))


@dataclass(frozen=True, slots=True)
class LineProblem:
    number: int
    message: str


@dataclass
class ReadResult:
    lines: list[Line] = field(default_factory=list)
    problem: LineProblem | None = None  # the first bad line; reading stops there
    truncated_at: int | None = None  # number of an unfinished last line


def read_transcript(data: bytes) -> ReadResult:
    """Split ``data`` into lines and parse each; stop at the first bad line."""
    out = ReadResult()
    raw_lines = data.split(b"\n")
    last_complete = data.endswith(b"\n")
    if last_complete:
        raw_lines.pop()  # the empty piece after the final newline
    for i, raw in enumerate(raw_lines, 1):
        unfinished = i == len(raw_lines) and not last_complete
        if not raw.strip():
            if unfinished:
                break
            out.problem = LineProblem(i, "an empty line: every line is one JSON object")
            return out
        try:
            text = raw.decode("utf-8")
            obj = json.loads(text)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            if unfinished:
                out.truncated_at = i
                return out
            what = "not UTF-8" if isinstance(e, UnicodeDecodeError) else "not valid JSON"
            out.problem = LineProblem(i, f"{what}: {e}")
            return out
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            out.problem = LineProblem(
                i, "not a transcript line: expected a JSON object with a 'type'"
            )
            return out
        out.lines.append(Line(i, obj))
    return out
