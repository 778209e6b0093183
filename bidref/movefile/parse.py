"""Move files: a game typed by hand (e.g. from a score sheet) for ``bidref validate``.

A move file is plain text, one item per line; ``#`` starts a comment and blank
lines are ignored. Keys and words are case-insensitive::

    # Round 1 of our Tuesday game
    balances: 150 150          # optional; they must add up to 300
    max rounds: 3              # optional round limit (adjudicated by balance)
    seed: 7                    # either a seed for every deal ...
    hand A: 0-0 1-4 2-2 ...    # ... or the deal of round 1: both hands
    hand B: 1-1 3-6 ...
    boneyard: 4-4 0-5 ...      # in draw order; optional (see below)

    A: open 2-2                # the player prefix "A:"/"B:" is optional
    B: play 2-5 2-2:line_b     # canonical notation: see `bidref notation`
    draw 3-6                   # a draw may name the tile drawn
    pass                       # forced passes may be written; they are checked
    round 2                    # optional: asserts the round number
    hand A: ...                # the next round's deal, if not seeded

Rules of the format:

* ``seed: N`` deals every round from the seed; explicit deals (``hand A:``,
  ``hand B:`` and optionally ``boneyard:``) give the rounds in order, one deal
  block per round, written just before that round's first action. Explicit
  deals may be followed by seeded rounds when a seed is given too.
* Without a ``boneyard:`` line, every draw of that round must name its tile
  (``draw 3-6``): the boneyard order is taken from the draws.
* JSON is accepted too (a file starting with ``{``)::

    {"seed": 7, "balances": [150, 150], "max_rounds": 3,
     "deals": [{"hands": [["0-0", ...], [...]], "boneyard": [...]}],
     "actions": ["open 2-2", "B: play 2-5 2-2:line_b", ...]}

Parsing never raises anything but :class:`MoveFileError`, which carries the
line and column of the problem.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Literal

from bidref.errors import UsageError

from ..rules import Action, NotationError, Tile, parse_action, parse_tile
from ..rules.actions import DRAW
from ..transcript.reader import shorten

Player = int


class MoveFileError(UsageError, ValueError):  # ValueError: as before, for one release
    """Malformed input: ``line`` and ``col`` are 1-based."""

    def __init__(self, line: int, col: int, message: str) -> None:
        self.line = line
        self.col = col
        self.message = message = shorten(message)
        super().__init__(f"{line}:{col}: {message}")


@dataclass(frozen=True, slots=True)
class DealSpec:
    """An explicit deal; ``boneyard`` None means "taken from the named draws"."""

    line: int
    hands: tuple[tuple[Tile, ...], tuple[Tile, ...]]
    boneyard: tuple[Tile, ...] | None


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of play: an action, a written pass, a round marker or a deal's place."""

    line: int
    col: int
    kind: Literal["action", "pass", "round", "deal"]
    text: str = ""
    action: Action | None = None
    player: Player | None = None
    drawn: Tile | None = None  # ``draw 3-6``: the tile the line says was drawn
    number: int = 0  # round marker: the round; deal: the round it deals (1-based)


@dataclass
class MoveFile:
    seed: int | None = None
    balances: tuple[int, int] | None = None
    max_rounds: int | None = None
    deals: list[DealSpec] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    header_lines: dict[str, int] = field(default_factory=dict)


_PLAYER_RE = re.compile(r"^(?:player\s*)?([ab])\s*(?::|\)|\.|\s)\s*", re.IGNORECASE)
_KEYS = {
    "seed": "seed",
    "balances": "balances",
    "balance": "balances",
    "maxrounds": "max_rounds",
    "rounds": "max_rounds",
    "handa": "hand_a",
    "handb": "hand_b",
    "boneyard": "boneyard",
}
_ROUND_RE = re.compile(r"^round\s+(\S+?)\s*:?\s*$", re.IGNORECASE)
_INT_RE = re.compile(r"^[+-]?[0-9]{1,30}$")
_NAT_RE = re.compile(r"^[0-9]{1,9}$")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def parse_move_file(text: str) -> MoveFile:
    """Parse a move file (text or JSON); raise :class:`MoveFileError` on malformed input."""
    text = text.removeprefix("\ufeff")  # the byte order mark some editors write
    if text.lstrip().startswith(("{", "[")):
        return _parse_json(text)
    return _parse_text(text)


