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
from bidref.errors import UsageError

from ..outcome import EndReason
from ..outcome.details import InterruptedDetail, RunnerErrorDetail
from .model import (
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
from .security import NOT_RETRIED
from .standings import Standings, Tally
from .store import ResultsStore, write_durably
from .throttle import Throttle

log = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
TRANSCRIPTS_DIR = "transcripts"
DEBUG_DIR = "debug"  # --debug: one log of every engine line per match

if TYPE_CHECKING:
    from ..sandbox.policy import SandboxConfig


class TournamentError(UsageError, ValueError):  # ValueError: as before, for one release
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
    freeze_idle: bool = False  # stop the engine not on move (MatchSpec.freeze_idle)
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

    @property
    def deals_origin(self) -> str:
        """Where the deal seeds come from: ``master seed 7`` or ``deal book FILE``."""
        h = self.header
        return (
            f"master seed {h.master_seed}"
            if h.master_seed is not None
            else f"deal book {h.deal_book}"
        )

    @property
    def hero(self) -> str | None:
        """The gauntlet's engine (listed first in its standings); None in a round robin."""
        return self.names[0] if self.header.format == "gauntlet" else None

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
            freeze_idle=self.freeze_idle,
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
            reason=EndReason.ABORTED,
            rated=False,
            detail=InterruptedDetail().to_dict(),
            interrupted=True,
        )
    if not report.elapsed_s:
        report = replace(report, elapsed_s=time.monotonic() - started)
    return report


def _is_output_of(job: MatchJob, path: str) -> bool:
    """Whether ``path`` is one of the files ``job`` writes (transcript, logs)."""
    if path in (job.transcript, job.debug_log):
        return True
    return job.stderr_dir is not None and os.path.dirname(path) == job.stderr_dir


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
    refused: list[MatchKey] = field(default_factory=list)  # not played: an engine changed
    stopped: str | None = None  # why the run stopped before the end, if it did
    stopped_by: EndReason | None = None  # ... and the end reason of the match that stopped it
    standings: Standings | None = None
    lowered: list[str] = field(default_factory=list)  # concurrency lowered (throttle.py), why

    def to_dict(self) -> dict[str, object]:
        """The counts and the matches left to play, by id (the standings apart)."""
        return {
            "total": self.total,
            "done": self.done,
            "played": self.played,
            "aborted": self.aborted,
            "interrupted": self.interrupted,
            "sprt_stopped": self.sprt_stopped,
            "unresolved": [k.id for k in self.unresolved],
            "failed": [k.id for k in self.failed],
            "refused": [k.id for k in self.refused],
            "stopped": self.stopped,
            "concurrency_lowered": list(self.lowered),
        }


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
    loop = _Loop(plan, store, backend, on_progress, max_attempts, remote)
    if loop.decided():
        loop.summary.sprt_stopped = True
    else:
        loop.report_progress(None)
        try:
            loop.play(tick_s)
        except KeyboardInterrupt:
            loop.drain(drain_timeout_s, tick_s)
    loop.summary.standings = loop.tally.standings
    return loop.summary


