"""``bidref check-engine``: the checker lives in :mod:`bidref.check`; this name stays
for the code and tests that import it from here."""

from .check import (
    POSITIONS,
    SEAT,
    CheckReport,
    CheckResult,
    CheckSettings,
    check_engine,
    find_position,
    judge_action,
)

__all__ = [
    "POSITIONS",
    "SEAT",
    "CheckReport",
    "CheckResult",
    "CheckSettings",
    "check_engine",
    "find_position",
    "judge_action",
]
