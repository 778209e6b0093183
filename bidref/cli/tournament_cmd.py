"""``bidref tournament``: rated engine tournaments with paired deals that resume and scale."""

from __future__ import annotations

import logging
import math
import os
import signal
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

import typer

from . import app
from .common import EachOption, EngineOption
from .sandbox_opts import JAIL_DEFAULTS, JailArgs, announce, sandbox_options
from .tournament_remote import (
    ConnectInfoOption,
    RemoteRefusal,
    StartupOption,
    TlsCertOption,
    TlsKeyOption,
    listen_for_network_engines,
    remote_backend,
)

if TYPE_CHECKING:  # imported in the command (bidref --help starts fast)
    from rich.console import Console, Group

    from bidref.tournament import MatchRecord, Plan, PlayFn, Progress, ResultsStore, RunSummary
    from bidref.tournament.model import MatchSettings
    from bidref.tournament.ratings import Sprt
    from bidref.tournament.runner import Backend

log = logging.getLogger(__name__)

EXIT_INTERRUPTED = 130
EXIT_UNRESOLVED = 1
EXIT_USAGE = 2
DEFAULT_DEALS = 50
DEFAULT_BANK_S = 120.0
DEFAULT_DELAY_S = 10.0
DEFAULT_PLAY = "bidref.tournament.play:play_match"

EPILOG = """\
Examples:\n\n
200 matches (100 deals x 2 seats), 2 at a time, on a fast clock:\n
  bidref tournament c=sample_engines/c_first/engine \\
    sample_engines/python_greedy/engine.py \\
    --deals 100 --bank 5 --delay 0.1 -j 2 --out runs/c-vs-greedy\n\n
After a crash or Ctrl-C, play exactly the missing matches:\n
  bidref tournament --resume --out runs/c-vs-greedy\n\n
Is new stronger than old by 10 Elo? Stop as soon as the SPRT decides:\n
  bidref tournament new=./engine-new old=./engine-old \\
    --sprt 0 10 0.05 0.05 --deals 2000\n\n
cutechess-style engines, one with a handicap clock, shared options:\n
  bidref tournament --engine "cmd=./engine name=full" \\
    --engine "cmd=./engine name=fast tc=5+0.1" --each "option.depth=3" \\
    --deals 50 --out runs/handicap\n\n
One engine against the field, on a dask cluster (engines at the same paths on the workers):\n
  bidref tournament hero.toml a.toml b.toml --format gauntlet \\
    --cluster tcp://head:8786
"""


def _fail(console: Console, message: str, code: int = EXIT_USAGE) -> typer.Exit:
    from rich.text import Text

    console.print(Text.assemble(("error:", "red"), " ", message), highlight=False)
    return typer.Exit(code=code)


def _load_play(ref: str) -> PlayFn:
    import importlib

    module, _, attr = ref.partition(":")
    fn = getattr(importlib.import_module(module), attr or "play_match")
    return cast("PlayFn", fn)


@contextmanager
def _term_as_interrupt() -> Iterator[None]:
    """SIGTERM ends the run like Ctrl-C: running matches end cleanly, results kept."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _duration(seconds: float) -> str:
    if math.isnan(seconds) or math.isinf(seconds):
        return "?"
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"


def _live_view(p: Progress, plan: Plan, top: int = 10) -> Group:
    from rich.console import Group
    from rich.progress_bar import ProgressBar
    from rich.table import Table
    from rich.text import Text

    from bidref.tournament.tables import sprt_line, standings_table

    bar = Table.grid(padding=(0, 1))
    bar.add_row(
        Text(f"matches {p.done}/{p.total}"),
        ProgressBar(total=max(p.total, 1), completed=p.done, width=30),
        Text(
            f"{100 * p.done / max(p.total, 1):.0f}%  elapsed {_duration(p.elapsed_s)}  "
            f"left ~{_duration(p.eta_s)}"
        ),
    )
    parts: list[Any] = [bar]
    if p.last is not None:
        parts.append(Text(f"last: {match_line(p.last)}", overflow="ellipsis", no_wrap=True))
    parts.append(
        standings_table(p.standings, title="Current standings", limit=top, hero=_hero(plan))
    )
    if plan.sprt is not None:
        line = sprt_line(plan.sprt, p.standings)
        if line is not None:
            parts.append(line)
    return Group(*parts)


def _hero(plan: Plan) -> str | None:
    """The gauntlet's engine (listed first in its standings); None in a round robin."""
    return plan.names[0] if plan.header.format == "gauntlet" else None


