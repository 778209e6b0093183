"""What a replay finds: the first mismatch, the steps to show, the verified stream."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import msgspec

from ...outcome.details import EndDetail, decode_detail
from ...rules import Deal, Event, Layout, RoundEnded, Tile, public_event
from ..lines import AnyLine, Header, PrivateItem, RequestDigest, Result
from ..reader import Line, shorten


class Mismatch(Exception):
    """The transcript disagrees with the replay at ``line``."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message = shorten(message)
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True, slots=True)
class Step:
    """One thing to show: an action with its consequences, a round start or end, a note,
    a log line.

    ``layout`` is a snapshot after a placement (``last`` is the tile placed).
    """

    line: int
    round: int
    kind: str  # round_start, action, illegal, pass, round_end, match_end, result, note, log
    text: str
    player: int | None = None
    layout: Layout | None = None
    last: Tile | None = None
    t_ns: int | None = None


class _Entry(NamedTuple):
    line: int
    item: AnyLine | Event  # an Event: derived (a v2 file leaves events out)
    extra: dict[str, Any] | None
    verified: bool | str


@dataclass(frozen=True)
class ReplayedResult:
    """The transcript's ``result`` line as the replay read it, its detail typed
    (:mod:`bidref.outcome.details`). ``reason`` is the file's word (a reason this
    bidref does not know stays a word: :meth:`EndReason.named` reads it)."""

    winner: int | None
    reason: str
    detail: EndDetail
    balances: list[int]
    rounds: int
    rated: bool

    @classmethod
    def of(cls, r: Result, detail: EndDetail | None = None) -> ReplayedResult:
        """From the line (``detail``: its detail decoded already, if it is)."""
        if detail is None:
            detail = decode_detail(r.reason, r.detail)
        return cls(r.winner, r.reason, detail, list(r.balances), r.rounds, r.rated)

    def to_dict(self) -> dict[str, Any]:
        """As ``replay --json``'s verdict has it (the line's fields, its detail as written)."""
        return {
            "winner": self.winner,
            "reason": self.reason,
            "detail": self.detail.to_dict(),
            "balances": self.balances,
            "rounds": self.rounds,
            "rated": self.rated,
        }


@dataclass
class GameRecord:
    """The game as replayed, for exporting it (:mod:`bidref.transcript.export`)."""

    seed: int | None = None  # once revealed
    explicit_deals: int = 0
    max_rounds: int | None = None
    engines: list[str] = field(default_factory=list)
    deals: dict[int, Deal] = field(default_factory=dict)  # revealed rounds
    moves: list[tuple[int, int, str]] = field(default_factory=list)  # round, seat, action
    round_ends: list[RoundEnded] = field(default_factory=list)


@dataclass
class ReplayReport:
    """What replaying a transcript found: how far it agrees (``problem``, ``truncated``),
    its steps and lines for the pages, and the match it records."""

    problem: Mismatch | None = None  # the first disagreement (then not ``ok``)
    truncated: str | None = None  # where and why the transcript stops early
    empty: bool = False  # not one line: nothing to verify (``truncated`` says so)
    lines: int = 0  # lines read
    verified_lines: int = 0
    steps: list[Step] = field(default_factory=list)
    entries: list[_Entry] = field(default_factory=list)
    result: ReplayedResult | None = None
    final_layouts: dict[int, Layout] = field(default_factory=dict)
    decisions: int = 0  # accepted replies
    format: str | None = None
    logs: list[Step] = field(default_factory=list)  # engine log lines and stderr, in place
    game: GameRecord = field(default_factory=GameRecord)
    stderr_logs: dict[int, str | None] = field(default_factory=dict)  # by seat
    header: Header | None = None

    @property
    def ok(self) -> bool:
        """Every line read agrees (a truncated transcript is ok up to where it stops).
        (Derived, not stored: it is the absence of a ``problem``, never set apart.)"""
        return self.problem is None

    @property
    def stream(self) -> list[dict[str, Any]]:
        """The verified lines as JSON objects (``--json``): each with its line number
        and ``verified`` (True, or "public" for a round never revealed); the events a
        v2 transcript leaves out come with ``"derived": true``."""
        out = []
        for e in self.entries:
            if isinstance(e.item, Event):
                pub = public_event(e.item, None)
                extra = e.extra or {}
                d: dict[str, Any] = {"type": "event", **extra, "event": e.item.to_dict()}
                if pub is not None and pub.to_dict() != d["event"]:
                    d["public"] = pub.to_dict()  # what the other seat saw of it
                out.append({"line": e.line, **d, "derived": True, "verified": e.verified})
                continue
            d = msgspec.to_builtins(e.item)
            extra = {k: v for k, v in (e.extra or {}).items() if not k.startswith("_")}
            out.append({"line": e.line, **d, **extra, "verified": e.verified})
        return out

    @property
    def exit_code(self) -> int:
        """0 clean; 1 a disagreement; 3 verified as far as it goes but truncated."""
        if self.problem is not None:
            return 1
        return 3 if self.truncated else 0

    def verdict(self) -> dict[str, Any]:
        return {
            "type": "verdict",
            "ok": self.problem is None and not self.truncated,
            "problem": None
            if self.problem is None
            else {"line": self.problem.line, "message": self.problem.message},
            "truncated": self.truncated,
            "lines": self.lines,
            "verified_lines": self.verified_lines,
            "result": None if self.result is None else self.result.to_dict(),
        }


