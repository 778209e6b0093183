"""Engine accounting: the lines of each seat that are not decisions — hellos, log
lines, rules questions, stale replies, a resignation — within the referee's caps,
and the counts each ``engine_exit`` line gives for them.

Log lines come with their messages (revealed with the round) as ``log`` steps, so
``bidref replay --logs`` shows them in place with their times.
"""

from __future__ import annotations

from ..lines import LINES_CAP, EngineExit, LogLine, Resign, RulesAsked, Stale
from ..reader import Line
from .clock import Pending
from .report import Mismatch, Recorder, Reveal, Step, seat_of


class Accounting:
    def __init__(self, out: Recorder) -> None:
        self.out = out
        self.hellos: set[int] = set()
        self.lines = {"log": [0, 0], "stale": [0, 0], "rules": [0, 0]}
        self.resigned: int | None = None
        self.exits: set[int] = set()

    def hello(self, n: int, seat: int) -> None:
        seat_of(n, seat)
        if seat in self.hellos:
            raise Mismatch(n, f"a second hello of seat {seat}")
        self.hellos.add(seat)

    def _count(self, n: int, kind: str, seat: int) -> None:
        seat_of(n, seat)
        counts = self.lines[kind]
        counts[seat] += 1
        if counts[seat] > LINES_CAP:
            raise Mismatch(
                n,
                f"{kind} line {counts[seat]} of seat {seat}: the referee records at most "
                f"{LINES_CAP} per seat and match",
            )

    def log(self, ln: Line, item: LogLine, rev: Reveal | None) -> None:
        self._count(ln.number, "log", item.seat)
        found = rev.item(item.seq, "log") if rev else None
        message = found.message if found is not None and found.message is not None else None
        text = message if message is not None else f"({item.chars} characters, not revealed)"
        self.out.report.logs.append(
            Step(ln.number, self.out.round, "log", text, item.seat, t_ns=item.t_ns)
        )

    def rules(self, n: int, item: RulesAsked) -> None:
        self._count(n, "rules", item.seat)

    def stale(self, n: int, item: Stale, p: Pending | None) -> None:
        self._count(n, "stale", item.seat)
        if p is not None and item.seat == p.seat and (item.id == p.id or item.pending != p.id):
            raise Mismatch(
                n,
                f"a stale reply id {item.id!r} (pending {item.pending!r}), but the pending "
                f"request is id {p.id}",
            )

    def resign(self, n: int, item: Resign) -> None:
        # A player may resign at any time: the referee records it when it learns of it,
        # usually while waiting for that player, but also when a seat refuses what it
        # is sent (e.g. a person at a pause).
        if item.seat not in (0, 1):
            raise Mismatch(n, f"a resignation of seat {item.seat!r}, which is not 0 or 1")
        if self.resigned is not None:
            raise Mismatch(n, f"a second resignation (seat {self.resigned} resigned already)")
        self.resigned = item.seat

    def engine_exit(self, n: int, e: EngineExit, rejected: list[int]) -> None:
        """One per seat; its counts are of everything the engine sent, so never fewer
        than the lines recorded."""
        seat = seat_of(n, e.seat)
        if seat in self.exits:
            raise Mismatch(n, f"a second engine_exit line of seat {seat}")
        self.exits.add(seat)
        for field, kind in (
            ("log_lines", "log"),
            ("stale_lines", "stale"),
            ("rules_requests", "rules"),
        ):
            said = getattr(e, field)
            if said is not None and said < self.lines[kind][seat]:
                raise Mismatch(
                    n,
                    f"{field} {said}, but {self.lines[kind][seat]} {kind} line(s) of seat "
                    f"{seat} are recorded",
                )
        if e.rejected is not None and e.rejected < rejected[seat]:
            raise Mismatch(
                n,
                f"rejected {e.rejected}, but {rejected[seat]} rejected replies of seat {seat} "
                "are recorded",
            )
