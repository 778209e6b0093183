"""Actions and their canonical text notation.

Every action a player can choose is a small frozen value with one canonical
text form; :func:`parse_action` reads that form and a few lenient variants, and
``str(action)`` writes the canonical one, so ``parse_action(str(a)) == a``.

======================  ==============================================
canonical text          meaning
======================  ==============================================
``decline``             non-jockey declines to bid (RULES.md §6.1)
``bid 20``              bid or raise to 20 (``raise 20`` also parses)
``accept``              accept the standing bid
``open 3-6``            open the round with [3|6]
``draw``                draw one tile from the boneyard (§5)
``play 1-3 1-1:branch_b``  play [1|3] at [1|1] branch B
======================  ==============================================

Action values check their fields when built: ``Bid`` takes an ``int`` (not a
bool, float or string), ``Open`` and ``Play`` one of the 28 interned tiles and
an interned attachment point; anything else raises :class:`ActionTypeError`
(a ``TypeError``) quoting the value.

>>> try:
...     Bid(15.0)
... except TypeError as e:
...     print(e)
Bid(amount=15.0): the amount is a float; give an int, e.g. Bid(15)

Lenient input: tiles as ``[1|3]``, ``3-1`` or ``13``; sides as ``branch B``,
``bb``, ``lo``; an optional ``at`` before the point; a play without the word
``play`` (``1-3 at 1-1 bb``).

>>> str(parse_action("play [1|3] at [1|1] branch B"))
'play 1-3 1-1:branch_b'
>>> parse_action("raise 25") == Bid(25)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from .errors import ActionTypeError, NotationError
from .layout import POINTS, Point, parse_point
from .tiles import _TILE_RE, TILES, Tile, parse_tile


def _is_tile(t: object) -> bool:
    """``t`` is one of the 28 interned tiles (not a look-alike built directly)."""
    if type(t) is not Tile:
        return False
    i = t.index
    return type(i) is int and 0 <= i < len(TILES) and TILES[i] is t


def _is_point(p: object) -> bool:
    """``p`` is one of the interned attachment points."""
    if type(p) is not Point:
        return False
    i = p.index
    return type(i) is int and 0 <= i < len(POINTS) and POINTS[i] is p


def _safe_repr(value: object) -> str:
    """``repr(value)`` for an error message: short, and never raising itself."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= 60 else text[:57] + "..."


def _type_name(value: object) -> str:
    if type(value) is Tile or type(value) is Point:
        return f"{type(value).__name__} built directly"
    return type(value).__name__


def _check_tile(cls: str, value: object) -> None:
    if not _is_tile(value):
        raise ActionTypeError(
            f"{cls}(tile={_safe_repr(value)}): the tile is a {_type_name(value)}, not one of "
            "the 28 tiles; give tile(low, high) or parse_tile('3-6')"
        )


@dataclass(frozen=True, slots=True)
class Decline:
    kind: ClassVar[str] = "decline"

    def __str__(self) -> str:
        return "decline"

    def sort_key(self) -> tuple[int, int, int]:
        return (0, 0, 0)


@dataclass(frozen=True, slots=True)
class Accept:
    kind: ClassVar[str] = "accept"

    def __str__(self) -> str:
        return "accept"

    def sort_key(self) -> tuple[int, int, int]:
        return (1, 0, 0)


@dataclass(frozen=True, slots=True)
class Bid:
    amount: int
    kind: ClassVar[str] = "bid"

    def __post_init__(self) -> None:
        a = self.amount
        if type(a) is not int:  # bool and int subclasses too: 15.0 == 15 would slip in
            whole = type(a) is float and a.is_integer()
            example = f"Bid({int(a)})" if whole else "Bid(15)"
            raise ActionTypeError(
                f"Bid(amount={_safe_repr(a)}): the amount is a {_type_name(a)}; "
                f"give an int, e.g. {example}"
            )

    def __str__(self) -> str:
        return f"bid {self.amount}"

    def sort_key(self) -> tuple[int, int, int]:
        return (2, self.amount, 0)


@dataclass(frozen=True, slots=True)
class Open:
    tile: Tile
    kind: ClassVar[str] = "open"

    def __post_init__(self) -> None:
        _check_tile("Open", self.tile)

    def __str__(self) -> str:
        return f"open {self.tile}"

    def sort_key(self) -> tuple[int, int, int]:
        return (3, self.tile.index, 0)


@dataclass(frozen=True, slots=True)
class Draw:
    kind: ClassVar[str] = "draw"

    def __str__(self) -> str:
        return "draw"

    def sort_key(self) -> tuple[int, int, int]:
        return (4, 0, 0)


