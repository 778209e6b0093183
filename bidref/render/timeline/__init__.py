"""A match as a sequence of shown states, one per transcript line, for the HTML replay.

- :mod:`.model` — the steps and the match's facts (:class:`Timeline`, :class:`Step`);
- :mod:`.build` — reading a transcript into them (:func:`build_timeline`);
- :mod:`.text` — the wording (times, durations, a match's end).
"""

from __future__ import annotations

from .build import build_timeline
from .model import Clock, Cost, Step, Timeline
from .text import MS, SEATS, cpu_duration, duration, result_text, seconds

__all__ = [
    "MS",
    "SEATS",
    "Clock",
    "Cost",
    "Step",
    "Timeline",
    "build_timeline",
    "cpu_duration",
    "duration",
    "result_text",
    "seconds",
]
