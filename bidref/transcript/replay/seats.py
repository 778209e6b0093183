"""What each seat was sent and what it answered, proven line by line.

- the hello each engine was sent carries the header's settings;
- every request line sent is regenerated from the rules state and the clock,
  byte for byte: ``bidref-transcript/2`` checks it against the reveal's short
  hash of that line and the round's SHA-256 of all of them, ``/1`` (and
  ``--raw-lines``) against the raw line kept;
- an accepted reply is the raw line kept, or (v2) the seat's usual spelling of
  the action, which the reveal names;
- a rejected reply's raw line shows an action that the rules really forbid
  (or no action at all), by the rule the line names, and the error sent is the
  rules' own message.

The referee keeps the raw lines of only the first ``LINES_CAP`` rejected
replies per seat and cuts every raw line to ``RAW_CAP`` characters: past the
cap a raw line may be missing, and a cut one is not checked further.
"""

from __future__ import annotations

import hashlib
import json
from hashlib import sha256
from typing import Any

from ...protocol import load_json
from ...protocol.fastview import RequestEncoder, clock_members
from ...rules import (
    MILLISECOND,
    Action,
    IllegalActionError,
    Match,
    MatchClock,
    NotationError,
    parse_action,
)
from ..lines import LINES_CAP, REPLY_FORMS, Header, Hello, Reply, cut_raw, is_cut, reply_form_text
from ..reader import Line
from ..writer import request_tag
from .report import Mismatch, Reveal, diff


def _loads(raw: str) -> Any:
    """A raw line's JSON value, read as the referee read it (None: not JSON)."""
    try:
        return load_json(raw)
    except (json.JSONDecodeError, RecursionError, ValueError):
        return None


