"""Says hello with the wrong protocol version."""

from _base import play

play(name="bad_hello", protocol="bidref/0")
