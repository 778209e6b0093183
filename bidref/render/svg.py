"""Layout pictures as SVG files and as one HTML page that steps through them.

The SVG is rich's own export of the coloured picture, so it looks exactly like
the terminal. Nothing here touches the disk: functions return strings and the
CLI writes them.
"""

from __future__ import annotations

import html
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console, RenderableType

from .layout import DEFAULT_WIDTH


@dataclass(frozen=True, slots=True)
class Frame:
    """One picture to export: a title (e.g. ``round 2, step 5: play 1-3 1-1:line_b``)
    and what to draw."""

    title: str
    body: RenderableType


def to_svg(frame: Frame, width: int = DEFAULT_WIDTH) -> str:
    """One frame as a standalone SVG document."""
    console = Console(
        record=True,
        width=width,
        file=io.StringIO(),
        color_system="truecolor",
        force_terminal=True,
        legacy_windows=False,
    )
    console.print(frame.body)
    return console.export_svg(title=frame.title)


def frame_filename(index: int, frame: Frame) -> str:
    """``0007.svg``: sortable file names in the order of the match."""
    return f"{index:04d}.svg"


def to_html(frames: Sequence[Frame], title: str, width: int = DEFAULT_WIDTH) -> str:
    """One self-contained HTML page with every frame and buttons/keys to step through."""
    svgs = [to_svg(f, width) for f in frames]
    # JSON inside <script>: "<" escaped, so that no title can end the script.
    titles_js = json.dumps([f.title for f in frames]).replace("<", "\\u003c")
    slides = "\n".join(
        f'<div class="frame" id="f{i}" style="display:{"block" if i == 0 else "none"}">{svg}</div>'
        for i, svg in enumerate(svgs)
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;background:#111;color:#eee;margin:1em}}
button{{font-size:1em;margin-right:.5em}} .frame svg{{max-width:100%;height:auto}}</style>
</head><body>
<h1>{html.escape(title)}</h1>
<p><button onclick="go(0)">⏮ first</button><button onclick="go(cur-1)">◀ back</button>
<button onclick="go(cur+1)">next ▶</button><button onclick="go(n-1)">last ⏭</button>
<span id="pos"></span> — <span id="title"></span> (keys: ← →)</p>
{slides}
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
