"""The clock of a replay: time order, each decision's deadline and what it was charged.

A request starts the player's clock; a reply is charged from the request (or
from the last ``retry``) to its ``t_ns``, with :mod:`bidref.rules.clock`; a
``timeout`` must come after the deadline. ``bidref-transcript/1`` also states
the clock on each line (checked here); ``/2`` leaves it to this derivation.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...outcome.details import (
    EndDetail,
    MachineEvidence,
    MachineWaitDetail,
    TimeDetail,
    UnreadDetail,
)
from ...outcome.excuse import MachineWait
from ...rules import Charge, MatchClock, TimeControl
from ..lines import Reply, Request, Retry, Timeout
from .report import Mismatch, cpu_time, diff, seconds


@dataclass(slots=True)
class Pending:
    seat: int
    id: int
    start: int
    deadline: int
    line: int


class ClockCheck:
    def __init__(
        self, control: TimeControl, controls: tuple[TimeControl, TimeControl] | None = None
    ) -> None:
        self.clock = MatchClock.start(control, controls)
        self.pending: Pending | None = None
        self.last_t = 0
        self.floor = 0
        self.last_t_before_request = 0
        self.timed_out: tuple[int, int, int] | None = None  # seat, overrun, line

    def order(self, n: int, request: bool, t: int) -> None:
        """Time never goes back, except that an engine may answer before the referee
        has stamped its request line: the reply and the lines it causes may then carry
        an earlier time (with elapsed 0), but never one before the line preceding the
        request."""
        floor = self.last_t if request else self.floor
        if t < floor:
            raise Mismatch(n, f"t_ns {t} goes back in time (an earlier line has {floor})")
        if request:
            self.floor = self.last_t_before_request
        elif t > self.last_t_before_request:
            self.last_t_before_request = t
        if t > self.last_t:
            self.last_t = t

    def request(self, n: int, r: Request, seat: int, turn: int) -> MatchClock:
        """Start the decision; return the clock it starts with."""
        if self.pending is not None:
            p = self.pending
            raise Mismatch(
                n,
                f"a new request, but request id {p.id} of seat {p.seat} (line {p.line}) "
                "was never answered",
            )
        c = self.clock = self.clock.begin(seat, turn)
        if r.clock is not None:
            said = {
                "delay_left_ns": r.clock.delay_left_ns,
                "bank_ns": r.clock.bank_ns,
                "opponent_bank_ns": r.clock.opponent_bank_ns,
            }
            derived = {
                "delay_left_ns": c.delay_left,
                "bank_ns": c.banks[seat],
                "opponent_bank_ns": c.banks[1 - seat],
            }
            if said != derived:
                raise Mismatch(n, f"request clock disagrees: {diff(said, derived)}")
        deadline = c.deadline(r.t_ns)
        if r.deadline_ns is not None and r.deadline_ns != deadline:
            raise Mismatch(
                n,
                f"deadline_ns {r.deadline_ns} but t_ns {r.t_ns} + delay "
                f"{c.delay_left} + bank {c.banks[seat]} = {deadline}",
            )
        self.pending = Pending(seat, r.id, r.t_ns, deadline, n)
        return c

    def reply(self, n: int, r: Reply) -> tuple[Pending, Charge]:
        """Charge the pending decision; return it and the charge."""
        p = self.pending
        if p is None:
            raise Mismatch(n, "a reply, but no request is pending")
        if r.seat != p.seat or r.id != p.id:
            raise Mismatch(
                n,
                f"reply to seat {r.seat!r} id {r.id!r}, but the pending request is "
                f"seat {p.seat} id {p.id}",
            )
        elapsed = r.t_ns - p.start if r.t_ns > p.start else 0
        if r.wait_ns is not None and r.wait_ns < 0:
            raise Mismatch(n, f"wait_ns {r.wait_ns}: a run-queue wait is never negative")
        if r.elapsed_ns is not None and r.elapsed_ns != elapsed:
            raise Mismatch(
                n,
                f"elapsed_ns {r.elapsed_ns}, but the reply at t_ns {r.t_ns} answers a "
                f"decision that started at {p.start}: {elapsed}",
            )
        self.clock, charge = self.clock.charge(elapsed)
        if r.charge is not None:
            said = {
                "delay_used_ns": r.charge.delay_used_ns,
                "bank_used_ns": r.charge.bank_used_ns,
                "timed_out": r.charge.timed_out,
                "overrun_ns": r.charge.overrun_ns,
            }
            derived = {
                "delay_used_ns": charge.delay_used,
                "bank_used_ns": charge.bank_used,
                "timed_out": charge.timed_out,
                "overrun_ns": charge.overrun,
            }
            if said != derived:
                raise Mismatch(n, f"clock charge disagrees: {diff(said, derived)}")
        if r.banks_ns is not None and r.banks_ns != list(self.clock.banks):
            raise Mismatch(n, f"banks_ns {r.banks_ns!r}, replay {list(self.clock.banks)}")
        if charge.timed_out:
            self.timed_out = (p.seat, charge.overrun, n)
            self.pending = None
        return p, charge

    def note(
        self, charge: Charge, seat: int, cpu_ns: int | None = None, wait_ns: int | None = None
    ) -> str:
        """The time a reply took (and its CPU time and run-queue wait, where
        recorded) and the bank left."""
        extra = [] if cpu_ns is None else [f"CPU {cpu_time(cpu_ns)}"]
        if wait_ns is not None:
            extra.append(f"waited for a CPU {cpu_time(wait_ns)}")
        said = f" ({', '.join(extra)})" if extra else ""
        return f"{seconds(charge.elapsed)}{said}, bank {seconds(self.clock.banks[seat])}"

    def retry(self, n: int, r: Retry, rejected_at: int) -> None:
        """After a rejected reply the referee sends an error; the decision goes on from
        the time the error was written, with what is left of the delay and the bank."""
        p = self.pending
        assert p is not None
        if r.seat != p.seat or r.id != p.id:
            raise Mismatch(
                n,
                f"retry for seat {r.seat!r} id {r.id!r}, but the pending request is "
                f"seat {p.seat} id {p.id}",
            )
        if r.t_ns < rejected_at:
            raise Mismatch(
                n,
                f"the error was written at {r.t_ns}, before the rejected reply was "
                f"read at {rejected_at}",
            )
        c = self.clock
        deadline = c.deadline(r.t_ns)
        said = {
            "delay_left_ns": r.delay_left_ns,
            "bank_ns": r.bank_ns,
            "deadline_ns": r.deadline_ns,
        }
        derived = {
            "delay_left_ns": c.delay_left,
            "bank_ns": c.banks[p.seat],
            "deadline_ns": deadline,
        }
        given = {k: v for k, v in said.items() if v is not None}
        if given != {k: derived[k] for k in given}:
            raise Mismatch(n, f"retry clock disagrees: {diff(said, derived)}")
        p.start, p.deadline, p.line = r.t_ns, deadline, n

    def timeout(self, n: int, r: Timeout) -> Pending:
        p = self.pending
        if p is None or p.seat != r.seat:
            raise Mismatch(
                n, f"a timeout of seat {r.seat!r}, but no decision of that seat is pending"
            )
        if r.overrun_ns < 0 or p.deadline + r.overrun_ns > r.t_ns:
            raise Mismatch(
                n,
                f"overrun_ns {r.overrun_ns}: seat {r.seat}'s deadline was {p.deadline} "
                f"(line {p.line}), and this line is at {r.t_ns}",
            )
        self.timed_out = (p.seat, r.overrun_ns, n)
        self.pending = None
        return p

    def check_time_loss(self, n: int, seat: int, detail: EndDetail) -> None:
        """A time loss needs the line that shows the deadline passing: a ``timeout`` line
        (checked against the deadline there) or a reply read after the deadline."""
        if not isinstance(detail, TimeDetail):
            why = f": {detail.why}" if isinstance(detail, UnreadDetail) else ""
            raise Mismatch(n, f"the time loss's detail cannot be read{why}")
        over = detail.overrun_ns
        if self.timed_out is None:
            raise Mismatch(
                n,
                f"a time loss of seat {seat}, but no timeout line (nor a reply after the "
                "deadline) shows its deadline passing",
            )
        s, o, line = self.timed_out
        if s != seat or over != o:
            raise Mismatch(
                n,
                f"time loss of seat {seat} by {over!r} ns, but line {line} shows seat {s} "
                f"{o} ns past the deadline",
            )
        if detail.overrun_ms != round(o / 1e6, 3):
            raise Mismatch(
                n,
                f"overrun_ms {detail.overrun_ms!r} is not overrun_ns {o} in ms",
            )
        if detail.machine is not None:
            excused = _evidence(n, detail.machine).excused_ns
            if o < excused:
                raise Mismatch(
                    n,
                    f"a time loss {o} ns past the deadline, but the machine's wait excused "
                    f"{excused} ns: the match should have ended aborted (machine_wait)",
                )

    def check_machine_wait(self, n: int, detail: EndDetail) -> None:
        """An abort for the machine's wait (bidref/outcome/excuse.py): a decision of
        that seat was pending, the look was past its deadline by ``late_ns``, and
        the excuse recomputed from the figures is more than that."""
        if not isinstance(detail, MachineWaitDetail):
            why = f": {detail.why}" if isinstance(detail, UnreadDetail) else ""
            raise Mismatch(n, f"the machine-wait abort's detail cannot be read{why}")
        p = self.pending
        seat, late, at = detail.seat, detail.late_ns, detail.at_ns
        if p is None or p.seat != seat:
            raise Mismatch(
                n, f"a machine-wait abort of seat {seat!r}, but no decision of it is pending"
            )
        if at < p.deadline:
            raise Mismatch(
                n,
                f"a machine-wait abort at at_ns {at!r}, but seat {seat}'s deadline was "
                f"{p.deadline} (line {p.line}): it was not late",
            )
        if late != at - p.deadline:
            raise Mismatch(
                n, f"late_ns {late}, but at_ns {at} - the deadline {p.deadline} = {at - p.deadline}"
            )
        excused = _evidence(n, detail.machine).excused_ns
        if late >= excused:
            raise Mismatch(
                n,
                f"a machine-wait abort {late} ns past the deadline, but the figures excuse "
                f"{excused} ns: it is a time loss",
            )


def _evidence(n: int, said: MachineEvidence) -> MachineWait:
    """The machine-wait figures of a result's detail, with ``excused_ns`` as the rule
    makes it from the others (and as the detail says it: the same, or a mismatch)."""
    found = said.wait
    if said.excused_ns != found.excused_ns:
        raise Mismatch(
            n,
            f"excused_ns {said.excused_ns!r}, but the rule makes {found.excused_ns} "
            'of the figures (docs/match.md, "The machine\'s wait")',
        )
    return found
