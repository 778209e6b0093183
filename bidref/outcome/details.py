"""The end's ``detail``, typed: one record per end reason (and per abort cause
where the fields differ), encoded to the JSON the transcript's ``result`` line
and the results file have always carried, and decoded from it.

The referee builds a record (:class:`CrashDetail`, :class:`TimeDetail`, ...)
where it decides the end; readers (the replay's checks, the tournament, the
CLI's summaries, the sentences of :func:`~.reasons.end_sentence`) read its
typed fields, never a key of a dict. The codec is this module only:
:meth:`EndDetail.to_dict` writes the same keys in the same order with the same
values as the dicts the referee wrote before (transcripts and results files
are byte for byte as they were), and :func:`decode_detail` reads a file's dict.

Decoding is as tolerant as the readers were:

- a key this version does not know (a newer writer's) is kept in ``extra``
  and written back where it was; the record's readers ignore it;
- a key an older writer did not write (a ``resources`` end before its
  ``limit_value``, an ``illegal`` one before its ``code``) reads as None and is
  not written back;
- a detail that is not one of the records (a key a record needs is missing or
  of another type, a reason or an abort cause this version does not know)
  decodes to :class:`UnreadDetail`, which keeps the dict as it is and says
  why (``problem``): the replay reports that, the other readers see no seat,
  no cause they know and no problem text.

A decoded record remembers its keys' order (``written``), so decoding and
encoding a file's detail gives its bytes back.

Decisions (issue 39): ``MatchOutcome.end`` is the typed detail;
``MatchOutcome.detail`` (the dict) stays for one release as a deprecated alias
of ``end.to_dict()`` that warns (scripts read it). The tournament's
``MatchReport.detail`` and ``MatchRecord.detail`` stay the JSON the results file
holds (keys sorted, long texts cut: ``bidref/tournament/play.py``), the form
that crosses to and from a cluster worker; their ``.end`` reads it typed. A
``result`` line's model (``bidref.transcript.lines.Result``) keeps the dict it
decodes; the replay reads it typed (``ReplayReport.result``).

>>> d = CrashDetail(seat=1, exit_code=101, signal=None, problem="exit code 101", stderr_tail="")
>>> d.to_dict()
{'seat': 1, 'exit_code': 101, 'signal': None, 'problem': 'exit code 101', 'stderr_tail': ''}
>>> decode_detail("crash", d.to_dict()) == d
True
>>> decode_detail("aborted", {"cause": "interrupted"}).cause
'interrupted'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from .excuse import MachineWait
from .reasons import AbortCause, EndReason

__all__ = [
    "DETAIL_TYPES",
    "BalanceDetail",
    "CrashDetail",
    "EndDetail",
    "EngineChangedDetail",
    "EngineRefusedDetail",
    "EngineRefusedFileDetail",
    "IllegalDetail",
    "InterruptedDetail",
    "JailSetupDetail",
    "MachineEvidence",
    "MachineWaitDetail",
    "ProtocolDetail",
    "ResignDetail",
    "ResourcesDetail",
    "RoundLimitDetail",
    "RunnerErrorDetail",
    "StartupDetail",
    "TimeDetail",
    "TimingFaultDetail",
    "TranscriptRejectedDetail",
    "UnreadDetail",
    "decode_detail",
]


@dataclass(frozen=True, kw_only=True)
class MachineEvidence:
    """The machine's wait of a decision as a result line carries it: the figures
    (:class:`~.excuse.MachineWait`), the ``excused_ns`` the referee wrote (the
    replay makes it again from the figures and compares), and, for a time loss,
    why nothing was excused (``why_not``)."""

    wait: MachineWait
    excused_ns: int | None  # as written (None: a file without it)
    why_not: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    written: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def of(cls, wait: MachineWait, *, with_why_not: bool = False) -> MachineEvidence:
        """The evidence the referee writes for ``wait`` (``why_not`` with a time loss)."""
        return cls(
            wait=wait, excused_ns=wait.excused_ns, why_not=wait.why_not() if with_why_not else None
        )

    @classmethod
    def decode(cls, said: object) -> MachineEvidence:
        """From a result line's ``machine`` object; ValueError (saying what) when it
        is not one."""
        if not isinstance(said, dict):
            raise ValueError(f"the machine-wait figures are {said!r}, not an object")
        wait = MachineWait.of(said)
        excused, why = said.get("excused_ns"), said.get("why_not")
        known = {*wait.to_dict(), "why_not"}
        return cls(
            wait=wait,
            excused_ns=excused if _is_int(excused) else None,
            why_not=why if isinstance(why, str) else None,
            extra={k: v for k, v in said.items() if k not in known},
            written=tuple(said),
        )

    def to_dict(self) -> dict[str, Any]:
        out = self.wait.to_dict()
        out["excused_ns"] = self.excused_ns
        if self.why_not is not None:
            out["why_not"] = self.why_not
        out.update(self.extra)
        if self.written:
            return {k: out[k] for k in self.written if k in out}
        return out


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# -- what each key holds -------------------------------------------------------------------------


def _int(key: str, v: object) -> object:
    if not _is_int(v):
        raise ValueError(f"{key} is {v!r}, not an integer")
    return v


def _number(key: str, v: object) -> object:
    if not (_is_int(v) or isinstance(v, float)):
        raise ValueError(f"{key} is {v!r}, not a number")
    return v


def _text(key: str, v: object) -> object:
    if not isinstance(v, str):
        raise ValueError(f"{key} is {v!r}, not a string")
    return v


def _or_null(read: Callable[[str, object], object]) -> Callable[[str, object], object]:
    return lambda key, v: None if v is None else read(key, v)


def _machine(key: str, v: object) -> object:
    return MachineEvidence.decode(v)


# One meaning per key, whichever reason's detail it is in.
_READ: Final[dict[str, Callable[[str, object], object]]] = {
    "seat": _int,
    "max_rounds": _or_null(_int),
    "overrun_ns": _int,
    "overrun_ms": _number,
    "machine": _machine,
    "action": _or_null(_text),
    "rule": _or_null(_text),
    "code": _or_null(_text),
    "message": _or_null(_text),
    "line": _or_null(_text),
    "problem": _text,
    "exit_code": _or_null(_int),
    "signal": _or_null(_text),
    "stderr_tail": _or_null(_text),
    "limit": _text,
    "limit_value": _or_null(_int),
    "evidence": _or_null(_text),
    "late_ns": _int,
    "at_ns": _int,
    "quiet_before_ns": _int,
    "error": _text,
    "worker": _text,
    "engine": _text,
    "file": _text,
    "expected": _text,
    "found": _or_null(_text),
}


# -- the records ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class EndDetail:
    """What every detail carries: the keys this version does not know (``extra``,
    written back after the others, or where they were) and, for a decoded one,
    its keys in the file's order (``written``)."""

    REASON: ClassVar[EndReason]
    CAUSE: ClassVar[AbortCause | None] = None  # an aborted end's cause, written first
    KEYS: ClassVar[tuple[str, ...]] = ()  # the JSON keys, in the order the referee writes them
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()  # keys an older writer may have left out
    OMIT_NONE: ClassVar[frozenset[str]] = frozenset()  # keys not written when None

    extra: Mapping[str, Any] = field(default_factory=dict)
    written: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def reason(self) -> EndReason | str:
        return self.REASON

    @property
    def cause(self) -> AbortCause | None:
        """An aborted end's cause (None: not aborted, or a cause this version does not know)."""
        return self.CAUSE

    @property
    def cause_word(self) -> str | None:
        """The abort cause as the file says it (a word this bidref may not know)."""
        return None if self.CAUSE is None else self.CAUSE.value

    @property
    def at_seat(self) -> int | None:
        """The seat the end is about (the loser of a seat's end; the seat being judged
        for an abort), if the detail names one."""
        seat = self._said("seat")
        return seat if _is_int(seat) else None  # type: ignore[return-value]

    @property
    def problem_text(self) -> str | None:
        """The referee's words for what went wrong, if the detail has them."""
        problem = self._said("problem")
        return problem if isinstance(problem, str) else None

    @property
    def on_worker(self) -> str | None:
        """The cluster worker an abort names (a refusal, a rejected transcript)."""
        worker = self._said("worker")
        return worker if isinstance(worker, str) else None

    @property
    def stderr_text(self) -> str:
        """The tail of the seat's stderr a crash or a limit quotes ("" if none)."""
        tail = self._said("stderr_tail")
        return tail if isinstance(tail, str) else ""

    def _said(self, key: str) -> object:
        # (the codec's own look-up: readers use the typed fields; a key of a newer
        # writer's, in ``extra``, is read as the readers of the dict read it)
        return vars(self)[key] if key in self.KEYS else self.extra.get(key)

    def to_dict(self) -> dict[str, Any]:
        """The detail as the referee writes it (the JSON of a ``result`` line)."""
        out: dict[str, Any] = {} if self.CAUSE is None else {"cause": self.CAUSE}
        for key in self.KEYS:
            value = vars(self)[key]
            if value is None and key in self.OMIT_NONE:
                continue
            out[key] = value.to_dict() if isinstance(value, MachineEvidence) else value
        out.update(self.extra)
        if self.written:
            return {k: out[k] for k in self.written if k in out}
        return out

    @classmethod
    def decode(cls, d: Mapping[str, Any]) -> EndDetail:
        """This record from a file's dict; ValueError (saying why) when it is not one."""
        values: dict[str, object] = {}
        for key in cls.KEYS:
            if key not in d:
                if key not in cls.OPTIONAL and key not in cls.OMIT_NONE:
                    raise ValueError(f"no {key!r}")
                values[key] = None
                continue
            values[key] = _READ[key](key, d[key])
        known = {*cls.KEYS, "cause"} if cls.CAUSE is not None else set(cls.KEYS)
        extra = {k: v for k, v in d.items() if k not in known}
        return cls(**values, extra=extra, written=tuple(d))


