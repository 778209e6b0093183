"""Correct answers, but stdout is a block-buffered file that is never flushed."""
import os

from _base import play

play(name="never_flushes", out=open(os.dup(1), "w", buffering=1 << 16), flush=False)
