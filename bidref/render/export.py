"""Writing the pictures and pages to disk, for the CLI's ``--svg`` and ``--html`` options.

Each function raises :class:`OSError` when it cannot write; the CLI reports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .replay_page import replay_page
from .svg import Frame, frame_filename, timeline_frames, to_html, to_svg
from .timeline.build import build_timeline


def write_frames(folder: Path, frames: Sequence[Frame], title: str) -> int:
    """One SVG per frame (``0000.svg``, …) and ``index.html`` stepping through them."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, f in enumerate(frames):
        (folder / frame_filename(i, f)).write_text(to_svg(f), encoding="utf-8")
    (folder / "index.html").write_text(to_html(frames, title), encoding="utf-8")
    return len(frames)


def write_transcript_svgs(folder: Path, data: bytes, title: str) -> int:
    """The layout after every placement of the transcript in ``data``, as SVG files."""
    return write_frames(folder, timeline_frames(build_timeline(data)), title)


def write_replay_html(path: Path, data: bytes, title: str, warning: str | None = None) -> int:
    """The HTML replay of the transcript in ``data``; returns the number of steps."""
    tl = build_timeline(data)
    if path.parent != Path():
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(replay_page(tl, title, warning), encoding="utf-8")
    return len(tl.steps)
