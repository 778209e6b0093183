"""`bidref play`: a person at the terminal against an engine, or two people on one device."""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console
from rich.text import Text

from ..engines import EngineSpec, resolve_engine
from ..engines.spec import check_runnable
from ..match.referee import LiveState, MatchOutcome, MatchSpec, run_match
from ..players import EngineSeat, Seat
from ..players.human import HumanSeat, WatchedEngineSeat
from ..render.layout import LayoutPicture
from ..rules import SECOND, TimeControl
from ..tui.keys import TerminalKeys
from ..tui.live import LiveDisplay
from ..tui.session import PlaySession
from ..visible import visible
from . import app
from .common import (
    BankOption,
    DelayOption,
    ForceOption,
    FreezeIdleOption,
    MaxRoundsOption,
    SeedOption,
    StartupOption,
    TranscriptOption,
    TransportOption,
    exit_code_for,
    freeze_idle_of,
    signals_interrupt,
)
from .sandbox_opts import JAIL_DEFAULTS, JailArgs, sandbox_options

HUMAN = "human"


class _Held(logging.Handler):
    """Keeps log records while the play screen owns the terminal; shown afterwards."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname.lower()}: {record.getMessage()}")


def _on_a_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno()) and sys.stdout.isatty()
    except (OSError, ValueError):  # no file descriptor at all (e.g. captured streams)
        return False


# play's own arguments, declared here so that its signature stays one line each
_SeatA = Annotated[
    str,
    typer.Argument(
        help="Seat A: 'human', or an engine (an executable, a .py file, a quoted command "
        "line, or an engine file)."
    ),
]
_SeatB = Annotated[str, typer.Argument(help="Seat B: 'human' or an engine (same forms).")]


@app.command("play")
@sandbox_options
def play(
    seat_a: _SeatA,
    seat_b: _SeatB,
    seed: SeedOption = None,
    bank: BankOption = 120.0,
    delay: DelayOption = 10.0,
    transcript: TranscriptOption = None,
    max_rounds: MaxRoundsOption = None,
    transport: TransportOption = "pipe",
    startup: StartupOption = 10.0,
    force: ForceOption = False,
    freeze_idle: FreezeIdleOption = None,
    jail: JailArgs = JAIL_DEFAULTS,  # the jail options (cli/sandbox_opts.py)
) -> None:
    """Play a match yourself: against an engine, or two people on one terminal.

    Examples (after `make -C sample_engines`):

        bidref play human sample_engines/python_random/engine.py --seed 7

        bidref play sample_engines/c_first/engine human --bank 60 --delay 5

        bidref play human human --max-rounds 3        (hot-seat: pass the device)

    Type an action's number, the action (`play 1-3 1-1:branch_b`, `bid 20`,
    `draw`), or any unique start of it (Tab completes); `rules [topic]` and
    `help` show text while your clock keeps running; Ctrl-C resigns (asks
    first). The clocks stand still at each deal and end-of-round count until
    you press Enter, and in hot-seat play until the next player reveals
    their hand. Exit codes: 0 a finished match, 2 bad arguments, 3 an engine
    failed to start, 4 aborted.
    """
    from .options import Refused as bad  # printed and exit 2 by the CLI's one handler

    args = (seat_a, seat_b)
    humans = [i for i, a in enumerate(args) if a.strip().lower() == HUMAN]
    if not humans:
        raise bad(
            "neither seat is 'human': to watch two engines play, use `bidref match "
            f"{seat_a} {seat_b}`"
        )
    from . import options

    options.transport(transport)
    options.clock(bank, delay)
    options.startup_ns(startup)
    options.output_file("--transcript", transcript, force=force)
    if not _on_a_terminal():
        raise bad(
            "`bidref play` needs a terminal for the person at the keyboard "
            "(stdin and stdout must be a terminal)"
        )
    specs = _seat_specs(args, humans, jail, transcript)
    tr: Literal["pipe", "pty"] = "pty" if transport == "pty" else "pipe"
    spec = MatchSpec(
        engines=(specs[0], specs[1]),
        seed=seed,
        time_control=TimeControl.of_seconds(bank, delay),
        max_rounds=max_rounds,
        illegal="reject",
        transport=tr,
        startup_timeout_ns=round(startup * SECOND),
        # Events reach the screen (and Start/Continue pauses the match) as
        # they happen, not with the next request.
        eager_events=True,
        freeze_idle=freeze_idle_of(freeze_idle, jail.sandbox),
    )
    # One name per engine, here as in `match`: the command line's (docs/play.md,
    # "Names"), shown with its control characters escaped (an engine's file name
    # is the entrant's: it may hold an escape sequence).
    names = (visible(specs[0].name), visible(specs[1].name))
    clock = time.monotonic_ns
    console = Console()
    with _held_log() as held, signals_interrupt(ctrl_c=False):  # Ctrl-C is a key here
        outcome, session = _play(spec, specs, humans, names, tr, transcript, clock, console)
    _print_end(console, held, session, replace(outcome, engines=names))
    raise typer.Exit(code=exit_code_for(outcome))


def _seat_specs(
    args: tuple[str, str], humans: list[int], jail: JailArgs, transcript: Path | None
) -> list[EngineSpec]:
    """Each seat's engine, in the jail the options say (a person's seat: a stand-in
    named human); an engine that cannot start, or a jail this machine cannot give, is
    refused here, before the terminal is taken."""
    from .sandbox_opts import jail_engines

    specs: list[EngineSpec] = []
    for i, a in enumerate(args):
        if i in humans:
            specs.append(EngineSpec(name=HUMAN, command=(HUMAN,)))
            continue
        specs.append(resolve_engine(a))
        check_runnable(specs[-1], a)  # refused before the terminal is taken
    config = jail.config(hide=[transcript])  # refused: printed, exit 2 by the one handler
    return [s if i in humans else jail_engines([s], config)[0] for i, s in enumerate(specs)]


@contextmanager
def _held_log() -> Iterator[list[str]]:
    """The library's log lines while the match has the screen: held (they would tear
    it), to be shown after it."""
    held = _Held()
    lib_log = logging.getLogger("bidref")
    lib_log.addHandler(held)
    propagate, lib_log.propagate = lib_log.propagate, False
    try:
        yield held.lines
    finally:
        lib_log.removeHandler(held)
        lib_log.propagate = propagate


def _print_end(
    console: Console, held: list[str], session: PlaySession, outcome: MatchOutcome
) -> None:
    """After the match, on the terminal given back: the log lines held during it,
    the last layout and round end, the result and where the transcript is."""
    for line in held:
        console.print(Text(visible(line, lines=True)), style="yellow", highlight=False)
    if session.layout.placed:
        console.print(LayoutPicture(session.layout), highlight=False)
    if session.last_round_end is not None and session.over:
        console.print(session.last_round_end, highlight=False)
    style = "green" if outcome.reason.rated else "red"
    # (as text: the engine's own words may be in it, never rich markup)
    console.print(Text(visible(f"result: {outcome.summary()}"), style=style), highlight=False)
    if outcome.transcript_path is not None:
        console.print(f"transcript: {outcome.transcript_path}", highlight=False)


def _play(
    spec: MatchSpec,
    specs: list[EngineSpec],
    humans: list[int],
    names: tuple[str, str],
    tr: Literal["pipe", "pty"],
    transcript: Path | None,
    clock: Callable[[], int],
    console: Console,
) -> tuple[MatchOutcome, PlaySession]:
    """The match on the terminal: character mode, the live screen, the seats."""
    with (
        TerminalKeys(sys.stdin.fileno(), clock) as keys,
        LiveDisplay(console, clock, names) as display,
    ):
        session = PlaySession(keys=keys, display=display, clock=clock, humans=humans, names=names)
        # An engine's thinking time also watches the keys: Ctrl-C asks at once.
        seats: list[Seat] = [
            HumanSeat(session, i, HUMAN)
            if i in humans
            else WatchedEngineSeat(
                EngineSeat(specs[i].at_seat(i), transport=tr, clock=clock), session
            )
            for i in (0, 1)
        ]

        def observe(state: LiveState) -> None:
            session.on_state(state.banks_ns, state.to_act, state.balances, state.turn)

        outcome = run_match(
            spec, transcript_path=transcript, clock=clock, seats=seats, observer=observe
        )
    return outcome, session
