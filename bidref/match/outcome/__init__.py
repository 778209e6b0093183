"""Deprecated: moved to :mod:`bidref.outcome.reasons` (the outcome vocabulary, below
the match layer: issue 39). This name keeps working (it is the same module) until
the next release; import from ``bidref.outcome``.

(A package, not ``outcome.py``, so that version control sees the module's move.)"""

import sys
import warnings

from ...outcome import reasons as _moved

warnings.warn(
    "bidref.match.outcome moved to bidref.outcome.reasons (import from bidref.outcome); "
    "the old name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