@dataclass(frozen=True, kw_only=True)
class BalanceDetail(EndDetail):
    """``balance``: the rules ended it (a balance reached 0); nothing more to say."""

    REASON = EndReason.BALANCE


@dataclass(frozen=True, kw_only=True)
class RoundLimitDetail(EndDetail):
    """``round_limit``: adjudicated by balance after ``max_rounds``."""

    REASON = EndReason.ROUND_LIMIT
    KEYS = ("max_rounds",)
    max_rounds: int | None  # (None: no limit was set, so this end cannot have come)


@dataclass(frozen=True, kw_only=True)
class ResignDetail(EndDetail):
    REASON = EndReason.RESIGN
    KEYS = ("seat",)
    seat: int


@dataclass(frozen=True, kw_only=True)
class TimeDetail(EndDetail):
    """``time``: the reply came (or the referee looked) ``overrun_ns`` after the
    deadline; ``machine``: the machine's wait, where it was read."""

    REASON = EndReason.TIME
    KEYS = ("seat", "overrun_ns", "overrun_ms", "machine")
    OMIT_NONE = frozenset({"machine"})
    seat: int
    overrun_ns: int
    overrun_ms: float
    machine: MachineEvidence | None = None


@dataclass(frozen=True, kw_only=True)
class IllegalDetail(EndDetail):
    """``illegal``: a forfeit for the rejected ``action`` (``code``: ``illegal`` or
    ``bad_action``; ``rule``: the rule it broke, for an illegal one)."""

    REASON = EndReason.ILLEGAL
    KEYS = ("seat", "action", "rule", "code", "message")
    OPTIONAL = frozenset({"code"})
    seat: int
    action: str | None
    rule: str | None
    code: str | None
    message: str | None


