"""Prints a banner on stdout before its hello (the referee ends the match at once)."""

from _base import play

print("broken engine 0.1 -- ready", flush=True)
play(name="banner")
