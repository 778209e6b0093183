"""Running a tournament: the plan, the loop that feeds a backend, records and stops.

The loop is the same for every backend (local processes, threads, a dask
cluster): it submits at most ``backend.slots`` matches at a time, in schedule
order, records every finished match in the results store the moment it arrives,
plays aborted matches again, stops when the SPRT is decided, and on Ctrl-C asks
the running matches to end, records what finished and returns.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import re
import signal
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol

from bidref import __version__

from .model import (
    ABORTED,
    EngineEntry,
    EngineModel,
    Header,
    MatchJob,
    MatchRecord,
    MatchReport,
    MatchSettings,
    PlayFn,
    SettingsModel,
    SprtModel,
)
from .ratings import Sprt
from .schedule import Format, MatchKey, Pairing, pairings, schedule
from .standings import Standings, Tally
from .store import ResultsStore

log = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
TRANSCRIPTS_DIR = "transcripts"
DEBUG_DIR = "debug"  # --debug: one log of every engine line per match

if TYPE_CHECKING:
    from ..sandbox.policy import SandboxConfig


class TournamentError(ValueError):
    """A tournament that cannot run as asked (the message says the fix)."""


def new_header(
    fmt: Format,
    engines: Sequence[EngineEntry],
    seeds: Sequence[int],
    settings: MatchSettings,
    *,
    master_seed: int | None,
    deal_book: str | None,
    sprt: Sprt | None = None,
    created: str | None = None,
) -> Header:
    return Header(
        bidref_version=__version__,
        format=fmt,
        engines=[EngineModel.of(e) for e in engines],
        master_seed=master_seed,
        deal_book=deal_book,
        seeds=list(seeds),
        settings=SettingsModel.of(settings),
        sprt=None
        if sprt is None
        else SprtModel(elo0=sprt.elo0, elo1=sprt.elo1, alpha=sprt.alpha, beta=sprt.beta),
        created=created or datetime.now(UTC).isoformat(timespec="seconds"),
    )


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


@dataclass(frozen=True)
class Plan:
    """Everything fixed about a tournament, derived from its header."""

    header: Header
    out_dir: Path
    # This run's extras (not in the header): keep stderr logs, write debug logs.
    stderr_dir: Path | None = None
    debug: bool = False
    sandbox: SandboxConfig | None = None  # the engines' jail (bidref.sandbox)

    @property
    def engines(self) -> list[EngineEntry]:
        return [e.entry() for e in self.header.engines]

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.header.engines]

    @property
    def pairings(self) -> list[Pairing]:
        return pairings(self.header.format, self.names)

    @property
    def keys(self) -> list[MatchKey]:
        return schedule(self.pairings, self.header.seeds)

    @property
    def settings(self) -> MatchSettings:
        return self.header.settings.settings()

    @property
    def sprt(self) -> Sprt | None:
        s = self.header.sprt
        return None if s is None else Sprt(s.elo0, s.elo1, s.alpha, s.beta)

    def _match_name(self, key: MatchKey, attempt: int) -> tuple[str, str]:
        """(folder, file stem) naming one match's files: ``a--b``, ``SEED-SEAT[-tryN]``."""
        suffix = "" if attempt == 1 else f"-try{attempt}"
        folder = f"{_safe(key.pairing.first)}--{_safe(key.pairing.second)}"
        return folder, f"{key.seed}-{key.seat}{suffix}"

    def transcript(self, key: MatchKey, attempt: int) -> str:
        """Transcript path relative to the output folder."""
        folder, stem = self._match_name(key, attempt)
        return f"{TRANSCRIPTS_DIR}/{folder}/{stem}.jsonl.gz"

    def job(self, key: MatchKey, attempt: int) -> MatchJob:
        by_name = {e.name: e for e in self.engines}
        path = (self.out_dir / self.transcript(key, attempt)).resolve()
        folder, stem = self._match_name(key, attempt)
        return MatchJob(
            key,
            by_name[key.engine_a],
            by_name[key.engine_b],
            self.settings,
            str(path),
            attempt,
            stderr_dir=None
            if self.stderr_dir is None
            else str((self.stderr_dir / folder).resolve()),
            stderr_prefix=f"{stem}-",
            sandbox=self.sandbox,
            debug_log=str((self.out_dir / DEBUG_DIR / folder / f"{stem}.log").resolve())
            if self.debug
            else None,
        )


