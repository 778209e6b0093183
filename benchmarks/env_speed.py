#!/usr/bin/env python3
"""Random games through the learning environments, beside OpenSpiel's python_block_dominoes.

One run measures, each in its own child process on one core:

- the PettingZoo AEC environment (``bidref.env.env()``, and the same in
  PettingZoo's usual order and bounds wrappers): ``env.last()`` builds the
  observation vector and the action mask at every step, and the action is
  drawn at random from the mask;
- the OpenSpiel game ``python_spectacular_bid``: random chance outcomes and
  random legal actions through ``state.apply_action``;
- OpenSpiel's ``python_block_dominoes`` (the one dominoes game in OpenSpiel
  with a Python implementation) through the same loop: the peer.

A "game" is one round of Spectacular Bid (``max_rounds=1``: a deal, the
opening, play to a domino or block) and one game of block dominoes. The AEC
environment and the OpenSpiel game run on the pure-Python rules and, where a
fresh compiled build exists (``make compiled``, docs/perf.md), on it too.
Rates are per second of CPU time of the measuring process (the best of
``--repeats`` alternating runs). Targets (issue 36): the AEC environment at
least 10x python_block_dominoes' games/s, and at least 20,000 agent steps/s on
the compiled build.

    python benchmarks/env_speed.py [--seconds 2] [--repeats 2] [--pure-only]
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
GAMES_RATIO_TARGET = 10.0
STEPS_TARGET = 20_000


def aec_games(seconds: float, wrapped: bool = True) -> dict[str, float]:
    import numpy as np
    from pettingzoo.utils import wrappers

    from bidref.env import env

    e: Any = env(max_rounds=1)
    if wrapped:
        e = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(e))
    rng = random.Random(0)
    games = steps = 0
    seed = 0
    cpu0 = time.process_time()
    stop = cpu0 + seconds
    while time.process_time() < stop:
        e.reset(seed=seed)
        seed += 1
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
            del agent
        games += 1
    return {"games": games, "steps": steps, "cpu": time.process_time() - cpu0}


def openspiel_games(seconds: float, game_string: str) -> dict[str, float]:
    import pyspiel

    if game_string.startswith("python_spectacular_bid"):
        import bidref.openspiel  # noqa: F401  (registers the game)
    else:
        from open_spiel.python.games import block_dominoes  # noqa: F401

    game = pyspiel.load_game(game_string)
    rng = random.Random(0)
    games = steps = 0
    cpu0 = time.process_time()
    stop = cpu0 + seconds
    while time.process_time() < stop:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            else:
                legal = s.legal_actions()
                s.apply_action(legal[int(rng.random() * len(legal))])
                steps += 1
        games += 1
    return {"games": games, "steps": steps, "cpu": time.process_time() - cpu0}


def worker(what: str, seconds: float, expect_compiled: bool) -> None:
    from bidref.build.compiled import is_compiled

    if is_compiled() != expect_compiled:
        raise SystemExit(
            f"error: expected the {'compiled' if expect_compiled else 'pure'} build, "
            f"imported the other (PYTHONPATH={os.environ.get('PYTHONPATH')!r})"
        )
    if what == "aec":
        out = aec_games(seconds, wrapped=False)
    elif what == "aec-wrapped":
        out = aec_games(seconds, wrapped=True)
    elif what == "openspiel":
        out = openspiel_games(seconds, "python_spectacular_bid(max_rounds=1)")
    else:
        out = openspiel_games(seconds, "python_block_dominoes")
    print(json.dumps(out))


def measure(what: str, seconds: float, compiled_path: Path | None) -> dict[str, float]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", what]
    cmd += ["--seconds", str(seconds)]
    if compiled_path is not None:
        env["PYTHONPATH"] = str(compiled_path)
        cmd.append("--expect-compiled")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"error: the measuring process ({what}) failed:\n{proc.stderr}")
    result: dict[str, float] = json.loads(proc.stdout.splitlines()[-1])
    return result


def best(runs: list[dict[str, float]]) -> dict[str, float]:
    return max(runs, key=lambda r: r["games"] / r["cpu"])


def line(name: str, r: dict[str, float]) -> str:
    return (
        f"{name:42} {r['games'] / r['cpu']:9,.0f} games/s  {r['steps'] / r['cpu']:10,.0f} "
        f"agent steps/s  ({r['steps'] / max(1, r['games']):.1f} steps a game)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU time per measurement")
    ap.add_argument("--repeats", type=int, default=2, help="alternating runs of each")
    ap.add_argument("--pure-only", action="store_true", help="skip the compiled build")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--expect-compiled", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.seconds, args.expect_compiled)
        return
    sys.path.insert(0, str(ROOT))
    from bidref.build.compiled import fresh_build

    compiled = None if args.pure_only else fresh_build(ROOT)
    plan: list[tuple[str, str, Path | None]] = [
        ("python_block_dominoes (OpenSpiel, peer)", "block", None),
        ("AEC env, pure rules", "aec", None),
        ("AEC env in PettingZoo's wrappers, pure", "aec-wrapped", None),
        ("OpenSpiel python_spectacular_bid, pure", "openspiel", None),
    ]
    if compiled is not None:
        plan += [
            ("AEC env, compiled rules", "aec", compiled),
            ("AEC env in PettingZoo's wrappers, compiled", "aec-wrapped", compiled),
            ("OpenSpiel python_spectacular_bid, compiled", "openspiel", compiled),
        ]
    else:
        print("(no fresh compiled build: `make compiled` to measure it too)")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in plan}
    for _ in range(args.repeats):
        for name, what, path in plan:
            runs[name].append(measure(what, args.seconds, path))
    results: dict[str, Any] = {name: best(r) for name, r in runs.items()}
    for name in runs:
        print(line(name, results[name]))
    peer = results[plan[0][0]]
    peer_rate = peer["games"] / peer["cpu"]
    for name in runs:
        if name.startswith("AEC"):
            r = results[name]
            ratio = r["games"] / r["cpu"] / peer_rate
            steps = r["steps"] / r["cpu"]
            print(
                f"{name}: {ratio:.1f}x python_block_dominoes' games/s "
                f"(target {GAMES_RATIO_TARGET:.0f}x), {steps:,.0f} agent steps/s "
                f"(target {STEPS_TARGET:,} on the compiled build)"
            )


if __name__ == "__main__":
    main()
