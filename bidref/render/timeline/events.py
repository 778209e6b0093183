"""A ``bidref-transcript/1`` event line's event, read back into the rules' typed
:class:`~bidref.rules.Event` (its public form: a drawn tile is ``None``), so the
timeline handles a written event and one the replay derives alike.

The page shows what it can (it does not verify: ``bidref replay`` does). An
unknown kind, or an event without its player, is None (the step says the page
cannot use it); a field missing or of the wrong type raises (``KeyError``,
``TypeError``, ``ValueError``, ``RulesError``: the step says the line cannot be
read, and the state stays as it was).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from ...rules import (
    AuctionMove,
    Drew,
    Event,
    MatchEnded,
    Passed,
    Placed,
    Point,
    RoundEnded,
    Tile,
    Transfer,
    parse_side,
    point,
    tile,
)
from ...rules.events import MatchEndKind, RoundEndReason, TransferReason


def event_of(d: dict[str, Any]) -> Event | None:
    """The event an event line's ``event`` object states; None: not one the page knows."""
    read = _READERS.get(str(d.get("kind")))
    return None if read is None else read(d)


def seat_of(v: Any) -> int | None:
    """A seat as the page always took it: 0 or 1, else nobody."""
    return int(v) if v in (0, 1) else None


def tile_of(pair: Any) -> Tile:
    return tile(int(pair[0]), int(pair[1]))


def point_of(at: Any) -> Point:
    """The attachment point of a ``placed`` event's ``at``: ``{"tile": [5, 5], "side": ...}``."""
    return point(tile_of(at["tile"]), parse_side(str(at["side"])))


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{v!r} is not a whole number")
    return v


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"{v!r} is not a string")
    return v


def _seat(v: Any) -> int:
    if v not in (0, 1) or isinstance(v, bool):
        raise ValueError(f"seat {v!r} is not 0 or 1")
    return int(v)


def _pair(v: Any) -> tuple[int, int]:
    a, b = v
    return _int(a), _int(b)


def _placed(d: dict[str, Any]) -> Placed | None:
    p = seat_of(d.get("player"))
    if p is None:
        return None
    at = d.get("at")
    at_point = None if at is None else point_of(at)
    return Placed(p, tile_of(d["tile"]), at_point, _int(d["count"]), _int(d["points"]))


def _drew(d: dict[str, Any]) -> Drew | None:
    p = seat_of(d.get("player"))
    return None if p is None else Drew(p, None, _int(d["boneyard_left"]))


def _passed(d: dict[str, Any]) -> Passed | None:
    p = seat_of(d.get("player"))
    return None if p is None else Passed(p)


def _auction(d: dict[str, Any]) -> AuctionMove | None:
    # (an action the rules do not know is the handler's note, as it always was)
    p = seat_of(d.get("player"))
    return None if p is None else AuctionMove(p, str(d.get("action")))


def _transfer(d: dict[str, Any]) -> Transfer:
    return Transfer(
        _seat(d["payer"]),
        _seat(d["payee"]),
        _int(d["requested"]),
        _int(d["amount"]),
        cast(TransferReason, _str(d["reason"])),
        _pair(d["balances"]),
    )


def _round_ended(d: dict[str, Any]) -> RoundEnded:
    a, b = d["hands"]
    w = d["winner"]
    return RoundEnded(
        _int(d["round"]),
        cast(RoundEndReason, _str(d["reason"])),
        None if w is None else _seat(w),
        (tuple(tile_of(t) for t in a), tuple(tile_of(t) for t in b)),
        _pair(d["pips"]),
        _int(d["payout"]),
    )


def _match_ended(d: dict[str, Any]) -> MatchEnded:
    w = d["winner"]
    return MatchEnded(
        None if w is None else _seat(w),
        cast(MatchEndKind, _str(d["reason"])),
        _pair(d["balances"]),
        _int(d["rounds"]),
    )


_READERS: Final[dict[str, Callable[[dict[str, Any]], Event | None]]] = {
    "placed": _placed,
    "drew": _drew,
    "passed": _passed,
    "auction": _auction,
    "transfer": _transfer,
    "round_ended": _round_ended,
    "match_ended": _match_ended,
}
