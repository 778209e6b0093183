"""Answers every request with an id that is not the request's."""

from _base import play

play(name="wrong_id", id_offset=1000)
