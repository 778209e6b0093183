"""`bidref match`: play one match between two engines, live.

Heavy modules (the referee, rich) are imported inside the command, so that
``bidref --help`` starts fast.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from ..visible import visible
from . import app
from .common import (
    BankOption,
    DebugOption,
    DelayOption,
    EachOption,
    EngineOption,
    ForceOption,
    FreezeIdleOption,
    IllegalOption,
    JsonOption,
    MaxRoundsOption,
    SeedOption,
    StartupOption,
    TranscriptOption,
    TransportOption,
    freeze_idle_of,
)
from .piped import output_console
from .remote import ConnectInfoOption, TlsCertOption, TlsKeyOption
from .sandbox_opts import JAIL_DEFAULTS, JailArgs, sandbox_options

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console
    from rich.table import Table

    from ..engines.spec import EngineSpec
    from ..match.referee import LiveState, MatchOutcome, MatchSpec
    from ..net.seat import Link, NetworkSeat
    from ..players import Seat
    from ..rules.clock import TimeControl

# Shown under a start-up failure: the two usual causes of a missing hello.
STARTUP_HINT = (
    "hint: an engine that never answers its hello often writes to a buffered stdout "
    "(C stdio, Python's print to a pipe, ...): flush after every line, or run it with "
    "--transport pty. Try it alone with: bidref check-engine ENGINE"
)


def startup_hint(outcome: MatchOutcome) -> str:
    """The hint under a start-up failure: the cause its stderr shows (a traceback, a
    missing module or file, a permission error), else the usual causes of a missing
    hello; for an engine that did write lines (so its output is flushed), what it
    missed."""
    from ..match.startup_evidence import evidence_hint

    seat = outcome.end.at_seat
    # What its stderr shows comes first: a traceback is not a buffered stdout.
    words = outcome.last_stderr[seat] if seat in (0, 1) else ""
    evidence = evidence_hint(words) or evidence_hint(outcome.end.problem_text or "")
    if evidence:
        return evidence
    logs = next(
        (x.get("log_lines") for x in outcome.exits if x.get("seat") == seat and seat is not None),
        0,
    )
    if isinstance(logs, int) and logs > 0:
        return (
            f"hint: the engine wrote {logs} log lines but no hello: it must answer the "
            "referee's hello with its own first, within the start-up time "
            "(protocols/PROTOCOL.md, Start-up and end). Try it alone with: "
            "bidref check-engine ENGINE"
        )
    return STARTUP_HINT


def _clock_text(ns: int) -> str:
    from ..rules import SECOND

    return f"{ns / SECOND:7.2f} s"


Links = tuple["Link | None", "Link | None"]


def link_text(link: Link, now: int) -> str:
    """A network seat's connection for the live table, e.g. ``disconnected for 3.2 s``."""
    from ..rules import SECOND

    if link.ended:  # (its client was let go, or let itself go, as the match ended)
        return "closed: the match is over"
    if link.since is None:
        return "waiting for its client"
    if link.connected:
        return "connected" if link.connections <= 1 else f"connected (again, {link.connections}x)"
    return f"disconnected for {(now - link.since) / SECOND:.1f} s"


def render_state(state: LiveState, links: Links | None = None, now: int | None = None) -> Table:
    """The live panel: one row per player (balance, bank, and for a network seat
    its connection), then the last action."""
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title=f"round {state.round} · turn {state.turn} · {state.decisions} decisions",
        title_justify="left",
        expand=False,
    )
    table.add_column("seat")
    table.add_column("engine")
    table.add_column("balance", justify="right")
    table.add_column("bank", justify="right")
    networked = links is not None and any(link is not None for link in links)
    if networked:
        table.add_column("network")
    for i in (0, 1):
        mark = "▶ " if state.to_act == i else "  "
        row: list[str | Text] = [
            f"{mark}{'AB'[i]}",
            Text(visible(state.engines[i])),
            str(state.balances[i]),
            _clock_text(state.banks_ns[i]),
        ]
        if networked:
            link = links[i] if links is not None else None
            if link is None:
                row.append(Text("local", style="dim"))
            else:
                text = link_text(link, now or 0)
                lost = not (link.connected or link.ended)
                row.append(Text(text, style="bold red" if lost else "green"))
        table.add_row(*row)
    if state.last:
        table.caption = Text(visible(f"last: {state.last}"))
        table.caption_justify = "left"
    return table