# -- text -----------------------------------------------------------------------------


def _parse_text(text: str) -> MoveFile:
    mf = MoveFile()
    block: dict[str, tuple[int, int, str]] = {}  # key -> (line, col, value)
    block_has_actions = False
    # Only CR LF, LF and CR break lines, as in an editor (str.splitlines would also break
    # at a form feed or U+2028 and shift every later FILE:LINE).
    for lineno, raw in enumerate(_LINE_BREAK.split(text), 1):
        body = raw.split("#", 1)[0]
        stripped = body.strip()
        if not stripped:
            continue
        col0 = len(body) - len(body.lstrip()) + 1
        if "\x00" in stripped:
            raise MoveFileError(lineno, col0 + stripped.index("\x00"), "a NUL byte in the file")
        key, value, vcol = _split_key(stripped, col0)
        if key in ("hand_a", "hand_b", "boneyard"):
            if key in block or block_has_actions:
                _close_block(mf, block)
                block, block_has_actions = {}, False
            block[key] = (lineno, vcol, value)
            continue
        if key is not None:
            if mf.entries and any(e.kind == "action" for e in mf.entries):
                raise MoveFileError(
                    lineno,
                    col0,
                    f"'{stripped}' is a header line after the "
                    "first action: move it to the top of the file",
                )
            if key in mf.header_lines:
                raise MoveFileError(
                    lineno, col0, f"'{key}' is given twice (first on line {mf.header_lines[key]})"
                )
            mf.header_lines[key] = lineno
            _header_value(mf, key, value, lineno, vcol)
            continue
        if block:
            _close_block(mf, block)
            block = {}
        block_has_actions = False
        mf.entries.append(_parse_entry(stripped, lineno, col0))
    if block:
        _close_block(mf, block)
    return mf


def _split_key(line: str, col0: int) -> tuple[str | None, str, int]:
    head, sep, tail = line.partition(":")
    if not sep:
        return None, line, col0
    norm = "".join(ch for ch in head.lower() if ch.isalnum())
    key = _KEYS.get(norm)
    if key is None:
        return None, line, col0
    vcol = col0 + len(head) + 1 + (len(tail) - len(tail.lstrip()))
    return key, tail.strip(), vcol


def _header_value(mf: MoveFile, key: str, value: str, line: int, col: int) -> None:
    if key == "seed":
        if not _INT_RE.match(value):
            raise MoveFileError(line, col, f"seed {value!r} is not a whole number, e.g. 'seed: 7'")
        mf.seed = int(value)
    elif key == "max_rounds":
        if not _NAT_RE.match(value) or int(value) < 1:
            raise MoveFileError(line, col, f"max rounds {value!r}: give a whole number >= 1")
        mf.max_rounds = int(value)
    else:
        parts = [p for p in re.split(r"[\s,/\-–]+", value) if p]
        if len(parts) != 2 or not all(_NAT_RE.match(p) for p in parts):
            raise MoveFileError(
                line,
                col,
                f"balances {value!r}: give two whole numbers "
                "adding up to 300, e.g. 'balances: 165 135'",
            )
        a, b = int(parts[0]), int(parts[1])
        if a + b != 300 or a <= 0 or b <= 0:
            raise MoveFileError(
                line,
                col,
                f"balances {a} and {b} are not possible: both must "
                "be positive and add up to 300 (RULES.md §1)",
            )
        mf.balances = (a, b)


def _tiles(value: str, line: int, col: int) -> tuple[Tile, ...]:
    out: list[Tile] = []
    for m in re.finditer(r"[^\s,;]+", value):
        try:
            out.append(parse_tile(m.group(0)))
        except NotationError as e:
            raise MoveFileError(line, col + m.start(), str(e)) from None
    return tuple(out)