@dataclass(frozen=True, slots=True)
class Play:
    tile: Tile
    at: Point
    kind: ClassVar[str] = "play"

    def __post_init__(self) -> None:
        _check_tile("Play", self.tile)
        if not _is_point(self.at):
            raise ActionTypeError(
                f"Play(at={_safe_repr(self.at)}): the point is a {_type_name(self.at)}, not an "
                "attachment point; give point(tile, Side.X) or parse_point('1-1:line_b')"
            )

    def __str__(self) -> str:
        return f"play {self.tile} {self.at}"

    def sort_key(self) -> tuple[int, int, int]:
        return (5, self.tile.index, self.at.index)


Action = Decline | Accept | Bid | Open | Draw | Play

DECLINE: Final = Decline()
ACCEPT: Final = Accept()
DRAW: Final = Draw()
OPENS: Final[tuple[Open, ...]] = tuple(Open(t) for t in TILES)

_PLAYS: dict[tuple[Tile, Point], Play] = {}


def play(t: Tile, at: Point) -> Play:
    """The interned ``Play`` of ``t`` at ``at`` (cheap to call in hot loops)."""
    key = (t, at)
    p = _PLAYS.get(key)
    if p is None:
        p = _PLAYS[key] = Play(t, at)
    return p


ACTION_TYPES: Final = (Decline, Accept, Bid, Open, Draw, Play)


def is_action(value: object) -> bool:
    """``value`` is an action whose fields have their declared types.

    Construction checks the fields, so this is False only for values that are
    not actions at all, or actions built around that check (``object.__new__``
    and ``object.__setattr__``); ``Match.apply`` refuses both.
    """
    cls = type(value)
    # getattr with a default: a forged value may lack its fields altogether.
    if cls is Play:
        return _is_tile(getattr(value, "tile", None)) and _is_point(getattr(value, "at", None))
    if cls is Open:
        return _is_tile(getattr(value, "tile", None))
    if cls is Bid:
        return type(getattr(value, "amount", None)) is int
    return cls is Decline or cls is Accept or cls is Draw


def describe(value: object) -> str:
    """An action's canonical text, or a short safe ``repr`` of anything else."""
    return str(value) if is_action(value) else _safe_repr(value)


def sort_actions(actions: list[Action]) -> list[Action]:
    return sorted(actions, key=lambda a: a.sort_key())


_EXAMPLES: Final = "decline, accept, bid 20, open 3-6, draw, play 1-3 1-1:branch_b"


def parse_action(text: str) -> Action:
    """Parse one action in bidref notation; raise :class:`NotationError` if it is not one."""
    words = text.strip().lower().replace(",", " ").split()
    if not words:
        raise NotationError(f"empty action: write one of {_EXAMPLES}")
    head, rest = words[0], words[1:]
    if head in ("decline", "accept", "draw"):
        if rest:
            raise NotationError(f"{text!r}: {head!r} takes nothing after it")
        simple: dict[str, Action] = {"decline": DECLINE, "accept": ACCEPT, "draw": DRAW}
        return simple[head]
    if head in ("bid", "raise"):
        # ASCII digits only: str.isdigit() also takes '²' (which int() refuses) and
        # other scripts' digits (which it reads); nine digits exceed any balance.
        amount = rest[0] if len(rest) == 1 else ""
        if not (amount.isascii() and amount.isdigit()) or len(amount) > 9:
            raise NotationError(
                f"{text!r}: write the amount as a whole number of points "
                "in digits 0-9, e.g. 'bid 20'"
            )
        return Bid(int(amount))
    if head == "open":
        if len(rest) != 1:
            raise NotationError(f"{text!r}: write one tile to open with, e.g. 'open 3-6'")
        return OPENS[parse_tile(rest[0]).index]
    if head == "play":
        if not rest:
            raise NotationError(f"{text!r}: write the tile and where, e.g. 'play 1-3 1-1:branch_b'")
        head, rest = rest[0], rest[1:]
    # A play: the tile, an optional 'at', then the point.
    if not _TILE_RE.match(head):
        raise NotationError(f"{text!r} is not an action: write one of {_EXAMPLES}")
    t = parse_tile(head)
    if rest and rest[0] in ("at", "on", "@"):
        rest = rest[1:]
    if not rest:
        raise NotationError(
            f"{text!r}: say where {t} goes, as a tile and side, e.g. 'play {t} 1-1:line_b'"
        )
    at = parse_point(" ".join(rest))
    return play(t, at)