class Handle(Protocol):
    def add_done_callback(self, fn: Callable[[Any], object], /) -> None: ...


class Backend(Protocol):
    """Where matches run. ``slots``: how many run at once."""

    slots: int

    def submit(self, job: MatchJob) -> Handle: ...

    def result(self, handle: Handle) -> MatchReport: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...


def run_job(play: PlayFn, job: MatchJob) -> MatchReport:
    """Play one job in a worker: time it, turn Ctrl-C into an interrupted report."""
    Path(job.transcript).parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        report = play(job)
    except KeyboardInterrupt:
        return MatchReport(
            winner=None,
            reason=ABORTED,
            rated=False,
            detail={"cause": "interrupted"},
            interrupted=True,
        )
    if not report.elapsed_s:
        report = replace(report, elapsed_s=time.monotonic() - started)
    return report


_SHIELDED = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _shielded() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while a record is written and counted, then deliver them.

    So an interrupt never leaves a match in the results file but not in the
    counts (or the reverse). Only the main thread can handle signals; elsewhere
    this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append(signum)

    previous = {s: signal.signal(s, hold) for s in _SHIELDED}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
        for signum in held:
            handler = previous[signal.Signals(signum)]
            if callable(handler):
                handler(signum, None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), signum)


def _put_when_done(finished: queue.Queue[int], token: int) -> Callable[[object], None]:
    def done(_handle: object) -> None:
        finished.put(token)

    return done


@dataclass(frozen=True)
class Progress:
    total: int  # matches in the schedule
    done: int  # of them, rated
    played: int  # records written by this run (rated or aborted)
    elapsed_s: float
    standings: Standings
    last: MatchRecord | None

    @property
    def eta_s(self) -> float:
        rated_this_run = self.played
        if not rated_this_run or self.done >= self.total:
            return math.nan if self.done < self.total else 0.0
        return (self.total - self.done) * self.elapsed_s / rated_this_run


@dataclass
class RunSummary:
    total: int
    done: int
    played: int = 0
    aborted: int = 0
    interrupted: bool = False
    sprt_stopped: bool = False
    unresolved: list[MatchKey] = field(default_factory=list)
    failed: list[MatchKey] = field(default_factory=list)  # unrated, not retried (start-up)
    stopped: str | None = None  # why the run stopped before the end, if it did
    standings: Standings | None = None


def missing(plan: Plan, store: ResultsStore) -> list[MatchKey]:
    """Scheduled matches without a rated record, in schedule order."""
    rated = store.rated_keys()
    return [k for k in plan.keys if k not in rated]


