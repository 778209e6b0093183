"""What the replay page shows: a match as steps, one per transcript line, with the
state after it (:class:`Step`), and the match's facts (:class:`Timeline`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...rules import Layout, Tile
from .text import seconds


@dataclass(frozen=True)
class Cost:
    """What one decision cost its player (from a ``reply`` line)."""

    elapsed_ns: int
    delay_used_ns: int
    bank_used_ns: int
    line: int
    cpu_ns: int | None = None  # the engine's CPU time, where the transcript has it
    wait_ns: int | None = None  # ... and its tasks' run-queue wait (waiting for a CPU)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "elapsed": self.elapsed_ns,
            "delay": self.delay_used_ns,
            "bank": self.bank_used_ns,
            "line": self.line,
        }
        if self.cpu_ns is not None:
            out["cpu"] = self.cpu_ns
        if self.wait_ns is not None:
            out["wait"] = self.wait_ns
        return out


@dataclass
class Clock:
    """A seat's clock as the transcript last stated it (the builder keeps it current; a
    step holds a copy)."""

    bank_ns: int
    delay_left_ns: int | None = None  # while this seat has a decision pending
    deadline_ns: int | None = None
    last: Cost | None = None
    timed_out: bool = False

    def copy(self) -> Clock:
        return Clock(self.bank_ns, self.delay_left_ns, self.deadline_ns, self.last, self.timed_out)

    def to_dict(self) -> dict[str, object]:
        return {
            "bank": self.bank_ns,
            "delay_left": self.delay_left_ns,
            "deadline": self.deadline_ns,
            "last": None if self.last is None else self.last.to_dict(),
            "timed_out": self.timed_out,
        }


@dataclass(frozen=True)
class Table:
    """The round on the table after a line: what is placed, held and left."""

    round: int
    phase: str
    layout: int  # index into Timeline.layouts
    last_tile: Tile | None
    hands: tuple[list[Tile] | None, list[Tile] | None]
    hand_sizes: tuple[int, int]
    boneyard: int | None
    drawn: tuple[int, Tile | None] | None = None  # who drew, and what (None: not revealed)


NO_TABLE = Table(0, "—", 0, None, (None, None), (0, 0), None)
"""Before the first round (``layout``: the empty one, index 0)."""


@dataclass(frozen=True)
class Bidding:
    """The round's auction so far."""

    moves: list[tuple[int, str]]  # (seat, action), in order
    jockey: int | None
    bid: int | None
    bidder: int | None
    payment: str | None  # what the auction's winner paid, in words


NO_BIDDING = Bidding([], None, None, None, None)


@dataclass(frozen=True)
class Turn:
    """Both clocks, and the decision pending or just settled."""

    clocks: tuple[Clock, Clock]
    to_act: int | None
    legal: list[str] | None  # the legal actions of the pending decision, once revealed
    cost: Cost | None  # the decision this line settled


@dataclass
class Step:
    """What the page shows after one transcript line."""

    line: int  # 1-based line number in the file
    type: str  # the line's type; for events, the event's kind
    text: str
    t_ns: int
    seat: int | None  # whose line it is, if anyone's
    table: Table
    bidding: Bidding
    turn: Turn
    balances: tuple[int, int]
    log: str | None  # the engine's log message at this line, once revealed
    note: str | None  # a disagreement with the rules, or other caveat
    end: dict[str, Any] | None  # the result, once the match has one

    def to_dict(self) -> dict[str, object]:
        """The step in the page's JSON (its keys are what ``replay.js`` reads)."""
        t, b, turn = self.table, self.bidding, self.turn
        return {
            "line": self.line,
            "type": self.type,
            "text": self.text,
            "t": self.t_ns,
            "round": t.round,
            "phase": t.phase,
            "layout": t.layout,
            "last": None if t.last_tile is None else str(t.last_tile),
            "hands": [None if h is None else [str(x) for x in h] for h in t.hands],
            "hand_sizes": list(t.hand_sizes),
            "boneyard": t.boneyard,
            "drawn": None
            if t.drawn is None
            else [t.drawn[0], None if t.drawn[1] is None else str(t.drawn[1])],
            "auction": [list(a) for a in b.moves],
            "jockey": b.jockey,
            "bid": b.bid,
            "bidder": b.bidder,
            "payment": b.payment,
            "balances": list(self.balances),
            "clocks": [c.to_dict() for c in turn.clocks],
            "to_act": turn.to_act,
            "legal": turn.legal,
            "seat": self.seat,
            "cost": None if turn.cost is None else turn.cost.to_dict(),
            "log": self.log,
            "note": self.note,
            "end": self.end,
        }


@dataclass
class Timeline:
    """Every step of a match, the distinct layouts they show, and the match's facts."""

    names: tuple[str, str]
    engines: tuple[dict[str, Any], dict[str, Any]]
    bank_ns: int
    delay_ns: int
    max_rounds: int | None
    # Each seat's (bank, delay) when the match gave them different ones (a handicap).
    controls: tuple[tuple[int, int], tuple[int, int]] | None = None
    steps: list[Step] = field(default_factory=list)
    layouts: list[tuple[Layout, Tile | None]] = field(default_factory=list)
    rounds: dict[int, int] = field(default_factory=dict)  # round -> index of its first step
    reveals: dict[int, int] = field(default_factory=dict)  # round -> index of its reveal step
    result: dict[str, Any] | None = None
    problem: str | None = None  # the file could not be read to its end

    def seat_controls(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """Each seat's (bank, delay) in ns."""
        if self.controls is not None:
            return self.controls
        return (self.bank_ns, self.delay_ns), (self.bank_ns, self.delay_ns)

    def clock_text(self) -> str:
        """The time control as a line says it: one for both, or each seat's."""
        (b0, d0), (b1, d1) = self.seat_controls()
        if (b0, d0) == (b1, d1):
            return f"bank {seconds(b0)}, delay {seconds(d0)}"
        return (
            f"A bank {seconds(b0)}, delay {seconds(d0)}; B bank {seconds(b1)}, delay {seconds(d1)}"
        )

    def balance_series(self) -> list[tuple[int, int]]:
        """(step index, balance of A) at the start and at every change."""
        out: list[tuple[int, int]] = []
        for i, s in enumerate(self.steps):
            if not out or out[-1][1] != s.balances[0]:
                out.append((i, s.balances[0]))
        return out
