"""Rich tables and plain exports of standings (built here, printed by the CLI)."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ...tournament.ratings import JointRating, Sprt
from ...tournament.standings import PairStats, SideStats, Standings, sprt_dict
from ...visible import visible

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
    """``+12.3 ± 4.5``; ``+12.3 ± n/a`` below 3 pairs; ``> +553`` for a bound
    (every pair won: the Elo is above that)."""
    est = side.estimate
    if not est.samples:
        return "-"
    elo, bound = side.elo_bound()
    elo += 0.0  # no "-0.0"
    if bound is not None:
        return f"> {elo:+.0f}" if bound == "lower" else f"< {elo:+.0f}"
    if not side.interval_known:
        return f"{elo:+.1f} ± n/a"
    margin = est.margin
    if math.isnan(margin) or math.isinf(margin):
        return f"{elo:+.1f} ± n/a"
    return f"{elo:+.1f} ± {margin:.1f}"


def fmt_joint(j: JointRating, side: SideStats) -> str:
    if math.isnan(j.elo):
        return "-"
    elo = j.elo + 0.0
    if not side.interval_known or math.isnan(j.stderr):
        return f"{elo:+.0f} ± n/a"
    return f"{elo:+.0f} ± {j.margin:.0f}"


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def _faults(side: SideStats, opponent: bool = False) -> str:
    f = side.opponent_faults if opponent else side.faults
    return f"{f['time_losses']}/{f['crashes']}/{f['illegal_forfeits']}/{f['protocol_errors']}"


@dataclass(frozen=True)
class Column:
    """A table column: its header, how to justify it, and how soon it is dropped
    when the table does not fit (0: never; higher: earlier)."""

    header: str
    justify: str = "right"
    drop: int = 0
    no_wrap: bool = True
    note: str = ""  # said in the caption while the column is shown


class Fitted:
    """A table that fits the console: it drops its optional columns, least useful
    first, until it is no wider than the console (80 columns in CI logs); what still
    does not fit wraps inside its cells."""

    def __init__(
        self,
        columns: Sequence[Column],
        rows: Sequence[Sequence[str | Text]],
        *,
        title: str,
        caption: str | None = None,
    ) -> None:
        self.columns = list(columns)
        self.rows = [list(r) for r in rows]
        self.title = title
        self.caption = caption

    def table(self, max_drop: int) -> Table:
        keep = [i for i, c in enumerate(self.columns) if c.drop <= max_drop]
        notes = [self.columns[i].note for i in keep if self.columns[i].note]
        caption = "; ".join([*([self.caption] if self.caption else []), *notes]) or None
        table = Table(
            title=self.title,
            title_justify="left",
            caption=caption,
            caption_justify="left",
            box=box.SIMPLE_HEAD,
            padding=(0, 1),
            pad_edge=False,
        )
        for i in keep:
            c = self.columns[i]
            longest = max((len(str(r[i])) for r in self.rows), default=0)
            table.add_column(
                c.header,
                justify=c.justify,  # type: ignore[arg-type]
                no_wrap=c.no_wrap,
                overflow="fold",
                # a name column may wrap, but not down to nothing
                min_width=None if c.no_wrap else min(max(longest, len(c.header)), 12),
            )
        for row in self.rows:
            table.add_row(*(row[i] for i in keep))
        return table

    def fit(self, console: Console, width: int) -> Table:
        levels = sorted({c.drop for c in self.columns}, reverse=True)
        # measured unconstrained (a measurement is clamped to the width it is given)
        wide = console.options.update_width(10_000)
        for level in levels:
            table = self.table(level)
            if Measurement.get(console, wide, table).maximum <= width:
                return table
        return self.table(0)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.fit(console, options.max_width)


def standings_table(
    standings: Standings,
    title: str = "Standings",
    limit: int | None = None,
    hero: str | None = None,
) -> Fitted:
    """The standings, best first (``hero``, a gauntlet's engine, first of all);
    ``limit``: only the first rows."""
    ranked = standings.ranked(hero)
    if limit is not None and len(ranked) > limit:
        ranked = ranked[:limit]
        title = f"{title} (top {limit} of {len(standings.engines)})"
    joint = standings.joint()
    columns = [
        Column("#"),
        Column("Engine", "left", no_wrap=False),
        Column("Games", drop=2),
        Column("W-L-D", drop=1),
        Column("Score"),
        Column(
            "Elo (pairs)",
            note="Elo (pairs): from complete pairs, 95 % (n/a: below 3 pairs, or unbounded)",
        ),
        Column(
            "Elo (joint)",
            drop=1,
            note="Elo (joint): all engines at once, maximum likelihood (as Ordo/BayesElo)",
        ),
        Column("LOS", drop=2),
        Column("Pairs", drop=3),
        Column(
            "T/C/I/P",
            drop=2,
            note="T/C/I/P: losses by time, crash, illegal forfeit, protocol error",
        ),
        Column("Abrt", drop=3, note="Abrt: aborted and played again"),
    ]
    rows: list[list[str | Text]] = [
        [
            str(rank),
            Text(visible(name)),
            str(s.matches),
            f"{s.wins}-{s.losses}-{s.draws}",
            _pct(s.trinomial.score),
            fmt_elo(s),
            fmt_joint(joint[name], s),
            _pct(s.pentanomial.los) if s.estimate.samples else "-",
            str(s.estimate.samples),
            _faults(s),
            str(s.aborted),
        ]
        for rank, (name, s) in enumerate(ranked, start=1)
    ]
    return Fitted(columns, rows, title=title)


def pairs_table(standings: Standings, sprt: Sprt | None = None) -> Fitted:
    columns = [
        Column("Pairing", "left", no_wrap=False),
        Column("W-L-D"),
        Column("Score"),
        Column("Ptnml(0-2)", drop=1),
        Column("Elo (95%)"),
        Column("LOS", drop=2),
        Column("Adj.", drop=3, note="Adj.: matches ended at the round limit"),
        Column(
            "T/C/I/P",
            drop=3,
            note="T/C/I/P: the first · the second engine's losses by time, crash, illegal, "
            "protocol",
        ),
        Column("Abrt", drop=3),
    ]
    if sprt is not None:
        columns.append(Column("SPRT LLR", no_wrap=False))
    rows = []
    for p in standings.pairs.values():
        s = p.side
        row: list[str | Text] = [
            Text(visible(str(p.pairing))),
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
        rows.append(row)
    return Fitted(columns, rows, title="Pairings (from the first engine's side)")


def cross_table(standings: Standings) -> Fitted:
    """Points of each engine (row) against each opponent (column, by rank)."""
    ranked = [n for n, _ in standings.ranked()]
    cross = standings.cross_dict()
    columns = [Column("#"), Column("Engine", "left", no_wrap=False), Column("Score")]
    columns += [Column(str(i)) for i in range(1, len(ranked) + 1)]
    rows = []
    for rank, name in enumerate(ranked, start=1):
        s = standings.engines[name]
        row: list[str | Text] = [str(rank), Text(visible(name)), f"{s.points:g}/{s.matches}"]
        for other in ranked:
            cell = cross[name].get(other)
            row.append(
                "·"
                if other == name
                else "-"
                if cell is None
                else f"{cell['points']:g}/{cell['matches']}"
            )
        rows.append(row)
    return Fitted(
        columns,
        rows,
        title="Cross-table (points/matches against the engine of that rank)",
    )


def seats_table(standings: Standings, hero: str | None = None) -> Fitted:
    """Each engine's results in seat A and in seat B."""
    columns = [
        Column("Engine", "left", no_wrap=False),
        Column("as A W-L-D"),
        Column("as A"),
        Column("as B W-L-D"),
        Column("as B"),
    ]
    rows = []
    a_points = a_matches = 0.0
    for name, s in standings.ranked(hero):
        row: list[str | Text] = [Text(visible(name))]
        for seat in s.by_seat:
            w, lo, d = seat
            n = w + lo + d
            row += [f"{w}-{lo}-{d}", _pct((w + 0.5 * d) / n) if n else "-"]
        rows.append(row)
        w, lo, d = s.by_seat[0]
        a_points += w + 0.5 * d
        a_matches += w + lo + d
    caption = (
        f"seat A scored {_pct(a_points / a_matches)} of all rated matches" if a_matches else None
    )
    return Fitted(columns, rows, title="Results by seat", caption=caption)


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


def workers_table(workers: dict[str, dict[str, object]]) -> Table:
    """The cluster's workers: what each played, its rates, and whether it stands out."""
    table = Table(title="Workers", box=box.SIMPLE_HEAD)
    for col in ("worker", "matches", "rejected", "crashes", "time", "protocol", "aborts"):
        table.add_column(col, justify="left" if col == "worker" else "right")
    table.add_column("ms/decision", justify="left")
    table.add_column("flagged", justify="left", style="yellow")
    for name, w in workers.items():
        ms = w.get("mean_decision_ms")
        per = ", ".join(f"{e} {v:g}" for e, v in ms.items()) if isinstance(ms, dict) else ""
        table.add_row(
            Text(name),
            *(
                str(w.get(k, 0))
                for k in (
                    "matches",
                    "rejected",
                    "crashes",
                    "time_losses",
                    "protocol_losses",
                    "aborts",
                )
            ),
            Text(per),
            Text(str(w.get("flagged") or "")),
        )
    return table
