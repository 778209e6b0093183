"""Start-up time of `bidref --help`, side by side with the interpreter's own.

Usage: python benchmarks/startup.py [ROUNDS]

Runs, interleaved ROUNDS times (default 15) so that a loaded machine slows all
alike: `python -c pass` (the floor: the interpreter and site), `bidref --help`,
`bidref --version`, and for context `bidref match --help` (the whole typer app
with every command) and `python -c "import typer"`. Each is a fresh process,
as a user's shell would start it (the `bidref` script of this environment).
Prints the median wall time of each and its ratio to `python -c pass`; the
target is `bidref --help` within 3x.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _bidref() -> list[str]:
    script = Path(sys.executable).with_name("bidref")
    if script.exists():
        return [str(script)]
    found = shutil.which("bidref")
    if found:
        return [found]
    return [sys.executable, "-c", "from bidref.cli import main; main()"]


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    bidref = _bidref()
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "bidref --help": [*bidref, "--help"],
        "bidref --version": [*bidref, "--version"],
        "bidref match --help": [*bidref, "match", "--help"],
        'python -c "import typer"': [sys.executable, "-c", "import typer"],
    }
    env = {**os.environ, "COLUMNS": "80"}
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, cmd in cases.items():
            start = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            times[name].append(time.perf_counter() - start)
    floor = statistics.median(times["python -c pass"])
    print(f"{rounds} interleaved rounds, median wall time of a fresh process:")
    for name, ts in times.items():
        median = statistics.median(ts)
        print(f"  {name:28s} {1000 * median:7.1f} ms  {median / floor:5.2f}x python -c pass")
    ratio = statistics.median(times["bidref --help"]) / floor
    verdict = "within" if ratio <= 3 else "NOT within"
    print(f"bidref --help: {ratio:.2f}x python -c pass ({verdict} the 3x target)")


if __name__ == "__main__":
    main()
