"""`bidref replay TRANSCRIPT`: verify a transcript line by line and show the game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from ..render.export import write_replay_html, write_transcript_svgs
from ..render.layout import DEFAULT_WIDTH, LayoutPicture
from ..transcript.replay import ReplayReport, Step, replay
from . import app


def _step_text(s: Step) -> Text:
    styles = {
        "action": "",
        "pass": "dim",
        "illegal": "red",
        "note": "yellow",
        "round_end": "bold cyan",
        "match_end": "bold",
        "result": "bold green",
    }
    text = Text(f"{s.line:>5}  ", style="dim")
    text.append(s.text, style=styles.get(s.kind, ""))
    return text


_STOPS = ("action", "illegal", "pass", "note", "round_end", "match_end")
"""The steps --step stops after: every event of the game, not only placements."""


def _wait(console: Console) -> bool:
    """Wait for Enter; False if the user typed q."""
    try:
        answer = console.input("[dim]Enter: next · q: quit[/] ")
    except (EOFError, KeyboardInterrupt):
        console.print()  # end the prompt's line
        return False
    return answer.strip().lower() != "q"


def _show(
    console: Console,
    report: ReplayReport,
    *,
    round_only: int | None,
    step: bool,
    final: bool,
    width: int,
    interactive: bool,
) -> None:
    for s in report.steps:
        if round_only is not None and s.round != round_only and s.kind != "result":
            continue
        if s.kind == "round_start":
            console.print(Rule(s.text, align="left"))
            continue
        if final:
            if s.kind == "round_end":
                if s.layout is not None:
                    console.print(LayoutPicture(s.layout, width=width))
                console.print(_step_text(s))
            elif s.kind in ("result", "match_end", "note"):
                console.print(_step_text(s))
            continue
        console.print(_step_text(s))
        detailed = step or round_only is not None
        if detailed and s.kind == "action" and s.layout is not None:
            console.print(LayoutPicture(s.layout, last=s.last, width=width))
            console.print()
        if step and interactive and s.kind in _STOPS and not _wait(console):
            return
        if not detailed and s.kind == "round_end" and s.layout is not None:
            console.print(LayoutPicture(s.layout, width=width))
    if final or round_only is None:
        lay = report.final_layouts.get(max(report.final_layouts, default=0))
        ended = {s.round for s in report.steps if s.kind == "round_end"}
        last_round = max(report.final_layouts, default=0)
        if lay is not None and last_round not in ended:
            console.print(
                Text(f"Layout of round {last_round} where the game stopped:", style="bold")
            )
            console.print(LayoutPicture(lay, width=width))


@app.command("replay")
def replay_command(
    transcript: Annotated[
        Path,
        typer.Argument(
            help="A transcript written by `bidref match --transcript`; '-' reads stdin.",
            show_default=False,
        ),
    ],
    round_: Annotated[
        int | None,
        typer.Option(
            "--round", min=1, help="Show only round N, with the layout after every placement."
        ),
    ] = None,
    step: Annotated[
        bool,
        typer.Option(
            "--step", help="Walk event by event with the layout after each placement (Enter: next)."
        ),
    ] = False,
    final: Annotated[
        bool, typer.Option("--final", help="Show only each round's final layout and the results.")
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print the verified event stream as JSON lines, then a verdict."
        ),
    ] = False,
    svg: Annotated[
        Path | None,
        typer.Option(
            "--svg",
            help="Write one SVG per layout state and an index.html stepping through them into DIR.",
            metavar="DIR",
        ),
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Write the match as one self-contained HTML page to step through (no network).",
            metavar="OUT.html",
        ),
    ] = None,
    width: Annotated[
        int, typer.Option("--width", min=24, help="Width of the terminal pictures.")
    ] = DEFAULT_WIDTH,
) -> None:
    """Verify a match transcript through the rules and show the game.

    Every line is checked: deal commitments and the seed, legality, counts,
    transfers, balances, drawn tiles, clock arithmetic, end reasons and the
    result. The first disagreement is reported as TRANSCRIPT:LINE.

    Pictures: the line runs across, the spinner (heavy border) has its
    branches up and down; (n) is a scoring end that counts n, <n> a legal
    place that counts nothing. --step stops after every event: Enter for the
    next, q to stop. --html OUT.html writes the whole match as one page to
    step through in a browser, offline.

    Example: bidref replay t.jsonl --round 2

    Exit codes: 0 verified clean; 1 a disagreement (or an unreadable line);
    2 the file cannot be read (or no such round); 3 verified as far as it goes,
    but truncated.
    """
    name = str(transcript)
    try:
        data = typer.get_binary_stream("stdin").read() if name == "-" else transcript.read_bytes()
    except OSError as e:
        typer.echo(f"{name}: cannot read: {e.strerror or e}", err=True)
        raise typer.Exit(code=2) from None
    report = replay(data)
    rounds = sorted({s.round for s in report.steps if s.kind == "round_start"})
    if round_ is not None and round_ not in rounds:
        shown = f"rounds {rounds[0]}–{rounds[-1]}" if rounds else "no rounds"
        typer.echo(f"{name}: there is no round {round_} in this transcript ({shown})", err=True)
        raise typer.Exit(code=2)
    pictures = None
    try:
        if svg is not None:
            pictures = write_transcript_svgs(svg, data, f"bidref replay {name}")
        if html is not None:
            problem = report.problem
            warning = f"bidref replay: line {problem.line}: {problem.message}" if problem else None
            write_replay_html(html, data, f"bidref replay {name}", warning)
    except OSError as e:
        typer.echo(f"{e.filename or svg or html}: cannot write: {e.strerror or e}", err=True)
        raise typer.Exit(code=2) from None
    if as_json:
        for item in report.stream:
            typer.echo(json.dumps(item, ensure_ascii=False))
        typer.echo(json.dumps(report.verdict(), ensure_ascii=False))
        raise typer.Exit(code=report.exit_code)
    console = Console(highlight=False)
    interactive = console.is_terminal and typer.get_text_stream("stdin").isatty()
    _show(
        console,
        report,
        round_only=round_,
        step=step,
        final=final,
        width=min(width, console.width),
        interactive=interactive,
    )
    if svg is not None:
        console.print(f"SVG: {pictures} pictures and index.html in {svg}")
    if html is not None:
        console.print(f"HTML replay: {html}")
    if report.problem is not None:
        typer.echo(f"{name}:{report.problem.line}: mismatch: {report.problem.message}", err=True)
    elif report.truncated:
        typer.echo(f"{name}: truncated: {report.truncated}", err=True)
        console.print(
            f"[yellow]verified {report.verified_lines} of {report.lines} lines; "
            "the transcript is incomplete[/]"
        )
    else:
        console.print(
            f"[bold green]✓ verified[/]: all {report.lines} lines agree with the "
            "rules, the deals and the clock"
        )
    raise typer.Exit(code=report.exit_code)
