"""What `bidref tournament` shows (render/tournament/views.py) and its --json object
(result.py, RunSummary.to_dict), on a fixed-width console."""

from __future__ import annotations

import json
import math
from pathlib import Path

from rich.console import Console

from bidref.render.tournament.views import FinalView, LiveView, finished_line, hms, match_line
from bidref.tournament import MatchRecord, MatchReport, Plan, Progress, RunSummary, Sprt, compute
from bidref.tournament.result import result_dict

from .conftest import MakePlan


def render(renderable: object, width: int = 140) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def played(plan: Plan, reports: list[MatchReport]) -> list[MatchRecord]:
    return [MatchRecord.of(plan.job(k, 1), r) for k, r in zip(plan.keys, reports, strict=False)]


def summary_of(plan: Plan, recs: list[MatchRecord], **counts: object) -> RunSummary:
    s = RunSummary(total=len(plan.keys), done=sum(r.rated for r in recs), played=len(recs))
    for name, value in counts.items():
        setattr(s, name, value)
    s.standings = compute(plan.names, plan.pairings, recs)
    return s


def test_hms() -> None:
    assert [hms(x) for x in (0, 4.4, 59.6, 61, 3600, 3723)] == [
        "0s",
        "4s",
        "1m00s",
        "1m01s",
        "1h00m00s",
        "1h02m03s",
    ]
    assert hms(math.nan) == hms(math.inf) == "?"


def test_match_lines_say_the_score_the_reason_and_the_seats(make_plan: MakePlan) -> None:
    plan = make_plan(deals=1)
    won, drawn, failed = played(
        plan,
        [
            MatchReport(1, "balance", True, balances=(20, 300), rounds=4),
            MatchReport(None, "round limit", True, balances=(50, 50), rounds=8),
        ],
    ) + played(plan, [MatchReport(None, "startup", False, detail={"seat": 0, "problem": "x"})])
    seed = plan.header.seeds[0]
    assert match_line(won) == (
        f"alpha vs beta (seed {seed}, alpha is A): 0-1 {{beta wins by balance, 20-300 after "
        "4 rounds}"
    )
    assert match_line(drawn) == (
        f"beta vs alpha (seed {seed}, beta is A): 1/2-1/2 {{draw by round limit, 50-50 after "
        "8 rounds}"
    )
    assert match_line(failed).endswith(
        "not rated, startup {B (beta) wins by startup: A (alpha) did not start: x}"
    )
    progress = Progress(total=2, done=1, played=3, elapsed_s=9.0, standings=None, last=won)  # type: ignore[arg-type]
    assert str(finished_line(progress)) == (
        f"Finished match 3 (1/2 rated, left ~3s): {match_line(won)}"
    )


def test_the_live_view_shows_the_top_engines_only(make_plan: MakePlan) -> None:
    plan = make_plan([(n, "fake") for n in ("a", "b", "c", "d")], deals=1)
    recs = played(plan, [MatchReport(0, "balance", True)] * len(plan.keys))
    standings = compute(plan.names, plan.pairings, recs)
    progress = Progress(len(plan.keys), len(recs), len(recs), 3.0, standings, None)
    full, top2 = render(LiveView(progress, plan)), render(LiveView(progress, plan, top=2))
    assert "last:" not in full and "100%" in full and "left ~0s" in full
    assert engine_rows(full) == ["a", "b", "c", "d"] and "SPRT" not in full
    assert engine_rows(top2) == ["a", "b"]


def engine_rows(text: str) -> list[str]:
    """The engines of a standings table, in rank order."""
    rows = [line.split() for line in text.splitlines()]
    return [w[1] for w in rows if len(w) > 2 and w[0].isdigit() and w[1] in "abcd"]


def test_the_final_view_of_a_round_robin(make_plan: MakePlan) -> None:
    plan = make_plan([(n, "fake") for n in ("a", "b", "c")], deals=1)
    recs = played(plan, [MatchReport(0, "balance", True)] * len(plan.keys))
    text = render(FinalView(plan, summary_of(plan, recs, aborted=2)))
    heads = ["Standings", "Pairings", "Cross-table", "Results by seat"]
    assert [text.index(h) for h in heads] == sorted(text.index(h) for h in heads)
    assert " ".join(text.split()).endswith(
        f"6/6 matches rated (6 played now, 2 aborted and replayed); master seed 7; results in "
        f"{plan.out_dir / 'results.jsonl'}"
    )
    two = make_plan(deals=1)
    two_text = render(FinalView(two, summary_of(two, played(two, []))))
    assert "Cross-table" not in two_text and "0/2 matches rated (0 played now" in two_text


def test_the_final_view_of_a_gauntlet_with_an_sprt(make_plan: MakePlan) -> None:
    sprt = Sprt(0, 10, 0.05, 0.05)
    plan = make_plan([("hero", "fake"), ("x", "fake")], deals=2, fmt="gauntlet", sprt=sprt)
    recs = played(plan, [MatchReport(1, "balance", True)] * 4)  # x wins all, hero first still
    text = render(FinalView(plan, summary_of(plan, recs)))
    standings = text[text.index("Standings") : text.index("Pairings")]
    assert standings.index(" hero ") < standings.index(" x ")
    assert "Cross-table" not in text and "SPRT [0, 10]" in text


def test_the_json_result(make_plan: MakePlan, tmp_path: Path) -> None:
    plan = make_plan(deals=2, out=tmp_path / "t")
    recs = played(plan, [MatchReport(0, "balance", True)] * 3)
    summary = summary_of(
        plan, recs, interrupted=True, unresolved=[plan.keys[3]], stopped="engine 'x' failed"
    )
    assert summary.to_dict() == {
        "total": 4,
        "done": 3,
        "played": 3,
        "aborted": 0,
        "interrupted": True,
        "sprt_stopped": False,
        "unresolved": [plan.keys[3].id],
        "failed": [],
        "refused": [],
        "stopped": "engine 'x' failed",
        "concurrency_lowered": [],
    }
    data = json.loads(json.dumps(result_dict(plan, summary)))
    assert list(data)[: len(summary.to_dict()) + 3] == [
        "results",
        *summary.to_dict(),
        "master_seed",
        "deal_book",
    ]
    assert data["results"] == str(tmp_path / "t" / "results.jsonl")
    assert (data["master_seed"], data["deal_book"]) == (7, None)
    assert [e["name"] for e in data["engines"]] == ["alpha", "beta"]
    assert data["engines"][0]["wins"] == 2 and data["pairs"][0]["matches"] == 3


def test_the_final_view_says_where_the_deals_come_from(make_plan: MakePlan) -> None:
    from dataclasses import replace

    plan = make_plan(deals=1)
    header = plan.header.model_copy(update={"master_seed": None, "deal_book": "deals.txt"})
    book = replace(plan, header=header)
    assert (plan.deals_origin, book.deals_origin) == ("master seed 7", "deal book deals.txt")
    text = " ".join(render(FinalView(book, summary_of(book, []))).split())
    assert "0/2 matches rated (0 played now, 0 aborted and replayed); deal book deals.txt;" in text
