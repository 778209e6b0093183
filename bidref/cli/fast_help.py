"""``bidref --help`` and ``bidref --version`` without importing typer, rich or a command.

These two are what people (and scripts probing for bidref) run most, and the
whole typer app takes far longer to import than they deserve
(benchmarks/startup.py measures it). The text is plain; the commands and their
one-line summaries are listed here, and tests/cli/test_help.py checks that they
are exactly those of the typer app (a new command must be added here too).
Anything else, including ``bidref COMMAND --help``, goes to the typer app.
"""

from __future__ import annotations

import os
import sys

SUMMARY = "Referee and toolkit for Spectacular Bid, a two-player Fives dominoes duel."
ABOUT = "Run matches between engines, replay and validate games, run tournaments, play."

# (name, one-line summary) in the order typer lists them
COMMANDS: tuple[tuple[str, str], ...] = (
    ("match", "Play a match between two engines and print the result."),
    ("notation", "Check actions in bidref notation and print their canonical form."),
    ("rules", "Show the rules of Spectacular Bid (RULES.md) that the referee enforces."),
    ("validate", "Check a game typed by hand, one action per line, against the rules."),
    ("replay", "Verify a match transcript through the rules and show the game."),
    ("play", "Play a match yourself: against an engine, or two people on one terminal."),
    (
        "tournament",
        "Play a rated tournament between engines: round-robin or gauntlet, paired deals.",
    ),
    ("check-engine", "Check that ENGINE follows protocol bidref/1, item by item."),
    ("connect", "Play in a referee's network seat with a local engine, like lichess-bot."),
    (
        "tournament-report",
        "Make an HTML report of a tournament, finished or not: standings, ratings with "
        "their 95 % intervals drawn, a cross-table, and every match with its replay.",
    ),
)


def _wrap(text: str, indent: int, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and indent + len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return lines


def help_text(width: int = 80) -> str:
    """The root help: usage, what bidref is, its options and its commands."""
    width = max(width, 40)
    name_w = max(len(n) for n, _ in COMMANDS) + 2
    out = ["Usage: bidref [OPTIONS] COMMAND [ARGS]...", ""]
    out += [f"  {ln}" for ln in _wrap(f"{SUMMARY} {ABOUT}", 2, width)]
    out += ["", "Options:"]
    out.append("  -V, --version  Print bidref's version and exit.")
    out.append("  -h, --help     Show this message and exit.")
    out += ["", "Commands:"]
    for name, summary in COMMANDS:
        wrapped = _wrap(summary, 2 + name_w, width)
        out.append(f"  {name.ljust(name_w)}{wrapped[0]}")
        out += [" " * (2 + name_w) + ln for ln in wrapped[1:]]
    out += ["", "Run bidref COMMAND -h for a command's options and examples."]
    return "\n".join(out) + "\n"


def answer(args: list[str]) -> bool:
    """Answer ``--help``/``-h`` and ``--version``/``-V`` alone; True if answered."""
    if args in (["--help"], ["-h"]):
        try:
            width = int(os.environ.get("COLUMNS", "")) or 80
        except ValueError:
            width = 80
        sys.stdout.write(help_text(min(width, 100)))
        return True
    if args in (["--version"], ["-V"]):
        import bidref

        # bidref.launch.select_build points the package at the compiled build
        # (or PYTHONPATH put it first): a copy with the build's stamp beside it
        where = os.path.dirname(os.path.abspath(bidref.__path__[0]))
        stamp = os.path.join(where, "bidref-compiled.stamp")  # compiled.STAMP_NAME
        build = " (compiled build)" if os.path.exists(stamp) else ""
        sys.stdout.write(f"bidref {bidref.__version__}{build}\n")
        return True
    return False
