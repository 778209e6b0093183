from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bidref.rules import SECOND, MatchClock, TimeControl, seconds

TC = TimeControl.of_seconds(bank=120, delay=10)


def test_timeout_exactly_at_the_deadline() -> None:
    c = MatchClock.start(TC).begin(1, turn=5)
    started = 1_000 * SECOND
    assert c.deadline(started) == started + 130 * SECOND
    _, ch = c.charge(130 * SECOND - 1)
    assert not ch.timed_out and ch.bank_used == 120 * SECOND - 1
    c2, ch = c.charge(130 * SECOND)
    assert ch.timed_out and ch.overrun == 0 and c2.banks[1] == 0
    _, ch = c.charge(131 * SECOND)
    assert ch.timed_out and ch.overrun == SECOND


def test_draws_in_one_turn_share_one_delay() -> None:
    c = MatchClock.start(TC).begin(0, turn=3)
    c, _ = c.charge(6 * SECOND)  # thinks, then draws
    c = c.begin(0, turn=3)  # the same turn after the draw: no fresh delay
    assert c.delay_left == 4 * SECOND
    c, ch = c.charge(7 * SECOND)  # 4 s of delay left, then 3 s of bank
    assert (ch.delay_used, ch.bank_used, c.banks[0]) == (4 * SECOND, 3 * SECOND, 117 * SECOND)


def test_the_bank_is_never_refilled_and_each_player_has_one() -> None:
    c = MatchClock.start(TC).begin(0, turn=1)
    c, _ = c.charge(50 * SECOND)
    c = c.begin(1, turn=2)
    c, _ = c.charge(15 * SECOND)
    c = c.begin(0, turn=3)
    assert c.banks == (80 * SECOND, 115 * SECOND) and c.available() == 90 * SECOND


def test_fractional_seconds_and_bad_input() -> None:
    assert seconds(0.05) == 50_000_000
    with pytest.raises(ValueError):
        TimeControl.of_seconds(bank=-1, delay=1)
    with pytest.raises(ValueError):
        MatchClock.start(TC).begin(0, 1).charge(-1)


@given(
    delay=st.integers(0, 20 * SECOND),
    banks=st.tuples(st.integers(0, 200 * SECOND), st.integers(0, 200 * SECOND)),
    player=st.integers(0, 1),
    delay_used=st.integers(0, 20 * SECOND),
    elapsed=st.integers(0, 300 * SECOND),
)
def test_spend_is_charge_without_the_record(
    delay: int, banks: tuple[int, int], player: int, delay_used: int, elapsed: int
) -> None:
    c = MatchClock(
        TimeControl(bank=200 * SECOND, delay=delay), banks, player, 7, max(delay - delay_used, 0)
    )
    after, ch = c.charge(elapsed)
    assert c.spend(elapsed) == after
    available = c.available()
    # what was used is what was thought, up to what there was; the rest stays
    assert ch.delay_used + ch.bank_used == min(elapsed, available)
    assert ch.delay_used == min(elapsed, c.delay_left)
    assert ch.timed_out == (elapsed >= available)
    assert ch.overrun == (elapsed - available if elapsed >= available else 0)
    assert after.banks[1 - player] == banks[1 - player]
    assert after.available() == max(available - elapsed, 0)
