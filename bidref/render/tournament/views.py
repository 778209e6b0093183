"""What `bidref tournament` shows: the live view on a terminal, the line per
finished match in logs, and the final tables, as rich renderables (built
here, printed by the CLI)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from bidref.render.tournament.tables import (
    cross_table,
    pairs_table,
    seats_table,
    sprt_line,
    standings_table,
)
from bidref.tournament import MatchRecord, Plan, Progress, RunSummary
from bidref.tournament.runner import RESULTS_FILE
from bidref.visible import visible


def hms(seconds: float) -> str:
    """``1h02m03s``, ``2m03s``, ``3s``; ``?`` when not known (NaN, infinite)."""
    if math.isnan(seconds) or math.isinf(seconds):
        return "?"
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"


def match_line(r: MatchRecord) -> str:
    """One finished match in one line (fastchess style), e.g.
    ``a vs b (seed 7, a is A): 1-0 {a wins by balance 300-120 after 4 rounds}``."""
    seats = f"seed {r.seed}, {r.engine_a} is A"
    head = f"{r.engine_a} vs {r.engine_b} ({seats})"
    if not r.rated:
        why = r.detail_text() or r.reason
        return f"{head}: not rated, {r.reason} {{{why}}}"
    if r.winner is None:
        score = "1/2-1/2"
        what = "draw"
    else:
        score = "1-0" if r.winner == r.engine_a else "0-1"
        what = f"{r.winner} wins"
    bal = f"{r.balances[0]}-{r.balances[1]}"
    return f"{head}: {score} {{{what} by {r.reason}, {bal} after {r.rounds} rounds}}"


def finished_line(p: Progress) -> Text:
    """The line a log gets for the match that just finished (``p.last``)."""
    assert p.last is not None
    return Text(
        f"Finished match {p.played} ({p.done}/{p.total} rated, left "
        f"~{hms(p.eta_s)}): {visible(match_line(p.last))}"
    )


@dataclass(frozen=True)
class LiveView:
    """The terminal's view while matches run: progress with the time left, the
    last match, the standings so far (``top`` engines) and the SPRT."""

    progress: Progress
    plan: Plan
    top: int = 10

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        p = self.progress
        bar = Table.grid(padding=(0, 1))
        bar.add_row(
            Text(f"matches {p.done}/{p.total}"),
            ProgressBar(total=max(p.total, 1), completed=p.done, width=30),
            Text(
                f"{100 * p.done / max(p.total, 1):.0f}%  elapsed {hms(p.elapsed_s)}  "
                f"left ~{hms(p.eta_s)}"
            ),
        )
        yield bar
        if p.last is not None:
            yield Text(visible(f"last: {match_line(p.last)}"), overflow="ellipsis", no_wrap=True)
        yield standings_table(
            p.standings, title="Current standings", limit=self.top, hero=self.plan.hero
        )
        yield from _sprt(self.plan, p)


def _sprt(plan: Plan, p: Progress | RunSummary) -> list[RenderableType]:
    """The SPRT's line, if the tournament runs one and it has pairs to count."""
    if plan.sprt is None or p.standings is None:
        return []
    line = sprt_line(plan.sprt, p.standings)
    return [] if line is None else [line]


@dataclass(frozen=True)
class FinalView:
    """The tables at the end of a run: standings, pairings, the cross-table (round
    robins of three or more), results by seat, the SPRT, and where it all is."""

    plan: Plan
    summary: RunSummary

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        plan, summary = self.plan, self.summary
        standings = summary.standings
        assert standings is not None  # (the runner sets them when it returns)
        yield standings_table(standings, hero=plan.hero)
        yield pairs_table(standings, plan.sprt)
        if plan.header.format == "round-robin" and len(standings.engines) > 2:
            yield cross_table(standings)
        yield seats_table(standings, hero=plan.hero)
        yield from _sprt(plan, summary)
        if standings.unpaired:  # said, never counted silently (see tournament.standings)
            yield Text(
                f"{standings.unpaired} rated matches are unpaired (the other seat of their "
                "deal is not rated): in wins, losses and draws, in no Elo, LOS or SPRT",
                style="yellow",
            )
        yield Text(
            f"{summary.done}/{summary.total} matches rated ({summary.played} played now, "
            f"{summary.aborted} aborted and replayed); {plan.deals_origin}; results in "
            f"{plan.out_dir / RESULTS_FILE}"
        )
