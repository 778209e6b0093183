"""Referee overhead: wall time per decision in real matches vs the physical floor.

Run (after `make -C sample_engines`)::

    .venv/bin/python benchmarks/referee_overhead.py [--pings 3000] [--matches 10]
        [--no-control] [--one-cpu] [--pure]

(a) the **physical floor** (the issue's, and the headline ratio's):
    ``benchmarks/engines/floor.c`` (built on first use), a small C program that
    writes a request-sized line to a C echo process and blocks on read() until
    the line is back, timing each round trip with CLOCK_MONOTONIC. No referee
    can answer a decision faster than one such round trip (fastchess runs at
    about 1.6x it);
(b) the wall time per decision inside real matches between two instant C
    engines (sample_engines/c_first), with the seats as ``run_match`` makes
    them (one I/O group for both engines): the time between consecutive
    replies the referee reads (the referee's work — applying the action,
    sending events to both engines, building and writing the next request —
    plus the engine's round trip). Its two parts are printed too: from a
    reply's stamp to the next request's stamp (the referee) and from there to
    the next reply's stamp (the engine and the pipes);
(c) unless ``--no-control``, the **same-bytes floor**: ``benchmarks/engines/replay.c``
    replays the request writes of a real match, byte for byte, to two fresh
    c_first engines, with no referee work at all between a reply and the next
    write. It is the floor for exactly what the referee sends (requests of
    about 1.6 kB, with their events); printed beside (a), never instead of it;
(d) with ``--spin-us N``, every match is played a second time with the
    referee's look before sleeping turned on (``IoGroup(spin_ns=N us)``; off by
    default), so the two can be compared in one run;
(e) with ``--transcript``, every match is played a second time with seats that
    cannot tell their CPU time (no ``/proc`` readings at each reply), so that the
    cost of the transcript's ``cpu_ns`` is printed beside the match with it;
(f) with ``--freeze-idle``, every match is played once more with the engine not
    on move stopped (``MatchSpec.freeze_idle``: SIGSTOP/SIGCONT per decision).

This VM's pipe round trip is bimodal and varies from run to run (medians from
about 8 us to 140 us: the two processes on one CPU or on two, idle-state
exits), so every figure is printed as a distribution (p10/p50/p90/p99), and the
blocks are interleaved — one floor block, one match, one replay per seed — so
that the machine's state affects all alike. Prints the ratio of the medians
(target <= 1.5, goal 1.2) and the p99 per decision (target <= 200 us).
``--transcript`` makes every match write its transcript (to a temporary
directory), as ``bidref match --transcript`` does.

For reference it also prints the Python ping (a ``ping`` through the same
transport to the C engine, waited for as the referee waits for a reply).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# The build `bidref match` runs: the compiled one where this checkout has it fresh.
if "--pure" not in sys.argv[1:]:
    from bidref.launch import select_build

    select_build()

from bidref.engines import EngineSpec, Incoming, IoGroup, Line, PipeTransport  # noqa: E402
from bidref.match.referee import MatchSpec, run_match  # noqa: E402
from bidref.players import EngineSeat  # noqa: E402
from bidref.rules import TimeControl  # noqa: E402

ENGINE = ROOT / "sample_engines" / "c_first" / "engine"
from benchmarks.engines.build import build  # noqa: E402

REQUEST_BYTES = 1650  # a request write with its events: median 1642 B (recorded_writes(0))


def floor_round_trips(n: int, size: int = REQUEST_BYTES) -> list[int]:
    """``n`` round trips (ns) of the C floor program."""
    out = subprocess.run(
        [str(build("floor")), str(n), str(size)], check=True, capture_output=True, text=True
    ).stdout
    return [int(x) for x in out.split()]


def pct(xs: list[int], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] / 1000


class RecordingSeat(EngineSeat):
    """An engine seat that keeps, in one list shared by both seats, every write
    that ends with a request, as (seat index, text)."""

    writes: list[tuple[int, str]]
    index: int

    def send(self, text: str) -> int:
        if text.rpartition("\n")[2].startswith('{"type":"request"'):
            self.writes.append((self.index, text))
        return super().send(text)


def recorded_writes(seed: int) -> list[tuple[int, str]]:
    """The request writes of one real match between two C engines."""
    spec = MatchSpec(
        engines=(EngineSpec("c_first", (str(ENGINE),)),) * 2,
        seed=seed,
        time_control=TimeControl.of_seconds(bank=120, delay=10),
    )
    writes: list[tuple[int, str]] = []
    seats = [RecordingSeat(e) for e in spec.engines]
    for i, s in enumerate(seats):
        s.writes = writes
        s.index = i
    run_match(spec, seats=seats)
    return writes


def same_bytes_intervals(writes: list[tuple[int, str]], folder: Path) -> list[int]:
    """Reply-to-reply intervals (ns) when a C program sends ``writes`` to two
    c_first engines with no referee work in between (``benchmarks/engines/replay.c``)."""
    path = folder / "writes.bin"
    if not path.exists():
        with path.open("wb") as f:
            for seat, text in writes:
                data = (text + "\n").encode()
                f.write(f"{seat} {len(data)}\n".encode() + data)
    out = subprocess.run(
        [str(build("replay")), str(path), str(ENGINE)], check=True, capture_output=True, text=True
    ).stdout
    return [int(x) for x in out.split()]


class TimingSeat(EngineSeat):
    """An engine seat that notes the clock time of every line it reads, and of the
    end of every write."""

    stamps: list[int]
    sends: list[int]

    def send(self, text: str) -> int:
        t = super().send(text)
        self.sends.append(t)
        return t

    def receive(self, deadline: int | None) -> Incoming | None:
        got = super().receive(deadline)
        if isinstance(got, Line):
            self.stamps.append(got.t)
        return got


class NoCpuTimingSeat(TimingSeat):
    """A timing seat that cannot tell its engine's CPU time: the referee reads none."""

    cpu_ns = None  # type: ignore[assignment]


