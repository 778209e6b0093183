"""The HTML replay of a match: one self-contained page that steps through every line.

Everything the page needs is inside it: the steps of the match (from
:mod:`.timeline`) as JSON, the layout pictures and the tile symbols (from
:mod:`.dominoes`), the balance chart, the style sheet and the script
(``assets/``). It loads nothing: no font, script, style or image from
anywhere, so it works from disk with no network. Keys: ← → step, Home/End,
PageUp/PageDown jump a round; ``#line=N`` in the address opens line N.
"""

from __future__ import annotations

import json
from html import escape
from importlib.resources import files

from .dominoes import count_text, layout_markup, tile_defs
from .timeline.model import Timeline
from .timeline.text import SEATS, result_text

CHART_W, CHART_H, CHART_PAD = 640, 146, 28
LABEL_CHAR_W = 6.5  # a generous width per character of the 10-11 px labels, to keep them apart


def asset(name: str) -> str:
    """The text of ``bidref/render/assets/NAME`` (shipped in the package)."""
    return files("bidref.render").joinpath("assets", name).read_text(encoding="utf-8")


def _script_json(value: object) -> str:
    """JSON safe inside ``<script>``: no ``<`` can end the element or open a comment."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _round_labels(rounds: list[tuple[int, float]], right: float) -> list[tuple[int, float, str]]:
    """(round, x, text-anchor) of the round labels that fit: a label that would run into
    the one before it is left out (its line stays), and the last one ends at ``right``."""
    out: list[tuple[int, float, str]] = []
    end = -1e9
    for rnd, x in rounds:
        w = LABEL_CHAR_W * len(f"R{rnd}")
        start, anchor = x + 3, "start"
        if start + w > right:
            start, anchor = right - w, "end"
        if start < end + 4:
            continue
        out.append((rnd, start if anchor == "start" else right, anchor))
        end = start + w
    return out


def balance_chart(tl: Timeline) -> tuple[str, dict[str, float]]:
    """An SVG chart of both balances over the steps, with a cursor line the script moves,
    and the x range of the steps. The legend sits above the plot and the round labels
    below it, where no line can run over them; round labels that would overlap are
    thinned out."""
    n = max(len(tl.steps), 1)
    x0, x1 = CHART_PAD + 4, CHART_W - 8
    top, bottom = 24, CHART_H - 18

    def x(i: int) -> float:
        return x0 + (i / (n - 1) if n > 1 else 0) * (x1 - x0)

    def y(v: int) -> float:
        return bottom - v / 300 * (bottom - top)

    series = tl.balance_series()
    out = [
        f'<svg viewBox="0 0 {CHART_W} {CHART_H}" width="{CHART_W}" height="{CHART_H}" '
        'role="img" aria-label="balances over the match">',
        f'<rect class="plot" x="{x0}" y="{top}" width="{x1 - x0}" height="{bottom - top}" '
        'fill="#f7f6f2"/>',
    ]
    for v in (0, 150, 300):
        out.append(
            f'<line x1="{x0}" x2="{x1}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#c9c4b8" '
            f'stroke-dasharray="{"3 3" if v == 150 else "none"}"/>'
            f'<text x="{x0 - 4}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11" '
            f'fill="#5f6b73">{v}</text>'
        )
    starts = sorted(tl.rounds.items())
    for _, i in starts:
        out.append(
            f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{top}" y2="{bottom}" stroke="#b7b1a3"/>'
        )
    for rnd, lx, anchor in _round_labels([(r, x(i)) for r, i in starts], CHART_W - 2):
        out.append(
            f'<text class="round" x="{lx:.1f}" y="{CHART_H - 5}" font-size="10" '
            f'text-anchor="{anchor}" fill="#5f6b73">R{rnd}</text>'
        )
    legend_x = float(x0)
    for seat, colour in ((0, "#2b6cb0"), (1, "#c05621")):
        pts: list[str] = []
        prev: int | None = None
        for i, a in series:
            v = a if seat == 0 else 300 - a
            if prev is not None:
                pts.append(f"{x(i):.1f},{y(prev):.1f}")  # a step, not a slope
            pts.append(f"{x(i):.1f},{y(v):.1f}")
            prev = v
        if prev is not None:
            pts.append(f"{x(n - 1):.1f},{y(prev):.1f}")
        out.append(
            f'<polyline class="bal{seat}" points="{" ".join(pts)}" fill="none" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        label = f"{SEATS[seat]} {tl.names[seat]}"
        out.append(
            f'<line x1="{legend_x:.1f}" x2="{legend_x + 16:.1f}" y1="10" y2="10" '
            f'stroke="{colour}" stroke-width="2"/><text class="legend" x="{legend_x + 20:.1f}" '
            f'y="14" font-size="11" fill="{colour}">{escape(label)}</text>'
        )
        legend_x += 20 + LABEL_CHAR_W * min(len(label), 40) + 16
    out.append(
        f'<line id="chart-cursor" x1="{x0}" x2="{x0}" y1="{top - 4}" y2="{bottom + 4}" '
        'stroke="#20272e" stroke-width="1.5"/></svg>'
    )
    return "".join(out), {"x0": x0, "x1": x1}


def _page_data(tl: Timeline, span: dict[str, float]) -> dict[str, object]:
    """What the page's script reads (the ``match-data`` JSON): the steps, layouts,
    rounds and players of ``tl``; ``span``: the chart's x range."""
    return {
        "names": list(tl.names),
        "engines": [
            {k: e.get(k) for k in ("name", "author", "version") if e.get(k) is not None}
            for e in tl.engines
        ],
        "bank": tl.bank_ns,
        "delay": tl.delay_ns,
        # each seat's starting bank, for its clock bar (they differ in a handicap match)
        "banks": [c[0] for c in tl.seat_controls()],
        "steps": [s.to_dict() for s in tl.steps],
        "layouts": [
            {"svg": layout_markup(lay, last), "count": count_text(lay)} for lay, last in tl.layouts
        ],
        "rounds": {str(k): v for k, v in tl.rounds.items()},
        "reveals": {str(k): v for k, v in tl.reveals.items()},
        "result_text": None if tl.result is None else result_text(tl.result, tl.names),
        "chart": span,
    }


