"""Cluster throughput: matches per second on 1 and 2 dask worker processes, side by side.

Starts a ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1 (one
thread each, no nanny, each in a folder and engine cache of its own: see
:mod:`bidref.tournament.loopback`), and plays the same paired tournament between
two compiled engines (the C sample engine under two names), the engines shipped
and the transcripts coming back to this process:
first with one worker, then with two. A warm-up run before each timed one ships
the engines and starts the workers' imports. Every process started here is ended
by its pid.

    make engines && .venv/bin/python benchmarks/cluster_throughput.py --deals 20
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bidref.tournament import MatchSettings, Plan, ResultsStore, new_header, run
from bidref.tournament.cluster import ClusterBackend
from bidref.tournament.engines import resolve_entries
from bidref.tournament.loopback import LoopbackCluster
from bidref.tournament.play import play_match
from bidref.tournament.runner import RESULTS_FILE
from bidref.tournament.schedule import seeds_from_master

REPO = Path(__file__).resolve().parents[1]
ENGINE = REPO / "sample_engines" / "c_first" / "engine"


def make_plan(out: Path, deals: int, seed: int) -> Plan:
    engines = resolve_entries([f"c1={ENGINE}", f"c2={ENGINE}"], check=True)
    header = new_header(
        "round-robin",
        engines,
        seeds_from_master(seed, deals),
        MatchSettings(bank_ms=60_000, delay_ms=5_000),
        master_seed=seed,
        deal_book=None,
    )
    return Plan(header, out)


def measure(address: str, deals: int, root: Path, label: str) -> tuple[int, float, int]:
    """(rated matches, seconds, aborted) of one timed run after a warm-up run."""
    backend = ClusterBackend(play_match, address, engines=make_plan(root, 1, 1).engines, ship=True)
    try:
        warm = make_plan(root / f"warm-{label}", backend.slots, seed=999)
        run(warm, ResultsStore.create(warm.out_dir / RESULTS_FILE, warm.header), backend)
        plan = make_plan(root / f"timed-{label}", deals, seed=1)
        store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
        started = time.perf_counter()
        summary = run(plan, store, backend)
        elapsed = time.perf_counter() - started
        store.close()
    finally:
        backend.close()
    return summary.done, elapsed, summary.aborted


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--deals", type=int, default=20, help="deal seeds (x2 matches)")
    args = parser.parse_args()
    if not ENGINE.exists():
        subprocess.run(["make", "-C", str(REPO / "sample_engines")], check=True)
    print(
        f"cluster throughput: c_first vs c_first, {2 * args.deals} matches per run, shipped, "
        f"transcripts returned; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}"
    )
    root = Path(tempfile.mkdtemp(prefix="bidref-cluster-bench-"))
    figures: dict[int, float] = {}
    try:
        with LoopbackCluster(0) as cluster:
            for workers in (1, 2):
                cluster.add_worker(f"w{workers}")
                done, seconds, aborted = measure(cluster.address, args.deals, root, f"{workers}")
                figures[workers] = done / seconds
                print(
                    f"  {workers} worker process{'es' if workers > 1 else ''}: {done} matches "
                    f"in {seconds:.2f} s = {figures[workers]:.2f} matches/s ({aborted} aborted)"
                )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"  side by side: {figures[1]:.2f} matches/s on 1 worker, {figures[2]:.2f} on 2 "
        f"(x{figures[2] / figures[1]:.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
