"""How fast `bidref replay` verifies transcripts and the layout picture renders.

Usage: python benchmarks/replay_speed.py [TRANSCRIPT]

Without an argument it first plays a match between two sample engines (through
`bidref match`, seed 7) to have a transcript. Prints lines verified per second
and the time to draw a layout picture.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bidref.render.layout import layout_text
from bidref.rules import Match
from bidref.transcript.replay import replay


def main() -> None:
    if len(sys.argv) > 1:
        data = Path(sys.argv[1]).read_bytes()
    else:
        root = Path(__file__).resolve().parents[1]
        engines = root / "sample_engines"
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "t.jsonl"
            subprocess.run(
                [
                    str(Path(sys.executable).parent / "bidref"),
                    "match",
                    str(engines / "python_random" / "engine.py"),
                    str(engines / "python_greedy" / "engine.py"),
                    "--seed",
                    "7",
                    "--transcript",
                    str(out),
                ],
                check=True,
                capture_output=True,
            )
            data = out.read_bytes()
    n_lines = data.count(b"\n")
    runs = 20
    t0 = time.perf_counter()
    for _ in range(runs):
        report = replay(data)
    dt = (time.perf_counter() - t0) / runs
    print(
        f"replay: {n_lines} lines verified in {dt * 1000:.1f} ms "
        f"({n_lines / dt:,.0f} lines/s); exit code {report.exit_code}"
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
