"""The scoring rule (RULES.md §4: a count that is a multiple of 5 scores) is spelt
once, in ``bidref.rules.layout.points_earned``; the match, the pages and the SDK
ask it, so a change of the rule cannot leave a copy behind (issue 39)."""

from __future__ import annotations

import ast
from pathlib import Path

BIDREF = Path(__file__).resolve().parents[2] / "bidref"
HOME = BIDREF / "rules" / "layout.py"


def modulo_five(source: str) -> list[int]:
    """The lines of ``source`` that take a value modulo 5."""
    return [
        n.lineno
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.BinOp)
        and isinstance(n.op, ast.Mod)
        and isinstance(n.right, ast.Constant)
        and n.right.value == 5
    ]


def test_only_points_earned_takes_a_count_modulo_five() -> None:
    found = [
        f"{path.relative_to(BIDREF.parent)}:{line}"
        for path in sorted(BIDREF.rglob("*.py"))
        if path != HOME
        for line in modulo_five(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "call bidref.rules.layout.points_earned instead: " + ", ".join(found)
    assert modulo_five(HOME.read_text(encoding="utf-8")) != []  # the scan sees the rule
    assert modulo_five("pts = count if count % 5 == 0 else 0") == [1]
