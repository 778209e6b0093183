"""Deprecated: moved to :mod:`bidref.render.tournament.report` (a tournament's pictures,
their own part on the tournament's layer: issue 39). This name keeps working (it is
the same module) until the next release; import from ``bidref.render.tournament.report``."""

import sys
import warnings

from .tournament import report as _moved

warnings.warn(
    "bidref.render.tournament_report moved to bidref.render.tournament.report; the old "
    "name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
