"""Deprecated: moved to :mod:`bidref.render.tournament.views` (a tournament's pictures,
their own part on the tournament's layer: issue 39). This name keeps working (it is
the same module) until the next release; import from ``bidref.render.tournament.views``."""

import sys
import warnings

from .tournament import views as _moved

warnings.warn(
    "bidref.render.tournament_views moved to bidref.render.tournament.views; the old name goes in "
    "the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
