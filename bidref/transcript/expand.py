"""A verified transcript with everything spelled out: the lines a
``bidref-transcript/1`` writer would have written for the same match.

``bidref-transcript/2`` leaves out what the rules and the clock derive; a
program that wants it all (a test, an analysis script) reads
:func:`expanded_lines`: it replays the file (so nothing in it is taken on
trust), and gives back every line as a JSON object with the request's
position and clock, the reply's charge and banks, the retry's clock, an
``event`` line for every event (in its public form), and reveals that hold
every raw request line (regenerated), every raw reply line, and the tile of
every draw. Lines are numbered as in such a file (``seq``). A v1 file comes
back as it is.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import msgspec

from bidref.errors import BidrefError

from ..rules import Drew, Event, RoundEnded, public_event
from .files import decompress
from .lines import FORMAT_V1, AnyLine, RoundReveal, decoder, encoder
from .reader import read_transcript
from .replay import replay_lines

_HEAD = ("type", "seq", "t_ns", "seat", "id")


def _ends_round(order: list[Any]) -> bool:
    """The last entry is a derived round_ended event."""
    return bool(order) and isinstance(order[-1].item, RoundEnded)


class TranscriptMismatch(BidrefError, ValueError):  # ValueError: as before, for one release
    """The transcript does not replay clean: ``line`` is where."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}")


def expanded_lines(data: bytes, *, allow_truncated: bool = True) -> list[dict[str, Any]]:
    """Every line of a transcript (plain or compressed bytes), spelled out; raises
    :class:`TranscriptMismatch` when it does not replay clean."""
    return [d for _, d in expanded_entries(data, allow_truncated=allow_truncated)]


def expanded_entries(
    data: bytes, *, allow_truncated: bool = True
) -> list[tuple[int, dict[str, Any]]]:
    """:func:`expanded_lines`, each with the number of the file's own line it comes
    from: a line's own number; a derived event, the number of the line that caused it,
    or of the reveal it is written after (so a program can point at the file, e.g.
    ``FILE:LINE``, whatever its format; the numbers never go down)."""
    return [(n, d) for n, d, _ in _expanded(data, allow_truncated)]


class Expanded(NamedTuple):
    """One line of the spelled-out transcript, typed: a line model (a ``/1`` line as
    it is, or a ``/2`` line with what ``/1`` spells out filled in and renumbered) or a
    derived :class:`~bidref.rules.Event` in its public form (a ``/1`` file keeps its
    own event lines, :class:`~.lines.EventLine`)."""

    line: int  # the number of the file's own line it comes from (see expanded_entries)
    item: AnyLine | Event
    seq: int  # its place in the spelled-out transcript
    t_ns: int


def expanded_items(data: bytes, *, allow_truncated: bool = True) -> list[Expanded]:
    """:func:`expanded_entries` as typed values (for a reader that dispatches on the
    line's class, e.g. the HTML replay's timeline); raises as it does."""
    out = []
    for n, d, item in _expanded(data, allow_truncated):
        out.append(Expanded(n, item if item is not None else _model(d), d["seq"], d["t_ns"]))
    return out


def _model(d: dict[str, Any]) -> AnyLine:
    """The line model of a spelled-out line (through its JSON: ~7x faster than
    ``msgspec.convert``, which takes a string with a lone surrogate as it is)."""
    try:
        model: AnyLine = decoder.decode(encoder.encode(d))
    except UnicodeEncodeError:
        model = msgspec.convert(d, AnyLine)
    return model


def _expanded(
    data: bytes, allow_truncated: bool
) -> list[tuple[int, dict[str, Any], AnyLine | Event | None]]:
    """Each line spelled out as a JSON object, with the typed value it was made from
    when that is what it says (a ``/1`` line; a derived event's public form); None for
    a ``/2`` line that took fields from the replay (its model is the object's)."""
    data = decompress(data, "")
    report = replay_lines(read_transcript(data), steps=False, expand=True)
    if report.problem is not None:
        raise TranscriptMismatch(report.problem.line, report.problem.message)
    if report.truncated and not allow_truncated:
        raise TranscriptMismatch(report.lines, report.truncated)
    out: list[tuple[int, dict[str, Any], AnyLine | Event | None]] = []
    raw_lines = data.split(b"\n")  # each line as written, with any field a model leaves out
    if report.format == FORMAT_V1:
        return [
            (e.line, json.loads(raw_lines[e.line - 1]), e.item)
            for e in report.entries
            if not isinstance(e.item, Event)
        ]
    new_seq: dict[int, int] = {}
    private: list[dict[str, Any]] = []  # this round's items, in the expanded numbering
    # A v1 writer reveals a round right after its round_ended event: the events after
    # it in the same step (match_ended) wait for the round_reveal line.
    entries = list(report.entries)
    order: list[Any] = []
    waiting: list[Any] = []
    for e in entries:
        if isinstance(e.item, Event):
            (waiting if waiting or _ends_round(order) else order).append(e)
            continue
        order.append(e)
        if waiting and isinstance(e.item, RoundReveal):
            order.extend(waiting)
            waiting = []
        elif waiting:
            order[-1:-1] = waiting
            waiting = []
    order.extend(waiting)
    for e in order:
        x = e.extra or {}
        if isinstance(e.item, Event):
            seq = len(out)
            pub = public_event(e.item, None)
            assert pub is not None
            ev = {"type": "event", "seq": seq, "t_ns": x["t_ns"], "event": pub.to_dict()}
            # (an event that waits for the round's reveal is numbered with the reveal:
            # the numbers stay in file order)
            out.append((max(e.line, out[-1][0] if out else 0), ev, pub))
            if isinstance(e.item, Drew) and e.item.tile is not None:
                tile = e.item.tile.as_list()
                private.append({"seq": seq, "kind": "drew", "seat": e.item.player, "tile": tile})
            continue
        d: dict[str, Any] = json.loads(raw_lines[e.line - 1])
        new_seq[d["seq"]] = d["seq"] = len(out)
        kind = d["type"]
        if "_v1" in x:
            d = {k: d[k] for k in _HEAD if k in d} | x["_v1"]
        raw = x.get("_raw")
        if raw is not None:
            what = "request_raw" if kind == "request" else "reply_raw"
            private.append({"seq": d["seq"], "kind": what, "seat": d["seat"], "raw": raw})
        if kind == "header":
            d.pop("raw_lines", None)
        if kind == "round_reveal":
            regenerated = {(i["seq"], i["kind"]) for i in private}
            kept = []
            for item in d.pop("private", []):
                item["seq"] = new_seq.get(item["seq"], item["seq"])
                if (item["seq"], item["kind"]) not in regenerated:
                    kept.append(item)
            d.pop("requests", None)
            d.pop("reply_forms", None)
            d["private"] = sorted([*private, *kept], key=lambda i: i["seq"])
            private = []
        out.append((e.line, d, None))
    return out
