"""Deprecated: moved to :mod:`bidref.sdk`. This name keeps working (it is the same
module) until the next release; import from ``bidref.sdk``."""

import sys
import warnings

from . import sdk as _moved

warnings.warn(
    "bidref.engine moved to bidref.sdk; the old name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
