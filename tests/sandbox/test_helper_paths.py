"""Field findings of issue 35 in the jail: the bidref a Python engine imports is
bound even when the referee runs on another copy of the package (the compiled
build), and the jail's helpers are run by their real paths."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .conftest import REPO, root_with_jail

needs_root = pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))
_BIDREF = "import sys; from bidref.launch import main; sys.argv[0] = 'bidref'; main()"
SDK = [
    str(REPO / "sample_engines" / n / "engine.py") for n in ("python_sdk_minimal", "python_greedy")
]


def _tournament(out: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], Path]:
    settings = ["--deals", "1", "--bank", "5", "--delay", "0.2", "--json", "--sandbox", "auto"]
    r = subprocess.run(
        [sys.executable, "-c", _BIDREF, "tournament", *SDK, *settings, "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **env},
        check=False,
        timeout=300,
    )
    return r, out


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_a_tournament_of_sdk_engines_runs_when_the_referee_runs_another_bidref() -> None:
    # as after `make compiled`: the referee imports a copy of the package (here a
    # plain copy, first on its PYTHONPATH), the engines' interpreter the checkout's
    with tempfile.TemporaryDirectory(prefix="bidref-other-") as top:
        other = Path(top)
        other.chmod(0o755)
        shutil.copytree(
            REPO / "bidref", other / "bidref", ignore=shutil.ignore_patterns("__pycache__")
        )
        r, out = _tournament(other / "out", {"PYTHONPATH": str(other)})
        assert r.returncode == 0, r.stderr
        summary = json.loads(r.stdout)
        assert summary["done"] == summary["total"] == 2, summary
        results = (out / "results.jsonl").read_text()
        assert "ModuleNotFoundError" not in results and '"startup"' not in results
        # the results header records the jail the run gave (what it lacked included)
        header = json.loads(results.splitlines()[0])
        assert header["jail"][0].startswith("sandbox: namespaces"), header["jail"]


@needs_root
def test_the_jails_helpers_run_by_their_real_paths() -> None:
    # setpriv and env reached through a folder of links on PATH (outside the system
    # trees, so not inside the jail): the jail runs the real files
    with tempfile.TemporaryDirectory(prefix="bidref-links-") as top:
        links = Path(top) / "bin"
        links.mkdir(parents=True)
        for tool in ("setpriv", "env", "bwrap"):
            (links / tool).symlink_to(shutil.which(tool) or f"/usr/bin/{tool}")
        engine = str(REPO / "sample_engines" / "python_sdk_minimal" / "engine.py")
        args = ["match", engine, engine, "--max-rounds", "1", "--json", "--sandbox", "strict"]
        r = subprocess.run(
            [sys.executable, "-c", _BIDREF, *args],
            capture_output=True,
            text=True,
            cwd=REPO,
            env={**os.environ, "PATH": f"{links}:{os.environ['PATH']}"},
            check=False,
            timeout=120,
        )
        outcome = json.loads(r.stdout)
        assert outcome["reason"] == "round_limit", outcome
