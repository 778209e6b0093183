"""The results file: append-only JSONL, one line per finished match, flushed and synced.

The first line is the :class:`Header` (engines, seeds, settings); each further
line a :class:`MatchRecord`. A run killed while writing can leave a torn last
line; opening the file again drops it (the match it described is simply played
again), so no finished match is lost and none is counted twice.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from pathlib import Path
from typing import IO, TypeVar

from pydantic import ValidationError

from bidref.errors import UsageError

from .model import Header, MatchRecord
from .schedule import MatchKey

log = logging.getLogger(__name__)

T = TypeVar("T", Header, MatchRecord)


class ResultsError(UsageError, ValueError):  # ValueError: as before, for one release
    """A results file that cannot be created or read (the message says the fix)."""


class ResultsStore:
    """An open results file: its header, its records, and an append handle."""

    def __init__(
        self, path: Path, header: Header, records: list[MatchRecord], handle: IO[str]
    ) -> None:
        self.path = path
        self.header = header
        self.records = records
        self._handle = handle

    @classmethod
    def create(cls, path: Path, header: Header) -> ResultsStore:
        if path.exists() and path.stat().st_size > 0:
            raise ResultsError(
                f"results file {str(path)!r} already exists: add --resume to continue that "
                "tournament, or choose another --out folder"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = path.open("w", encoding="utf-8")
        except OSError as exc:
            raise ResultsError(
                f"cannot write the results file {str(path)!r}: {exc.strerror}; "
                "choose another --out folder"
            ) from None
        store = cls(path, header, [], handle)
        store._write(header.model_dump_json())
        return store

    @classmethod
    def open(cls, path: Path) -> ResultsStore:
        header, records, good_bytes = read_results(path)
        try:
            size = path.stat().st_size
            if good_bytes < size:
                log.warning("dropping a torn last line of %s (%d bytes)", path, size - good_bytes)
                with path.open("r+b") as raw:
                    raw.truncate(good_bytes)
            handle = path.open("a", encoding="utf-8")
        except OSError as exc:
            raise ResultsError(
                f"cannot write the results file {str(path)!r}: "
                f"{exc.strerror}; make it writable to resume"
            ) from None
        return cls(path, header, records, handle)

    def append(self, record: MatchRecord) -> None:
        self._write(record.model_dump_json())
        self.records.append(record)

    def _write(self, line: str) -> None:
        self._handle.write(line + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def rated_keys(self) -> set[MatchKey]:
        return {r.key for r in self.records if r.rated}

    def attempts(self, key: MatchKey) -> int:
        return sum(1 for r in self.records if r.key == key)


def write_durably(path: Path, data: bytes) -> None:
    """``data`` as the file ``path``, whole or not at all, on disk before this returns:
    a match's files are written so before its record (a crash between the two
    leaves a file without a record, and the match is played again)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.part")
    with tmp.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def hold(path: Path) -> IO[bytes]:
    """Hold the results file at ``path`` for one run alone, until the returned file
    is closed: two runs on one folder would play the same missing matches twice.
    Take it before :meth:`ResultsStore.open` (which may cut a torn last line)."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise ResultsError(f"cannot open the results file {str(path)!r}: {exc.strerror}") from None
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ResultsError(
            f"another bidref tournament is running on {str(path)!r}: let it finish (or end "
            "it with Ctrl-C), then continue with --resume"
        ) from None
    except OSError as exc:  # a file system without locks: go on without one
        log.warning(
            "cannot lock %s (%s); do not run two tournaments on it at once", path, exc.strerror
        )
    return handle


def read_results(path: Path) -> tuple[Header, list[MatchRecord], int]:
    """Header, records and the byte length of the intact part of a results file.

    Only a torn *last* line (no newline at its end, as left by a kill mid-write)
    is tolerated; a bad line anywhere else is an error naming the line.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ResultsError(
            f"no results file at {str(path)!r}: start the tournament without --resume first"
        ) from None
    except OSError as exc:
        raise ResultsError(f"cannot read results file {str(path)!r}: {exc.strerror}") from exc
    lines = data.split(b"\n")
    complete, tail = lines[:-1], lines[-1]
    good_bytes = len(data) - len(tail)
    if not complete:
        raise ResultsError(
            f"results file {str(path)!r} has no header line: it is not a "
            "bidref tournament results file"
        )
    header = _parse(path, 1, complete[0], Header)
    records = [
        _parse(path, number, raw, MatchRecord)
        for number, raw in enumerate(complete[1:], start=2)
        if raw.strip()
    ]
    return header, records, good_bytes


def _parse(path: Path, number: int, raw: bytes, model: type[T]) -> T:
    try:
        return model.model_validate(json.loads(raw.decode("utf-8")))
    except (ValueError, ValidationError) as exc:
        text = raw[:120].decode("utf-8", "replace")
        raise ResultsError(
            f"{path}:{number}: not a valid {model.__name__} line ({text!r}): "
            f"{str(exc).splitlines()[0]}; fix or remove that line"
        ) from None
