"""`bidref tournament-report DIR --html OUT.html`: the HTML report of a tournament folder.

``bidref tournament … --html OUT.html`` writes the same report when the run ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..render.tournament_report import write_report
from ..tournament.runner import RESULTS_FILE
from ..tournament.store import ResultsError
from . import app


def write_html_report(out: Path, html: Path, console: Console, err: Console) -> bool:
    """Write the report of the tournament in ``out`` to ``html``; False (said on ``err``)
    if it cannot be written."""
    try:
        summary = write_report(out, html)
    except ResultsError as exc:
        err.print(f"[red]error:[/red] --html: {exc}", highlight=False)
        return False
    except OSError as exc:
        err.print(
            f"[red]error:[/red] --html {str(html)!r}: cannot write {exc.filename or html} "
            f"({exc.strerror or exc}); choose another file",
            highlight=False,
        )
        return False
    console.print(
        f"HTML report: {summary.path} ({summary.replays} of {summary.matches} matches "
        f"with a replay in {summary.path.parent / (summary.path.stem + '-replays')})",
        highlight=False,
    )
    if summary.missing:
        err.print(
            f"[yellow]warning:[/yellow] {len(summary.missing)} transcripts are missing, "
            f"e.g. {summary.missing[0]}",
            highlight=False,
        )
    return True


@app.command("tournament-report")
def tournament_report(
    folder: Annotated[
        Path,
        typer.Argument(
            help="A tournament's --out folder (results.jsonl and transcripts/).",
            show_default=False,
        ),
    ],
    html: Annotated[
        Path,
        typer.Option(
            "--html",
            help="The report to write; each match's replay page goes to OUT-replays/ beside it.",
            metavar="OUT.html",
        ),
    ],
) -> None:
    """Write an HTML report of a tournament, finished or not: standings, ratings with
    their 95 % intervals drawn, a cross-table, and every match linked to its replay.

    The pages load nothing from the network: open them from disk.

    Example: bidref tournament-report runs/c-vs-greedy --html runs/report.html

    Exit codes: 0 written; 2 no readable results in FOLDER, or OUT cannot be written.
    """
    err = Console(stderr=True)
    if not (folder / RESULTS_FILE).is_file():
        err.print(
            f"[red]error:[/red] {str(folder)!r} holds no {RESULTS_FILE}: give the --out "
            "folder of a `bidref tournament` run",
            highlight=False,
        )
        raise typer.Exit(code=2)
    if not write_html_report(folder, html, Console(), err):
        raise typer.Exit(code=2)
