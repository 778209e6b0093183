"""The output folder (folder.py) and where matches run (backends.py), without the CLI."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from bidref.tournament import ResultsError, ResultsStore, TournamentError
from bidref.tournament.backends import load_play, make_backend, overload_warning
from bidref.tournament.folder import check_export_paths, clear, start_results
from bidref.tournament.local import LocalBackend, available_cores
from bidref.tournament.runner import DEBUG_DIR, RESULTS_FILE, TRANSCRIPTS_DIR
from bidref.tournament.store import hold

from .conftest import MakePlan
from .tournament_fakes import fake_play


def test_export_files_are_checked_before_the_run(tmp_path: Path) -> None:
    check_export_paths([tmp_path / "p.csv", tmp_path / "P.JSON"], force=False)
    cases = {
        tmp_path / "p.txt": "give a file ending in .csv or .json",
        tmp_path / "none" / "p.csv": f"there is no folder {str(tmp_path / 'none')!r}",
        tmp_path / "dir.csv": "it is a folder",
    }
    (tmp_path / "dir.csv").mkdir()
    for path, why in cases.items():
        with pytest.raises(TournamentError, match="--export") as refused:
            check_export_paths([tmp_path / "ok.csv", path], force=True)
        assert why in str(refused.value) and repr(str(path)) in str(refused.value)


def test_an_existing_export_file_needs_force(tmp_path: Path) -> None:
    there = tmp_path / "p.csv"
    there.write_text("old", encoding="utf-8")
    with pytest.raises(TournamentError, match="already exists: add --force to overwrite it"):
        check_export_paths([there], force=False)
    check_export_paths([there], force=True)


def test_clear_removes_the_tournament_and_nothing_else(tmp_path: Path) -> None:
    for sub in (TRANSCRIPTS_DIR, DEBUG_DIR):
        (tmp_path / sub / "a--b").mkdir(parents=True)
        (tmp_path / sub / "a--b" / "1-0.jsonl.gz").write_bytes(b"x")
    (tmp_path / RESULTS_FILE).write_text("{}\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    clear(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    clear(tmp_path)  # nothing there: nothing to do


def test_start_results_writes_the_header_and_holds_the_file(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    plan = make_plan(out=tmp_path / "t")
    with ExitStack() as resources:
        store = start_results(plan, resources, force=False)
        assert (plan.out_dir / TRANSCRIPTS_DIR).is_dir()
        with pytest.raises(ResultsError, match="another bidref tournament is running"):
            hold(plan.out_dir / RESULTS_FILE)
    hold(plan.out_dir / RESULTS_FILE).close()  # the resources let go of it
    with pytest.raises(ValueError, match="closed file"):
        store._handle.write("x")
    assert ResultsStore.open(plan.out_dir / RESULTS_FILE).header == plan.header


def test_start_results_with_force_replaces_the_old_tournament(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    plan = make_plan(out=tmp_path / "t")
    old = plan.out_dir / TRANSCRIPTS_DIR / "old.jsonl.gz"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"x")
    (plan.out_dir / RESULTS_FILE).write_text('{"old": 1}\n', encoding="utf-8")
    with ExitStack() as resources:
        with pytest.raises(ResultsError, match="already exists"):
            start_results(plan, resources, force=False)
        start_results(plan, resources, force=True)
    assert not old.exists() and (plan.out_dir / TRANSCRIPTS_DIR).is_dir()
    assert ResultsStore.open(plan.out_dir / RESULTS_FILE).header == plan.header


def test_load_play_names_a_module_and_a_function() -> None:
    assert load_play("tests.tournament.tournament_fakes:fake_play") is fake_play
    from bidref.tournament.play import play_match

    assert load_play("bidref.tournament.play") is play_match  # the default name
    with pytest.raises(ImportError):
        load_play("no_such_module:f")
    with pytest.raises(AttributeError):
        load_play("tests.tournament.tournament_fakes:no_such_function")


def test_a_local_backend_runs_no_more_matches_at_once_than_there_are_to_play() -> None:
    backends = [
        make_backend(fake_play, None, concurrency, todo)
        for concurrency, todo in ((4, 2), (1, 9), (3, 0), (None, 1))
    ]
    try:
        assert all(isinstance(b, LocalBackend) for b in backends)
        assert [b.slots for b in backends] == [2, 1, 1, 1]
    finally:
        for b in backends:
            b.close()


def test_more_matches_at_once_than_cores_is_warned_of() -> None:
    cores = available_cores()
    assert overload_warning(None) is None and overload_warning(cores) is None
    assert overload_warning(cores + 1) == (
        f"--concurrency {cores + 1} is more than the {cores} cores here; an overloaded "
        "machine causes false time losses"
    )
