"""The transcript writer: JSONL, flushed after every line, private data held back.

See ``protocols/transcript.md`` for the format. While a round runs only public
lines are written; private items (raw requests, drawn tiles, illegal reply
texts, engine logs) are collected and appended in one ``round_reveal`` line,
after the commitment to the round's deal written at the round's start.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Final

FORMAT: Final = "bidref-transcript/1"

SaltSource = Callable[[], bytes]
"""Returns fresh random bytes for a commitment (``secrets.token_bytes(32)`` in real use)."""

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


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


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def commitment(salt_hex: str, value: object) -> str:
    """``"sha256:" + hex(sha256(salt_hex + ":" + canonical_json(value)))``."""
    digest = hashlib.sha256(f"{salt_hex}:{canonical_json(value)}".encode()).hexdigest()
    return "sha256:" + digest


class TranscriptWriter:
    """Writes one match's transcript. ``path=None`` keeps nothing but still counts lines.

    ``origin`` is the clock value that is ``t_ns = 0``.

    Every line is written and flushed at once, unless it is written with
    ``flush=False``: then it waits (in order) for the next flushing write or
    :meth:`flush`, so that the lines of one step (a reply and the events it
    caused) reach the file in one write call. The referee flushes before it
    sends anything to an engine and before it waits for one.
    """

    def __init__(self, path: Path | None, origin: int, salt: SaltSource = default_salt) -> None:
        self.path = path
        self.origin = origin
        self.salt = salt
        self.seq = 0
        # unbuffered: every flush is one write call of whole lines
        self._f: IO[bytes] | None = path.open("wb", buffering=0) if path is not None else None
        self._held: list[str] = []  # lines written with flush=False, not yet in the file
        self._private: list[dict[str, Any]] = []
        self._round: tuple[int, str, dict[str, object]] | None = None  # (round, salt, deal)
        self._seed: tuple[int, str] | None = None

    @property
    def enabled(self) -> bool:
        return self._f is not None

    def write(self, kind: str, t: int, fields: dict[str, Any], flush: bool = True) -> int:
        """Write one public line; return its seq."""
        seq = self.seq
        self.seq += 1
        if self._f is not None:
            self._held.append(_dumps({"type": kind, "seq": seq, "t_ns": t - self.origin, **fields}))
            if flush:
                self.flush()
        return seq

    def write_json(self, kind: str, t: int, fields_json: str, flush: bool = True) -> int:
        """Write one public line whose fields after ``type``, ``seq`` and ``t_ns``
        are given as JSON text (the members of an object, without braces), e.g.
        ``'"seat":0,"id":5'``; the referee's hot lines are built this way.
        Return its seq."""
        seq = self.seq
        self.seq += 1
        if self._f is not None:
            self._held.append(
                f'{{"type":"{kind}","seq":{seq},"t_ns":{t - self.origin},{fields_json}}}'
            )
            if flush:
                self.flush()
        return seq

    def flush(self) -> None:
        """Write the held lines to the file (one write call)."""
        f = self._f
        if f is not None and self._held:
            self._held.append("")
            data = memoryview("\n".join(self._held).encode())
            self._held = []
            while data:  # a regular file takes it all at once; a pipe may not
                n = f.write(data)
                data = data[n or 0 :]

    def private(self, seq: int, kind: str, fields: dict[str, Any]) -> None:
        """Hold a private item (belonging to line ``seq``) until the round's reveal."""
        if self._f is not None:
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
        self.write(
            "round_reveal", t, {"round": rnd, "salt": salt, "deal": deal, "private": private}
        )

    def reveal_seed(self, t: int) -> None:
        if self._seed is not None:
            seed, salt = self._seed
            self._seed = None
            self.write("seed_reveal", t, {"seed": seed, "salt": salt})

    def close(self) -> None:
        if self._f is not None:
            self.flush()
            self._f.close()
            self._f = None
