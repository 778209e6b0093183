"""The engine jail's cost and what it buys (issue 28), side by side in one run.

Run (as root for the full jail; after `make -C sample_engines`)::

    .venv/bin/python benchmarks/sandbox_overhead.py [--matches 6] [--starts 20] [--theft 3]

(a) **per decision**: wall time per decision (the referee's clock from the first
    request to the last accepted action, over the decisions) in real matches
    between two instant C engines (sample_engines/c_first), unjailed
    (``--sandbox off``), jailed (``auto``: the strongest jail here, no cpuset)
    and, where cpusets exist, jailed with ``--cpus 1``, interleaved match by match.
    Target: jailed / unjailed <= 1.10 (medians of the per-match means).
(b) **engine start**: from ``start_engine`` to the engine's hello line read, for
    c_first, unjailed and jailed, interleaved. Target: <= 10 ms more per start.
(c) **CPU theft**: a victim that does a fixed amount of CPU work per decision
    (benchmarks/engines/cpu_victim.py, which times it) against an instant
    engine, then against a thief that keeps 4 busy processes in their own
    sessions (benchmarks/engines/cpu_thief.py); the ratio of the victim's median
    time per decision with the thief / without, jailed without ``--cpus`` and
    with ``--cpus 1``. Target with --cpus: <= 1.05. On a 2-core machine each
    seat has one core and the referee shares them.

The machine is shared: every figure is a distribution, interleaved so that its
state affects both sides alike.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bidref.engines import start_engine  # noqa: E402
from bidref.engines.spec import EngineSpec, resolve_engine  # noqa: E402
from bidref.match.referee import MatchSpec, run_match  # noqa: E402
from bidref.players.make import engine_seats  # noqa: E402
from bidref.rules.clock import SECOND, TimeControl  # noqa: E402
from bidref.sandbox import Limits, SandboxConfig, machine, plan  # noqa: E402

C_FIRST = ROOT / "sample_engines" / "c_first" / "engine"
VICTIM = ROOT / "benchmarks" / "engines" / "cpu_victim.py"
THIEF = ROOT / "benchmarks" / "engines" / "cpu_thief.py"


def jailed(spec: EngineSpec, config: SandboxConfig | None) -> EngineSpec:
    return spec if config is None else replace(spec, sandbox=config)


def per_decision_us(config: SandboxConfig | None, seed: int) -> float:
    a = jailed(resolve_engine(str(C_FIRST)), config)
    spec = MatchSpec(
        engines=(replace(a, name="a"), replace(a, name="b")),
        seed=seed,
        time_control=TimeControl(100 * SECOND, SECOND),
        max_rounds=20,
    )
    out = run_match(spec, seats=engine_seats(spec.engines, "pipe"))
    return out.decision_ns / max(out.decisions, 1) / 1000


def start_ms(config: SandboxConfig | None) -> float:
    spec = jailed(resolve_engine(str(C_FIRST)), config)
    t0 = time.perf_counter()
    t = start_engine(spec)
    t.write_line('{"type":"hello","protocol":"bidref/1","seat":0}')
    t.read(time.monotonic_ns() + 10 * SECOND)
    took = (time.perf_counter() - t0) * 1000
    t.close('{"type":"quit"}', 500_000_000)
    return took


def victim_work_us(config: SandboxConfig | None, thief: bool, seed: int) -> list[float]:
    victim = jailed(resolve_engine(str(VICTIM)), config)
    other = jailed(resolve_engine(str(THIEF if thief else C_FIRST)), config)
    with tempfile.TemporaryDirectory() as d:
        spec = MatchSpec(
            engines=(victim, other),
            seed=seed,
            time_control=TimeControl(300 * SECOND, 10 * SECOND),
            max_rounds=3,
        )
        run_match(spec, seats=engine_seats(spec.engines, "pipe", stderr_dir=Path(d)))
        log = next(Path(d).glob("A-*.stderr.log")).read_text()
    return [int(w.split()[1]) / 1000 for w in log.splitlines() if w.startswith("WORK ")]


def dist(xs: list[float]) -> str:
    q = statistics.quantiles(xs, n=10) if len(xs) > 1 else [xs[0]] * 9
    return f"p10 {q[0]:8.1f}  p50 {statistics.median(xs):8.1f}  p90 {q[8]:8.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=6)
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--theft", type=int, default=3, help="matches per theft scenario")
    args = ap.parse_args()
    m = machine()
    cpus = 1 if "cpuset" in m.controllers else None
    jail = SandboxConfig("auto", Limits(cpus=cpus))
    p = plan(jail)
    print(f"machine: {len(m.cores)} cores, root={m.root}, cgroup {m.cgroup}")
    print(f"jail: {'+'.join(p.active)} (missing: {', '.join(p.missing) or 'nothing'})")

    nocpu = SandboxConfig("auto", Limits(cpus=None))
    off_d: list[float] = []
    on_d: list[float] = []
    pin_d: list[float] = []
    for i in range(args.matches):
        off_d.append(per_decision_us(None, 100 + i))
        on_d.append(per_decision_us(nocpu, 100 + i))
        if cpus is not None:
            pin_d.append(per_decision_us(jail, 100 + i))
    print("\n(a) wall time per decision, us (per-match means, c_first vs c_first)")
    print(f"  unjailed         {dist(off_d)}")
    print(f"  jailed           {dist(on_d)}")
    ratio = statistics.median(on_d) / statistics.median(off_d)
    print(f"  jailed / unjailed (medians): x{ratio:.3f}   (target <= 1.10)")
    if pin_d:
        print(f"  jailed, --cpus 1 {dist(pin_d)}")
        ratio = statistics.median(pin_d) / statistics.median(off_d)
        print(f"  jailed with --cpus 1 / unjailed: x{ratio:.3f}   (each seat on its own core:")
        print("  every reply wakes the referee on another core)")

    off_s: list[float] = []
    on_s: list[float] = []
    for _ in range(args.starts):
        off_s.append(start_ms(None))
        on_s.append(start_ms(jail))
    print("\n(b) engine start to hello, ms (c_first)")
    print(f"  unjailed  {dist(off_s)}")
    print(f"  jailed    {dist(on_s)}")
    extra = statistics.median(on_s) - statistics.median(off_s)
    print(f"  jailed - unjailed (medians): +{extra:.1f} ms   (target <= 10 ms)")

    print("\n(c) CPU theft: the victim's time per decision (us), thief / no thief")
    scenarios = [("jailed, no --cpus", SandboxConfig("auto", Limits(cpus=None)))]
    if cpus is not None:
        scenarios.append(("jailed, --cpus 1", jail))
    else:
        print("  (no writable cpuset controller here: --cpus needs root and cgroups)")
    for label, config in scenarios:
        calm: list[float] = []
        theft: list[float] = []
        for i in range(args.theft):
            calm += victim_work_us(config, False, 200 + i)
            theft += victim_work_us(config, True, 200 + i)
        r = statistics.median(theft) / statistics.median(calm)
        print(f"  {label:18s} no thief  {dist(calm)}")
        print(f"  {'':18s} thief     {dist(theft)}")
        target = "   (target <= 1.05)" if "cpus" in label and "no" not in label else ""
        print(f"  {'':18s} ratio x{r:.3f}{target}")


if __name__ == "__main__":
    main()
