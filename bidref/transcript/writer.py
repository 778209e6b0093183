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
    """

    def __init__(self, path: Path | None, origin: int, salt: SaltSource = default_salt) -> None:
        self.path = path
        self.origin = origin
        self.salt = salt
        self.seq = 0
        self._f: IO[str] | None = path.open("w", encoding="utf-8") if path is not None else None
        self._private: list[dict[str, Any]] = []
        self._round: tuple[int, str, dict[str, object]] | None = None  # (round, salt, deal)
        self._seed: tuple[int, str] | None = None

    @property
    def enabled(self) -> bool:
        return self._f is not None

    def write(self, kind: str, t: int, fields: dict[str, Any]) -> int:
        """Write one public line; return its seq."""
        seq = self.seq
        self.seq += 1
        f = self._f
        if f is not None:
            f.write(_dumps({"type": kind, "seq": seq, "t_ns": t - self.origin, **fields}))
            f.write("\n")
            f.flush()
        return seq

    def private(self, seq: int, kind: str, fields: dict[str, Any]) -> None:
        """Hold a private item (belonging to line ``seq``) until the round's reveal."""
        if self._f is not None:
            self._private.append({"seq": seq, "kind": kind, **fields})

    def commit_seed(self, seed: int) -> str:
        salt = self.salt().hex()
        self._seed = (seed, salt)
        return commitment(salt, {"seed": seed})

    def start_round(self, t: int, round_number: int, deal: dict[str, object],
                    fields: dict[str, Any]) -> int:
        salt = self.salt().hex()
        self._round = (round_number, salt, deal)
        return self.write("round_start", t, {"round": round_number,
                                            "deal_commitment": commitment(salt, deal), **fields})

    def reveal_round(self, t: int) -> None:
        """Append the open round's deal, salt and private items (no-op if none is open)."""
        if self._round is None:
            return
        rnd, salt, deal = self._round
        self._round = None
        private, self._private = self._private, []
        self.write("round_reveal", t, {"round": rnd, "salt": salt, "deal": deal,
                                       "private": private})

    def reveal_seed(self, t: int) -> None:
        if self._seed is not None:
            seed, salt = self._seed
            self._seed = None
            self.write("seed_reveal", t, {"seed": seed, "salt": salt})

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None