def match_line(r: MatchRecord) -> str:
    """One finished match in one line (fastchess style), e.g.
    ``a vs b (seed 7, a is A): 1-0 {a wins by balance 300-120 after 4 rounds}``."""
    seats = f"seed {r.seed}, {r.engine_a} is A"
    head = f"{r.engine_a} vs {r.engine_b} ({seats})"
    if not r.rated:
        why = r.detail_text() or r.reason
        return f"{head}: not rated, {r.reason} {{{why}}}"
    if r.winner is None:
        score = "1/2-1/2"
        what = "draw"
    else:
        score = "1-0" if r.winner == r.engine_a else "0-1"
        what = f"{r.winner} wins"
    bal = f"{r.balances[0]}-{r.balances[1]}"
    return f"{head}: {score} {{{what} by {r.reason}, {bal} after {r.rounds} rounds}}"


def _header_conflicts(plan: Plan, engines: list[str], options: dict[str, object]) -> list[str]:
    h = plan.header
    problems = []
    if engines and [e.spec for e in h.engines] != engines:
        problems.append(f"engines {engines} differ from the recorded {[e.spec for e in h.engines]}")
    recorded = {
        "format": h.format,
        "bank": h.settings.bank_ms / 1000,
        "delay": h.settings.delay_ms / 1000,
        "max-rounds": h.settings.max_rounds,
        "illegal": h.settings.illegal,
        "transport": h.settings.transport,
        "seed": h.master_seed,
        "deals": len(h.seeds),
    }
    for name, value in options.items():
        if value is not None and value != recorded[name]:
            problems.append(f"--{name} {value} differs from the recorded {recorded[name]}")
    return problems