def _close_block(mf: MoveFile, block: dict[str, tuple[int, int, str]]) -> None:
    first = min(v[0] for v in block.values())
    for needed, name in (("hand_a", "hand A"), ("hand_b", "hand B")):
        if needed not in block:
            raise MoveFileError(
                first,
                1,
                f"this deal has no '{name}:' line: a deal gives both "
                "hands (and optionally the boneyard in draw order)",
            )
    hands = (
        _tiles(block["hand_a"][2], *block["hand_a"][:2]),
        _tiles(block["hand_b"][2], *block["hand_b"][:2]),
    )
    bone = None
    if "boneyard" in block:
        bone = _tiles(block["boneyard"][2], *block["boneyard"][:2])
    spec = _deal_spec(first, hands, bone)
    mf.deals.append(spec)
    mf.entries.append(Entry(first, 1, "deal", number=len(mf.deals)))


def _deal_spec(
    line: int, hands: tuple[tuple[Tile, ...], tuple[Tile, ...]], bone: tuple[Tile, ...] | None
) -> DealSpec:
    for who, h in zip("AB", hands, strict=True):
        if len(h) != 7:
            raise MoveFileError(line, 1, f"hand {who} has {len(h)} tiles; each hand has 7")
    everything = [*hands[0], *hands[1], *(bone or ())]
    seen: set[Tile] = set()
    for t in everything:
        if t in seen:
            raise MoveFileError(
                line, 1, f"tile {t} is dealt twice; each of the 28 tiles is dealt once"
            )
        seen.add(t)
    if bone is not None and len(bone) != 14:
        raise MoveFileError(
            line,
            1,
            f"the boneyard has {len(bone)} tiles; it has 14 (leave the "
            "line out to take the order from the draws, 'draw 3-6')",
        )
    return DealSpec(line, (tuple(sorted(hands[0])), tuple(sorted(hands[1]))), bone)


def _parse_entry(text: str, line: int, col: int) -> Entry:
    m = _ROUND_RE.match(text)
    if m:
        if not _NAT_RE.match(m.group(1)):
            raise MoveFileError(line, col + m.start(1), f"round {m.group(1)!r}: give its number")
        return Entry(line, col, "round", text, number=int(m.group(1)))
    player: int | None = None
    pm = _PLAYER_RE.match(text)
    if pm and text[pm.end() :].strip():
        player = "ab".index(pm.group(1).lower())
        col += pm.end()
        text = text[pm.end() :]
    words = text.lower().split()
    if words == ["pass"]:
        return Entry(line, col, "pass", text, player=player)
    if words and words[0] == "draw" and len(words) == 2:
        try:
            drawn = parse_tile(words[1])
        except NotationError as e:
            raise MoveFileError(line, col + text.lower().index(words[1]), str(e)) from None
        return Entry(line, col, "action", text, DRAW, player, drawn)
    try:
        action = parse_action(text)
    except NotationError as e:
        raise MoveFileError(line, col + _quoted_col(text, str(e)), str(e)) from None
    except ValueError:  # a number int() cannot read, e.g. a superscript digit
        raise MoveFileError(
            line, col, f"{text!r} is not an action in bidref notation: see `bidref notation`"
        ) from None
    return Entry(line, col, "action", text, action, player)


def _quoted_col(text: str, message: str) -> int:
    """Where in ``text`` the first quoted piece of ``message`` sits (0 if not found)."""
    m = re.search(r"'([^']+)'", message)
    if not m or m.group(1) == text:
        return 0
    pos = text.lower().find(m.group(1).lower())
    return max(pos, 0)


# -- JSON -------------------------------------------------------------------------------


