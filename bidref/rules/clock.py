"""Clock arithmetic of RULES.md §7, as pure values. No real time is read here.

Times are integer nanoseconds of one monotonic clock, so the arithmetic is
exact. Each player has a bank for the whole match; every genuine new decision
turn or opening turn starts with a fresh delay, which is used up before the
bank runs. Draws inside one turn do not restart the delay: the referee keeps
charging the same turn. The deadline is absolute, and a reply that arrives at
the deadline is too late.

>>> c = MatchClock.start(TimeControl.of_seconds(bank=120, delay=10)).begin(0, turn=1)
>>> c, ch = c.charge(8 * SECOND)       # 8 s costs nothing
>>> c.banks[0] == 120 * SECOND, ch.bank_used
(True, 0)
>>> c = c.begin(0, turn=2)
>>> c, ch = c.charge(13 * SECOND)      # 13 s costs 3 s
>>> ch.bank_used == 3 * SECOND
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, NamedTuple

SECOND: Final = 1_000_000_000
MILLISECOND: Final = 1_000_000


def seconds(x: float) -> int:
    """Seconds (possibly fractional) as integer nanoseconds."""
    return round(x * SECOND)


@dataclass(frozen=True, slots=True)
class TimeControl:
    bank: int = 120 * SECOND
    delay: int = 10 * SECOND

    def __post_init__(self) -> None:
        if self.bank < 0 or self.delay < 0:
            raise ValueError(f"a time control needs bank >= 0 and delay >= 0, got {self}")

    @classmethod
    def of_seconds(cls, bank: float, delay: float) -> TimeControl:
        return cls(seconds(bank), seconds(delay))

    def describe(self) -> str:
        return f"{self.bank / SECOND:g} s bank + {self.delay / SECOND:g} s delay per turn"


class Charge(NamedTuple):
    """What one stretch of thinking cost."""

    player: int
    elapsed: int
    delay_used: int
    bank_used: int
    timed_out: bool
    overrun: int  # how far past the deadline the reply came (0 if in time)


class MatchClock(NamedTuple):
    """Both players' clocks: banks, and the turn the clock is running for.

    An immutable value (a named tuple, because the referee builds one per
    decision and frozen dataclasses cost three times as much to build).
    """

    control: TimeControl
    banks: tuple[int, int]
    player: int | None = None  # whose turn the clock is running for
    turn: int | None = None
    delay_left: int = 0
    controls: tuple[TimeControl, TimeControl] | None = None  # per player; None: both ``control``

    @classmethod
    def start(
        cls, control: TimeControl, controls: tuple[TimeControl, TimeControl] | None = None
    ) -> MatchClock:
        """Both banks full. ``controls`` gives each player its own time control
        (a handicap match); without it both play ``control``."""
        if controls is None or controls[0] == controls[1] == control:
            return cls(control, (control.bank, control.bank))
        return cls(control, (controls[0].bank, controls[1].bank), controls=controls)

    def control_of(self, player: int) -> TimeControl:
        return self.control if self.controls is None else self.controls[player]

    def begin(self, player: int, turn: int) -> MatchClock:
        """The clock for ``player``'s decision in ``turn``.

        A turn id the clock has not seen starts a fresh delay; the same turn
        (a decision after a draw, or a retry after an illegal request) keeps
        what is left of its delay.
        """
        if player == self.player and turn == self.turn:
            return self
        delay = (self.control if self.controls is None else self.controls[player]).delay
        return MatchClock(self.control, self.banks, player, turn, delay, self.controls)

    def available(self) -> int:
        """How long the player to move may still think in this turn."""
        assert self.player is not None, "begin() a turn first"
        return self.delay_left + self.banks[self.player]

    def deadline(self, started_at: int) -> int:
        """The absolute time at which the player's time is out."""
        return started_at + self.available()

    def spend(self, elapsed: int) -> MatchClock:
        """The clock after the player to move has thought for ``elapsed``: the
        delay is used first, then the bank (neither below 0)."""
        p = self.player
        assert p is not None, "begin() a turn first"
        if elapsed < 0:
            raise ValueError(f"elapsed time {elapsed} ns is negative")
        delay_left = self.delay_left
        if elapsed < delay_left:
            return MatchClock(
                self.control, self.banks, p, self.turn, delay_left - elapsed, self.controls
            )
        bank = max(self.banks[p] - (elapsed - delay_left), 0)
        banks = (bank, self.banks[1]) if p == 0 else (self.banks[0], bank)
        return MatchClock(self.control, banks, p, self.turn, 0, self.controls)

    def charge(self, elapsed: int) -> tuple[MatchClock, Charge]:
        """:meth:`spend`, with a record of what it cost."""
        after = self.spend(elapsed)
        p = self.player
        assert p is not None
        available = self.delay_left + self.banks[p]
        # Exactly at the deadline is already too late (§7).
        timed_out = elapsed >= available
        charge = Charge(
            p,
            elapsed,
            self.delay_left - after.delay_left,
            self.banks[p] - after.banks[p],
            timed_out,
            elapsed - available if timed_out else 0,
        )
        return after, charge

    def to_dict(self) -> dict[str, object]:
        return {
            "banks_ms": [b // MILLISECOND for b in self.banks],
            "delay_ms": self.control.delay // MILLISECOND,
            **(
                {"delays_ms": [c.delay // MILLISECOND for c in self.controls]}
                if self.controls
                else {}
            ),
            "running_for": self.player,
            "turn": self.turn,
            "delay_left_ms": self.delay_left // MILLISECOND,
        }