@app.command(epilog=EPILOG)
@sandbox_options
def tournament(
    engines: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[ENGINE]...",
            help="Engines: command lines (quoted), programs, .py files or engine files "
            "(.toml/.json); prefix NAME= to name one, e.g. fast=./engine. Then the "
            "--engine ones, in order.",
            show_default=False,
        ),
    ] = None,
    engine: EngineOption = None,
    each: EachOption = None,
    fmt: Annotated[
        Literal["round-robin", "gauntlet"] | None,
        typer.Option(
            "--format",
            "-f",
            metavar="[round-robin|gauntlet]",
            help="round-robin (everyone meets everyone) or gauntlet "
            "(the first engine against each other). \\[default: round-robin]",
            show_default=False,
        ),
    ] = None,
    deals: Annotated[
        int | None,
        typer.Option(
            "--deals",
            "-n",
            min=1,
            metavar="N",
            help="Deal seeds per pairing; each is played twice, "
            f"seats swapped. \\[default: {DEFAULT_DEALS}]",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            help="Master seed the deal seeds come from (recorded). \\[default: random]",
            show_default=False,
        ),
    ] = None,
    deal_book: Annotated[
        Path | None,
        typer.Option(
            "--deal-book",
            metavar="FILE",
            help="File of deal seeds, one per line (# comments); --deals takes the first N.",
        ),
    ] = None,
    bank: Annotated[
        float | None,
        typer.Option(
            metavar="SECONDS",
            help=f"Time bank per engine, seconds. \\[default: {DEFAULT_BANK_S:g}]",
            show_default=False,
        ),
    ] = None,
    delay: Annotated[
        float | None,
        typer.Option(
            metavar="SECONDS",
            help=f"Delay per decision, seconds. \\[default: {DEFAULT_DELAY_S:g}]",
            show_default=False,
        ),
    ] = None,
    max_rounds: Annotated[
        int | None,
        typer.Option(
            "--max-rounds",
            min=1,
            metavar="N",
            help="Round limit: adjudicated by balance, equal balances is a draw.",
        ),
    ] = None,
    illegal: Annotated[
        Literal["reject", "forfeit"] | None,
        typer.Option(
            metavar="[reject|forfeit]",
            help="reject (error reply, decide again) or forfeit (the first illegal "
            "request loses). \\[default: reject]",
            show_default=False,
        ),
    ] = None,
    transport: Annotated[
        Literal["pipe", "pty"] | None,
        typer.Option(
            metavar="[pipe|pty]",
            help="pipe, or pty for engines that buffer stdout on pipes. \\[default: pipe]",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", metavar="DIR", help="Output folder: results.jsonl and transcripts/."
        ),
    ] = Path("tournament"),
    resume: Annotated[
        bool,
        typer.Option(
            metavar="",
            help="Continue the tournament in --out: play exactly the missing matches.",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            metavar="",
            help="Overwrite what is there: --export files, and (without --resume) a "
            "tournament in --out: its results.jsonl, transcripts/ and debug/ are deleted "
            "first.",
        ),
    ] = False,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            "-j",
            min=1,
            metavar="N",
            help="Matches at once. \\[default: the number of cores; "
            "with --cluster: the cluster's threads]",
            show_default=False,
        ),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            metavar="ADDRESS",
            help="Run on this dask.distributed scheduler, e.g. tcp://10.0.0.5:8786 "
            "(engines and --out at the same paths on the workers).",
        ),
    ] = None,
    sprt: Annotated[
        tuple[float, float, float, float] | None,
        typer.Option(
            metavar="ELO0 ELO1 ALPHA BETA",
            help="Stop when decided whether the first engine is >= ELO1 (H1) or <= ELO0 (H0) "
            "Elo stronger, on pair statistics; two engines only.",
            show_default=False,
        ),
    ] = None,
    rating_interval: Annotated[
        int,
        typer.Option(
            "--rating-interval",
            min=0,
            metavar="N",
            help="When the output is not a terminal: standings after every N finished "
            "matches (0: only at the end).",
        ),
    ] = 10,
    stderr_dir: Annotated[
        Path | None,
        typer.Option(
            "--stderr-dir",
            metavar="DIR",
            file_okay=False,
            help="Keep each engine's stderr (capped) per match in this folder.",
        ),
    ] = None,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug",
            metavar="",
            help="Write every line to and from the engines, timed, to OUT/debug/, "
            "one file per match.",
        ),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            metavar="",
            help="Print one JSON object with the results instead of tables.",
        ),
    ] = False,
    export: Annotated[
        list[Path] | None,
        typer.Option(
            metavar="FILE",
            help="Write the pairwise table to FILE.csv or FILE.json (repeatable).",
        ),
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="REPORT.html",
            help="At the end, write an HTML report with a replay page per match.",
        ),
    ] = None,
    max_attempts: Annotated[
        int,
        typer.Option(
            "--max-attempts",
            min=1,
            metavar="N",
            help="Tries per match in this run when matches are aborted (referee timing faults).",
        ),
    ] = 3,
    connect_info: ConnectInfoOption = None,
    tls_cert: TlsCertOption = None,
    tls_key: TlsKeyOption = None,
    startup: StartupOption = None,
    play_function: Annotated[
        str,
        typer.Option(
            "--play-function", hidden=True, help="module:function that plays one match (testing)."
        ),
    ] = DEFAULT_PLAY,
    jail: JailArgs = JAIL_DEFAULTS,  # the jail options (cli/sandbox_opts.py)
) -> None:
    """Play a rated tournament between engines: round-robin or gauntlet, paired deals.

    Every deal seed is played twice, with the seats swapped.

    Each finished match is appended to OUT/results.jsonl at once:
    --resume after a crash or Ctrl-C plays exactly the missing matches.

    On a terminal: live progress with an estimate of the time left. Piped
    (CI logs): one line per finished match, and the standings every
    --rating-interval matches.

    Ends with standings: wins, losses, draws, Elo with a 95 % interval and the
    likelihood of superiority from pair statistics, joint ratings of all
    engines (maximum likelihood, as Ordo/BayesElo), results by seat, and a
    cross-table for round robins.
    """
    import json
    import sys

    from rich.console import Console

    from bidref.tournament import ResultsError, ResultsStore
    from bidref.tournament.engines import EngineArgError
    from bidref.tournament.runner import RESULTS_FILE, missing
    from bidref.tournament.schedule import ScheduleError
    from bidref.tournament.store import hold
    from bidref.tournament.tables import export_pairs

    err = Console(stderr=True, soft_wrap=True)
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        # CI logs: 80 columns, which the tables are built to fit.
        console = Console(width=80)
    try:
        play = _load_play(play_function)
    except (ImportError, AttributeError) as exc:
        raise _fail(err, f"--play-function {play_function!r}: {exc}") from None
    store: ResultsStore | None = None
    held = ExitStack()  # this run's hold on the results file (see store.hold)
    try:
        sprt_test = _check_options(bank, delay, seed, deal_book, sprt)
        _check_exports(export or [], force=force)
        if stderr_dir is not None:
            _make_folder("--stderr-dir", stderr_dir)
        if resume:
            given: dict[str, object] = {
                "format": fmt,
                "bank": bank,
                "delay": delay,
                "max-rounds": max_rounds,
                "illegal": illegal,
                "transport": transport,
                "seed": seed,
                "deals": deals,
            }
            plan, store = _reopen(
                out, [*(engines or []), *(engine or [])], given, deal_book, sprt_test, held
            )
        else:
            from bidref.tournament import MatchSettings

            settings = MatchSettings(
                bank_ms=round(1000 * (DEFAULT_BANK_S if bank is None else bank)),
                delay_ms=round(1000 * (DEFAULT_DELAY_S if delay is None else delay)),
                max_rounds=max_rounds,
                illegal=illegal or "reject",
                transport=transport or "pipe",
            )
            plan = _new_plan(
                out,
                engines or [],
                fmt or "round-robin",
                settings,
                deals,
                seed,
                deal_book,
                sprt_test,
                engine_texts=engine or [],
                each_texts=each or [],
                check=play_function == DEFAULT_PLAY,
                force=force,
            )
    except (_Refusal, ResultsError, ScheduleError, EngineArgError) as exc:
        held.close()
        raise _fail(err, str(exc)) from None
    from dataclasses import replace

    try:  # the engine jail (cli/sandbox_opts.py): out and stderr logs hidden from engines
        config = announce(jail.config(hide=[out, stderr_dir]))
    except ValueError as exc:  # options.Refused
        held.close()
        raise _fail(err, str(exc)) from None
    plan = replace(plan, stderr_dir=stderr_dir, debug=debug, sandbox=config)

    todo = len(missing(plan, store)) if store is not None else len(plan.keys)
    network = None
    try:
        network = listen_for_network_engines(
            plan,
            default_play=play_function == DEFAULT_PLAY,
            cluster=cluster,
            connect_info=connect_info,
            tls_cert=tls_cert,
            tls_key=tls_key,
            startup=startup,
            err=err,
        )
        backend = _make_backend(play, cluster, concurrency, todo, err)
        if network is not None:
            backend = remote_backend(backend, network, play)
    except (_Refusal, RemoteRefusal) as exc:
        if network is not None:
            network.close(final_word_s=0)
        if store is not None:
            store.close()
        held.close()
        raise _fail(err, str(exc)) from None
    if store is None:  # a new tournament: written only now that it can be played
        try:
            if force:
                _clear(out)
            _make_transcripts_dir(out)
            store = ResultsStore.create(out / RESULTS_FILE, plan.header)
            held.enter_context(hold(out / RESULTS_FILE))
        except (_Refusal, ResultsError) as exc:
            if store is not None:
                store.close()
            backend.close()
            if network is not None:
                network.close(final_word_s=0)
            held.close()
            raise _fail(err, str(exc)) from None
        note = f"{len(plan.keys)} matches in {out}"
    else:
        done = len(plan.keys) - todo
        note = (
            f"resuming the tournament in {out}: {done} of {len(plan.keys)} matches "
            f"already rated, {todo} to play"
        )
    if not as_json:
        err.print(f"{note}; {backend.slots} at a time", highlight=False)
    try:
        with _term_as_interrupt():
            summary = _run_with_progress(
                plan,
                store,
                backend,
                max_attempts,
                err if as_json else console,
                lines=not as_json,
                rating_interval=rating_interval,
                remote=frozenset() if network is None else network.names,
            )
    finally:
        backend.close()
        if network is not None:
            network.close()
        store.close()
        held.close()
    standings = summary.standings
    assert standings is not None
    export_failed = False
    for path in export or []:
        try:
            export_pairs(standings, path, plan.sprt)
        except OSError as exc:  # e.g. the folder went away during the run
            export_failed = True
            err.print(
                f"[red]error:[/red] --export {str(path)!r}: cannot write it "
                f"({exc.strerror}); the results are in {plan.out_dir / RESULTS_FILE}",
                highlight=False,
            )
    if as_json:
        sys.stdout.write(json.dumps(_json_result(plan, summary), indent=2) + "\n")
    else:
        _print_result(console, plan, summary)
    from .report_cmd import write_html_report

    if html is not None and not write_html_report(out, html, err if as_json else console, err):
        export_failed = True
    _exit_for(err, summary, out, max_attempts, as_json)
    if export_failed:
        raise typer.Exit(code=EXIT_UNRESOLVED)


