"""The replay's decisions (request, reply, retry, timeout: :mod:`.replay.decisions`) and
the fold's dispatch of each line to its part (:mod:`.replay.fold`)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from bidref.match.wire import request_line
from bidref.rules import SECOND, Deal, TimeControl
from bidref.transcript import FORMAT, commitment
from bidref.transcript.lines import (
    Header,
    Reply,
    Request,
    RequestDigest,
    Retry,
    RoundStart,
    TimeControlField,
    Timeout,
)
from bidref.transcript.reader import Line
from bidref.transcript.replay import replay
from bidref.transcript.replay.clock import ClockCheck
from bidref.transcript.replay.decisions import Decisions
from bidref.transcript.replay.game import GameState
from bidref.transcript.replay.report import Mismatch, Recorder, ReplayReport, Reveal
from bidref.transcript.replay.seats import SeatProof
from bidref.transcript.writer import request_tag
from tests.transcript.scripted_seats import referee_transcript

TC = TimeControl(bank=10 * SECOND, delay=1 * SECOND)
SALT = "ab" * 32


def _header(illegal: str = "reject") -> Header:
    return Header(
        seq=0,
        t_ns=0,
        format=FORMAT,
        rules="spectacular-bid/1",
        protocol="bidref/1",
        time_control=TimeControlField(TC.bank, TC.delay),
        illegal=illegal,
        seeded=True,
        seed_commitment="sha256:x",
    )


def _decisions(illegal: str = "reject") -> tuple[Decisions, ReplayReport, Reveal]:
    """Decisions at the first request of round 1 of a seeded deal, the reveal proving
    that request's line."""
    deal = Deal.from_seed(3, 1)
    report = ReplayReport()
    out = Recorder(report, steps=False)
    reveals: dict[int, Reveal] = {1: Reveal(9, deal, SALT, {}, None, None)}
    game = GameState(out, reveals, 1, seeded=True, explicit_deals=0, events_written=False)
    m = game.match  # its first request: the line the rules give
    clock = ClockCheck(TC)
    raw = request_line(m, 1, clock.clock.begin(m.to_act, m.turn)).encode()
    sha = hashlib.sha256(raw + b"\n").hexdigest()
    proof = RequestDigest(1, sha, [request_tag(raw)])
    rev = reveals[1] = Reveal(9, deal, SALT, {}, proof, ["compact", "compact"])
    ev = game.expected[0]
    pub = ev.public()  # type: ignore[attr-defined]
    rs = RoundStart(
        seq=1,
        t_ns=0,
        round=1,
        deal_commitment=commitment(SALT, deal.to_dict()),
        opening=pub["opening"],
        jockey=pub["jockey"],
        balances=[150, 150],
    )
    game.round_start(Line(2, rs), rs)
    dec = Decisions(out, game, clock, SeatProof(_header(illegal)), retries=illegal == "reject")
    return dec, report, rev


def _request(dec: Decisions, t: int = 100) -> Request:
    r = Request(seq=2, t_ns=t, seat=dec.game.match.to_act, id=1)
    dec.request(Line(3, r), r)
    return r


