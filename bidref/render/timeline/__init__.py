"""A match as a sequence of shown states, one per transcript line, for the HTML replay.

- :mod:`.model` — the steps and the match's facts (:class:`Timeline`, :class:`Step`
  and its parts :class:`Table`, :class:`Bidding`, :class:`Turn`);
- :mod:`.build` — reading a transcript into them (:func:`build_timeline`), one
  handler per class of line model and of rules event;
- :mod:`.events` — a ``/1`` event line read back into its rules event;
- :mod:`.rebuild` — one round rebuilt with the rules core;
- :mod:`.text` — the wording (times, durations, a match's end).
"""

from __future__ import annotations

from .build import build_timeline
from .model import Bidding, Clock, Cost, Step, Table, Timeline, Turn
from .text import MS, SEATS, cpu_duration, duration, result_text, seconds

__all__ = [
    "MS",
    "SEATS",
    "Bidding",
    "Clock",
    "Cost",
    "Step",
    "Table",
    "Timeline",
    "Turn",
    "build_timeline",
    "cpu_duration",
    "duration",
    "result_text",
    "seconds",
]
