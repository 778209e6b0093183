"""Network seat overhead: wall time per decision, a remote engine over loopback
WebSocket (``bidref connect``'s bridge) vs the same engine on a local pipe.

Run (after `make -C sample_engines`)::

    .venv/bin/python benchmarks/net_overhead.py [--matches 5] [--engine PATH]

Both setups play the same seeded matches between the same two engines (by
default the compiled first-legal C engine, else python_random); in the network
setup seat A is a ``listen://127.0.0.1:0`` seat and its engine runs under a
:class:`bidref.net.client.Bridge` in this process, connected over loopback.
Printed per setup: the median over matches of the wall time per decision
(from the first request to the last accepted action, divided by the number of
decisions), and the ratio network / pipe. The network path adds two hops
(referee ↔ bridge over a socket, bridge ↔ engine over a pipe) to every one of
seat A's decisions, so the ratio shows what a remote seat costs before any real
network latency.
"""

from __future__ import annotations

import argparse
import statistics
import threading
from pathlib import Path

from bidref.engines import resolve_engine
from bidref.match.referee import MatchSpec, run_match
from bidref.net.client import Bridge
from bidref.net.match_seats import engine_spec_for, listening_seats
from bidref.rules import TimeControl

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=5)
    c_first = ROOT / "sample_engines" / "c_first" / "engine"
    default = c_first if c_first.exists() else ROOT / "sample_engines/python_random/engine.py"
    ap.add_argument("--engine", default=str(default))
    args = ap.parse_args()
    engine = resolve_engine(args.engine)
    tc = TimeControl.of_seconds(bank=60, delay=5)
    pipe: list[float] = []
    net: list[float] = []
    decisions = 0
    for seed in range(1, args.matches + 1):
        spec = MatchSpec(engines=(engine, engine), seed=seed, time_control=tc, max_rounds=4)
        out = run_match(spec)
        assert out.reason in ("balance", "round_limit"), out
        pipe.append(out.decision_ns / out.decisions)
        decisions += out.decisions

        remote = engine_spec_for("listen://127.0.0.1:0")
        nspec = MatchSpec(engines=(remote, engine), seed=seed, time_control=tc, max_rounds=4)
        seats = listening_seats(nspec, ("listen://127.0.0.1:0", args.engine))
        assert seats is not None
        s = seats.network[0]
        bridge = Bridge(s.url, s.token, engine)
        t = threading.Thread(target=bridge.run, daemon=True)
        t.start()
        nout = run_match(nspec, seats=seats.seats)
        t.join(10)
        assert nout.reason == out.reason and nout.balances == out.balances, (nout, out)
        net.append(nout.decision_ns / nout.decisions)
    mp, mn = statistics.median(pipe), statistics.median(net)
    print(f"engine: {engine.name}; {args.matches} matches per setup, {decisions} decisions (pipe)")
    print(f"pipe, both seats local       : {mp / 1000:9.1f} us per decision (median of matches)")
    print(f"seat A remote over WebSocket : {mn / 1000:9.1f} us per decision (median of matches)")
    print(f"ratio network / pipe         : {mn / mp:9.2f}")


if __name__ == "__main__":
    main()
