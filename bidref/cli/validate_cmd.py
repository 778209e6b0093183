"""`bidref validate FILE`: check a hand-written move sequence against the rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..movefile.validate import Verdict, validate_bytes
from ..render.export import write_frames
from ..render.layout import LayoutPicture
from ..render.results import player_name, result_text, rounds_table
from ..render.svg import Frame
from ..transcript.files import looks_like_transcript
from . import app
from .exit_codes import ExitCode
from .options import Refused


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _show(console: Console, name: str, v: Verdict, picture: bool) -> None:
    undealt = v.phase == "not dealt"
    played = (v.round or 0) - (1 if undealt else 0)
    console.print(
        f"[bold green]{name}: valid[/] — {_plural(v.actions, 'action')} in "
        f"{_plural(played, 'round')}",
        highlight=False,
    )
    if v.rounds:
        console.print(rounds_table(v.rounds))
    if v.balances is not None:
        console.print(f"Balances: A {v.balances[0]} · B {v.balances[1]}", highlight=False)
    if undealt:
        console.print(
            f"Round {v.round} is not dealt in the file: give its deal ('hand A:', "
            "'hand B:') to go on",
            highlight=False,
        )
    elif v.result is None:
        console.print(
            f"In play: round {v.round}, {v.phase} phase, player {player_name(v.to_act)} to act",
            highlight=False,
        )
    console.print(result_text(v.result, v.balances))
    if picture and v.layout is not None:
        console.print()
        console.print(LayoutPicture(v.layout))


@app.command("validate")
def validate(
    file: Annotated[
        Path, typer.Argument(help="Move file (text or JSON); '-' reads stdin.", show_default=False)
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a machine-readable verdict.")
    ] = False,
    picture: Annotated[
        bool, typer.Option("--picture/--no-picture", help="Draw the last layout.")
    ] = True,
    svg: Annotated[
        Path | None,
        typer.Option(
            "--svg",
            metavar="DIR",
            help="Write one SVG per layout state and an index.html stepping through them.",
        ),
    ] = None,
) -> None:
    """Check a game typed by hand, one action per line, against the rules.

    The file gives a deal ('seed: 7', or 'hand A: …' / 'hand B: …' lines) and
    then the actions in bidref notation; '#' starts a comment:

        hand A: 0-1 0-4 0-5 1-1 1-4 3-6 5-5
        hand B: 0-3 0-6 2-5 2-6 3-5 4-6 5-6
        A: open 5-5
        B: play 2-5 5-5:line_b
        A: draw 2-3

    Optional header lines: 'boneyard: …' (draw order; without it every draw
    names its tile), 'balances: 165 135', 'max rounds: 3'. 'A:'/'B:' prefixes,
    written forced passes ('A: pass') and 'round 2' markers are checked. JSON
    files ({"seed": 7, "actions": [...]}) work too; see docs/replay.md.

    Example: bidref validate examples/score-sheet.txt

    Exit codes: 0 valid; 1 an illegal action or a disagreement
    (FILE:LINE: illegal: …); 2 malformed input (FILE:LINE:COL: …).
    """
    name = str(file)
    try:
        data = typer.get_binary_stream("stdin").read() if name == "-" else file.read_bytes()
    except OSError as e:
        raise Refused(f"{name}: cannot read: {e.strerror or e}") from None
    if looks_like_transcript(data):
        raise Refused(
            f"{name}: this is a match transcript, not a move file: use `bidref replay {name}` "
            f"to verify it (`bidref replay {name} --moves FILE` writes its move file)"
        )
    verdict = validate_bytes(data)
    if svg is not None:
        frames = [
            Frame(f"{name}:{line} · round {rnd} · {text}", lay, last)
            for line, rnd, text, lay, last in verdict.pictures
        ]
        try:
            write_frames(svg, frames, f"bidref validate {name}")
        except OSError as e:
            raise Refused(f"{svg}: cannot write: {e.strerror or e}") from None
    if as_json:
        typer.echo(json.dumps({"file": name, **verdict.to_dict()}, indent=2))
        raise typer.Exit(code=verdict.exit_code)
    if verdict.problem is not None:
        typer.echo(verdict.problem.format(name), err=True)
        if picture and verdict.problem.kind != "malformed" and verdict.layout is not None:
            console = Console(highlight=False)
            console.print(f"The layout before line {verdict.problem.line}:")
            console.print(LayoutPicture(verdict.layout))
        raise typer.Exit(code=verdict.exit_code)
    _show(Console(highlight=False), name, verdict, picture)
    raise typer.Exit(code=ExitCode.OK)