def raw_round_trips(n: int, busy: bool = False) -> tuple[list[int], list[int]]:
    """(full round trips, write-end-to-stamp times) of ``n`` pings, in ns; ``busy``:
    look for the pong in a loop instead of sleeping until it is handed over."""
    t = PipeTransport([str(ENGINE)])
    full: list[int] = []
    charged: list[int] = []
    clock = time.monotonic_ns
    try:
        for i in range(n):
            t0 = clock()
            sent = t.write_line(f'{{"type":"ping","id":{i}}}')
            while not t.has_input() and busy:
                pass
            got = t.read(None)
            t1 = clock()
            assert isinstance(got, Line) and got.text.startswith('{"type":"pong"'), got
            full.append(t1 - t0)
            charged.append(max(0, got.t - sent))
    finally:
        t.close('{"type":"quit"}', 500_000_000)
    return full, charged


def decision_times(
    seed: int,
    transcript: Path | None = None,
    spin_ns: int | None = None,
    cpu: bool = True,
    freeze_idle: bool = False,
) -> tuple[list[int], int, list[int], list[int]]:
    """Reply-to-reply intervals (ns) in one match between two C engines, its
    decisions, and the two parts of each interval: reply stamped -> next request
    stamped (the referee) and request stamped -> next reply stamped (the engine
    and the transport). The seats share one I/O group, as in ``run_match``;
    ``spin_ns``: the group's look before sleeping (None: the default)."""
    spec = MatchSpec(
        engines=(EngineSpec("c_first", (str(ENGINE),)),) * 2,
        seed=seed,
        time_control=TimeControl.of_seconds(bank=120, delay=10),
        freeze_idle=freeze_idle,
    )
    group = IoGroup() if spin_ns is None else IoGroup(spin_ns=spin_ns)
    kind = TimingSeat if cpu else NoCpuTimingSeat
    seats = [kind(e, group=group) for e in spec.engines]
    for s in seats:
        s.stamps = []
        s.sends = []
    out = run_match(spec, seats=seats, transcript_path=transcript)
    assert out.reason == "balance", out.summary()
    stamps = sorted(seats[0].stamps[1:] + seats[1].stamps[1:])  # [0] is the hello
    timeline = sorted(
        [(t, "r") for t in stamps] + [(t, "s") for t in seats[0].sends[1:] + seats[1].sends[1:]]
    )
    referee = [b[0] - a[0] for a, b in itertools.pairwise(timeline) if a[1] + b[1] == "rs"]
    engine = [b[0] - a[0] for a, b in itertools.pairwise(timeline) if a[1] + b[1] == "sr"]
    return [b - a for a, b in itertools.pairwise(stamps)], out.decisions, referee, engine


