"""Every worked layout of the original rules, step by step (layout-examples.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bidref.rules import Layout, Point, Side, point, points_earned, tile

# The rules' worked layouts: the project's copy (bidref/data/SOURCES.md says whence).
EXAMPLES = Path(__file__).resolve().parents[2] / "bidref" / "data" / "layout-examples.json"


def _sequences() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(EXAMPLES.read_text())
    return list(data["sequences"])


def _pt(d: dict[str, Any]) -> Point:
    return point(tile(*d["tile"]), Side[d["side"].upper()])


def _jpt(p: Point) -> dict[str, Any]:
    return {"tile": p.tile.as_list(), "side": p.side.label}


@pytest.mark.parametrize("seq", _sequences(), ids=lambda s: s["name"])
def test_sequence(seq: dict[str, Any]) -> None:
    lay = Layout()
    for n, step in enumerate(seq["steps"], 1):
        t = tile(*step["place"])
        if step["at"] is None:
            count = lay.open_tile(t)
        else:
            at = _pt(step["at"])
            assert at in lay.points_for(t), f"step {n}: {at} is not offered for {t}"
            count = lay.place(t, at)
        exp = step["expect"]
        where = f"{seq['name']} step {n} ({t})"
        spinner = None if lay.spinner is None else lay.spinner.as_list()
        assert spinner == exp["spinner"], where
        got_points = [
            {"tile": p.tile.as_list(), "side": p.side.label, "value": p.value}
            for p in lay.open_points
        ]
        assert got_points == exp["attachment_points"], where
        got_scoring = [{"tile": t.as_list(), "value": v} for t, v in lay.scoring()]
        assert got_scoring == exp["scoring"], where
        assert count == lay.count() == exp["count"], where
        assert points_earned(count) == exp["points"], where
        if "connections" in exp:
            assert [[_jpt(a), _jpt(b)] for a, b in lay.connections] == exp["connections"], where


def test_examples_file_is_there() -> None:
    assert EXAMPLES.exists(), f"missing {EXAMPLES}"
    assert len(_sequences()) >= 4
