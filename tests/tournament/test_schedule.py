from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bidref.tournament.schedule import (
    MAX_SEED,
    MatchKey,
    Pairing,
    ScheduleError,
    gauntlet,
    pairings,
    read_deal_book,
    round_robin,
    schedule,
    seeds_from_master,
)


@pytest.mark.parametrize("n", [2, 3, 4, 7])
def test_round_robin_meets_every_pair_once(n: int) -> None:
    names = [f"e{i}" for i in range(n)]
    pairs = round_robin(names)
    assert len(pairs) == n * (n - 1) // 2
    assert {frozenset((p.first, p.second)) for p in pairs} == {
        frozenset((a, b)) for a in names for b in names if a < b
    }


def test_gauntlet_is_the_first_engine_against_each_other() -> None:
    pairs = gauntlet(["hero", "x", "y", "z"])
    assert pairs == [Pairing("hero", "x"), Pairing("hero", "y"), Pairing("hero", "z")]
    assert pairings("gauntlet", ["hero", "x"]) == [Pairing("hero", "x")]


def test_names_must_be_unique_and_enough() -> None:
    with pytest.raises(ScheduleError, match="given twice"):
        round_robin(["a", "b", "a"])
    with pytest.raises(ScheduleError, match="at least 2 engines"):
        gauntlet(["a"])
    with pytest.raises(ScheduleError, match="cannot play itself"):
        Pairing("a", "a")


def test_every_deal_is_played_twice_with_seats_swapped() -> None:
    pairs = round_robin(["a", "b", "c"])
    keys = schedule(pairs, [5, 9])
    assert len(keys) == 3 * 2 * 2
    assert len(set(keys)) == len(keys)
    per_deal = Counter((k.pairing, k.seed) for k in keys)
    assert set(per_deal.values()) == {2}
    for first, second in zip(keys[::2], keys[1::2], strict=True):
        assert (first.pairing, first.seed) == (second.pairing, second.seed)
        assert (first.engine_a, first.engine_b) == (second.engine_b, second.engine_a)
    # deal by deal: every pairing plays seed 5 before any plays seed 9
    assert [k.seed for k in keys] == [5] * 6 + [9] * 6


def test_match_key_seats() -> None:
    key = MatchKey(Pairing("a", "b"), 3, 1)
    assert (key.engine_a, key.engine_b) == ("b", "a")
    assert key.id == "a vs b|3|1"
    with pytest.raises(ScheduleError):
        MatchKey(Pairing("a", "b"), 3, 2)


def test_seeds_from_master_are_reproducible_distinct_and_in_range() -> None:
    seeds = seeds_from_master(2026, 500)
    assert seeds == seeds_from_master(2026, 500)
    assert seeds[:10] == seeds_from_master(2026, 10)  # a longer run extends a shorter one
    assert len(set(seeds)) == 500
    assert all(0 <= s <= MAX_SEED for s in seeds)
    assert set(seeds).isdisjoint(seeds_from_master(2027, 500))


def test_deal_book(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("# my deals\n17\n\n  42  # a good one\n7\n", encoding="utf-8")
    assert read_deal_book(book) == [17, 42, 7]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("17\nabc\n", r"book.txt:2: 'abc' is not a deal seed"),
        ("17\n17\n", "already given on line 1"),
        ("-3\n", "out of range"),
        ("# nothing\n", "holds no seeds"),
    ],
)
def test_bad_deal_books_say_what_to_fix(tmp_path: Path, text: str, message: str) -> None:
    book = tmp_path / "book.txt"
    book.write_text(text, encoding="utf-8")
    with pytest.raises(ScheduleError, match=message):
        read_deal_book(book)


def test_missing_deal_book(tmp_path: Path) -> None:
    with pytest.raises(ScheduleError, match="cannot read deal book"):
        read_deal_book(tmp_path / "nope.txt")
