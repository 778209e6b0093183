"""``bidref tournament``: rated engine tournaments with paired deals that resume and scale.

The command checks its options (declared in :mod:`.tournament_options`) and
hands over: the plan and the output folder to :mod:`bidref.tournament`
(``plans``, ``resume``, ``folder``, ``backends``), the views to
:mod:`bidref.render.tournament.views`. It keeps what only the CLI does: the
consoles, one run's resources in one ExitStack (the run itself: :mod:`.tournament_run`),
the messages and the exit code (:mod:`.tournament_end`). An option, engine or
folder it cannot use is a ``UsageError``, said by the CLI's one handler (exit 2).
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from . import app
from .common import EachOption, EngineOption, FreezeIdleOption, freeze_idle_of
from .live_opts import LiveOption, PortOption, check_live
from .sandbox_opts import JAIL_DEFAULTS, JailArgs, announce, sandbox_options
from .tournament_cluster import (
    CLUSTER_DEFAULTS,
    ClusterArgs,
    cluster_options,
    cluster_trust,
)
from .tournament_end import finish
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
)
from .tournament_run import backend_for, listen, run_with_progress, term_as_interrupt

if TYPE_CHECKING:  # imported in the command (bidref --help starts fast)
    from rich.console import Console

    from bidref.tournament import Plan, PlayFn, ResultsStore, RunSummary
    from bidref.tournament.plans import Wanted
    from bidref.tournament.ratings import Sprt

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
    finish(plan, summary, outputs, running.max_attempts, err, console)


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
        listeners = listen(plan, running, resources, err)
        backend = backend_for(play, running, todo, listeners, err, plan)
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
        with term_as_interrupt():
            summary = run_with_progress(
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
