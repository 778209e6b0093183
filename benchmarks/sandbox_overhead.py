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
    c_first, unjailed and jailed, interleaved start by start after one warm-up
    start of each (the first start of a process probes the machine). Target:
    <= 10 ms more per start: the median of the paired differences (each jailed
    start minus the unjailed start just before it).
(c) **CPU theft**: a victim that does a fixed amount of CPU work per decision
    (benchmarks/engines/cpu_victim.py, which times it) against a thief that
    keeps 4 busy processes in their own sessions and switches them on and off
    every 20-60 ms at random (benchmarks/engines/cpu_thief.py, which logs each
    switch); each of the victim's decisions is counted with theft or without by
    the thief's state over its whole span (decisions across a switch are left
    out), so both sides come from the same matches, interleaved: this machine's
    cores drift between two speeds for seconds at a time, which would swamp a
    comparison of separate matches. The ratio is the victim's median time per
    decision with theft / without, jailed without ``--cpus`` and with ``--cpus 1``.
    Target with --cpus: <= 1.05. Beside it, the floor: the same work and
    burners pinned to two cores with no referee and no jail (what a cpuset
    can give at best here). On a 2-core machine each seat has one core and the
    referee shares them.

The machine is shared: every figure is a distribution, interleaved so that its
state affects both sides alike.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bidref.engines import start_engine  # noqa: E402
from bidref.engines.spec import EngineSpec, resolve_engine  # noqa: E402
from bidref.match.referee import MatchSpec, run_match  # noqa: E402
from bidref.match.spec import LiveState  # noqa: E402
from bidref.players.make import engine_seats  # noqa: E402
from bidref.rules.clock import SECOND, TimeControl  # noqa: E402
from bidref.sandbox import Limits, SandboxConfig, machine, plan  # noqa: E402

C_FIRST = ROOT / "sample_engines" / "c_first" / "engine"
VICTIM = ROOT / "benchmarks" / "engines" / "cpu_victim.py"
THIEF = ROOT / "benchmarks" / "engines" / "cpu_thief.py"
VICTIM_WORK = 60_000  # loop turns per decision, as cpu_victim.py's WORK


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


Span = tuple[int, int, int]  # a decision's start and end (monotonic ns) and its CPU ns
Sample = tuple[float, float]  # a decision's wall time and CPU time, us


def victim_work_us(config: SandboxConfig | None, seed: int) -> tuple[list[Sample], list[Sample]]:
    """The victim's decisions against the switching thief, split by the
    thief's state: (without theft, with theft). A decision's wall time is the
    referee's, from the accepted action before it to the victim's (so it holds
    the victim's wake-up); its CPU time is the victim's own."""
    victim = jailed(resolve_engine(str(VICTIM)), config)
    thief = jailed(resolve_engine(str(THIEF)), config)
    accepted: list[tuple[int, str]] = []  # (monotonic ns, "A" or "B")

    def observe(state: LiveState) -> None:
        accepted.append((time.monotonic_ns(), (state.last or "?")[0]))

    with tempfile.TemporaryDirectory() as d:
        spec = MatchSpec(
            engines=(victim, thief),
            seed=seed,
            time_control=TimeControl(300 * SECOND, 10 * SECOND),
            max_rounds=8,
        )
        seats = engine_seats(spec.engines, "pipe", stderr_dir=Path(d))
        run_match(spec, seats=seats, observer=observe)
        work = next(Path(d).glob("A-*.stderr.log")).read_text().splitlines()
        switches = next(Path(d).glob("B-*.stderr.log")).read_text().splitlines()
    cpus = [int(w.split()[3]) for w in work if w.startswith("WORK ")]
    ends = [(t, who) for t, who in accepted]
    spans: list[Span] = []
    mine = 0  # the victim's decisions so far (its k-th WORK line is its k-th action)
    for k, (t, who) in enumerate(ends):
        if who != "A":
            continue
        if k > 0 and mine < len(cpus):
            spans.append((ends[k - 1][0], t, cpus[mine]))
        mine += 1
    flips = [(int(w.split()[2]), w.split()[1] == "ON") for w in switches if w.startswith("THIEF ")]
    return split_by_state(spans, flips)


def split_by_state(
    spans: list[Span], flips: list[tuple[int, bool]]
) -> tuple[list[Sample], list[Sample]]:
    """Each span as a sample, (without theft, with theft) by the state that held
    over the whole span; spans across a switch, or before the first, are left out."""
    calm: list[Sample] = []
    theft: list[Sample] = []
    flips = sorted(flips)
    for start, end, cpu in spans:
        before = [on for t, on in flips if t <= start]
        if not before or any(start < t < end for t, _ in flips):
            continue
        (theft if before[-1] else calm).append(((end - start) / 1000, cpu / 1000))
    return calm, theft


