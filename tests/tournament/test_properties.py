"""Properties of schedules and standings over many generated cases."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bidref.tournament import (
    EngineEntry,
    MatchRecord,
    MatchReport,
    MatchSettings,
    Plan,
    compute,
    new_header,
)
from bidref.tournament.schedule import gauntlet, round_robin, schedule, seeds_from_master


@given(n=st.integers(2, 7), deals=st.integers(1, 6), fmt=st.sampled_from(["rr", "g"]))
def test_every_pairing_plays_each_deal_once_per_seat(n: int, deals: int, fmt: str) -> None:
    names = [f"e{i}" for i in range(n)]
    pairs = round_robin(names) if fmt == "rr" else gauntlet(names)
    keys = schedule(pairs, seeds_from_master(n, deals))
    assert len(keys) == len(set(keys)) == 2 * deals * len(pairs)
    seat_a = Counter((k.pairing, k.engine_a) for k in keys)
    for p in pairs:
        assert seat_a[(p, p.first)] == seat_a[(p, p.second)] == deals
    games = Counter(name for k in keys for name in (k.engine_a, k.engine_b))
    if fmt == "rr":
        assert set(games.values()) == {2 * deals * (n - 1)}
    else:
        assert games["e0"] == 2 * deals * (n - 1)


OUTCOMES = [
    MatchReport(0, "balance", True),
    MatchReport(1, "balance", True),
    MatchReport(None, "round_limit", True),
    MatchReport(1, "time", True),
    MatchReport(0, "crash", True),
    MatchReport(None, "aborted", False),
    MatchReport(None, "startup", False, fault_seat=1),
]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_standings_do_not_depend_on_the_order_of_records(data: st.DataObject) -> None:
    n = data.draw(st.integers(2, 4))
    engines = [EngineEntry(f"e{i}", "fake") for i in range(n)]
    header = new_header(
        "round-robin",
        engines,
        seeds_from_master(1, 3),
        MatchSettings(),
        master_seed=1,
        deal_book=None,
        created="x",
    )
    plan = Plan(header, Path("/nonexistent"))
    keys = data.draw(st.lists(st.sampled_from(plan.keys), max_size=30))
    outcomes = data.draw(
        st.lists(st.sampled_from(OUTCOMES), min_size=len(keys), max_size=len(keys))
    )
    records = [MatchRecord.of(plan.job(k, 1), o) for k, o in zip(keys, outcomes, strict=True)]
    # a later rated duplicate of a key is ignored, so keep first-rated order fixed
    first_rated: dict[object, MatchRecord] = {}
    for r in records:
        if r.rated:
            first_rated.setdefault(r.key, r)
    canonical = [r for r in records if not r.rated] + list(first_rated.values())
    shuffled = canonical[:]
    random.Random(data.draw(st.integers(0, 10**6))).shuffle(shuffled)
    a = compute(plan.names, plan.pairings, canonical).to_dict()
    b = compute(plan.names, plan.pairings, shuffled).to_dict()
    assert a == b
    total = sum(e["matches"] for e in a["engines"])  # type: ignore[index, union-attr, misc]
    assert total == 2 * len(first_rated)
    pairs = sum(p["pairs"] for p in a["pairs"])  # type: ignore[index, union-attr, misc]
    complete = Counter((k.pairing, k.seed) for k in first_rated)  # type: ignore[attr-defined]
    assert pairs == sum(1 for v in complete.values() if v == 2)
