"""Validate a move file: play it through the rules core and give a verdict.

:func:`validate_text` never raises on any input: malformed input, an illegal
action or a disagreement between the file and the game all come back as a
:class:`Verdict` with a :class:`Problem` that names the line (and column for
malformed input). The CLI turns a verdict into text or JSON and an exit code.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Literal

from ..rules import (
    TILES,
    Deal,
    DealError,
    Draw,
    Drew,
    Event,
    IllegalActionError,
    Layout,
    Match,
    MatchConfig,
    MatchEnded,
    Passed,
    Placed,
    RoundEnded,
    RoundStarted,
    RulesError,
    Tile,
    listed_deals,
)
from .parse import DealSpec, Entry, MoveFile, MoveFileError, parse_move_file

log = logging.getLogger(__name__)

ProblemKind = Literal["malformed", "illegal", "mismatch"]


@dataclass(frozen=True, slots=True)
class Problem:
    """What stopped validation. ``malformed``: exit 2; ``illegal``/``mismatch``: exit 1."""

    kind: ProblemKind
    line: int
    col: int | None
    message: str
    action: str | None = None
    rule: str | None = None
    where: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "line": self.line,
            "col": self.col,
            "message": self.message,
            "action": self.action,
            "rule": self.rule,
            "where": self.where,
        }

    def format(self, filename: str) -> str:
        """``FILE:LINE: illegal: …`` or ``FILE:LINE:COL: …`` for malformed input."""
        if self.kind == "malformed":
            return f"{filename}:{self.line}:{self.col or 1}: {self.message}"
        return f"{filename}:{self.line}: {self.kind}: {self.message}"


@dataclass(frozen=True, slots=True)
class RoundResult:
    round: int
    opening: str
    jockey: int | None
    reason: str
    winner: int | None
    pips: tuple[int, int]
    payout: int
    balances: tuple[int, int]  # after the round's settlement

    def to_dict(self) -> dict[str, object]:
        return {
            "round": self.round,
            "opening": self.opening,
            "jockey": self.jockey,
            "reason": self.reason,
            "winner": self.winner,
            "pips": list(self.pips),
            "payout": self.payout,
            "balances": list(self.balances),
        }


@dataclass
class Verdict:
    ok: bool
    problem: Problem | None = None
    actions: int = 0  # actions applied
    rounds: list[RoundResult] = field(default_factory=list)
    balances: tuple[int, int] | None = None
    round: int | None = None
    phase: str | None = None
    to_act: int | None = None
    result: MatchEnded | None = None
    layout: Layout | None = None  # the last layout with tiles on it
    events: list[Event] = field(default_factory=list)
    # After every placement: (line, round, action text, layout snapshot, tile placed).
    pictures: list[tuple[int, int, str, Layout, Tile]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if self.problem is None:
            return 0
        return 2 if self.problem.kind == "malformed" else 1

    def to_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "problem": None if self.problem is None else self.problem.to_dict(),
            "actions": self.actions,
            "rounds": [r.to_dict() for r in self.rounds],
            "balances": None if self.balances is None else list(self.balances),
            "round": self.round,
            "phase": self.phase,
            "to_act": self.to_act,
            "result": None if self.result is None else self.result.to_dict(),
        }


def validate_bytes(data: bytes) -> Verdict:
    """Validate raw file contents (UTF-8); bad encoding is malformed input."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        return Verdict(
            False, Problem("malformed", line, col, f"not UTF-8 text (byte 0x{data[e.start]:02x})")
        )
    return validate_text(text)


def validate_text(text: str) -> Verdict:
    """Validate a move file's text. Never raises on input problems."""
    try:
        mf = parse_move_file(text)
    except MoveFileError as e:
        return Verdict(False, Problem("malformed", e.line, e.col, e.message))
    return validate_move_file(mf)


def _deal_of(spec: DealSpec) -> Deal:
    if spec.boneyard is not None:
        return Deal(spec.hands, spec.boneyard)
    used = set(spec.hands[0]) | set(spec.hands[1])
    return Deal(spec.hands, tuple(t for t in TILES if t not in used))


