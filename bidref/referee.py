"""Deprecated: moved to :mod:`bidref.match.referee`. This name keeps working (it is the same
module) until the next release; import from ``bidref.match.referee``."""

import sys
import warnings

from .match import referee as _moved

warnings.warn(
    "bidref.referee moved to bidref.match.referee; the old name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