def run(
    plan: Plan,
    store: ResultsStore,
    backend: Backend,
    *,
    on_progress: Callable[[Progress], None] | None = None,
    max_attempts: int = 3,
    drain_timeout_s: float = 30.0,
    tick_s: float = 0.25,
    remote: frozenset[str] = frozenset(),
) -> RunSummary:
    """Play the missing matches of ``plan`` on ``backend``, recording each in ``store``.

    An aborted match (referee timing fault) is recorded and played again, up to
    ``max_attempts`` times in this run. Another unrated end (an engine that did
    not start) is recorded and not retried; if that engine has no rated match
    yet, the run stops (``summary.stopped``). Returns when all are played, the
    SPRT is decided, or on Ctrl-C (after the running matches ended).

    ``remote``: the network engines. Each plays one match at a time (one
    client, one connection); the next match in schedule order that can start
    does. One that fails to start (its client is not there) does not stop the
    run: its matches are recorded unrated, and ``--resume`` plays them again.
    """
    keys = plan.keys
    names, pairs, sprt = plan.names, plan.pairings, plan.sprt
    todo = missing(plan, store)
    summary = RunSummary(total=len(keys), done=len(keys) - len(todo))
    clock_start = time.monotonic()

    tally = Tally(names, pairs)
    for r in store.records:
        tally.add(r)

    def standings() -> Standings:
        return tally.standings

    def decided() -> bool:
        if sprt is None:
            return False
        status = standings().sprt_status(sprt)
        return status is not None and status[2] != "continue"

    def report_progress(last: MatchRecord | None) -> None:
        if on_progress is not None:
            on_progress(
                Progress(
                    summary.total,
                    summary.done,
                    summary.played,
                    time.monotonic() - clock_start,
                    standings(),
                    last,
                )
            )

    if decided():
        summary.sprt_stopped = True
        summary.standings = standings()
        return summary

    attempts = Counter(r.key for r in store.records)
    pending: deque[MatchJob] = deque(plan.job(k, attempts[k] + 1) for k in todo)
    tries: dict[MatchKey, int] = {}
    inflight: dict[int, tuple[Handle, MatchJob]] = {}
    finished: queue.Queue[int] = queue.Queue()
    token = 0
    report_progress(None)

    def accept(job: MatchJob, report: MatchReport) -> None:
        if report.interrupted:
            return
        with _shielded():
            record_and_count(job, report)
        report_progress(store.records[-1])

    def record_and_count(job: MatchJob, report: MatchReport) -> None:
        rel = plan.transcript(job.key, job.attempt)
        record = MatchRecord.of(job, replace(report, transcript=rel))
        store.append(record)
        tally.add(record)
        summary.played += 1
        if record.rated:
            summary.done += 1
        elif record.reason != ABORTED:
            summary.failed.append(job.key)
            culprit = record.at_fault
            if (
                culprit is not None
                and culprit not in remote
                and not any(r.rated and culprit in (r.engine_a, r.engine_b) for r in store.records)
            ):
                summary.stopped = (
                    f"engine {culprit!r} failed ({record.reason}) in its first "
                    f"matches: {record.detail_text()}"
                )
                log.info("stopping: %s", summary.stopped)
                pending.clear()
        else:
            summary.aborted += 1
            tries[job.key] = tries.get(job.key, 0) + 1
            if tries[job.key] < max_attempts:
                log.info("match %s aborted (%s); playing it again", job.key.id, report.detail)
                pending.appendleft(plan.job(job.key, job.attempt + 1))
            else:
                log.info(
                    "match %s aborted %d times; giving up on it in this run",
                    job.key.id,
                    tries[job.key],
                )
                summary.unresolved.append(job.key)

    def collect(tok: int) -> None:
        handle, job = inflight.pop(tok)
        try:
            report = backend.result(handle)
        except Exception as exc:  # the play function failed: not a result
            if summary.interrupted:  # a worker ended by the interrupt
                log.info("match %s ended by the interrupt: %r", job.key.id, exc)
                return
            log.error("match %s failed in the runner: %r", job.key.id, exc)
            report = MatchReport(
                winner=None,
                reason=ABORTED,
                rated=False,
                detail={"cause": "runner error", "error": repr(exc)[:500]},
            )
        accept(job, report)

    def next_job() -> MatchJob | None:
        """The first pending job that can start: no network engine of it is busy."""
        if not remote:
            return pending.popleft()
        busy = {n for _, j in inflight.values() for n in (j.engine_a.name, j.engine_b.name)}
        busy &= remote
        for i, job in enumerate(pending):
            if job.engine_a.name not in busy and job.engine_b.name not in busy:
                del pending[i]
                return job
        return None

    try:
        while pending or inflight:
            while (
                pending
                and len(inflight) < backend.slots
                and not summary.sprt_stopped
                and summary.stopped is None
            ):
                next_up = next_job()
                if next_up is None:
                    break
                job = next_up
                token += 1
                handle = backend.submit(job)
                inflight[token] = (handle, job)
                handle.add_done_callback(_put_when_done(finished, token))
            if not inflight:
                break
            try:
                tok = finished.get(timeout=tick_s)
            except queue.Empty:
                report_progress(None)
                continue
            collect(tok)
            if not summary.sprt_stopped and decided():
                log.info("SPRT decided; no further matches are started")
                summary.sprt_stopped = True
                pending.clear()
    except KeyboardInterrupt:
        summary.interrupted = True
        log.info("interrupted: ending %d running matches", len(inflight))
        backend.interrupt()
        deadline = time.monotonic() + drain_timeout_s
        try:
            while inflight and time.monotonic() < deadline:
                try:
                    collect(finished.get(timeout=tick_s))
                except queue.Empty:
                    continue
        except KeyboardInterrupt:
            log.warning("second interrupt: not waiting for %d running matches", len(inflight))
    summary.standings = standings()
    return summary