def floor_us(
    victim_core: int, thief_core: int, decisions: int
) -> tuple[list[Sample], list[Sample]]:
    """The physical floor of (c): this process pinned to ``victim_core`` does the
    victim's work ``decisions`` times while 4 burners pinned to ``thief_core``
    switch on and off as the thief's do; no referee, no jail."""
    burners = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:  # bounded: 60 s at most
            os.sched_setaffinity(0, {thief_core})
            end = time.monotonic() + 60
            while time.monotonic() < end:
                pass
            os._exit(0)
        burners.append(pid)
    flips: list[tuple[int, bool]] = [(time.monotonic_ns(), True)]
    done = threading.Event()

    def switch() -> None:
        on, rng = True, random.Random(1)
        while not done.wait(rng.uniform(0.020, 0.060)):
            on = not on
            for pid in burners:
                os.kill(pid, signal.SIGCONT if on else signal.SIGSTOP)
            flips.append((time.monotonic_ns(), on))

    mask = os.sched_getaffinity(0)
    spans: list[Span] = []
    try:
        os.sched_setaffinity(0, {victim_core})
        switcher = threading.Thread(target=switch, daemon=True)
        switcher.start()
        for _ in range(decisions):
            cpu = time.thread_time_ns()
            t = time.monotonic_ns()
            x = 0
            for i in range(VICTIM_WORK):
                x ^= i * i
            spans.append((t, time.monotonic_ns(), time.thread_time_ns() - cpu))
            time.sleep(0.0005)  # the victim waits for its next request
    finally:
        done.set()
        for pid in burners:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.sched_setaffinity(0, mask)
    return split_by_state(spans, flips)


def dist(xs: list[float]) -> str:
    q = statistics.quantiles(xs, n=10) if len(xs) > 1 else [xs[0]] * 9
    return f"p10 {q[0]:8.1f}  p50 {statistics.median(xs):8.1f}  p90 {q[8]:8.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=6)
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--theft", type=int, default=3, help="matches per theft scenario")
    ap.add_argument("--parts", default="abc", help="which parts to run, e.g. bc")
    args = ap.parse_args()
    m = machine()
    cpus = 1 if "cpuset" in m.controllers else None
    jail = SandboxConfig("auto", Limits(cpus=cpus))
    p = plan(jail)
    print(f"machine: {len(m.cores)} cores, root={m.root}, cgroup {m.cgroup}")
    print(f"jail: {'+'.join(p.active)} (missing: {', '.join(p.missing) or 'nothing'})")

    if "a" in args.parts:
        per_decision(args.matches, jail if cpus is not None else None)
    if "b" in args.parts:
        starts(args.starts, jail)
    if "c" in args.parts:
        theft(args.theft, jail if cpus is not None else None, m.cores)


def per_decision(matches: int, pinned: SandboxConfig | None) -> None:
    nocpu = SandboxConfig("auto", Limits(cpus=None))
    off_d: list[float] = []
    on_d: list[float] = []
    pin_d: list[float] = []
    for i in range(matches):
        off_d.append(per_decision_us(None, 100 + i))
        on_d.append(per_decision_us(nocpu, 100 + i))
        if pinned is not None:
            pin_d.append(per_decision_us(pinned, 100 + i))
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


def starts(count: int, jail: SandboxConfig) -> None:
    start_ms(None)
    start_ms(jail)  # warm-up: the first jailed start also starts the watchdog
    off_s: list[float] = []
    on_s: list[float] = []
    for _ in range(count):
        off_s.append(start_ms(None))
        on_s.append(start_ms(jail))
    print("\n(b) engine start to hello, ms (c_first)")
    print(f"  unjailed  {dist(off_s)}")
    print(f"  jailed    {dist(on_s)}")
    paired = statistics.median(b - a for a, b in zip(off_s, on_s, strict=True))
    print(f"  jailed - unjailed: median of paired differences +{paired:.1f} ms   (target <= 10 ms)")


def theft(matches: int, pinned: SandboxConfig | None, cores: tuple[int, ...]) -> None:
    print("\n(c) CPU theft: the victim's time per decision (us), theft / none, interleaved")
    if len(cores) >= 2:
        calm, stolen = floor_us(cores[-1], cores[0], matches * 400)
        report("floor: pinned, no referee", calm, stolen, "")
    scenarios = [("jailed, no --cpus", SandboxConfig("auto", Limits(cpus=None)))]
    if pinned is not None:
        scenarios.append(("jailed, --cpus 1", pinned))
    else:
        print("  (no writable cpuset controller here: --cpus needs root and cgroups)")
    for label, config in scenarios:
        calm, stolen = [], []
        for i in range(matches):
            c, t = victim_work_us(config, 200 + i)
            calm += c
            stolen += t
        target = "   (target <= 1.05)" if "cpus 1" in label else ""
        report(label, calm, stolen, target)


def report(label: str, calm: list[Sample], theft: list[Sample], target: str) -> None:
    """Three ratios, theft / none: of the median and of the mean wall time per
    decision (the issue's figure), and of the median stretch, wall / the victim's
    own CPU time: the share of its core it was denied, blind to the host's speed
    (a VM's core may run 1x-4x slower for seconds at a time)."""
    if len(calm) < 10 or len(theft) < 10:
        print(f"  {label:26s} too few decisions on one side ({len(calm)}, {len(theft)})")
        return
    wall_c, wall_t = [w for w, _ in calm], [w for w, _ in theft]
    stretch_c = statistics.median(w / max(c, 1.0) for w, c in calm)
    stretch_t = statistics.median(w / max(c, 1.0) for w, c in theft)
    print(f"  {label:26s} none   {dist(wall_c)}  (n={len(calm)})")
    print(f"  {'':26s} theft  {dist(wall_t)}  (n={len(theft)})")
    median = statistics.median(wall_t) / statistics.median(wall_c)
    mean = statistics.fmean(wall_t) / statistics.fmean(wall_c)
    print(
        f"  {'':26s} ratio x{mean:.3f} (means){target}, x{median:.3f} (medians), "
        f"stretch x{stretch_t / stretch_c:.3f} (wall/CPU {stretch_c:.3f} -> {stretch_t:.3f})"
    )


if __name__ == "__main__":
    main()
