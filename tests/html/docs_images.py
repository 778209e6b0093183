"""Make the pictures in docs/: ``python -m tests.html.docs_images`` (from the checkout).

``docs/img/replay.png`` is the HTML replay of a seeded two-round match (the referee
playing two scripted seats on a fake clock, as in the tests) at a line of round 2,
taken by the same headless Chromium the browser tests use. ``docs/img/layout.svg``
is the vector layout that ``bidref replay --svg`` writes, for the same step.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bidref.render.export import write_replay_html
from bidref.render.svg import timeline_frames, to_svg
from bidref.render.timeline import build_timeline
from tests.html.conftest import ARGS, CHROMIUM
from tests.transcript.scripted_seats import referee_transcript

DOCS = Path(__file__).resolve().parents[2] / "docs" / "img"
LINE = 259  # late in round 2: a double played, the spinner with a branch, the auction paid


def main() -> None:
    from playwright.sync_api import sync_playwright

    DOCS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp) / "match.jsonl"
        data = referee_transcript(t, chatty=True, illegal_rate=0.1)
        page_path = Path(tmp) / "replay.html"
        write_replay_html(page_path, data, "bidref replay match.jsonl")
        frames = [f for f in timeline_frames(build_timeline(data)) if "round 2" in f.title]
        (DOCS / "layout.svg").write_text(to_svg(frames[-1]), encoding="utf-8")
        with sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(
                str(Path(tmp) / "profile"),
                executable_path=CHROMIUM,
                args=ARGS,
                headless=True,
                viewport={"width": 1280, "height": 1040},
            )
            page = ctx.new_page()
            page.goto(page_path.as_uri() + f"#line={LINE}")
            page.screenshot(path=str(DOCS / "replay.png"))
            ctx.close()


if __name__ == "__main__":
    main()
