"""Real tournaments between sample engines (few, small, generous clocks)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bidref.tournament import MatchRecord, ResultsStore, run
from bidref.tournament.cluster import ClusterBackend
from bidref.tournament.engines import resolve_entries
from bidref.tournament.local import LocalBackend
from bidref.tournament.model import MatchSettings
from bidref.tournament.play import play_match
from bidref.tournament.runner import RESULTS_FILE, Plan, new_header
from bidref.tournament.schedule import seeds_from_master
from bidref.transcript.files import read_bytes
from tests.sample_build import build_c_engines

from .test_runner import alive, rated

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
C_FIRST = REPO / "sample_engines" / "c_first" / "engine"
RANDOM = REPO / "sample_engines" / "python_random" / "engine.py"
GREEDY = REPO / "sample_engines" / "python_greedy" / "engine.py"
BIDREF = [sys.executable, "-c", "from bidref.cli import main; main()"]


@pytest.fixture(scope="module")
def c_first() -> Path:
    if not C_FIRST.exists():
        build_c_engines()
    return C_FIRST


def _plan(out: Path, engines: list[str], deals: int) -> Plan:
    header = new_header(
        "round-robin",
        resolve_entries(engines),
        seeds_from_master(5, deals),
        MatchSettings(bank_ms=20_000, delay_ms=2_000),
        master_seed=5,
        deal_book=None,
    )
    return Plan(header, out)


def test_local_processes_and_a_dask_cluster_agree_on_real_engines(
    c_first: Path, tmp_path: Path
) -> None:
    import distributed

    engines = [f"c={c_first}", str(GREEDY), str(RANDOM)]
    local_plan = _plan(tmp_path / "local", engines, deals=2)
    store = ResultsStore.create(local_plan.out_dir / RESULTS_FILE, local_plan.header)
    with LocalBackend(play_match, 2) as backend:
        summary = run(local_plan, store, backend)
    assert summary.done == summary.total == 12  # (a loaded machine may abort and replay some)
    for r in store.records:
        if not r.rated:
            continue
        lines = read_bytes(local_plan.out_dir / str(r.transcript)).splitlines()
        assert json.loads(lines[0])["type"] == "header"
        assert json.loads(lines[-1])["type"] == "result"
        assert json.loads(lines[-1])["winner"] == (
            None if r.winner is None else [r.engine_a, r.engine_b].index(r.winner)
        )

    dask_plan = _plan(tmp_path / "dask", engines, deals=2)
    dstore = ResultsStore.create(dask_plan.out_dir / RESULTS_FILE, dask_plan.header)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster:
        backend = ClusterBackend(play_match, cluster.scheduler_address)
        try:
            run(dask_plan, dstore, backend)
        finally:
            backend.close()

    def outcomes(records: list[MatchRecord]) -> dict[str, tuple[object, ...]]:
        return {k: v[:-1] for k, v in rated(records).items()}  # transcript names of replays differ

    assert outcomes(dstore.records) == outcomes(store.records)


def _engine_processes(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline and alive(int(entry.name)):
                pids.append(int(entry.name))
    return pids


def test_ctrl_c_ends_matches_cleanly_and_resume_completes(c_first: Path, tmp_path: Path) -> None:
    # a private copy of the engines, so their processes can be found by path
    engine = tmp_path / "engines" / "c_first_copy"
    engine.parent.mkdir()
    shutil.copy(c_first, engine)
    slow = tmp_path / "engines" / "slow_random.py"
    slow.write_text(
        RANDOM.read_text().replace(
            'reply = {"type": "action"', 'import time; time.sleep(0.003); reply = {"type": "action"'
        )
    )
    out = tmp_path / "out"
    args = [
        *BIDREF,
        "tournament",
        f"first={engine}",
        f"rnd={slow}",
        "--deals",
        "6",
        "--seed",
        "9",
        "--bank",
        "30",
        "--delay",
        "3",
        "-j",
        "2",
        "--out",
        str(out),
    ]
    # (SIGINT as at a terminal, even when these tests run where it is ignored, e.g. in
    # a background job of a script: an ignored SIGINT would be ignored by the child too)
    proc = subprocess.Popen(
        [*args, "--json"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    results = out / RESULTS_FILE
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and results.read_text().count('"rated":true') >= 2:
            break
        time.sleep(0.02)
    assert _engine_processes(str(engine.parent)), "engines should be running mid-tournament"
    os.kill(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr.decode()
    assert b"--resume" in stderr
    assert _engine_processes(str(engine.parent)) == []  # no engine left behind
    data = json.loads(stdout)
    assert data["interrupted"] and 2 <= data["done"] < 12
    before = ResultsStore.open(results).records

    resumed = subprocess.run(
        [*BIDREF, "tournament", "--resume", "--out", str(out), "--json"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr.decode()
    final = json.loads(resumed.stdout)
    assert final["done"] == final["total"] == 12
    assert final["played"] - final["aborted"] == 12 - data["done"]
    after = ResultsStore.open(results).records
    assert after[: len(before)] == before
    assert sorted(r.key.id for r in after if r.rated) == sorted(k.id for k in _keys(out))
    assert _engine_processes(str(engine.parent)) == []


def _keys(out: Path) -> list[object]:
    store = ResultsStore.open(out / RESULTS_FILE)
    return list(Plan(store.header, out).keys)
