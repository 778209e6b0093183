"""`bidref replay TRANSCRIPT`: verify a transcript line by line and show the game."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from ..render.export import write_replay_html, write_transcript_svgs
from ..render.layout import DEFAULT_WIDTH, LayoutPicture
from ..transcript.export import move_file_text
from ..transcript.files import TranscriptFileError, decompress, read_bytes
from ..transcript.replay import ReplayReport, Step, replay
from ..transcript.replay.report import name as _name
from ..transcript.stderr_log import place, read_stderr
from ..visible import visible
from . import app
from .exit_codes import ExitCode
from .options import Refused
from .piped import output_console, print_whole


def _step_text(s: Step) -> Text:
    styles = {
        "action": "",
        "pass": "dim",
        "illegal": "red",
        "note": "yellow",
        "round_end": "bold cyan",
        "match_end": "bold",
        "result": "bold green",
        "log": "dim magenta",
    }
    text = Text(f"{s.line:>5}  ", style="dim")
    text.append(_safe(s.text), style=styles.get(s.kind, ""))
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
            print_whole(console, Rule(_safe(s.text), align="left"), s.text)
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


_SURROGATE = re.compile("[\ud800-\udfff]")


def _safe(text: str, *, lines: bool = False) -> str:
    """Text any terminal can print: a lone surrogate from a hostile file as U+FFFD,
    and every control character (an engine's escape sequence) shown escaped, as
    :func:`bidref.visible.visible` does (``lines``: keep line breaks and tabs)."""
    return visible(_SURROGATE.sub("\ufffd", text), lines=lines)


def _with_logs(report: ReplayReport, stderr: list[Step]) -> list[Step]:
    """The steps with the engines' log lines and stderr lines in place (by line number,
    then time), with their times."""
    logs = [
        replace(
            s,
            kind="log",
            text=f"{_name(s.player)} log at {(s.t_ns or 0) / 1e9:.3f}s: {s.text}",
        )
        for s in report.logs
    ]
    logs += stderr
    logs = [replace(s, text=_safe(s.text)) for s in logs]
    logs.sort(key=lambda s: (s.line, s.t_ns or 0))
    merged = sorted([*report.steps, *logs], key=lambda s: (s.line, s.kind == "log"))
    return merged


def _stderr(report: ReplayReport) -> tuple[list[Step], dict[int, str]]:
    """Each engine's captured stderr: the lines with a time as steps to put in place,
    and per seat the text to show after the game — the lines without a time (a log
    from an older referee), or else the tail a crash result quotes."""
    end = report.result.detail if report.result is not None else None
    placed: list[Step] = []
    after: dict[int, str] = {}
    for seat, path in report.stderr_logs.items():
        lines = read_stderr(Path(path), report.header) if path else None
        if lines is not None:
            placed += place(report, seat, lines)
            rest = [ln.text for ln in lines if ln.t_ns is None]
            if rest:
                after[seat] = "\n".join(rest)
        elif end is not None and end.at_seat == seat and end.stderr_text:
            after[seat] = end.stderr_text
    return placed, after


def _show_stderr(console: Console, report: ReplayReport, after: dict[int, str]) -> None:
    for seat, text in after.items():
        path = report.stderr_logs.get(seat)
        if text.strip():
            title = _safe(f"stderr of {_name(seat)}" + (f" ({path})" if path else ""))
            print_whole(console, Rule(title, align="left"), title)
            console.print(Text(_safe(text.rstrip("\n"), lines=True)))


# The command's options, declared here so that its signature stays one line each.
_Transcripts = Annotated[
    list[Path],
    typer.Argument(
        help=(
            "A transcript written by `bidref match --transcript`; '-' reads stdin. "
            "With --check, any number of them."
        ),
        show_default=False,
        metavar="TRANSCRIPT...",
    ),
]
_Round = Annotated[
    int | None,
    typer.Option(
        "--round", min=1, help="Show only round N, with the layout after every placement."
    ),
]
_StepOpt = Annotated[
    bool,
    typer.Option(
        "--step", help="Walk event by event with the layout after each placement (Enter: next)."
    ),
]
_Final = Annotated[
    bool, typer.Option("--final", help="Show only each round's final layout and the results.")
]
_Json = Annotated[
    bool,
    typer.Option("--json", help="Print the verified event stream as JSON lines, then a verdict."),
]
_Svg = Annotated[
    Path | None,
    typer.Option(
        "--svg",
        help="Write one SVG per layout state and an index.html stepping through them into DIR.",
        metavar="DIR",
    ),
]
_Html = Annotated[
    Path | None,
    typer.Option(
        "--html",
        help="Write the match as one self-contained HTML page to step through (no network).",
        metavar="OUT.html",
    ),
]
_Width = Annotated[int, typer.Option("--width", min=24, help="Width of the terminal pictures.")]
_Moves = Annotated[
    Path | None,
    typer.Option(
        "--moves",
        help="Write the game as a move file that `bidref validate FILE` checks again.",
        metavar="FILE",
        dir_okay=False,
    ),
]
_Logs = Annotated[
    bool,
    typer.Option(
        "--logs", help="Show the engines' log lines in place, with their times, and their stderr."
    ),
]
_Check = Annotated[
    bool,
    typer.Option(
        "--check",
        help="Only verify, and print the verdict: no game shown (the fastest; for scripts).",
    ),
]


@app.command("replay")
def replay_command(
    transcripts: _Transcripts,
    round_: _Round = None,
    step: _StepOpt = False,
    final: _Final = False,
    as_json: _Json = False,
    svg: _Svg = None,
    html: _Html = None,
    width: _Width = DEFAULT_WIDTH,
    moves: _Moves = None,
    logs: _Logs = False,
    check: _Check = False,
) -> None:
    """Verify a match transcript through the rules and show the game.

    Every line is checked: deal commitments and the seed, legality, counts,
    transfers, balances, drawn tiles, clock arithmetic, end reasons and the
    result. The first disagreement is reported as TRANSCRIPT:LINE.

    Pictures: the line runs across, the spinner (heavy border) has its
    branches up and down; (n) is a scoring end that counts n, <n> a legal
    place that counts nothing. --step stops after every event: Enter for the
    next, q to stop. --html OUT.html writes the whole match as one page to
    step through in a browser, offline. An option that writes files (--html,
    --svg, --moves) writes them, says where and gives the verdict; add
    --final, --round, --step or --logs to see the game in the terminal too.

    Example: bidref replay t.jsonl --round 2
    (bidref replay --check OUT/transcripts/*/*.jsonl.gz verifies every line of
    each all the same and prints one verdict line per transcript.)

    Exit codes: 0 verified clean; 1 a disagreement (or an unreadable line);
    2 the file cannot be read (or no such round); 3 verified as far as it goes,
    but truncated. With --check and several transcripts: 1 if any disagrees,
    else 2 if any cannot be read, else 3 if any is truncated, else 0.
    """
    if check:
        _refuse_with_check(
            {
                "--round": round_ is not None,
                "--step": step,
                "--final": final,
                "--json": as_json,
                "--svg": svg is not None,
                "--html": html is not None,
                "--moves": moves is not None,
                "--logs": logs,
            }
        )
        raise typer.Exit(code=_check_all(transcripts))
    name, data = _one_transcript(transcripts)
    report = replay(data)
    if moves is not None:
        _write_moves(moves, report, name)
    _check_round(name, report, round_)
    pictures = _write_pages(name, data, report, svg, html)
    if as_json:
        for item in report.stream:
            typer.echo(json.dumps(item, ensure_ascii=False))
        typer.echo(json.dumps(report.verdict(), ensure_ascii=False))
        raise typer.Exit(code=report.exit_code)
    console = output_console(highlight=False)
    # An option that writes a file (--html, --svg, --moves) writes it and says
    # where; the game is shown in the terminal too only when asked for.
    writes = html is not None or svg is not None or moves is not None
    if round_ is not None or step or final or logs or not writes:
        _show_game(console, report, round_, step=step, final=final, logs=logs, width=width)
    # (soft_wrap: a long path stays on one line, whole, for a script or a click)
    if svg is not None:
        console.print(f"SVG: {pictures} pictures and index.html in {svg}", soft_wrap=True)
    if html is not None:
        console.print(f"HTML replay: {html}", soft_wrap=True)
    if moves is not None:
        console.print(
            f"move file: {moves} (check it with: bidref validate {moves})", soft_wrap=True
        )
    _verdict(name, report, console)
    raise typer.Exit(code=report.exit_code)


def _refuse_with_check(display: dict[str, bool]) -> None:
    """--check with a display option (``display``: each flag, whether given): say so
    and exit 2."""
    also = [flag for flag, given in display.items() if given]
    if also:
        raise Refused(
            f"--check only verifies, so it shows nothing that {', '.join(also)} would: "
            "drop one or the other"
        )


def _one_transcript(transcripts: list[Path]) -> tuple[str, bytes]:
    """The one transcript to show: its name and bytes (or exit 2, saying why)."""
    if len(transcripts) != 1:
        raise Refused(
            f"give one transcript to show ({len(transcripts)} given); to verify many, add --check"
        )
    transcript = transcripts[0]
    return str(transcript), _load(transcript)


def _write_moves(moves: Path, report: ReplayReport, name: str) -> None:
    """--moves: the game as a move file (or exit 2, saying why it cannot be written)."""
    try:
        moves.write_text(move_file_text(report, name), encoding="utf-8")
    except OSError as e:
        raise Refused(f"{moves}: cannot write the move file: {e.strerror or e}") from None


def _check_round(name: str, report: ReplayReport, round_: int | None) -> None:
    """--round N names a round of the transcript, or exit saying why there is none:
    the replay stopped before it (1), the transcript stops before it, or it has no
    such round (2)."""
    rounds = sorted({s.round for s in report.steps if s.kind == "round_start"})
    if round_ is None or round_ in rounds:
        return
    if report.problem is not None:
        # the replay stopped before that round: say where and why, not "no such round"
        typer.echo(
            _safe(f"{name}:{report.problem.line}: mismatch: {report.problem.message}"), err=True
        )
        typer.echo(f"{name}: the replay stopped before round {round_}", err=True)
        raise typer.Exit(code=ExitCode.FAILED)
    if report.truncated:
        last = max(report.lines, 1)
        typer.echo(_safe(f"{name}:{last}: truncated: {report.truncated}"), err=True)
        raise Refused(f"{name}: there is no round {round_} before the transcript stops")
    shown = f"rounds {rounds[0]}–{rounds[-1]}" if rounds else "no rounds"
    raise Refused(f"{name}: there is no round {round_} in this transcript ({shown})")


def _write_pages(
    name: str, data: bytes, report: ReplayReport, svg: Path | None, html: Path | None
) -> int | None:
    """--svg and --html: write them (or exit 2, saying why not); the number of SVG
    pictures written."""
    pictures = None
    try:
        if svg is not None:
            pictures = write_transcript_svgs(svg, data, f"bidref replay {name}")
        if html is not None:
            problem = report.problem
            warning = f"bidref replay: line {problem.line}: {problem.message}" if problem else None
            write_replay_html(html, data, f"bidref replay {name}", warning)
    except OSError as e:
        raise Refused(f"{e.filename or svg or html}: cannot write: {e.strerror or e}") from None
    return pictures


def _show_game(
    console: Console,
    report: ReplayReport,
    round_: int | None,
    *,
    step: bool,
    final: bool,
    logs: bool,
    width: int,
) -> None:
    """The game in the terminal (with --logs, the engines' log lines in place and
    their stderr after)."""
    interactive = console.is_terminal and typer.get_text_stream("stdin").isatty()
    after: dict[int, str] = {}
    if logs:
        placed, after = _stderr(report)
        report.steps = _with_logs(report, placed)
    _show(
        console,
        report,
        round_only=round_,
        step=step,
        final=final,
        width=min(width, console.width),
        interactive=interactive,
    )
    if logs:
        _show_stderr(console, report, after)


def _bytes_or_why(transcript: Path) -> bytes | str:
    """The transcript's bytes ('-': stdin), decompressed, or why it cannot be read."""
    name = str(transcript)
    try:
        if name == "-":
            return decompress(typer.get_binary_stream("stdin").read(), "")
        return read_bytes(transcript)
    except OSError as e:
        return f"{name}: cannot read: {e.strerror or e}"
    except TranscriptFileError as e:
        return f"{name}: {e}"


def _load(transcript: Path) -> bytes:
    """The one transcript to show: its bytes, or Refused (exit 2) saying why not."""
    got = _bytes_or_why(transcript)
    if isinstance(got, str):
        raise Refused(got)
    return got


def _read(transcript: Path) -> bytes | None:
    """One of many (--check): its bytes, or None once the reason is said (the others
    are still checked)."""
    got = _bytes_or_why(transcript)
    if isinstance(got, str):
        typer.echo(visible(got, lines=True), err=True)
        return None
    return got


# --check with several transcripts: the worst comes first
_WORST_FIRST = (1, 2, 3, 0)


def _check_all(transcripts: list[Path]) -> int:
    """Verify each transcript (no steps) and say its verdict; the exit code of all."""
    console = output_console(highlight=False)
    codes: list[int] = []
    for transcript in transcripts:
        data = _read(transcript)
        if data is None:
            codes.append(2)
            continue
        report = replay(data, steps=False)
        _verdict(str(transcript), report, console, named=len(transcripts) > 1)
        codes.append(report.exit_code)
    if len(transcripts) > 1:
        clean = codes.count(0)
        console.print(f"{clean} of {len(codes)} transcripts verified clean", soft_wrap=True)
    return min(codes, key=_WORST_FIRST.index) if codes else 0


def _verdict(name: str, report: ReplayReport, console: Console, *, named: bool = False) -> None:
    """Say how the replay ended (``named``: beginning with the transcript's name)."""
    if report.problem is not None:
        typer.echo(
            _safe(f"{name}:{report.problem.line}: mismatch: {report.problem.message}"), err=True
        )
    elif report.empty:
        typer.echo(f"{name}: empty: {report.truncated}", err=True)
        console.print(
            f"{_safe(name) + ': ' if named else ''}[yellow]nothing verified: the transcript "
            "is empty[/]",
            soft_wrap=True,
        )
    elif report.truncated:
        typer.echo(f"{name}: truncated: {report.truncated}", err=True)
        console.print(
            f"{_safe(name) + ': ' if named else ''}[yellow]verified "
            f"{report.verified_lines} of {report.lines} lines; the transcript is incomplete[/]",
            soft_wrap=True,  # one line per transcript, however long its name
        )
    else:
        console.print(
            f"{_safe(name) + ': ' if named else ''}[bold green]✓ verified[/]: all "
            f"{report.lines} lines agree with the rules, the deals and the clock",
            soft_wrap=True,
        )