class _Refusal(ValueError):
    """Options that cannot be used together or with this tournament."""


def _check_options(
    bank: float | None,
    delay: float | None,
    seed: int | None,
    deal_book: Path | None,
    sprt: tuple[float, float, float, float] | None,
) -> Sprt | None:
    from bidref.tournament import Sprt

    from . import options

    try:
        if bank is not None or delay is not None:
            options.clock(
                DEFAULT_BANK_S if bank is None else bank,
                DEFAULT_DELAY_S if delay is None else delay,
            )
    except options.Refused as exc:
        raise _Refusal(str(exc)) from None
    if seed is not None and deal_book is not None:
        raise _Refusal("give --seed or --deal-book, not both")
    try:
        return Sprt(*sprt) if sprt is not None else None
    except ValueError as exc:
        raise _Refusal(str(exc)) from None


def _make_folder(flag: str, folder: Path) -> None:
    from . import options

    try:
        options.output_folder(flag, folder)
    except options.Refused as exc:
        raise _Refusal(str(exc)) from None


def _check_exports(paths: list[Path], *, force: bool) -> None:
    """Export files that could not be written at the end (or would overwrite a
    file, without --force) are refused now."""
    for path in paths:
        if path.suffix.lower() not in (".csv", ".json"):
            raise _Refusal(f"--export {str(path)!r}: give a file ending in .csv or .json")
        if path.is_file() and not force:
            raise _Refusal(
                f"--export {str(path)!r} already exists: add --force to overwrite it, or "
                "give another file"
            )
        folder = path.parent
        if path.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK):
            why = (
                "it is a folder"
                if path.is_dir()
                else (
                    f"there is no folder {str(folder)!r}"
                    if not folder.is_dir()
                    else f"the folder {str(folder)!r} is not writable"
                )
            )
            raise _Refusal(f"--export {str(path)!r}: cannot write it there ({why})")


