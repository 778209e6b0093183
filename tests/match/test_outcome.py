"""The end reasons: one module says what each means, whether it is rated, who lost."""

from __future__ import annotations

import doctest
from pathlib import Path

import bidref.outcome.details
import bidref.outcome.reasons
import bidref.rules
from bidref.outcome import END_REASONS, EndReason, MatchOutcome, decode_detail
from bidref.outcome.details import RoundLimitDetail, TimeDetail, TimingFaultDetail


def test_outcome_doctests() -> None:
    assert doctest.testmod(bidref.outcome.reasons).failed == 0
    assert doctest.testmod(bidref.outcome.details).attempted > 0
    assert doctest.testmod(bidref.outcome.details).failed == 0


def test_every_reason_has_a_text_and_only_startup_and_aborted_are_unrated() -> None:
    assert set(END_REASONS) == {r.value for r in EndReason}
    assert all(r.text for r in EndReason)
    assert {r for r in EndReason if not r.rated} == {EndReason.STARTUP, EndReason.ABORTED}


def test_the_loser_is_the_seat_named_for_seat_reasons_only() -> None:
    assert EndReason.TIME.loser(TimeDetail(seat=1, overrun_ns=0, overrun_ms=0.0)) == 1
    fault = TimingFaultDetail(seat=1, late_ns=5, quiet_before_ns=2, problem="late")
    assert EndReason.ABORTED.loser(fault) is None  # a timing fault: nobody lost
    assert EndReason.ROUND_LIMIT.loser(RoundLimitDetail(max_rounds=3)) is None


def test_a_summary_of_a_timing_fault_says_aborted_and_why() -> None:
    out = MatchOutcome(
        winner=None,
        reason="aborted",
        end=decode_detail("aborted", {"cause": "timing_fault", "seat": 0, "late_ns": 5}),
        balances=(150, 150),
        rounds=1,
        engines=("a", "b"),
        transcript_path=Path("t.jsonl"),
        rated=False,
    )
    assert out.summary().startswith("aborted: timing_fault")  # (no problem given here)
    assert out.to_dict()["reason"] == "aborted"


def test_the_rules_end_kinds_are_the_reasons_decided_by_the_rules() -> None:
    # bidref.rules names its own two end kinds differently (MatchEndKind): each is
    # an end reason, and they are exactly the reasons the rules decide
    from typing import get_args

    from bidref.rules import MatchEndKind

    assert {EndReason(k) for k in get_args(MatchEndKind)} == {r for r in EndReason if r.by_rules}
    assert not any(r.by_rules and r.by_seat for r in EndReason)


def test_faults_are_the_seat_reasons_but_a_resignation() -> None:
    faults = {r for r in EndReason if r.fault}
    assert faults == {r for r in EndReason if r.by_seat} - {EndReason.RESIGN}
    # the tournament counts each fault in a column: none is missing
    from bidref.tournament.standings import FAULT_COLUMNS

    assert set(FAULT_COLUMNS) == faults


def test_one_wording_per_reason_and_unknown_words_are_no_reason() -> None:
    from bidref.render.timeline import result_text

    assert all(r.cause and r.cause != r.text for r in EndReason)
    assert EndReason.named("crash") is EndReason.CRASH and EndReason.named("boom") is None
    said = result_text({"winner": 1, "reason": "crash", "detail": {"seat": 0}}, ["a", "b"])
    assert said.startswith(f"b (B) wins: {EndReason.CRASH.cause}")
    assert "boom" in result_text({"winner": None, "reason": "boom"}, ["a", "b"])


def test_no_module_keeps_its_own_list_of_end_reasons() -> None:
    # one enum: the old second lists are gone from the modules that had them
    import bidref.render.timeline
    import bidref.tournament.model
    import bidref.transcript.replay.results

    assert not hasattr(bidref.render.timeline, "REASONS")
    assert not hasattr(bidref.tournament.model, "FAULT_REASONS")
    assert not hasattr(bidref.transcript.replay.results, "SEAT_REASONS")
    assert not hasattr(bidref.outcome.reasons, "EndReasonName")
    src = Path(bidref.rules.__file__).with_name("events.py").read_text()
    assert "\nEndReason =" not in src
