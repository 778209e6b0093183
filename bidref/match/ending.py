"""How a match ends: both engines are told at once, then the slow teardown.

The order is a promise (docs/match.md, "Clock promises": after a deadline both
engines are told within 5 ms): :func:`tell` writes each engine its last events
and ``match_ended`` — non-blocking writes, right at the decision — and only
then comes what takes milliseconds: a moment for the engines to read it
(:meth:`~bidref.engines.IoGroup.settle`), the seats' scans of ``/proc`` for
what closing them must end, the quit lines, the grace periods
(:func:`end_engines`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from ..engines import Clock, ExitInfo, IoGroup
from ..outcome import EndDetail, EndReason
from ..players import Seat, SeatGone
from ..protocol import EventMsg, Quit, encode
from ..rules import MILLISECOND, Match
from .session import EngineSession, SessionEnd

log = logging.getLogger(__name__)

SETTLE_NS: Final = 2 * MILLISECOND  # at most this long for the engines to read how it ended


class MatchEnd(Exception):
    """How the match ends: the winner (None: nobody), the reason and its detail."""

    def __init__(
        self,
        winner: int | None,
        reason: EndReason,
        detail: EndDetail,
        rated: bool | None = None,
    ) -> None:
        self.winner = winner
        self.reason = reason
        self.detail = detail
        self.rated = reason.rated if rated is None else rated
        super().__init__(reason)

    @classmethod
    def of(cls, e: SessionEnd) -> MatchEnd:
        """A seat's end: that seat loses (nobody, when the match is aborted)."""
        seat = e.detail.at_seat
        assert seat is not None, f"a seat's end names no seat: {e.detail!r}"
        winner = None if e.reason is EndReason.ABORTED else 1 - seat
        return cls(winner, e.reason, e.detail, e.rated)


def tell(
    sessions: Sequence[EngineSession], outbox: list[list[str]], m: Match, end: MatchEnd
) -> None:
    """Write each seat its pending events and, when the rules did not end the
    match (time, crash, ...), a ``match_ended`` event with the end reason:
    the last event an engine gets is always ``match_ended`` (PROTOCOL.md)."""
    if m.result is None:
        event = {
            "kind": "match_ended",
            "winner": end.winner,
            "reason": end.reason,
            "balances": list(m.balances),
            "rounds": m.round_number,
        }
        line = encode(EventMsg(event=event))
        for out in outbox:
            out.append(line)
    for i, out in enumerate(outbox):
        if out and sessions[i].opened:
            sessions[i].send_quietly("\n".join(out))
        out.clear()


def tell_then_prepare(
    sessions: Sequence[EngineSession],
    outbox: list[list[str]],
    m: Match | None,
    end: MatchEnd,
    group: IoGroup | None,
    clock: Clock,
) -> None:
    """Tell both engines (:func:`tell`), give them a moment to read it, then
    let each seat note what closing it must end (``before_end``: a /proc scan
    for an engine seat, milliseconds)."""
    # An interrupt now (a Ctrl-C) must not leave engines running: telling them
    # is skipped, ending them (end_engines) is started again.
    with contextlib.suppress(KeyboardInterrupt):
        if m is not None:
            tell(sessions, outbox, m, end)
        if group is not None:
            group.settle(SETTLE_NS, clock)
        for sess in sessions:
            before_end = sess.abilities.before_end
            if before_end is not None and sess.opened:
                before_end()


def end_engines(
    sessions: Sequence[EngineSession], end: MatchEnd, grace_ns: int
) -> list[dict[str, object]]:
    """Send each engine its quit line, end it (grace, SIGTERM, SIGKILL) and say
    how each ended, for the transcript's ``engine_exit`` lines."""
    quit_line = encode(Quit(reason="aborted" if end.reason is EndReason.ABORTED else "match_over"))
    quit_sent = [False, False]
    with contextlib.suppress(KeyboardInterrupt):
        for i, sess in enumerate(sessions):
            # an engine that had exited already (e.g. crashed) does not quit now
            if sess.opened:
                gone = sess.seat.exit_info(0) is not None
                with contextlib.suppress(SeatGone):
                    sess.seat.send(quit_line)
                    quit_sent[i] = not gone
    exits: list[dict[str, object]] = []
    for i, sess in enumerate(sessions):
        seat = sess.seat
        info = _close(seat, grace_ns) if sess.opened else None
        if info is not None and info.how == "exited" and quit_sent[i]:
            info = replace(info, how="quit")  # it exited after our quit line
        exits.append(
            {
                "seat": i,
                "exit_code": info.exit_code if info else None,
                "signal": info.signal if info else None,
                "how": info.how if info else "not_started",
                "stderr_bytes": seat.stderr_bytes(),
                **sess.counts,
                "stderr_log": seat.describe().get("stderr_log"),
            }
        )
    return exits


def _close(seat: Seat, grace_ns: int) -> ExitInfo:
    while True:
        try:
            return seat.close(None, grace_ns)
        except KeyboardInterrupt:
            log.warning("interrupted while ending an engine: ending it again")


__all__ = ["SETTLE_NS", "MatchEnd", "end_engines", "tell", "tell_then_prepare"]
