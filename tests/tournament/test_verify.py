"""Counted only when proven (issue 37): a worker's transcript replayed and checked
to be the match asked for, with the result reported (bidref.tournament.verify)."""

from __future__ import annotations

import dataclasses
import gzip
import json
import sys
from pathlib import Path

import pytest

from bidref.tournament import MatchReport
from bidref.tournament.model import EngineEntry, MatchJob, MatchSettings
from bidref.tournament.play import play_match
from bidref.tournament.runner import Plan, new_header
from bidref.tournament.schedule import MatchKey
from bidref.tournament.verify import Proof, Rejection, prove
from tests.sample_build import build_c_engines

REPO = Path(__file__).resolve().parents[2]
C_FIRST = REPO / "sample_engines" / "c_first" / "engine"
GREEDY = REPO / "sample_engines" / "python_greedy" / "engine.py"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[MatchJob, MatchReport]:
    """One real match (C vs Python), its transcript in the report as a worker sends it."""
    if not C_FIRST.exists():
        build_c_engines()
    entries = [
        EngineEntry("c", str(C_FIRST), (str(C_FIRST),)),
        EngineEntry("greedy", str(GREEDY), (sys.executable, str(GREEDY))),
    ]
    settings = MatchSettings(bank_ms=60_000, delay_ms=5_000)
    header = new_header("round-robin", entries, [11], settings, master_seed=1, deal_book=None)
    plan = Plan(header, tmp_path_factory.mktemp("verify"))
    job = plan.job(plan.keys[0], 1)
    report = play_match(job)
    assert report.rated
    data = Path(job.transcript).read_bytes()
    return job, dataclasses.replace(report, outputs=((job.transcript, data),))


def _lines(report: MatchReport) -> list[dict[str, object]]:
    return [json.loads(x) for x in gzip.decompress(report.outputs[0][1]).splitlines()]


def _with_lines(report: MatchReport, lines: list[dict[str, object]]) -> MatchReport:
    text = "\n".join(json.dumps(x, separators=(",", ":")) for x in lines) + "\n"
    return dataclasses.replace(
        report, outputs=((report.outputs[0][0], gzip.compress(text.encode())),)
    )


def _problem(job: MatchJob, report: MatchReport) -> str:
    verdict = prove(job, report)
    assert isinstance(verdict, Rejection), verdict
    return verdict.problem


def test_an_honest_match_is_proven_with_each_seats_time_per_decision(
    played: tuple[MatchJob, MatchReport],
) -> None:
    job, report = played
    proof = prove(job, report)
    assert isinstance(proof, Proof)
    assert proof.decisions > 10 and proof.lines > proof.decisions
    assert all(n > 0 and ns > 0 for ns, n in proof.decision_ns)
    assert sum(n for _, n in proof.decision_ns) == proof.decisions


def test_a_result_the_transcript_does_not_prove_is_rejected(
    played: tuple[MatchJob, MatchReport],
) -> None:
    job, report = played
    assert report.winner is not None
    lied = dataclasses.replace(report, winner=1 - report.winner)
    assert _problem(job, lied).startswith("it reported winner")
    fewer = dataclasses.replace(report, rounds=report.rounds + 1)
    assert "rounds" in _problem(job, fewer)


def test_a_transcript_whose_result_line_is_changed_fails_the_replay(
    played: tuple[MatchJob, MatchReport],
) -> None:
    job, report = played
    lines = _lines(report)
    result = lines[-1]
    assert result["type"] == "result"
    result["winner"] = 1 - int(str(result["winner"]))
    result["balances"] = list(reversed(list(result["balances"])))  # type: ignore[call-overload]
    assert report.winner is not None
    swapped = dataclasses.replace(
        _with_lines(report, lines),
        winner=1 - report.winner,
        balances=(report.balances[1], report.balances[0]),
    )
    assert "fails the replay at line" in _problem(job, swapped)


def test_a_changed_move_fails_the_replay_and_a_cut_transcript_is_incomplete(
    played: tuple[MatchJob, MatchReport],
) -> None:
    job, report = played
    lines = _lines(report)
    reply = next(i for i, x in enumerate(lines) if x["type"] == "reply")
    lines[reply]["action"] = "pass"
    assert "fails the replay at line" in _problem(job, _with_lines(report, lines))
    cut = _lines(report)[:-3]
    assert "incomplete" in _problem(job, _with_lines(report, cut))
    assert _problem(job, dataclasses.replace(report, outputs=())) == (
        "it sent no transcript for a rated result"
    )


def test_another_match_than_the_one_asked_for_is_rejected(
    played: tuple[MatchJob, MatchReport],
) -> None:
    job, report = played
    other_seed = dataclasses.replace(job, key=MatchKey(job.key.pairing, 12, job.key.seat))
    assert "deal seed 11, not 12" in _problem(other_seed, report)
    swapped = dataclasses.replace(job, engine_a=job.engine_b, engine_b=job.engine_a)
    assert "seats ['c', 'greedy'], not ['greedy', 'c']" in _problem(swapped, report)
    slower = dataclasses.replace(job, settings=MatchSettings(bank_ms=120_000, delay_ms=5_000))
    assert "clocks" in _problem(slower, report)
    forfeit = dataclasses.replace(
        job, settings=dataclasses.replace(job.settings, illegal="forfeit")
    )
    assert "illegal-action policy is 'reject', not 'forfeit'" in _problem(forfeit, report)


def test_a_round_limit_or_explicit_deals_the_job_did_not_ask_for_are_rejected(
    played: tuple[MatchJob, MatchReport],
) -> None:
    job, report = played
    limited = dataclasses.replace(job, settings=dataclasses.replace(job.settings, max_rounds=3))
    assert "round limit is None, not 3" in _problem(limited, report)
    # a worker that really played with a limit the job did not set (ends it early)
    short = dataclasses.replace(limited, transcript=job.transcript + ".short.jsonl.gz")
    played_short = play_match(short)
    data = Path(short.transcript).read_bytes()
    played_short = dataclasses.replace(played_short, outputs=((job.transcript, data),))
    assert isinstance(
        prove(short, dataclasses.replace(played_short, outputs=((short.transcript, data),))), Proof
    )
    assert "round limit is 3, not None" in _problem(job, played_short)
    lines = _lines(report)
    lines[0]["explicit_deals"] = 1
    problem = _problem(job, _with_lines(report, lines))
    assert "explicit deals" in problem or "fails the replay" in problem
