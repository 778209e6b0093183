"""The machine's wait: when a late reply is not the engine's loss. Pure: no I/O.

On a busy machine an engine's tasks wait on a run queue for a CPU: time the
engine wanted to run and could not, charged to its clock. The kernel counts it
per task (bidref/engines/schedwait.py). The rule (docs/match.md, "The
machine's wait"), checked again by ``replay --check`` from the figures in the
result line:

0. Nothing is excused when the engine made the referee work for it during the
   decision: a rules request (a long answer, written at the referee's
   priority), or more than :data:`OTHER_LINES_FREE` lines other than its reply
   (logs, stale replies). The referee's work then takes CPUs
   the engine waits for, and an engine must not buy itself wait that way.
   Nor while a task of the engine runs below the priority it
   was started with (a higher nice value, or the batch or idle policy): a
   task that lowers itself waits for a CPU by its own choice (else a losing
   engine could ``nice 19`` itself on a busy machine and wait its way out).
1. Only a decision whose engine did not overload *itself* is excused: its
   tasks' CPU time plus their run-queue wait (the time they were runnable)
   must fit in the CPUs it may use over the measured window,
   ``run + wait + unseen <= cores * window + OWN_SLACK_NS``. An engine that
   keeps more tasks runnable than it has cores (busy children or threads, a
   thousand of them) made at least part of its wait itself: it is not excused
   at all. ``unseen`` is what the counters cannot hold yet: the kernel adds a
   wait to a task's count only when the wait ends, so each task still
   runnable at the last reading counts as runnable through the whole window
   (bidref/engines/schedwait.py, ``unseen_ns``). Without it, busy children
   that got one slice each in a crowded window looked almost idle.
2. And no task of it may have ended during the decision having used CPU
   (``cpu - run <= GONE_SLACK_NS``: the engine's CPU time counts ended tasks,
   the run-queue figures cannot, so their wait is unknown).
3. Then the excuse is the largest run-queue wait of one task
   (``wait_max``): the most the reply can have been held up by the machine
   along one task. (Summing the tasks' waits would excuse a multi-threaded
   engine more than any one thread lost.)

A reply found ``late`` after the deadline (by the referee's last look that
found nothing) with ``late < excuse`` would have been in time without the
machine's wait: the match ends ``aborted`` (cause ``machine_wait``), unrated.
Otherwise the late reply loses on time as ever. Both slacks are for how the
counters are read, not a gift: schedstat's CPU figure of a task that is
running lags by up to a scheduler tick (4 ms at 250 Hz), and the readings
are a few microseconds apart.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final

from ..rules import MILLISECOND, SECOND

OTHER_LINES_FREE: Final = 16  # rule 0: lines besides the reply the referee reads for free
OWN_SLACK_NS: Final = 4 * MILLISECOND  # rule 1: a tick's lag of a running task's CPU figure
GONE_SLACK_NS: Final = 4 * MILLISECOND  # rule 2: the same lag, between two counters
# How long past a deadline the referee waits for a reply the machine kept back:
# beyond it, a wait that still excuses the reply ends the match aborted.
MAX_EXTENSION_NS: Final = 1 * SECOND


@dataclass(frozen=True, slots=True)
class MachineWait:
    """The figures of one decision, from its request (or retry) to now."""

    window_ns: int  # between the two readings of the counters
    wait_ns: int  # run-queue wait, summed over the engine's tasks
    wait_max_ns: int  # ... of the task that waited most
    run_ns: int  # CPU time of the same tasks (schedstat)
    cpu_ns: int | None  # the engine's CPU time (bidref/engines/cputime.py), ended tasks too
    tasks: int
    cores: int  # CPUs the engine may use (its affinity)
    priority_lowered: bool = False  # rule 0: a task of it runs below its starting priority
    rules_requests: int = 0  # rule 0: rules requests in the decision (session.py)
    other_lines: int = 0  # rule 0: lines besides the reply in the decision, rules included
    unseen_ns: int = 0  # rule 1: the uncounted part of the tasks still runnable at the reading

    @property
    def made_work(self) -> bool:
        """Rule 0: the engine made the referee work for it in the decision."""
        return self.rules_requests > 0 or self.other_lines > OTHER_LINES_FREE

    @property
    def own_load(self) -> bool:
        """Rule 1 broken: the engine kept more tasks runnable than it has cores."""
        wanted = self.run_ns + self.wait_ns + self.unseen_ns
        return wanted > self.cores * self.window_ns + OWN_SLACK_NS

    @property
    def gone_tasks(self) -> bool:
        """Rule 2 broken: tasks that ended in the decision used CPU."""
        return self.cpu_ns is not None and self.cpu_ns - self.run_ns > GONE_SLACK_NS

    @property
    def excused_ns(self) -> int:
        """How late a reply may be and still be the machine's doing (0: never)."""
        if self.cores < 1 or self.made_work or self.priority_lowered:
            return 0
        if self.own_load or self.gone_tasks:
            return 0
        return self.wait_max_ns

    def why_not(self) -> str | None:
        """Why nothing is excused, in words; None when something is."""
        if self.made_work:
            return (
                f"it made the referee work for it ({self.rules_requests} rules request(s), "
                f"{self.other_lines} line(s) besides its reply; free: {OTHER_LINES_FREE} "
                "and no rules request)"
            )
        if self.priority_lowered:
            return "a task of it runs below the priority it was started with (nice, policy)"
        if self.own_load:
            return (
                f"its own tasks wanted more than its {self.cores} CPU(s): CPU "
                f"{ms(self.run_ns)} + run-queue wait {ms(self.wait_ns)} in "
                f"{ms(self.window_ns)} ({self.tasks} task(s))"
                + (
                    f", still runnable and not yet counted {ms(self.unseen_ns)}"
                    if self.unseen_ns
                    else ""
                )
            )
        if self.gone_tasks:
            return "tasks of it that ended during the decision used CPU (their wait is unknown)"
        if self.wait_max_ns == 0:
            return "none of its tasks waited for a CPU"
        return None

    def to_dict(self) -> dict[str, Any]:
        """The evidence, as the result line carries it."""
        return {**asdict(self), "excused_ns": self.excused_ns}

    @classmethod
    def of(cls, d: dict[str, Any]) -> MachineWait:
        """From :meth:`to_dict`'s fields (a transcript's); ValueError when one is missing
        or not an integer."""
        try:
            # (unseen_ns came later: a transcript written before has none, i.e. 0)
            values = {k: d[k] for k in cls.__slots__ if k != "unseen_ns" or k in d}
        except KeyError as e:
            raise ValueError(f"the machine-wait evidence has no {e.args[0]!r}") from None
        for k, v in values.items():
            if k == "priority_lowered":
                if not isinstance(v, bool):
                    raise ValueError(f"the machine-wait evidence's {k} is {v!r}, not true/false")
            elif not (isinstance(v, int) and not isinstance(v, bool)) and not (
                k == "cpu_ns" and v is None
            ):
                raise ValueError(f"the machine-wait evidence's {k} is {v!r}, not an integer")
        return cls(**values)


def ms(ns: int) -> str:
    return f"{ns / MILLISECOND:.3f} ms"


__all__ = ["GONE_SLACK_NS", "MAX_EXTENSION_NS", "OTHER_LINES_FREE", "OWN_SLACK_NS", "MachineWait"]
