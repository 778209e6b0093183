"""The transcript writer: JSONL, flushed after every step, private data held back.

See ``protocols/transcript.md`` for the format. While a round runs only public
lines are written; private items (illegal reply texts, error messages, engine
logs) are collected and appended in one ``round_reveal`` line, after the
commitment to the round's deal written at the round's start.

``bidref-transcript/2`` (the default) stores what was observed and nothing the
rules or the clock derive: a request line is its seat, id and time, a reply
its action and time; the event lines, a request's clock, a reply's charge and
the raw request lines are left out. The raw request lines stay proven: each
round's reveal carries the SHA-256 of all of them and a short hash of each,
which the replay checks against the lines it regenerates from the rules state.
Accepted replies in a seat's usual spelling are proven the same way (the
reveal names the spelling); any other raw reply is kept. ``raw_lines=True``
keeps every raw line too (for debugging an engine); ``format=FORMAT_V1``
writes the old ``bidref-transcript/1`` (everything spelled out).

The writer never fails on a string: a lone surrogate (an engine can send
``"\\ud800"`` in a JSON string) is written as U+FFFD. Names ending in ``.gz``
or ``.zst`` are compressed (see :mod:`.files`), still flushed at every step.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import msgspec

from .files import open_sink
from .lines import (
    FORMAT,
    FORMAT_V1,
    REPLY_FORMS,
    PrivateItem,
    Reply,
    Request,
    RequestDigest,
    Retry,
    RoundReveal,
    reply_form_text,
)

__all__ = ["FORMAT", "FORMAT_V1", "TranscriptWriter"]

SaltSource = Callable[[], bytes]
"""Returns fresh random bytes for a commitment (``secrets.token_bytes(32)`` in real use)."""

RAW_CAP: Final = 1000
"""Characters kept of a raw engine line or a log message held back (the referee's cut:
``…[N chars]`` marks it)."""
LINES_CAP: Final = 200
"""Per seat and match: log lines, stale replies, rules requests recorded as lines, and
rejected replies whose raw line is kept (the referee's caps)."""

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_encode = msgspec.json.Encoder().encode
_SURROGATE = re.compile("[\ud800-\udfff]")
# The referee's hot lines as write_json gets them (see referee.py): seat and id first.
_REQUEST = re.compile(r'"seat":([01]),"id":(\d+),')
_ACCEPTED = re.compile(
    r'"seat":([01]),"id":(\d+),"status":"accepted","action":("(?:[^"\\]|\\.)*"),'
)
_CPU = re.compile(r'"elapsed_ns":\d+((?:,"cpu_ns":\d+)?(?:,"idle_cpu_ns":\d+)?)')


def default_salt() -> bytes:
    return secrets.token_bytes(32)


def counter_salt(prefix: bytes = b"bidref-test") -> SaltSource:
    """A deterministic salt source for tests and snapshots (NOT for real matches:
    a guessable salt lets a reader open the commitments early)."""
    n = 0

    def salt() -> bytes:
        nonlocal n
        n += 1
        return hashlib.sha256(prefix + n.to_bytes(8, "big")).digest()

    return salt


_canonical = msgspec.json.Encoder(order="sorted").encode


def canonical_json(value: object) -> str:
    """The JSON a commitment hashes: keys sorted, compact, UTF-8 — the same text as
    ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
    for the ints, strings, lists and objects committed to (~15× faster)."""
    return _canonical(value).decode()


def commitment(salt_hex: str, value: object) -> str:
    """``"sha256:" + hex(sha256(salt_hex + ":" + canonical_json(value)))``."""
    digest = hashlib.sha256(f"{salt_hex}:{canonical_json(value)}".encode()).hexdigest()
    return "sha256:" + digest


def utf8(text: str) -> bytes:
    """``text`` as UTF-8, lone surrogates as U+FFFD (never raises)."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text).encode()


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


def encode_line(obj: Any) -> bytes:
    """One line's JSON (no newline): compact, UTF-8, never failing on a string."""
    try:
        return _encode(obj)
    except UnicodeEncodeError:
        return _encode(_clean(obj))


def request_tag(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:8]


class _RoundProof:
    """What a v2 reveal proves about the raw lines of one round."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.tags: list[str] = []
        # accepted replies: seq -> (seat, raw, the forms it is spelled in)
        self.replies: dict[int, tuple[int, str, tuple[str, ...]]] = {}

    def request(self, raw: str) -> None:
        b = utf8(raw)
        self.digest.update(b + b"\n")
        self.tags.append(request_tag(b))

    def reveal(self) -> tuple[RequestDigest, list[str | None], set[int]]:
        """The digest, each seat's usual reply spelling, and the seqs of the replies
        that spelling proves (their raw lines need not be kept)."""
        forms: list[str | None] = []
        proven: set[int] = set()
        for seat in (0, 1):
            counts: dict[str, int] = {}
            for s, _, fs in self.replies.values():
                if s == seat:
                    for f in fs:
                        counts[f] = counts.get(f, 0) + 1
            best = max(REPLY_FORMS, key=lambda f: counts.get(f, 0))
            forms.append(best if counts.get(best) else None)
            proven |= {q for q, (s, _, fs) in self.replies.items() if s == seat and best in fs}
        digest = RequestDigest(len(self.tags), self.digest.hexdigest(), self.tags)
        return digest, forms, proven


class TranscriptWriter:
    """Writes one match's transcript. ``path=None`` keeps nothing but still counts lines.

    ``origin`` is the clock value that is ``t_ns = 0``.

    Every line is written and flushed at once, unless it is written with
    ``flush=False``: then it waits (in order) for the next flushing write or
    :meth:`flush`, so that the lines of one step (a reply and the events it
    caused) reach the file in one write call. The referee flushes before it
    sends anything to an engine and before it waits for one.
    """

    def __init__(
        self,
        path: Path | None,
        origin: int,
        salt: SaltSource = default_salt,
        *,
        raw_lines: bool = False,
        format: str = FORMAT,
    ) -> None:
        if format not in (FORMAT, FORMAT_V1):
            raise ValueError(f"format {format!r}: use {FORMAT!r} or {FORMAT_V1!r}")
        self.path = path
        self.origin = origin
        self.salt = salt
        self.raw_lines = raw_lines
        self.format = format
        self.compact = format == FORMAT
        self.seq = 0
        self._sink = open_sink(path) if path is not None else None
        self._held: list[bytes] = []  # lines written with flush=False, not yet in the file
        self._private: list[dict[str, Any]] = []
        self._round: tuple[int, str, dict[str, object]] | None = None  # (round, salt, deal)
        self._seed: tuple[int, str] | None = None
        self._proof = _RoundProof()
        self._last_reply: tuple[int, int, str | None] = (-1, 0, None)  # seq, id, action json

    @property
    def enabled(self) -> bool:
        return self._sink is not None

    # -- lines -------------------------------------------------------------------------

    def _put(self, line: bytes, flush: bool) -> None:
        self._held.append(line)
        if flush:
            self.flush()

    def write(self, kind: str, t: int, fields: dict[str, Any], flush: bool = True) -> int:
        """Write one public line; return its seq (a v2 event line is not written:
        the seq returned is then the line's before it)."""
        if self._sink is None:
            seq = self.seq
            self.seq += 1
            return seq
        if self.compact:
            return self._compact(kind, t, fields, flush)
        seq = self.seq
        self.seq += 1
        self._put(encode_line({"type": kind, "seq": seq, "t_ns": t - self.origin, **fields}), flush)
        return seq

    def write_json(self, kind: str, t: int, fields_json: str, flush: bool = True) -> int:
        """Write one public line whose fields after ``type``, ``seq`` and ``t_ns``
        are given as JSON text (the members of an object, without braces), e.g.
        ``'"seat":0,"id":5'``; the referee's hot lines are built this way.
        Return its seq (see :meth:`write`)."""
        if self._sink is not None and self.compact:
            if kind == "event":
                return self.seq - 1  # the replay derives the events
            fast = self._fast_line(kind, t, fields_json)
            if fast is not None:
                self._put(fast, flush)
                return self.seq - 1
            return self._compact(kind, t, json.loads("{" + fields_json + "}"), flush)
        seq = self.seq
        self.seq += 1
        if self._sink is not None:
            text = f'{{"type":"{kind}","seq":{seq},"t_ns":{t - self.origin},{fields_json}}}'
            self._put(utf8(text), flush)
        return seq

    def _fast_line(self, kind: str, t: int, fields_json: str) -> bytes | None:
        """The referee's request and accepted-reply lines, made without parsing their
        JSON (the same bytes as :meth:`_compact`); None for any other line."""
        if kind == "request":
            m = _REQUEST.match(fields_json)
            if m is None:
                return None
            seq = self.seq
            self.seq += 1
            return utf8(
                f'{{"type":"request","seq":{seq},"t_ns":{t - self.origin},'
                f'"seat":{m[1]},"id":{m[2]}}}'
            )
        if kind == "reply":
            m = _ACCEPTED.match(fields_json)
            if m is None:
                return None
            c = _CPU.search(fields_json, m.end())
            seq = self.seq
            self.seq += 1
            self._last_reply = (seq, int(m[2]), m[3])
            return utf8(
                f'{{"type":"reply","seq":{seq},"t_ns":{t - self.origin},'
                f'"seat":{m[1]},"id":{m[2]},"action":{m[3]}{"" if c is None else c[1]}}}'
            )
        return None

    def _compact(self, kind: str, t: int, fields: dict[str, Any], flush: bool) -> int:
        """A line of ``bidref-transcript/2``: what the rules and the clock derive left out."""
        t_ns = t - self.origin
        if kind == "event":
            return self.seq - 1
        seq = self.seq
        self.seq += 1
        line: Any
        if kind == "request":
            line = Request(seq=seq, t_ns=t_ns, seat=fields["seat"], id=fields["id"])
        elif kind == "reply":
            status = fields.get("status", "accepted")
            if status == "accepted":
                action = fields.get("action")
                line = Reply(
                    seq=seq,
                    t_ns=t_ns,
                    seat=fields["seat"],
                    id=fields["id"],
                    action=action,
                    cpu_ns=fields.get("cpu_ns"),
                    idle_cpu_ns=fields.get("idle_cpu_ns"),
                )
                self._last_reply = (seq, fields["id"], None if action is None else _dumps(action))
            else:
                line = Reply(
                    seq=seq,
                    t_ns=t_ns,
                    seat=fields["seat"],
                    id=fields["id"],
                    status=status,
                    rule=fields.get("rule"),
                    cpu_ns=fields.get("cpu_ns"),
                    idle_cpu_ns=fields.get("idle_cpu_ns"),
                )
        elif kind == "retry":
            line = Retry(seq=seq, t_ns=t_ns, seat=fields["seat"], id=fields["id"])
        else:
            if kind == "header":
                fields = {**fields, "format": FORMAT, "raw_lines": self.raw_lines}
            line = {"type": kind, "seq": seq, "t_ns": t_ns, **fields}
        self._put(encode_line(line), flush)
        return seq

    def flush(self) -> None:
        """Write the held lines to the file (one write call)."""
        sink = self._sink
        if sink is not None and self._held:
            self._held.append(b"")
            data = b"\n".join(self._held)
            self._held = []
            sink.write(data)

    # -- private items, rounds and the seed ----------------------------------------------

    def private(self, seq: int, kind: str, fields: dict[str, Any]) -> None:
        """Hold a private item (belonging to line ``seq``) until the round's reveal."""
        if self._sink is None:
            return
        if self.compact:
            if kind == "request_raw":
                self._proof.request(fields.get("raw", ""))
                if not self.raw_lines:
                    return
            elif kind == "drew":
                return  # the deal gives it
            elif kind == "reply_raw" and seq == self._last_reply[0]:
                raw = fields.get("raw", "")
                _, rid, action = self._last_reply
                forms: tuple[str, ...] = ()
                if action is not None:
                    if raw == reply_form_text("compact", rid, action):
                        forms = ("compact",)
                    elif raw == reply_form_text("spaced", rid, action):
                        forms = ("spaced",)
                self._proof.replies[seq] = (fields.get("seat", -1), raw, forms)
        self._private.append({"seq": seq, "kind": kind, **fields})

    def commit_seed(self, seed: int) -> str:
        salt = self.salt().hex()
        self._seed = (seed, salt)
        return commitment(salt, {"seed": seed})

    def start_round(
        self, t: int, round_number: int, deal: dict[str, object], fields: dict[str, Any]
    ) -> int:
        salt = self.salt().hex()
        self._round = (round_number, salt, deal)
        return self.write(
            "round_start",
            t,
            {"round": round_number, "deal_commitment": commitment(salt, deal), **fields},
        )

    def reveal_round(self, t: int) -> None:
        """Append the open round's deal, salt and private items (no-op if none is open)."""
        if self._round is None:
            return
        rnd, salt, deal = self._round
        self._round = None
        private, self._private = self._private, []
        if not self.compact:
            self.write(
                "round_reveal", t, {"round": rnd, "salt": salt, "deal": deal, "private": private}
            )
            return
        digest, forms, proven = self._proof.reveal()
        self._proof = _RoundProof()
        if not self.raw_lines:
            private = [i for i in private if not (i["kind"] == "reply_raw" and i["seq"] in proven)]
        if self._sink is None:
            self.seq += 1
            return
        seq = self.seq
        self.seq += 1
        line = RoundReveal(
            seq=seq,
            t_ns=t - self.origin,
            round=rnd,
            salt=salt,
            deal=dict(deal),
            private=[msgspec.convert(i, PrivateItem) for i in private],
            requests=digest,
            reply_forms=forms,
        )
        self._put(encode_line(line), True)

    def reveal_seed(self, t: int) -> None:
        if self._seed is not None:
            seed, salt = self._seed
            self._seed = None
            self.write("seed_reveal", t, {"seed": seed, "salt": salt})

    def close(self) -> None:
        if self._sink is not None:
            self.flush()
            self._sink.close()
            self._sink = None
