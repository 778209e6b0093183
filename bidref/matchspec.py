"""Deprecated: moved to :mod:`bidref.match.spec`. This name keeps working (it is the same
module) until the next release; import from ``bidref.match.spec``."""

import sys
import warnings

from .match import spec as _moved

warnings.warn(
    "bidref.matchspec moved to bidref.match.spec; the old name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
