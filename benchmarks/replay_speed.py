"""How fast `bidref replay` verifies transcripts, beside the raw parse of the same file.

Usage: python benchmarks/replay_speed.py [TRANSCRIPT] [--pure-only]

Without an argument it first plays the issue's match — c_first against
python_greedy, seed 7, at most 30 rounds, bank 60 s, delay 1 s — through
`bidref match` to have a transcript (bidref-transcript/2). In one run it prints
for that file: accepted decisions and bytes per decision; `replay` verify-only
(no steps to show: `bidref replay --check`), and with the steps `bidref replay`
shows, in decisions per second; the raw parse of the same file (plain
``json.loads`` of every line); and the same for the v1 sample checked in under
tests/transcript/data; and ``bidref validate`` of the move file that ``bidref
replay --moves`` exports from the match (issue 15: "validate no slower than
today"). Target: replay >= 30,000 decisions/s on one core. CPU time
(process_time) is measured, best of several
runs, so that other work on a shared machine counts less.

Where the checkout has a fresh compiled build (``make compiled``; the ``bidref``
program runs on it, docs/perf.md), the same file is replayed there too, in a
child process started right after, and the target is judged on it: that is
what ``bidref replay`` does. Both builds' figures are printed. To compare two
trees, run this script from each in turn (PYTHONPATH=TREE) on the same TRANSCRIPT.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bidref.build.compiled import fresh_build, is_compiled
from bidref.movefile.validate import validate_bytes
from bidref.render.layout import layout_text
from bidref.rules import Match
from bidref.transcript.export import move_file_text
from bidref.transcript.files import read_bytes
from bidref.transcript.replay import replay

ROOT = Path(__file__).resolve().parents[1]
TARGET = 30_000


def play() -> bytes:
    engines = ROOT / "sample_engines"
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "t.jsonl"
        subprocess.run(
            [
                str(Path(sys.executable).parent / "bidref"),
                "match",
                str(engines / "c_first" / "engine"),
                str(engines / "python_greedy" / "engine.py"),
                *("--seed", "7", "--max-rounds", "30", "--bank", "60", "--delay", "1"),
                *("--transcript", str(out)),
            ],
            check=True,
            capture_output=True,
        )
        return out.read_bytes()


def best(fn: Callable[[], object], runs: int = 7) -> float:
    t = 1e9
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        t = min(t, time.process_time() - t0)
    return t


def measure(label: str, data: bytes) -> float:
    report = replay(data, steps=False)
    assert report.exit_code == 0, report.problem
    n = report.decisions
    verify = best(lambda: replay(data, steps=False))
    shown = best(lambda: replay(data))
    parse = best(lambda: [json.loads(x) for x in data.splitlines()])
    print(
        f"{label}: {report.format}, {report.lines} lines, {n} decisions, "
        f"{len(data) / n:,.0f} bytes per decision"
    )
    print(f"  replay (verify)        {verify * 1000:7.1f} ms  {n / verify:9,.0f} decisions/s")
    print(f"  replay (with steps)    {shown * 1000:7.1f} ms  {n / shown:9,.0f} decisions/s")
    print(f"  json.loads (raw parse) {parse * 1000:7.1f} ms  {n / parse:9,.0f} decisions/s")
    return n / verify


def measure_validate(data: bytes) -> None:
    moves = move_file_text(replay(data), "match").encode()
    verdict = validate_bytes(moves)
    assert verdict.ok, verdict
    n = replay(data, steps=False).decisions
    t = best(lambda: validate_bytes(moves))
    print(
        f"validate (its move file, {len(moves):,} bytes) "
        f"{t * 1000:5.1f} ms  {n / t:9,.0f} decisions/s"
    )


def compiled_rate(path: Path) -> float | None:
    """Replay ``path`` on the compiled build in a child; its rate, or None if
    there is no fresh build."""
    build = fresh_build(ROOT)
    if build is None:
        print("compiled build: none fresh (make compiled), so only pure Python is measured")
        return None
    env = {**os.environ, "PYTHONPATH": str(build)}
    proc = subprocess.run(
        [sys.executable, __file__, str(path), "--child"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = proc.stdout.splitlines()
    print("\n".join(lines[:-1]))
    return float(lines[-1])


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--child" in sys.argv:  # the compiled build's figures, then its rate alone
        assert is_compiled(), "the child should run on the compiled build"
        rate = measure("match, compiled build", read_bytes(Path(args[0])))
        print(rate)
        return
    data = read_bytes(Path(args[0])) if args else play()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "t.jsonl"
        path.write_bytes(data)
        rate = measure("match, pure Python", data)
        pure = rate
        if "--pure-only" not in sys.argv:
            rate = compiled_rate(path) or rate
    measure_validate(data)
    measure("v1 sample", (ROOT / "tests" / "transcript" / "data" / "v1-sample.jsonl").read_bytes())
    verdict = "meets" if rate >= TARGET else "is below"
    build = "pure Python" if rate == pure else "the compiled build"
    print(
        f"replay verifies {rate:,.0f} decisions/s on {build}: {verdict} the target "
        f"of {TARGET:,} (pure Python: {pure:,.0f})"
    )
    layouts = []
    for seed in range(20):
        m = Match.new(seed)
        while not m.over and len(m.layout.placed) < 14:
            m.apply(m.legal_actions()[0])
        layouts.append(m.layout.copy())
    t0 = time.perf_counter()
    for lay in layouts * 10:
        layout_text(lay, 100)
    dt = (time.perf_counter() - t0) / (len(layouts) * 10)
    print(f"layout picture: {dt * 1e6:.0f} µs per layout (up to 14 tiles, width 100)")


if __name__ == "__main__":
    main()
