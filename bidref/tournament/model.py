"""The values a tournament passes around: engines, settings, jobs, reports, records.

``MatchJob`` and ``MatchReport`` are plain picklable dataclasses: a job travels to
a worker (a local process, a thread or a dask worker), the worker plays it with a
*play function* ``(MatchJob) -> MatchReport`` and sends the report back. Only the
runner's own process turns reports into ``MatchRecord`` lines of the results file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..outcome import EndDetail, EndReason, decode_detail, end_sentence
from ..sandbox.policy import Level
from .schedule import MatchKey, Pairing

if TYPE_CHECKING:
    from ..sandbox.policy import SandboxConfig


@dataclass(frozen=True)
class EngineEntry:
    """A tournament engine: a unique display name and how to start it.

    ``spec`` is what the user gave: a command line (``"./engine --fast"``) or the
    path of an engine file. ``command``, ``cwd``, ``env`` and ``options`` are that
    spec resolved once, with absolute paths, when the tournament is created, so a
    resumed run (or a cluster worker) starts exactly the same engines.
    ``sandbox_level`` and ``dir_writable`` are its own jail settings (``--engine
    "... sandbox=strict dir_writable=yes"``, or its engine file's), recorded too:
    the stricter of its level and the run's ``--sandbox`` jails it
    (:meth:`bidref.engines.spec.EngineSpec.jail_config`).
    """

    name: str
    spec: str
    command: tuple[str, ...] = ()
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict, hash=False, compare=True)
    options: dict[str, object] = field(default_factory=dict, hash=False, compare=True)
    # This engine's own clock (bank_ms, delay_ms), a handicap; None: the settings'.
    time_control_ms: tuple[int, int] | None = None
    transport: Literal["pipe", "pty"] | None = None  # None: the settings'
    # The sha256 of each of its files (program, its folder's files), by absolute
    # path, taken when the tournament is created: a worker plays no other build.
    files: dict[str, str] = field(default_factory=dict, hash=False, compare=True)
    # Its own jail level and folder setting; None: the run's (--sandbox and
    # --engine-dir-writable).
    sandbox_level: Level | None = None
    dir_writable: bool | None = None


@dataclass(frozen=True)
class MatchSettings:
    """The match options every match of a tournament shares."""

    bank_ms: int = 120_000
    delay_ms: int = 10_000
    max_rounds: int | None = None
    illegal: Literal["reject", "forfeit"] = "reject"
    transport: Literal["pipe", "pty"] = "pipe"


@dataclass(frozen=True)
class MatchJob:
    """One match to play: who sits where, on which deal seed, written where."""

    key: MatchKey
    engine_a: EngineEntry
    engine_b: EngineEntry
    settings: MatchSettings
    transcript: str
    attempt: int = 1
    # What this run adds (not recorded in the header): --stderr-dir, --debug.
    stderr_dir: str | None = None  # keep the engines' stderr in this folder
    stderr_prefix: str = ""  # ... in files named PREFIX + A-name.stderr.log
    debug_log: str | None = None  # write every line to and from the engines here
    freeze_idle: bool = False  # stop the engine not on move (MatchSpec.freeze_idle)
    sandbox: SandboxConfig | None = None  # the engines' jail (bidref.sandbox); None: none


@dataclass(frozen=True)
class MatchReport:
    """What a play function tells about a finished (or aborted) match.

    ``winner`` is a seat (0 = A, 1 = B) or None (a draw by equal balances at the
    round limit, or no result at all when ``rated`` is False).
    """

    winner: int | None
    reason: str
    rated: bool
    detail: dict[str, object] = field(default_factory=dict)  # the referee's, as JSON values
    balances: tuple[int, int] = (0, 0)
    rounds: int = 0
    transcript: str | None = None
    elapsed_s: float = 0.0
    interrupted: bool = False  # stopped by Ctrl-C: not a result, not recorded
    fault_seat: int | None = None  # whose fault the end was (time, crash, start-up, ...)
    extra: dict[str, object] = field(default_factory=dict)
    # Files for the runner to write before it records the match, as (absolute path,
    # bytes), the transcript last: a cluster worker's output comes home this way.
    outputs: tuple[tuple[str, bytes], ...] = ()

    @property
    def end(self) -> EndDetail:
        """The detail, typed (``detail`` is its JSON, as the results file keeps it)."""
        return decode_detail(self.reason, self.detail)


PlayFn = Callable[[MatchJob], MatchReport]


def _played_on(report: MatchReport) -> PlayedOn | None:
    given = report.extra.get("played_on")
    return None if given is None else PlayedOn.model_validate(given)


class RecordModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _unset(value: object) -> bool:
    return value is None


class EngineModel(RecordModel):
    name: str
    spec: str
    command: list[str] = []
    cwd: str | None = None
    env: dict[str, str] = {}
    options: dict[str, object] = {}
    time_control_ms: tuple[int, int] | None = None
    transport: Literal["pipe", "pty"] | None = None
    files: dict[str, str] = {}  # sha256 by absolute path (older files: none recorded)
    # its own jail settings (older files: none recorded, the run's apply). Written
    # only when set: a file without them stays readable by an older bidref, and one
    # with them is refused by it (extra keys), rather than played without the jail.
    sandbox_level: Level | None = Field(default=None, exclude_if=_unset)
    dir_writable: bool | None = Field(default=None, exclude_if=_unset)

    @classmethod
    def of(cls, e: EngineEntry) -> EngineModel:
        return cls(
            name=e.name,
            spec=e.spec,
            command=list(e.command),
            cwd=e.cwd,
            env=dict(e.env),
            options=dict(e.options),
            time_control_ms=e.time_control_ms,
            transport=e.transport,
            files=dict(e.files),
            sandbox_level=e.sandbox_level,
            dir_writable=e.dir_writable,
        )

    def entry(self) -> EngineEntry:
        return EngineEntry(
            self.name,
            self.spec,
            tuple(self.command),
            self.cwd,
            dict(self.env),
            dict(self.options),
            self.time_control_ms,
            self.transport,
            dict(self.files),
            self.sandbox_level,
            self.dir_writable,
        )


class SettingsModel(RecordModel):
    bank_ms: int
    delay_ms: int
    max_rounds: int | None
    illegal: Literal["reject", "forfeit"]
    transport: Literal["pipe", "pty"]

    @classmethod
    def of(cls, s: MatchSettings) -> SettingsModel:
        return cls(
            bank_ms=s.bank_ms,
            delay_ms=s.delay_ms,
            max_rounds=s.max_rounds,
            illegal=s.illegal,
            transport=s.transport,
        )

    def settings(self) -> MatchSettings:
        return MatchSettings(
            self.bank_ms, self.delay_ms, self.max_rounds, self.illegal, self.transport
        )


class SprtModel(RecordModel):
    elo0: float
    elo1: float
    alpha: float
    beta: float


class Header(RecordModel):
    """The first line of a results file: everything needed to resume the tournament."""

    type: Literal["tournament"] = "tournament"
    results_version: Literal[1] = 1
    bidref_version: str
    format: Literal["round-robin", "gauntlet"]
    engines: list[EngineModel]
    master_seed: int | None  # None when the seeds come from a deal book
    deal_book: str | None
    seeds: list[int]
    settings: SettingsModel
    sprt: SprtModel | None = None
    created: str
    # the jail this run gave its engines, as said on its start lines (what each
    # level could not give, the limits not enforced); written only when set
    jail: list[str] | None = Field(default=None, exclude_if=_unset)


class PlayedOn(RecordModel):
    """Where a cluster match was played: the worker (as the scheduler names it), the
    jail it gave each seat (the jail's start line there, and the record of it in
    the transcript), and each seat's time per decision as (total ns, decisions)
    from the proven transcript."""

    worker: str
    jails: list[str] = []
    decision_ns: list[tuple[int, int]] | None = None
    # each seat's jail as the proven transcript's hello line records it (spec.record)
    seat_jails: list[dict[str, Any] | None] | None = None


class MatchRecord(RecordModel):
    """One finished match, one line of the results file."""

    type: Literal["match"] = "match"
    first: str
    second: str
    seed: int
    seat: int
    engine_a: str
    engine_b: str
    attempt: int
    rated: bool
    winner: str | None  # engine name; None for a draw or an unrated match
    reason: str
    detail: dict[str, Any]  # the referee's detail of the end (a JSON object)
    balances: tuple[int, int]
    rounds: int
    transcript: str | None
    elapsed_s: float
    at_fault: str | None = None  # the engine whose fault ended the match, if any
    # a cluster match's worker and jails (written only then: older readers refuse it)
    played_on: PlayedOn | None = Field(default=None, exclude_if=_unset)

    @field_validator("detail", mode="before")
    @classmethod
    def _old_detail(cls, value: object) -> object:
        """Older results files hold the detail as a JSON string (or plain text)."""
        if isinstance(value, str):
            if not value:
                return {}
            try:
                parsed = json.loads(value)
            except ValueError:
                return {"text": value}
            return parsed if isinstance(parsed, dict) else {"text": value}
        return value

    @property
    def end(self) -> EndDetail:
        """The detail, typed (``detail`` is its JSON, as the results file keeps it)."""
        return decode_detail(self.reason, self.detail)

    def detail_text(self) -> str:
        """What happened, in sentences (``B (x) wins by startup: A (y) did not start:
        ...``); for a reason this bidref does not know, the detail as it is."""
        reason = EndReason.named(self.reason)
        if reason is None:
            return ", ".join(f"{k}={v}" for k, v in self.detail.items())
        names = (self.engine_a, self.engine_b)
        winner = names.index(self.winner) if self.winner in names else None
        return end_sentence(reason, winner, self.end, names)

    @property
    def key(self) -> MatchKey:
        return MatchKey(Pairing(self.first, self.second), self.seed, self.seat)

    @classmethod
    def of(cls, job: MatchJob, report: MatchReport) -> MatchRecord:
        names = (job.engine_a.name, job.engine_b.name)
        winner = names[report.winner] if report.rated and report.winner is not None else None
        return cls(
            first=job.key.pairing.first,
            second=job.key.pairing.second,
            seed=job.key.seed,
            seat=job.key.seat,
            engine_a=names[0],
            engine_b=names[1],
            attempt=job.attempt,
            rated=report.rated,
            winner=winner,
            reason=report.reason,
            detail=report.detail,
            balances=report.balances,
            rounds=report.rounds,
            transcript=report.transcript if report.transcript is not None else job.transcript,
            elapsed_s=round(report.elapsed_s, 3),
            at_fault=None if report.fault_seat not in (0, 1) else names[report.fault_seat],
            played_on=_played_on(report),
        )

    @property
    def loser(self) -> str | None:
        if self.winner is None:
            return None
        return self.engine_b if self.winner == self.engine_a else self.engine_a

    def points_for(self, name: str) -> float:
        """1 for a win of ``name``, ½ for a draw, 0 for a loss (rated matches only)."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == name else 0.0