class LiveMatchView:
    """What the live display shows: the last :class:`LiveState` the referee
    reported, with each network seat's connection read afresh at every redraw,
    so that a client that drops between two actions shows at once, and the bank
    of the seat to act running down between reports (:func:`running`).

    ``waiting``: what to show before the first report (the names, balances and
    banks the match starts with); ``clock``: the referee's (by default, a
    network seat's or the monotonic clock)."""

    def __init__(
        self,
        remote: tuple[NetworkSeat | None, NetworkSeat | None],
        waiting: LiveState | None = None,
        clock: Callable[[], int] | None = None,
    ) -> None:
        import time

        self.remote = remote
        self.waiting = waiting
        seat = remote[0] or remote[1]
        self.clock = clock or (seat.clock if seat is not None else time.monotonic_ns)
        self.state: LiveState | None = None
        self.since = 0  # the clock time of the last report

    def update(self, state: LiveState) -> None:
        self.state = state
        self.since = self.clock()

    def __rich__(self) -> Table | str:
        links: Links = (
            None if self.remote[0] is None else self.remote[0].link(),
            None if self.remote[1] is None else self.remote[1].link(),
        )
        seat = self.remote[0] or self.remote[1]
        now = self.clock()
        if self.state is not None:
            return render_state(running(self.state, now - self.since), links, now)
        if seat is None:
            return ""
        from dataclasses import replace

        from ..match.spec import LiveState

        waiting = self.waiting or LiveState(("", ""), 0, 0, (150, 150), (0, 0), 0, None, None, 0)
        return render_state(replace(waiting, last="waiting for the engines"), links, now)


def running(state: LiveState, elapsed_ns: int) -> LiveState:
    """``state`` as it stands ``elapsed_ns`` after the referee reported it: the
    seat to act spends its delay, then its bank (the referee's own figure
    replaces this estimate at its next report). A seat whose client is gone is
    on move all the same: its bank runs down (issue 35, item 6).

    >>> from bidref.match.spec import LiveState
    >>> s = LiveState(("a", "b"), 1, 1, (150, 150), (30 * 10**9, 30 * 10**9), 10**9, 1, None, 0)
    >>> running(s, 9 * 10**9).banks_ns
    (30000000000, 22000000000)
    """
    from dataclasses import replace

    if state.to_act is None or state.outcome is not None:
        return state
    p = state.to_act
    spent = max(0, elapsed_ns - state.delay_ns)
    banks = list(state.banks_ns)
    banks[p] = max(0, banks[p] - spent)
    return replace(state, banks_ns=(banks[0], banks[1]))


def waiting_state(spec: MatchSpec, names: tuple[str, str]) -> LiveState:
    """What the live table shows before the engines are there: their names, the
    balances and banks the match starts with."""
    from ..match.spec import LiveState
    from ..rules.phase import START_BALANCE

    clocks = spec.time_controls or (spec.time_control, spec.time_control)
    return LiveState(
        engines=names,
        round=0,
        turn=0,
        balances=(START_BALANCE, START_BALANCE),
        banks_ns=(clocks[0].bank, clocks[1].bank),
        delay_ns=spec.time_control.delay,
        to_act=None,
        last=None,
        decisions=0,
    )


# match's own options, declared here so that its signature stays one line each
_EngineA = Annotated[
    str | None,
    typer.Argument(
        metavar="ENGINE_A",
        help="Engine in seat A: an executable, a .py file, a quoted command line, "
        "or an engine file (.toml/.json). Or give both engines with --engine.",
        show_default=False,
    ),
]
_EngineB = Annotated[
    str | None,
    typer.Argument(metavar="ENGINE_B", help="Engine in seat B (same forms).", show_default=False),
]
_Tolerance = Annotated[
    float,
    typer.Option(
        help="The referee's timing tolerance, in ms (docs/match.md, 'Clock promises'): "
        "a reply read later than this after the deadline, that may have come in time, "
        "aborts the match unrated instead of being judged.",
        metavar="MS",
    ),
]
_StderrDir = Annotated[
    Path | None,
    typer.Option(
        metavar="DIR",
        help="Keep each engine's stderr (capped) in a log file in this folder.",
        file_okay=False,
    ),
]
_RawLines = Annotated[
    bool,
    typer.Option(
        "--raw-lines",
        metavar="",
        help="Keep every raw line sent to and read from the engines in the transcript "
        "(for debugging an engine; about 10x larger).",
    ),
]


