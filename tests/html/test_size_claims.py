"""The sizes the docs promise are measured (issue 35, item 9): a replay page is
at most the documented multiple of its gzipped transcript. The figure is read
from docs/replay.md, so the docs and this test cannot drift apart."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from bidref.render.export import write_replay_html
from bidref.transcript.lines import FORMAT
from tests.transcript.scripted_seats import referee_transcript

DOCS = Path(__file__).resolve().parents[2] / "docs" / "replay.md"


def _promised() -> int:
    text = " ".join(DOCS.read_text().split())
    m = re.search(r"at most (\d+) times its gzipped transcript", text)
    assert m, "docs/replay.md no longer says how large a replay page is"
    return int(m.group(1))


@pytest.mark.parametrize("seed", [1, 3])
def test_a_replay_page_is_at_most_the_documented_multiple_of_its_transcript(
    seed: int, tmp_path: Path
) -> None:
    # whole matches (no round limit) in the referee's own format: 13 and 2 rounds
    data = referee_transcript(tmp_path / "t.jsonl", seed=seed, max_rounds=None, format=FORMAT)
    page = tmp_path / "replay.html"
    write_replay_html(page, data, "t")
    ratio = page.stat().st_size / len(gzip.compress(data))
    assert ratio <= _promised(), f"{ratio:.0f}x its gzipped transcript; docs say <= {_promised()}"
