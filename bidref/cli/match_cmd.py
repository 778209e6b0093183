"""`bidref match`: play one match between two engines, live."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..engines import EngineSpecError, resolve_engine
from ..referee import LiveState, MatchSpec, run_match
from ..rules import SECOND, TimeControl
from . import app
from .common import (
    EXIT_BAD_ARGS,
    BankOption,
    DelayOption,
    MaxRoundsOption,
    SeedOption,
    StartupOption,
    TranscriptOption,
    TransportOption,
    clock_args_problem,
    exit_code_for,
    signals_interrupt,
    transcript_problem,
)


def _clock_text(ns: int) -> str:
    return f"{ns / SECOND:7.2f} s"


def render_state(state: LiveState) -> Table:
    """The live panel: one row per player (balance, bank), then the last action."""
    table = Table(
        title=f"round {state.round} · turn {state.turn} · {state.decisions} decisions",
        title_justify="left",
        expand=False,
    )
    table.add_column("seat")
    table.add_column("engine")
    table.add_column("balance", justify="right")
    table.add_column("bank", justify="right")
    for i in (0, 1):
        mark = "▶ " if state.to_act == i else "  "
        table.add_row(
            f"{mark}{'AB'[i]}",
            Text(state.engines[i]),
            str(state.balances[i]),
            _clock_text(state.banks_ns[i]),
        )
    if state.last:
        table.caption = Text(f"last: {state.last}")
        table.caption_justify = "left"
    return table


@app.command("match")
def match(
    engine_a: Annotated[
        str,
        typer.Argument(
            help="Engine in seat A: an executable, a .py file, a quoted command line, "
            "or an engine file (.toml/.json)."
        ),
    ],
    engine_b: Annotated[str, typer.Argument(help="Engine in seat B (same forms).")],
    seed: SeedOption = None,
    bank: BankOption = 120.0,
    delay: DelayOption = 10.0,
    transcript: TranscriptOption = None,
    max_rounds: MaxRoundsOption = None,
    illegal: Annotated[
        str, typer.Option(help="reject: an illegal action gets an error reply; forfeit: it loses.")
    ] = "reject",
    transport: TransportOption = "pipe",
    startup: StartupOption = 10.0,
    stderr_dir: Annotated[
        Path | None,
        typer.Option(
            help="Keep each engine's stderr (capped) in a log file in this folder.", file_okay=False
        ),
    ] = None,
    json_out: Annotated[
        bool,
        typer.Option("--json", help="Print one JSON result object instead of the live display."),
    ] = False,
    raw_lines: Annotated[
        bool,
        typer.Option(
            "--raw-lines",
            help="Keep every raw line sent to and read from the engines in the transcript "
            "(for debugging an engine; about 10x larger).",
        ),
    ] = False,
) -> None:
    """Play a match between two engines and print the result.

    Examples (after `make -C sample_engines`):

        bidref match sample_engines/c_first/engine sample_engines/python_greedy/engine.py
        --seed 7 --bank 10 --delay 0.5 --transcript t.jsonl

    Fast, strict testing of your engine (a quoted command line, or an engine
    file with name, command, cwd, env, options), one JSON result:

        bidref match "python3 my_bot.py --fast" sample_engines/c_first/engine
        --bank 2 --delay 0.05 --illegal forfeit --json

    An engine whose stdout is buffered on pipes (e.g. C stdio without fflush):
    add --transport pty.

    Exit codes: 0 a finished match (whoever won), 2 bad arguments, 3 an engine
    failed to start, 4 aborted by a referee timing fault, 130 interrupted
    (Ctrl-C, SIGTERM or SIGHUP: the engines are ended all the same).
    """
    err = Console(stderr=True)

    def bad(message: str) -> typer.Exit:
        err.print(f"[red]error:[/red] {escape(message)}", highlight=False)
        return typer.Exit(code=EXIT_BAD_ARGS)

    if illegal not in ("reject", "forfeit"):
        raise bad(f"--illegal {illegal!r}: use reject or forfeit")
    problem = clock_args_problem(transport, bank, delay, startup) or transcript_problem(transcript)
    if problem:
        raise bad(problem)
    try:
        engines = (resolve_engine(engine_a), resolve_engine(engine_b))
    except EngineSpecError as e:
        raise bad(str(e)) from None
    if stderr_dir is not None:
        try:
            stderr_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise bad(
                f"--stderr-dir {str(stderr_dir)!r}: cannot create it "
                f"({e.strerror or e}); give another folder"
            ) from None
    if seed is None:
        seed = secrets.randbits(31)  # chosen here so that it can be shown and reused
    ill: Literal["reject", "forfeit"] = "forfeit" if illegal == "forfeit" else "reject"
    tr: Literal["pipe", "pty"] = "pty" if transport == "pty" else "pipe"
    spec = MatchSpec(
        engines=engines,
        seed=seed,
        time_control=TimeControl.of_seconds(bank, delay),
        max_rounds=max_rounds,
        illegal=ill,
        transport=tr,
        startup_timeout_ns=round(startup * SECOND),
        stderr_dir=None if stderr_dir is None else str(stderr_dir),
        raw_lines=raw_lines,
    )
    if json_out:
        with signals_interrupt():
            outcome = run_match(spec, transcript_path=transcript)
        typer.echo(json.dumps(outcome.to_dict()))
        raise typer.Exit(code=exit_code_for(outcome))

    console = Console()
    console.print(
        f"[bold]A[/bold] {escape(engines[0].name)}  vs  "
        f"[bold]B[/bold] {escape(engines[1].name)}"
        f"  ·  {spec.time_control.describe()}  ·  seed {seed}",
        highlight=False,
    )
    with signals_interrupt(), Live(console=console, refresh_per_second=8, transient=False) as live:

        def observe(state: LiveState) -> None:
            live.update(render_state(state))

        outcome = run_match(spec, transcript_path=transcript, observer=observe)
    if not console.is_terminal:
        console.line()
    style = "green" if outcome.reason not in ("startup", "aborted") else "red"
    console.print(Group(Text(f"result: {outcome.summary()}", style=style)))
    if outcome.transcript_path is not None:
        console.print(Text(f"transcript: {outcome.transcript_path}"))
    raise typer.Exit(code=exit_code_for(outcome))
