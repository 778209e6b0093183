"""Test helpers that ship with bidref: a fake monotonic clock.

Everything in bidref that keeps time takes its clock as a parameter (a
callable returning integer nanoseconds). Tests, and engine authors testing
their own code against the referee, pass a :class:`FakeClock` and move it by
hand, so that deadlines are tested without sleeping:

>>> clock = FakeClock(start=5_000)
>>> clock()
5000
>>> clock.advance(250)
>>> clock.advance_to(1_000)  # never backwards
>>> clock()
5250
"""

from __future__ import annotations


class FakeClock:
    """A monotonic clock (integer ns) that only moves when told to."""

    def __init__(self, start: int = 1_000_000_000_000) -> None:
        self.now = start

    def __call__(self) -> int:
        return self.now

    @property
    def t(self) -> int:
        return self.now

    @t.setter
    def t(self, value: int) -> None:
        self.now = value

    def advance(self, ns: int) -> None:
        """Move ``ns`` nanoseconds forward."""
        if ns < 0:
            raise ValueError(f"a monotonic clock does not go back ({ns} ns)")
        self.now += ns

    def advance_to(self, t: int) -> None:
        """Move to ``t`` if it is later than now."""
        self.now = max(self.now, t)


class SteppingClock(FakeClock):
    """A fake clock that moves ``step`` ns on every reading, so that a loop
    bounded by the clock ends by the clock, not by luck; ``readings`` counts them.

    >>> clock = SteppingClock(10, start=0)
    >>> clock(), clock(), clock.readings
    (10, 20, 2)
    """

    def __init__(self, step: int, start: int = 1_000_000_000_000) -> None:
        super().__init__(start)
        self.step = step
        self.readings = 0

    def __call__(self) -> int:
        self.readings += 1
        self.now += self.step
        return self.now