@app.command("match")
@sandbox_options
def match(
    engine_a: _EngineA = None,
    engine_b: _EngineB = None,
    engine: EngineOption = None,
    each: EachOption = None,
    seed: SeedOption = None,
    bank: BankOption = 120.0,
    delay: DelayOption = 10.0,
    transcript: TranscriptOption = None,
    max_rounds: MaxRoundsOption = None,
    illegal: IllegalOption = "reject",
    transport: TransportOption = "pipe",
    startup: StartupOption = 10.0,
    tolerance: _Tolerance = 1.0,
    stderr_dir: _StderrDir = None,
    debug: DebugOption = False,
    force: ForceOption = False,
    json_out: JsonOption = False,
    connect_info: ConnectInfoOption = None,
    tls_cert: TlsCertOption = None,
    tls_key: TlsKeyOption = None,
    raw_lines: _RawLines = False,
    freeze_idle: FreezeIdleOption = None,
    jail: JailArgs = JAIL_DEFAULTS,  # the jail options (cli/sandbox_opts.py)
) -> None:
    """Play a match between two engines and print the result.

    Examples (after `make -C sample_engines`):

        bidref match sample_engines/c_first/engine \\
            sample_engines/python_greedy/engine.py \\
            --seed 7 --bank 10 --delay 0.5 --transcript t.jsonl

    Fast, strict testing of your engine (a quoted command line, or an engine
    file with name, command, cwd, env, options), one JSON result:

        bidref match "python3 my_bot.py --fast" sample_engines/c_first/engine \\
            --bank 2 --delay 0.05 --illegal forfeit --json

    cutechess-style engines: a name, options, a handicap clock, every line
    to and from the engines on stderr:

        bidref match -e "cmd=sample_engines/c_first/engine name=fast tc=5+0.1" \\
            -e "cmd=sample_engines/python_greedy/engine.py name=slow" \\
            --each "option.depth=2" --bank 20 --delay 1 --debug

    An engine whose stdout is buffered on pipes (e.g. C stdio without fflush):
    add --transport pty (or transport=pty in its --engine).

    Exit codes: 0 a finished match (whoever won), 2 bad arguments, 3 an engine
    failed to start, 4 aborted by a referee timing fault, 130 interrupted
    (Ctrl-C, SIGTERM or SIGHUP: the engines are ended all the same).
    """
    from . import options as opt
    from .sandbox_opts import jail_engines

    base = opt.clock(bank, delay)
    startup_ns = opt.startup_ns(startup)
    tr = opt.transport(transport)
    ill: Literal["reject", "forfeit"] = "forfeit" if illegal == "forfeit" else "reject"
    transcript = opt.output_file("--transcript", transcript, force=force)
    tolerance_ns = _tolerance_ns(tolerance)
    positional = [a for a in (engine_a, engine_b) if a is not None]
    engines, args = _engines(positional, engine or [], each or [])
    folder = opt.output_folder("--stderr-dir", stderr_dir)
    opt.stderr_logs(folder, [e.name for e in engines], force=force)
    config = jail.config(hide=[transcript, folder])
    engines = jail_engines(engines, config)
    remote = _Remote(args, connect_info, tls_cert, tls_key)
    out = _Output(transcript, folder, debug, json_out, raw_lines)
    freeze = freeze_idle_of(freeze_idle, jail.sandbox)
    _play(engines, base, seed, max_rounds, ill, tr, startup_ns, tolerance_ns, out, remote, freeze)