@dataclass(frozen=True, kw_only=True)
class CrashDetail(EndDetail):
    REASON = EndReason.CRASH
    KEYS = ("seat", "exit_code", "signal", "problem", "stderr_tail")
    OPTIONAL = frozenset({"exit_code", "signal", "problem", "stderr_tail"})
    seat: int
    exit_code: int | None
    signal: str | None
    problem: str | None
    stderr_tail: str | None


@dataclass(frozen=True, kw_only=True)
class ProtocolDetail(EndDetail):
    REASON = EndReason.PROTOCOL
    KEYS = ("seat", "line", "problem")
    OPTIONAL = frozenset({"line"})
    seat: int
    line: str | None
    problem: str


@dataclass(frozen=True, kw_only=True)
class ResourcesDetail(EndDetail):
    """``resources``: the engine ended at its jail's ``limit`` (older transcripts
    have only ``seat``, ``limit``, ``problem`` and ``stderr_tail``)."""

    REASON = EndReason.RESOURCES
    KEYS = (
        "seat",
        "limit",
        "limit_value",
        "evidence",
        "exit_code",
        "signal",
        "problem",
        "stderr_tail",
    )
    OPTIONAL = frozenset({"limit_value", "evidence", "exit_code", "signal", "stderr_tail"})
    seat: int
    limit: str
    limit_value: int | None
    evidence: str | None
    exit_code: int | None
    signal: str | None
    problem: str
    stderr_tail: str | None


@dataclass(frozen=True, kw_only=True)
class StartupDetail(EndDetail):
    REASON = EndReason.STARTUP
    KEYS = ("seat", "problem")
    seat: int
    problem: str


# -- aborted: one record per cause ------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class InterruptedDetail(EndDetail):
    REASON = EndReason.ABORTED
    CAUSE = AbortCause.INTERRUPTED


@dataclass(frozen=True, kw_only=True)
class TimingFaultDetail(EndDetail):
    """The referee found a line ``late_ns`` after the deadline, its last look
    ``quiet_before_ns`` before it: neither an in-time reply nor a loss is proven."""

    REASON = EndReason.ABORTED
    CAUSE = AbortCause.TIMING_FAULT
    KEYS = ("seat", "late_ns", "quiet_before_ns", "problem")
    OPTIONAL = frozenset({"quiet_before_ns"})
    seat: int
    late_ns: int
    quiet_before_ns: int | None
    problem: str