class SeatProof:
    def __init__(self, header: Header) -> None:
        self.header = header
        self.encoder = RequestEncoder()
        self.round_digest = hashlib.sha256()
        self.round_requests = 0
        self.rejected = [0, 0]
        self.rejection: dict[str, Any] | None = None  # the last rejected reply, revealed

    def hello(self, ln: Line, h: Hello) -> None:
        """The hello the engine was sent tells it the match's settings: the header's."""
        sent = _loads(h.sent)
        settings = sent.get("settings") if isinstance(sent, dict) else None
        if not isinstance(settings, dict) or sent.get("seat") != h.seat:
            raise Mismatch(
                ln.number,
                "the hello sent to the engine ('sent') is not a hello with this seat "
                "and its settings",
            )
        hd = self.header
        tc = hd.time_control
        if hd.time_controls is not None and h.seat in (0, 1) and len(hd.time_controls) == 2:
            tc = hd.time_controls[h.seat]  # a handicap match: the seat's own clock
        features = h.engine.get("features")
        if h.seat in (0, 1) and isinstance(features, list) and "points" in features:
            # the engine asked for each legal action's points in its requests
            pts = list(self.encoder.points)
            pts[h.seat] = True
            self.encoder.points = (pts[0], pts[1])
        said = {k: settings.get(k) for k in ("bank_ms", "delay_ms", "max_rounds", "illegal")}
        derived = {
            "bank_ms": tc.bank_ns // MILLISECOND,
            "delay_ms": tc.delay_ns // MILLISECOND,
            "max_rounds": hd.max_rounds,
            "illegal": hd.illegal,
        }
        if said != derived:
            raise Mismatch(
                ln.number,
                f"the engine was told other settings than the header's: {diff(said, derived)}",
            )

    # -- what was sent -------------------------------------------------------------------

    def request(
        self, ln: Line, m: Match, c: MatchClock, rid: int, rev: Reveal | None
    ) -> str | None:
        """The request line the engine was sent, regenerated and checked (returned)."""
        if rev is None:
            return None
        seat = m.to_act
        head, tail = self.encoder.encode_parts(m, rid)
        ms = MILLISECOND
        delay, bank = c.delay_left, c.banks[seat]
        members = clock_members(
            delay // ms, bank // ms, c.banks[1 - seat] // ms, (delay + bank) // ms
        )
        line = f"{head}{members}{tail}"
        b = line.encode()  # the referee's own text: no lone surrogates
        digest = self.round_digest
        digest.update(b)
        digest.update(b"\n")
        index = self.round_requests
        self.round_requests = index + 1
        requests = rev.requests
        seq = ln.item.seq
        if requests is not None and seq not in rev.private:  # v2, and no raw line kept
            tags = requests.tags  # the usual case, in short: the line's hash is the tag
            if index < len(tags) and tags[index] == sha256(b).hexdigest()[:8]:
                return line
        item = rev.item(seq, "request_raw") if rev.private else None
        if item is not None:
            if item.seat != seat:
                raise Mismatch(
                    rev.line, f"a request_raw item of seat {item.seat!r} for seat {seat}"
                )
            said = _loads(item.raw or "") if item.raw != line else None
            if item.raw != line and said != _loads(line):
                # v1 compares the content (an older referee may have spelled it otherwise)
                why = diff(said, _loads(line)) if isinstance(said, dict) else repr(item.raw)
                raise Mismatch(
                    rev.line,
                    f"the request sent on line {ln.number} (revealed here) is not what the "
                    f"rules give: {why or 'the same fields, spelled otherwise'}",
                )
        elif rev.requests is None:
            raise Mismatch(
                rev.line,
                f"the reveal has no raw line of the request on line {ln.number}: what the "
                "engine was sent is not shown",
            )
        if rev.requests is not None:
            tags = rev.requests.tags
            if index >= len(tags) or tags[index] != request_tag(b):
                said_tag = tags[index] if index < len(tags) else "none"
                raise Mismatch(
                    ln.number,
                    f"the request line sent here is not the one the rules give: the reveal "
                    f"(line {rev.line}) has hash {said_tag} for it, the rules' line "
                    f"{request_tag(b)}: {line[:200]}",
                )
        return line

    def round_end(self, rev: Reveal) -> None:
        """At a round's reveal: all its request lines, in order, hash to its digest."""
        d = rev.requests
        count, digest = self.round_requests, self.round_digest.hexdigest()
        self.round_digest = hashlib.sha256()
        self.round_requests = 0
        if d is not None and (d.count != count or d.sha256 != digest or len(d.tags) != count):
            raise Mismatch(
                rev.line,
                f"the round's {count} request line(s) hash to {digest}, but the reveal says "
                f"{d.count} line(s) with {d.sha256}",
            )

    # -- what was answered ------------------------------------------------------------

    def accepted(self, ln: Line, r: Reply, action: Action, rev: Reveal | None) -> str | None:
        """The raw reply is the accepted action for this id. Returns the raw line kept,
        or the name of the seat's usual spelling (see :func:`reply_raw`), or None."""
        if rev is None:
            return None
        item = rev.item(r.seq, "reply_raw")
        if item is None:
            forms = rev.reply_forms
            form = None if forms is None else forms[r.seat]
            if form is not None:  # the seat's usual spelling: the raw line is that text
                return form
            raise Mismatch(
                rev.line,
                f"the reveal has no raw line of the reply on line {ln.number}: what the "
                "engine said is not shown",
            )
        raw = item.raw or ""
        if item.seat != r.seat:
            raise Mismatch(rev.line, f"a reply_raw item of seat {item.seat!r} for seat {r.seat}")
        if is_cut(raw):
            return raw  # the referee kept only its start: the action is the public one
        obj = _loads(raw)
        text = obj.get("action") if isinstance(obj, dict) else None
        try:
            said = parse_action(text) if isinstance(text, str) else None
        except (NotationError, ValueError):
            said = None
        if said != action or not isinstance(obj, dict) or obj.get("id") != r.id:
            raise Mismatch(
                rev.line,
                f"the reply revealed for line {ln.number} is {raw!r}, but line {ln.number} "
                f"accepts {str(action)!r} for id {r.id!r}",
            )
        return raw

    def rejected_reply(self, ln: Line, r: Reply, m: Match, rev: Reveal | None) -> None:
        """A rejected action was really illegal (or unreadable, for ``bad_action``), by
        the rule the line names, and the error sent is the rules' own message."""
        n = ln.number
        self.rejected[r.seat] += 1
        self.rejection = None
        if rev is None:
            return
        item = rev.item(r.seq, "reply_raw")
        if item is None:
            if self.rejected[r.seat] > LINES_CAP:
                return  # past the cap the raw line is not kept
            raise Mismatch(
                rev.line,
                f"the reveal has no raw line of the rejected reply on line {n}: what the "
                "engine said is not shown",
            )
        raw = item.raw or ""
        if is_cut(raw):
            return
        obj = _loads(raw)
        text = obj.get("action") if isinstance(obj, dict) else None
        if not isinstance(text, str) or obj.get("id") != r.id:
            raise Mismatch(
                rev.line,
                f"the reply revealed for line {n} is {raw!r}, not an action for id {r.id!r}",
            )
        try:
            action = parse_action(text)
        except (NotationError, ValueError) as e:
            if r.status != "bad_action" or r.rule is not None:
                raise Mismatch(
                    n, f"{text!r} is no action ({e}): a bad_action without a rule"
                ) from None
            message = f"{e}; answer with one of the request's 'legal' actions"
        else:
            if action in m.legal_actions():
                raise Mismatch(
                    n, f"the referee rejected {str(action)!r}, which is legal {m.where()}"
                )
            try:
                m.copy().apply(action, r.seat)
            except IllegalActionError as e:
                if r.status != "illegal" or r.rule != e.rule:
                    raise Mismatch(
                        n,
                        f"{r.status!r} by rule {r.rule!r}, but the rules forbid "
                        f"{str(action)!r} by {e.rule}",
                    ) from None
                message = str(e)
            else:  # not reached: an action outside legal_actions() is refused by apply
                raise Mismatch(n, f"the referee rejected {str(action)!r}, which is legal")
        err = rev.item(r.seq, "error_raw")
        said = None if err is None else err.message
        if said != cut_raw(message):
            raise Mismatch(
                rev.line, f"the error sent for line {n} was {said!r}; the rules say {message!r}"
            )
        self.rejection = {
            "seat": r.seat,
            "action": text,
            "rule": r.rule,
            "code": r.status,
            "message": message,
        }


def reply_raw(kept_or_form: str, r: Reply) -> str:
    """The raw line of an accepted reply: as kept, or in the seat's usual spelling."""
    if kept_or_form in REPLY_FORMS:
        return reply_form_text(kept_or_form, r.id, json.dumps(r.action, ensure_ascii=False))
    return kept_or_form


__all__ = ["SeatProof", "reply_raw"]
