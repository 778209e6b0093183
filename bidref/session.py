"""Deprecated: moved to :mod:`bidref.match.session`. This name keeps working (it is the same
module) until the next release; import from ``bidref.match.session``."""

import sys
import warnings

from .match import session as _moved

warnings.warn(
    "bidref.session moved to bidref.match.session; the old name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
