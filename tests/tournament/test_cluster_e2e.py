"""A tournament on a real dask cluster with nothing shared (issue 31).

One ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1 (no
nanny: the worker is the process that plays), each worker in a folder of its own
with its own engine cache and, where bubblewrap can make it a mount namespace,
with the coordinator's folder (its engines, its ``--out``) hidden under an empty
tmpfs: the engines must be shipped and the transcripts must come home.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bidref.tournament import MatchRecord, ResultsStore, run
from bidref.tournament.local import LocalBackend
from bidref.tournament.loopback import LoopbackCluster, children
from bidref.tournament.play import play_match
from bidref.tournament.runner import RESULTS_FILE, Plan
from tests.sample_build import build_c_engines

from .test_runner import alive

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
C_FIRST = REPO / "sample_engines" / "c_first" / "engine"
RANDOM = REPO / "sample_engines" / "python_random" / "engine.py"
BIDREF = [sys.executable, "-c", "from bidref.cli import main; main()"]
BWRAP = shutil.which("bwrap")


def _hiding(folder: Path) -> list[str]:
    """A command prefix that runs a command with ``folder`` hidden (empty), if possible."""
    if BWRAP is None:
        return []
    prefix = [BWRAP, "--dev-bind", "/", "/", "--tmpfs", str(folder), "--die-with-parent", "--"]
    probe = subprocess.run([*prefix, "/bin/sh", "-c", "true"], capture_output=True, timeout=30)
    return prefix if probe.returncode == 0 else []


@pytest.fixture
def dask(tmp_path: Path) -> Iterator[LoopbackCluster]:
    # The workers' folders are outside tmp_path, which is hidden from them.
    with LoopbackCluster(2, prefix=_hiding(tmp_path), start_timeout_s=30) as cluster:
        yield cluster


def _runs_from(pid: int, folder: Path) -> bool:
    try:
        return str(folder).encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _rated(records: list[MatchRecord]) -> dict[str, tuple[object, ...]]:
    return {r.key.id: (r.winner, r.reason, r.balances, r.rounds) for r in records if r.rated}


def _tournament(out: Path, engines: list[str], deals: int, *extra: str) -> list[str]:
    return [
        *BIDREF,
        "tournament",
        *engines,
        "--deals",
        str(deals),
        "--seed",
        "31",
        "--bank",
        "60",
        "--delay",
        "5",
        "--out",
        str(out),
        "--json",
        *extra,
    ]


def test_a_cluster_with_nothing_shared_ships_engines_survives_a_kill_and_refuses_a_changed_build(
    dask: LoopbackCluster, tmp_path: Path
) -> None:
    if not C_FIRST.exists():
        build_c_engines()
    # The coordinator's own engines and --out, in a folder the workers cannot see.
    coordinator = tmp_path / "coordinator"
    (coordinator / "engines").mkdir(parents=True)
    slow = coordinator / "engines" / "slow_random.py"
    slow.write_text(
        RANDOM.read_text().replace(
            'reply = {"type": "action"', 'import time; time.sleep(0.005); reply = {"type": "action"'
        )
    )
    engines = [f"c={C_FIRST}", f"rnd={slow}"]
    out = coordinator / "out"

    # 1. Two workers, --ship-engines; w1 is killed (kill -9) mid-match, w2 plays on.
    proc = subprocess.Popen(
        [*_tournament(out, engines, 3), "--cluster", dask.address, "--ship-engines"],
        cwd=coordinator,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        w1 = dask.worker_pid("w1")
        engines_of_w1: list[int] = []
        deadline = time.monotonic() + 30
        while not engines_of_w1 and proc.poll() is None and time.monotonic() < deadline:
            # its engines, run from its own cache folder: a match is on
            engines_of_w1 = [pid for pid in children(w1) if _runs_from(pid, dask.folders["w1"])]
            time.sleep(0.01)
        assert engines_of_w1, "w1 should be playing a match"
        os.kill(w1, signal.SIGKILL)
        dask.workers["w1"].wait(timeout=10)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for pid in engines_of_w1:  # its engines end when their pipes close
        for _ in range(200):
            if not alive(pid):
                break
            time.sleep(0.02)
        else:
            os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 0, stderr.decode()
    summary = json.loads(stdout)
    assert summary["done"] == summary["total"] == 6
    store = ResultsStore.open(out / RESULTS_FILE)
    assert all(e.files for e in store.header.engines)  # the builds, by sha256
    assert str(slow) in store.header.engines[1].files
    rated_keys = Counter(r.key.id for r in store.records if r.rated)
    assert set(rated_keys.values()) == {1} and len(rated_keys) == 6  # none lost, none doubled

    # The same tournament on this machine gives the same results.
    local = tmp_path / "local"
    plan = Plan(store.header, local)
    local_store = ResultsStore.create(local / RESULTS_FILE, plan.header)
    with LocalBackend(play_match, 2, mode="thread") as backend:
        run(plan, local_store, backend)
    assert _rated(store.records) == _rated(local_store.records)

    # 2. A worker whose engine file differs refuses: w2's cached copy is edited.
    laid_out = list((dask.folders["w2"] / "cache" / "engines").glob("*/slow_random.py"))
    assert len(laid_out) == 1, "w2 should hold the shipped engine, laid out once"
    changed = laid_out[0]
    changed.write_text(changed.read_text() + "# another build\n")
    out2 = coordinator / "out2"
    again = subprocess.run(
        [
            *_tournament(out2, engines, 1),
            "--cluster",
            dask.address,
            "--ship-engines",
            "--max-attempts",
            "1",
        ],
        cwd=coordinator,
        capture_output=True,
        timeout=60,
    )
    assert again.returncode == 1, again.stderr.decode()  # nothing played: unresolved
    store2 = ResultsStore.open(out2 / RESULTS_FILE)
    assert len(store2.records) == 2 and not any(r.rated for r in store2.records)
    for r in store2.records:
        assert r.detail["cause"] == "engine refused" and r.detail["file"] == str(changed)
        problem = r.detail["problem"]
        assert "on worker w2 (tcp://" in problem and "is another build" in problem, problem
        assert not (out2 / str(r.transcript)).exists()  # not played

    # Every transcript came home and verifies by replaying it.
    transcripts = [str(out / str(r.transcript)) for r in store.records if r.rated]
    check = subprocess.run(
        [*BIDREF, "replay", "--check", *transcripts], capture_output=True, timeout=60
    )
    assert check.returncode == 0, check.stdout.decode() + check.stderr.decode()
    if dask.prefix:  # the workers could not have written or read --out
        probe = subprocess.run(
            [*_hiding(tmp_path), "/bin/ls", "-A", str(tmp_path)], capture_output=True
        )
        assert probe.stdout == b""
