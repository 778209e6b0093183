"""Conformance check of an engine against protocol ``bidref/1`` (``bidref check-engine``).

In the spirit of fastchess's ``--compliance``: the engine is started as the
referee would start it, greeted, and sent decision requests for positions of
every kind (forced and free opening, the auction as first speaker and as
jockey answering a bid, ordinary play, a forced draw, the decision after a
draw, and a play onto the spinner's branches). Each reply must echo the
request's id, be legal, and come before the request's deadline. Then the
check sends a ``stale_id`` error, pretends an answer was refused (the engine
must answer the same request again with another action), and says ``quit``
(the engine must exit by itself within the grace period).

The engine is driven through the referee's own
:class:`~bidref.match.session.EngineSession` (:mod:`.probe`), so a line is judged
exactly as in a match: the same hello, ids, stale and bad lines, rules help,
and the same clock promises (docs/match.md) against an absolute deadline
from the injected clock. Where the referee would end the match, the check
notes why and goes on with the next item:

An engine that is running but silent gets the hint that its stdout is
probably not flushed; one that answers after the deadline (the check waits a
little longer to see) is told it is too slow; one that exited gets its exit
status, how many requests it had had, and the tail of its stderr. After a crash,
or a request left unanswered, the engine is restarted for the remaining items,
so each item is judged on its own.

Modules: :mod:`.positions` (the positions asked, and judging an action),
:mod:`.probe` (the engine under check, through its session), :mod:`.items`
(the items and :func:`check_engine`), :mod:`.report` (the report).
"""

from .items import check_engine
from .positions import POSITIONS, SEAT, find_position, judge_action
from .report import CheckReport, CheckResult, CheckSettings

__all__ = [
    "POSITIONS",
    "SEAT",
    "CheckReport",
    "CheckResult",
    "CheckSettings",
    "check_engine",
    "find_position",
    "judge_action",
]
