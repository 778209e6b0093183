"""Always answers 'bid 5', which is never legal (the first bid is at least 15)."""

from _base import play

play(name="illegal_moves", action=lambda req: "bid 5")
