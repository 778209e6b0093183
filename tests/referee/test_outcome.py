"""The end reasons: one module says what each means, whether it is rated, who lost."""

from __future__ import annotations

import doctest
from pathlib import Path

import bidref.match.outcome
from bidref.match.outcome import END_REASONS, EndReason, MatchOutcome


def test_outcome_doctests() -> None:
    assert doctest.testmod(bidref.match.outcome).failed == 0


def test_every_reason_has_a_text_and_only_startup_and_aborted_are_unrated() -> None:
    assert set(END_REASONS) == {r.value for r in EndReason}
    assert all(r.text for r in EndReason)
    assert {r for r in EndReason if not r.rated} == {EndReason.STARTUP, EndReason.ABORTED}


def test_the_loser_is_the_seat_named_for_seat_reasons_only() -> None:
    assert EndReason.TIME.loser({"seat": 1}) == 1
    assert EndReason.ABORTED.loser({"seat": 1}) is None  # a timing fault: nobody lost
    assert EndReason.ROUND_LIMIT.loser({}) is None


def test_a_summary_of_a_timing_fault_says_aborted_and_why() -> None:
    out = MatchOutcome(
        winner=None,
        reason="aborted",
        detail={"cause": "timing_fault", "seat": 0, "late_ns": 5},
        balances=(150, 150),
        rounds=1,
        engines=("a", "b"),
        transcript_path=Path("t.jsonl"),
        rated=False,
    )
    assert out.summary().startswith("aborted, cause=timing_fault, seat=A")
    assert out.to_dict()["reason"] == "aborted"
