"""Rich tables and plain exports of standings (built here, printed by the CLI)."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

from rich.table import Table
from rich.text import Text

from .ratings import Sprt
from .standings import PairStats, SideStats, Standings, sprt_dict

PAIR_COLUMNS = (
    "first",
    "second",
    "matches",
    "wins",
    "losses",
    "draws",
    "points",
    "score",
    "pairs",
    "pentanomial",
    "elo",
    "elo_low",
    "elo_high",
    "los",
    "adjudications",
    "aborted",
    "time_losses",
    "crashes",
    "illegal_forfeits",
    "protocol_errors",
)


def fmt_elo(side: SideStats) -> str:
    est = side.estimate
    if not est.samples:
        return "-"
    elo, margin = est.elo + 0.0, est.margin  # + 0.0: no "-0.0"
    if math.isinf(elo):
        return "+inf" if elo > 0 else "-inf"
    if math.isnan(margin):
        return f"{elo:+.1f}"
    if math.isinf(margin):
        return f"{elo:+.1f} ± inf"
    return f"{elo:+.1f} ± {margin:.1f}"


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def _faults(side: SideStats, opponent: bool = False) -> str:
    f = side.opponent_faults if opponent else side.faults
    return f"{f['time_losses']}/{f['crashes']}/{f['illegal_forfeits']}/{f['protocol_errors']}"


def standings_table(
    standings: Standings, title: str = "Standings", limit: int | None = None
) -> Table:
    """The standings, best first; ``limit``: only the first rows."""
    ranked = standings.ranked()
    if limit is not None and len(ranked) > limit:
        ranked = ranked[:limit]
        title = f"{title} (top {limit} of {len(standings.engines)})"
    table = Table(
        title=title,
        title_justify="left",
        caption_justify="left",
        caption="Elo, its 95 % interval and LOS from pairs; T/C/I/P: losses by "
        "time, crash, illegal forfeit, protocol error",
    )
    for name, justify in (
        ("#", "right"),
        ("Engine", "left"),
        ("Matches", "right"),
        ("W-L-D", "right"),
        ("Score", "right"),
        ("Pairs", "right"),
        ("Elo (95%)", "right"),
        ("LOS", "right"),
        ("T/C/I/P", "right"),
        ("Aborted", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for rank, (name, s) in enumerate(ranked, start=1):
        table.add_row(
            str(rank),
            name,
            str(s.matches),
            f"{s.wins}-{s.losses}-{s.draws}",
            _pct(s.trinomial.score),
            str(s.estimate.samples),
            fmt_elo(s),
            _pct(s.pentanomial.los) if s.estimate.samples else "-",
            _faults(s),
            str(s.aborted),
        )
    return table


def pairs_table(standings: Standings, sprt: Sprt | None = None) -> Table:
    table = Table(
        title="Pairings (from the first engine's side)",
        title_justify="left",
        caption="Adj.: matches ended at the round limit; T/C/I/P: the first · the "
        "second engine's losses by time, crash, illegal, protocol",
        caption_justify="left",
    )
    for name in (
        "Pairing",
        "W-L-D",
        "Score",
        "Ptnml(0-2)",
        "Elo (95%)",
        "LOS",
        "Adj.",
        "T/C/I/P",
        "Aborted",
    ):
        table.add_column(
            name,
            justify="left" if name == "Pairing" else "right",
            no_wrap=name in ("W-L-D", "Ptnml(0-2)"),
            min_width=12 if name == "Pairing" else None,
        )
    if sprt is not None:
        table.add_column("SPRT LLR", justify="right")
    for p in standings.pairs.values():
        s = p.side
        row = [
            str(p.pairing),
            f"{s.wins}-{s.losses}-{s.draws}",
            _pct(s.trinomial.score),
            " ".join(map(str, s.pentanomial.counts)),
            fmt_elo(s),
            _pct(s.pentanomial.los) if s.estimate.samples else "-",
            str(s.adjudications),
            f"{_faults(s)} · {_faults(s, opponent=True)}",
            str(s.aborted),
        ]
        if sprt is not None:
            row.append(sprt_text(sprt, p))
        table.add_row(*row)
    return table


def sprt_text(sprt: Sprt, p: PairStats) -> str:
    d = sprt_dict(sprt, p.side.pentanomial)
    verdict = {"H1": "H1 accepted", "H0": "H0 accepted", "continue": "continue"}[str(d["status"])]
    return f"{d['llr']:.2f} ({d['lower']:.2f}, {d['upper']:.2f}) {verdict}"


def sprt_line(sprt: Sprt, standings: Standings) -> Text | None:
    if len(standings.pairs) != 1:
        return None
    (p,) = standings.pairs.values()
    return Text(
        f"SPRT [{sprt.elo0:g}, {sprt.elo1:g}] α={sprt.alpha:g} β={sprt.beta:g} on "
        f"{p.side.estimate.samples} pairs of {p.pairing}: LLR {sprt_text(sprt, p)}"
    )


def pair_rows(standings: Standings) -> list[dict[str, object]]:
    rows = []
    for p in standings.pairs.values():
        d = p.to_dict()
        rows.append({c: d.get(c) for c in PAIR_COLUMNS})
    return rows


def export_pairs(standings: Standings, path: Path, sprt: Sprt | None = None) -> None:
    """Write the pairwise table as CSV (``.csv``) or JSON (``.json``; the CLI takes
    no other ending)."""
    if path.suffix.lower() == ".csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(PAIR_COLUMNS), lineterminator="\n")
        writer.writeheader()
        for row in pair_rows(standings):
            row["pentanomial"] = " ".join(str(c) for c in row["pentanomial"])  # type: ignore[attr-defined]
            writer.writerow(row)
        path.write_text(buffer.getvalue(), encoding="utf-8")
    else:
        data = [p.to_dict(sprt) for p in standings.pairs.values()]
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
