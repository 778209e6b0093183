"""The benchmark engines (benchmarks/engines) play through the loop they share,
first_legal_loop.py, which each imports from its own folder: a real match, in
the strict jail (only the engine's folder, no bidref) and with no jail."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sandbox.conftest import root_with_jail

REPO = Path(__file__).resolve().parents[1]
ENGINES = REPO / "benchmarks" / "engines"
BIDREF = "import sys; from bidref.launch import main; sys.argv[0] = 'bidref'; main()"


@pytest.mark.parametrize("sandbox", ["strict", "off"])
def test_the_cpu_victim_and_thief_play_a_match(sandbox: str, tmp_path: Path) -> None:
    if sandbox == "strict" and (why := root_with_jail()) is not None:
        pytest.skip(why)
    victim, thief = str(ENGINES / "cpu_victim.py"), str(ENGINES / "cpu_thief.py")
    args = ["match", victim, thief, "--seed", "1", "--max-rounds", "1", "--json"]
    args += ["--sandbox", sandbox, "--stderr-dir", str(tmp_path)]
    run = subprocess.run(
        [sys.executable, "-c", BIDREF, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert (result["reason"], result["rated"]) == ("round_limit", True)
    assert result["engines"] == ["cpu_victim", "cpu_thief"]
    assert [e["how"] for e in result["exits"]] == ["quit", "quit"]  # both left at quit
    # the victim's hook ran on each of its requests, the thief's on its hello
    work = (tmp_path / "A-cpu_victim.stderr.log").read_text().splitlines()
    assert len(work) >= 3 and all(w.startswith("WORK ") for w in work)
    assert (tmp_path / "B-cpu_thief.stderr.log").read_text().startswith("THIEF ON ")
