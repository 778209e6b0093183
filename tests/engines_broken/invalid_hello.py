"""Says hello with "protocol": null, which is not a valid hello message."""

from _base import play

play(name="invalid_hello", protocol=None)
