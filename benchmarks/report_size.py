"""Tournament report: size and time of the report against the transcripts, side by side.

Plays a real tournament of sample engines (the C engine under two names and the
Python greedy one, a round robin), then makes its report both ways: as
``bidref tournament-report DIR --html OUT`` writes it now (the report alone; the
replays are made on demand by ``--serve``) and with ``--replays`` (a page per
match, as before). Prints each one's bytes, its share of the tournament folder
(the transcripts and results) and the time it took; then the time ``--serve``
takes to make one match's page. Target: the report adds <= 10 % to the folder,
and at most the bytes per match docs/replay.md promises (checked here: the
script exits 1 when the report is larger than the docs say).

    make engines && .venv/bin/python benchmarks/report_size.py --deals 20
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bidref.render.tournament.report import write_report
from bidref.render.tournament.server import route

REPO = Path(__file__).resolve().parents[1]
C_ENGINE = REPO / "sample_engines" / "c_first" / "engine"
GREEDY = REPO / "sample_engines" / "python_greedy" / "engine.py"


def size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20, help="deal seeds (each played twice)")
    ap.add_argument("-j", type=int, default=2, help="matches at a time")
    args = ap.parse_args()
    if not C_ENGINE.exists():
        sys.exit(f"{C_ENGINE} is missing: run `make engines`")
    with tempfile.TemporaryDirectory(prefix="bidref-report-") as tmp:
        out = Path(tmp) / "t"
        cmd = [
            *(sys.executable, "-c", "from bidref.cli import main; main()", "tournament"),
            *(f"c1={C_ENGINE}", f"c2={C_ENGINE}", f"greedy={GREEDY}"),
            *("--deals", str(args.deals), "--seed", "1", "-j", str(args.j)),
            *("--bank", "60", "--delay", "2", "--out", str(out)),
        ]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, cwd=REPO)
        played = time.perf_counter() - t0
        folder = size(out)
        transcripts = size(out / "transcripts")
        matches = len((out / "results.jsonl").read_text().splitlines()) - 1
        print(
            f"{matches} matches played in {played:.1f} s; folder {folder:,} bytes "
            f"(transcripts {transcripts:,})"
        )
        print(f"{'report':<34}{'bytes':>14}{'of folder':>11}{'time':>9}")
        for label, replays in (
            ("--html (now; --serve for replays)", False),
            ("--html --replays (before)", True),
        ):
            site = Path(tmp) / ("site-replays" if replays else "site")
            t0 = time.perf_counter()
            write_report(out, site / "report.html", replays=replays)
            took = time.perf_counter() - t0
            b = size(site)
            print(f"{label:<34}{b:>14,}{100 * b / folder:>10.1f}%{took:>8.2f}s")
            if not replays:
                report_bytes = b
        t0 = time.perf_counter()
        r = route(out, "/replay/0.html")
        took = time.perf_counter() - t0
        assert r.status == 200
        print(
            f"--serve: one match's page made on demand in {took * 1000:.0f} ms "
            f"({len(r.body):,} bytes sent, not stored)"
        )
        fixed, per_match = promised_size()
        promised = fixed + per_match * matches
        print(f"report: {report_bytes:,} bytes (docs/replay.md: at most {promised:,})")
        if report_bytes > promised:
            sys.exit(f"the report is larger than docs/replay.md says: {report_bytes} > {promised}")


def promised_size() -> tuple[int, int]:
    """The report's size that docs/replay.md promises: (bytes, bytes per match)."""
    text = " ".join((REPO / "docs" / "replay.md").read_text().split())
    m = re.search(r"at most (\d+) kB plus (\d+) bytes per match", text)
    if m is None:
        sys.exit("docs/replay.md no longer says how large a report is")
    return int(m.group(1)) * 1000, int(m.group(2))


if __name__ == "__main__":
    main()
