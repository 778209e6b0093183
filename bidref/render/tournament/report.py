"""A tournament as one HTML report; a replay page per match on demand or written.

:func:`write_report` reads a tournament's folder (``results.jsonl`` and the
transcripts it names), and writes the report: standings, the ratings with
their 95 % intervals drawn on one Elo axis, a cross-table, and every match,
linked to its transcript. A replay page holds every step of its match drawn
(about 60 times its gzipped transcript), so they are made on demand by
:mod:`.server` (``bidref tournament-report DIR --serve``), or, asked for
(``replays``), written into a folder beside the report, ``REPORT-replays/``,
mirroring ``transcripts/``. All links are relative, so the report and its
folder can be moved or published together. Like the replay pages, the report
loads nothing from anywhere.

Decided here: only the first rated record of a match counts (as in the
standings); the other attempts are listed, unrated, with their own replays.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path

from ...tournament.model import MatchRecord
from ...tournament.ratings import Sprt
from ...tournament.runner import RESULTS_FILE, TRANSCRIPTS_DIR, Plan
from ...tournament.standings import SideStats, Standings, compute
from ...tournament.store import read_results
from ...tournament.workers_stats import workers_of
from ..replay_page import replay_page
from ..timeline import build_timeline
from .tables import sprt_text

ELO_SPAN = 800.0  # the axis runs over at most ±800 Elo; wider intervals are clipped


@dataclass
class ReportSummary:
    path: Path
    matches: int
    replays: int
    missing: list[str]  # transcripts that could not be read


def _transcript_path(out_dir: Path, rec: MatchRecord) -> Path | None:
    """The record's transcript: where it was written, else at the same place under
    ``out_dir`` (the folder may have been moved)."""
    if rec.transcript is None:
        return None
    p = Path(rec.transcript)
    if not p.is_absolute():  # relative to the tournament's folder
        p = out_dir / p
    if p.is_file():
        return p
    parts = p.parts
    if TRANSCRIPTS_DIR in parts:
        moved = out_dir.joinpath(*parts[len(parts) - parts[::-1].index(TRANSCRIPTS_DIR) - 1 :])
        if moved.is_file():
            return moved
    return None


def _replay_name(rec: MatchRecord) -> str:
    stem = Path(rec.transcript or f"{rec.seed}-{rec.seat}").stem
    return f"{_safe(rec.first)}--{_safe(rec.second)}/{stem}.html"


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def _fmt(x: float, plus: bool = True) -> str:
    if math.isnan(x):
        return "–"
    if math.isinf(x):
        return "+∞" if x > 0 else "−∞"
    n = round(x) + 0  # no "-0"
    return f"{n:+d}" if plus else f"{n:d}"


def _pct(x: float) -> str:
    return "–" if math.isnan(x) else f"{100 * x:.1f} %"


def _elo(s: SideStats) -> str:
    """The Elo as the terminal says it: ``+12``, or ``> +597`` / ``< −881`` where every
    pair went one way (the estimate is infinite; the bound is finite)."""
    if not s.estimate.samples:
        return "–"
    elo, bound = s.elo_bound()
    if bound is not None:
        return f"{'>' if bound == 'lower' else '<'} {_fmt(elo)}"
    return _fmt(elo)


def _interval(s: SideStats) -> str:
    """``[−12, +40]``; ``n/a`` below 3 pairs or where an end is unbounded (as in the
    terminal's ``± n/a``)."""
    low, high = s.estimate.interval
    if not s.interval_known or any(math.isnan(v) or math.isinf(v) for v in (low, high)):
        return "n/a" if s.estimate.samples else "–"
    return f"[{_fmt(low)}, {_fmt(high)}]"


def _ticks(span: float) -> list[int]:
    """Round tick values on [−span, span]: multiples of 50, 100 or 200, and 0."""
    step = 50 if span <= 200 else 100 if span <= 400 else 200
    first = -int(span // step) * step
    return list(range(first, int(span) + 1, step))


def ratings_chart(ranked: list[tuple[str, SideStats]]) -> str:
    """Each engine's Elo (a dot) and 95 % interval (a bar) on one axis; an interval
    that runs off the axis (or to ±∞) ends in an arrow, and an infinite Elo is drawn at
    its finite bound (``> +597``). Names sit left of the axis and values right of it,
    in their own columns: no dot or bar reaches them."""
    w, row, left, right = 740, 26, 150, 72
    h = row * len(ranked) + 40
    finite = [
        abs(v)
        for _, s in ranked
        if s.estimate.samples
        for v in (s.elo_bound()[0], *s.estimate.interval)
        if not math.isnan(v) and not math.isinf(v)
    ]
    span = min(ELO_SPAN, max([100.0, *finite]) * 1.1)
    span = math.ceil(span / 50) * 50

    def x(v: float) -> float:
        v = max(-span, min(span, v))
        return left + (v + span) / (2 * span) * (w - left - right)

    out = [
        f'<svg class="ratings" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        'aria-label="Elo with 95 % intervals">'
    ]
    for tick in _ticks(span):
        out.append(
            f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="10" y2="{h - 22}" '
            f'stroke="{"#888" if tick == 0 else "#ddd"}"/><text class="tick" x="{x(tick):.1f}" '
            f'y="{h - 8}" text-anchor="middle" font-size="11" fill="#555">{_fmt(tick)}</text>'
        )
    for i, (name, s) in enumerate(ranked):
        out.append(_rating_row(name, s, 22 + i * row, x, span, w - right + 10))
    out.append("</svg>")
    return "".join(out)


def _rating_row(
    name: str, s: SideStats, y: int, x: Callable[[float], float], span: float, value_x: int
) -> str:
    est = s.estimate
    out = [
        f'<text class="name" x="{x(-span) - 10:.1f}" y="{y + 4}" text-anchor="end" '
        f'font-size="13">{escape(name)}</text>'
    ]
    if not est.samples or math.isnan(est.elo):
        out.append(
            f'<text class="none" x="{x(0) + 6:.1f}" y="{y + 4}" font-size="11" fill="#888">'
            "no complete pairs yet</text>"
        )
        return "".join(out)
    elo, bound = s.elo_bound()
    low, high = est.interval
    if bound is not None:  # all one way: from the bound out to the end of the axis
        low, high = (elo, math.inf) if bound == "lower" else (-math.inf, elo)
    if not math.isnan(low):
        out.append(
            f'<line class="interval" data-engine="{escape(name)}" x1="{x(low):.1f}" '
            f'x2="{x(high):.1f}" y1="{y}" y2="{y}" stroke="#2b6cb0" stroke-width="4" '
            'stroke-linecap="round"/>'
        )
        for v, d in ((low, -1), (high, 1)):
            if math.isinf(v) or abs(v) > span:
                tip = x(v)
                out.append(f'<path d="M{tip:.1f} {y} l{-8 * d} -6 v12 z" fill="#2b6cb0"/>')
    out.append(
        f'<circle class="elo" data-engine="{escape(name)}" cx="{x(elo):.1f}" cy="{y}" '
        f'r="5" fill="#c05621"/><text class="value" x="{value_x}" y="{y + 4}" '
        f'font-size="11" fill="#555">{escape(_elo(s))}</text>'
    )
    return "".join(out)


def _first_rated(records: list[MatchRecord]) -> dict[tuple[str, str, int, int], MatchRecord]:
    out: dict[tuple[str, str, int, int], MatchRecord] = {}
    for r in records:
        key = (r.first, r.second, r.seed, r.seat)
        if r.rated and key not in out:
            out[key] = r
    return out


def cross_table(names: list[str], records: list[MatchRecord]) -> str:
    """Row engine's points against the column engine, of their rated matches; each cell
    links to that pairing's matches."""
    pts: dict[tuple[str, str], float] = defaultdict(float)
    games: dict[tuple[str, str], int] = defaultdict(int)
    for r in _first_rated(records).values():
        for me, other in ((r.engine_a, r.engine_b), (r.engine_b, r.engine_a)):
            pts[(me, other)] += r.points_for(me)
            games[(me, other)] += 1
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    rows = []
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append('<td class="self">—</td>')
                continue
            n = games[(a, b)]
            p = pts[(a, b)]
            shown = f"{p:g} / {n}" if n else "–"
            anchor = _pair_anchor(a, b, names)
            cells.append(
                f'<td data-row="{escape(a)}" data-col="{escape(b)}">'
                f'<a href="#{anchor}">{shown}</a></td>'
            )
        rows.append(f"<tr><th>{escape(a)}</th>{''.join(cells)}</tr>")
    return (
        f'<table class="cross"><thead><tr><th></th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _pair_anchor(a: str, b: str, names: list[str]) -> str:
    i, j = sorted((names.index(a), names.index(b)))
    return f"pair-{i}-{j}"


def standings_table(standings: Standings) -> str:
    rows = []
    for rank, (name, s) in enumerate(standings.ranked(), 1):
        est = s.estimate
        f = s.faults
        faults = "/".join(
            str(f[k]) for k in ("time_losses", "crashes", "illegal_forfeits", "protocol_errors")
        )
        rows.append(
            f'<tr data-engine="{escape(name)}"><td>{rank}</td><td>{escape(name)}</td>'
            f"<td>{s.matches}</td><td>{s.wins}-{s.losses}-{s.draws}</td>"
            f"<td>{_pct(s.trinomial.score)}</td><td>{est.samples}</td>"
            f'<td class="elo">{escape(_elo(s))}</td><td class="interval">{_interval(s)}</td>'
            f"<td>{_pct(s.pentanomial.los) if est.samples else '–'}</td>"
            f"<td>{faults}</td><td>{s.aborted}</td></tr>"
        )
    return (
        '<table class="standings"><thead><tr><th>#</th><th>Engine</th><th>Matches</th>'
        "<th>W-L-D</th><th>Score</th><th>Pairs</th><th>Elo</th><th>95 % interval</th>"
        '<th>LOS</th><th title="losses by time / crash / illegal / protocol">T/C/I/P</th>'
        f"<th>Aborted</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def pairings_table(standings: Standings, sprt: Sprt | None, names: list[str]) -> str:
    """Each pairing from its first engine's side: W-L-D, the pentanomial of its pairs,
    Elo with the 95 % interval, LOS, and the SPRT's log-likelihood ratio if one runs."""
    rows = []
    for p in standings.pairs.values():
        s = p.side
        est = s.estimate
        elo = _elo(s) if s.elo_bound()[1] else f"{_elo(s)} {_interval(s)}"
        elo = elo if est.samples else "–"
        test = f"<td>{escape(sprt_text(sprt, p))}</td>" if sprt is not None else ""
        rows.append(
            f'<tr><td><a href="#{escape(_pair_anchor(p.pairing.first, p.pairing.second, names))}">'
            f"{escape(str(p.pairing))}</a></td><td>{s.wins}-{s.losses}-{s.draws}</td>"
            f"<td>{_pct(s.trinomial.score)}</td>"
            f"<td>{' '.join(str(c) for c in s.pentanomial.counts)}</td><td>{elo}</td>"
            f"<td>{_pct(s.pentanomial.los) if est.samples else '–'}</td>"
            f"<td>{s.adjudications}</td><td>{s.aborted}</td>{test}</tr>"
        )
    head = "<th>SPRT LLR (bounds) verdict</th>" if sprt is not None else ""
    return (
        '<table class="pairings"><thead><tr><th>Pairing</th><th>W-L-D</th><th>Score</th>'
        "<th>Ptnml(0-2)</th><th>Elo [95 %]</th><th>LOS</th><th>Adj.</th><th>Aborted</th>"
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def match_title(rec: MatchRecord) -> str:
    return f"{rec.engine_a} vs {rec.engine_b} · seed {rec.seed} · attempt {rec.attempt}"


def match_page(transcript: Path, rec: MatchRecord, back: str, assets: str | None = None) -> str:
    """The replay page of one match, made from its transcript, with a link ``back`` to
    the report; ``assets``: where the shared script and style sheet are (None: inside
    the page)."""
    page = replay_page(build_timeline(transcript.read_bytes()), match_title(rec), assets=assets)
    return page.replace(
        "<header>", f'<header><a class="back" href="{escape(back)}">← tournament</a>', 1
    )


@dataclass
class Tournament:
    """A tournament folder as read for its report: its plan, records and standings,
    and where each record's transcript is (None: not there)."""

    out_dir: Path
    plan: Plan
    records: list[MatchRecord]
    standings: Standings
    transcripts: list[Path | None]

    @classmethod
    def read(cls, out_dir: Path) -> Tournament:
        """Raises ResultsError (no readable results file)."""
        header, records, _ = read_results(out_dir / RESULTS_FILE)
        plan = Plan(header, out_dir)
        standings = compute(plan.names, plan.pairings, records)
        paths = [_transcript_path(out_dir, rec) for rec in records]
        return cls(out_dir, plan, records, standings, paths)

    @property
    def missing(self) -> list[str]:
        return [
            r.transcript
            for r, p in zip(self.records, self.transcripts, strict=True)
            if p is None and r.transcript is not None
        ]

    def page(self, links: dict[int, str], note: str = "", word: str = "replay") -> str:
        """The report, each match ``i`` linking to ``links[i]`` (a link called ``word``:
        its ``class`` too)."""
        t = self
        about = header_text(t.plan)
        names = t.plan.names
        return _page(
            about, t.standings, names, t.records, links, t.missing, t.plan.sprt, note, word
        )


SERVE_HINT = (
    "Each match's replay is made from its transcript when you open it: serve the "
    "report with <code>bidref tournament-report {folder} --serve</code> (or write one "
    "match's page with <code>bidref replay TRANSCRIPT --html OUT.html</code>). The "
    "links below open the transcripts."
)


def write_report(out_dir: Path, report: Path, *, replays: bool = False) -> ReportSummary:
    """Write ``report`` for the tournament in ``out_dir``. Each match links to its
    transcript (``bidref tournament-report DIR --serve`` makes the replays on demand),
    or with ``replays`` to a replay page written for it into ``REPORT-replays/``
    beside the report (large: every step of every match, drawn). Raises ResultsError
    (no readable results file) or OSError (cannot write)."""
    t = Tournament.read(out_dir)
    replay_dir = report.parent / f"{report.stem}-replays"
    links: dict[int, str] = {}
    written = 0
    for i, (rec, path) in enumerate(zip(t.records, t.transcripts, strict=True)):
        if path is None:
            continue
        if not replays:
            links[i] = Path(os.path.relpath(path.resolve(), report.parent.resolve())).as_posix()
            continue
        rel = _replay_name(rec)
        target = replay_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        back = "../" * (rel.count("/") + 1) + report.name
        target.write_text(match_page(path, rec, back), encoding="utf-8")
        links[i] = f"{replay_dir.name}/{rel}"
        written += 1
    report.parent.mkdir(parents=True, exist_ok=True)
    note = "" if replays else SERVE_HINT.format(folder=escape(str(out_dir)))
    report.write_text(t.page(links, note, "replay" if replays else "transcript"), encoding="utf-8")
    return ReportSummary(report, len(t.records), written, t.missing)


def header_text(plan: Plan) -> str:
    h = plan.header
    st = plan.settings
    limit = f", at most {st.max_rounds} rounds" if st.max_rounds else ""
    return (
        f"{h.format}, {len(plan.names)} engines, {len(h.seeds)} deal seeds × 2 seats "
        f"({plan.deals_origin}); "
        f"bank {st.bank_ms / 1000:g} s, delay {st.delay_ms / 1000:g} s{limit}, illegal "
        f"actions: {st.illegal}; created {h.created}"
    )


def _matches(names: list[str], records: list[MatchRecord], links: dict[int, str], word: str) -> str:
    by_pair: dict[str, list[tuple[int, MatchRecord]]] = defaultdict(list)
    for i, r in enumerate(records):
        by_pair[_pair_anchor(r.first, r.second, names)].append((i, r))
    out = []
    for anchor, items in sorted(by_pair.items()):
        first, second = items[0][1].first, items[0][1].second
        rows = []
        for i, r in sorted(items, key=lambda x: (x[1].seed, x[1].seat, x[1].attempt)):
            link = links.get(i)
            replay = f'<a class="{word}" href="{escape(link)}">{word}</a>' if link else "–"
            rows.append(
                f"<tr><td>{r.seed}</td><td>{r.seat}</td><td>{escape(r.engine_a)}</td>"
                f"<td>{escape(r.engine_b)}</td><td>{escape(r.winner or '–')}</td>"
                f"<td>{escape(r.reason)}</td><td>{r.balances[0]}–{r.balances[1]}</td>"
                f"<td>{r.rounds}</td><td>{'yes' if r.rated else 'no'}</td>"
                f"<td>{r.attempt}</td><td>{replay}</td></tr>"
            )
        out.append(
            f'<h3 id="{anchor}">{escape(first)} vs {escape(second)}</h3>'
            '<table class="matches"><thead><tr><th>Seed</th><th>Seat</th><th>A</th><th>B</th>'
            "<th>Winner</th><th>Reason</th><th>Balances</th><th>Rounds</th><th>Rated</th>"
            f"<th>Attempt</th><th>Replay</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )
    return "".join(out)


_CSS = """
body{margin:0;font:14px/1.45 system-ui,"DejaVu Sans",sans-serif;background:#eceae4;color:#1d1d1d}
header{background:#20272e;color:#f3f3f3;padding:10px 18px}
header h1{margin:0;font-size:20px} header p{margin:2px 0 0;color:#b9c2c9}
main{padding:12px 18px} section{background:#fff;border:1px solid #d4d0c6;border-radius:8px;
padding:8px 14px;margin-bottom:12px;overflow-x:auto}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:3px 9px;border-bottom:1px solid #e6e3da;text-align:left}
table.cross td{text-align:center} table.cross td.self{color:#aaa}
.warning{color:#8a1c14}
"""


def workers_section(records: list[MatchRecord]) -> str:
    """The cluster's workers (none for a local tournament): what each played, its
    rates, and the flag of one that stands out (docs/tournament.md, "Trust model")."""
    workers = workers_of(records)
    if workers is None:
        return ""
    cols = ("matches", "rejected", "crashes", "time_losses", "protocol_losses", "aborts")
    head = "".join(f"<th>{c.replace('_', ' ')}</th>" for c in cols)
    rows = []
    for name, w in workers.items():
        ms = w.get("mean_decision_ms")
        per = ", ".join(f"{e} {v:g}" for e, v in ms.items()) if isinstance(ms, dict) else ""
        flag = w.get("flagged")
        cells = "".join(f"<td>{escape(str(w.get(c, 0)))}</td>" for c in cols)
        rows.append(
            f"<tr><td>{escape(name)}</td>{cells}<td>{escape(per)}</td>"
            + (f'<td class="warning">{escape(str(flag))}</td>' if flag else "<td></td>")
            + "</tr>"
        )
    return (
        '<section><h2>Workers</h2><table class="workers"><tr><th>worker</th>'
        f"{head}<th>ms per decision</th><th>flagged</th></tr>{''.join(rows)}</table></section>"
    )


def _page(
    about: str,
    standings: Standings,
    names: list[str],
    records: list[MatchRecord],
    links: dict[int, str],
    missing: list[str],
    sprt: Sprt | None,
    note_html: str = "",
    word: str = "replay",
) -> str:
    rated = len(_first_rated(records))
    sprt_note = ""
    if sprt is not None:
        sprt_note = (
            f"<p>SPRT [{sprt.elo0:g}, {sprt.elo1:g}] α={sprt.alpha:g} β={sprt.beta:g} on the "
            "pairs of the first engine.</p>"
        )
    note = (
        f'<p class="warning">{len(missing)} transcripts could not be found, e.g. '
        f"{escape(missing[0])}: their matches have no replay.</p>"
        if missing
        else ""
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bidref tournament: {escape(" vs ".join(names))}</title><style>{_CSS}</style></head><body>
<header><h1>Tournament: {escape(", ".join(names))}</h1><p>{escape(about)}</p>
<p>{rated} rated matches of {len(records)} recorded</p></header>
<main>{note}{f'<p class="hint">{note_html}</p>' if note_html else ""}
<section><h2>Standings</h2>{standings_table(standings)}</section>
<section><h2>Ratings (Elo, 95 % interval from pairs)</h2>
{ratings_chart(standings.ranked())}</section>
<section><h2>Pairings (from the first engine's side)</h2>
{pairings_table(standings, sprt, names)}{sprt_note}</section>
<section><h2>Cross-table (points of the row against the column)</h2>
{cross_table(names, records)}</section>
{workers_section(records)}<section><h2>Matches</h2>{_matches(names, records, links, word)}</section>
</main></body></html>
"""
