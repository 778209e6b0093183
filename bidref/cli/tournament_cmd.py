"""``bidref tournament``: rated engine tournaments with paired deals that resume and scale.

The command checks its options (declared in :mod:`.tournament_options`) and
hands over: the plan and the output folder to :mod:`bidref.tournament`
(``plans``, ``resume``, ``folder``, ``backends``), the views to
:mod:`bidref.render.tournament_views`. It keeps what only the CLI does: the
consoles, one run's resources in one ExitStack, the messages and the exit code.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import typer

from . import app
from .common import EachOption, EngineOption, FreezeIdleOption, freeze_idle_of
from .exit_codes import ExitCode
from .live_opts import LiveOption, PortOption, check_live
from .sandbox_opts import JAIL_DEFAULTS, JailArgs, announce, sandbox_options
from .tournament_cluster import (
    CLUSTER_DEFAULTS,
    ClusterArgs,
    cluster_options,
    cluster_trust,
)
from .tournament_options import (
    DEFAULT_BANK_S,
    DEFAULT_DEALS,
    DEFAULT_DELAY_S,
    DEFAULT_PLAY,
    BankOption,
    ClusterOption,
    ConcurrencyOption,
    DealBookOption,
    DealsOption,
    DebugOption,
    DelayOption,
    EnginesArgument,
    ExportOption,
    ForceOption,
    FormatOption,
    HtmlOption,
    IllegalOption,
    JsonOption,
    MaxAttemptsOption,
    MaxRoundsOption,
    OutOption,
    Outputs,
    PlayFunctionOption,
    RatingIntervalOption,
    ResumeOption,
    Running,
    SeedOption,
    ShipEnginesOption,
    SprtOption,
    StderrDirOption,
    TransportOption,
)
from .tournament_remote import (
    ConnectInfoOption,
    StartupOption,
    TlsCertOption,
    TlsKeyOption,
    listen_for_network_engines,
    remote_backend,
)

if TYPE_CHECKING:  # imported in the command (bidref --help starts fast)
    from rich.console import Console

    from bidref.tournament import Plan, PlayFn, Progress, ResultsStore, RunSummary
    from bidref.tournament.plans import Wanted
    from bidref.tournament.ratings import Sprt
    from bidref.tournament.remote import RemoteEngines
    from bidref.tournament.runner import Backend

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
An engine you do not trust in the strict jail whatever --sandbox says (recorded):\n
  bidref tournament ./mine --engine "cmd=./theirs sandbox=strict" --out runs/x\n\n
One engine against the field, on a dask cluster over TLS, the engines sent to the workers:\n
  bidref tournament hero.toml a.toml b.toml --format gauntlet \\
    --cluster tls://head:8786 --tls-ca-file ca.pem --tls-cert me.pem \\
    --tls-key me.key --ship-engines
"""


@app.command(epilog=EPILOG)
@sandbox_options
@cluster_options
def tournament(
    engines: EnginesArgument = None,
    engine: EngineOption = None,
    each: EachOption = None,
    fmt: FormatOption = None,
    deals: DealsOption = None,
    seed: SeedOption = None,
    deal_book: DealBookOption = None,
    bank: BankOption = None,
    delay: DelayOption = None,
    max_rounds: MaxRoundsOption = None,
    illegal: IllegalOption = None,
    transport: TransportOption = None,
    out: OutOption = Path("tournament"),
    resume: ResumeOption = False,
    force: ForceOption = False,
    concurrency: ConcurrencyOption = None,
    cluster: ClusterOption = None,
    ship_engines: ShipEnginesOption = False,
    sprt: SprtOption = None,
    rating_interval: RatingIntervalOption = 10,
    stderr_dir: StderrDirOption = None,
    debug: DebugOption = False,
    freeze_idle: FreezeIdleOption = None,
    as_json: JsonOption = False,
    export: ExportOption = None,
    html: HtmlOption = None,
    max_attempts: MaxAttemptsOption = 3,
    connect_info: ConnectInfoOption = None,
    tls_cert: TlsCertOption = None,
    tls_key: TlsKeyOption = None,
    startup: StartupOption = None,
    play_function: PlayFunctionOption = DEFAULT_PLAY,
    live: LiveOption = False,
    port: PortOption = 0,
    jail: JailArgs = JAIL_DEFAULTS,  # the jail options (cli/sandbox_opts.py)
    cluster_args: ClusterArgs = CLUSTER_DEFAULTS,  # TLS, --insecure (cli/tournament_cluster.py)
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
    from bidref.tournament.plans import Wanted

    err, console = _consoles()
    play = _load_play(play_function)
    outputs = Outputs(
        out, resume, force, export or [], html, as_json, rating_interval, stderr_dir, debug
    )
    running = Running(
        play_function,
        concurrency,
        cluster,
        max_attempts,
        connect_info,
        tls_cert,
        tls_key,
        startup,
        ship_engines,
        freeze_idle_of(freeze_idle, jail.sandbox),
    )
    # An option, engine or folder this tournament cannot use raises a UsageError,
    # said (once the run's resources are closed) by the CLI's one handler: exit 2.
    check_live(live, port)
    sprt_test = _check_options(bank, delay, seed, deal_book, sprt)
    _check_outputs(outputs)
    running = _checked_running(running, jail, outputs, deal_book, cluster_args)
    wanted = Wanted(
        engines=engines or [],
        engine_texts=engine or [],
        each_texts=each or [],
        fmt=fmt,
        deals=deals,
        seed=seed,
        deal_book=deal_book,
        bank_s=bank,
        delay_s=delay,
        max_rounds=max_rounds,
        illegal=illegal,
        transport=transport,
        sprt=sprt_test,
    )
    plan, summary = _play(wanted, outputs, running, play, err, console, port if live else None)
    _finish(plan, summary, outputs, running.max_attempts, err, console)


def _consoles() -> tuple[Console, Console]:
    """(stderr, stdout); stdout that is not a terminal (CI logs) is 80 columns wide,
    which the tables are built to fit, unless COLUMNS says otherwise."""
    from rich.console import Console

    err = Console(stderr=True, soft_wrap=True)
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=80)
    return err, console


