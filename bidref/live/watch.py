"""A tournament's folder read as it grows: results, running matches, one snapshot.

What is live is already in the folder: the runner appends each record to
``results.jsonl`` the moment its match ends (synced), and the referee flushes
every transcript line at once (on a cluster, the coordinator mirrors each
worker's transcript as it grows: :mod:`bidref.tournament.live_mirror`). So
:class:`Watch` reads the folder, never the runner: the results file from where
it stopped, each running match's transcript by its :class:`~.tail.Tail`, and
the transcript folders only when their modification time says a file came.

A transcript without a record is a running match, until its ``result`` line and
its record arrive; one that has not changed for longer than a decision may take
(bank + delay + a margin) is left over from an interrupted run, not running.

:meth:`Watch.refresh` says what changed; :meth:`Watch.snapshot` is the page's
data, in two parts that change at different speeds: ``tables`` (standings,
SPRT, cross-table, finished matches, faults: at each record) and ``boards``
(the running matches: at each move). The clock is a parameter (``now``).
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..render.dominoes import count_text, layout_markup
from ..render.tournament.report import cross_table, header_text, ratings_chart, standings_table
from ..tournament.model import Header, MatchRecord
from ..tournament.runner import RESULTS_FILE, TRANSCRIPTS_DIR, Plan
from ..tournament.standings import FAULT_COLUMNS, Tally
from ..tournament.store import ResultsError
from .board import Board
from .tail import Tail

log = logging.getLogger(__name__)

FINISHED_SHOWN = 12  # the last finished matches on the page
FAULTS_SHOWN = 20  # the last fault links per engine
STALE_MARGIN_S = 30.0  # beyond bank + delay: a transcript this quiet is not running
_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst")
FAULT_KINDS = ("crashes", "time_losses", "illegal_forfeits", "protocol_errors", "aborted")


@dataclass
class Running:
    """One running match: its transcript's tail and board."""

    path: Path
    tail: Tail
    board: Board = field(default_factory=Board)


def _rel(out_dir: Path, transcript: str | None) -> str | None:
    """A record's transcript as a path relative to the folder (how the runner names it)."""
    if transcript is None:
        return None
    p = Path(transcript)
    if p.is_absolute():
        try:
            return p.resolve().relative_to(out_dir.resolve()).as_posix()
        except ValueError:
            return p.as_posix()
    return p.as_posix()


def worker_of(r: MatchRecord) -> str:
    """Where a match ran: a cluster worker's address (recorded by the coordinator),
    else ``here`` (this machine)."""
    w = getattr(r, "worker", None) or r.end.on_worker
    return str(w) if w else "here"


@dataclass
class _Cursor:
    """How far the results file has been read: bytes, its inode, an unfinished line."""

    offset: int = 0
    inode: int | None = None
    pending: bytes = b""