def _line_of(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _parse_json(text: str) -> MoveFile:
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except _DuplicateKey as e:
        first = text.find(json.dumps(e.key))
        second = text.find(json.dumps(e.key), first + 1)
        raise MoveFileError(*_line_of(text, max(second, 0)), f"{e.key!r} is given twice") from None
    except json.JSONDecodeError as e:
        raise MoveFileError(e.lineno, e.colno, f"not valid JSON: {e.msg}") from None
    except RecursionError:
        raise MoveFileError(1, 1, "the JSON is nested too deeply") from None
    except ValueError as e:  # a number too long to convert (Python's int digit limit)
        long = re.search(r"\d{1000,}", text)
        line, col = _line_of(text, long.start()) if long else (1, 1)
        raise MoveFileError(
            line, col, f"not a usable number ({e}); give a seed of at most a few dozen digits"
        ) from None
    if not isinstance(data, dict):
        raise MoveFileError(
            1, 1, "a JSON move file is one object with 'seed' or 'deals', and 'actions'"
        )

    def where(key: str) -> tuple[int, int]:
        pos = text.find(json.dumps(key))
        return _line_of(text, max(pos, 0))

    known = {"seed", "balances", "max_rounds", "deals", "actions"}
    for key in data:
        if key not in known:
            raise MoveFileError(
                *where(key), f"unknown key {key!r}: use " + ", ".join(sorted(known))
            )
    mf = MoveFile()
    for key in ("seed", "max_rounds"):
        if key in data:
            v = data[key]
            if not isinstance(v, int) or isinstance(v, bool):
                raise MoveFileError(*where(key), f"{key!r} must be a whole number")
            _header_value(mf, key, str(v), *where(key))
    if "balances" in data:
        v = data["balances"]
        if (
            not isinstance(v, list)
            or len(v) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)
        ):
            raise MoveFileError(*where("balances"), "'balances' must be two whole numbers")
        _header_value(mf, "balances", f"{v[0]} {v[1]}", *where("balances"))
    deals = data.get("deals", [])
    if not isinstance(deals, list):
        raise MoveFileError(*where("deals"), "'deals' must be a list of deals")
    dline, _ = where("deals")
    for i, d in enumerate(deals):
        if not isinstance(d, dict) or not isinstance(d.get("hands"), list) or len(d["hands"]) != 2:
            raise MoveFileError(
                dline,
                1,
                f"deal {i + 1} must be an object with 'hands': "
                "[hand A, hand B] and optionally 'boneyard'",
            )
        hands = (_json_tiles(d["hands"][0], dline, text), _json_tiles(d["hands"][1], dline, text))
        bone = _json_tiles(d["boneyard"], dline, text) if d.get("boneyard") is not None else None
        mf.deals.append(_deal_spec(dline, hands, bone))
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise MoveFileError(*where("actions"), "'actions' must be a list of strings")
    pos = max(text.find('"actions"'), 0)
    for i, a in enumerate(actions):
        if not isinstance(a, str):
            raise MoveFileError(
                *_line_of(text, pos),
                f'action {i + 1} must be a string in bidref notation, e.g. "play 1-3 1-1:branch_b"',
            )
        found = text.find(json.dumps(a), pos)
        if found < 0:  # escaped differently; fall back to the last known place
            found = pos
        else:
            pos = found + 1
        line, col = _line_of(text, found)
        stripped = a.strip()
        if not stripped:
            raise MoveFileError(line, col, f"action {i + 1} is empty")
        mf.entries.append(_parse_entry(stripped, line, col + 1))
    return mf


def _json_tiles(value: object, line: int, text: str) -> tuple[Tile, ...]:
    """Tiles of a JSON deal; a bad one is reported where its string is in ``text`` (or
    on the ``deals`` line)."""
    if not isinstance(value, list):
        raise MoveFileError(line, 1, f"{value!r} is not a list of tiles")
    out = []
    for t in value:
        try:
            if isinstance(t, str):
                out.append(parse_tile(t))
            elif (
                isinstance(t, list)
                and len(t) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in t)
            ):
                out.append(parse_tile(f"{t[0]}-{t[1]}"))
            else:
                raise NotationError(f"{t!r} is not a tile: write '3-6' or [3, 6]")
        except NotationError as e:
            pos = text.find(json.dumps(t)) if isinstance(t, str) else -1
            where = (line, 1) if pos < 0 else _line_of(text, pos + 1)
            raise MoveFileError(*where, str(e)) from None
    return tuple(out)
