"""What a person typed, resolved against the legal actions of the moment.

Pure functions, no I/O: :func:`resolve` turns one typed line into an action,
a command, or a problem with a message that quotes the input and says the fix;
:func:`complete` is the Tab completion. The legal actions are the ones the
referee sent with its request, so a problem never reaches the referee and never
changes the game (RULES.md §8); the clock keeps running meanwhile.

What a person may type:

- a number from the numbered list of legal actions: ``3``;
- the canonical notation or any of its variants: ``play 1-3 1-1:branch_b``,
  ``[1|3] at [1|1] branch B``, ``13 at 11 bb``, ``raise 25``;
- any unambiguous start of a legal action: ``de`` (decline), ``dr`` (draw),
  ``a`` (accept), ``bid 3`` (when only ``bid 30`` and up are legal… and unique);
- a tile alone when it has exactly one legal placement: ``1-3`` or ``open 3-6``;
- a tile and the tile it joins, without the side, when only one side of that
  tile takes it: ``12 at 26``;
- commands: ``rules [topic]``, ``help``, ``resign``.

>>> from bidref.rules import parse_action
>>> legal = [parse_action(a) for a in ("decline", "bid 15", "bid 20")]
>>> resolve("2", legal)
Chosen(action=Bid(amount=15))
>>> resolve("de", legal)
Chosen(action=Decline())
>>> resolve("bid", legal).message
"'bid' could be: bid 15, bid 20 — type more of it, or its number"
>>> complete("d", legal)
'decline'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rules import Action, NotationError, Open, Play, Tile, parse_action, parse_tile
from ..rules.actions import Bid

COMMANDS = ("rules", "help", "resign")


@dataclass(frozen=True, slots=True)
class Chosen:
    """The entry names this legal action."""

    action: Action


@dataclass(frozen=True, slots=True)
class Command:
    """A command that is not a game action (``rules``, ``help``, ``resign``)."""

    name: str
    arg: str = ""


@dataclass(frozen=True, slots=True)
class Problem:
    """The entry is not a legal action now; ``message`` says why and what to type."""

    message: str


Resolved = Chosen | Command | Problem


def _norm(text: str) -> str:
    return " ".join(text.strip().lower().split())


def _names(actions: Sequence[Action]) -> str:
    shown = ", ".join(str(a) for a in actions[:8])
    return shown + (f", … ({len(actions)} in all)" if len(actions) > 8 else "")


def resolve(text: str, legal: Sequence[Action], hand: Sequence[Tile] = ()) -> Resolved:
    """Resolve one typed line against ``legal`` (the sorted legal actions);
    ``hand`` (the player's tiles) only sharpens the messages."""
    entry = _norm(text)
    if not entry:
        return Problem("type an action, its number from the list, 'rules' or 'help'")
    word, _, rest = entry.partition(" ")
    if word in COMMANDS or (word == "?" and not rest):
        return Command("help" if word == "?" else word, rest)
    if entry.isdigit():
        n = int(entry)
        if 1 <= n <= len(legal):
            return Chosen(legal[n - 1])
        if len(entry) != 2:  # two digits may still be a tile, e.g. 13 for [1|3]
            return Problem(
                f"{text.strip()!r}: there is no action number {n}; "
                f"the list goes from 1 to {len(legal)}"
            )
    try:
        action = parse_action(entry)
    except NotationError as e:
        action = None
        parse_error = str(e)
    if action is not None:
        if action in legal:
            return Chosen(action)
        # A tile alone after 'open'/'play' is handled below; anything else is illegal.
        return Problem(f"{str(action)!r} is not legal now: {_why_not(action, legal, hand)}")
    # 'TILE at TILE' without the side: the only legal placement there.
    short = _at_tile(entry, legal, text)
    if short is not None:
        return short
    # A tile alone, or 'play TILE': the tile's only legal placement.
    tile_text = entry.removeprefix("play ").removeprefix("open ")
    try:
        t = parse_tile(tile_text)
    except NotationError:
        t = None
    if t is not None:
        uses = [a for a in legal if isinstance(a, Play | Open) and a.tile is t]
        if len(uses) == 1:
            return Chosen(uses[0])
        if uses:
            return Problem(
                f"{text.strip()!r}: {t} can go to more than one place: "
                f"{_names(uses)} — type one of them, or its number"
            )
        why = f"you do not hold {t}" if hand and t not in hand else f"{t} cannot be placed now"
        return Problem(f"{text.strip()!r}: {why}; legal now: {_names(legal)}")
    # Any unambiguous start of a legal action's canonical text.
    starts = [a for a in legal if str(a).startswith(entry)]
    if len(starts) == 1:
        return Chosen(starts[0])
    if starts:
        return Problem(
            f"{text.strip()!r} could be: {_names(starts)} — type more of it, or its number"
        )
    cmds = [c for c in COMMANDS if c.startswith(word)] if not rest else []
    if len(cmds) == 1 and len(word) >= 2:
        return Command(cmds[0], rest)
    if word in ("play", "open", "bid", "raise", "decline", "accept", "draw"):
        return Problem(f"{parse_error}. Legal now: {_names(legal)} (or type its number)")
    return Problem(
        f"{text.strip()!r} is not an action. Legal now: {_names(legal)} "
        "(or type its number; 'help' explains what you can type)"
    )


def _at_tile(entry: str, legal: Sequence[Action], text: str) -> Resolved | None:
    """``12 at 26`` (``play 1-2 at 2-6``, ``[1|2] at [2|6]``): a placement named by its
    tile and the tile it joins, without the side, chosen when only one side of that
    tile takes it; None when the entry is not of this form.

    >>> from bidref.rules import parse_action
    >>> legal = [parse_action(a) for a in ("play 1-2 2-6:high", "play 1-6 2-6:low")]
    >>> print(resolve("12 at 26", legal).action)
    play 1-2 2-6:high
    """
    tile_text, at, target_text = entry.removeprefix("play ").partition(" at ")
    if not at:
        return None
    try:
        t, target = parse_tile(tile_text), parse_tile(target_text)
    except NotationError:
        return None
    uses = [a for a in legal if isinstance(a, Play) and a.tile is t and a.at.tile is target]
    if len(uses) == 1:
        return Chosen(uses[0])
    if uses:
        return Problem(
            f"{text.strip()!r}: {t} fits {target} on more than one side: {_names(uses)} "
            "— type one of them, or its number"
        )
    return Problem(
        f"{text.strip()!r}: {t} cannot be placed at {target} now; legal now: {_names(legal)}"
    )


def _why_not(action: Action, legal: Sequence[Action], hand: Sequence[Tile]) -> str:
    """A short reason why ``action`` is not among ``legal``, from the public facts."""
    kinds = {a.kind for a in legal}
    if action.kind not in kinds:
        if kinds <= {"decline", "accept", "bid"}:
            return f"the auction is on; you may {_names(legal)}"
        if kinds == {"open"}:
            return f"you are to open the round: {_names(legal)}"
        if kinds == {"draw"}:
            return "you hold no playable tile, so you must draw (RULES.md §5)"
        if action.kind in ("decline", "accept", "bid"):
            return f"the auction is over; you may {_names(legal)}"
        return f"you may {_names(legal)}"
    if isinstance(action, Bid):
        amounts = [a.amount for a in legal if isinstance(a, Bid)]
        return f"bids now go from {min(amounts)} to {max(amounts)} in steps of 5 (RULES.md §6)"
    if isinstance(action, Open):
        if hand and action.tile not in hand:
            return f"you do not hold {action.tile}"
        return f"you may open with: {_names(legal)}"
    if isinstance(action, Play):
        mine = [a for a in legal if isinstance(a, Play) and a.tile is action.tile]
        if mine:
            return f"{action.tile} can go to: {_names(mine)}"
        if hand and action.tile not in hand:
            return f"you do not hold {action.tile}"
        plays = [a for a in legal if isinstance(a, Play)]
        return (
            f"{action.at.words} is not an open attachment point that takes {action.tile}; "
            f"playable now: {_names(plays)}"
        )
    return f"you may {_names(legal)}"


def complete(text: str, legal: Sequence[Action]) -> str:
    """Tab completion: the longest common start of every legal action or command
    that begins with ``text``; ``text`` itself when nothing or no more fits."""
    entry = text.lstrip().lower()
    options = [str(a) for a in legal] + list(COMMANDS)
    fits = [o for o in options if o.startswith(entry)]
    if not fits:
        return text
    common = fits[0]
    for f in fits[1:]:
        n = 0
        while n < min(len(common), len(f)) and common[n] == f[n]:
            n += 1
        common = common[:n]
    return common if len(common) > len(entry) else text
