"""Echoes the id as a string ("7"), which is not the id 7: every answer is invalid."""

from _base import play

play(name="string_id", id_as_text=True)
