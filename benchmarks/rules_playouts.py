#!/usr/bin/env python3
"""Random full rounds through the rules core, in-process on one core.

Prints rounds per second and actions per second of random playouts (every
legal action chosen uniformly; new matches are started as old ones end), and,
separately, the rate of legal-action generation alone on positions taken from
those playouts and the strong engine's search rate (its playouts per second,
``bidref.engines_ai``, which runs on the rules core) — for the pure-Python
``bidref.rules`` and, beside it in the same run, for the mypyc-compiled build
(``make compiled``, docs/perf.md) when one has been built. Each build runs in
its own child process, the two alternating ``--repeats`` times; the best repeat
of each is reported.

Rates are per second of CPU time of the measuring process (one core), with the
wall-clock rate beside them: on a shared machine the wall clock also counts the
time other processes held the core. Target (issue 16): at least 20,000 random
rounds/s on one core.

    python benchmarks/rules_playouts.py [--seconds 3] [--repeats 3] [--pure-only]
        [--baseline OTHER_CHECKOUT]

``--baseline`` measures another checkout (e.g. an older commit) in the same
run: its pure build, and its compiled build too when that checkout has a fresh
one (``make compiled`` there).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET = 20_000


def playouts(seconds: float, seed: int = 0) -> dict[str, float]:
    from bidref.rules import Match

    rng = random.Random(seed)
    rnd = rng.random
    rounds = actions = 0
    match_seed = 0
    wall0 = time.perf_counter()
    cpu0 = time.process_time()
    stop = cpu0 + seconds
    while time.process_time() < stop:
        for _ in range(50):
            m = Match.new(match_seed)
            match_seed += 1
            current = 1
            while not m.over:
                legal = m.legal_actions()
                m.apply(legal[int(rnd() * len(legal))])
                actions += 1
                if m.round_number != current:
                    rounds += 1
                    current = m.round_number
            rounds += 1  # the round in which the match ended
    cpu = time.process_time() - cpu0
    wall = time.perf_counter() - wall0
    return {"rounds": rounds, "actions": actions, "cpu": cpu, "wall": wall}


def random_positions(n: int, seed: int, choices: bool = False) -> list[Any]:
    """``n`` positions (matches) taken from random play, one in five; with
    ``choices``, only positions with more than one legal action."""
    from bidref.rules import Match

    rng = random.Random(seed)
    positions: list[Match] = []
    s = 0
    while len(positions) < n:
        m = Match.new(s)
        s += 1
        while not m.over and len(positions) < n:
            if rng.random() < 0.2 and (not choices or len(m.legal_actions()) > 1):
                positions.append(m.copy())
            m.apply(rng.choice(m.legal_actions()))
    return positions


def legal_generation(seconds: float, seed: int = 1) -> dict[str, float]:
    positions = random_positions(2000, seed)
    calls = 0
    cpu0 = time.process_time()
    stop = cpu0 + seconds
    while time.process_time() < stop:
        for p in positions:
            p._legal = None  # force the generation, not the cache
            p.legal_actions()
        calls += len(positions)
    return {"calls": calls, "cpu": time.process_time() - cpu0}


def search_playouts(seconds: float, seed: int = 1) -> dict[str, float]:
    """The strong engine's search (``bidref.engines_ai``, which runs on the rules
    core): its playouts on positions from random play, 200 per decision."""
    from bidref.engines_ai import SearchLimits, StrongPlayer

    positions = random_positions(40, seed, choices=True)
    player = StrongPlayer(seed=seed)
    n = 0
    cpu0 = time.process_time()
    stop = cpu0 + seconds
    while time.process_time() < stop:
        for m in positions:
            player.choose(m, SearchLimits(playouts=200), now=time.monotonic)
            n += player.last_playouts
    return {"playouts": n, "cpu": time.process_time() - cpu0}


def worker(seconds: float, expect_compiled: bool) -> None:
    """Measure in this process and print the figures as one JSON line."""
    try:
        from bidref.build.compiled import is_compiled
    except ImportError:  # a --baseline checkout from before the compiled build

        def is_compiled() -> bool:
            return False

    if is_compiled() != expect_compiled:
        raise SystemExit(
            f"error: expected the {'compiled' if expect_compiled else 'pure'} build, "
            f"imported the other (PYTHONPATH={os.environ.get('PYTHONPATH')!r})"
        )
    out = {
        "playouts": playouts(seconds),
        "legal": legal_generation(seconds / 2),
        "search": search_playouts(seconds / 2),
    }
    print(json.dumps(out))


def measure(
    seconds: float, path: Path | None, *, compiled: bool = False
) -> dict[str, dict[str, float]]:
    """Figures of one child process importing ``bidref`` from ``path`` (first
    on PYTHONPATH), or from this checkout if None."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--seconds", str(seconds)]
    if compiled:
        cmd.append("--expect-compiled")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"error: the measuring process failed:\n{proc.stderr}")
    result: dict[str, dict[str, float]] = json.loads(proc.stdout.splitlines()[-1])
    return result


