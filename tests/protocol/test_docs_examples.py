"""Every action the protocol docs and the schema show is real bidref notation, and
the docs' worked examples (sides, orientation, points) are what the rules do."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bidref.rules import parse_action, parse_tile
from bidref.rules.layout import Layout, parse_point, points_earned

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = (ROOT / "protocols" / "PROTOCOL.md").read_text(encoding="utf-8")
SCHEMA = json.loads((ROOT / "protocols" / "bidref-1.schema.json").read_text(encoding="utf-8"))

_VERB = r"(?:decline|accept|bid \d+|open \d-\d|draw|play \d-\d \d-\d:\w+)"


def _doc_actions() -> list[str]:
    found = re.findall(rf"`({_VERB})`", PROTOCOL)  # inline code
    found += re.findall(r'"action":\s*"([^"]*)"', PROTOCOL)  # example lines
    found += re.findall(r'"legal(?:_actions)?":\[([^\]]*)\]', PROTOCOL)
    out: list[str] = []
    for f in found:
        out += re.findall(r'"([^"]+)"', f) if f.startswith('"') else [f]
    return out


def _schema_texts(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [t for v in node.values() for t in _schema_texts(v)]
    if isinstance(node, list):
        return [t for v in node for t in _schema_texts(v)]
    return [node] if isinstance(node, str) else []


def _schema_actions() -> list[str]:
    out: list[str] = []
    for text in _schema_texts(SCHEMA):
        out += re.findall(rf"'({_VERB})'", text)
    return out


@pytest.mark.parametrize("source", ["docs", "schema"])
def test_every_example_action_is_canonical_notation(source: str) -> None:
    actions = _doc_actions() if source == "docs" else _schema_actions()
    assert len(actions) >= (20 if source == "docs" else 2), actions
    for text in actions:
        assert str(parse_action(text)) == text, text


def test_the_schema_no_longer_shows_a_non_action() -> None:
    assert not any("1-1:b'" in t for t in _schema_texts(SCHEMA))


def test_the_view_is_typed_in_the_schema() -> None:
    defs = SCHEMA["$defs"]
    assert defs["Request"]["properties"]["view"]["$ref"] == "#/$defs/View"
    view = defs["View"]["properties"]
    assert {"hand", "layout", "legal_actions", "auction", "balances"} <= set(view)
    point = defs["PointModel"]["properties"]["side"]
    assert set(point["enum"]) == {"high", "low", "line_a", "line_b", "branch_a", "branch_b"}
    assert "legal_points" in defs["Request"]["properties"]
    assert "features" in defs["EngineHello"]["properties"]


def _open_after(steps: list[str]) -> set[str]:
    lay = Layout()
    for step in steps:
        a = parse_action(step)
        if step.startswith("open"):
            lay.open_tile(a.tile)  # type: ignore[attr-defined]
        else:
            lay.place(a.tile, a.at)  # type: ignore[attr-defined]
    return {str(p) for p in lay.open_points}


def test_the_orientation_examples_are_what_the_rules_do() -> None:
    assert _open_after(["open 3-6"]) == {"3-6:high", "3-6:low"}
    assert _open_after(["open 5-5"]) == {"5-5:line_a", "5-5:line_b"}
    assert "4-6:low" in _open_after(["open 6-6", "play 4-6 6-6:line_a"])
    after = _open_after(["open 6-6", "play 4-6 6-6:line_a", "play 3-4 4-6:low"])
    assert "3-4:low" in after and "4-6:low" not in after
    assert "4-4:line_b" in _open_after(["open 6-6", "play 4-6 6-6:line_a", "play 4-4 4-6:low"])
    assert parse_point("4-6:high").value == 6 and parse_point("4-6:low").value == 4
    lay = Layout()
    lay.open_tile(parse_tile("6-6"))
    lay.place(parse_tile("4-6"), parse_point("6-6:line_a"))
    (a, b) = lay.connections[0]
    shown = '[{"tile":[6,6],"side":"line_a"},\n{"tile":[4,6],"side":"high"}]'
    assert shown in PROTOCOL and (str(a), str(b)) == ("6-6:line_a", "4-6:high")


def test_the_points_example_is_what_the_rules_count() -> None:
    lay = Layout()
    assert lay.open_tile(parse_tile("5-5")) == 10
    text = re.search(r'`"legal":(\[[^`]*\]),"legal_points":(\[[^`]*\])`', PROTOCOL)
    assert text is not None
    legal, points = json.loads(text.group(1)), json.loads(text.group(2))
    for action, expected in zip(legal, points, strict=True):
        a = parse_action(action)
        assert points_earned(lay.copy().place(a.tile, a.at)) == expected, action  # type: ignore[attr-defined]
