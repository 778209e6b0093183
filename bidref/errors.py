"""The one base of the errors bidref raises on purpose (issue 30).

Every error that bidref raises for a problem it can explain derives from
:class:`BidrefError`, so a program using bidref as a library catches them all
with one ``except``. Its message quotes the input and says the fix. Among them,
a :class:`UsageError` is input the user gave that cannot be used (an option, an
engine argument, a file): the command line prints ``error: <message>`` for it,
in one place (``bidref.cli._typer_app``), and exits with status 2.

Errors that were ``ValueError`` subclasses before this base existed still are,
for one release, so that ``except ValueError`` keeps catching them (the
CHANGELOG says so); new code catches :class:`BidrefError` or the narrow type.

Not here, on purpose: exceptions that are signals between parts of bidref and
never reach a user (``SessionEnd``, ``SeatGone``, ``MatchEnd``, ...), and
``bidref.build.compiled.CompileError``, whose module imports nothing of bidref
so that the launcher can load it by path before choosing a build.

This module imports nothing, so that every layer, the rules core included, may
build on it.
"""

from __future__ import annotations

__all__ = ["BidrefError", "UsageError"]


class BidrefError(Exception):
    """Base of every error bidref raises for a problem it can explain."""


class UsageError(BidrefError):
    """Input the user gave that cannot be used: an option value, an engine
    argument, a file. The message quotes it and says the fix; the command line
    prints it as ``error: <message>`` and exits with status 2."""
