"""The exit statuses of the `bidref` commands, defined once (issue 39).

Each command's ``--help`` says which of these it uses and when; the numbers are
a promise to scripts and CI and never change. ``bidref/launch.py`` repeats 130
as a bare number because it must exit before it imports anything (not even
``enum``); a test holds the two equal.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    OK = 0
    """Done: a finished match (any winner, or a draw), a clean replay, a passed check."""
    FAILED = 1
    """The command ran but did not get everything done: matches left to play or an
    export not written (tournament), a disagreement (replay, validate), a check
    not passed, a network seat lost (connect)."""
    USAGE = 2
    """Input the user gave cannot be used (an option, an engine, a file): said as
    ``error: <message>`` by the command line's one handler (``_typer_app``)."""
    STARTUP = 3
    """An engine failed to start (match, play, connect); for replay: verified as
    far as it goes, but the transcript is cut short."""
    ABORTED = 4
    """The match was aborted (the referee's side, not an engine's loss)."""
    INTERRUPTED = 130
    """Ctrl-C or SIGTERM (128 + SIGINT, as a shell reports it)."""
