"""Every worked example of RULES.md, played through the rules core.

The score sheets below were found by playing seeded deals; they are kept as
literal action lists so that a change to the deal algorithm or the rules shows
up here as a failure, not as a silently different game.
"""

from __future__ import annotations

import pytest

from bidref.rules import (
    DECLINE,
    SECOND,
    TILES,
    Accept,
    Bid,
    Deal,
    IllegalActionError,
    Match,
    MatchClock,
    MatchConfig,
    MatchEnded,
    Phase,
    RoundEnded,
    TimeControl,
    Transfer,
    forced_opening_tile,
    parse_action,
    round_to_five,
    tile,
)

from .helpers import play_out

BLOCK_4_VS_18 = (
    7026,
    [
        "open 4-4",
        "play 3-4 4-4:line_b",
        "play 3-5 3-4:low",
        "play 4-5 3-5:high",
        "play 1-4 4-5:low",
        "play 2-4 4-4:line_a",
        "play 1-6 1-4:low",
        "play 4-6 1-6:high",
        "draw",
        "draw",
        "play 2-3 2-4:low",
        "play 0-4 4-4:branch_b",
        "play 0-5 0-4:low",
        "draw",
        "draw",
        "play 3-6 2-3:high",
        "play 5-6 3-6:high",
        "draw",
        "draw",
        "draw",
        "play 5-5 5-6:low",
        "draw",
        "draw",
        "draw",
        "draw",
        "draw",
        "draw",
        "play 1-5 5-5:line_b",
        "play 1-2 1-5:low",
        "play 0-2 1-2:high",
        "play 0-0 0-2:low",
        "play 0-1 0-0:line_b",
        "draw",
        "play 2-5 0-5:high",
        "play 1-1 0-1:high",
        "play 2-6 2-5:low",
        "play 1-3 1-1:line_b",
        "play 0-6 2-6:high",
        "play 0-3 1-3:high",
    ],
)
BLOCK_6_VS_6 = (
    10435,
    [
        "open 4-4",
        "play 2-4 4-4:line_b",
        "play 2-5 2-4:low",
        "play 0-5 2-5:high",
        "play 0-4 4-4:line_a",
        "play 0-1 0-5:low",
        "play 1-5 0-1:high",
        "play 0-6 0-4:low",
        "play 1-6 0-6:high",
        "play 1-2 1-6:low",
        "play 2-3 1-2:high",
        "play 3-6 2-3:high",
        "draw",
        "draw",
        "draw",
        "draw",
        "draw",
        "play 4-5 4-4:branch_b",
        "draw",
        "play 6-6 3-6:high",
        "draw",
        "play 2-6 6-6:line_b",
        "draw",
        "play 1-4 4-4:branch_a",
        "play 1-3 1-4:low",
        "draw",
        "play 3-4 1-3:high",
        "play 0-2 2-6:low",
        "draw",
        "play 3-5 1-5:high",
        "play 0-0 0-2:low",
        "draw",
        "play 5-5 4-5:high",
        "play 0-3 3-5:low",
        "draw",
        "play 4-6 3-4:high",
        "draw",
        "play 5-6 5-5:line_b",
        "draw",
    ],
)
BLOCK_7_VS_17 = (
    1565,
    [
        "open 5-5",
        "play 3-5 5-5:line_b",
        "play 5-6 5-5:line_a",
        "play 3-6 5-6:high",
        "play 3-4 3-6:low",
        "play 2-4 3-4:high",
        "play 2-6 2-4:low",
        "play 1-6 2-6:high",
        "draw",
        "draw",
        "draw",
        "play 1-3 1-6:low",
        "draw",
        "draw",
        "play 3-3 1-3:high",
        "draw",
        "play 1-5 5-5:branch_a",
        "play 1-2 1-5:low",
        "play 0-2 1-2:high",
        "draw",
        "play 0-3 0-2:low",
        "draw",
        "draw",
        "play 4-5 5-5:branch_b",
        "play 4-6 4-5:low",
        "play 6-6 4-6:high",
        "draw",
        "draw",
        "play 2-3 3-5:low",
        "play 0-6 6-6:line_b",
        "play 2-5 2-3:low",
        "play 0-0 0-6:low",
        "draw",
        "play 0-5 0-0:line_b",
        "draw",
        "draw",
    ],
)
# Round 1 of seed 1 ends with player A's domino: A is the jockey of round 2.
DOMINO_BY_A = (
    1,
    [
        "open 6-6",
        "play 3-6 6-6:line_a",
        "play 0-3 3-6:low",
        "play 0-5 0-3:low",
        "play 1-5 0-5:high",
        "play 1-4 1-5:low",
        "play 1-6 6-6:line_b",
        "play 3-4 1-4:high",
        "play 2-6 6-6:branch_a",
        "play 2-2 2-6:low",
        "play 5-6 6-6:branch_b",
        "play 3-3 3-4:low",
        "play 4-5 5-6:low",
    ],
)


