"""How a match ends: the end reasons (what each means, whether it is rated, who
loses) and the :class:`MatchOutcome` the referee returns.

Adding an end reason touches this module (and its tests) only: the referee
raises it, the CLI and the tournament read ``rated`` and the loser from here.

>>> EndReason.TIME.rated, EndReason.ABORTED.rated
(True, False)
>>> EndReason("crash").loser({"seat": 0})
0
>>> EndReason.BALANCE.loser({}) is None
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, Literal

EndReasonName = Literal[
    "balance",
    "round_limit",
    "resign",
    "time",
    "illegal",
    "crash",
    "protocol",
    "resources",
    "startup",
    "aborted",
]


class EndReason(StrEnum):
    """Why a match ended. The value is the transcript's and the CLI's word for it."""

    BALANCE = "balance"
    ROUND_LIMIT = "round_limit"
    RESIGN = "resign"
    TIME = "time"
    ILLEGAL = "illegal"
    CRASH = "crash"
    PROTOCOL = "protocol"
    RESOURCES = "resources"
    STARTUP = "startup"
    ABORTED = "aborted"

    @property
    def text(self) -> str:
        """What it means, for people."""
        return _TEXT[self]

    @property
    def rated(self) -> bool:
        """Whether the result counts: no game was played (startup), or no result
        could be proven (aborted: an interrupt, a referee timing fault)."""
        return self not in (EndReason.STARTUP, EndReason.ABORTED)

    @property
    def by_seat(self) -> bool:
        """Whether one seat's doing ended it (that seat, ``detail["seat"]``, loses;
        for ``aborted`` the seat named is the one being judged, and nobody loses)."""
        return self in _SEAT_REASONS

    @property
    def detailed(self) -> bool:
        """Whether a one-line summary shows the detail (exit code, problem, ...)."""
        return self in _SEAT_REASONS or self is EndReason.ABORTED

    def loser(self, detail: dict[str, Any]) -> int | None:
        """The seat that lost, from the outcome's ``detail`` (None: the rules decided,
        or nobody lost)."""
        seat = detail.get("seat")
        return seat if self.by_seat and seat in (0, 1) else None


_SEAT_REASONS: Final = frozenset(
    {
        EndReason.RESIGN,
        EndReason.TIME,
        EndReason.ILLEGAL,
        EndReason.CRASH,
        EndReason.PROTOCOL,
        EndReason.RESOURCES,
        EndReason.STARTUP,
    }
)
_TEXT: Final = {
    EndReason.BALANCE: "a player's balance ran out (RULES.md §6)",
    EndReason.ROUND_LIMIT: "the round limit was reached; the higher balance wins",
    EndReason.RESIGN: "a player resigned",
    EndReason.TIME: "a player's time ran out (RULES.md §7)",
    EndReason.ILLEGAL: "an illegal action, under the forfeit policy",
    EndReason.CRASH: "an engine exited or closed its stdout",
    EndReason.PROTOCOL: "an engine broke the protocol or one of its caps",
    EndReason.RESOURCES: "an engine ran into one of its jail's limits (memory, processes)",
    EndReason.STARTUP: "an engine did not start or sent no valid hello",
    EndReason.ABORTED: "no result can be proven (interrupted, or a referee timing fault)",
}
END_REASONS: Final[tuple[str, ...]] = tuple(r.value for r in EndReason)


@dataclass(frozen=True)
class MatchOutcome:
    """How a match ended. ``winner`` is a seat (0 = A, 1 = B) or None (draw/aborted)."""

    winner: int | None
    reason: EndReasonName
    detail: dict[str, Any]
    balances: tuple[int, int]
    rounds: int
    engines: tuple[str, str]
    transcript_path: Path | None
    rated: bool
    seed: int | None = None
    decisions: int = 0  # accepted actions
    decision_ns: int = 0  # referee clock from the first request to the last accepted action
    exits: tuple[dict[str, object], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["transcript_path"] = None if self.transcript_path is None else str(self.transcript_path)
        d["balances"] = list(self.balances)
        d["engines"] = list(self.engines)
        d["exits"] = list(self.exits)
        return d

    def summary(self) -> str:
        """One line, e.g. ``A (c_first) wins by balance 300-0 after 3 rounds``."""
        bal = f"{self.balances[0]}-{self.balances[1]}"
        if self.winner is None:
            what = "draw" if EndReason(self.reason).rated else "aborted"
            head = what if what == self.reason else f"{what} ({self.reason})"
        elif self.reason == "resign":
            w, lo = self.winner, 1 - self.winner
            head = f"{'AB'[lo]} ({self.engines[lo]}) resigned: {'AB'[w]} ({self.engines[w]}) wins"
        else:
            head = f"{'AB'[self.winner]} ({self.engines[self.winner]}) wins by {self.reason}"
        extra = ""
        if self.reason == "time":
            extra = f", {'AB'[self.detail['seat']]} overran by {self.detail['overrun_ms']} ms"
        elif EndReason(self.reason).detailed:
            bits = {
                k: v
                for k, v in self.detail.items()
                if k
                in ("seat", "limit", "exit_code", "signal", "problem", "rule", "action", "cause")
            }
            if "seat" in bits:
                bits["seat"] = "AB"[bits["seat"]]
            extra = ", " + ", ".join(f"{k}={v}" for k, v in bits.items() if v is not None)
        return f"{head}{extra}; balances {bal} after {self.rounds} rounds"
