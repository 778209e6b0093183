"""Abort causes are one enum (``AbortCause``): what decides on a cause (an exit
code, a retry, the throttle, a worker's exclusion) compares with a member, never
with a word of its own; and the member is written as the word it always was."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from bidref.outcome import AbortCause, EndReason
from bidref.tournament.model import MatchRecord

BIDREF = Path(__file__).resolve().parents[1] / "bidref"
HOME = BIDREF / "outcome" / "reasons.py"  # the one place the words are spelt
WORDS = frozenset(c.value for c in AbortCause)


def _words_in(node: ast.AST) -> list[str]:
    """The cause words spelt as string constants in ``node`` (a comparison's side,
    a set or tuple of them, a ``frozenset({...})``)."""
    nodes = list(ast.walk(node))
    keys = {id(k) for n in nodes if isinstance(n, ast.Dict) for k in n.keys}  # a key: no cause
    return [
        n.value
        for n in nodes
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and n.value in WORDS
        and id(n) not in keys
    ]


def bare_causes(source: str) -> list[str]:
    """Where ``source`` spells a cause word instead of naming an ``AbortCause``: in
    a comparison (``==``, ``!=``, ``in``, ``not in``), as the value of a ``"cause"``
    key, or as a module constant (the old ``CHANGED = "engine changed"``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                found += [f"line {node.lineno}: compares with {w!r}" for w in _words_in(side)]
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "cause":
                    found += [f"line {node.lineno}: writes {w!r}" for w in _words_in(value)]
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            found += [f"line {node.lineno}: names {w!r}" for w in _words_in(node.value)]
    return found


def test_no_module_spells_an_abort_cause_of_its_own() -> None:
    found = [
        f"{path.relative_to(BIDREF.parent)} {where}"
        for path in sorted(BIDREF.rglob("*.py"))
        if path != HOME
        for where in bare_causes(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "compare with bidref.outcome.AbortCause instead:\n" + "\n".join(found)


def test_the_scan_finds_each_way_a_bare_word_comes_back() -> None:
    assert bare_causes('if detail.get("cause") == "interrupted": pass') != []
    assert bare_causes('ok = cause != "engine changed"') != []
    assert bare_causes('ok = cause in {"timing_fault", "machine_wait"}') != []
    assert bare_causes('ok = cause in frozenset(("runner error",))') != []
    assert bare_causes('d = {"cause": "jail_setup", "seat": 0}') != []
    assert bare_causes('REFUSED = "engine refused"') != []
    # the same word meaning something else (a summary's key) is no cause
    assert bare_causes('d = {"interrupted": True}') == []
    assert bare_causes("ok = AbortCause.of(detail) is AbortCause.INTERRUPTED") == []


_RECORD = {
    **dict(first="a", second="b", seed=1, seat=0, engine_a="a", engine_b="b", attempt=1),
    **dict(rated=False, winner=None, reason=EndReason.ABORTED, balances=[0, 0], rounds=0),
    **dict(transcript=None, elapsed_s=0.1),
}


def test_a_member_is_written_as_its_word() -> None:
    for cause in AbortCause:
        assert json.dumps({"cause": cause}) == json.dumps({"cause": cause.value})
        assert repr({"cause": cause}) == repr({"cause": cause.value})  # a log line's detail
        assert f"{cause}" == str(cause) == cause.value  # a sentence's
        typed = MatchRecord.model_validate({**_RECORD, "detail": {"cause": cause}})
        said = MatchRecord.model_validate({**_RECORD, "detail": {"cause": cause.value}})
        assert typed.model_dump_json() == said.model_dump_json()
        assert f'"detail":{{"cause":"{cause.value}"}}' in typed.model_dump_json()
    # the words a transcript or a results file already holds
    assert sorted(WORDS) == [
        "engine changed",
        "engine refused",
        "interrupted",
        "jail_setup",
        "machine_wait",
        "runner error",
        "timing_fault",
        "transcript rejected",
    ]


def test_a_detail_names_its_cause_or_none() -> None:
    assert AbortCause.of({"cause": "machine_wait"}) is AbortCause.MACHINE_WAIT
    assert AbortCause.of({"cause": AbortCause.RUNNER_ERROR}) is AbortCause.RUNNER_ERROR
    assert AbortCause.of({}) is None
    assert AbortCause.of({"cause": "a newer word"}) is None
    assert AbortCause.of({"cause": ["unhashable"]}) is None
