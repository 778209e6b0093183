"""The end of a replay: the seed reveal opens the header's commitment and gives every
seeded deal, and the result line is the one the game and the lines before it prove."""

from __future__ import annotations

from typing import Any

from ...outcome import END_REASONS, AbortCause, EndReason
from ...outcome.details import (
    EndDetail,
    IllegalDetail,
    RoundLimitDetail,
    UnreadDetail,
    decode_detail,
)
from ...rules import Match, RoundStarted
from ...rules.deal import seeded_deals
from ..lines import Header, Result, SeedReveal
from ..writer import commitment
from .accounting import Accounting
from .clock import ClockCheck
from .game import GameState
from .report import Mismatch, diff, name


def check_seed(n: int, s: SeedReveal, header: Header, game: GameState) -> None:
    if commitment(s.salt, {"seed": s.seed}) != header.seed_commitment:
        raise Mismatch(n, "the revealed seed does not open the header's seed_commitment")
    deals = seeded_deals(s.seed)
    for r, rev in sorted(game.reveals.items()):
        if r > header.explicit_deals and deals(r) != rev.deal:
            raise Mismatch(
                rev.line, f"round {r}'s revealed deal is not the deal seed {s.seed} gives"
            )


def unread(detail: EndDetail) -> str:
    """Why a result's detail could not be read (for a check that needs its fields)."""
    return f": {detail.why}" if isinstance(detail, UnreadDetail) else ""


def _check_rules_end(
    n: int, d: Result, detail: EndDetail, reason: EndReason, header: Header, m: Match
) -> None:
    """A result the rules decided (a balance or the round limit): the replayed game
    ended so, with that winner after that many rounds."""
    res = m.result
    if res is None or res.reason != reason:
        raise Mismatch(
            n,
            f"the result says {d.reason!r}, but the game "
            + ("is not over" if res is None else f"ended by {res.reason!r}"),
        )
    limit = detail.max_rounds if isinstance(detail, RoundLimitDetail) else None
    if reason is EndReason.ROUND_LIMIT and limit != header.max_rounds:
        raise Mismatch(
            n,
            f"detail max_rounds {limit!r}, but the header's is {header.max_rounds!r}"
            + unread(detail),
        )
    if d.winner != res.winner or d.rounds != res.rounds:
        said = {"winner": d.winner, "rounds": d.rounds}
        raise Mismatch(
            n, f"result disagrees: {diff(said, {'winner': res.winner, 'rounds': res.rounds})}"
        )


def _check_forfeit(
    n: int,
    detail: EndDetail,
    seat: int,
    header: Header,
    last_reply: Any,
    rejection: dict[str, Any] | None,
) -> None:
    """A forfeit for an illegal action: the header's policy forfeits, and the seat's
    last reply was rejected for what the detail says."""
    if header.illegal != "forfeit":
        raise Mismatch(
            n,
            f"a forfeit for an illegal action, but the header's policy is "
            f"{header.illegal!r}: an illegal action gets a retry",
        )
    if last_reply is None or last_reply.seat != seat or last_reply.status == "accepted":
        raise Mismatch(
            n,
            f"a forfeit for an illegal action, but seat {seat}'s last reply was not rejected",
        )
    if rejection is None:
        return
    if not isinstance(detail, IllegalDetail):
        raise Mismatch(n, "the forfeit's detail cannot be read" + unread(detail))
    told = {
        "seat": detail.seat,
        "action": detail.action,
        "rule": detail.rule,
        "code": detail.code,
        "message": detail.message,
    }
    if told != rejection:
        raise Mismatch(
            n,
            "the forfeit's detail disagrees with the rejected reply: " + diff(told, rejection),
        )


def check_result(
    n: int,
    d: Result,
    header: Header,
    game: GameState,
    clock: ClockCheck,
    acct: Accounting,
    *,
    seed_revealed: bool,
    last_reply: Any,
    rejection: dict[str, Any] | None,
    detail: EndDetail | None = None,
) -> str:
    """Check the result line (``detail``: its detail, decoded already if it is);
    return the text of its step."""
    if detail is None:
        detail = decode_detail(d.reason, d.detail)
    m: Match = game.match
    winner = d.winner
    if game.expected and not isinstance(game.expected[0], RoundStarted):
        raise Mismatch(n, f"the result, but the event {game.expected[0].kind!r} was never written")
    if header.seeded and not seed_revealed:
        raise Mismatch(n, "the match was seeded, but the seed is never revealed")
    if d.balances != list(m.balances):
        raise Mismatch(n, f"balances {d.balances!r}, replay {list(m.balances)}")
    if d.reason not in END_REASONS:
        raise Mismatch(n, f"unknown end reason {d.reason!r}")
    reason = EndReason(d.reason)
    if reason.by_rules:
        _check_rules_end(n, d, detail, reason, header, m)
    elif reason.by_seat:
        if m.result is not None:
            raise Mismatch(
                n, f"the result says {d.reason!r}, but the game ended by {m.result.reason!r}"
            )
        seat = detail.at_seat
        if seat not in (0, 1) or winner != 1 - seat:
            raise Mismatch(
                n,
                f"a {d.reason!r} loss of seat {seat!r} must name the other seat as "
                f"winner, not {winner!r}" + unread(detail),
            )
        if d.rounds != game.round:
            raise Mismatch(n, f"rounds {d.rounds!r}, but {game.round} round(s) started")
        if reason is EndReason.TIME:
            clock.check_time_loss(n, seat, detail)
        if reason is EndReason.RESIGN and acct.resigned != seat:
            raise Mismatch(
                n, f"a resignation of seat {seat}, but no resign line of that seat came before"
            )
        if reason is EndReason.ILLEGAL:
            _check_forfeit(n, detail, seat, header, last_reply, rejection)
    else:
        assert reason is EndReason.ABORTED
        if winner is not None or d.rated is not False:
            raise Mismatch(n, "an aborted match has no winner and is not rated")
        if detail.cause is AbortCause.MACHINE_WAIT:
            clock.check_machine_wait(n, detail)
    if d.rated is not reason.rated:
        raise Mismatch(
            n,
            f"rated is {d.rated!r}, but a match ended by {d.reason!r} "
            + ("is rated" if reason.rated else "is not rated"),
        )
    if acct.resigned is not None and reason is not EndReason.RESIGN:
        raise Mismatch(n, f"seat {acct.resigned} resigned, but the result is {d.reason!r}")
    if clock.timed_out is not None and reason is not EndReason.TIME:
        raise Mismatch(
            n,
            f"line {clock.timed_out[2]} shows a reply after the deadline, but the result is "
            f"{d.reason!r}, not 'time'",
        )
    return (
        f"Result: {reason}; winner {name(winner)}; balances A {m.balances[0]} · B {m.balances[1]}"
    )
