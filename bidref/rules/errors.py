"""Errors raised by the rules core.

Every error derives from :class:`RulesError`. Messages quote the offending input
and the state it met, and say what would have been accepted, so that a bot
author reading a referee's error reply knows what to fix.
"""

from __future__ import annotations

from ..errors import BidrefError


class RulesError(BidrefError):
    """Base class of every error the rules core raises."""


class NotationError(RulesError, ValueError):
    """Text that is not a tile, attachment point or action in bidref notation."""


class IllegalActionError(RulesError):
    """An action that the rules forbid in the current state.

    The state is left unchanged (RULES.md §8). ``rule`` names the section of
    RULES.md that forbids the action; ``action`` is its canonical text.
    """

    def __init__(self, action: str, where: str, reason: str, rule: str) -> None:
        self.action = action
        self.where = where
        self.reason = reason
        self.rule = rule
        super().__init__(f"illegal action {action!r} {where}: {reason} (RULES.md {rule})")


class ActionTypeError(RulesError, TypeError):
    """An action value built from fields of the wrong type, e.g. ``Bid(15.0)`` or
    ``Open("3-6")``. Raised when the value is built, so that a wrong-typed action
    never reaches a match; ``Match.apply`` refuses anything else that is not an
    action with :class:`IllegalActionError`."""


class DealError(RulesError, ValueError):
    """A deal that is not a partition of the double-six set into 7 + 7 + 14."""


class PlacementError(RulesError, ValueError):
    """A tile that cannot go where :meth:`Layout.place` (or ``open_tile``) was
    asked to put it. The layout is left unchanged; ``tile`` and ``at`` are the
    canonical texts (``at`` is None for an opening), ``rule`` the section of
    RULES.md that forbids it."""

    def __init__(self, tile: str, at: str | None, reason: str, rule: str) -> None:
        self.tile = tile
        self.at = at
        self.reason = reason
        self.rule = rule
        where = f"at {at}" if at is not None else "as the opening tile"
        super().__init__(f"cannot place {tile} {where}: {reason} (RULES.md {rule})")
