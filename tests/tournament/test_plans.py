"""A new tournament's plan (plans.py) and --resume's checks (resume.py), without the CLI."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from bidref.tournament import ResultsError, ResultsStore, Sprt, TournamentError
from bidref.tournament.plans import Defaults, Wanted, new_plan
from bidref.tournament.resume import header_conflicts, reopen
from bidref.tournament.runner import RESULTS_FILE
from bidref.tournament.schedule import ScheduleError
from bidref.tournament.store import hold

DEFAULTS = Defaults(deals=3, bank_s=7.5, delay_s=0.25)
TWO = ["a=fake strength=2", "b=fake"]


def test_a_new_plan_takes_the_defaults_for_what_was_not_given(tmp_path: Path) -> None:
    plan = new_plan(tmp_path, Wanted(engines=TWO, seed=5), DEFAULTS, check=False)
    h = plan.header
    assert (h.format, h.master_seed, len(h.seeds)) == ("round-robin", 5, 3)
    assert (h.settings.bank_ms, h.settings.delay_ms) == (7500, 250)
    assert (h.settings.illegal, h.settings.transport, h.settings.max_rounds) == (
        "reject",
        "pipe",
        None,
    )
    assert plan.names == ["a", "b"] and len(plan.keys) == 2 * 3
    assert not (tmp_path / RESULTS_FILE).exists()  # nothing written yet


def test_a_new_plan_keeps_what_was_given(tmp_path: Path) -> None:
    wanted = Wanted(
        engines=["h=fake", "x=fake"],
        engine_texts=["cmd=fake name=y"],
        fmt="gauntlet",
        deals=2,
        seed=9,
        bank_s=1.0,
        delay_s=0.0,
        max_rounds=4,
        illegal="forfeit",
        transport="pty",
    )
    plan = new_plan(tmp_path, wanted, DEFAULTS, check=False)
    h = plan.header
    assert plan.names == ["h", "x", "y"] and plan.hero == "h"
    assert (h.settings.bank_ms, h.settings.delay_ms, h.settings.max_rounds) == (1000, 0, 4)
    assert (h.settings.illegal, h.settings.transport) == ("forfeit", "pty")
    assert len(h.seeds) == 2 and len(plan.pairings) == 2  # h against each other


def test_the_same_master_seed_gives_the_same_deals(tmp_path: Path) -> None:
    one = new_plan(tmp_path, Wanted(engines=TWO, seed=11), DEFAULTS, check=False)
    two = new_plan(tmp_path, Wanted(engines=TWO, seed=11), DEFAULTS, check=False)
    other = new_plan(tmp_path, Wanted(engines=TWO, seed=12), DEFAULTS, check=False)
    assert one.header.seeds == two.header.seeds != other.header.seeds


def test_a_deal_book_gives_the_seeds_and_no_master_seed(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("# deals\n4\n8\n15\n", encoding="utf-8")
    plan = new_plan(tmp_path, Wanted(engines=TWO, deal_book=book), DEFAULTS, check=False)
    assert plan.header.seeds == [4, 8, 15]  # all of them: the default count is for seeds
    assert plan.header.master_seed is None and plan.header.deal_book == str(book)
    first = new_plan(tmp_path, Wanted(engines=TWO, deal_book=book, deals=2), DEFAULTS, check=False)
    assert first.header.seeds == [4, 8]
    with pytest.raises(TournamentError, match=r"--deals 5 but .*book.txt holds only 3 seeds"):
        new_plan(tmp_path, Wanted(engines=TWO, deal_book=book, deals=5), DEFAULTS, check=False)


def test_a_new_plan_refuses_one_engine_and_a_deal_played_twice(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match="give at least two engines"):
        new_plan(tmp_path, Wanted(engines=["a=fake"]), DEFAULTS, check=False)
    book = tmp_path / "book.txt"
    book.write_text("4\n4\n", encoding="utf-8")
    with pytest.raises(ScheduleError, match="4"):
        new_plan(tmp_path, Wanted(engines=TWO, deal_book=book), DEFAULTS, check=False)


def test_an_sprt_needs_exactly_one_pairing(tmp_path: Path) -> None:
    sprt = Sprt(0, 10, 0.05, 0.05)
    assert new_plan(tmp_path, Wanted(engines=TWO, sprt=sprt), DEFAULTS, check=False).sprt == sprt
    three = Wanted(engines=[*TWO, "c=fake"], sprt=sprt)
    with pytest.raises(TournamentError, match="this tournament has 3: give exactly two"):
        new_plan(tmp_path, three, DEFAULTS, check=False)


def test_a_tournament_already_in_the_folder_is_refused_without_force(tmp_path: Path) -> None:
    (tmp_path / RESULTS_FILE).write_text("{}\n", encoding="utf-8")
    with pytest.raises(TournamentError, match="add --resume to continue"):
        new_plan(tmp_path, Wanted(engines=TWO), DEFAULTS, check=False)
    new_plan(tmp_path, Wanted(engines=TWO), DEFAULTS, check=False, force=True)
    (tmp_path / RESULTS_FILE).write_text("", encoding="utf-8")  # empty: nothing to keep
    new_plan(tmp_path, Wanted(engines=TWO), DEFAULTS, check=False)


def recorded(tmp_path: Path, **given: object) -> Path:
    """A results file holding only the header of a tournament made with ``given``."""
    out = tmp_path / "t"
    wanted = Wanted(**{"engines": TWO, "seed": 3, **given})  # type: ignore[arg-type]
    plan = new_plan(out, wanted, DEFAULTS, check=False)
    ResultsStore.create(out / RESULTS_FILE, plan.header).close()
    return out


def test_resume_may_repeat_the_recorded_options_but_not_change_them(tmp_path: Path) -> None:
    out = recorded(tmp_path, bank_s=2.0, max_rounds=6)
    with ExitStack() as resources:
        plan, _ = reopen(out, Wanted(), resources)
    assert header_conflicts(plan, Wanted(engines=TWO, seed=3, bank_s=2.0, deals=3)) == []
    problems = header_conflicts(
        plan,
        Wanted(engines=["a=fake"], bank_s=3.0, max_rounds=6, illegal="forfeit", deal_book=out),
    )
    assert problems == [
        "engines ['a=fake'] differ from the recorded ['a=fake strength=2', 'b=fake']",
        "--bank 3.0 differs from the recorded 2.0",
        "--illegal forfeit differs from the recorded reject",
        "--deal-book cannot change on --resume",
    ]


def test_a_refused_resume_lets_go_of_the_results_file(tmp_path: Path) -> None:
    out = recorded(tmp_path)
    with ExitStack() as resources:
        with pytest.raises(TournamentError) as refused:
            reopen(out, Wanted(deals=9), resources)
        # refused, but held until the caller's resources close
        with pytest.raises(ResultsError, match="another bidref tournament is running"):
            hold(out / RESULTS_FILE)
    assert str(refused.value) == (
        f"--deals 9 differs from the recorded 3 (recorded in {out / RESULTS_FILE}); "
        "drop those options to resume, or use another --out"
    )
    hold(out / RESULTS_FILE).close()  # free again


def test_resume_holds_the_file_and_closes_the_store_with_its_resources(tmp_path: Path) -> None:
    out = recorded(tmp_path)
    with ExitStack() as resources:
        plan, store = reopen(out, Wanted(), resources)
        assert plan.header.master_seed == 3 and store.records == []
        with pytest.raises(ResultsError, match="another bidref tournament is running"):
            hold(out / RESULTS_FILE)
    hold(out / RESULTS_FILE).close()
    with pytest.raises(ValueError, match="closed file"):
        store._handle.write("x")


def test_an_sprt_added_on_resume_tests_the_recorded_results(tmp_path: Path) -> None:
    out = recorded(tmp_path)
    sprt = Sprt(0, 5, 0.1, 0.1)
    header_line = (out / RESULTS_FILE).read_text(encoding="utf-8")
    with ExitStack() as resources:
        plan, _ = reopen(out, Wanted(sprt=sprt), resources)
    assert (
        plan.sprt == sprt
        and plan.header.seeds == ResultsStore.open(out / RESULTS_FILE).header.seeds
    )
    assert (out / RESULTS_FILE).read_text(encoding="utf-8") == header_line  # file unchanged


def test_resume_without_results_says_to_start_first(tmp_path: Path) -> None:
    with ExitStack() as resources, pytest.raises(ResultsError, match="without --resume first"):
        reopen(tmp_path, Wanted(), resources)
