"""Rich renderables for results: a table of rounds and a one-line match result."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from ..rules import MatchEnded


def player_name(p: int | None) -> str:
    return "—" if p is None else "AB"[p]


def rounds_table(rounds: Sequence[object]) -> Table:
    """A table of round results (``RoundResult``-like: round, opening, jockey, reason,
    winner, pips, payout, balances)."""
    table = Table(title=None, show_edge=False, pad_edge=False)
    for name in ("Round", "Opening", "Ended by", "Winner", "Pips A–B", "Paid", "Balances A–B"):
        table.add_column(name, justify="right" if name in ("Round", "Paid") else "left")
    for r in rounds:
        opening = getattr(r, "opening", "")
        jockey = getattr(r, "jockey", None)
        if jockey is not None:
            opening = f"{opening} (jockey {player_name(jockey)})"
        pips = getattr(r, "pips", (0, 0))
        bal = getattr(r, "balances", (0, 0))
        table.add_row(
            str(getattr(r, "round", "")),
            opening,
            str(getattr(r, "reason", "")),
            player_name(getattr(r, "winner", None)),
            f"{pips[0]}–{pips[1]}",
            str(getattr(r, "payout", 0)),
            f"{bal[0]}–{bal[1]}",
        )
    return table


def _rounds(n: int) -> str:
    return f"{n} round{'' if n == 1 else 's'}"


def result_text(result: MatchEnded | None, balances: tuple[int, int] | None = None) -> Text:
    """``A wins: B's balance reached 0 in round 3 (300–0)`` and the like."""
    if result is None:
        bal = "" if balances is None else f" (balances {balances[0]}–{balances[1]})"
        return Text(f"Match not over{bal}", style="yellow")
    a, b = result.balances
    if result.winner is None:
        return Text(
            f"Draw: equal balances at the round limit after {_rounds(result.rounds)} ({a}–{b})",
            style="bold",
        )
    win, lose = player_name(result.winner), player_name(1 - result.winner)
    if result.reason == "balance":
        how = f"{lose}'s balance reached 0 in round {result.rounds}"
    else:
        how = f"higher balance at the round limit after {_rounds(result.rounds)}"
    return Text(f"{win} wins: {how} ({a}–{b})", style="bold green")
