"""The match layer: one match between two seats, refereed.

- :mod:`.spec`: what defines a match (:class:`~.spec.MatchSpec`), the
  illegal-action policies, the live state shown while it is played;
- :mod:`.session`: one :class:`~.session.EngineSession` per seat, the
  ``bidref/1`` conversation and the judged wait for a reply;
- :mod:`.wire`: the request and event lines sent to each seat;
- :mod:`.record`: the transcript side of a match;
- :mod:`.ending`: telling the seats how the match ended, then ending them;
- :mod:`.referee`: the match itself (:func:`~.referee.run_match`).

Below it: :mod:`bidref.rules` (the game), :mod:`bidref.outcome` (why a match
ended and what it counts for; ``.outcome`` here is its old name, deprecated),
:mod:`bidref.protocol` (the wire messages), :mod:`bidref.engines` and
:mod:`bidref.players` (the seats). Above it: the tournament and the command line.
"""
