"""Cluster throughput: matches per second on 1 and 2 dask worker processes, side by side.

Starts a ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1 (one
thread each, no nanny, each in a folder and engine cache of its own: see
:mod:`bidref.tournament.loopback`), and plays the same paired tournament between
two compiled engines (the C sample engine under two names), the engines shipped
and the transcripts coming back to this process:
first with one worker, then with two, each time with the coordinator's proof
(every transcript replayed before it counts: :mod:`bidref.tournament.verify`)
off and on. A warm-up run before each timed one ships the engines and starts the
workers' imports. Every process started here is ended by its pid.

Then the cost of the proof alone: the timed run's transcripts proven again one
after another in this process, as matches and decisions per second, against
the rate at which 8 worker threads would deliver such matches (8 x one worker's
rate: each worker thread plays one match at a time): how many verifier
processes (each on a core of its own) keep up with them, and whether the
default pool on this machine does.

    make engines && .venv/bin/python benchmarks/cluster_throughput.py --deals 20
"""

from __future__ import annotations

import argparse
import math
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
from bidref.tournament.model import MatchRecord, MatchReport
from bidref.tournament.play import play_match
from bidref.tournament.runner import RESULTS_FILE
from bidref.tournament.schedule import seeds_from_master
from bidref.tournament.security import ClusterTrust, default_verifiers
from bidref.tournament.verify import Proof, prove

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


def measure(
    address: str, deals: int, root: Path, label: str, verify: bool
) -> tuple[int, float, int]:
    """(rated matches, seconds, aborted) of one timed run after a warm-up run."""
    backend = ClusterBackend(
        play_match,
        address,
        engines=make_plan(root, 1, 1).engines,
        ship=True,
        trust=ClusterTrust(verify=verify),
    )
    try:
        warm = make_plan(root / f"warm-{label}", backend.slots, seed=999)
        run(warm, ResultsStore.create(warm.out_dir / RESULTS_FILE, warm.header), backend)
        plan = make_plan(root / f"timed-{label}", deals, seed=1)
        store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
        before = backend.checks.proven
        started = time.perf_counter()
        summary = run(plan, store, backend)
        elapsed = time.perf_counter() - started
        store.close()
        if verify:  # every counted match was proven
            assert backend.checks.proven - before == summary.done, backend.checks.proven
    finally:
        backend.close()
    return summary.done, elapsed, summary.aborted


def _report(r: MatchRecord, transcript: str, data: bytes) -> MatchReport:
    winner = None if r.winner is None else (0 if r.winner == r.engine_a else 1)
    return MatchReport(
        winner, r.reason, r.rated, balances=r.balances, rounds=r.rounds,
        outputs=((transcript, data),),
    )  # fmt: skip


def proof_rate(out: Path, deals: int) -> tuple[float, float, int]:
    """(matches, decisions) proven per second on one thread, and matches proven."""
    plan = make_plan(out, deals, seed=1)
    store = ResultsStore.open(out / RESULTS_FILE)
    work = []
    for r in store.records:
        if r.rated and r.transcript:
            job = plan.job(r.key, r.attempt)
            work.append((job, _report(r, job.transcript, (out / r.transcript).read_bytes())))
    store.close()
    decisions = 0
    started = time.perf_counter()
    for job, report in work:
        proof = prove(job, report)
        assert isinstance(proof, Proof), proof
        decisions += proof.decisions
    seconds = time.perf_counter() - started
    return len(work) / seconds, decisions / seconds, len(work)


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
    figures: dict[tuple[int, bool], float] = {}
    try:
        with LoopbackCluster(0) as cluster:
            for workers in (1, 2):
                cluster.add_worker(f"w{workers}")
                for verify in (False, True):
                    label = f"{workers}-{'on' if verify else 'off'}"
                    done, seconds, aborted = measure(
                        cluster.address, args.deals, root, label, verify
                    )
                    figures[(workers, verify)] = done / seconds
                    print(
                        f"  {workers} worker process{'es' if workers > 1 else ''}, proof "
                        f"{'on ' if verify else 'off'}: {done} matches in {seconds:.2f} s = "
                        f"{done / seconds:.2f} matches/s ({aborted} aborted)"
                    )
        matches_s, decisions_s, proven = proof_rate(root / "timed-1-on", args.deals)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    one, two = figures[(1, True)], figures[(2, True)]
    print(
        f"  side by side, proof on: {one:.2f} matches/s on 1 worker, {two:.2f} on 2 "
        f"(x{two / one:.2f}); proof off: {figures[(1, False)]:.2f} and {figures[(2, False)]:.2f}"
    )
    arriving = 8 * figures[(1, False)]
    pool = default_verifiers()
    print(
        f"  the proof alone, one process here: {proven} matches in a row, {matches_s:.1f} "
        f"matches/s ({decisions_s:,.0f} decisions/s) = the matches of "
        f"{matches_s / figures[(1, False)]:.1f} worker threads"
    )
    print(
        f"  8 worker threads deliver {arriving:.1f} matches/s (8 x 1 worker): they need "
        f"{math.ceil(arriving / matches_s)} verifier processes on cores of their own; the "
        f"default pool here is {pool} ({os.cpu_count()} cores): "
        + ("keeps up" if pool * matches_s >= arriving else "falls behind")
        + f" (x{pool * matches_s / arriving:.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