def diff(said: Any, derived: Any) -> str:
    if isinstance(said, dict) and isinstance(derived, dict):
        keys = sorted(set(said) | set(derived), key=str)
        parts = [
            f"{k}: transcript {said.get(k)!r}, replay {derived.get(k)!r}"
            for k in keys
            if said.get(k) != derived.get(k)
        ]
        return "; ".join(parts)
    return f"transcript {said!r}, replay {derived!r}"


def seconds(ns: int) -> str:
    return f"{ns / 1e9:.2f}s"


def cpu_time(ns: int) -> str:
    """A CPU time: in ms below a second (a decision's is often well below 0.01 s)."""
    return seconds(ns) if ns >= 1_000_000_000 else f"{ns / 1e6:.1f} ms"


def overrun(ns: int) -> str:
    """How late: in ms below a second (a time loss is often by less than 0.01 s)."""
    return seconds(ns) if ns >= 1_000_000_000 else f"{ns / 1e6:.3f} ms"


def name(p: int | None) -> str:
    return "—" if p is None else "AB"[p]


def seat_of(n: int, seat: int) -> int:
    if seat not in (0, 1) or isinstance(seat, bool):
        raise Mismatch(n, f"seat {seat!r} is not 0 or 1")
    return seat


@dataclass(frozen=True, slots=True)
class Reveal:
    """A round's reveal, collected before the fold (it comes at the round's end)."""

    line: int
    deal: Deal
    salt: str
    private: dict[int, list[PrivateItem]]
    requests: RequestDigest | None  # v2
    reply_forms: list[str | None] | None  # v2
    revealed: dict[str, Any] | None = None  # the deal as the line has it (canonical)

    def deal_dict(self) -> dict[str, Any]:
        """The deal as a JSON object: the revealed one, checked canonical."""
        return self.deal.to_dict() if self.revealed is None else self.revealed

    def item(self, seq: int, kind: str) -> PrivateItem | None:
        for i in self.private.get(seq, ()):
            if i.kind == kind:
                return i
        return None


class Recorder:
    """Where the fold's findings go: steps to show and verified stream entries."""

    def __init__(self, report: ReplayReport, *, steps: bool = True, expand: bool = False) -> None:
        self.report = report
        self.steps = steps  # False: verify only (no texts, no layout pictures)
        self.expand = expand  # keep what v2 derives, for expanded_lines()
        self.record = steps or expand  # keep the verified stream
        self.held: list[_Entry] = []  # derived events, until their reply line is recorded
        self.round = 0
        self.public_only = False  # a round never revealed: what is public is checked

    def step(
        self,
        line: int,
        kind: str,
        text: str,
        player: int | None = None,
        layout: Layout | None = None,
        last: Tile | None = None,
    ) -> None:
        if self.steps:
            self.report.steps.append(Step(line, self.round, kind, text, player, layout, last))

    def emit(self, ln: Line, **extra: Any) -> None:
        self.report.verified_lines += 1
        if not self.record:
            return
        verified: bool | str = "public" if self.public_only else True
        self.report.entries.append(_Entry(ln.number, ln.item, extra or None, verified))
        if self.held:  # the events the line caused come after it
            self.report.entries.extend(self.held)
            self.held = []

    def derived(self, line: int, seq: int, t_ns: int, event: Event) -> None:
        """An event a v2 file leaves out (made a JSON object only when asked for)."""
        if self.record:
            self.held.append(_Entry(line, event, {"seq": seq, "t_ns": t_ns}, True))
