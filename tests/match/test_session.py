"""bidref.match.session: the judged wait and the per-seat clock arithmetic it relies on."""

from __future__ import annotations

import doctest

import pytest

import bidref.match.session
from bidref.match.session import judge
from bidref.rules import MILLISECOND, SECOND, MatchClock, TimeControl

MS = MILLISECOND


def test_session_doctests() -> None:
    assert doctest.testmod(bidref.match.session).failed == 0


@pytest.mark.parametrize(
    ("after", "read", "verdict"),
    [
        (0, 99, "in_time"),  # read before the deadline
        (0, 100, "band"),  # exactly at it: may have come in time, within the tolerance
        (0, 101, "band"),
        (99, 101, "band"),
        (0, 102, "unjudgeable"),  # more than the tolerance late, last empty look before
        (100, 101, "late"),  # an empty look at the deadline: proven late
        (150, 5000, "late"),  # however late the look that found it
    ],
)
def test_the_verdicts_at_the_edges(after: int, read: int, verdict: str) -> None:
    assert judge(100, after, read, tolerance_ns=1) == verdict


def test_a_zero_tolerance_counts_nothing_read_at_the_deadline() -> None:
    assert judge(100, 0, 100, 0) == "band"  # exactly at it, when it may have come before
    assert judge(100, 0, 101, 0) == "unjudgeable"


def test_per_seat_time_controls_give_each_player_its_delay_and_bank() -> None:
    a, b = TimeControl(bank=2 * SECOND, delay=100 * MS), TimeControl(bank=SECOND, delay=0)
    c = MatchClock.start(TimeControl(), (a, b))
    assert c.banks == (2 * SECOND, SECOND)
    c = c.begin(1, turn=1)
    assert c.delay_left == 0 and c.available() == SECOND
    c, charge = c.charge(300 * MS)
    assert charge.bank_used == 300 * MS and c.banks == (2 * SECOND, 700 * MS)
    c = c.begin(0, turn=2)
    assert c.delay_left == 100 * MS and c.available() == 2100 * MS
    assert c.control_of(0) == a and c.control_of(1) == b
    # equal controls are a seat-equal match: nothing per seat is kept
    assert MatchClock.start(a, (a, a)).controls is None
