#!/usr/bin/env python3
"""Strength benchmark: paired matches between policies, win rates with 95 % intervals.

Every deal seed is played twice with the seats swapped, so both sides get the
same cards. Two modes:

- ``inprocess`` (default): the policies play inside this process against a
  simulated match clock (real thinking time is measured and charged; running
  out of time loses). Fast enough for hundreds of matches.
- ``process``: real engine processes refereed by ``bidref.match.referee.run_match``
  (the protocol, the pipes and the clock for real); slower, use fewer matches.

Examples::

    python benchmarks/strength.py --pairs 100 --bank 2 --delay 0.05        # both pairings
    python benchmarks/strength.py --only strong-greedy --pairs 150 --workers 2
    python benchmarks/strength.py --mode process --pairs 10 --bank 5 --delay 0.05
    python benchmarks/strength.py --mode process --only strong-strongv1 --pairs 100 \
        --bank 1 --delay 0.03 --max-rounds 3 --workers 2             # issue 16
    python benchmarks/strength.py --only strong-ismcts --pairs 100 --workers 2  # issue 36

Policies: ``random``, ``greedy`` (most points now, bids 15 with a scoring
opening tile), ``strong`` (determinized Monte Carlo, ``bidref.engines_ai``),
``strongv1`` (the strong engine before issue 16, frozen in
``benchmarks/search_v1.py``), ``ismcts`` (OpenSpiel's IS-MCTS bot on
``bidref.openspiel``, the ``rl`` extra; ``--only strong-ismcts`` at equal time
per decision, issue 36). In process mode they are
``sample_engines/python_random``, ``python_greedy``, ``python_strong`` (on
the compiled build where ``make compiled`` made a fresh one) and
``openspiel_ismcts``, and
``benchmarks/strong_v1_engine.py`` (always on the pure-Python build, as before):
``--only strong-strongv1`` then measures what the speed of issue 16 is worth at
equal time per decision. In-process, both policies share this process's build.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import search_v1  # noqa: E402
from bidref.engines_ai import (  # noqa: E402
    SearchLimits,
    StrongPlayer,
    greedy_action,
    random_action,
)
from bidref.engines_ai.inference import OpponentModel  # noqa: E402
from bidref.engines_ai.search import bank_reserve, budget_seconds  # noqa: E402
from bidref.rules import (  # noqa: E402
    SECOND,
    Action,
    Draw,
    Match,
    MatchClock,
    MatchConfig,
    TimeControl,
    player_view,
    redeal_hidden,
)

INFERENCE = True  # strong: use what the opponent's draws reveal (--no-inference: not)


class Policy:
    """A player of in-process matches: ``choose`` its action, ``observe`` every action."""

    def __init__(self, name: str, seed: int, tc: TimeControl, seat: int) -> None:
        if name not in ("random", "greedy", "strong", "strongv1", "ismcts"):
            raise SystemExit(
                f"unknown policy {name!r}: use random, greedy, strong, strongv1 or ismcts"
            )
        self.name = name
        self.rng = random.Random(seed)
        self.tc = tc
        self.seat = seat
        self.searcher: StrongPlayer | search_v1.StrongPlayer = (
            search_v1.StrongPlayer(seed=seed) if name == "strongv1" else StrongPlayer(seed=seed)
        )
        self.model = OpponentModel(seat)
        if INFERENCE:
            self.searcher.watch(self.model)
        self.ismcts: Any = None
        if name == "ismcts":  # OpenSpiel's IS-MCTS (the rl extra), only when asked for
            from bidref.openspiel.ismcts import ISMCTSPlayer

            self.ismcts = ISMCTSPlayer(seed=seed)

    def choose(self, m: Match, c: MatchClock) -> Action:
        if self.name == "random":
            return random_action(m, self.rng)
        if self.name == "greedy":
            return greedy_action(m, self.rng)
        budget = budget_seconds(
            c.delay_left / SECOND,
            c.banks[m.to_act] / SECOND,
            expected_turns=30,
            reserve=bank_reserve(self.tc.bank / SECOND),
        )
        if self.ismcts is not None:  # it sees the player's view, as the engine does
            view = player_view(m, m.to_act)
            return cast(Action, self.ismcts.choose(view, seconds=budget, now=time.monotonic))
        self.model.new_round(m.round_number)
        root = redeal_hidden(m, m.to_act, self.rng)  # the searcher sees no hidden tile
        if isinstance(self.searcher, search_v1.StrongPlayer):
            return self.searcher.choose(
                root, search_v1.SearchLimits(seconds=budget), now=time.monotonic
            )
        return self.searcher.choose(root, SearchLimits(seconds=budget), now=time.monotonic)

    def observe(self, m: Match, action: Action) -> None:
        """Called before ``action`` is applied to ``m``."""
        if m.to_act != self.seat and isinstance(action, Draw):
            self.model.new_round(m.round_number)
            self.model.observe_draw(m.layout.open_values())


@dataclass(frozen=True)
class Outcome:
    winner: int | None  # seat, None for a draw
    reason: str
    rounds: int


def play_inprocess(
    seed: int, names: tuple[str, str], tc: TimeControl, max_rounds: int | None
) -> Outcome:
    """One match; seat 0 plays ``names[0]``. Thinking time is charged for real."""
    m = Match.new(seed, MatchConfig(max_rounds=max_rounds))
    policies = (Policy(names[0], seed * 2 + 1, tc, 0), Policy(names[1], seed * 2 + 2, tc, 1))
    clock = MatchClock.start(tc)
    while not m.over:
        p = m.to_act
        clock = clock.begin(p, m.turn)
        t0 = time.perf_counter_ns()
        action = policies[p].choose(m, clock)
        clock, charge = clock.charge(time.perf_counter_ns() - t0)
        if charge.timed_out:
            print(
                f"  seed {seed}: {names[p]} lost on time, overran by {charge.overrun / 1e6:.0f} ms",
                file=sys.stderr,
            )
            return Outcome(1 - p, "time", m.round_number)
        for pol in policies:
            pol.observe(m, action)
        m.apply(action)
    assert m.result is not None
    return Outcome(m.result.winner, m.result.reason, m.result.rounds)


def play_process(
    seed: int, names: tuple[str, str], tc: TimeControl, max_rounds: int | None
) -> Outcome:
    """One match between real engine processes, refereed by bidref."""
    from bidref.engines import resolve_engine
    from bidref.match.referee import MatchSpec, run_match

    paths = {
        "random": "sample_engines/python_random/engine.py",
        "greedy": "sample_engines/python_greedy/engine.py",
        "strong": "sample_engines/python_strong/engine.py",
        "strongv1": "benchmarks/strong_v1_engine.py",
        "ismcts": "sample_engines/openspiel_ismcts/engine.py",
    }
    a, b = (resolve_engine(str(ROOT / paths[n])) for n in names)
    out = run_match(MatchSpec(engines=(a, b), seed=seed, time_control=tc, max_rounds=max_rounds))
    if out.reason not in ("balance", "round_limit", "time"):
        print(f"  seed {seed} {names}: {out.summary()}", file=sys.stderr)
    return Outcome(out.winner, str(out.reason), out.rounds)


def _job(args: tuple[str, int, tuple[str, str], float, float, int | None, bool]) -> Outcome:
    mode, seed, names, bank, delay, max_rounds, inference = args
    global INFERENCE
    INFERENCE = inference
    tc = TimeControl.of_seconds(bank=bank, delay=delay)
    play = play_inprocess if mode == "inprocess" else play_process
    return play(seed, names, tc, max_rounds)


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Tally:
    """One side's results over a pairing."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    lost_on_time: int = 0  # this side ran out of time
    won_on_time: int = 0  # the opponent ran out of time
    rounds: int = 0


