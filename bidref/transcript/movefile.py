"""Deprecated: moved to :mod:`bidref.movefile.parse`. This name keeps working (it is the same
module) until the next release; import from ``bidref.movefile.parse``."""

import sys
import warnings

from ..movefile import parse as _moved

warnings.warn(
    "bidref.transcript.movefile moved to bidref.movefile.parse; "
    "the old name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
