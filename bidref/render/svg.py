"""Layout pictures as vector SVG files, and one HTML page that steps through them.

The drawing is :mod:`.dominoes` (tiles with pips, the spinner, the scoring ends
and the count), the same one the HTML replay page shows. Every file stands
alone: no font, script or image is loaded from anywhere. Nothing here touches
the disk: functions return strings and the CLI writes them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from ..rules.layout import Layout
from ..rules.tiles import Tile
from .dominoes import count_text, layout_markup, layout_svg, tile_defs
from .timeline.model import Timeline


@dataclass(frozen=True, slots=True)
class Frame:
    """One picture to export: a title (e.g. ``round 2 · line 5 · play 1-3 1-1:line_b``),
    the layout and the tile just placed."""

    title: str
    layout: Layout
    last: Tile | None = None


def to_svg(frame: Frame) -> str:
    """One frame as a standalone SVG document."""
    return layout_svg(frame.layout, frame.last, frame.title)


def frame_filename(index: int, frame: Frame) -> str:
    """``0007.svg``: sortable file names in the order of the match."""
    return f"{index:04d}.svg"


def timeline_frames(tl: Timeline) -> list[Frame]:
    """A frame after every placement of the match."""
    out = []
    for s in tl.steps:
        if s.type == "placed":
            lay, last = tl.layouts[s.table.layout]
            out.append(Frame(f"round {s.table.round} · line {s.line} · {s.text}", lay, last))
    return out


def to_html(frames: Sequence[Frame], title: str) -> str:
    """One self-contained HTML page with every frame and buttons/keys (← →) to step."""
    slides = []
    for i, f in enumerate(frames):
        markup = layout_markup(f.layout, f.last)
        if i == 0:  # the first picture carries the tile symbols that all of them use
            markup = markup.replace(">", ">" + tile_defs(), 1)
        slides.append(
            f'<div class="frame" id="f{i}" style="display:{"block" if i == 0 else "none"}">'
            f"<p>{escape(count_text(f.layout))}</p>{markup}</div>"
        )
    # JSON inside <script>: "<" escaped, so that no title can end the script.
    titles_js = json.dumps([f.title for f in frames]).replace("<", "\\u003c")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>body{{font-family:sans-serif;background:#17452c;color:#eee;margin:1em}}
button{{font-size:1em;margin-right:.5em}} .frame svg{{max-width:100%;height:auto}}</style>
</head><body>
<h1>{escape(title)}</h1>
<p><button onclick="go(0)">|◀ first</button><button onclick="go(cur-1)">◀ back</button>
<button onclick="go(cur+1)">next ▶</button><button onclick="go(n-1)">last ▶|</button>
<span id="pos"></span> — <span id="title"></span> (keys: ← →)</p>
{"".join(slides)}
<script>
const titles = {titles_js};
const n = titles.length; let cur = 0;
function go(i) {{
  if (n === 0) return;
  i = Math.max(0, Math.min(n - 1, i));
  document.getElementById("f" + cur).style.display = "none";
  document.getElementById("f" + i).style.display = "block";
  cur = i;
  document.getElementById("pos").textContent = (i + 1) + " / " + n;
  document.getElementById("title").textContent = titles[i];
}}
document.addEventListener("keydown", e => {{
  if (e.key === "ArrowRight") go(cur + 1);
  if (e.key === "ArrowLeft") go(cur - 1);
}});
go(0);
</script></body></html>
"""