def report(name: str, runs: list[dict[str, dict[str, float]]]) -> float:
    best = max(runs, key=lambda r: r["playouts"]["rounds"] / r["playouts"]["cpu"])
    p = best["playouts"]
    rate = p["rounds"] / p["cpu"]
    legal = max(r["legal"]["calls"] / r["legal"]["cpu"] for r in runs)
    search = max(r["search"]["playouts"] / r["search"]["cpu"] for r in runs)
    print(
        f"{name:17} random playouts: {rate:9,.0f} rounds/s  {p['actions'] / p['cpu']:11,.0f} "
        f"actions/s  (per CPU second; wall clock {p['rounds'] / p['wall']:,.0f} rounds/s)   "
        f"legal_actions(): {legal:10,.0f} calls/s   strong search: {search:8,.0f} playouts/s"
    )
    return rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="CPU time per measurement")
    ap.add_argument("--repeats", type=int, default=3, help="alternating runs of each build")
    ap.add_argument("--pure-only", action="store_true", help="skip the compiled build")
    ap.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="also measure another checkout (e.g. an older commit): its pure build, "
        "and its compiled build if it has a fresh one",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--expect-compiled", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.seconds, args.expect_compiled)
        return
    sys.path.insert(0, str(ROOT))
    from bidref.build.compiled import fresh_build

    compiled = None if args.pure_only else fresh_build(ROOT)
    base_root = None if args.baseline is None else args.baseline.resolve()
    base_compiled = None
    if base_root is not None and compiled is not None:
        base_compiled = fresh_build(base_root)
    pure_runs, compiled_runs, base_runs, base_compiled_runs = [], [], [], []
    for _ in range(args.repeats):
        if base_root is not None:
            base_runs.append(measure(args.seconds, base_root))
        pure_runs.append(measure(args.seconds, None))
        if base_compiled is not None:
            base_compiled_runs.append(measure(args.seconds, base_compiled, compiled=True))
        if compiled is not None:
            compiled_runs.append(measure(args.seconds, compiled, compiled=True))
    if base_root is not None:
        base = report("baseline", base_runs)
        print(f"                  (the pure build of {args.baseline})")
    pure = report("pure", pure_runs)
    if base_root is not None:
        print(f"pure / baseline: {pure / base:.2f}x")
    best = pure
    if compiled is None:
        why = "skipped (--pure-only)" if args.pure_only else "not built: run `make compiled`"
        print(f"compiled  {why}")
    else:
        if base_compiled is not None:
            base_fast = report("baseline compiled", base_compiled_runs)
            print(f"                  (the compiled build of {args.baseline})")
        fast = report("compiled", compiled_runs)
        print(f"compiled / pure: {fast / pure:.2f}x")
        if base_compiled is not None:
            print(f"compiled / baseline compiled: {fast / base_fast:.2f}x")
        best = max(best, fast)
    verdict = "meets" if best >= TARGET else "MISSES"
    print(f"target {TARGET:,} rounds/s on one core: {verdict} (best build {best:,.0f})")


if __name__ == "__main__":
    main()
