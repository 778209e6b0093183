"""What the match-playing commands (`match`, `play`) share: exit codes, the
options that set up a match, and their checks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..referee import MatchOutcome

# Exit codes: a finished match (any winner or a draw) is a success.
EXIT_OK = 0
EXIT_BAD_ARGS = 2
EXIT_STARTUP = 3
EXIT_ABORTED = 4
EXIT_INTERRUPTED = 130


def exit_code_for(outcome: MatchOutcome) -> int:
    if outcome.reason == "startup":
        return EXIT_STARTUP
    if outcome.reason == "aborted":
        return EXIT_INTERRUPTED if outcome.detail.get("cause") == "interrupted" else EXIT_ABORTED
    return EXIT_OK


SeedOption = Annotated[int | None, typer.Option(
    help="Seed of the deals (default: random, and shown so the match can be replayed).")]
BankOption = Annotated[float, typer.Option(help="Each player's bank for the match, in s.")]
DelayOption = Annotated[float, typer.Option(help="Delay per genuine turn, in s.")]
TranscriptOption = Annotated[Path | None, typer.Option(
    help="Write the JSONL transcript here.", dir_okay=False)]
MaxRoundsOption = Annotated[int | None, typer.Option(
    help="Stop after N rounds and adjudicate by balance.", min=1)]
TransportOption = Annotated[str, typer.Option(
    help="pipe, or pty for engines that buffer stdout on pipes.")]
StartupOption = Annotated[float, typer.Option(
    help="Time an engine has for its hello, in s (not the game clock).")]


def clock_args_problem(transport: str, bank: float, delay: float, startup: float) -> str | None:
    """What is wrong with these options, said so the user can fix it; None if nothing."""
    if transport not in ("pipe", "pty"):
        return f"--transport {transport!r}: use pipe or pty"
    if bank < 0 or delay < 0 or startup <= 0:
        return (f"--bank {bank:g} / --delay {delay:g} / --startup {startup:g}: "
                "give bank and delay >= 0 and a positive start-up timeout")
    return None