def _load_play(ref: str) -> PlayFn:
    from bidref.tournament.backends import load_play

    from .options import Refused

    try:
        return load_play(ref)
    except (ImportError, AttributeError) as exc:
        raise Refused(f"--play-function {ref!r}: {exc}") from None


def _check_options(
    bank: float | None,
    delay: float | None,
    seed: int | None,
    deal_book: Path | None,
    sprt: tuple[float, float, float, float] | None,
) -> Sprt | None:
    """The clock and the SPRT checked (raising ``options.Refused``); the SPRT as a test."""
    from bidref.tournament import Sprt

    from . import options

    if bank is not None or delay is not None:
        options.clock(
            DEFAULT_BANK_S if bank is None else bank,
            DEFAULT_DELAY_S if delay is None else delay,
        )
    if seed is not None and deal_book is not None:
        raise options.Refused("give --seed or --deal-book, not both")
    return Sprt(*sprt) if sprt is not None else None  # (a SprtError: a UsageError)


def _check_running(running: Running) -> None:
    """Refuse --ship-engines without --cluster (there is nobody to send them to)."""
    from . import options

    if running.ship_engines and running.cluster is None:
        raise options.Refused("--ship-engines sends engines to --cluster workers: add --cluster")


def _checked_running(
    running: Running,
    jail: JailArgs,
    outputs: Outputs,
    deal_book: Path | None,
    cluster_args: ClusterArgs,
) -> Running:
    """``running`` checked, with the engines' jail (said in _open, with the engines)
    and the cluster's trust settings. The jail hides what an engine must not read:
    the output folder, the stderr logs, the deal book (the deals to come) and the
    network engines' connect-info file (their tokens)."""
    _check_running(running)
    hidden = [outputs.out, outputs.stderr_dir, deal_book, running.connect_info]
    trust = cluster_trust(running, cluster_args)
    return replace(running, sandbox=jail.config(hide=hidden), trust=trust)


def _check_outputs(outputs: Outputs) -> None:
    """The --export files and the --stderr-dir folder, before anything starts."""
    from bidref.tournament.folder import check_export_paths

    from . import options

    check_export_paths(outputs.export, force=outputs.force)
    if outputs.stderr_dir is not None:
        options.output_folder("--stderr-dir", outputs.stderr_dir)


class _Listeners:
    """The network engines' listeners, closed with the run's other resources: at
    once if the run never started (no client has played: none to wait for), else
    giving a client that played the time to come back and hear that it is over."""

    def __init__(self, engines: RemoteEngines) -> None:
        self.engines = engines
        self.started = False

    def close(self) -> None:
        if self.started:
            self.engines.close()
        else:
            self.engines.close(final_word_s=0)


