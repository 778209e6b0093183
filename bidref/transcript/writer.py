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

A line is one of the models of :mod:`.lines` (:meth:`TranscriptWriter.put`),
the same types the reader decodes into; each model knows its JSON in either
format (:meth:`~.lines.Line.full_json`, :meth:`~.lines.Line.compact_json`,
whose hot cases — a request, an accepted reply — are made without the encoder).

The writer never fails on a string: a lone surrogate (an engine can send
``"\\ud800"`` in a JSON string) is written as U+FFFD. Names ending in ``.gz``
or ``.zst`` are compressed (see :mod:`.files`), still flushed at every step.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from pathlib import Path

import msgspec

from .files import open_sink
from .lines import (
    FORMAT,
    FORMAT_V1,
    LINES_CAP,
    RAW_CAP,
    REPLY_FORMS,
    Header,
    Line,
    PrivateItem,
    Reply,
    RequestDigest,
    RoundReveal,
    RoundStart,
    SeedReveal,
    encode_line,
    reply_form_text,
    utf8,
)

__all__ = ["FORMAT", "FORMAT_V1", "LINES_CAP", "RAW_CAP", "TranscriptWriter", "encode_line"]

SaltSource = Callable[[], bytes]
"""Returns fresh random bytes for a commitment (``secrets.token_bytes(32)`` in real use)."""

_encode = msgspec.json.Encoder().encode


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

    ``origin`` is the clock value that is ``t_ns = 0``. A line is a model of
    :mod:`.lines` (:meth:`put`); each knows its JSON in either format, and the
    writer keeps what the format keeps (the v2 proofs of the raw lines, the
    private items until the round's reveal).

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
        self._private: list[PrivateItem] = []
        self._round: tuple[int, str, dict[str, object]] | None = None  # (round, salt, deal)
        self._seed: tuple[int, str] | None = None
        self._proof = _RoundProof()
        self._last_reply: tuple[int, int, str | None] = (-1, 0, None)  # seq, id, action json

    @property
    def enabled(self) -> bool:
        return self._sink is not None

    @property
    def keeps_events(self) -> bool:
        """Whether event lines are written (v1 only: v2 derives the events)."""
        return self._sink is not None and not self.compact

    def stamp(self, t: int) -> tuple[int, int]:
        """``(seq, t_ns)`` of the next line if written at clock time ``t``: a line's
        first two fields, e.g. ``tx.put(Resign(*tx.stamp(t), seat=1))``."""
        return self.seq, t - self.origin

    # -- lines -------------------------------------------------------------------------

    def _put(self, line: bytes, flush: bool) -> None:
        self._held.append(line)
        if flush:
            self.flush()

    def put(self, line: Line, flush: bool = True) -> int:
        """Write one public line (its ``seq`` is :meth:`stamp`'s); return its seq. A
        line the format leaves out (a v2 event line) is not written: the seq
        returned is then the line's before it."""
        seq = self.seq
        if line.seq != seq:
            raise ValueError(f"a line with seq {line.seq}, but the next line is {seq}")
        if self._sink is None:
            self.seq = seq + 1
            return seq
        if type(line) is Header:
            line = msgspec.structs.replace(line, format=self.format, raw_lines=self.raw_lines)
        data = line.compact_json() if self.compact else line.full_json()
        if data is None:
            return seq - 1
        self.seq = seq + 1
        if type(line) is Reply and line.status == "accepted":
            assert isinstance(line, Reply)
            action = line.action
            self._last_reply = (seq, line.id, None if action is None else _encode(action).decode())
        self._put(data, flush)
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

    def private(self, item: PrivateItem) -> None:
        """Hold a private item (belonging to line ``item.seq``) until the round's reveal."""
        if self._sink is None:
            return
        if self.compact:
            kind = item.kind
            if kind == "request_raw":
                self._proof.request(item.raw or "")
                if not self.raw_lines:
                    return
            elif kind == "drew":
                return  # the deal gives it
            elif kind == "reply_raw" and item.seq == self._last_reply[0]:
                raw = item.raw or ""
                _, rid, action = self._last_reply
                forms: tuple[str, ...] = ()
                if action is not None:
                    if raw == reply_form_text("compact", rid, action):
                        forms = ("compact",)
                    elif raw == reply_form_text("spaced", rid, action):
                        forms = ("spaced",)
                seat = -1 if item.seat is None else item.seat
                self._proof.replies[item.seq] = (seat, raw, forms)
        self._private.append(item)

    def commit_seed(self, seed: int) -> str:
        salt = self.salt().hex()
        self._seed = (seed, salt)
        return commitment(salt, {"seed": seed})

    def start_round(
        self,
        t: int,
        round_number: int,
        deal: dict[str, object],
        *,
        opening: str,
        jockey: int | None,
        balances: list[int] | None,
    ) -> int:
        """The ``round_start`` line: a commitment to ``deal`` (revealed at the end)."""
        salt = self.salt().hex()
        self._round = (round_number, salt, deal)
        line = RoundStart(
            *self.stamp(t),
            round=round_number,
            deal_commitment=commitment(salt, deal),
            opening=opening,
            jockey=jockey,
            balances=balances,
        )
        return self.put(line)

    def reveal_round(self, t: int) -> None:
        """Append the open round's deal, salt and private items (no-op if none is open)."""
        if self._round is None:
            return
        rnd, salt, deal = self._round
        self._round = None
        private, self._private = self._private, []
        line = RoundReveal(*self.stamp(t), round=rnd, salt=salt, deal=dict(deal), private=private)
        if self.compact:
            digest, forms, proven = self._proof.reveal()
            self._proof = _RoundProof()
            if not self.raw_lines:
                private = [i for i in private if not (i.kind == "reply_raw" and i.seq in proven)]
            line.private, line.requests, line.reply_forms = private, digest, forms
        self.put(line)

    def reveal_seed(self, t: int) -> None:
        if self._seed is not None:
            seed, salt = self._seed
            self._seed = None
            self.put(SeedReveal(*self.stamp(t), seed=seed, salt=salt))

    def close(self) -> None:
        if self._sink is not None:
            self.flush()
            self._sink.close()
            self._sink = None
