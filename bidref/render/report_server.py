"""Deprecated: moved to :mod:`bidref.render.tournament.server` (a tournament's pictures,
their own part on the tournament's layer: issue 39). This name keeps working (it is
the same module) until the next release; import from ``bidref.render.tournament.server``."""

import sys
import warnings

from .tournament import server as _moved

warnings.warn(
    "bidref.render.report_server moved to bidref.render.tournament.server; the old name goes in "
    "the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
