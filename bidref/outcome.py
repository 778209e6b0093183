"""Deprecated: moved to :mod:`bidref.match.outcome`. This name keeps working (it is the same
module) until the next release; import from ``bidref.match.outcome``."""

import sys
import warnings

from .match import outcome as _moved

warnings.warn(
    "bidref.outcome moved to bidref.match.outcome; the old name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