@dataclass(frozen=True, kw_only=True)
class MachineWaitDetail(EndDetail):
    """The reply was not there at ``at_ns`` (transcript time), ``late_ns`` after the
    deadline, but the machine's wait excused more (docs/match.md)."""

    REASON = EndReason.ABORTED
    CAUSE = AbortCause.MACHINE_WAIT
    KEYS = ("seat", "late_ns", "at_ns", "machine", "problem")
    seat: int
    late_ns: int
    at_ns: int
    machine: MachineEvidence
    problem: str


@dataclass(frozen=True, kw_only=True)
class JailSetupDetail(EndDetail):
    REASON = EndReason.ABORTED
    CAUSE = AbortCause.JAIL_SETUP
    KEYS = ("seat", "problem")
    seat: int
    problem: str


@dataclass(frozen=True, kw_only=True)
class RunnerErrorDetail(EndDetail):
    """The tournament runner failed around the match (``error``: the exception's repr)."""

    REASON = EndReason.ABORTED
    CAUSE = AbortCause.RUNNER_ERROR
    KEYS = ("error",)
    error: str


@dataclass(frozen=True, kw_only=True)
class TranscriptRejectedDetail(EndDetail):
    REASON = EndReason.ABORTED
    CAUSE = AbortCause.TRANSCRIPT_REJECTED
    KEYS = ("worker", "problem")
    worker: str
    problem: str


@dataclass(frozen=True, kw_only=True)
class EngineChangedDetail(EndDetail):
    """A local engine's ``file`` is not the recorded build (``found`` None: missing)."""

    REASON = EndReason.ABORTED
    CAUSE = AbortCause.ENGINE_CHANGED
    KEYS = ("engine", "file", "expected", "found", "problem")
    engine: str
    file: str
    expected: str
    found: str | None
    problem: str


@dataclass(frozen=True, kw_only=True)
class EngineRefusedDetail(EndDetail):
    """A cluster ``worker`` would not play ``engine`` (another bidref, no cache, no
    interpreter)."""

    REASON = EndReason.ABORTED
    CAUSE = AbortCause.ENGINE_REFUSED
    KEYS = ("worker", "engine", "problem")
    worker: str
    engine: str
    problem: str


@dataclass(frozen=True, kw_only=True)
class EngineRefusedFileDetail(EndDetail):
    """A cluster ``worker`` would not play ``engine``: its ``file`` there is not the
    recorded build."""

    REASON = EndReason.ABORTED
    CAUSE = AbortCause.ENGINE_REFUSED
    KEYS = ("worker", "engine", "file", "expected", "found", "problem")
    worker: str
    engine: str
    file: str
    expected: str
    found: str | None
    problem: str


@dataclass(frozen=True, kw_only=True)
class UnreadDetail(EndDetail):
    """A detail that is none of the records (``problem``: why): kept as it is."""

    REASON = EndReason.ABORTED  # (unused: ``reason`` says the file's word)
    said_reason: EndReason | str
    fields: Mapping[str, Any]
    why: str

    @property
    def reason(self) -> EndReason | str:
        return self.said_reason

    @property
    def cause(self) -> AbortCause | None:
        return AbortCause.named(self.fields.get("cause"))

    @property
    def cause_word(self) -> str | None:
        word = self.fields.get("cause")
        return word if isinstance(word, str) else None

    def _said(self, key: str) -> object:
        return self.fields.get(key)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.fields)


DETAIL_TYPES: Final[tuple[type[EndDetail], ...]] = (
    BalanceDetail,
    RoundLimitDetail,
    ResignDetail,
    TimeDetail,
    IllegalDetail,
    CrashDetail,
    ProtocolDetail,
    ResourcesDetail,
    StartupDetail,
    InterruptedDetail,
    TimingFaultDetail,
    MachineWaitDetail,
    JailSetupDetail,
    RunnerErrorDetail,
    TranscriptRejectedDetail,
    EngineChangedDetail,
    EngineRefusedFileDetail,  # (before the one without a file: the first that reads wins)
    EngineRefusedDetail,
)


def decode_detail(reason: EndReason | str, d: Mapping[str, Any]) -> EndDetail:
    """The record of an end ``reason``'s ``detail`` as a file holds it (a ``result``
    line's, a results file's): never fails (:class:`UnreadDetail` for one it
    cannot read)."""
    said = EndReason.named(str(reason))
    cause = AbortCause.named(d.get("cause")) if said is EndReason.ABORTED else None
    why = f"{reason!s} is not an end reason this bidref knows"
    for cls in DETAIL_TYPES:
        if cls.REASON is not said or cls.CAUSE is not cause:
            continue
        try:
            return cls.decode(d)
        except ValueError as e:
            why = str(e)
    if said is EndReason.ABORTED and cause is None:
        why = f"the abort cause {d.get('cause')!r} is not one this bidref knows"
    return UnreadDetail(said_reason=said or str(reason), fields=dict(d), why=why)
