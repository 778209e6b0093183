"""Deprecated: moved to :mod:`bidref.render.tournament.tables` (a tournament's
pictures, their own part: issue 39). This name keeps working (it is the same
module) until the next release; import from ``bidref.render.tournament.tables``."""

import sys
import warnings

from ..render.tournament import tables as _moved

warnings.warn(
    "bidref.tournament.tables moved to bidref.render.tournament.tables; the old name "
    "goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