def _tolerance_ns(tolerance: float) -> int:
    """--tolerance MS in ns, checked."""
    from .options import Refused

    if not 0 <= tolerance <= 60_000:
        raise Refused(f"--tolerance {tolerance:g}: give a number of ms from 0 to 60000 (default 1)")
    return round(tolerance * 1_000_000)


@dataclass(frozen=True)
class _Output:
    """What the match writes and shows besides the referee's work: the transcript,
    each engine's stderr log, --debug's lines, --json's result, --raw-lines."""

    transcript: Path | None
    stderr_dir: Path | None
    debug: bool
    json_out: bool
    raw_lines: bool


@dataclass(frozen=True)
class _Remote:
    """What network seats need (docs/network.md): each seat's engine argument
    (``listen://HOST:PORT`` for a remote engine) and the TLS/connect-info options."""

    args: tuple[str, str]
    connect_info: Path | None
    tls_cert: Path | None
    tls_key: Path | None


def _engines(
    positional: list[str], engine_opts: list[str], each_opts: list[str]
) -> tuple[tuple[EngineSpec, EngineSpec], tuple[str, str]]:
    """The two engines, and each seat's argument text (``listen://...`` for a
    network seat, which no local check applies to)."""
    from ..net import is_listen
    from ..net.match_seats import engine_spec_for
    from . import options as opt

    local = [a for a in positional if not is_listen(a)]
    choices = iter(opt.engines(local, engine_opts, each_opts))
    specs: list[EngineSpec] = []
    texts: list[str] = []
    for arg in positional:
        if is_listen(arg):
            specs.append(engine_spec_for(arg))
            texts.append(arg)
        else:
            specs.append(next(choices).spec)
            texts.append(arg)
    for rest in choices:
        specs.append(rest.spec)
        texts.append(" ".join(rest.spec.command))
    pair = opt.two_engines(
        [opt.EngineChoice(sp, tx) for sp, tx in zip(specs, texts, strict=True)], "match"
    )
    return pair, (texts[0], texts[1])


def _play(
    pair: tuple[EngineSpec, EngineSpec],
    base: TimeControl,
    seed: int | None,
    max_rounds: int | None,
    ill: Literal["reject", "forfeit"],
    tr: Literal["pipe", "pty"],
    startup_ns: int,
    tolerance_ns: int,
    out: _Output,
    remote: _Remote,
    freeze_idle: bool = False,
) -> None:
    import json
    import secrets
    from dataclasses import replace

    from rich.markup import escape

    from ..match.referee import MatchSpec, run_match
    from ..net import is_listen
    from .common import exit_code_for, signals_interrupt
    from .options import seat_clocks

    transcript, stderr_dir, debug = out.transcript, out.stderr_dir, out.debug
    if seed is None:
        seed = secrets.randbits(63)  # shown and reusable; too many to search from a hand
    clocks = seat_clocks(pair, base)
    spec = MatchSpec(
        engines=pair,
        seed=seed,
        time_control=base,
        time_controls=clocks,
        max_rounds=max_rounds,
        illegal=ill,
        transport=tr,
        startup_timeout_ns=startup_ns,
        timing_tolerance_ns=tolerance_ns,
        stderr_dir=None if stderr_dir is None else str(stderr_dir),
        raw_lines=out.raw_lines,
        freeze_idle=freeze_idle,
    )
    seats = _seats(spec, stderr_dir, debug, remote)

    # Engines are shown and reported by the names the command line gave them
    # (unique: c_first-1, c_first-2); the name in each hello is in the transcript.
    # A remote engine has no such name: its hello's name stands.
    def shown(engines: tuple[str, str]) -> tuple[str, str]:
        a, b = (engines[i] if is_listen(remote.args[i]) else pair[i].name for i in (0, 1))
        return a, b

    if out.json_out:
        with signals_interrupt():
            outcome = run_match(spec, transcript_path=transcript, seats=seats)
        outcome = replace(outcome, engines=shown(outcome.engines))
        typer.echo(json.dumps(outcome.to_dict()))
        raise typer.Exit(code=exit_code_for(outcome))

    console = output_console(tables=True)
    when = _when(base, clocks)
    console.print(
        f"[bold]A[/bold] {escape(visible(pair[0].name))}  vs  "
        f"[bold]B[/bold] {escape(visible(pair[1].name))}"
        f"  ·  {escape(when)}  ·  seed {seed}",
        highlight=False,
    )
    # With --debug the engines' lines go to stderr as they come: a live panel
    # redrawn on the same terminal would tear them apart.
    with signals_interrupt():
        if debug:
            outcome = run_match(spec, transcript_path=transcript, seats=seats)
        else:
            outcome = _run_live(console, spec, transcript, seats, shown)
    _print_result(console, replace(outcome, engines=shown(outcome.engines)), when)


