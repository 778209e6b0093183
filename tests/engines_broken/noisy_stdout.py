"""Writes debugging text to stdout between its messages."""

from _base import play

play(name="noisy_stdout", stdout_noise=True)
