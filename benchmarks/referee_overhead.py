"""Referee overhead: per-decision wall time in real matches vs a raw ping round trip.

Run (after `make -C sample_engines`)::

    .venv/bin/python benchmarks/referee_overhead.py [--pings 3000] [--matches 10]

(a) the raw round trip: a ``ping`` line written to the compiled first-legal C
    engine over the pipe transport until its ``pong`` line is back in the
    caller's hands (from the start of the write call to the return of ``read``).
    It waits the way the referee waits for a reply: one look for bytes already
    there (``has_input``, which takes them at once), then ``read``, which
    sleeps until the reader thread hands the line over. The time from the end
    of the write to the reply's stamp (what an engine is charged) is printed too;
(b) the wall time per decision inside real matches between two of those engines:
    the time between consecutive replies the referee reads (which includes the
    referee's work — applying the action, sending events to both engines,
    building and writing the next request — and the engine's round trip). The
    referee prepares where each legal action leads while the engine thinks,
    looking for the reply between two branches and taking it at once when it
    is there; a reply that comes after that waits for the hand-over, as a ping
    does. Its
    two parts are printed too: from a reply's stamp to the end of the next
    request's write (the hand-over from the reader thread and the referee's
    work), and from there to the next reply's stamp (the engine reading the
    request with its events, choosing, and the transport).

Prints both medians and their ratio; the target is a ratio <= 1.5. With
``--transcript`` every match also writes its transcript (to a temporary
directory), as ``bidref match --transcript`` does.

``--control`` adds (c): the same request writes as in a real match (events
and request, byte for byte, to the same seat), replayed to two fresh engines
with no referee work between a reply and the next write, each reply waited
for as a ping is (one look, then sleep until the hand-over).

For reference it also prints a ping that never sleeps (it looks for the reply
in a loop until it is there). On a virtual machine whose idle CPUs are parked,
a process that sleeps pays tens of microseconds to be woken, and that is most
of (a): the busy loop shows the round trip without it. The referee does not
busy-wait — an engine may think for minutes — but it does not sleep while it
has branches to prepare, which is why (b) can come out below (c).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bidref.engines import EngineSpec, Incoming, Line, PipeTransport  # noqa: E402
from bidref.players import EngineSeat  # noqa: E402
from bidref.referee import MatchSpec, run_match  # noqa: E402
from bidref.rules import TimeControl  # noqa: E402

ENGINE = ROOT / "sample_engines" / "c_first" / "engine"


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


def control_intervals(writes: list[tuple[int, str]]) -> list[int]:
    """Reply-to-reply intervals (ns) when ``writes`` go to two engines with no
    referee work in between: each reply read is followed at once by the next write."""
    ts = [PipeTransport([str(ENGINE)]) for _ in range(2)]
    stamps: list[int] = []
    try:
        for t in ts:
            t.write_line('{"type":"hello","seat":0}')
            t.read(None)
        for seat, text in writes:
            ts[seat].write_line(text)
            got = ts[seat].read(None)
            assert isinstance(got, Line) and got.text.startswith('{"type":"action"'), got
            stamps.append(got.t)
    finally:
        for t in ts:
            t.close('{"type":"quit"}', 500_000_000)
    return [b - a for a, b in itertools.pairwise(stamps)]


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
    seed: int, transcript: Path | None = None
) -> tuple[list[int], int, list[int], list[int]]:
    """Reply-to-reply intervals (ns) in one match between two C engines, its
    decisions, and the two parts of each interval: reply stamped -> next write
    done (the referee, incl. the hand-over from the reader thread) and write done
    -> next reply stamped (the engine and the transport)."""
    spec = MatchSpec(
        engines=(EngineSpec("c_first", (str(ENGINE),)),) * 2,
        seed=seed,
        time_control=TimeControl.of_seconds(bank=120, delay=10),
    )
    seats = [TimingSeat(e) for e in spec.engines]
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
        action="store_true",
        help="also replay a match's writes with no referee work (the floor)",
    )
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    if not ENGINE.exists():
        subprocess.run(["make", "-C", str(ROOT / "sample_engines")], check=True)
    raw_round_trips(200)  # warm up
    # Interleave ping blocks and matches, so that load from elsewhere on the
    # machine affects both measurements alike.
    raw: list[int] = []
    busy: list[int] = []
    charged: list[int] = []
    per: list[int] = []
    referee: list[int] = []
    engine: list[int] = []
    decisions = 0
    control: list[int] = []
    writes = recorded_writes(0) if args.control else []
    t0 = time.perf_counter()
    for seed in range(args.matches):
        full, ch = raw_round_trips(args.pings // args.matches)
        raw += full
        charged += ch
        busy += raw_round_trips(args.pings // args.matches // 3, busy=True)[0]
        intervals, n, ref, eng = decision_times(
            seed, Path(tmp.name) / f"{seed}.jsonl" if args.transcript else None
        )
        per += intervals
        referee += ref
        engine += eng
        decisions += n
        if writes:
            control += control_intervals(writes)
    wall = time.perf_counter() - t0
    tmp.cleanup()
    raw_med = statistics.median(raw) / 1000
    per_med = statistics.median(per) / 1000
    print(
        f"raw ping round trip (C engine, pipe): median {raw_med:8.1f} us  "
        f"({len(raw)} pings; write end to reply stamp: "
        f"{statistics.median(charged) / 1000:.1f} us)"
    )
    what = "C vs C, transcript" if args.transcript else "C vs C"
    pad = " " * max(1, 12 - len(what))
    print(
        f"wall time per decision ({what}):{pad}median {per_med:8.1f} us  "
        f"({decisions} decisions in {args.matches} matches; {wall:.2f} s in all)"
    )
    ref_med = statistics.median(referee) / 1000
    eng_med = statistics.median(engine) / 1000
    print(
        f"  parts (medians): reply stamped -> next request written {ref_med:.1f} us "
        f"(referee); written -> reply stamped {eng_med:.1f} us (engine)"
    )
    if control:
        ctl_med = statistics.median(control) / 1000
        print(
            f"control: the same writes, no referee work: median {ctl_med:8.1f} us  "
            f"(ratio {ctl_med / raw_med:.2f})"
        )
    busy_med = statistics.median(busy) / 1000
    print(
        f"for reference, a ping that never sleeps:   median {busy_med:8.1f} us  "
        f"(decisions take {per_med / busy_med:.1f}x that)"
    )
    print(f"ratio per-decision / raw round trip:  {per_med / raw_med:.2f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