def _check_sprt(plan: Plan, sprt: Sprt | None) -> None:
    if sprt is not None and len(plan.pairings) != 1:
        raise _Refusal(
            f"--sprt tests one pairing, but this tournament has "
            f"{len(plan.pairings)}: give exactly two engines"
        )


def _reopen(
    out: Path,
    engines: list[str],
    given: dict[str, object],
    deal_book: Path | None,
    sprt: Sprt | None,
    held: ExitStack,
) -> tuple[Plan, ResultsStore]:
    """The tournament recorded in ``out``, refusing options that would change it;
    ``held`` gets this run's hold on the results file (taken before it is opened)."""
    from bidref.tournament import Plan, ResultsStore, new_header
    from bidref.tournament.runner import RESULTS_FILE
    from bidref.tournament.store import hold

    results = out / RESULTS_FILE
    if results.is_file():
        held.enter_context(hold(results))
    store = ResultsStore.open(results)
    plan = Plan(store.header, out)
    problems = _header_conflicts(plan, engines, given)
    if deal_book is not None:
        problems.append("--deal-book cannot change on --resume")
    try:
        if problems:
            raise _Refusal(
                "; ".join(problems) + f" (recorded in {results}); drop those "
                "options to resume, or use another --out"
            )
        _check_sprt(plan, sprt)
    except _Refusal:
        store.close()
        raise
    if sprt is not None:  # a test on the recorded results; the file keeps its header
        h = plan.header
        plan = Plan(
            new_header(
                h.format,
                plan.engines,
                h.seeds,
                plan.settings,
                master_seed=h.master_seed,
                deal_book=h.deal_book,
                sprt=sprt,
                created=h.created,
            ),
            out,
        )
    return plan, store


