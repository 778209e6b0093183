"""Replay a transcript: collect the reveals, fold over the lines, report.

The fold (:mod:`.fold`) never raises on bad input: every problem comes back in
:class:`~.report.ReplayReport`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ...rules import Deal, RulesError
from ..files import decompress
from ..lines import PrivateItem, RoundReveal
from ..reader import Line, ReadResult, read_transcript
from .fold import Fold
from .report import Mismatch, ReplayReport, Reveal

log = logging.getLogger(__name__)


def collect_reveals(lines: Sequence[Line]) -> dict[int, Reveal]:
    """The round reveals, by round."""
    reveals: dict[int, Reveal] = {}
    for ln in lines:
        d = ln.item
        if type(d) is not RoundReveal:
            continue
        if d.round in reveals:
            raise Mismatch(ln.number, f"round {d.round} is revealed twice")
        try:
            hands = d.deal["hands"]
            deal = Deal.from_lists(hands[0], hands[1], d.deal["boneyard"])
        except (KeyError, IndexError, TypeError, ValueError, RulesError) as e:
            raise Mismatch(ln.number, f"the revealed deal is not a deal: {e}") from None
        if deal.to_dict() != d.deal:
            raise Mismatch(
                ln.number,
                "the revealed deal is not in canonical form (hands sorted, tiles as [low, high])",
            )
        private: dict[int, list[PrivateItem]] = {}
        for item in d.private:
            private.setdefault(item.seq, []).append(item)
        forms = d.reply_forms
        if forms is not None and len(forms) != 2:
            raise Mismatch(ln.number, f"reply_forms {forms!r}: one per seat")
        reveals[d.round] = Reveal(ln.number, deal, d.salt, private, d.requests, forms, d.deal)
    return reveals


def replay_lines(read: ReadResult, *, steps: bool = True, expand: bool = False) -> ReplayReport:
    """Fold over the lines read from a transcript; never raises on bad input.
    ``steps=False`` verifies only: no steps to show and no verified stream (the
    verdict, the result, the final layouts and the game record are there all the
    same)."""
    report = ReplayReport(lines=len(read.lines))
    try:
        fold = Fold(report, collect_reveals(read.lines), steps=steps, expand=expand)
        for ln in read.lines:
            try:
                fold.feed(ln)
            except Mismatch:
                raise
            except (
                KeyError,
                TypeError,
                ValueError,
                AttributeError,
                IndexError,
                OverflowError,
            ) as e:
                raise Mismatch(
                    ln.number, f"a malformed {ln.type!r} line: {type(e).__name__}: {e}"
                ) from None
        if read.problem is not None:
            raise Mismatch(read.problem.number, read.problem.message)
        if not read.lines and read.truncated_at is None:
            # Not cut short somewhere: there is nothing at all (exit code as truncated).
            report.empty = True
            report.truncated = (
                "not one line (the referee may have been stopped before it wrote its "
                "header); there is nothing to verify"
            )
        elif not fold.done:
            last = read.lines[-1].number if read.lines else 0
            where = (
                f"an unfinished line {read.truncated_at}" if read.truncated_at else "no result line"
            )
            note = (
                f"the transcript stops after line {last} ({where}): the referee may have been "
                "killed; everything up to there is replayed"
            )
            report.truncated = f"{report.truncated}; {note}" if report.truncated else note
            if fold.header is not None:
                m = fold.game.match
                if m.layout.placed:
                    report.final_layouts.setdefault(fold.game.round, m.layout.copy())
                if fold.public is not None and fold.public.layout.placed:
                    report.final_layouts[fold.game.round] = fold.public.layout.copy()
    except Mismatch as e:
        log.debug("replay stopped at line %d: %s", e.line, e.message)
        report.problem = e
    return report


def replay(data: bytes, *, steps: bool = True, expand: bool = False) -> ReplayReport:
    """Read and replay a transcript's bytes (plain or compressed: gzip and Zstandard
    are recognised by their magic numbers)."""
    return replay_lines(read_transcript(decompress(data, "")), steps=steps, expand=expand)
