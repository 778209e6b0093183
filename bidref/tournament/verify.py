"""Counted only when proven: a worker's match checked by replaying its transcript.

A cluster worker is somebody else's machine. Before a match it played is
counted, the coordinator replays the transcript it sent back through the rules
and the clock (as ``bidref replay --check`` does: :mod:`bidref.transcript.replay`)
and checks that it is the match that was asked for: the engines in their seats,
the deal seed (revealed against its commitment), the clock, the round limit,
the illegal-action policy and the pipe or pty transport; and that the result
the worker reported is the one the transcript proves. Anything else is a
:class:`Rejection`: the match is not counted, it is played again on another
worker, and that worker gets no more matches (:mod:`.cluster`).

What a replay cannot prove: which program chose the moves. A worker that runs
another build of an engine and says it ran the recorded one plays a legal,
well-clocked game; the builds are checked on the worker (:mod:`.shipping`), and
docs/tournament.md ("Trust model") says what that leaves open.

Only rated reports are checked: an unrated one counts for nothing and is
played again anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..rules.clock import MILLISECOND
from ..transcript.files import decompress
from ..transcript.lines import Hello, Reply, Request
from ..transcript.reader import ReadResult, read_transcript
from ..transcript.replay import ReplayedResult, replay_lines
from .model import MatchJob, MatchReport


@dataclass(frozen=True)
class Rejection:
    """Why a worker's match is not counted (``problem``: one sentence)."""

    problem: str


@dataclass(frozen=True)
class Proof:
    """A match proven: how many decisions the replay checked (for the throughput
    figures) and each seat's time per decision, (total ns, decisions), as the
    transcript's stamps give it (for the per-worker statistics)."""

    decisions: int
    lines: int
    decision_ns: tuple[tuple[int, int], tuple[int, int]] = ((0, 0), (0, 0))
    # what each seat's jail gave it, as the transcript's hello lines record it
    # (None: unjailed, or a transcript from before they did)
    jails: tuple[dict[str, Any] | None, dict[str, Any] | None] = (None, None)


def transcript_bytes(job: MatchJob, report: MatchReport) -> bytes | None:
    """The transcript the worker sent back for ``job`` (None: it sent none)."""
    for path, data in report.outputs:
        if path == job.transcript:
            return data
    return None


def _expected_controls(job: MatchJob) -> list[tuple[int, int]]:
    s = job.settings
    base = (s.bank_ms * MILLISECOND, s.delay_ms * MILLISECOND)
    own = [e.time_control_ms for e in (job.engine_a, job.engine_b)]
    return [base if o is None else (o[0] * MILLISECOND, o[1] * MILLISECOND) for o in own]


def prove(job: MatchJob, report: MatchReport) -> Proof | Rejection:
    """Replay the transcript of ``report`` and check it is ``job``, with that result."""
    data = transcript_bytes(job, report)
    if data is None:
        return Rejection("it sent no transcript for a rated result")
    try:
        read = read_transcript(decompress(data, ""))
        replayed = replay_lines(read, steps=False)
    except Exception as exc:  # (the replay reports bad input; this is a last guard)
        return Rejection(f"its transcript cannot be read: {type(exc).__name__}: {exc}")
    if replayed.problem is not None:
        return Rejection(
            f"its transcript fails the replay at line {replayed.problem.line}: "
            f"{replayed.problem.message}"
        )
    if replayed.truncated or replayed.result is None:
        return Rejection(f"its transcript is incomplete: {replayed.truncated or 'no result'}")
    h = replayed.header
    if h is None:
        return Rejection("its transcript has no header")
    problem = _other_match(job, h, replayed.game.seed) or _other_result(report, replayed.result)
    if problem is not None:
        return Rejection(problem)
    return Proof(replayed.decisions, replayed.lines, _decision_times(read), _jails(read))


def _jails(read: ReadResult) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    found: list[dict[str, Any] | None] = [None, None]
    for ln in read.lines:
        item = ln.item
        if type(item) is Hello and item.seat in (0, 1):
            found[item.seat] = item.jail
    return found[0], found[1]


def _decision_times(read: ReadResult) -> tuple[tuple[int, int], tuple[int, int]]:
    """Per seat: the time from each request to its accepted reply, summed, and how many."""
    asked: dict[tuple[int, int], int] = {}
    totals = [[0, 0], [0, 0]]
    for ln in read.lines:
        item = ln.item
        if type(item) is Request:
            asked[(item.seat, item.id)] = item.t_ns
        elif type(item) is Reply and item.status == "accepted" and item.seat in (0, 1):
            sent = asked.pop((item.seat, item.id), None)
            if sent is not None:
                totals[item.seat][0] += item.t_ns - sent
                totals[item.seat][1] += 1
    return (totals[0][0], totals[0][1]), (totals[1][0], totals[1][1])


def _other_match(job: MatchJob, h: Any, seed: int | None) -> str | None:
    """What in the transcript's header is not the match asked for, if anything."""
    names = [job.engine_a.name, job.engine_b.name]
    seated = [e.get("name") for e in sorted(h.engines, key=lambda e: e.get("seat", 0))]
    if seated != names:
        return f"its transcript seats {seated}, not {names}"
    if not h.seeded or seed != job.key.seed:
        return f"its transcript plays deal seed {seed}, not {job.key.seed}"
    controls = _expected_controls(job)
    said = (
        [(t.bank_ns, t.delay_ns) for t in h.time_controls]
        if h.time_controls is not None
        else [(h.time_control.bank_ns, h.time_control.delay_ns)] * 2
    )
    if said != controls:
        return f"its transcript's clocks are {said} (ns), not {controls}"
    if h.explicit_deals:  # deals of its choosing, not the seed's
        return f"its transcript plays {h.explicit_deals} explicit deals, not the seed's"
    s = job.settings
    if h.max_rounds != s.max_rounds:  # (None: no limit; a limit would end it early)
        return f"its transcript's round limit is {h.max_rounds!r}, not {s.max_rounds!r}"
    for what, got, want in (
        ("illegal-action policy", h.illegal, s.illegal),
        ("transport", h.transport, _one_transport(job)),
    ):
        if want is not None and got != want:
            return f"its transcript's {what} is {got!r}, not {want!r}"
    return None


def _one_transport(job: MatchJob) -> str | None:
    """The transport the header must name (None: the engines differ, it names neither)."""
    mine = {e.transport or job.settings.transport for e in (job.engine_a, job.engine_b)}
    return mine.pop() if len(mine) == 1 else None


def _other_result(report: MatchReport, result: ReplayedResult) -> str | None:
    """Where the worker's report and the proven result differ, if they do."""
    claimed = {
        "winner": report.winner,
        "reason": str(report.reason),
        "balances": list(report.balances),
        "rounds": report.rounds,
        "rated": report.rated,
    }
    proven = {
        "winner": result.winner,
        "reason": result.reason,
        "balances": list(result.balances),
        "rounds": result.rounds,
        "rated": result.rated,
    }
    wrong = [
        f"{k} {claimed[k]!r} (proven {proven[k]!r})" for k in claimed if claimed[k] != proven[k]
    ]
    if wrong:
        return "it reported " + ", ".join(wrong)
    return None