def spread(xs: list[int]) -> str:
    """p10/p50/p90/p99 in us."""
    return "  ".join(f"p{int(q * 100)} {pct(xs, q):7.1f}" for q in (0.1, 0.5, 0.9, 0.99))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pings", type=int, default=3000)
    ap.add_argument("--matches", type=int, default=10)
    ap.add_argument(
        "--transcript",
        action="store_true",
        help="write each match's transcript (to a temporary directory)",
    )
    ap.add_argument(
        "--control",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also replay a match's writes from C with no referee work (the same-bytes floor)",
    )
    ap.add_argument(
        "--one-cpu",
        action="store_true",
        help="run everything (floor, referee, engines) on one CPU: the floor's fast mode, always",
    )
    ap.add_argument(
        "--spin-us",
        type=int,
        default=0,
        help="also play every match with the look before sleeping on, for up to N us",
    )
    ap.add_argument(
        "--freeze-idle",
        action="store_true",
        help="also play every match with the engine not on move stopped (--freeze-idle)",
    )
    ap.add_argument(
        "--pure",
        action="store_true",
        help="run the referee on pure Python even where a fresh compiled build exists",
    )
    args = ap.parse_args()
    from bidref.build.compiled import is_compiled

    print(f"referee on {'the compiled build' if is_compiled() else 'pure Python'}")
    if args.one_cpu:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})  # every process started from here inherits it
        print(f"every process on CPU {cpu} (--one-cpu)")
    tmp = tempfile.TemporaryDirectory()
    if not ENGINE.exists():
        subprocess.run(["make", "-C", str(ROOT / "sample_engines")], check=True)
    raw_round_trips(200)  # warm up
    floor_round_trips(200)
    # Interleave floor blocks, matches and replays, so that load from elsewhere
    # on the machine (and this VM's changing pipe speed) affects all alike.
    floor: list[int] = []
    raw: list[int] = []
    per: list[int] = []
    per_spin: list[int] = []
    per_nocpu: list[int] = []
    per_frozen: list[int] = []
    referee_nocpu: list[int] = []
    referee: list[int] = []
    engine: list[int] = []
    decisions = 0
    same: list[int] = []
    writes = recorded_writes(0) if args.control else []
    t0 = time.perf_counter()
    for seed in range(args.matches):
        floor += floor_round_trips(args.pings // args.matches)
        raw += raw_round_trips(args.pings // args.matches // 3)[0]
        transcript = Path(tmp.name) / f"{seed}.jsonl" if args.transcript else None
        intervals, n, ref, eng = decision_times(seed, transcript)
        per += intervals
        referee += ref
        engine += eng
        decisions += n
        if args.spin_us:
            per_spin += decision_times(seed, transcript, spin_ns=args.spin_us * 1000)[0]
        if args.freeze_idle:
            per_frozen += decision_times(seed, transcript, freeze_idle=True)[0]
        if transcript is not None:
            intervals, _, ref, _ = decision_times(seed, transcript, cpu=False)
            per_nocpu += intervals
            referee_nocpu += ref
        if writes:
            same += same_bytes_intervals(writes, Path(tmp.name))
    wall = time.perf_counter() - t0
    tmp.cleanup()
    floor_med = statistics.median(floor) / 1000
    per_med = statistics.median(per) / 1000
    print(f"physical floor (C writer <-> C echo, {REQUEST_BYTES} B line, {len(floor)} round trips)")
    print(f"  {spread(floor)} us")
    if same:
        print(f"same-bytes floor (C replay of a match's writes to c_first, {len(same)} decisions)")
        print(f"  {spread(same)} us")
    what = "C vs C, transcript" if args.transcript else "C vs C"
    print(
        f"wall time per decision ({what}; {decisions} decisions in {args.matches} matches, "
        f"{wall:.2f} s in all)"
    )
    print(f"  {spread(per)} us")
    print(
        f"  parts (medians): reply stamped -> next request stamped "
        f"{statistics.median(referee) / 1000:.1f} us (referee); -> next reply stamped "
        f"{statistics.median(engine) / 1000:.1f} us (engine and pipes)"
    )
    if per_nocpu:
        print("wall time per decision, the same matches without the CPU time readings")
        print(f"  {spread(per_nocpu)} us")
        print(
            f"  referee part (median): {statistics.median(referee_nocpu) / 1000:.1f} us "
            f"without, {statistics.median(referee) / 1000:.1f} us with the readings (cpu_ns)"
        )
    if per_frozen:
        print("wall time per decision with --freeze-idle (same matches)")
        print(f"  {spread(per_frozen)} us")
    if per_spin:
        print(f"wall time per decision, looking {args.spin_us} us before sleeping (same matches)")
        spin_ratio = statistics.median(per_spin) / 1000 / floor_med
        print(f"  {spread(per_spin)} us  (ratio {spin_ratio:.2f})")
    print(
        f"for reference, a Python ping through the transport: median "
        f"{statistics.median(raw) / 1000:7.1f} us"
    )
    if same:
        same_med = statistics.median(same) / 1000
        print(
            f"ratio per-decision / same-bytes floor: {per_med / same_med:.2f}  "
            f"(same-bytes / physical floor: {same_med / floor_med:.2f})"
        )
        if same_med / floor_med > 1.5:
            # The C replay does no referee work at all: what it costs beyond the
            # floor is the second engine process and the real engine's reading.
            print(
                f"  a referee doing no work at all (the C replay) is at "
                f"{same_med / floor_med:.2f}x the physical floor in this run, "
                "above the 1.5x target"
            )
    print(
        f"ratio per-decision / physical floor: {per_med / floor_med:.2f}  "
        f"(target <= 1.5, goal 1.2); p99 per decision {pct(per, 0.99):.1f} us "
        "(target <= 200)"
    )


if __name__ == "__main__":
    main()