def _when(base: TimeControl, clocks: tuple[TimeControl, TimeControl] | None) -> str:
    """The match's clock, as the header line and the result say it."""
    from .options import describe_clock

    if clocks is None:
        return base.describe()
    return f"handicap: A {describe_clock(clocks[0])}, B {describe_clock(clocks[1])} (bank+delay)"


def _seats(spec: MatchSpec, stderr_dir: Path | None, debug: bool, remote: _Remote) -> list[Seat]:
    """The match's two seats: each engine's, or for a listen:// engine argument a
    network seat a remote engine connects to (once it has)."""
    import sys

    from rich.console import Console

    from ..net import is_listen
    from ..players.make import engine_seats
    from ..players.tap import DebugLog
    from .remote import listen_for_remote_engines

    seats = engine_seats(
        spec.engines,
        spec.transport,
        stderr_dir=stderr_dir,
        debug=DebugLog(sys.stderr) if debug else None,
    )
    network = listen_for_remote_engines(
        spec,
        remote.args,
        connect_info=remote.connect_info,
        tls_cert=remote.tls_cert,
        tls_key=remote.tls_key,
        err=Console(stderr=True),
    )
    if network is not None:  # a listen:// seat takes the place of its engine's seat
        seats = [network[i] if is_listen(remote.args[i]) else seats[i] for i in (0, 1)]
    return seats


def _run_live(
    console: Console,
    spec: MatchSpec,
    transcript: Path | None,
    seats: list[Seat],
    shown: Callable[[tuple[str, str]], tuple[str, str]],
) -> MatchOutcome:
    """Play the match with a live view of it (``shown``: the engines' names as shown)."""
    from dataclasses import replace

    from rich.live import Live

    from ..match.referee import run_match
    from ..net.seat import NetworkSeat

    names = shown((spec.engines[0].name, spec.engines[1].name))
    view = LiveMatchView(
        (
            seats[0] if isinstance(seats[0], NetworkSeat) else None,
            seats[1] if isinstance(seats[1], NetworkSeat) else None,
        ),
        waiting=waiting_state(spec, names),
    )
    # (the view is drawn again at every refresh: a network seat's connection
    # changes between the referee's reports)
    with Live(view, console=console, refresh_per_second=8, transient=False):

        def observe(state: LiveState) -> None:
            view.update(replace(state, engines=shown(state.engines)))

        return run_match(spec, transcript_path=transcript, seats=seats, observer=observe)


def _print_result(console: Console, outcome: MatchOutcome, when: str) -> None:
    from rich.console import Console
    from rich.text import Text

    from ..outcome import EndReason
    from .common import exit_code_for

    if not console.is_terminal:
        console.line()
    style = "green" if outcome.reason.rated else "red"
    console.print(Text(visible(f"result: {outcome.summary()}"), style=style))
    if when.startswith("handicap"):
        console.print(Text(when))
    if outcome.reason is EndReason.STARTUP:
        Console(stderr=True, soft_wrap=True).print(Text(startup_hint(outcome), style="yellow"))
    if outcome.transcript_path is not None:
        console.print(Text(f"transcript: {outcome.transcript_path}"))
    raise typer.Exit(code=exit_code_for(outcome))


def __getattr__(name: str) -> object:
    # The old name of LiveMatchView, for one release: the tournament's live view
    # (bidref.render.tournament.views.LiveView) is the one class of that name (issue 39).
    if name == "LiveView":
        warnings.warn(
            "bidref.cli.match_cmd.LiveView is now LiveMatchView; the old name goes in "
            "the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return LiveMatchView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