class Watch:
    """A tournament folder, read incrementally."""

    def __init__(self, out_dir: Path, now: Callable[[], float] = time.time) -> None:
        self.out_dir = out_dir
        self.now = now
        self.plan: Plan | None = None
        self.problem: str | None = None  # why the results cannot be read (said on the page)
        self.records: list[MatchRecord] = []
        self.tally: Tally | None = None
        self.recorded: set[str] = set()  # transcripts (relative) that have a record
        self.running: dict[str, Running] = {}  # by relative transcript path
        self.tables_version = 0
        self.boards_version = 0
        self._results = _Cursor()
        self._folders: dict[str, int] = {}  # transcript folder -> mtime_ns when listed
        self._seen: set[str] = set()  # transcripts listed (running, recorded or stale)
        self._dormant: dict[str, Path] = {}  # stale, without a record: may start again
        self._tables: dict[str, Any] | None = None

    # -- reading ----------------------------------------------------------------------

    def refresh(self) -> tuple[bool, bool]:
        """Read what is new; (the tables changed, the boards changed)."""
        tables = self._read_results()
        if self.plan is None:
            return tables, False
        boards = self._scan() | self._wake()
        for rel, run in list(self.running.items()):
            lines, restarted = run.tail.poll()
            if restarted:
                run.board = Board()
                boards = True
            for raw in lines:
                run.board.feed_bytes(raw)
            boards |= bool(lines)
            if rel in self.recorded:
                del self.running[rel]
                boards = True
            elif not lines and self._stale(run):
                del self.running[rel]  # left over from an interrupted run
                self._dormant[rel] = run.path
                boards = True
        if tables:
            self.tables_version += 1
            self._tables = None
        if boards:
            self.boards_version += 1
        return tables, boards

    def _stale_after_s(self) -> float:
        """The longest a decision may take (any engine's own clock too), and a margin."""
        assert self.plan is not None
        s = self.plan.settings
        longest = s.bank_ms + s.delay_ms
        for e in self.plan.engines:
            if e.time_control_ms is not None:
                longest = max(longest, sum(e.time_control_ms))
        return longest / 1000 + STALE_MARGIN_S

    def _wake(self) -> bool:
        """A stale transcript written again (``--resume`` plays an interrupted match
        into the same file) is running again."""
        changed = False
        for rel, path in list(self._dormant.items()):
            if rel in self.recorded:
                del self._dormant[rel]
            elif self.now() - _mtime(path) <= self._stale_after_s():
                del self._dormant[rel]
                self.running[rel] = Running(path, Tail(path))
                changed = True
        return changed

    def _stale(self, run: Running) -> bool:
        mtime = run.tail.mtime_ns / 1e9 if run.tail.mtime_ns else _mtime(run.path)
        return self.now() - mtime > self._stale_after_s()

    def _read_results(self) -> bool:
        path = self.out_dir / RESULTS_FILE
        try:
            st = os.stat(path)
        except OSError as e:
            self.problem = f"no results file yet ({e.strerror})"
            return False
        if self._results.inode is not None and (
            st.st_ino != self._results.inode or st.st_size < self._results.offset
        ):
            self._reset_results()  # rewritten (a torn line cut on --resume)
        self._results.inode = st.st_ino
        if st.st_size == self._results.offset:
            return False
        with open(path, "rb") as f:
            f.seek(self._results.offset)
            data = f.read(st.st_size - self._results.offset)
        self._results.offset += len(data)
        *lines, self._results.pending = (self._results.pending + data).split(b"\n")
        changed = False
        for raw in lines:
            if raw.strip():
                changed |= self._result_line(raw)
        return changed

    def _reset_results(self) -> None:
        self._results.offset = 0
        self._results.pending = b""
        self.plan = None
        self.tally = None
        self.records = []
        self.recorded = set()

    def _result_line(self, raw: bytes) -> bool:
        try:
            if self.plan is None:
                header = Header.model_validate_json(raw)
                self.plan = Plan(header, self.out_dir)
                self.tally = Tally(self.plan.names, self.plan.pairings)
                self.problem = None
                return True
            record = MatchRecord.model_validate_json(raw)
        except (ValidationError, ValueError, ResultsError) as e:
            self.problem = f"a line of {RESULTS_FILE} cannot be read: {str(e)[:200]}"
            return False
        assert self.tally is not None
        self.records.append(record)
        self.tally.add(record)
        rel = _rel(self.out_dir, record.transcript)
        if rel is not None:
            self.recorded.add(rel)
        return True

    def _scan(self) -> bool:
        """Start a tail on each new transcript without a record (listing only the
        folders whose modification time changed)."""
        root = self.out_dir / TRANSCRIPTS_DIR
        try:
            folders = [e for e in os.scandir(root) if e.is_dir()]
        except OSError:
            return False
        changed = False
        for folder in folders:
            mtime = folder.stat().st_mtime_ns
            if self._folders.get(folder.name) == mtime:
                continue
            self._folders[folder.name] = mtime
            try:
                names = [e.name for e in os.scandir(folder.path) if e.is_file()]
            except OSError:
                continue
            for name in names:
                if not name.endswith(_SUFFIXES) or name.startswith("."):
                    continue
                rel = f"{TRANSCRIPTS_DIR}/{folder.name}/{name}"
                if rel in self._seen:
                    continue
                self._seen.add(rel)
                path = Path(folder.path) / name
                if rel in self.recorded:
                    continue
                if self.now() - _mtime(path) > self._stale_after_s():
                    self._dormant[rel] = path  # an interrupted run's: not running (yet)
                    continue
                self.running[rel] = Running(path, Tail(path))
                changed = True
        return changed

    # -- the page's data -----------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {"tables": self.tables(), "boards": self.boards()}

    def tables(self) -> dict[str, Any]:
        """Standings, SPRT, cross-table, the last finished matches and the faults."""
        if self._tables is not None:
            return self._tables
        plan, tally = self.plan, self.tally
        if plan is None or tally is None:
            self._tables = {"version": self.tables_version, "problem": self.problem}
            return self._tables
        st = tally.standings
        rated = {r.key for r in self.records if r.rated}
        out: dict[str, Any] = {
            "version": self.tables_version,
            "problem": self.problem,
            "title": ", ".join(plan.names),
            "about": header_text(plan),
            "total": len(plan.keys),
            "rated": len(rated),
            "recorded": len(self.records),
            "standings": standings_table(st),
            "ratings": ratings_chart(st.ranked(plan.hero)),
            "cross": cross_table(plan.names, self.records),
            "sprt": self._sprt(),
            "finished": self._finished(),
            "faults": self._faults(),
        }
        self._tables = out
        return out

    def _sprt(self) -> dict[str, Any] | None:
        assert self.plan is not None and self.tally is not None
        sprt = self.plan.sprt
        if sprt is None:
            return None
        status = self.tally.standings.sprt_status(sprt)
        lower, upper = sprt.bounds
        out: dict[str, Any] = {
            "elo0": sprt.elo0,
            "elo1": sprt.elo1,
            "alpha": sprt.alpha,
            "beta": sprt.beta,
            "lower": lower,
            "upper": upper,
        }
        if status is None:
            return {**out, "llr": None, "status": None, "pairing": None, "pairs": 0}
        pairing, llr, verdict = status
        pairs = self.tally.standings.pairs[pairing].side.estimate.samples
        shown = llr if math.isfinite(llr) else None  # (no pairs yet: JSON has no NaN)
        return {**out, "llr": shown, "status": verdict, "pairing": str(pairing), "pairs": pairs}

    def _finished(self) -> list[dict[str, Any]]:
        out = []
        first = max(0, len(self.records) - FINISHED_SHOWN)
        for i in range(len(self.records) - 1, first - 1, -1):
            r = self.records[i]
            out.append(
                {
                    "index": i,
                    "a": r.engine_a,
                    "b": r.engine_b,
                    "seed": r.seed,
                    "seat": r.seat,
                    "attempt": r.attempt,
                    "winner": r.winner,
                    "reason": r.reason,
                    "text": r.detail_text(),
                    "balances": list(r.balances),
                    "rounds": r.rounds,
                    "rated": r.rated,
                    "worker": worker_of(r),
                    "replay": f"/replay/{i}.html" if r.transcript else None,
                }
            )
        return out

    def _faults(self) -> dict[str, Any]:
        """Per engine and per worker: crashes, time losses, illegal actions, protocol
        errors and aborts, each with links to its matches and their stderr logs."""
        assert self.plan is not None
        by_engine: dict[str, Counter[str]] = {n: Counter() for n in self.plan.names}
        by_worker: dict[str, Counter[str]] = defaultdict(Counter)
        links: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for i, r in enumerate(self.records):
            kind = "aborted" if r.reason == "aborted" else FAULT_COLUMNS.get(r.reason)
            if kind is None:
                continue
            culprit = r.at_fault or (r.loser if r.rated else None)
            names = [culprit] if kind != "aborted" and culprit else [r.engine_a, r.engine_b]
            worker = worker_of(r)
            by_worker[worker][kind] += 1
            for name in names:
                if name not in by_engine:
                    continue
                by_engine[name][kind] += 1
                seat = 0 if name == r.engine_a else 1
                links[name].append(
                    {
                        "index": i,
                        "kind": kind,
                        "seed": r.seed,
                        "seat": r.seat,
                        "worker": worker,
                        "text": r.detail_text(),
                        "replay": f"/replay/{i}.html" if r.transcript else None,
                        "stderr": f"/stderr/{i}/{seat}",
                    }
                )
        return {
            "kinds": list(FAULT_KINDS),
            "engines": [
                {
                    "name": n,
                    "counts": [by_engine[n][k] for k in FAULT_KINDS],
                    "links": links[n][-FAULTS_SHOWN:],
                }
                for n in self.plan.names
            ],
            "workers": [
                {"name": w, "counts": [c[k] for k in FAULT_KINDS]}
                for w, c in sorted(by_worker.items())
            ],
        }

    def boards(self) -> dict[str, Any]:
        now = self.now()
        out = []
        for rel, run in sorted(self.running.items()):
            b = run.board
            lay = b.table.layout
            age = max(0.0, now - run.tail.mtime_ns / 1e9) if run.tail.mtime_ns else 0.0
            out.append(
                {
                    "id": rel,
                    "title": Path(rel).parent.name.replace("--", " vs ")
                    + " · "
                    + Path(rel).name.split(".")[0],
                    "age_ms": round(age * 1000),
                    **b.to_dict(layout_markup(lay, b.table.last_tile), count_text(lay)),
                }
            )
        return {"version": self.boards_version, "running": out}

    def stderr_log(self, index: int, seat: int) -> Path | None:
        """The stderr log of seat ``seat`` in the finished match ``index``, as its
        transcript's header names it (None: not kept, or not a finished match). A
        running match's log is never served: an engine may write its hand there."""
        if not 0 <= index < len(self.records) or seat not in (0, 1):
            return None
        rel = _rel(self.out_dir, self.records[index].transcript)
        if rel is None:
            return None
        path = self.out_dir / rel if not Path(rel).is_absolute() else Path(rel)
        tail = Tail(path)
        board = Board()
        for raw in tail.poll()[0][:1]:  # the header is the first line
            board.feed_bytes(raw)
        log_path = board.players.stderr_logs[seat]
        return None if log_path is None else Path(log_path)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
