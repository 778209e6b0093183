"""Deprecated: moved to :mod:`bidref.movefile.validate`. This name keeps working (it is the same
module) until the next release; import from ``bidref.movefile.validate``."""

import sys
import warnings

from ..movefile import validate as _moved

warnings.warn(
    "bidref.transcript.validate moved to bidref.movefile.validate; "
    "the old name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
