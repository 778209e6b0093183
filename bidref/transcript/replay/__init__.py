"""Replay a transcript: re-derive the whole match and check every line against it.

The replay trusts nothing the referee wrote. It opens the commitments to the
deals and the seed, refolds the game through the rules core from the revealed
deals and the accepted actions, regenerates every request line sent to an
engine and checks it against the round's hashes (or the raw line kept), and
checks each line in order: legality, the events, drawn tiles, the clock
arithmetic (delay and bank charged as the recorded timestamps imply, with
:mod:`bidref.rules.clock`), the end reason and the result. The first
disagreement stops the replay with the line number.

It reads ``bidref-transcript/1`` and ``/2`` (``protocols/transcript.md``); the
parts are in :mod:`.fold`; :mod:`.run` runs it.
"""

from .report import Mismatch, ReplayedResult, ReplayReport, Step
from .run import replay, replay_lines

__all__ = ["Mismatch", "ReplayReport", "ReplayedResult", "Step", "replay", "replay_lines"]