def _new_plan(
    out: Path,
    engines: list[str],
    fmt: str,
    settings: MatchSettings,
    deals: int | None,
    seed: int | None,
    deal_book: Path | None,
    sprt: Sprt | None,
    *,
    engine_texts: list[str],
    each_texts: list[str],
    check: bool = True,
    force: bool = False,
) -> Plan:
    """A new tournament for ``out`` (nothing written yet).

    ``check``: refuse engines whose program is not found here (real engines).
    ``force``: a tournament already in ``out`` is to be replaced (not refused).
    """
    import secrets

    from bidref.tournament import Plan, new_header, seeds_from_master
    from bidref.tournament.engines import resolve_entries
    from bidref.tournament.runner import RESULTS_FILE
    from bidref.tournament.schedule import Format, read_deal_book

    if len(engines) + len(engine_texts) < 2:
        raise _Refusal(
            "give at least two engines, e.g. bidref tournament ./engine_a "
            "./engine_b (or --resume --out DIR)"
        )
    entries = resolve_entries(
        engines, engine_texts=engine_texts, each_texts=each_texts, check=check
    )
    master: int | None = None
    if deal_book is not None:
        seeds = read_deal_book(deal_book)
        if deals is not None and deals > len(seeds):
            raise _Refusal(f"--deals {deals} but {deal_book} holds only {len(seeds)} seeds")
        seeds = seeds[:deals] if deals is not None else seeds
    else:
        master = seed if seed is not None else secrets.randbits(63)
        seeds = seeds_from_master(master, deals or DEFAULT_DEALS)
    header = new_header(
        cast("Format", fmt),
        entries,
        seeds,
        settings,
        master_seed=master,
        deal_book=None if deal_book is None else str(deal_book),
        sprt=sprt,
    )
    plan = Plan(header, out)
    plan.keys  # noqa: B018 - validates the schedule before anything is written
    _check_sprt(plan, sprt)
    results = out / RESULTS_FILE
    if results.is_file() and results.stat().st_size > 0 and not force:
        # said before anything is tried
        raise _Refusal(
            f"results file {str(results)!r} already exists: add --resume to continue "
            "that tournament, --force to replace it, or choose another --out folder"
        )
    return plan


def _clear(out: Path) -> None:
    """--force: remove the tournament in ``out`` (results, transcripts, debug logs)."""
    import shutil

    from bidref.tournament.runner import DEBUG_DIR, RESULTS_FILE, TRANSCRIPTS_DIR

    try:
        (out / RESULTS_FILE).unlink(missing_ok=True)
        for sub in (TRANSCRIPTS_DIR, DEBUG_DIR):
            if (out / sub).is_dir():
                shutil.rmtree(out / sub)
    except OSError as exc:
        raise _Refusal(
            f"--force: cannot remove the old tournament in {str(out)!r} ({exc.strerror}); "
            "remove it yourself or choose another --out folder"
        ) from None


def _make_transcripts_dir(out: Path) -> None:
    """The transcripts folder, made before any match (workers only add files to it)."""
    from bidref.tournament.runner import TRANSCRIPTS_DIR

    folder = out / TRANSCRIPTS_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _Refusal(
            f"cannot write the results and transcripts in {str(out)!r}: cannot "
            f"make {str(folder)!r} ({exc.strerror}); choose another --out "
            "folder"
        ) from None


def _make_backend(
    play: PlayFn, cluster: str | None, concurrency: int | None, todo: int, err: Console
) -> Backend:
    from bidref.tournament.local import LocalBackend, available_cores

    if cluster is not None:
        from bidref.tournament.cluster import ClusterBackend, ClusterError

        try:
            return ClusterBackend(play, cluster, concurrency=concurrency)
        except ClusterError as exc:
            raise _Refusal(str(exc)) from None
    cores = available_cores()
    jobs = concurrency or cores
    if jobs > cores:
        err.print(
            f"[yellow]warning:[/yellow] --concurrency {jobs} is more than the {cores} "
            "cores here; an overloaded machine causes false time losses",
            highlight=False,
        )
    return LocalBackend(play, max(1, min(jobs, todo or 1)))


