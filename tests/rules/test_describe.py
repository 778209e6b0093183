"""Snapshots of the plain-text layout description for every worked layout."""

from __future__ import annotations

import json
from pathlib import Path

from syrupy.assertion import SnapshotAssertion

from bidref.rules import Layout, Side, describe_layout, point, tile

# The rules' worked layouts: the project's copy (bidref/data/SOURCES.md says whence).
EXAMPLES = Path(__file__).resolve().parents[2] / "bidref" / "data" / "layout-examples.json"


def test_describe_every_worked_layout(snapshot: SnapshotAssertion) -> None:
    data = json.loads(EXAMPLES.read_text())
    out = []
    for seq in data["sequences"]:
        lay = Layout()
        for n, step in enumerate(seq["steps"], 1):
            t = tile(*step["place"])
            if step["at"] is None:
                lay.open_tile(t)
            else:
                at = step["at"]
                lay.place(t, point(tile(*at["tile"]), Side[at["side"].upper()]))
            out.append(f"== {seq['name']} step {n}\n{describe_layout(lay)}")
    text = "\n\n".join(out)
    assert "Count: 8 (earns nothing)" in text and "spinner [1|1]" in text
    assert text == snapshot


def test_describe_empty_layout() -> None:
    assert describe_layout(Layout()) == "Layout: empty"
