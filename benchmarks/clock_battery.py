"""The clock battery: do the clock promises of docs/match.md hold with real processes?

Run::

    .venv/bin/python benchmarks/clock_battery.py [--quick] [--tolerance-ms 1]

Real matches between two copies of ``benchmarks/engines/clock_engine.c`` (built
on first use), an engine that stamps with CLOCK_MONOTONIC when it got each
request and when it wrote each reply, and answers at a chosen offset from the
deadline it was given, counted from its own receipt. The transcript header's
``monotonic_origin_ns`` puts the referee's deadlines on the same clock, so each
reply's true margin is known:

- **in time** (X = 5, 2, 1 ms before): the reply was fully written before the
  referee's deadline; losing on time is a *false loss*;
- **late** (+2, +5 ms): the reply was started after deadline + tolerance;
  accepting it is a *late reply accepted*;
- each at 1 and at 4 matches at once (the machine has 2 cores);
- **stall**: at its 3rd request the engine SIGSTOPs the referee, writes its
  reply 20 ms before the deadline and SIGCONTs it 300 ms later: the match must
  end aborted, unrated (a referee timing fault, with the lateness recorded);
  when the engine itself was scheduled too late to write before the deadline,
  the case is reported as inconclusive;
- **flood**: at its 3rd request the engine sends 12 rules requests and never
  reads again: it must lose on time at its deadline, and the referee must be
  done within deadline + 1 s.

Prints, per case: trials, false losses, late replies accepted, aborts, and the
detection latency of time losses (deadline -> the referee's timeout line) and
the time until the other engine read its ``match_ended`` event, p50/p99. Exits
1 on any false loss, late reply accepted, or a stall / flood case that did not
end as promised. Replies inside the tolerance band (written after the
deadline, started before deadline + tolerance) may go either way and are only
counted.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.engines.build import build  # noqa: E402
from bidref.engines import EngineSpec  # noqa: E402
from bidref.match.referee import MatchSpec, run_match  # noqa: E402
from bidref.rules import MILLISECOND, TimeControl  # noqa: E402
from bidref.transcript.expand import expanded_lines  # noqa: E402

MS = MILLISECOND


@dataclass(frozen=True)
class Job:
    offset_us: int
    seed: int
    delay_ms: int
    max_rounds: int
    tolerance_ns: int
    tmp: str
    mode: str = ""  # "", "stall" or "flood" (seat A, at its 3rd request)


def play(job: Job) -> dict[str, Any]:
    """One match (in a worker process); what the analysis needs."""
    logging.disable(logging.WARNING)
    engine = str(build("clock_engine"))
    tag = f"{job.mode or 'x'}{job.offset_us}-{job.seed}"
    logs = [f"{job.tmp}/{tag}-{s}.log" for s in "AB"]
    extra = (job.mode, "3") if job.mode else ()
    engines = (
        EngineSpec("clock_a", (engine, str(job.offset_us), logs[0], *extra)),
        # (in the stall and flood cases the other engine answers in mid-delay)
        EngineSpec(
            "clock_b",
            (engine, str(job.offset_us if not job.mode else -job.delay_ms * 500), logs[1]),
        ),
    )
    spec = MatchSpec(
        engines=engines,
        seed=job.seed,
        time_control=TimeControl(bank=0, delay=job.delay_ms * MS),
        max_rounds=job.max_rounds,
        timing_tolerance_ns=job.tolerance_ns,
    )
    path = Path(f"{job.tmp}/{tag}.jsonl")
    out = run_match(spec, transcript_path=path)
    done = time.monotonic_ns()
    return {
        "job": job,
        "reason": out.reason,
        "rated": out.rated,
        "detail": out.end.to_dict(),
        "done_ns": done,
        "transcript": path.read_text(),
        "logs": [Path(p).read_text() if Path(p).exists() else "" for p in logs],
    }


@dataclass
class Tally:
    trials: int = 0
    false_losses: int = 0
    late_accepted: int = 0
    band: int = 0
    aborted: int = 0
    detect_ns: list[int] = field(default_factory=list)
    told_ns: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def analyse(res: dict[str, Any], tally: Tally) -> None:
    job: Job = res["job"]
    # bidref-transcript/2 leaves out what replay derives (a request's deadline, a
    # reply's charge): read the lines spelled out, as a /1 writer would have them
    lines = expanded_lines(res["transcript"].encode())
    origin = lines[0]["monotonic_origin_ns"]
    deadline: dict[tuple[int, int], int] = {}
    status: dict[tuple[int, int], str] = {}
    timeout: dict[str, Any] | None = None
    for x in lines:
        if x["type"] in ("request", "retry"):
            deadline[(x["seat"], x["id"])] = origin + x["deadline_ns"]
        elif x["type"] == "reply":
            timed_out = x["charge"]["timed_out"]
            status[(x["seat"], x["id"])] = "late" if timed_out else x["status"]
        elif x["type"] == "timeout":
            timeout = x
    result = lines[-1]
    lost_on_time = result["reason"] == "time"
    if result["reason"] == "aborted":
        tally.aborted += 1
    last_request = {}
    for x in lines:
        if x["type"] == "request":
            last_request[x["seat"]] = x["id"]
    for seat, log in enumerate(res["logs"]):
        for row in log.splitlines():
            kind, *vals = row.split()
            if kind != "R":
                continue
            rid, _received, started, written = (int(v) for v in vals)
            dl = deadline.get((seat, rid))
            if dl is None:
                continue
            tally.trials += 1
            judged = status.get((seat, rid))
            lost_here = (
                lost_on_time
                and result["detail"].get("seat") == seat
                and last_request.get(seat) == rid
                and judged in (None, "late")
            )
            if written < dl:
                if lost_here:
                    tally.false_losses += 1
                    tally.problems.append(
                        f"false loss: seat {seat} id {rid} written "
                        f"{(dl - written) / 1e6:.3f} ms before the deadline ({job})"
                    )
            elif started > dl + job.tolerance_ns:
                if judged == "accepted":
                    tally.late_accepted += 1
                    tally.problems.append(
                        f"late reply accepted: seat {seat} id {rid} started "
                        f"{(started - dl) / 1e6:.3f} ms after the deadline ({job})"
                    )
            else:
                tally.band += 1
    if timeout is not None:
        seat = timeout["seat"]
        dl = deadline[(seat, last_request[seat])]
        tally.detect_ns.append(origin + timeout["t_ns"] - dl)
        other = res["logs"][1 - seat]
        told = [int(r.split()[1]) for r in other.splitlines() if r.startswith("E ")]
        if told:
            tally.told_ns.append(told[0] - dl)
    if job.mode == "stall":
        rows = [r.split() for r in res["logs"][0].splitlines() if r.startswith("R ")]
        rid, written = (int(rows[-1][1]), int(rows[-1][4])) if rows else (-1, 0)
        dl = deadline.get((0, rid))
        if dl is None or written >= dl:
            tally.notes.append(
                "stall case inconclusive: the engine itself wrote its reply after the "
                "deadline (it was not scheduled in time)"
            )
        elif (result["reason"], result["rated"]) != ("aborted", False):
            tally.problems.append(
                f"stall case: a reply written {(dl - written) / 1e6:.1f} ms before the "
                f"deadline ended {result['reason']} (rated {result['rated']})"
            )
    if job.mode == "flood":
        seat_ok = result["reason"] == "time" and result["detail"].get("seat") == 0
        if not seat_ok:
            tally.problems.append(f"flood case ended {result['reason']} {result['detail']}")
        elif timeout is not None:
            dl = deadline[(0, last_request[0])]
            if res["done_ns"] - dl > 1_000_000_000:
                tally.problems.append(
                    f"flood case: referee done {(res['done_ns'] - dl) / 1e9:.2f} s "
                    "after the deadline"
                )


def p(xs: list[int], q: float) -> str:
    if not xs:
        return "   -   "
    s = sorted(xs)
    return f"{s[min(len(s) - 1, int(q * len(s)))] / 1e6:7.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer matches per case")
    ap.add_argument("--tolerance-ms", type=float, default=1.0)
    ap.add_argument("--scale", type=int, default=1, help="run N times as many matches")
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # the timing faults are counted, not logged
    tol = round(args.tolerance_ms * MS)
    build("clock_engine")
    tmp = tempfile.TemporaryDirectory()
    n_early = (2 if args.quick else 4) * args.scale
    n_late = (4 if args.quick else 8) * args.scale
    cases: list[tuple[str, int, list[Job]]] = []
    seed = 100
    for conc in (1, 4):
        for x in (-5000, -2000, -1000):
            jobs = [Job(x, seed + i, 20, 1, tol, tmp.name) for i in range(n_early * conc)]
            cases.append((f"{x / -1000:g} ms before, {conc} at once", conc, jobs))
            seed += 100
        for x in (2000, 5000):
            jobs = [Job(x, seed + i, 20, 1, tol, tmp.name) for i in range(n_late * conc // 2)]
            cases.append((f"{x / 1000:g} ms late, {conc} at once", conc, jobs))
            seed += 100
    stalls = [Job(-20000, 7 + i, 100, 1, tol, tmp.name, "stall") for i in range(2 * args.scale)]
    cases.append(("stall 300 ms", 1, stalls))
    cases.append(("flood, then no reading", 1, [Job(-5000, 8, 200, 1, tol, tmp.name, "flood")]))
    print(
        f"{'case':32} {'trials':>6} {'false':>5} {'late ok':>7} {'band':>4} {'abort':>5}  "
        f"{'detect p50/p99 ms':>17}  {'told p50/p99 ms':>15}"
    )
    failed = False
    started = time.monotonic()
    for name, conc, jobs in cases:
        tally = Tally()
        with ProcessPoolExecutor(max_workers=conc) as pool:
            for res in pool.map(play, jobs):
                analyse(res, tally)
        print(
            f"{name:32} {tally.trials:6} {tally.false_losses:5} {tally.late_accepted:7} "
            f"{tally.band:4} {tally.aborted:5}  "
            f"{p(tally.detect_ns, 0.5)}/{p(tally.detect_ns, 0.99)}"
            f"  {p(tally.told_ns, 0.5)}/{p(tally.told_ns, 0.99)}"
        )
        for problem in tally.problems:
            print(f"  ! {problem}")
        for note in tally.notes:
            print(f"  - {note}")
        failed = failed or bool(tally.problems)
    print(f"({time.monotonic() - started:.1f} s; tolerance {args.tolerance_ms:g} ms)")
    tmp.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