def test_a_request_and_its_accepted_reply_move_the_game_clock_and_proof() -> None:
    dec, report, rev = _decisions()
    r = _request(dec)
    assert dec.clock.pending is not None and dec.clock.pending.seat == r.seat
    action = str(dec.game.match.legal_actions()[0])
    reply = Reply(seq=3, t_ns=100 + SECOND // 2, seat=r.seat, id=1, action=action)
    dec.reply(Line(4, reply), reply)
    assert report.decisions == 1 and dec.clock.pending is None
    assert report.game.moves == [(1, r.seat, action)]
    assert dec.clock.clock.delay_left == SECOND // 2  # half the delay used
    dec.seats.round_end(rev)  # the one request line hashes to the round's digest


def test_a_request_line_other_than_the_rules_give_is_refused_at_its_line() -> None:
    dec, _, rev = _decisions()
    assert rev.requests is not None
    rev.requests.tags[0] = "00000000"
    with pytest.raises(Mismatch, match="not the one the rules give") as e:
        _request(dec)
    assert e.value.line == 3


def test_an_accepted_reply_names_no_rule_and_a_rejected_one_shows_no_action() -> None:
    dec, _, _ = _decisions()
    r = _request(dec)
    action = str(dec.game.match.legal_actions()[0])
    bad = Reply(seq=3, t_ns=200, seat=r.seat, id=1, action=action, rule="§3")
    with pytest.raises(Mismatch, match="names a broken rule"):
        dec.reply(Line(4, bad), bad)
    dec, _, _ = _decisions()
    r = _request(dec)
    shown = Reply(seq=3, t_ns=200, seat=r.seat, id=1, status="illegal", action="x", rule="§3")
    with pytest.raises(Mismatch, match="private until"):
        dec.reply(Line(4, shown), shown)


def test_a_retry_needs_a_rejected_reply_and_the_reject_policy() -> None:
    dec, _, _ = _decisions()
    r = _request(dec)
    retry = Retry(seq=3, t_ns=300, seat=r.seat, id=1)
    with pytest.raises(Mismatch, match="no rejected reply is pending"):
        dec.retry(Line(4, retry), retry)
    dec, _, _ = _decisions("forfeit")
    r = _request(dec)
    dec.last_reply = Reply(seq=3, t_ns=200, seat=r.seat, id=1, status="illegal", rule="§3")
    with pytest.raises(Mismatch, match="policy is 'forfeit'"):
        dec.retry(Line(5, retry), retry)


def test_a_timeout_ends_the_pending_decision_after_its_deadline() -> None:
    dec, _, _ = _decisions()
    r = _request(dec, t=0)
    deadline = TC.delay + TC.bank
    early = Timeout(seq=3, t_ns=deadline - 1, seat=r.seat, overrun_ns=0)
    with pytest.raises(Mismatch, match="deadline was"):
        dec.timeout(Line(4, early), early)
    late = Timeout(seq=3, t_ns=deadline + 5, seat=r.seat, overrun_ns=5)
    dec.timeout(Line(4, late), late)
    assert dec.clock.pending is None and dec.clock.timed_out == (r.seat, 5, 4)


# -- the fold: which line goes where, and what has no place --------------------------------


@pytest.fixture(scope="module")
def v2_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    path = Path(tmp_path_factory.mktemp("fold")) / "t.jsonl"
    data = referee_transcript(path, seed=4, max_rounds=1, format=FORMAT)
    return data.decode().splitlines()


def _replayed(lines: list[str]) -> ReplayReport:
    return replay(("\n".join(lines) + "\n").encode(), steps=False)


def test_the_fold_replays_a_clean_transcript(v2_lines: list[str]) -> None:
    report = _replayed(v2_lines)
    assert report.ok and report.verified_lines == len(v2_lines) and report.decisions > 0


def test_the_fold_refuses_a_first_line_that_is_no_header(v2_lines: list[str]) -> None:
    first = json.loads(v2_lines[1]) | {"seq": 0}
    report = _replayed([json.dumps(first), *v2_lines[2:]])
    assert report.problem is not None and report.problem.line == 1
    assert "a transcript starts with its header" in report.problem.message


def test_the_fold_refuses_a_line_after_the_result_and_a_second_header(
    v2_lines: list[str],
) -> None:
    extra = json.loads(v2_lines[1]) | {"seq": len(v2_lines)}
    report = _replayed([*v2_lines, json.dumps(extra)])
    assert report.problem is not None and report.problem.line == len(v2_lines) + 1
    assert "after the result line" in report.problem.message
    again = json.loads(v2_lines[0]) | {"seq": 1, "t_ns": 1}
    report = _replayed([v2_lines[0], json.dumps(again), *v2_lines[2:]])
    assert report.problem is not None and "unknown or repeated line type 'header'" in (
        report.problem.message
    )


def test_the_fold_checks_seq_before_the_line_type(v2_lines: list[str]) -> None:
    wrong = json.loads(v2_lines[3]) | {"seq": 99}
    report = _replayed([*v2_lines[:3], json.dumps(wrong), *v2_lines[4:]])
    assert report.problem is not None and report.problem.line == 4
    assert "seq is 99, but this is line 4" in report.problem.message


def test_the_fold_refuses_a_new_round_after_one_never_revealed(v2_lines: list[str]) -> None:
    """Without its reveal, round 1 is checked for its public facts only, and the
    transcript must stop inside it: a result line has no place."""
    kept = [ln for ln in v2_lines if json.loads(ln)["type"] != "round_reveal"]
    kept = [json.dumps(json.loads(ln) | {"seq": i}) for i, ln in enumerate(kept)]
    report = _replayed(kept)
    assert report.problem is not None
    assert "deal is never revealed, but the transcript goes on" in report.problem.message