def tally(a: str, seats: list[tuple[str, str]], outcomes: list[Outcome]) -> Tally:
    """The results of policy ``a``; ``seats[i]`` are the policies of match i by seat."""
    t = Tally()
    for names, o in zip(seats, outcomes, strict=True):
        a_seat = 0 if names[0] == a else 1
        t.rounds += o.rounds
        if o.winner is None:
            t.draws += 1
        elif o.winner == a_seat:
            t.wins += 1
            t.won_on_time += o.reason == "time"
        else:
            t.losses += 1
            t.lost_on_time += o.reason == "time"
    return t


def run_pairing(a: str, b: str, args: argparse.Namespace) -> None:
    jobs = []
    for i in range(args.pairs):
        seed = args.seed + i
        jobs.append(
            (args.mode, seed, (a, b), args.bank, args.delay, args.max_rounds, not args.no_inference)
        )
        jobs.append(
            (args.mode, seed, (b, a), args.bank, args.delay, args.max_rounds, not args.no_inference)
        )
    t0 = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            outcomes = list(pool.map(_job, jobs))
    else:
        outcomes = [_job(j) for j in jobs]
    elapsed = time.perf_counter() - t0
    t = tally(a, [j[2] for j in jobs], outcomes)
    wins, draws, losses, rounds = t.wins, t.draws, t.losses, t.rounds
    n = len(outcomes)
    lo, hi = wilson(wins, n)
    slo, shi = wilson(wins + draws / 2, n)
    print(
        f"{a} vs {b}: {n} matches ({args.pairs} deal seeds x 2 seats), "
        f"{args.mode}, bank {args.bank:g} s + delay {args.delay:g} s, "
        f"max rounds {args.max_rounds}"
    )
    print(
        f"  {a} won {wins}, drew {draws}, lost {losses} "
        f"(losses on time: {t.lost_on_time}, {b}'s: {t.won_on_time}; "
        f"{rounds / n:.1f} rounds a match; {elapsed:.0f} s)"
    )
    print(f"  win rate {wins / n:.1%}  95% CI [{lo:.1%}, {hi:.1%}]")
    print(f"  score (draw = 1/2) {(wins + draws / 2) / n:.1%}  95% CI [{slo:.1%}, {shi:.1%}]")
    sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mode", choices=["inprocess", "process"], default="inprocess")
    ap.add_argument("--pairs", type=int, default=100, help="deal seeds (2 matches each)")
    ap.add_argument("--seed", type=int, default=1000, help="first deal seed")
    ap.add_argument("--bank", type=float, default=2.0, help="bank in seconds")
    ap.add_argument("--delay", type=float, default=0.05, help="delay per turn in seconds")
    ap.add_argument(
        "--max-rounds",
        type=int,
        default=10,
        help="round limit, then adjudication by balance (0: none)",
    )
    ap.add_argument("--workers", type=int, default=1, help="matches played in parallel")
    ap.add_argument(
        "--no-inference",
        action="store_true",
        help="in-process strong: ignore what the opponent's draws reveal",
    )
    ap.add_argument(
        "--only",
        choices=["greedy-random", "strong-greedy", "strong-strongv1", "strong-ismcts"],
        default=None,
    )
    args = ap.parse_args()
    global INFERENCE
    INFERENCE = not args.no_inference
    if args.max_rounds == 0:
        args.max_rounds = None
    pairings = [("greedy", "random"), ("strong", "greedy")]
    if args.only:
        a, b = args.only.split("-")
        pairings = [(a, b)]
    for a, b in pairings:
        run_pairing(a, b, args)


if __name__ == "__main__":
    main()
