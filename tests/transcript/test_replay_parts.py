"""Each part of the replay on its own: the clock, the rules state, what each seat was
sent and answered, engine accounting, the results and the header."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from bidref.match.wire import request_line
from bidref.outcome.details import TimeDetail, decode_detail
from bidref.rules import SECOND, Deal, Match, MatchClock, TimeControl, parse_action
from bidref.transcript import FORMAT, commitment
from bidref.transcript.lines import (
    LINES_CAP,
    RAW_CAP,
    EngineExit,
    Header,
    LogLine,
    PrivateItem,
    Reply,
    Request,
    RequestDigest,
    Result,
    Retry,
    RoundStart,
    SeedReveal,
    Stale,
    TimeControlField,
    Timeout,
    is_cut,
)
from bidref.transcript.lines import cut_raw as cut
from bidref.transcript.reader import Line
from bidref.transcript.replay.accounting import Accounting
from bidref.transcript.replay.clock import ClockCheck
from bidref.transcript.replay.game import GameState
from bidref.transcript.replay.header import check_header
from bidref.transcript.replay.public import PublicRound
from bidref.transcript.replay.report import Mismatch, Recorder, ReplayReport, Reveal
from bidref.transcript.replay.results import check_result, check_seed
from bidref.transcript.replay.seats import SeatProof, reply_raw
from bidref.transcript.writer import request_tag

MS = 1_000_000
TC = TimeControl(bank=10 * SECOND, delay=1 * SECOND)


def _header(**kw: Any) -> Header:
    fields: dict[str, Any] = {
        "seq": 0,
        "t_ns": 0,
        "format": FORMAT,
        "rules": "spectacular-bid/1",
        "protocol": "bidref/1",
        "time_control": TimeControlField(TC.bank, TC.delay),
        "illegal": "reject",
        "seeded": True,
        "seed_commitment": "sha256:x",
    }
    return Header(**(fields | kw))


# -- clock ---------------------------------------------------------------------------


def test_clock_charges_the_delay_then_the_bank() -> None:
    c = ClockCheck(TC)
    c.request(2, Request(seq=1, t_ns=100, seat=0, id=1), 0, 1)
    p, charge = c.clock.charge(0)[0], None  # the clock before the reply
    assert p.delay_left == TC.delay
    pending, charge = c.reply(3, Reply(seq=2, t_ns=100 + 3 * SECOND, seat=0, id=1, action="x"))
    assert (charge.delay_used, charge.bank_used, charge.timed_out) == (SECOND, 2 * SECOND, False)
    assert c.clock.banks[0] == 8 * SECOND and pending.deadline == 100 + 11 * SECOND


def test_clock_refuses_time_going_back_and_a_wrong_deadline() -> None:
    c = ClockCheck(TC)
    c.order(2, False, 500)
    with pytest.raises(Mismatch, match="goes back in time"):
        c.order(3, True, 499)  # a request is never stamped before a line written earlier
    c.order(3, True, 600)
    c.order(4, False, 550)  # a reply may be stamped before its request was (elapsed 0) ...
    with pytest.raises(Mismatch, match="goes back in time"):
        c.order(5, False, 499)  # ... but not before the line preceding the request
    with pytest.raises(Mismatch, match="deadline_ns"):
        c.request(4, Request(seq=3, t_ns=600, seat=0, id=1, deadline_ns=1), 0, 1)


def test_clock_a_reply_after_the_deadline_is_a_time_loss() -> None:
    c = ClockCheck(TC)
    c.request(2, Request(seq=1, t_ns=0, seat=1, id=4), 1, 1)
    _, charge = c.reply(3, Reply(seq=2, t_ns=12 * SECOND, seat=1, id=4, action="x"))
    assert charge.timed_out and c.timed_out == (1, SECOND, 3) and c.pending is None
    c.check_time_loss(9, 1, TimeDetail(seat=1, overrun_ns=SECOND, overrun_ms=1000.0))
    with pytest.raises(Mismatch, match="overrun_ms"):
        c.check_time_loss(9, 1, TimeDetail(seat=1, overrun_ns=SECOND, overrun_ms=1.0))
    with pytest.raises(Mismatch, match="cannot be read: no 'overrun_ms'"):
        c.check_time_loss(9, 1, decode_detail("time", {"seat": 1, "overrun_ns": SECOND}))


def test_clock_retry_and_timeout() -> None:
    c = ClockCheck(TC)
    c.request(2, Request(seq=1, t_ns=0, seat=0, id=1), 0, 1)
    c.reply(3, Reply(seq=2, t_ns=2 * SECOND, seat=0, id=1, status="illegal", rule="§3"))
    with pytest.raises(Mismatch, match="before the rejected reply"):
        c.retry(4, Retry(seq=3, t_ns=SECOND, seat=0, id=1), 2 * SECOND)
    c.retry(4, Retry(seq=3, t_ns=2 * SECOND, seat=0, id=1), 2 * SECOND)
    assert c.pending is not None and c.pending.deadline == 2 * SECOND + 9 * SECOND
    with pytest.raises(Mismatch, match="overrun_ns"):
        c.timeout(5, Timeout(seq=4, t_ns=10 * SECOND, seat=0, overrun_ns=0))
    c.timeout(5, Timeout(seq=4, t_ns=12 * SECOND, seat=0, overrun_ns=SECOND))
    assert c.timed_out == (0, SECOND, 5)


# -- the rules state -------------------------------------------------------------------------


def _game(events_written: bool = False) -> tuple[GameState, ReplayReport, Deal]:
    deal = Deal.from_seed(3, 1)
    salt = "ab" * 32
    reveal = Reveal(9, deal, salt, {}, None, None)
    report = ReplayReport()
    g = GameState(
        Recorder(report),
        {1: reveal},
        1,
        seeded=True,
        explicit_deals=0,
        events_written=events_written,
    )
    return g, report, deal


def _round_start(g: GameState, deal: Deal) -> None:
    ev = g.expected[0]
    pub = ev.public()  # type: ignore[attr-defined]
    rs = RoundStart(
        seq=1,
        t_ns=0,
        round=1,
        deal_commitment=commitment("ab" * 32, deal.to_dict()),
        opening=pub["opening"],
        jockey=pub["jockey"],
        balances=[150, 150],
    )
    assert g.round_start(Line(2, rs), rs) is not None


def test_game_checks_the_commitment_and_derives_the_events() -> None:
    g, report, deal = _game()
    ev = g.expected[0]
    bad = RoundStart(
        seq=1,
        t_ns=0,
        round=1,
        deal_commitment="sha256:0",
        opening=ev.public()["opening"],  # type: ignore[attr-defined]
        jockey=ev.public()["jockey"],
        balances=[150, 150],  # type: ignore[attr-defined]
    )
    with pytest.raises(Mismatch, match="does not open the commitment"):
        g.round_start(Line(2, bad), bad)
    g, report, deal = _game()
    _round_start(g, deal)
    m = g.match
    action = str(m.legal_actions()[0])
    reply = Reply(seq=3, t_ns=5, seat=m.to_act, id=1, action=action)
    g.accept(Line(4, reply), m.to_act, action, "", 3)
    assert report.game.moves == [(1, reply.seat, action)]
    assert g.out.held and g.out.held[0].extra == {"seq": 3, "t_ns": 5}  # derived, after its line


def test_game_refuses_an_illegal_accepted_action_and_a_request_out_of_turn() -> None:
    g, _, deal = _game()
    _round_start(g, deal)
    m = g.match
    with pytest.raises(Mismatch, match="request disagrees"):
        g.request(5, Request(seq=4, t_ns=0, seat=1 - m.to_act, id=1))
    illegal = next(
        a for a in ("open 0-0", "open 6-6", "draw") if parse_action(a) not in m.legal_actions()
    )
    with pytest.raises(Mismatch, match="accepted an illegal action"):
        g.accept(Line(5, Reply(seq=4, t_ns=0, seat=m.to_act, id=1)), m.to_act, illegal, "", 4)


def test_public_round_places_tiles_on_the_public_layout() -> None:
    m = Match.new(3)
    pr = PublicRound(Recorder(ReplayReport()), m)
    pr.events_written = False
    pr.accepted(5, 0, "open 6-6", "")
    assert len(pr.layout.placed) == 1
    with pytest.raises(Mismatch, match="already"):
        pr.accepted(6, 1, "open 5-5", "")


# -- what each seat was sent and answered ------------------------------------------------------


def _match_at_first_request() -> tuple[Match, MatchClock]:
    m = Match.new(11)
    return m, MatchClock.start(TC).begin(m.to_act, m.turn)


def test_seats_regenerate_the_request_line_and_check_its_tag() -> None:
    m, c = _match_at_first_request()
    line = request_line(m, 1, c)
    tag = request_tag(line.encode())
    digest = RequestDigest(1, hashlib.sha256(line.encode() + b"\n").hexdigest(), [tag])
    rev = Reveal(30, Deal.from_seed(11, 1), "", {}, digest, None)
    proof = SeatProof(_header())
    ln = Line(5, Request(seq=4, t_ns=0, seat=m.to_act, id=1))
    assert proof.request(ln, m, c, 1, rev) == line
    proof.round_end(rev)  # the digest holds
    wrong = Reveal(30, rev.deal, "", {}, RequestDigest(1, digest.sha256, ["00000000"]), None)
    with pytest.raises(Mismatch, match="not the one the rules give") as e:
        SeatProof(_header()).request(ln, m, c, 1, wrong)
    assert e.value.line == 5


def test_seats_an_accepted_reply_in_its_seats_spelling_needs_no_raw_line() -> None:
    m, _ = _match_at_first_request()
    action = m.legal_actions()[0]
    r = Reply(seq=6, t_ns=0, seat=m.to_act, id=1, action=str(action))
    forms: list[str | None] = [None, None]
    forms[m.to_act] = "compact"
    rev = Reveal(30, Deal.from_seed(11, 1), "", {}, None, forms)
    found = SeatProof(_header()).accepted(Line(7, r), r, action, rev)
    assert found == "compact"
    assert reply_raw(found, r) == f'{{"type":"action","id":1,"action":"{action}"}}'
    with pytest.raises(Mismatch, match="not shown"):
        SeatProof(_header()).accepted(
            Line(7, r), r, action, Reveal(30, rev.deal, "", {}, None, None)
        )


def test_seats_past_the_cap_a_rejected_reply_may_lack_its_raw_line() -> None:
    m, _ = _match_at_first_request()
    rev = Reveal(30, Deal.from_seed(11, 1), "", {}, None, None)
    proof = SeatProof(_header())
    r = Reply(seq=6, t_ns=0, seat=m.to_act, id=1, status="illegal", rule="§3")
    proof.rejected[m.to_act] = LINES_CAP  # 200 were kept already
    proof.rejected_reply(Line(7, r), r, m, rev)  # the 201st: fine without
    proof.rejected[m.to_act] = 3
    with pytest.raises(Mismatch, match="not shown"):
        proof.rejected_reply(Line(7, r), r, m, rev)


def test_seats_a_cut_raw_line_is_recognised() -> None:
    long = "x" * (RAW_CAP + 5)
    assert is_cut(cut(long)) and not is_cut(long[:RAW_CAP]) and cut("short") == "short"
    m, _ = _match_at_first_request()
    r = Reply(seq=6, t_ns=0, seat=m.to_act, id=1, status="illegal", rule="§3")
    items = {6: [PrivateItem(seq=6, kind="reply_raw", seat=m.to_act, raw=cut(long))]}
    SeatProof(_header()).rejected_reply(
        Line(7, r), r, m, Reveal(30, Deal.from_seed(11, 1), "", items, None, None)
    )


def test_seats_the_hello_settings_are_the_headers() -> None:
    from bidref.transcript.lines import Hello

    sent = (
        '{"type":"hello","seat":0,"settings":{"bank_ms":10000,"delay_ms":1000,'
        '"max_rounds":null,"illegal":"reject"}}'
    )
    h = Hello(seq=1, t_ns=0, seat=0, sent=sent, received="{}", engine={}, elapsed_ns=0)
    SeatProof(_header()).hello(Line(2, h), h)
    with pytest.raises(Mismatch, match="other settings"):
        SeatProof(_header(illegal="forfeit")).hello(Line(2, h), h)


# -- engine accounting ------------------------------------------------------------------------


def test_accounting_caps_and_exit_counts() -> None:
    a = Accounting(Recorder(ReplayReport()))
    for i in range(LINES_CAP):
        a.log(
            Line(i + 2, LogLine(seq=i + 1, t_ns=0, seat=1, chars=3)),
            LogLine(seq=i + 1, t_ns=0, seat=1, chars=3),
            None,
        )
    with pytest.raises(Mismatch, match=f"at most {LINES_CAP}"):
        a.log(
            Line(999, LogLine(seq=998, t_ns=0, seat=1, chars=3)),
            LogLine(seq=998, t_ns=0, seat=1, chars=3),
            None,
        )
    with pytest.raises(Mismatch, match="log_lines 5"):
        a.engine_exit(1000, EngineExit(seq=999, t_ns=0, seat=1, how="quit", log_lines=5), [0, 0])
    a.stale(3, Stale(seq=2, t_ns=0, seat=0, id=1, pending=2), None)
    assert a.out.report.logs[0].t_ns == 0 and "not revealed" in a.out.report.logs[0].text


# -- results and the header ---------------------------------------------------------------


def test_results_the_seed_must_open_its_commitment() -> None:
    g, _, _ = _game()
    h = _header(seed_commitment=commitment("cd", {"seed": 3}))
    check_seed(9, SeedReveal(seq=8, t_ns=0, seed=3, salt="cd"), h, g)
    with pytest.raises(Mismatch, match="does not open"):
        check_seed(9, SeedReveal(seq=8, t_ns=0, seed=4, salt="cd"), h, g)


def test_results_a_result_the_game_does_not_prove_is_refused() -> None:
    g, report, deal = _game()
    _round_start(g, deal)
    clock = ClockCheck(TC)
    acct = Accounting(Recorder(report))
    res = Result(
        seq=9, t_ns=0, winner=0, reason="balance", balances=[150, 150], rounds=1, rated=True
    )
    with pytest.raises(Mismatch, match="not over"):
        check_result(
            10, res, _header(), g, clock, acct, seed_revealed=True, last_reply=None, rejection=None
        )
    res = Result(
        seq=9,
        t_ns=0,
        winner=0,
        reason="resign",
        balances=[150, 150],
        rounds=1,
        rated=True,
        detail={"seat": 1},
    )
    with pytest.raises(Mismatch, match="no resign line"):
        check_result(
            10, res, _header(), g, clock, acct, seed_revealed=True, last_reply=None, rejection=None
        )
    res = Result(
        seq=9, t_ns=0, winner=None, reason="aborted", balances=[150, 150], rounds=1, rated=False
    )
    assert "aborted" in check_result(
        10, res, _header(), g, clock, acct, seed_revealed=True, last_reply=None, rejection=None
    )


def test_header_checks() -> None:
    assert check_header(1, _header()) == (TC, None)
    for bad, what in (
        ({"format": "bidref-transcript/9"}, "format"),
        ({"illegal": "maybe"}, "policy"),
        ({"seeded": False}, "disagree"),
        ({"max_rounds": 0}, "round limit"),
    ):
        with pytest.raises(Mismatch, match=what):
            check_header(1, _header(**bad))
