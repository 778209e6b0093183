"""Make the pictures in docs/: ``python -m tests.html.docs_images`` (from the checkout).

``docs/img/replay.png`` is the HTML replay of a seeded two-round match (the referee
playing two scripted seats on a fake clock, as in the tests) at a line of round 2,
taken by the same headless Chromium the browser tests use. ``docs/img/layout.svg``
is the vector layout that ``bidref replay --svg`` writes, for the same step.
``docs/img/live.png`` is the live page of a real tournament (``bidref tournament
--live``: a slowed engine against the greedy one, with an SPRT) taken while two
matches run, after some results came.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from bidref.render.export import write_replay_html
from bidref.render.svg import timeline_frames, to_svg
from bidref.render.timeline import build_timeline
from tests.html.conftest import ARGS, CHROMIUM
from tests.transcript.scripted_seats import referee_transcript

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs" / "img"
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
        live_image(Path(tmp))


def live_image(tmp: Path) -> None:
    """``docs/img/live.png``: the live page while two matches run."""
    from playwright.sync_api import sync_playwright

    slow = REPO / "tests" / "live" / "slow_engine.py"
    greedy = REPO / "sample_engines" / "python_greedy" / "engine.py"
    options = "--deals 6 --seed 12 --bank 30 --delay 1 --max-rounds 8 -j 2 --sandbox off"
    proc = subprocess.Popen(
        [sys.executable, "-c", "from bidref.cli import main; main()", "tournament",
         f"slow={slow}", str(greedy), *options.split(), "--sprt", "-20", "20", "0.05", "0.05",
         "--out", str(tmp / "live"), "--live", "--port", "0"],
        cwd=REPO, env={**os.environ, "BIDREF_SLOW_MS": "60"},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    try:
        url = None
        while url is None:
            line = proc.stderr.readline()
            if not line:
                raise RuntimeError("the tournament ended without a live address")
            m = re.search(r"(http://127\.0\.0\.1:\d+/live)", line)
            url = m.group(1) if m else None
        threading.Thread(target=proc.stderr.read, daemon=True).start()
        with sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(
                str(tmp / "profile-live"),
                executable_path=CHROMIUM,
                args=ARGS,
                headless=True,
                viewport={"width": 1280, "height": 1300},
            )
            page = ctx.new_page()
            page.goto(url)
            ready = (
                "(window.bidrefLive.updates.some(u => u.rated >= 2)) && "
                "document.querySelectorAll('.board svg.layout').length >= 2"
            )
            page.wait_for_function(ready, timeout=120_000)
            page.wait_for_timeout(300)  # (a clock tick drawn)
            page.screenshot(path=str(DOCS / "live.png"))
            ctx.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


if __name__ == "__main__":
    main()