def _play(
    wanted: Wanted,
    outputs: Outputs,
    running: Running,
    play: PlayFn,
    err: Console,
    console: Console,
    live_port: int | None = None,
) -> tuple[Plan, RunSummary]:
    """Play the tournament. One ExitStack holds the run's resources (the hold on the
    results file, the store, the listeners, the backend, the --live server) and
    closes them in reverse, whatever happens; a refusal is said once they are closed."""
    with ExitStack() as resources:
        plan, store = _open(wanted, outputs, running, resources)
        if live_port is not None:
            from .live_opts import start_live

            start_live(outputs.out, live_port, resources, err)
        todo = _todo(plan, store)
        listeners = _listen(plan, running, resources, err)
        backend = _backend(play, running, todo, listeners, err, plan)
        resources.callback(backend.close)
        if store is None:  # a new tournament: written only now that it can be played
            from bidref.tournament.folder import start_results

            store = start_results(plan, resources, force=outputs.force)
            note = f"{len(plan.keys)} matches in {outputs.out}"
        else:
            note = (
                f"resuming the tournament in {outputs.out}: {len(plan.keys) - todo} of "
                f"{len(plan.keys)} matches already rated, {todo} to play"
            )
        if not outputs.as_json:
            err.print(f"{note}; {backend.slots} at a time", highlight=False)
        if listeners is not None:
            listeners.started = True
        with _term_as_interrupt():
            summary = _run_with_progress(
                plan,
                store,
                backend,
                running.max_attempts,
                err if outputs.as_json else console,
                lines=not outputs.as_json,
                rating_interval=outputs.rating_interval,
                remote=frozenset() if listeners is None else listeners.engines.names,
            )
    return plan, summary


def _open(
    wanted: Wanted, outputs: Outputs, running: Running, resources: ExitStack
) -> tuple[Plan, ResultsStore | None]:
    """The tournament to play and, on --resume, its open results store (None: a new
    tournament, whose store is made once it can be played)."""
    from dataclasses import replace

    from bidref.tournament.plans import Defaults, new_plan
    from bidref.tournament.resume import reopen

    store = None
    if outputs.resume:
        plan, store = reopen(outputs.out, wanted, resources)
    else:
        defaults = Defaults(DEFAULT_DEALS, DEFAULT_BANK_S, DEFAULT_DELAY_S)
        plan = new_plan(
            outputs.out, wanted, defaults, check=running.real_engines, force=outputs.force
        )
    plan = replace(plan, stderr_dir=outputs.stderr_dir, debug=outputs.debug)
    if running.sandbox is not None:  # each engine's own stricter level said too, or refused
        said = announce(running.sandbox, [(e.name, e.sandbox_level) for e in plan.engines])
        if store is None:  # a new results file records them (a resumed one has its own)
            plan = replace(plan, header=plan.header.model_copy(update={"jail": said}))
    return replace(plan, freeze_idle=running.freeze_idle, sandbox=running.sandbox), store


def _todo(plan: Plan, store: ResultsStore | None) -> int:
    """How many matches this run plays (at most)."""
    from bidref.tournament.runner import missing

    return len(plan.keys) if store is None else len(missing(plan, store))


def _listen(plan: Plan, running: Running, resources: ExitStack, err: Console) -> _Listeners | None:
    """The listeners of the tournament's network engines (None: every engine is local)."""
    engines = listen_for_network_engines(
        plan,
        default_play=running.real_engines,
        cluster=running.cluster,
        connect_info=running.connect_info,
        tls_cert=running.tls_cert,
        tls_key=running.tls_key,
        startup=running.startup,
        err=err,
    )
    if engines is None:
        return None
    listeners = _Listeners(engines)
    resources.callback(listeners.close)
    return listeners


def _backend(
    play: PlayFn,
    running: Running,
    todo: int,
    listeners: _Listeners | None,
    err: Console,
    plan: Plan,
) -> Backend:
    """Where the matches run (matches with a network engine: in threads here)."""
    from bidref.tournament.backends import make_backend, overload_warning

    backend = make_backend(
        play,
        running.cluster,
        running.concurrency,
        todo,
        engines=plan.engines,
        ship=running.ship_engines,
        trust=running.trust,
    )
    warning = None if running.cluster is not None else overload_warning(running.concurrency)
    if warning is not None:
        err.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    if listeners is not None:
        backend = remote_backend(backend, listeners.engines, play)
    return backend


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

    from bidref.render.tournament_views import LiveView, finished_line
    from bidref.tournament import run
    from bidref.tournament.tables import standings_table

    live = (
        Live(console=console, refresh_per_second=4, transient=True) if console.is_terminal else None
    )

    def on_progress(p: Progress) -> None:
        if live is not None:
            live.update(LiveView(p, plan))
            return
        if not lines or p.last is None:
            return
        console.print(finished_line(p), highlight=False, soft_wrap=True)
        if rating_interval and p.played % rating_interval == 0 and p.done < p.total:
            title = f"Standings after {p.done} rated matches"
            console.print(standings_table(p.standings, title=title, hero=plan.hero))

    with live if live is not None else nullcontext():
        return run(
            plan,
            store,
            backend,
            on_progress=on_progress,
            max_attempts=max_attempts,
            remote=remote,
        )


