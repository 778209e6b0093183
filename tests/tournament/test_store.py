from __future__ import annotations

import json
from pathlib import Path

import pytest

from bidref.tournament import MatchRecord, MatchReport, ResultsError, ResultsStore

from .conftest import MakePlan


def test_records_survive_reopening(make_plan: MakePlan, tmp_path: Path) -> None:
    plan = make_plan()
    path = tmp_path / "r.jsonl"
    keys = plan.keys[:3]
    with ResultsStore.create(path, plan.header) as store:
        for k in keys:
            store.append(MatchRecord.of(plan.job(k, 1), MatchReport(0, "balance", True)))
    reopened = ResultsStore.open(path)
    assert reopened.header == plan.header
    assert [r.key for r in reopened.records] == keys
    assert reopened.rated_keys() == set(keys)
    reopened.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["type"] == "tournament"
    assert json.loads(lines[1])["winner"] == plan.job(keys[0], 1).engine_a.name


def test_a_torn_last_line_is_dropped_and_the_file_repaired(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    plan = make_plan()
    path = tmp_path / "r.jsonl"
    with ResultsStore.create(path, plan.header) as store:
        store.append(MatchRecord.of(plan.job(plan.keys[0], 1), MatchReport(1, "time", True)))
    with path.open("a", encoding="utf-8") as f:
        f.write('{"type": "match", "first": "alp')  # killed mid-write
    with ResultsStore.open(path) as store:
        assert len(store.records) == 1
        store.append(MatchRecord.of(plan.job(plan.keys[1], 1), MatchReport(0, "balance", True)))
    with ResultsStore.open(path) as store:
        assert [r.key for r in store.records] == plan.keys[:2]


def test_a_bad_line_in_the_middle_is_an_error_naming_it(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    plan = make_plan()
    path = tmp_path / "r.jsonl"
    with ResultsStore.create(path, plan.header):
        pass
    with path.open("a", encoding="utf-8") as f:
        f.write("not json\n")
    with pytest.raises(ResultsError, match=r"r.jsonl:2: not a valid MatchRecord line"):
        ResultsStore.open(path)


def test_create_refuses_to_overwrite(make_plan: MakePlan, tmp_path: Path) -> None:
    plan = make_plan()
    path = tmp_path / "r.jsonl"
    ResultsStore.create(path, plan.header).close()
    with pytest.raises(ResultsError, match="add --resume"):
        ResultsStore.create(path, plan.header)


def test_open_without_a_file_says_to_start_first(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="without --resume first"):
        ResultsStore.open(tmp_path / "none.jsonl")
