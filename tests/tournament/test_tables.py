"""Standings tables, exports and the live view, rendered on a fixed-width console."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from rich.console import Console

from bidref.render.tournament.tables import export_pairs, pairs_table, standings_table
from bidref.render.tournament.views import LiveView
from bidref.tournament import MatchRecord, MatchReport, Progress, Sprt, compute

from .conftest import MakePlan


def render(renderable: object) -> str:
    console = Console(width=140, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def records(make_plan: MakePlan) -> tuple[list[MatchRecord], list[str], list[object]]:
    plan = make_plan(deals=2)
    keys = plan.keys  # alpha vs beta, seeds s1 (seat 0, 1), s2 (seat 0, 1)
    reports = [
        MatchReport(0, "balance", True),
        MatchReport(0, "time", True),  # 1 + 0 points
        MatchReport(0, "balance", True),
        MatchReport(1, "balance", True),
    ]  # 1 + 1
    out = [MatchRecord.of(plan.job(k, 1), r) for k, r in zip(keys, reports, strict=True)]
    out.append(MatchRecord.of(plan.job(keys[0], 1), MatchReport(None, "aborted", False)))
    return out, plan.names, plan.pairings  # type: ignore[return-value]


def test_standings_count_results_pairs_and_faults(make_plan: MakePlan) -> None:
    recs, names, pairings = records(make_plan)
    s = compute(names, pairings, recs)  # type: ignore[arg-type]
    alpha, beta = s.engines["alpha"], s.engines["beta"]
    # seed 1: alpha wins as A, beta (as A) beats alpha on time; seed 2: alpha wins both
    assert (alpha.wins, alpha.losses, alpha.draws) == (3, 1, 0)
    assert alpha.pentanomial.counts == (0, 0, 1, 0, 1)
    assert beta.pentanomial.counts == (1, 0, 1, 0, 0)
    assert alpha.faults["time_losses"] == 1 and beta.faults["time_losses"] == 0
    assert alpha.aborted == beta.aborted == 1
    assert [n for n, _ in s.ranked()] == ["alpha", "beta"]
    lines = [line.split() for line in render(standings_table(s)).splitlines()]
    rows = {w[1]: w for w in lines if len(w) > 1 and w[1] in ("alpha", "beta")}
    # pair scores 1/2 and 2/2: mean .75, se sqrt(.0625/2), LOS = Phi(1.414) = 92.1 %;
    # 2 pairs are too few for an interval
    assert rows["alpha"][:8] == ["1", "alpha", "4", "3-1-0", "75.0%", "+190.8", "±", "n/a"]
    assert rows["alpha"][-4:] == ["92.1%", "2", "1/0/0/0", "1"]
    assert rows["beta"][:8] == ["2", "beta", "4", "1-3-0", "25.0%", "-190.8", "±", "n/a"]


def test_pairs_table_export_and_sprt(make_plan: MakePlan, tmp_path: Path) -> None:
    recs, names, pairings = records(make_plan)
    s = compute(names, pairings, recs)  # type: ignore[arg-type]
    sprt = Sprt(0, 10, 0.05, 0.05)
    text = render(pairs_table(s, sprt))
    assert "alpha vs beta" in text and "0 0 1 0 1" in text and "continue" in text
    assert "1/0/0/0 · 0/0/0/0" in text  # alpha lost once on time, beta never
    export_pairs(s, tmp_path / "p.csv")
    row = next(csv.DictReader((tmp_path / "p.csv").open(encoding="utf-8")))
    assert (row["first"], row["wins"], row["pentanomial"], row["time_losses"]) == (
        "alpha",
        "3",
        "0 0 1 0 1",
        "1",
    )
    export_pairs(s, tmp_path / "p.json", sprt)
    data = json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))
    assert data[0]["sprt"]["status"] == "continue" and data[0]["second_faults"]["time_losses"] == 0


def test_live_view_shows_progress_eta_and_standings(make_plan: MakePlan) -> None:
    recs, names, pairings = records(make_plan)
    s = compute(names, pairings, recs)  # type: ignore[arg-type]
    progress = Progress(total=8, done=4, played=4, elapsed_s=20.0, standings=s, last=recs[-1])
    assert progress.eta_s == 20.0
    plan = make_plan(deals=2, sprt=Sprt(0, 10, 0.05, 0.05))
    text = render(LiveView(progress, plan))
    assert "matches 4/8" in text and "50%" in text and "left ~20s" in text
    assert "last: alpha vs beta" in text
    assert "Current standings" in text and "alpha" in text
    assert "SPRT [0, 10]" in text and "2 pairs of alpha vs beta" in text
