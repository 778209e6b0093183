"""Plays correctly but keeps running after quit."""

from _base import play

play(name="ignores_quit", exit_on_quit=False)