def _block(events: list[object]) -> tuple[RoundEnded, list[Transfer]]:
    ended = [e for e in events if isinstance(e, RoundEnded)]
    assert len(ended) == 1 and ended[0].reason == "block"
    return ended[0], [e for e in events if isinstance(e, Transfer) and e.reason == "block"]


def test_block_4_vs_18_pays_20() -> None:
    seed, actions = BLOCK_4_VS_18
    ended, transfers = _block(play_out(Match.new(seed), actions))
    assert ended.pips == (18, 4) and ended.winner == 1 and ended.payout == 20
    assert [(t.payer, t.payee, t.amount) for t in transfers] == [(0, 1, 20)]


def test_block_17_rounds_to_15() -> None:
    seed, actions = BLOCK_7_VS_17
    ended, transfers = _block(play_out(Match.new(seed), actions))
    assert ended.pips == (7, 17) and ended.winner == 0 and ended.payout == 15
    assert [(t.payer, t.payee, t.amount) for t in transfers] == [(1, 0, 15)]


def test_block_6_vs_6_pays_nothing_and_next_round_is_forced() -> None:
    seed, actions = BLOCK_6_VS_6
    m = Match.new(seed)
    ended, transfers = _block(play_out(m, actions))
    assert ended.pips == (6, 6) and ended.winner is None and transfers == []
    assert m.round_number == 2 and m.phase is Phase.OPENING and m.jockey is None


def test_rounding_to_nearest_five() -> None:
    assert [round_to_five(n) for n in (0, 1, 2, 3, 4, 17, 18, 22, 23)] == [
        0,
        0,
        0,
        5,
        5,
        15,
        20,
        20,
        25,
    ]


def _round_two_auction() -> Match:
    seed, actions = DOMINO_BY_A
    m = Match.new(seed)
    events = play_out(m, actions)
    assert any(isinstance(e, RoundEnded) and e.reason == "domino" and e.winner == 0 for e in events)
    assert m.phase is Phase.AUCTION and m.jockey == 0 and m.to_act == 1
    return m


def test_jockeys_accepted_bid_of_20_costs_5() -> None:
    m = _round_two_auction()
    before = list(m.balances)
    m.apply(Bid(15))  # the non-jockey bids
    m.apply(Bid(20))  # the jockey raises
    events = m.apply(Accept())
    (t,) = [e for e in events if isinstance(e, Transfer)]
    assert (t.payer, t.payee, t.requested, t.amount) == (0, 1, 5, 5)
    assert m.balances == [before[0] - 5, before[1] + 5]
    assert m.phase is Phase.OPENING and m.to_act == 0
    assert len(m.legal_actions()) == 7  # any tile of the jockey's hand


def test_non_jockeys_accepted_bid_costs_all_of_it() -> None:
    m = _round_two_auction()
    before = list(m.balances)
    m.apply(Bid(25))
    m.apply(Accept())
    assert m.balances == [before[0] + 25, before[1] - 25]
    assert m.to_act == 1 and m.phase is Phase.OPENING


def test_decline_lets_the_jockey_open_free() -> None:
    m = _round_two_auction()
    before = list(m.balances)
    m.apply(m.legal_actions()[0])  # decline
    assert m.balances == before and m.to_act == 0 and m.phase is Phase.OPENING


