"""Export a replayed transcript as a move file (``bidref replay T --moves FILE``).

The move file holds what ``bidref validate`` needs to play the same game again
through the rules: the deals (the seed when every deal comes from it, else each
revealed round's deal written before its first action), the round limit, and
every accepted action with its player. Validating it gives the same rounds,
balances and — when the game ended by the rules — the same result; an ending
outside the rules (time, resignation, crash, forfeit …) is said in a comment,
and validate then shows the game where it stopped.
"""

from __future__ import annotations

from ..outcome import EndReason
from .replay import ReplayReport


def _tiles(tiles: tuple[object, ...]) -> str:
    return " ".join(str(t) for t in tiles)


def move_file_text(report: ReplayReport, source: str = "") -> str:
    """The move file of a replayed transcript (only what was verified: the replay may
    have stopped early, and a round whose deal was never revealed is left out)."""
    g = report.game
    out = [
        "# bidref move file, exported by `bidref replay --moves`"
        + (f" from {source}" if source else "")
    ]
    if g.engines:
        out.append(f"# A: {g.engines[0]} · B: {g.engines[1]}")
    res = report.result
    if res is not None:
        who = "nobody" if res.winner is None else "AB"[res.winner]
        out.append(
            f"# result: {res.reason}, winner {who}, balances {res.balances[0]}-"
            f"{res.balances[1]} after {res.rounds} round(s)"
        )
        said = EndReason.named(res.reason)
        if said is None or not said.by_rules:
            out.append("# (an ending outside the rules: validate shows the game where it stopped)")
    if report.problem is not None:
        out.append(f"# the replay stopped at line {report.problem.line}: {report.problem.message}")
    seed_only = g.seed is not None and g.explicit_deals == 0
    if g.seed is not None:
        out.append(f"seed: {g.seed}")
    if g.max_rounds is not None:
        out.append(f"max rounds: {g.max_rounds}")
    current = 0
    for rnd, seat, action in g.moves:
        if rnd not in g.deals:
            break  # an unrevealed round: nothing of it can be validated
        if rnd != current:
            current = rnd
            out.append("")
            out.append(f"round {rnd}")
            if not seed_only and (g.seed is None or rnd <= g.explicit_deals):
                d = g.deals[rnd]
                out.append(f"hand A: {_tiles(d.hands[0])}")
                out.append(f"hand B: {_tiles(d.hands[1])}")
                out.append(f"boneyard: {_tiles(d.boneyard)}")
        out.append(f"{'AB'[seat]}: {action}")
    return "\n".join(out) + "\n"
