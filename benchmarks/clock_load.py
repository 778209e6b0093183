"""The clock under overload: false time losses and aborts at -j 1, 2, 4 and 8.

Run::

    .venv/bin/python benchmarks/clock_load.py [--matches 16] [--jobs 1,2,4,8]
    BIDREF_ROOT=/path/to/other/checkout .venv/bin/python benchmarks/clock_load.py
    BIDREF_REFEREE_PRIORITY=0 .venv/bin/python benchmarks/clock_load.py

Real matches between two copies of ``benchmarks/engines/clock_engine.c``
(built on first use) that answer every request 3 ms before the deadline they
were given, by their own clock from when they read the request: a reply the
engine could not have made earlier. Each ``-j`` level plays ``--matches``
matches that many at once (worker processes), first on the machine as it is,
then with outside load: one busy process per CPU, started and ended (by pid)
by this script, at the engines' own priority. Prints, per line: time losses,
of which *false* ones (the reply was fully written before the referee's
deadline, by the engine's log on the transcript header's clock: the others
were written late by the engine itself, e.g. its sleep woke late), aborts
(the referee's ``timing_fault``, and ``machine_wait``: a late reply the
machine's wait excuses, issue 41), and matches per second.

``BIDREF_ROOT`` plays the matches with the bidref of another checkout (the
"before" of docs/perf.md); ``BIDREF_REFEREE_PRIORITY=0`` leaves the referee at
its engines' priority (bidref/engines/priority.py).
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
ROOT = Path(os.environ.get("BIDREF_ROOT", HERE)).resolve()
sys.path.insert(0, str(HERE))
from benchmarks.engines.build import build  # noqa: E402  (this checkout's engine, always)

sys.path.insert(0, str(ROOT))
for name in [m for m in sys.modules if m == "bidref" or m.startswith("bidref.")]:
    del sys.modules[name]  # (none yet: bidref is imported from ROOT below)
from bidref.engines import EngineSpec  # noqa: E402
from bidref.match.referee import MatchSpec, run_match  # noqa: E402
from bidref.rules import MILLISECOND, TimeControl  # noqa: E402
from bidref.transcript.expand import expanded_lines  # noqa: E402

EARLY_US = -3000  # every reply 3 ms before the deadline, by the engine's own clock


def play(args: tuple[int, str]) -> dict[str, Any]:
    """One match (in a worker process): how it ended."""
    seed, tmp = args
    logging.disable(logging.WARNING)
    engine = str(build("clock_engine"))
    a, b = (
        EngineSpec(f"clock_{s}", (engine, str(EARLY_US), f"{tmp}/{seed}-{s}.log")) for s in "ab"
    )
    engines = (a, b)
    spec = MatchSpec(
        engines=engines,
        seed=seed,
        time_control=TimeControl(bank=0, delay=20 * MILLISECOND),
        max_rounds=1,
    )
    path = Path(f"{tmp}/{seed}.jsonl")
    out = run_match(spec, transcript_path=path)
    false = False
    seat = out.end.at_seat
    if out.reason == "time" and seat is not None:
        lines = expanded_lines(path.read_bytes())
        origin = lines[0]["monotonic_origin_ns"]
        deadline = {
            x["id"]: origin + x["deadline_ns"]
            for x in lines
            if x["type"] in ("request", "retry") and x["seat"] == seat
        }
        last = max(deadline)
        for row in Path(f"{tmp}/{seed}-{'ab'[seat]}.log").read_text().splitlines():
            f = row.split()
            if f[0] == "R" and int(f[1]) == last and int(f[4]) < deadline[last]:
                false = True  # written before the deadline, and lost on time
    return {
        "reason": str(out.reason),
        "cause": out.end.cause_word,
        "decisions": out.decisions,
        "false": false,
    }


def busy(n: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def level(jobs: int, matches: int, seed: int) -> tuple[Counter[str], float, int]:
    tally: Counter[str] = Counter()
    decisions = 0
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for res in pool.map(play, [(seed + i, tmp) for i in range(matches)]):
                key = res["reason"] if res["reason"] != "aborted" else f"aborted:{res['cause']}"
                tally[key] += 1
                tally["false"] += res["false"]
                decisions += res["decisions"]
        took = time.monotonic() - started
    return tally, matches / took, decisions


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=16, help="matches per line")
    ap.add_argument("--jobs", default="1,2,4,8", help="the -j levels")
    ap.add_argument("--no-load", action="store_true", help="only the machine as it is")
    args = ap.parse_args()
    build("clock_engine")
    cpus = len(os.sched_getaffinity(0))
    print(
        f"bidref from {ROOT}; {cpus} CPUs; load average now "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; referee priority "
        f"{'off' if os.environ.get('BIDREF_REFEREE_PRIORITY') == '0' else 'on where allowed'}"
    )
    print(
        f"{'-j':>3} {'outside load':>12} {'matches':>7} {'time losses':>11} {'false':>5} "
        f"{'timing_fault':>12} {'machine_wait':>12} {'aborted %':>9} {'matches/s':>9}"
    )
    loads = (0,) if args.no_load else (0, cpus)
    seed = 1000
    bad = False
    for load in loads:
        for jobs in (int(j) for j in args.jobs.split(",")):
            hogs = busy(load)
            try:
                tally, rate, _ = level(jobs, args.matches, seed)
            finally:
                for h in hogs:
                    h.kill()  # by pid: ours
                    h.wait(timeout=10)
            seed += args.matches
            aborted = tally["aborted:timing_fault"] + tally["aborted:machine_wait"]
            print(
                f"{jobs:3} {f'{load} busy' if load else 'none':>12} {args.matches:7} "
                f"{tally['time']:11} {tally['false']:5} {tally['aborted:timing_fault']:12} "
                f"{tally['aborted:machine_wait']:12} {100 * aborted / args.matches:9.0f} "
                f"{rate:9.2f}",
                flush=True,
            )
            bad = bad or tally["false"] > 0
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
