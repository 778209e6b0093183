"""A real finished tournament, to be replayed into a folder as if it were running."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIDREF = [sys.executable, "-c", "from bidref.cli import main; main()"]
GREEDY = str(REPO / "sample_engines" / "python_greedy" / "engine.py")
RANDOM = str(REPO / "sample_engines" / "python_random" / "engine.py")


@dataclass
class Played:
    out: Path
    header: str  # the results file's first line
    records: list[str]  # its other lines
    transcripts: dict[str, bytes]  # by path relative to out

    def record(self, i: int) -> dict[str, object]:
        rec: dict[str, object] = json.loads(self.records[i])
        return rec


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    out = tmp_path_factory.mktemp("played")
    stderr = tmp_path_factory.mktemp("stderr")
    options = "--deals 1 --seed 5 --bank 30 --delay 1 --max-rounds 3 -j 2 --sandbox off"
    r = subprocess.run(
        [*BIDREF, "tournament", GREEDY, RANDOM, *shlex.split(options), "--out", str(out),
         "--stderr-dir", str(stderr)],
        capture_output=True, text=True, timeout=300, cwd=REPO, check=False,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = (out / "results.jsonl").read_text().splitlines()
    transcripts = {
        p.relative_to(out).as_posix(): p.read_bytes() for p in out.glob("transcripts/*/*")
    }
    return Played(out, lines[0], lines[1:], transcripts)