class _Loop:
    """One run of :func:`run`: the matches pending, running and finished, counted in
    its summary and tally."""

    def __init__(
        self,
        plan: Plan,
        store: ResultsStore,
        backend: Backend,
        on_progress: Callable[[Progress], None] | None,
        max_attempts: int,
        remote: frozenset[str],
    ) -> None:
        self.plan, self.store, self.backend = plan, store, backend
        self.on_progress, self.max_attempts, self.remote = on_progress, max_attempts, remote
        todo = missing(plan, store)
        keys = plan.keys
        self.summary = RunSummary(total=len(keys), done=len(keys) - len(todo))
        self.clock_start = time.monotonic()
        self.tally = Tally(plan.names, plan.pairings)
        for r in store.records:
            self.tally.add(r)
        attempts = Counter(r.key for r in store.records)
        self.pending: deque[MatchJob] = deque(plan.job(k, attempts[k] + 1) for k in todo)
        self.tries: dict[MatchKey, int] = {}  # aborted in this run, per match
        self.inflight: dict[int, tuple[Handle, MatchJob]] = {}  # by token
        self.finished: queue.Queue[int] = queue.Queue()  # tokens, as matches end
        self.token = 0
        self.throttle = Throttle(backend.slots)  # fewer at once when the machine aborts them

    def decided(self) -> bool:
        sprt = self.plan.sprt
        if sprt is None:
            return False
        status = self.tally.standings.sprt_status(sprt)
        return status is not None and status[2] != "continue"

    def report_progress(self, last: MatchRecord | None) -> None:
        if self.on_progress is not None:
            s = self.summary
            elapsed = time.monotonic() - self.clock_start
            self.on_progress(
                Progress(s.total, s.done, s.played, elapsed, self.tally.standings, last)
            )

    def play(self, tick_s: float) -> None:
        """Submit and collect until every match is played or the run stops."""
        summary = self.summary
        while self.pending or self.inflight:
            while (
                self.pending
                and len(self.inflight) < self.throttle.limit
                and not summary.sprt_stopped
                and summary.stopped is None
            ):
                job = self.next_job()
                if job is None:
                    break
                self.submit(job)
            if not self.inflight:
                break
            try:
                tok = self.finished.get(timeout=tick_s)
            except queue.Empty:
                self.report_progress(None)
                continue
            self.collect(tok)
            if not summary.sprt_stopped and self.decided():
                log.info("SPRT decided; no further matches are started")
                summary.sprt_stopped = True
                self.pending.clear()

    def drain(self, drain_timeout_s: float, tick_s: float) -> None:
        """Ctrl-C: ask the running matches to end and record what finishes in time."""
        self.summary.interrupted = True
        log.info("interrupted: ending %d running matches", len(self.inflight))
        self.backend.interrupt()
        deadline = time.monotonic() + drain_timeout_s
        try:
            while self.inflight and time.monotonic() < deadline:
                try:
                    self.collect(self.finished.get(timeout=tick_s))
                except queue.Empty:
                    continue
        except KeyboardInterrupt:
            log.warning("second interrupt: not waiting for %d running matches", len(self.inflight))

    def next_job(self) -> MatchJob | None:
        """The first pending job that can start: no network engine of it is busy."""
        if not self.remote:
            return self.pending.popleft()
        busy = {n for _, j in self.inflight.values() for n in (j.engine_a.name, j.engine_b.name)}
        busy &= self.remote
        for i, job in enumerate(self.pending):
            if job.engine_a.name not in busy and job.engine_b.name not in busy:
                del self.pending[i]
                return job
        return None

    def submit(self, job: MatchJob) -> None:
        self.token += 1
        handle = self.backend.submit(job)
        self.inflight[self.token] = (handle, job)
        handle.add_done_callback(_put_when_done(self.finished, self.token))

    def collect(self, tok: int) -> None:
        handle, job = self.inflight.pop(tok)
        try:
            report = self.backend.result(handle)
        except Exception as exc:  # the play function failed: not a result
            if self.summary.interrupted:  # a worker ended by the interrupt
                log.info("match %s ended by the interrupt: %r", job.key.id, exc)
                return
            log.error("match %s failed in the runner: %r", job.key.id, exc)
            report = MatchReport(
                winner=None,
                reason=EndReason.ABORTED,
                rated=False,
                detail=RunnerErrorDetail(error=repr(exc)[:500]).to_dict(),
            )
        if report.interrupted:
            return
        with _shielded():
            self.record_and_count(job, report)
        self.report_progress(self.store.records[-1])

    def record_and_count(self, job: MatchJob, report: MatchReport) -> None:
        rel = self.plan.transcript(job.key, job.attempt)
        for path, data in report.outputs:  # a cluster worker's files, before the record
            if _is_output_of(job, path):
                write_durably(Path(path), data)
            else:  # a worker writes this match's files only, nothing else here
                log.warning("match %s: ignoring a file for %s from its worker", job.key.id, path)
        record = MatchRecord.of(job, replace(report, transcript=rel, outputs=()))
        self.store.append(record)
        self.tally.add(record)
        self.summary.played += 1
        lowered = self.throttle.note(not record.rated, record.end.cause)
        if lowered is not None:
            log.warning("%s", lowered)  # (on the console: the run goes on)
            self.summary.lowered.append(lowered)
        if record.rated:
            self.summary.done += 1
        elif record.reason != EndReason.ABORTED:
            self.failed_to_start(job, record)
        else:
            self.aborted(job, report)

    def failed_to_start(self, job: MatchJob, record: MatchRecord) -> None:
        """Not retried; an engine with no rated match yet stops the run (a network
        engine does not: its client may come later)."""
        self.summary.failed.append(job.key)
        culprit = record.at_fault
        if (
            culprit is not None
            and culprit not in self.remote
            and not any(r.rated and culprit in (r.engine_a, r.engine_b) for r in self.store.records)
        ):
            self.summary.stopped = (
                f"engine {culprit!r} failed ({record.reason}) in its first "
                f"matches: {record.detail_text()}"
            )
            self.summary.stopped_by = EndReason.named(record.reason)
            log.info("stopping: %s", self.summary.stopped)
            self.pending.clear()

    def aborted(self, job: MatchJob, report: MatchReport) -> None:
        """A referee timing fault: played again, up to ``max_attempts`` times."""
        self.summary.aborted += 1
        tries = self.tries[job.key] = self.tries.get(job.key, 0) + 1
        end = report.end
        if end.cause in NOT_RETRIED:  # e.g. a changed engine: said, not replayed
            log.warning("match %s not played: %s", job.key.id, end.problem_text)
            self.summary.refused.append(job.key)
        elif tries < self.max_attempts:
            log.info("match %s aborted (%s); playing it again", job.key.id, report.detail)
            self.pending.appendleft(self.plan.job(job.key, job.attempt + 1))
        else:
            log.info("match %s aborted %d times; giving up on it in this run", job.key.id, tries)
            self.summary.unresolved.append(job.key)