def test_after_a_bid_only_accept_or_raise() -> None:
    m = _round_two_auction()
    m.apply(Bid(15))
    kinds = {a.kind for a in m.legal_actions()}
    assert kinds == {"accept", "bid"}
    with pytest.raises(IllegalActionError, match="accept or raise"):
        m.apply(DECLINE)


def test_cap_of_20_against_balance_of_5_ends_the_match() -> None:
    m = Match.new(4, MatchConfig(start_balances=(295, 5)))
    events = play_out(
        m,
        [
            "open 6-6",
            "draw",
            "draw",
            "play 0-6 6-6:line_a",
            "play 0-1 0-6:low",
            "play 1-1 0-1:high",
            "play 1-4 1-1:line_b",
            "play 4-4 1-4:high",
        ],
    )
    (t,) = [e for e in events if isinstance(e, Transfer)]
    assert (t.payer, t.requested, t.amount) == (1, 20, 5)
    assert m.over and m.balances == [300, 0]
    assert m.result == MatchEnded(0, "balance", (300, 0), 1)
    assert events[-1] == m.result


def test_clock_8s_costs_nothing_13s_costs_3s() -> None:
    c = MatchClock.start(TimeControl.of_seconds(bank=120, delay=10)).begin(0, turn=1)
    c, ch = c.charge(8 * SECOND)
    assert (ch.delay_used, ch.bank_used, c.banks[0]) == (8 * SECOND, 0, 120 * SECOND)
    c = c.begin(0, turn=2)  # a genuine new turn: fresh delay, not a fresh bank
    c, ch = c.charge(13 * SECOND)
    assert (ch.bank_used, c.banks[0]) == (3 * SECOND, 117 * SECOND)


def _deal(h0: list[tuple[int, int]], h1: list[tuple[int, int]]) -> Deal:
    rest = [t for t in TILES if (t.low, t.high) not in set(h0) | set(h1)]
    return Deal.from_lists(h0, h1, [t.as_list() for t in rest])


def test_forced_opening_highest_double() -> None:
    d = _deal(
        [(0, 1), (2, 2), (3, 5), (1, 4), (0, 6), (2, 6), (1, 5)],
        [(5, 5), (0, 0), (1, 2), (3, 4), (4, 6), (0, 2), (1, 3)],
    )
    assert forced_opening_tile(d.hands) == (1, tile(5, 5))
    m = Match.from_deal(d)
    assert m.to_act == 1 and [str(a) for a in m.legal_actions()] == ["open 5-5"]


def test_forced_opening_without_doubles_and_the_equal_total_tie() -> None:
    # No doubles dealt; [3|6] and [4|5] both total 9: the larger half wins.
    d = _deal(
        [(0, 1), (4, 5), (0, 2), (1, 4), (0, 3), (2, 4), (1, 5)],
        [(3, 6), (1, 2), (2, 3), (0, 4), (1, 3), (0, 5), (2, 5)],
    )
    assert forced_opening_tile(d.hands) == (1, tile(3, 6))
    m = Match.from_deal(d)
    with pytest.raises(IllegalActionError, match="forced opening"):
        m.apply(parse_action("open 1-2"))


def test_first_jockey_starts_with_an_auction() -> None:
    m = Match.new(3, MatchConfig(first_jockey=1))
    assert m.phase is Phase.AUCTION and m.jockey == 1 and m.to_act == 0
    assert [str(a) for a in m.legal_actions()[:3]] == ["decline", "bid 15", "bid 20"]
    assert str(m.legal_actions()[-1]) == "bid 150"  # the non-jockey's whole balance
    m.apply(Bid(15))
    assert str(m.legal_actions()[-1]) == "bid 165"  # the jockey's balance plus the credit


def test_paying_the_whole_balance_in_the_auction_loses_before_the_opening() -> None:
    m = Match.new(3, MatchConfig(first_jockey=1))
    m.apply(Bid(150))
    events = m.apply(Accept())
    assert m.over and m.result == MatchEnded(1, "balance", (0, 300), 1)
    assert [e.kind for e in events] == ["auction", "transfer", "round_ended", "match_ended"]
    assert len(m.layout) == 0
