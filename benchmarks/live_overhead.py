"""The live page's cost: referee time per decision with and without a browser
attached, and the server's idle CPU with one browser attached.

Run (after `make -C sample_engines` and `make browser`)::

    .venv/bin/python benchmarks/live_overhead.py [--deals 20] [--repeat 3] [--idle-s 30]

(a) **referee time per decision**: the same tournament (c_first vs c_first, two
    instant C engines: the referee's own work is all there is to slow down),
    played by ``bidref tournament`` as a user runs it, ``-j 2`` on this
    machine's cores, alternately without ``--live`` and with ``--live`` and a
    headless Chromium showing the live page for the whole run. Per decision,
    from the transcripts: the referee's time (a reply's stamp to the next
    request's stamp: applying the action, building and writing the request) and
    the whole decision (reply to next reply). Runs are interleaved (plain, live,
    plain, live, ...) so the machine's state affects both alike; each figure is
    a distribution over every decision of the runs. Target: within noise (the
    medians within the spread between the plain runs themselves).
(b) **idle CPU with one browser attached**: ``bidref tournament-report DIR
    --serve`` on the finished folder, a headless Chromium on its ``/live`` page
    (event stream open, the server polling the folder), and the server
    process's CPU time (``/proc/PID/stat``) over ``--idle-s`` seconds. Target:
    <= 2 % of a core.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ENGINE = REPO / "sample_engines" / "c_first" / "engine"
BIDREF = [sys.executable, "-c", "from bidref.cli import main; main()"]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update"]  # fmt: skip
IDLE_TARGET = 2.0  # % of a core
ADDRESS = re.compile(r"(http://127\.0\.0\.1:\d+/(?:live)?)")


def _address(proc: subprocess.Popen[str]) -> str:
    """The first loopback address the process prints (stdout or stderr, merged)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = ADDRESS.search(line)
        if m:
            threading.Thread(target=proc.stdout.read, daemon=True).start()  # drain
            return m.group(1)
    raise RuntimeError("the process printed no address")


def _decisions(out: Path) -> tuple[list[float], list[float]]:
    """(referee µs per decision, whole decision µs) over every transcript in ``out``."""
    referee, whole = [], []
    for p in sorted(out.glob("transcripts/*/*.jsonl.gz")):
        last_reply = None
        for raw in zlib.decompressobj(47).decompress(p.read_bytes()).split(b"\n"):
            kind = re.search(rb'"type":"(\w+)"', raw)
            t = re.search(rb'"t_ns":(\d+)', raw)
            if kind is None or t is None:
                continue
            ns = int(t.group(1))
            if kind.group(1) == b"reply":
                if last_reply is not None:
                    whole.append((ns - last_reply) / 1000)
                last_reply = ns
            elif kind.group(1) == b"request" and last_reply is not None:
                referee.append((ns - last_reply) / 1000)
            elif kind.group(1) == b"round_reveal":
                last_reply = None  # (a round's end: not one decision)
    return referee, whole


def _tournament(out: Path, deals: int, live: bool, browser: Any) -> float:
    cmd = [*BIDREF, "tournament", f"a={ENGINE}", f"b={ENGINE}", "--deals", str(deals),
           "--seed", "1", "--bank", "30", "--delay", "1", "-j", "2", "--sandbox", "off",
           "--out", str(out)]  # fmt: skip
    if live:
        cmd += ["--live", "--port", "0"]
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    page = None
    if live:
        page = browser.new_page()
        page.goto(_address(proc))
    else:
        assert proc.stdout is not None
        proc.stdout.read()
    proc.wait(timeout=600)
    seconds = time.perf_counter() - started
    if page is not None:
        messages = page.evaluate("window.bidrefLive.messages")
        print(f"    (the page took {messages} updates)")
        page.close()
    if proc.returncode != 0:
        raise RuntimeError(f"the tournament failed ({proc.returncode})")
    return seconds


def _pcts(xs: list[float]) -> str:
    q = statistics.quantiles(xs, n=100)
    return f"p10 {q[9]:.1f}  p50 {statistics.median(xs):.1f}  p90 {q[89]:.1f}  p99 {q[98]:.1f} µs"


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20, help="deal seeds per run (x2 matches)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind, interleaved")
    parser.add_argument("--idle-s", type=float, default=30.0, help="idle CPU measured over")
    args = parser.parse_args()
    if not ENGINE.exists():
        subprocess.run(["make", "-C", str(REPO / "sample_engines")], check=True)
    from playwright.sync_api import sync_playwright

    print(
        f"live page overhead: c_first vs c_first, {2 * args.deals} matches per run, -j 2, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}"
    )
    figures: dict[str, tuple[list[float], list[float]]] = {"plain": ([], []), "live": ([], [])}
    medians: dict[str, list[float]] = {"plain": [], "live": []}
    with tempfile.TemporaryDirectory(prefix="bidref-live-") as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        last = None
        for i in range(args.repeat):
            for kind in ("plain", "live"):
                out = Path(tmp) / f"{kind}{i}"
                seconds = _tournament(out, args.deals, kind == "live", browser)
                referee, whole = _decisions(out)
                figures[kind][0].extend(referee)
                figures[kind][1].extend(whole)
                medians[kind].append(statistics.median(referee))
                print(
                    f"  {kind:5} run {i + 1}: {seconds:.1f} s, {len(referee)} decisions, "
                    f"referee median {statistics.median(referee):.1f} µs"
                )
                last = out
        print("(a) referee time per decision (reply stamp -> next request stamp):")
        for kind in ("plain", "live"):
            print(f"  {kind:5} {_pcts(figures[kind][0])}")
        print("    whole decision (reply -> next reply):")
        for kind in ("plain", "live"):
            print(f"  {kind:5} {_pcts(figures[kind][1])}")
        plain, live = statistics.median(figures["plain"][0]), statistics.median(figures["live"][0])
        spread = max(medians["plain"]) - min(medians["plain"])
        print(
            f"  median with a browser / without: {live / plain:.3f}x "
            f"({live - plain:+.1f} µs; the plain runs' medians spread over {spread:.1f} µs)"
        )

        assert last is not None
        server = subprocess.Popen(
            [*BIDREF, "tournament-report", str(last), "--serve", "--port", "0"],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        try:
            url = _address(server).rstrip("/") + "/live"
            page = browser.new_page()
            page.goto(url)
            page.wait_for_function("window.bidrefLive.mode === 'live'")
            time.sleep(2.0)  # settle: the first snapshot made and sent
            cpu0, t0 = _cpu_s(server.pid), time.monotonic()
            time.sleep(args.idle_s)
            cpu1, t1 = _cpu_s(server.pid), time.monotonic()
            still = page.evaluate("window.bidrefLive.mode")
            page.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
        idle = 100 * (cpu1 - cpu0) / (t1 - t0)
        verdict = "OK" if idle <= IDLE_TARGET else "ABOVE TARGET"
        print(
            f"(b) server idle with one browser attached ({still}): {idle:.2f} % of a core "
            f"over {t1 - t0:.0f} s (target <= {IDLE_TARGET} %) {verdict}"
        )
        browser.close()
    return 0 if idle <= IDLE_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
