"""``bidref tournament --live [--port N]``: what it refuses, before anything is played."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from .conftest import BIDREF, GREEDY, RANDOM, REPO


def bidref(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*BIDREF, *args], capture_output=True, text=True, timeout=120, cwd=REPO, check=False
    )


def test_port_without_live_is_refused(tmp_path: Path) -> None:
    r = bidref("tournament", GREEDY, RANDOM, "--port", "8123", "--out", str(tmp_path / "t"))
    assert r.returncode == 2
    assert "--port 8123" in r.stderr and "add --live" in r.stderr
    assert not (tmp_path / "t").exists()


def test_a_port_in_use_is_refused_before_any_match(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = bidref(
            "tournament", GREEDY, RANDOM, "--deals", "1", "--sandbox", "off",
            "--live", "--port", str(port), "--out", str(tmp_path / "t"),
        )  # fmt: skip
    assert r.returncode == 2, r.stderr
    assert f"--port {port}: cannot listen on 127.0.0.1" in r.stderr
    assert not (tmp_path / "t" / "results.jsonl").exists()