def _finish(
    plan: Plan,
    summary: RunSummary,
    outputs: Outputs,
    max_attempts: int,
    err: Console,
    console: Console,
) -> None:
    """The exports, the results (tables or JSON), the HTML report, and the exit code."""
    import json
    import sys

    from bidref.render.tournament_views import FinalView
    from bidref.tournament.result import result_dict

    from .report_cmd import write_html_report

    export_failed = not _export(plan, summary, outputs.export, err)
    workers = _workers(plan)
    if outputs.as_json:
        sys.stdout.write(json.dumps(result_dict(plan, summary, workers), indent=2) + "\n")
    else:
        console.print(FinalView(plan, summary))
        if workers is not None:
            from bidref.tournament.tables import workers_table

            console.print(workers_table(workers))
    html = outputs.html
    report_console = err if outputs.as_json else console
    if html is not None and not write_html_report(outputs.out, html, report_console, err):
        export_failed = True
    _exit_for(err, summary, outputs.out, max_attempts, outputs.as_json)
    if export_failed:
        raise typer.Exit(code=ExitCode.FAILED)


def _workers(plan: Plan) -> dict[str, dict[str, object]] | None:
    """Each cluster worker's statistics, from the results file (None: a local run)."""
    from bidref.tournament.runner import RESULTS_FILE
    from bidref.tournament.store import ResultsError, read_results
    from bidref.tournament.workers_stats import workers_of

    try:
        records = read_results(plan.out_dir / RESULTS_FILE)[1]
    except ResultsError:
        return None
    return workers_of(records)


def _export(plan: Plan, summary: RunSummary, paths: list[Path], err: Console) -> bool:
    """Write the pairwise table to each --export file; False if one failed (said)."""
    from bidref.tournament.runner import RESULTS_FILE
    from bidref.tournament.tables import export_pairs

    assert summary.standings is not None
    ok = True
    for path in paths:
        try:
            export_pairs(summary.standings, path, plan.sprt)
        except OSError as exc:  # e.g. the folder went away during the run
            ok = False
            err.print(
                f"[red]error:[/red] --export {str(path)!r}: cannot write it "
                f"({exc.strerror}); the results are in {plan.out_dir / RESULTS_FILE}",
                highlight=False,
            )
    return ok


def _exit_for(
    err: Console, summary: RunSummary, out: Path, max_attempts: int, as_json: bool
) -> None:
    """Tell what is left to do, and exit with the matching code."""
    for lowered in summary.lowered:  # (said during the run too, as it happened)
        err.print(f"note: {lowered}", highlight=False)
    if summary.interrupted:
        err.print(
            f"interrupted: {summary.total - summary.done} matches left; continue with "
            f"bidref tournament --resume --out {out}",
            highlight=False,
        )
        raise typer.Exit(code=ExitCode.INTERRUPTED)
    if summary.stopped is not None:
        from rich.text import Text

        from ..match.outcome import EndReason
        from ..match.startup_evidence import evidence_hint
        from ..visible import visible
        from .match_cmd import STARTUP_HINT

        # (as text: the engine's own words are in it, never rich markup)
        err.print(
            Text.assemble(
                ("error:", "red"),
                f" {visible(str(summary.stopped))}. Check the engine with bidref check-engine, "
                "then "
                f"continue with --resume --out {out}",
            ),
            highlight=False,
        )
        if summary.stopped_by is EndReason.STARTUP:
            hint = evidence_hint(str(summary.stopped)) or STARTUP_HINT
            err.print(Text(hint, style="yellow"), highlight=False)
        raise typer.Exit(code=ExitCode.FAILED)
    if summary.refused:  # each said above, with the file and both sha256
        err.print(
            f"{len(summary.refused)} matches were not played: an engine changed since the "
            f"tournament recorded it; restore its build, then --resume --out {out}",
            highlight=False,
        )
        raise typer.Exit(code=ExitCode.FAILED)
    if summary.sprt_stopped and not as_json:
        err.print("SPRT decided: the tournament stopped early", highlight=False)
    if summary.unresolved:
        err.print(
            f"{len(summary.unresolved)} matches were aborted {max_attempts} times; "
            f"try again with --resume --out {out}",
            highlight=False,
        )
        raise typer.Exit(code=ExitCode.FAILED)
    if summary.failed:
        err.print(
            f"{len(summary.failed)} matches did not start (unrated: an engine failed to "
            "start, or a network engine's client was not there in time); play them with "
            f"--resume --out {out}",
            highlight=False,
        )
        raise typer.Exit(code=ExitCode.FAILED)
