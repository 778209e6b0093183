"""--resume: the tournament recorded in a folder, and the options that would change it.

A results file records the engines, the format, the clock, the deals and
their seeds; a command line that resumes may repeat them but not change
them (the matches already played would no longer belong to the same
tournament). Only an SPRT may be added: it reads the recorded results. Nor may
the engines' files have changed (:mod:`.shipping`), nor their own jail settings
(``sandbox=``, ``dir_writable=``: recorded with each engine; a ``--each`` that
would set them otherwise is refused, not ignored).
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from bidref.engines.spec import EngineArgs, EngineSpecError, parse_engine_args

from .model import EngineModel
from .plans import Wanted, check_sprt
from .runner import RESULTS_FILE, Plan, TournamentError, new_header
from .shipping import changed
from .store import ResultsStore, hold


def header_conflicts(plan: Plan, wanted: Wanted) -> list[str]:
    """What ``wanted`` asks that differs from the tournament ``plan`` recorded,
    one phrase per option (empty: nothing)."""
    h = plan.header
    problems = []
    engines = [*wanted.engines, *wanted.engine_texts]
    recorded_engines = [e.spec for e in h.engines]
    if engines and recorded_engines != engines:
        problems.append(f"engines {engines} differ from the recorded {recorded_engines}")
    recorded: dict[str, object] = {
        "format": h.format,
        "bank": h.settings.bank_ms / 1000,
        "delay": h.settings.delay_ms / 1000,
        "max-rounds": h.settings.max_rounds,
        "illegal": h.settings.illegal,
        "transport": h.settings.transport,
        "seed": h.master_seed,
        "deals": len(h.seeds),
    }
    for name, value in wanted.recorded_options().items():
        if value is not None and value != recorded[name]:
            problems.append(f"--{name} {value} differs from the recorded {recorded[name]}")
    if wanted.deal_book is not None:
        problems.append("--deal-book cannot change on --resume")
    return problems + jail_conflicts(h.engines, wanted.each_texts)


def _own_settings(e: EngineModel) -> EngineArgs:
    """The settings of an engine's own ``--engine`` text (none for a positional one)."""
    try:
        return parse_engine_args(e.spec)
    except EngineSpecError:  # a command line, a file or NAME=...: nothing set here
        return EngineArgs()


def jail_conflicts(engines: list[EngineModel], each_texts: list[str]) -> list[str]:
    """Where ``--each`` would give a recorded engine other jail settings than it
    was recorded with (its own ``sandbox=``/``dir_writable=`` win over ``--each``)."""
    each = EngineArgs()
    for text in each_texts:
        each = parse_engine_args(text, "--each").under(each)
    problems = []
    for e in engines:
        given = _own_settings(e).under(each)
        if given.sandbox_level is not None and given.sandbox_level != e.sandbox_level:
            problems.append(
                f"--each sandbox={given.sandbox_level} would change engine {e.name!r}, "
                + _recorded_with("sandbox", e.sandbox_level)
            )
        if given.dir_writable is not None and given.dir_writable != e.dir_writable:
            problems.append(
                f"--each dir_writable={_yes_no(given.dir_writable)} would change engine "
                f"{e.name!r}, " + _recorded_with("dir_writable", _yes_no(e.dir_writable))
            )
    return problems


def _recorded_with(key: str, value: str | None) -> str:
    return (
        f"recorded with no {key}= of its own" if value is None else f"recorded with {key}={value}"
    )


def _yes_no(value: bool | None) -> str | None:
    return None if value is None else "yes" if value else "no"


def check_builds(plan: Plan) -> None:
    """Refuse engines whose files changed since the tournament was created (their
    sha256 are in the header): the matches played were another build's."""
    stale = changed(plan.engines)
    if stale:
        raise TournamentError(
            f"{stale[0].text()}; the build recorded in {plan.out_dir / RESULTS_FILE} is the "
            "one to play (or start a new tournament)"
        )


def reopen(out: Path, wanted: Wanted, resources: ExitStack) -> tuple[Plan, ResultsStore]:
    """The tournament recorded in ``out``, refusing options that would change it.

    ``resources`` gets this run's hold on the results file (taken before the
    file is opened: opening may cut a torn last line) and the open store.
    """
    results = out / RESULTS_FILE
    if results.is_file():
        resources.enter_context(hold(results))
    store = resources.enter_context(ResultsStore.open(results))
    plan = Plan(store.header, out)
    problems = header_conflicts(plan, wanted)
    if problems:
        raise TournamentError(
            "; ".join(problems) + f" (recorded in {results}); drop those "
            "options to resume, or use another --out"
        )
    check_sprt(plan, wanted.sprt)
    check_builds(plan)
    if wanted.sprt is None:
        return plan, store
    # a test on the recorded results; the file keeps its header
    h = plan.header
    header = new_header(
        h.format,
        plan.engines,
        h.seeds,
        plan.settings,
        master_seed=h.master_seed,
        deal_book=h.deal_book,
        sprt=wanted.sprt,
        created=h.created,
    )
    return Plan(header, out), store
