"""The end of a ``bidref tournament`` run (see :mod:`.tournament_cmd`): the
--export files, the results (tables or JSON), the HTML report, what is left to
do and the exit code."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from .exit_codes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from bidref.tournament import Plan, RunSummary

    from .tournament_options import Outputs


def finish(
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

    from bidref.render.tournament.views import FinalView
    from bidref.tournament.result import result_dict

    from .report_cmd import write_html_report

    export_failed = not _export(plan, summary, outputs.export, err)
    workers = _workers(plan)
    if outputs.as_json:
        sys.stdout.write(json.dumps(result_dict(plan, summary, workers), indent=2) + "\n")
    else:
        console.print(FinalView(plan, summary))
        if workers is not None:
            from bidref.render.tournament.tables import workers_table

            console.print(workers_table(workers))
    html = outputs.html
    report_console = err if outputs.as_json else console
    if html is not None and not write_html_report(outputs.out, html, report_console, err):
        export_failed = True
    exit_for(err, summary, outputs.out, max_attempts, outputs.as_json)
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
    from bidref.render.tournament.tables import export_pairs
    from bidref.tournament.runner import RESULTS_FILE

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


def exit_for(
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

        from ..match.startup_evidence import evidence_hint
        from ..outcome import EndReason
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
