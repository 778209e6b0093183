"""`bidref tournament-report DIR --html OUT.html | --serve`: the HTML report of a tournament folder.

``bidref tournament … --html OUT.html`` writes the same report when the run ends.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..render.tournament.report import write_report
from ..tournament.runner import RESULTS_FILE
from ..tournament.store import ResultsError
from . import app
from .exit_codes import ExitCode


def write_html_report(
    out: Path, html: Path, console: Console, err: Console, replays: bool = False
) -> bool:
    """Write the report of the tournament in ``out`` to ``html``; False (said on ``err``)
    if it cannot be written."""
    try:
        summary = write_report(out, html, replays=replays)
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
    if replays:
        where = f"with a replay in {summary.path.parent / (summary.path.stem + '-replays')}"
        console.print(
            f"HTML report: {summary.path} ({summary.replays} of {summary.matches} matches {where})",
            highlight=False,
        )
    else:
        console.print(
            f"HTML report: {summary.path} ({summary.matches} matches; their replays: "
            f"bidref tournament-report {out} --serve)",
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
        Path | None,
        typer.Option(
            "--html",
            help="Write the report to this file; its matches link to their transcripts.",
            metavar="OUT.html",
        ),
    ] = None,
    serve: Annotated[
        bool,
        typer.Option(
            "--serve",
            help="Serve the report on 127.0.0.1 until Ctrl-C, each match's replay made "
            "from its transcript when opened (nothing is written), and at /live a page "
            "that follows a tournament still running.",
        ),
    ] = False,
    port: Annotated[
        int,
        typer.Option("--port", help="With --serve: the port (0: any free one).", min=0, max=65535),
    ] = 0,
    replays: Annotated[
        bool,
        typer.Option(
            "--replays",
            help="With --html: also write every match's replay page into OUT-replays/ "
            "(about 60 times the size of the transcripts).",
        ),
    ] = False,
) -> None:
    """Make an HTML report of a tournament, finished or not: standings, ratings with
    their 95 % intervals drawn, a cross-table, and every match with its replay.

    With --serve it shows in your browser at the address it prints, each replay
    made from the match's transcript when you open it: the folder gains nothing.
    With --html it is one file that loads nothing from the network (open it from
    disk), its matches linked to their transcripts (or, with --replays, to replay
    pages written beside it).

    Example: bidref tournament-report runs/c-vs-greedy --serve

    Example: bidref tournament-report runs/c-vs-greedy --html runs/report.html

    Exit codes: 0 written (or served until Ctrl-C); 2 no readable results in
    FOLDER, OUT cannot be written, the port cannot be bound, or neither --html
    nor --serve.
    """
    from .options import Refused  # said, exit 2, by the CLI's one handler

    err = Console(stderr=True, soft_wrap=True)  # an error is one line, never cut
    if html is None and not serve:
        raise Refused(
            "say what to make: --serve (open the report in a browser) or --html OUT.html (write it)"
        )
    if replays and html is None:
        raise Refused("--replays writes pages beside --html OUT.html: add it")
    if not (folder / RESULTS_FILE).is_file():
        raise Refused(
            f"{str(folder)!r} holds no {RESULTS_FILE}: give the --out "
            "folder of a `bidref tournament` run"
        )
    if html is not None and not write_html_report(folder, html, Console(), err, replays):
        raise typer.Exit(code=ExitCode.USAGE)
    if serve:
        _serve(folder, port)


def _serve(folder: Path, port: int) -> None:
    from ..live.server import LiveServer
    from .options import Refused

    try:
        # the report at /, and the live page at /live (a folder still being written)
        server = LiveServer(folder, port, home="report")
    except OSError as exc:
        raise Refused(
            f"--port {port}: cannot listen on 127.0.0.1 ({exc.strerror or exc});"
            " choose another port, or 0 for any free one"
        ) from None
    host, bound = server.server_address[:2]
    Console().print(
        f"Serving the report of {folder} at http://{host!s}:{bound}/ (Ctrl-C to stop); "
        f"watch it live at http://{host!s}:{bound}/live",
        highlight=False,
        soft_wrap=True,  # one line: the address must not be cut
    )
    with server, contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: the way to stop
        server.serve_forever()
