"""The errors of the learning environments (bidref.env, bidref.openspiel)."""

from __future__ import annotations

from bidref.errors import BidrefError


class EnvError(BidrefError, ValueError):
    """Base of the environments' errors; a ``ValueError`` too, as Gymnasium's are."""


class MissingExtraError(BidrefError, ImportError):
    """A package of the ``rl`` extra is not installed; the message says how to add it."""


class EnvOptionError(EnvError):
    """A constructor argument or ``reset`` option the environment cannot take."""


class UnknownActionError(EnvError):
    """An action id outside the enumeration, or an action value it does not hold."""
