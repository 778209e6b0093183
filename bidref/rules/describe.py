"""Plain-text descriptions of a layout, saying what the original rules'
pictures say: the tiles and how they connect, the spinner, every attachment
point with its value, the scoring ends with their values, and the count.
"""

from __future__ import annotations

from .layout import Layout, Side, points_earned


def describe_layout(layout: Layout) -> str:
    """A multi-line description of ``layout``.

    >>> from bidref.rules.tiles import tile
    >>> lay = Layout(); _ = lay.open_tile(tile(2, 2))
    >>> print(describe_layout(lay))
    Layout: 1 tile, spinner [2|2]
      [2|2] opens (spinner)
    Attachment points: [2|2] line A (2), [2|2] line B (2)
    Scoring ends: [2|2] 4
    Count: 4 (earns nothing)
    """
    if not layout.placed:
        return "Layout: empty"
    n = len(layout.placed)
    spinner = layout.spinner
    head = f"Layout: {n} tile{'s' if n != 1 else ''}"
    head += f", spinner [{spinner.low}|{spinner.high}]" if spinner else ", no spinner yet"
    lines = [head]
    first = layout.placed[0]
    mark = " (spinner)" if first is spinner else ""
    lines.append(f"  [{first.low}|{first.high}] opens{mark}")
    for at, joined in layout.connections:
        mark = " (spinner)" if joined.tile is spinner else ""
        lines.append(f"  {joined.words} joined to {at.words}{mark}")
    lines.append(
        "Attachment points: " + ", ".join(f"{p.words} ({p.value})" for p in layout.open_points)
    )
    scoring = layout.scoring()
    ends = " + ".join(f"[{t.low}|{t.high}] {v}" for t, v in scoring) or "none"
    unopened = [p for p in layout.open_points if p.side >= Side.BRANCH_A]
    if unopened:
        ends += "; unopened " + " and ".join(p.side.words for p in unopened) + " count 0"
    lines.append("Scoring ends: " + ends)
    count = layout.count()
    earned = points_earned(count)
    lines.append(f"Count: {count} ({f'earns {earned}' if earned else 'earns nothing'})")
    return "\n".join(lines)
