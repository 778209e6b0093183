"""Deprecated: moved to :mod:`bidref.outcome.excuse` (below the match layer, where
replay reads it too: issue 39). This name keeps working (it is the same module)
until the next release; import from ``bidref.outcome.excuse``."""

import sys
import warnings

from ..outcome import excuse as _moved

warnings.warn(
    "bidref.match.excuse moved to bidref.outcome.excuse; the old name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
