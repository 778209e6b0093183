"""Correct answers, but stdout is a block-buffered file that is never flushed."""

import os

from _base import play

with open(os.dup(1), "w", buffering=1 << 16) as out:
    play(name="never_flushes", out=out, flush=False)
