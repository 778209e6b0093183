"""The outcome vocabulary: how a match ends, in words every layer shares.

- :mod:`.reasons`: the one list of end reasons (:class:`EndReason`: what each
  means, whether it is rated, who loses, whose fault it is), the
  :class:`MatchOutcome` the referee returns, and how an ending is said in
  sentences (:func:`end_sentence`, :class:`TimeLoss`, :func:`last_words`);
- :mod:`.details`: the end's detail typed, one record per reason (and per abort
  cause), encoded to the JSON the files carry (:class:`EndDetail`,
  :func:`decode_detail`);
- :mod:`.excuse`: when a late reply is not the engine's loss (the clock's excuse
  for the machine's wait), the referee's rule that replay checks again.

It is pure (the standard library, and the rules' units for the excuse) and sits
low (docs/ARCHITECTURE.md, "Layers"): the referee writes these words, and the
transcript's replay, the pages and the tournament read them, none of them
importing the match layer for it (issue 39). Their old homes, ``bidref.match.outcome`` and
``bidref.match.excuse``, re-export them for one release.
"""

from .details import EndDetail, decode_detail
from .reasons import (
    END_REASONS,
    AbortCause,
    EndReason,
    MatchOutcome,
    TimeLoss,
    end_sentence,
    last_words,
)

__all__ = [
    "END_REASONS",
    "AbortCause",
    "EndDetail",
    "EndReason",
    "MatchOutcome",
    "TimeLoss",
    "decode_detail",
    "end_sentence",
    "last_words",
]