def _asset_tags(assets: str | None) -> tuple[str, str]:
    """The page's style and script elements: inside the page (``assets`` None) or
    loaded from the folder at the address ``assets``."""
    if assets is None:
        return f"<style>{asset('replay.css')}</style>", f"<script>{asset('replay.js')}</script>"
    return (
        f'<link rel="stylesheet" href="{escape(assets)}replay.css">',
        f'<script src="{escape(assets)}replay.js"></script>',
    )


def replay_page(
    tl: Timeline, title: str, warning: str | None = None, assets: str | None = None
) -> str:
    """The whole page for ``tl``; ``warning`` (e.g. what ``bidref replay`` found wrong
    in the transcript) is shown at the top. ``assets``: the address of a folder that
    serves ``replay.js`` and ``replay.css`` (one copy shared by many pages); None puts
    them inside the page."""
    chart, span = balance_chart(tl)
    data = _page_data(tl, span)
    warnings = [w for w in (warning, tl.problem) if w]
    limit = f" · at most {tl.max_rounds} rounds" if tl.max_rounds else ""
    a, b = (escape(x) for x in tl.names)
    clock = tl.clock_text()
    defs = (
        '<svg width="0" height="0" style="position:absolute" aria-hidden="true" '
        f'id="tile-defs">{tile_defs()}</svg>'
    )
    style, script = _asset_tags(assets)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
{style}
</head><body>
{defs}
<header><h1><span class="pa">A {a}</span> vs <span class="pb">B {b}</span></h1>
<span class="meta">{escape(title)} · {clock}{limit}</span>
</header>
{"".join(f'<div class="warning">{escape(w)}</div>' for w in warnings)}
<div id="controls">
<button type="button" id="first" title="first line (Home)">|◀</button>
<button type="button" id="prev" title="previous line (←)">◀</button>
<input type="range" id="slider" min="0" max="0" value="0" aria-label="step">
<button type="button" id="next" title="next line (→)">▶</button>
<button type="button" id="last" title="last line (End)">▶|</button>
<span id="pos"></span>
<span id="rounds"></span>
<label title="show hands face down until the round's reveal line, as a spectator saw the match">
<input type="checkbox" id="hide-hands"> hide hands until revealed</label>
</div>
<div id="step-text"></div>
<div id="note"></div>
<main>
<section class="player p0" id="player-0"></section>
<section id="centre">
<div class="strip"><b id="round-no"></b><span id="count"></span>
<span class="legend"><i class="s"></i> scoring end (counts n) <i class="o"></i> open, counts nothing
<i class="sp"></i> spinner <i class="l"></i> just placed</span></div>
<div id="table" title="click: full size / fit"></div>
<div class="strip"><span><span class="label">boneyard:</span> <b id="boneyard"></b></span>
<span><span class="label">last draw:</span> <span id="drawn"></span></span></div>
<div class="strip" id="auction"></div>
<div id="legal"></div>
<div id="end" hidden></div>
</section>
<section class="player p1" id="player-1"></section>
</main>
<div id="bottom">
<div class="panel"><h3>Balances</h3><div id="chart">{chart}</div>
<h3>Engine log lines</h3><div id="logs"></div></div>
<div class="panel"><h3>Transcript lines (click to jump)</h3><ul id="lines"></ul></div>
</div>
<script type="application/json" id="match-data">{_script_json(data)}</script>
{script}
</body></html>
"""
