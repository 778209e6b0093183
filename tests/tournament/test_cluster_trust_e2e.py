"""A cluster that is not trusted (issue 37): over TLS, with a dishonest worker.

One ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1, all over
``tls://`` with certificates made here by openssl. Worker w1 is dishonest (a
preloaded plugin swaps the winner of each match it plays, in its report and in
the transcript's result line). The coordinator replays every transcript before
counting it: w1's matches are rejected, played again on w2, w1 is flagged and
gets no more matches, and the standings are those of an honest run here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from bidref.render.tournament.report import write_report
from bidref.tournament import MatchRecord, ResultsStore, run
from bidref.tournament.local import LocalBackend
from bidref.tournament.loopback import LoopbackCluster
from bidref.tournament.play import play_match
from bidref.tournament.runner import RESULTS_FILE, Plan
from bidref.tournament.standings import Tally
from tests.sample_build import build_c_engines

from .tls_certs import make_certificates

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
C_FIRST = REPO / "sample_engines" / "c_first" / "engine"
GREEDY = REPO / "sample_engines" / "python_greedy" / "engine.py"
DISHONEST = Path(__file__).with_name("dishonest_worker.py")
BIDREF = [sys.executable, "-c", "from bidref.cli import main; main()"]


def _rated(records: list[MatchRecord]) -> dict[str, tuple[object, ...]]:
    return {r.key.id: (r.winner, r.reason, r.balances, r.rounds) for r in records if r.rated}


def test_over_tls_a_dishonest_workers_results_are_rejected_replayed_elsewhere_and_it_is_flagged(
    tmp_path: Path,
) -> None:
    if not C_FIRST.exists():
        build_c_engines()
    tls = make_certificates(tmp_path / "certs")
    out = tmp_path / "out"
    with LoopbackCluster(
        2, tls=tls, worker_args={"w1": ["--preload", str(DISHONEST)]}, start_timeout_s=60
    ) as dask:
        assert dask.address.startswith("tls://127.0.0.1:")
        command = [
            *BIDREF,
            "tournament",
            f"c={C_FIRST}",
            f"greedy={GREEDY}",
            "--deals",
            "3",
            "--seed",
            "37",
            "--bank",
            "60",
            "--delay",
            "5",
            "--out",
            str(out),
            "--json",
            "--cluster",
            dask.address,
        ]
        tls_options = ["--tls-ca-file", str(tls.ca), "--tls-cert", str(tls.cert)]
        tls_options += ["--tls-key", str(tls.key)]
        # Without the certificates the coordinator cannot even join the cluster.
        refused = subprocess.run(
            [*command, "--out", str(tmp_path / "no-tls")],
            capture_output=True,
            timeout=120,
        )
        assert refused.returncode == 2, refused.stderr.decode()
        assert "needs TLS settings: give --tls-ca-file" in refused.stderr.decode()
        assert not (tmp_path / "no-tls" / RESULTS_FILE).exists()
        done = subprocess.run([*command, *tls_options], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    summary = json.loads(done.stdout)
    assert summary["done"] == summary["total"] == 6
    store = ResultsStore.open(out / RESULTS_FILE)

    rejected = [r for r in store.records if r.detail.get("cause") == "transcript rejected"]
    assert rejected, "w1 should have played (and lied about) at least one match"
    for r in rejected:
        assert not r.rated and r.played_on is not None
        assert r.played_on.worker.startswith("w1 (tls://127.0.0.1:"), r.played_on
        assert "fails the replay" in r.detail["problem"], r.detail["problem"]
    rated = [r for r in store.records if r.rated]
    assert len(rated) == 6
    assert Counter(r.key.id for r in rated).most_common(1)[0][1] == 1  # none doubled
    for r in rated:  # every counted match: the honest worker, its jails, its timings
        assert r.played_on is not None and r.played_on.worker.startswith("w2 (tls://")
        assert len(r.played_on.jails) == 2
        assert all(j.startswith("sandbox:") for j in r.played_on.jails)
        if r.played_on.jails != ["sandbox: off"] * 2:  # ... as its transcript records it
            assert r.played_on.seat_jails is not None
            assert all(j is not None and j["level"] == "auto" for j in r.played_on.seat_jails)
        assert r.played_on.decision_ns is not None
        assert all(n > 0 for _, n in r.played_on.decision_ns)
    rejected_keys = {r.key for r in rejected}
    assert rejected_keys <= {r.key for r in rated}  # each played again, and counted

    workers = summary["workers"]
    [w1] = [w for name, w in workers.items() if name.startswith("w1 (")]
    [w2] = [w for name, w in workers.items() if name.startswith("w2 (")]
    assert w1["rejected"] == len(rejected) and "failed the replay" in w1["flagged"]
    assert w2["flagged"] is None and w2["matches"] == 6
    assert "transcript fails the replay" in done.stderr.decode()  # said on the console
    assert "no further matches go to that worker" in done.stderr.decode()
    # ... and in the report
    write_report(out, tmp_path / "report.html")
    page = (tmp_path / "report.html").read_text()
    assert "<h2>Workers</h2>" in page and "transcript(s) failed the replay check" in page

    # The standings are those of the same tournament played honestly here.
    local = tmp_path / "local"
    plan = Plan(store.header, local)
    local_store = ResultsStore.create(local / RESULTS_FILE, plan.header)
    with LocalBackend(play_match, 2, mode="thread") as backend:
        honest = run(plan, local_store, backend)
    assert _rated(store.records) == _rated(local_store.records)
    tally = Tally(plan.names, plan.pairings)
    for r in store.records:
        if r.rated:  # (the rejected ones count as aborted: that is all they count for)
            tally.add(r)
    assert honest.standings is not None
    assert tally.standings.to_dict() == honest.standings.to_dict()
