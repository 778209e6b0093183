"""The referee's own work per decision, without any engine process.

Run::

    .venv/bin/python benchmarks/referee_work.py [--matches 10] [--transcript]
    .venv/bin/python benchmarks/referee_work.py --profile   # cProfile, top functions

Two in-process seats answer every request at once with its first legal action
(what the compiled ``c_first`` engine does), so the CPU time of the referee's thread
per decision (whole matches, start and end included, divided by the accepted
actions) is the referee's work alone: decoding the reply, applying the action, the transcript,
queueing events and building the next request — plus the few string
operations of the fake seat (finding the id and the first legal action in the
request). It complements ``referee_overhead.py``, whose ratio is
``1 + referee work / raw round trip``: this script measures the numerator with
no pipe, no scheduler noise and no second process.

``--transcript`` writes a transcript to a temporary file (flushed per line, as
in ``bidref match --transcript``).

Two ways of answering, measured one after the other:

- *at once*: a seat says its reply is already there (``has_input``), so the
  referee prepares nothing while it "thinks" — every reply takes the full path
  from reading it to writing the next request (what a very fast engine gets);
- *after preparing*: a seat that never says so, so the referee prepares every
  legal action first (what an engine that thinks a while gets) — more CPU in
  all, but a reply then only looks up its prepared branch.

For each, the CPU time per decision and the median time from a reply handed
to the referee to the next request handed to the seat (the referee's critical
path, wall clock in-process) are printed.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
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

from bidref.engines import EngineSpec, Incoming, Line  # noqa: E402
from bidref.match.referee import MatchSpec, run_match  # noqa: E402
from bidref.players.inprocess import InProcessSeat  # noqa: E402
from bidref.rules import TimeControl  # noqa: E402

_HELLO = '{"type":"hello","name":"inproc","author":"bench","version":"0","protocol":"bidref/1"}'


class InstantSeat(InProcessSeat):
    """Answers each request with its first legal action, at once, in-process, and
    notes the wall time from each reply it hands over to the next request."""

    def __init__(self, name: str, says_input: bool, paths: list[int]) -> None:
        self.name = name
        self.says_input = says_input
        self.queued: list[str] = []
        self.paths = paths  # reply handed over -> next request (ns), shared by both seats
        self.handed = [0]

    def has_input(self) -> bool:
        return self.says_input

    def send(self, text: str) -> int:
        now = time.perf_counter_ns()
        if self.handed[0]:
            self.paths.append(now - self.handed[0])
            self.handed[0] = 0
        last = text.rpartition("\n")[2]
        if last.startswith('{"type":"hello"'):
            self.queued.append(_HELLO)
        elif last.startswith('{"type":"request"'):
            rid = last[len('{"type":"request","id":') : last.index(",", 22)]
            i = last.rindex('"legal":["') + 9
            action = last[i : last.index('"', i + 1) + 1]
            self.queued.append(f'{{"type":"action","id":{rid},"action":{action}}}')
        return time.monotonic_ns()

    def receive(self, deadline: int | None) -> Incoming | None:
        line = Line(self.queued.pop(0), time.monotonic_ns())
        self.handed[0] = time.perf_counter_ns()
        return line

    def describe(self) -> dict[str, object]:
        return {
            "name": self.name,
            "command": ["(in-process)"],
            "cwd": None,
            "transport": "none",
            "stderr_log": None,
        }


def one_match(
    seed: int, transcript: Path | None, says_input: bool, paths: list[int]
) -> tuple[int, int]:
    """(CPU ns of this thread for the whole match, decisions)."""
    spec = MatchSpec(
        engines=(EngineSpec("inproc", ("none",)),) * 2,
        seed=seed,
        time_control=TimeControl.of_seconds(bank=120, delay=10),
    )
    seats = [InstantSeat("a", says_input, paths), InstantSeat("b", says_input, paths)]
    seats[1].handed = seats[0].handed
    t0 = time.thread_time_ns()
    out = run_match(spec, seats=seats, transcript_path=transcript)
    cpu = time.thread_time_ns() - t0
    assert out.reason == "balance", out.summary()
    return cpu, out.decisions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3, help="runs of all matches (best kept)")
    ap.add_argument("--transcript", action="store_true", help="write a transcript too")
    ap.add_argument("--profile", action="store_true", help="print a cProfile summary")
    ap.add_argument(
        "--pure",
        action="store_true",
        help="run the referee on pure Python even where a fresh compiled build exists",
    )
    args = ap.parse_args()
    from bidref.build.compiled import is_compiled

    print(f"referee on {'the compiled build' if is_compiled() else 'pure Python'}")
    what = "with transcript" if args.transcript else "no transcript"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl" if args.transcript else None
        for says_input, mode in ((True, "replies at once"), (False, "after preparing")):
            paths: list[int] = []
            one_match(0, path, says_input, paths)  # warm up
            if args.profile:
                prof = cProfile.Profile()
                prof.enable()
            per: list[float] = []
            total = 0
            for _ in range(args.repeat):
                paths.clear()
                cpu = 0
                total = 0
                for seed in range(args.matches):
                    ns, n = one_match(seed, path, says_input, paths)
                    cpu += ns
                    total += n
                per.append(cpu / total)
            if args.profile:
                prof.disable()
                pstats.Stats(prof).sort_stats("tottime").print_stats(25)
            print(
                f"{mode:16s} ({what}): CPU per decision best {min(per) / 1000:6.1f} us, "
                f"median {statistics.median(per) / 1000:6.1f} us of {args.repeat} runs; "
                f"reply -> next request {statistics.median(paths) / 1000:5.1f} us "
                f"(median; {total} decisions in {args.matches} matches)"
            )


if __name__ == "__main__":
    main()
