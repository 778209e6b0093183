"""The report's numbers and charts (issue 29 item 8): an infinite Elo is shown as the
bound the terminal shows (``> +597``), never ``∞``; no dot, bar or line of a chart runs
over a label, and no label over another or off the picture."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bidref.cli import app
from bidref.render.tournament.tables import fmt_elo
from bidref.tournament.runner import RESULTS_FILE, Plan
from bidref.tournament.standings import compute
from bidref.tournament.store import read_results
from tests.html.conftest import Page
from tests.transcript.scripted_seats import referee_transcript

REPO = Path(__file__).resolve().parents[2]
BIDREF = [sys.executable, "-c", "from bidref.cli import main; main()"]

BOXES = """svg => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, r: r.right, b: r.bottom, cls: e.getAttribute('class') || '',
            text: e.textContent}; };
  return {svg: box(svg), texts: [...svg.querySelectorAll('text')].map(box),
          dots: [...svg.querySelectorAll('circle')].map(box),
          plot: svg.querySelector('rect.plot') ? box(svg.querySelector('rect.plot')) : null,
          lines: [...svg.querySelectorAll('polyline')].map(box)};
}"""


def overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["x"] < b["r"] and b["x"] < a["r"] and a["y"] < b["b"] and b["y"] < a["b"]


def inside(a: dict[str, Any], outer: dict[str, Any]) -> bool:
    return (
        a["x"] >= outer["x"] - 0.5
        and a["r"] <= outer["r"] + 0.5
        and a["y"] >= outer["y"] - 0.5
        and a["b"] <= outer["b"] + 0.5
    )


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A fake tournament (tests/tournament/tournament_fakes.py) where one engine wins
    every match: its Elo is +∞, the terminal shows a bound."""
    out = tmp_path_factory.mktemp("sweep") / "t"
    r = subprocess.run(
        [
            *BIDREF,
            "tournament",
            "strong=fake strength=100000 draw=0",
            "weak=fake draw=0",
            "mid=fake strength=1.2 draw=0",
            *("--deals", "4", "--seed", "1", "--out", str(out)),
            *("--play-function", "tests.tournament.tournament_fakes:fake_play"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    report = out / "report.html"
    r2 = CliRunner().invoke(app, ["tournament-report", str(out), "--html", str(report)])
    assert r2.exit_code == 0, r2.output
    return out, report


def test_an_infinite_elo_is_the_bound_the_terminal_shows(
    page: Page, sweep: tuple[Path, Path]
) -> None:
    out, report = sweep
    header, records, _ = read_results(out / RESULTS_FILE)
    plan = Plan(header, out)
    standings = compute(plan.names, plan.pairings, records)
    page.open(report)
    shown = dict(
        page.page.eval_on_selector_all(
            "table.standings tbody tr",
            "rows => rows.map(r => [r.dataset.engine, r.querySelector('td.elo').innerText])",
        )
    )
    terminal = {name: fmt_elo(s) for name, s in standings.ranked()}
    assert terminal["strong"].startswith("> +")  # the case at hand: every pair won
    assert shown["strong"] == terminal["strong"]
    assert page.text("table.standings tr[data-engine='strong'] td.interval") == "n/a"
    assert "∞" not in page.page.inner_text("main")
    assert terminal["strong"] in page.page.text_content("svg.ratings")


def test_no_dot_or_bar_of_the_ratings_chart_runs_over_a_label(
    page: Page, sweep: tuple[Path, Path]
) -> None:
    _, report = sweep
    page.open(report)
    g = page.page.eval_on_selector("svg.ratings", BOXES)
    labels = [t for t in g["texts"] if t["cls"] != "tick"]
    assert len(g["dots"]) == 3 and len(labels) == 6
    for t in g["texts"]:
        assert inside(t, g["svg"]), t
    for d in g["dots"]:
        for t in labels:
            assert not overlap(d, t), (d, t)
    for i, a in enumerate(g["texts"]):
        for b in g["texts"][i + 1 :]:
            assert not overlap(a, b), (a, b)
    ticks = [int(t["text"]) for t in g["texts"] if t["cls"] == "tick"]
    assert 0 in ticks and all(v % 50 == 0 for v in ticks)  # round values


def test_the_balance_chart_labels_neither_overlap_nor_clip(page: Page, tmp_path: Path) -> None:
    """25 rounds, some of them a few steps long: the round labels that would collide are
    thinned out, the names sit above the plot and nothing leaves the picture."""
    t = tmp_path / "long.jsonl"
    referee_transcript(t, seed=2, max_rounds=30, bank_s=300)
    out = tmp_path / "long.html"
    r = CliRunner().invoke(app, ["replay", str(t), "--final", "--html", str(out)])
    assert r.exit_code == 0, r.output
    page.open(out)
    g = page.page.eval_on_selector("#chart svg", BOXES)
    rounds = [x for x in g["texts"] if x["cls"] == "round"]
    assert len(rounds) >= 10
    for x in g["texts"]:
        assert inside(x, g["svg"]), x
    for i, a in enumerate(g["texts"]):
        for b in g["texts"][i + 1 :]:
            assert not overlap(a, b), (a, b)
    legend = [x for x in g["texts"] if x["cls"] == "legend"]
    assert [x["text"] for x in legend] == ["A alpha", "B beta"]
    for x in legend:
        assert x["b"] <= g["plot"]["y"], x  # above the plot: no line runs over a name
    for line in g["lines"]:
        assert inside(line, g["plot"])
