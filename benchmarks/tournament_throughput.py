"""Tournament throughput: matches per second at concurrency 1 and 2, side by side.

Plays the same paired tournament between two compiled engines (the C sample
engine under two names) once with one match at a time and once with two, on
fresh output folders, with worker processes warmed up before timing, and
prints matches per second and the speed-up. Target: speed-up at 2 >= 1.6x.

    make engines && .venv/bin/python benchmarks/tournament_throughput.py --deals 40
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bidref.tournament import MatchSettings, Plan, ResultsStore, new_header, run
from bidref.tournament.engines import resolve_entries
from bidref.tournament.local import LocalBackend, available_cores
from bidref.tournament.play import play_match
from bidref.tournament.runner import RESULTS_FILE
from bidref.tournament.schedule import seeds_from_master

REPO = Path(__file__).resolve().parents[1]
ENGINE = REPO / "sample_engines" / "c_first" / "engine"
TARGET = 1.6


def make_plan(out: Path, deals: int, seed: int) -> Plan:
    engines = resolve_entries([f"c1={ENGINE}", f"c2={ENGINE}"])
    settings = MatchSettings(bank_ms=60_000, delay_ms=5_000)
    header = new_header(
        "round-robin",
        engines,
        seeds_from_master(seed, deals),
        settings,
        master_seed=seed,
        deal_book=None,
    )
    return Plan(header, out)


def _cpu_s() -> float:
    """CPU seconds of this process and its reaped children (workers, engines)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(concurrency: int, deals: int, root: Path) -> tuple[int, float, int, float]:
    """(rated matches, seconds, aborted, CPU seconds incl. warm-up) of one timed run."""
    cpu = _cpu_s()
    with LocalBackend(play_match, concurrency) as backend:
        warm = make_plan(root / f"warm-{concurrency}", concurrency, seed=999)
        run(warm, ResultsStore.create(warm.out_dir / RESULTS_FILE, warm.header), backend)
        plan = make_plan(root / f"timed-{concurrency}", deals, seed=1)
        store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
        started = time.perf_counter()
        summary = run(plan, store, backend)
        elapsed = time.perf_counter() - started
        store.close()
    return summary.done, elapsed, summary.aborted, _cpu_s() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40, help="deal seeds (x2 matches)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="timed runs per concurrency, interleaved; the best counts "
        "(other load on a shared machine only ever slows a run)",
    )
    args = parser.parse_args()
    if not ENGINE.exists():
        subprocess.run(["make", "-C", str(REPO / "sample_engines")], check=True)
    print(
        f"tournament throughput: c_first vs c_first, {2 * args.deals} matches per run, "
        f"{available_cores()} cores, python {sys.version.split()[0]}, load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    figures: dict[int, float] = {1: 0.0, 2: 0.0}
    with tempfile.TemporaryDirectory(prefix="bidref-bench-") as tmp:
        for attempt in range(args.repeat):
            for concurrency in (1, 2):
                root = Path(tmp) / f"run{attempt}"
                done, seconds, aborted, cpu = measure(concurrency, args.deals, root)
                rate = done / seconds
                figures[concurrency] = max(figures[concurrency], rate)
                print(
                    f"  concurrency {concurrency}: {done} matches in {seconds:.2f} s = "
                    f"{rate:.2f} matches/s ({aborted} aborted; {cpu / seconds:.2f} cores "
                    "busy)"
                )
    print(f"  best: {figures[1]:.2f} matches/s at 1, {figures[2]:.2f} matches/s at 2")
    speedup = figures[2] / figures[1]
    verdict = "OK" if speedup >= TARGET else "BELOW TARGET"
    print(f"  speed-up at concurrency 2: {speedup:.2f}x (target >= {TARGET}x) {verdict}")
    return 0 if speedup >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
