#!/usr/bin/env python3
"""Random full rounds through the rules core, in-process on one core.

Prints rounds per second and actions per second of random playouts (every
legal action chosen uniformly; new matches are started as old ones end), and,
separately, the rate of legal-action generation alone on positions taken from
those playouts. Target (issue 2): at least 10,000 random rounds/s.

    python benchmarks/rules_playouts.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import random
import time

from bidref.rules import Match


def playouts(seconds: float, seed: int = 0) -> tuple[int, int, float]:
    rng = random.Random(seed)
    rnd = rng.random
    rounds = actions = 0
    match_seed = 0
    start = time.perf_counter()
    stop = start + seconds
    while time.perf_counter() < stop:
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
    return rounds, actions, time.perf_counter() - start


def legal_generation(seconds: float, seed: int = 1) -> tuple[int, float]:
    rng = random.Random(seed)
    positions: list[Match] = []
    s = 0
    while len(positions) < 2000:
        m = Match.new(s)
        s += 1
        while not m.over:
            if rng.random() < 0.2:
                positions.append(m.copy())
            m.apply(rng.choice(m.legal_actions()))
    calls = 0
    start = time.perf_counter()
    stop = start + seconds
    while time.perf_counter() < stop:
        for p in positions:
            p._legal = None  # force the generation, not the cache
            p.legal_actions()
        calls += len(positions)
    return calls, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    args = ap.parse_args()
    rounds, actions, dt = playouts(args.seconds)
    print(
        f"random playouts:   {rounds / dt:10,.0f} rounds/s   {actions / dt:12,.0f} actions/s"
        f"   ({rounds:,} rounds, {actions:,} actions in {dt:.2f} s)"
    )
    calls, dt2 = legal_generation(args.seconds)
    print(f"legal_actions():   {calls / dt2:10,.0f} calls/s    {dt2 / calls * 1e6:9.2f} µs/call")
    target = 10_000
    verdict = "meets" if rounds / dt >= target else "MISSES"
    print(f"target {target:,} rounds/s: {verdict}")


if __name__ == "__main__":
    main()
