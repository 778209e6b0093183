"""Whole pairs only (issue 37): a rated match whose other seat is not rated counts
in wins, losses and draws, is reported as unpaired, and is in no rating."""

from __future__ import annotations

from rich.console import Console

from bidref.render.tournament.views import FinalView
from bidref.tournament.model import MatchRecord
from bidref.tournament.runner import RunSummary
from bidref.tournament.schedule import Pairing
from bidref.tournament.standings import Tally

from .conftest import MakePlan

AB = Pairing("a", "b")


def _match(seed: int, seat: int, winner: str | None) -> MatchRecord:
    a, b = ("a", "b") if seat == 0 else ("b", "a")
    return MatchRecord(
        first="a",
        second="b",
        seed=seed,
        seat=seat,
        engine_a=a,
        engine_b=b,
        attempt=1,
        rated=True,
        winner=winner,
        reason="balance" if winner else "round_limit",
        detail={},
        balances=(0, 0),
        rounds=1,
        transcript=None,
        elapsed_s=0.0,
    )


def test_an_unpaired_match_is_reported_and_counts_in_no_rating() -> None:
    pair = [_match(1, 0, "a"), _match(1, 1, "b")]  # a split pair: level
    leftover = _match(2, 0, "a")  # a's win on seed 2; seed 2's other seat never came
    whole = Tally(["a", "b"], [AB])
    for r in pair:
        whole.add(r)
    with_leftover = Tally(["a", "b"], [AB])
    for r in [*pair, leftover]:
        with_leftover.add(r)
    s = with_leftover.standings
    a = s.engines["a"].to_dict()
    assert (a["matches"], a["wins"], a["pairs"], a["unpaired"]) == (3, 2, 1, 1)
    assert s.unpaired == 1 and whole.standings.unpaired == 0
    # the Elo, the LOS, the pentanomial and the joint ratings are the pair's alone
    assert s.engines["a"].pentanomial == whole.standings.engines["a"].pentanomial
    assert s.engines["a"].estimate == whole.standings.engines["a"].estimate
    assert s.joint()["a"].elo == whole.standings.joint()["a"].elo == 0.0
    assert s.head_to_head[("a", "b")] == [2.0, 3]  # the cross-table counts all three


def test_the_final_view_says_how_many_matches_are_unpaired(make_plan: MakePlan) -> None:
    plan = make_plan([("a", "fake"), ("b", "fake")], deals=2)
    tally = Tally(plan.names, plan.pairings)
    seeds = plan.header.seeds
    for r in (_match(seeds[0], 0, "a"), _match(seeds[0], 1, "b"), _match(seeds[1], 1, "a")):
        tally.add(r)
    summary = RunSummary(total=4, done=3, played=3, standings=tally.standings)
    console = Console(width=200, record=True)
    console.print(FinalView(plan, summary))
    text = console.export_text()
    assert "1 rated matches are unpaired" in text and "in no Elo, LOS or SPRT" in text
