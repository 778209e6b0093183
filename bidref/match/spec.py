"""What defines a match (:class:`MatchSpec`), the illegal-action policies (outside
the rules), and the snapshot live displays get (:class:`LiveState`).

Re-exported by :mod:`bidref.match.referee`, where the match is played.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ..engines import EngineSpec
from ..engines.framing import MAX_LINE
from ..outcome import MatchOutcome
from ..rules import MILLISECOND, SECOND, Deal, IllegalActionError, NotationError, TimeControl
from .session import DEFAULT_TOLERANCE_NS

# -- the illegal-action policy (outside the rules) ------------------------------------------


class IllegalPolicy(Protocol):
    """Decides what an illegal (or unreadable) action costs the player who sent it."""

    @property
    def name(self) -> str: ...

    def forfeits(self, seat: int, error: IllegalActionError | NotationError) -> bool:
        """True: the player loses the match; False: an error reply, the decision stays."""
        ...


@dataclass(frozen=True)
class RejectIllegal:
    """RULES.md §8: the game does not change, the same decision stays pending."""

    name: str = "reject"

    def forfeits(self, seat: int, error: IllegalActionError | NotationError) -> bool:
        return False


@dataclass(frozen=True)
class ForfeitIllegal:
    """Strict testing: the first illegal action loses the match."""

    name: str = "forfeit"

    def forfeits(self, seat: int, error: IllegalActionError | NotationError) -> bool:
        return True


def illegal_policy(name: str) -> IllegalPolicy:
    if name == "reject":
        return RejectIllegal()
    if name == "forfeit":
        return ForfeitIllegal()
    raise ValueError(f"unknown illegal-action policy {name!r}: use reject or forfeit")


# -- the public API ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchSpec:
    """Everything that defines a match. Picklable (tournament workers get one each).

    Flat on purpose (16 fields, one above the size rule's ~15): each is one
    independent setting; why it is not split is in tests/test_architecture.py."""

    engines: tuple[EngineSpec, EngineSpec]
    seed: int | None = None  # None: a random seed (recorded, revealed at the end)
    time_control: TimeControl = field(default_factory=TimeControl)
    max_rounds: int | None = None
    illegal: Literal["reject", "forfeit"] = "reject"
    transport: Literal["pipe", "pty"] = "pipe"
    deals: tuple[Deal, ...] = ()  # explicit first deals (then the seed's)
    startup_timeout_ns: int = 10 * SECOND
    grace_ns: int = 500 * MILLISECOND
    timing_tolerance_ns: int = DEFAULT_TOLERANCE_NS  # see docs/match.md, "Clock promises"
    stderr_dir: str | None = None  # per-engine stderr logs go here (None: memory tail only)
    max_line: int = MAX_LINE
    eager_events: bool = False  # write events to both seats at once, not with the next request
    # per seat (a handicap match); None: both seats play ``time_control``
    time_controls: tuple[TimeControl, TimeControl] | None = None
    # Keep every raw line sent and received in the transcript (bidref match --raw-lines).
    raw_lines: bool = False
    # Stop the engine that is not on move (SIGSTOP to its process group, or its
    # jail's freezer) and resume it with its next request (--freeze-idle).
    freeze_idle: bool = False

    def __post_init__(self) -> None:
        if len(self.engines) != 2:
            raise ValueError(f"a match needs 2 engines, got {len(self.engines)}")
        if self.max_rounds is not None and self.max_rounds < 1:
            raise ValueError(f"max_rounds={self.max_rounds}: give at least 1, or None")
        if self.illegal not in ("reject", "forfeit"):
            raise ValueError(f"illegal={self.illegal!r}: use 'reject' or 'forfeit'")
        if self.transport not in ("pipe", "pty"):
            raise ValueError(f"transport={self.transport!r}: use 'pipe' or 'pty'")
        if (
            self.deals
            and self.seed is None
            and (self.max_rounds is None or self.max_rounds > len(self.deals))
        ):
            raise ValueError(
                f"{len(self.deals)} explicit deal(s) and no seed: give a seed "
                "for the rounds after them, or max_rounds <= "
                f"{len(self.deals)}"
            )
        if self.time_controls is not None and len(self.time_controls) != 2:
            raise ValueError(
                f"time_controls needs one time control per seat, got {len(self.time_controls)}"
            )
        if self.startup_timeout_ns <= 0 or self.grace_ns < 0 or self.timing_tolerance_ns < 0:
            raise ValueError(
                "startup_timeout_ns must be positive; grace_ns and "
                "timing_tolerance_ns must not be negative"
            )


@dataclass(frozen=True)
class LiveState:
    """A snapshot for live displays (``observer`` of :func:`run_match`)."""

    engines: tuple[str, str]
    round: int
    turn: int
    balances: tuple[int, int]
    banks_ns: tuple[int, int]
    delay_ns: int
    to_act: int | None
    last: str | None  # the last accepted action, e.g. "A: play 1-3 1-1:line_a"
    decisions: int
    outcome: MatchOutcome | None = None


Observer = Callable[[LiveState], None]