class _Run:
    """The state of one validation: the match, and what the verdict will say."""

    def __init__(self, mf: MoveFile, match: Match, undealt: set[int]) -> None:
        self.mf = mf
        self.m = match
        self.undealt = undealt  # rounds the file gives no deal for (a stand-in is dealt)
        self.verdict = Verdict(True)
        self.pending_passes: list[int] = []
        self.opening: dict[int, tuple[str, int | None]] = {}
        self.last_layout: Layout | None = None
        self.take(match.start_events)

    def take(self, events: list[Event]) -> None:
        v = self.verdict
        v.events.extend(events)
        for ev in events:
            if isinstance(ev, RoundStarted):
                if ev.round in self.undealt:
                    v.events.pop(v.events.index(ev))  # the stand-in deal is no fact
                    continue
                self.opening[ev.round] = (ev.opening, ev.jockey)
            elif isinstance(ev, Passed):
                self.pending_passes.append(ev.player)
            elif isinstance(ev, RoundEnded):
                opening, jockey = self.opening.get(ev.round, ("forced", None))
                bal = (self.m.balances[0], self.m.balances[1])  # after settlement
                v.rounds.append(
                    RoundResult(
                        ev.round, opening, jockey, ev.reason, ev.winner, ev.pips, ev.payout, bal
                    )
                )
            elif isinstance(ev, MatchEnded):
                v.result = ev

    def fail(
        self,
        kind: ProblemKind,
        e: Entry,
        message: str,
        *,
        col: int | None = None,
        rule: str | None = None,
        where: str | None = None,
    ) -> Verdict:
        self.verdict.ok = False
        self.verdict.problem = Problem(
            kind, e.line, col if col is not None else e.col, message, e.text or None, rule, where
        )
        return self.finish()

    def finish(self) -> Verdict:
        v, m = self.verdict, self.m
        v.balances = (m.balances[0], m.balances[1])
        v.round = m.round_number
        v.phase = m.phase.value
        v.to_act = None if m.over else m.to_act
        if not m.over and m.round_number in self.undealt:
            v.phase, v.to_act = "not dealt", None
        v.layout = m.layout if m.layout.placed else self.last_layout
        return v

    def inferred(self) -> bool:
        n = self.m.round_number
        return n <= len(self.mf.deals) and self.mf.deals[n - 1].boneyard is None

    def step(self, e: Entry) -> Verdict | None:
        m = self.m
        if e.kind == "deal":
            if m.over:
                return self.fail(
                    "malformed", e, f"a deal for round {e.number}, but the match is over: remove it"
                )
            if m.round_number != e.number or m.round_actions:
                return self.fail(
                    "malformed",
                    e,
                    f"the deal for round {e.number} is given here, "
                    f"but round {m.round_number} is in play: put each deal just "
                    "before its round's first action",
                )
            return None
        if e.kind == "round":
            if m.round_number != e.number:
                return self.fail(
                    "mismatch",
                    e,
                    f"the file says round {e.number}, but the game "
                    f"is in round {m.round_number} ({m.where()})",
                )
            return None
        undealt = not m.over and m.round_number in self.undealt
        if undealt and (e.kind != "pass" or not self.pending_passes):
            return self.fail(
                "malformed",
                e,
                f"no deal given for round {m.round_number}: "
                "give its deal ('hand A:', 'hand B:') just before this line, "
                "or a 'seed:' at the top",
            )
        if e.kind == "pass":
            if not self.pending_passes:
                return self.fail(
                    "illegal",
                    e,
                    f"'pass' {m.where()}: a pass is forced and "
                    "happens only when a player can neither play nor draw; "
                    "there is no pass here",
                    rule="§5",
                    where=m.where(),
                )
            who = self.pending_passes.pop(0)
            if e.player is not None and e.player != who:
                return self.fail(
                    "mismatch",
                    e,
                    f"the forced pass here is player {'AB'[who]}'s, not {'AB'[e.player]}'s",
                )
            return None
        assert e.action is not None
        self.pending_passes = []
        if isinstance(e.action, Draw) and self.inferred():
            if e.drawn is None:
                return self.fail(
                    "malformed",
                    e,
                    "this round's deal has no 'boneyard:' line, "
                    "so every draw must name its tile, e.g. 'draw 3-6'",
                )
            if e.drawn not in m.boneyard and m.legal_actions() and Draw() in m.legal_actions():
                holder = (
                    "in hand A"
                    if e.drawn in m.hands[0]
                    else "in hand B"
                    if e.drawn in m.hands[1]
                    else "on the table"
                )
                return self.fail(
                    "illegal",
                    e,
                    f"'{e.text}' {m.where()}: {e.drawn} is not in the boneyard, it is {holder}",
                    rule="§2",
                    where=m.where(),
                )
            if e.drawn in m.boneyard:
                # The order of an unknown boneyard is the order of the draws.
                m.arrange_next_draw(e.drawn)
        layout_before = m.layout
        round_before = m.round_number
        try:
            events = m.apply(e.action, e.player)
        except IllegalActionError as err:
            return self.fail(
                "illegal",
                e,
                f"{err.action!r} {err.where}: {err.reason} (RULES.md {err.rule})",
                rule=err.rule,
                where=err.where,
            )
        except RulesError as err:  # e.g. no deal for the next round
            return self.fail("malformed", e, f"after '{e.text}': {err}")
        self.verdict.actions += 1
        if m.layout is not layout_before and layout_before.placed:
            self.last_layout = layout_before
        placed = next((ev for ev in events if isinstance(ev, Placed)), None)
        if placed is not None:
            text = f"{'AB'[placed.player]}: {placed.action_text()} (count {placed.count})"
            self.verdict.pictures.append(
                (e.line, round_before, text, layout_before.copy(), placed.tile)
            )
        self.take(events)
        if e.drawn is not None:
            drew = next((ev for ev in events if isinstance(ev, Drew)), None)
            if drew is not None and drew.tile is not e.drawn:
                return self.fail(
                    "mismatch",
                    e,
                    f"the file says {e.drawn} was drawn, but the "
                    f"deal's boneyard gives {drew.tile} here",
                )
        return None


def validate_move_file(mf: MoveFile) -> Verdict:
    """Play a parsed move file through the rules core."""
    if not mf.deals and mf.seed is None:
        return Verdict(
            False,
            Problem(
                "malformed",
                1,
                1,
                "the file gives no deal: write "
                "'seed: N', or the hands ('hand A:', 'hand B:') and "
                "optionally the 'boneyard:' at the top",
            ),
        )
    try:
        config = MatchConfig(mf.balances or (150, 150), mf.max_rounds)
        given = listed_deals([_deal_of(s) for s in mf.deals], then_seed=mf.seed)
        undealt: set[int] = set()

        def deal(round_number: int) -> Deal:
            # A file may stop at a round's end without the next round's deal: the game
            # stands there. A stand-in deal lets the rules start the round; any line that
            # plays it is refused (see _Run.step).
            try:
                return given(round_number)
            except DealError:
                undealt.add(round_number)
                return Deal.from_seed(0, round_number)

        match = Match(deal, config)
    except RulesError as e:
        return Verdict(False, Problem("malformed", 1, 1, str(e)))
    run = _Run(mf, match, undealt)
    for entry in mf.entries:
        stop = run.step(entry)
        if stop is not None:
            log.debug("validation stopped at line %d", entry.line)
            return stop
    return run.finish()
