"""python_greedy's auction: it bids with a strong hand, but never a bid that would
cost its whole balance (accepted, that loses the match at once, RULES.md §6.6)."""

from __future__ import annotations

from typing import Any

from sample_engines.python_greedy.engine import choose

STRONG_HAND = [[0, 5], [1, 4], [2, 3], [0, 0], [5, 5], [1, 6], [2, 6]]


def auction(balance: int, legal: list[str], *, jockey: int | None) -> dict[str, Any]:
    view = {
        "player": 0,
        "phase": "auction",
        "hand": STRONG_HAND,
        "jockey": jockey,
        "balances": [balance, 300 - balance],
        "legal_actions": legal,
    }
    return {"view": view, "legal": legal}


def test_greedy_bids_the_cheapest_bid_with_a_strong_hand() -> None:
    assert choose(auction(150, ["decline", "bid 15", "bid 20"], jockey=1)) == "bid 15"


def test_greedy_never_bids_its_whole_balance() -> None:
    # Non-jockey with 15: a bid of 15 accepted would cost all 15.
    assert choose(auction(15, ["decline", "bid 15"], jockey=1)) == "decline"
    # Jockey with 5 answering a bid of 15: raising to 20 costs 20 - 15 = 5, all of it.
    assert choose(auction(5, ["accept", "bid 20"], jockey=0)) == "accept"
    # With one point more, the same bids are affordable.
    assert choose(auction(16, ["decline", "bid 15"], jockey=1)) == "bid 15"
    assert choose(auction(6, ["accept", "bid 20"], jockey=0)) == "bid 20"