def _run_with_progress(
    plan: Plan,
    store: ResultsStore,
    backend: Backend,
    max_attempts: int,
    console: Console,
    *,
    lines: bool,
    rating_interval: int,
    remote: frozenset[str] = frozenset(),
) -> RunSummary:
    """Run, showing live progress on a terminal; else (``lines``, for CI logs) one
    line per finished match and the standings every ``rating_interval`` of them."""
    from rich.live import Live
    from rich.text import Text

    from bidref.tournament import run
    from bidref.tournament.tables import standings_table

    live = (
        Live(console=console, refresh_per_second=4, transient=True) if console.is_terminal else None
    )

    def on_progress(p: Progress) -> None:
        if live is not None:
            live.update(_live_view(p, plan))
            return
        if not lines or p.last is None:
            return
        console.print(
            Text(
                f"Finished match {p.played} ({p.done}/{p.total} rated, left "
                f"~{_duration(p.eta_s)}): {match_line(p.last)}"
            ),
            highlight=False,
            soft_wrap=True,
        )
        if rating_interval and p.played % rating_interval == 0 and p.done < p.total:
            console.print(
                standings_table(
                    p.standings, title=f"Standings after {p.done} rated matches", hero=_hero(plan)
                )
            )

    if live is not None:
        live.start()
    try:
        return run(
            plan,
            store,
            backend,
            on_progress=on_progress,
            max_attempts=max_attempts,
            remote=remote,
        )
    finally:
        if live is not None:
            live.stop()


def _json_result(plan: Plan, summary: RunSummary) -> dict[str, object]:
    from bidref.tournament.runner import RESULTS_FILE

    assert summary.standings is not None
    return {
        "results": str(plan.out_dir / RESULTS_FILE),
        "total": summary.total,
        "done": summary.done,
        "played": summary.played,
        "aborted": summary.aborted,
        "interrupted": summary.interrupted,
        "sprt_stopped": summary.sprt_stopped,
        "unresolved": [k.id for k in summary.unresolved],
        "failed": [k.id for k in summary.failed],
        "stopped": summary.stopped,
        "master_seed": plan.header.master_seed,
        "deal_book": plan.header.deal_book,
        **summary.standings.to_dict(plan.sprt, hero=_hero(plan)),
    }


def _print_result(console: Console, plan: Plan, summary: RunSummary) -> None:
    from bidref.tournament.runner import RESULTS_FILE
    from bidref.tournament.tables import (
        cross_table,
        pairs_table,
        seats_table,
        sprt_line,
        standings_table,
    )

    standings = summary.standings
    assert standings is not None
    hero = _hero(plan)
    console.print(standings_table(standings, hero=hero))
    console.print(pairs_table(standings, plan.sprt))
    if plan.header.format == "round-robin" and len(standings.engines) > 2:
        console.print(cross_table(standings))
    console.print(seats_table(standings, hero=hero))
    if plan.sprt is not None:
        line = sprt_line(plan.sprt, standings)
        if line is not None:
            console.print(line)
    h = plan.header
    seeds_note = (
        f"master seed {h.master_seed}" if h.master_seed is not None else f"deal book {h.deal_book}"
    )
    console.print(
        f"{summary.done}/{summary.total} matches rated ({summary.played} played now, "
        f"{summary.aborted} aborted and replayed); {seeds_note}; results in "
        f"{plan.out_dir / RESULTS_FILE}",
        highlight=False,
    )


def _exit_for(
    err: Console, summary: RunSummary, out: Path, max_attempts: int, as_json: bool
) -> None:
    """Tell what is left to do, and exit with the matching code."""
    if summary.interrupted:
        err.print(
            f"interrupted: {summary.total - summary.done} matches left; continue with "
            f"bidref tournament --resume --out {out}",
            highlight=False,
        )
        raise typer.Exit(code=EXIT_INTERRUPTED)
    if summary.stopped is not None:
        from rich.text import Text

        from .match_cmd import STARTUP_HINT

        # (as text: the engine's own words are in it, never rich markup)
        err.print(
            Text.assemble(
                ("error:", "red"),
                f" {summary.stopped}. Check the engine with bidref check-engine, then "
                f"continue with --resume --out {out}",
            ),
            highlight=False,
        )
        if "(startup)" in summary.stopped:
            err.print(Text(STARTUP_HINT, style="yellow"), highlight=False)
        raise typer.Exit(code=EXIT_UNRESOLVED)
    if summary.sprt_stopped and not as_json:
        err.print("SPRT decided: the tournament stopped early", highlight=False)
    if summary.unresolved:
        err.print(
            f"{len(summary.unresolved)} matches were aborted {max_attempts} times; "
            f"try again with --resume --out {out}",
            highlight=False,
        )
        raise typer.Exit(code=EXIT_UNRESOLVED)
    if summary.failed:
        err.print(
            f"{len(summary.failed)} matches did not start (unrated: an engine failed to "
            "start, or a network engine's client was not there in time); play them with "
            f"--resume --out {out}",
            highlight=False,
        )
        raise typer.Exit(code=EXIT_UNRESOLVED)
