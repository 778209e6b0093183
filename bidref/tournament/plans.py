"""What a command line asks of a tournament (`Wanted`), and the new `Plan` it makes.

`Wanted` keeps None for what was not given: a new tournament takes the
`Defaults` (the command's, shown in its help), a resumed one the values its
results file recorded (:mod:`.resume`). Nothing here writes a file: :mod:`.folder` does, once the
tournament can be played.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .engines import resolve_entries
from .folder import refuse_old_results
from .model import MatchSettings
from .ratings import Sprt
from .runner import Plan, TournamentError, new_header
from .schedule import Format, read_deal_book, seeds_from_master


@dataclass(frozen=True)
class Defaults:
    """What a new tournament takes for the options not given."""

    deals: int  # deal seeds per pairing (without a deal book)
    bank_s: float
    delay_s: float


@dataclass(frozen=True)
class Wanted:
    """The tournament options of one command line; None: not given."""

    engines: list[str] = field(default_factory=list)  # the ENGINE arguments
    engine_texts: list[str] = field(default_factory=list)  # --engine "cmd=... name=..."
    each_texts: list[str] = field(default_factory=list)  # --each "option.depth=3"
    fmt: Format | None = None
    deals: int | None = None
    seed: int | None = None
    deal_book: Path | None = None
    bank_s: float | None = None
    delay_s: float | None = None
    max_rounds: int | None = None
    illegal: Literal["reject", "forfeit"] | None = None
    transport: Literal["pipe", "pty"] | None = None
    sprt: Sprt | None = None

    def settings(self, defaults: Defaults) -> MatchSettings:
        """The match settings of a new tournament: what was given, else the defaults."""
        bank_s = defaults.bank_s if self.bank_s is None else self.bank_s
        delay_s = defaults.delay_s if self.delay_s is None else self.delay_s
        return MatchSettings(
            bank_ms=round(1000 * bank_s),
            delay_ms=round(1000 * delay_s),
            max_rounds=self.max_rounds,
            illegal=self.illegal or "reject",
            transport=self.transport or "pipe",
        )

    def recorded_options(self) -> dict[str, object]:
        """The options a results file records, by flag (--resume checks them)."""
        return {
            "format": self.fmt,
            "bank": self.bank_s,
            "delay": self.delay_s,
            "max-rounds": self.max_rounds,
            "illegal": self.illegal,
            "transport": self.transport,
            "seed": self.seed,
            "deals": self.deals,
        }


def check_sprt(plan: Plan, sprt: Sprt | None) -> None:
    """An SPRT tests one pairing: refused for a tournament of more."""
    if sprt is not None and len(plan.pairings) != 1:
        raise TournamentError(
            f"--sprt tests one pairing, but this tournament has "
            f"{len(plan.pairings)}: give exactly two engines"
        )


def _seeds(wanted: Wanted, default_deals: int) -> tuple[list[int], int | None]:
    """The deal seeds and the master seed they come from (None: from the deal book)."""
    deals, book = wanted.deals, wanted.deal_book
    if book is None:
        master = wanted.seed if wanted.seed is not None else secrets.randbits(63)
        return seeds_from_master(master, deals or default_deals), master
    seeds = read_deal_book(book)
    if deals is not None and deals > len(seeds):
        raise TournamentError(f"--deals {deals} but {book} holds only {len(seeds)} seeds")
    return (seeds[:deals] if deals is not None else seeds), None


def new_plan(
    out: Path, wanted: Wanted, defaults: Defaults, *, check: bool = True, force: bool = False
) -> Plan:
    """A new tournament for ``out`` (nothing written yet).

    ``check``: refuse engines whose program is not found here (real engines).
    ``force``: a tournament already in ``out`` is to be replaced (not refused).
    """
    if len(wanted.engines) + len(wanted.engine_texts) < 2:
        raise TournamentError(
            "give at least two engines, e.g. bidref tournament ./engine_a "
            "./engine_b (or --resume --out DIR)"
        )
    entries = resolve_entries(
        wanted.engines,
        engine_texts=wanted.engine_texts,
        each_texts=wanted.each_texts,
        check=check,
    )
    seeds, master = _seeds(wanted, defaults.deals)
    header = new_header(
        wanted.fmt or "round-robin",
        entries,
        seeds,
        wanted.settings(defaults),
        master_seed=master,
        deal_book=None if wanted.deal_book is None else str(wanted.deal_book),
        sprt=wanted.sprt,
    )
    plan = Plan(header, out)
    plan.keys  # noqa: B018 - validates the schedule before anything is written
    check_sprt(plan, wanted.sprt)
    if not force:
        refuse_old_results(out)  # said before anything is tried
    return plan
