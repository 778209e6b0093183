from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from bidref.tournament import EngineEntry, MatchSettings, Plan, Sprt, new_header, seeds_from_master
from bidref.tournament.schedule import Format

MakePlan = Callable[..., Plan]


@pytest.fixture
def make_plan(tmp_path: Path) -> MakePlan:
    def make(
        specs: Sequence[tuple[str, str]] = (("alpha", "fake strength=2"), ("beta", "fake")),
        *,
        deals: int = 5,
        fmt: Format = "round-robin",
        sprt: Sprt | None = None,
        out: Path | None = None,
    ) -> Plan:
        engines = [EngineEntry(n, s) for n, s in specs]
        seeds = seeds_from_master(7, deals)
        header = new_header(
            fmt,
            engines,
            seeds,
            MatchSettings(bank_ms=2000, delay_ms=50),
            master_seed=7,
            deal_book=None,
            sprt=sprt,
            created="2026-01-01T00:00:00+00:00",
        )
        return Plan(header, out or tmp_path / "out")

    return make
