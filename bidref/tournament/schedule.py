"""Who plays whom, on which deals, in which seats.

A tournament is a list of *pairings* (two engines, in a fixed order: ``first``
and ``second``) and a list of *deal seeds*. Every pairing plays every deal seed
twice, once with ``first`` in seat A (``seat=0``) and once with the seats swapped
(``seat=1``), so the luck of the deal cancels out within the pair.

>>> [str(p) for p in round_robin(["a", "b", "c"])]
['a vs b', 'a vs c', 'b vs c']
>>> [str(p) for p in gauntlet(["hero", "x", "y"])]
['hero vs x', 'hero vs y']
>>> [k.id for k in schedule([Pairing("a", "b")], [11, 12])]
['a vs b|11|0', 'a vs b|11|1', 'a vs b|12|0', 'a vs b|12|1']
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bidref.errors import UsageError

Format = Literal["round-robin", "gauntlet"]
FORMATS: tuple[Format, ...] = ("round-robin", "gauntlet")

MAX_SEED = 2**63 - 1


class ScheduleError(UsageError, ValueError):  # ValueError: as before, for one release
    """A tournament that cannot be scheduled as asked (the message says the fix)."""


@dataclass(frozen=True, order=True)
class Pairing:
    """Two engines (by their unique names); ``first`` is the side statistics are told from."""

    first: str
    second: str

    def __post_init__(self) -> None:
        if self.first == self.second:
            raise ScheduleError(f"an engine cannot play itself: {self.first!r} vs {self.second!r}")

    def __str__(self) -> str:
        return f"{self.first} vs {self.second}"


@dataclass(frozen=True, order=True)
class MatchKey:
    """One scheduled match: a pairing, a deal seed and who sits in seat A.

    ``seat=0``: the pairing's ``first`` engine is player A; ``seat=1``: swapped.
    """

    pairing: Pairing
    seed: int
    seat: int

    def __post_init__(self) -> None:
        if self.seat not in (0, 1):
            raise ScheduleError(f"seat must be 0 or 1, got {self.seat}")

    @property
    def id(self) -> str:
        return f"{self.pairing}|{self.seed}|{self.seat}"

    @property
    def engine_a(self) -> str:
        return self.pairing.first if self.seat == 0 else self.pairing.second

    @property
    def engine_b(self) -> str:
        return self.pairing.second if self.seat == 0 else self.pairing.first


def round_robin(names: Sequence[str]) -> list[Pairing]:
    """Every engine against every other engine once (per deal and seat)."""
    _check_names(names, minimum=2)
    return [Pairing(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


def gauntlet(names: Sequence[str]) -> list[Pairing]:
    """The first engine against each of the others; the others do not meet."""
    _check_names(names, minimum=2)
    hero = names[0]
    return [Pairing(hero, other) for other in names[1:]]


def pairings(fmt: Format, names: Sequence[str]) -> list[Pairing]:
    if fmt == "round-robin":
        return round_robin(names)
    if fmt == "gauntlet":
        return gauntlet(names)
    raise ScheduleError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def _check_names(names: Sequence[str], minimum: int) -> None:
    if len(names) < minimum:
        raise ScheduleError(f"a tournament needs at least {minimum} engines, got {len(names)}")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ScheduleError(f"engine name {name!r} is given twice: names must be unique")
        seen.add(name)


def seeds_from_master(master_seed: int, count: int) -> list[int]:
    """``count`` deal seeds derived from ``master_seed``, the same on every platform.

    >>> seeds_from_master(1, 3) == seeds_from_master(1, 3)
    True
    >>> len(set(seeds_from_master(1, 100)))
    100
    """
    if count < 1:
        raise ScheduleError(f"number of deals {count}: give at least 1")
    seeds: list[int] = []
    seen: set[int] = set()
    index = 0
    while len(seeds) < count:
        digest = hashlib.sha256(f"bidref-tournament-v1:{master_seed}:{index}".encode()).digest()
        seed = int.from_bytes(digest[:8], "big") & MAX_SEED
        index += 1
        if seed not in seen:
            seen.add(seed)
            seeds.append(seed)
    return seeds


def read_deal_book(path: Path) -> list[int]:
    """Deal seeds from a text file: one non-negative integer per line, ``#`` comments.

    Duplicates are an error (a deal played twice would be counted twice).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScheduleError(f"cannot read deal book {str(path)!r}: {exc.strerror}") from exc
    seeds: list[int] = []
    seen: dict[int, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            seed = int(line)
        except ValueError:
            raise ScheduleError(
                f"{path}:{number}: {raw.strip()!r} is not a deal seed: "
                "write one non-negative integer per line (# starts a comment)"
            ) from None
        if not 0 <= seed <= MAX_SEED:
            raise ScheduleError(f"{path}:{number}: seed {seed} is out of range 0..2**63-1")
        if seed in seen:
            raise ScheduleError(
                f"{path}:{number}: seed {seed} already given on line {seen[seed]}: "
                "each deal seed may appear once"
            )
        seen[seed] = number
        seeds.append(seed)
    if not seeds:
        raise ScheduleError(f"deal book {str(path)!r} holds no seeds: write one per line")
    return seeds


def schedule(pairs: Sequence[Pairing], seeds: Sequence[int]) -> list[MatchKey]:
    """All matches in playing order: deal by deal, every pairing, both seats together.

    Playing a deal's two seats back to back completes pairs early (for SPRT), and
    going deal by deal spreads a partial run evenly over the pairings.
    """
    if len(set(seeds)) != len(seeds):
        raise ScheduleError("deal seeds must be unique")
    return [MatchKey(p, seed, seat) for seed in seeds for p in pairs for seat in (0, 1)]
