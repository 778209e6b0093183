"""The tournament loop with a deterministic fake play function (no engines)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bidref.outcome import AbortCause, EndReason
from bidref.tournament import (
    MatchJob,
    MatchRecord,
    MatchReport,
    MatchSettings,
    Plan,
    ResultsStore,
    Sprt,
    new_header,
    run,
    seeds_from_master,
)
from bidref.tournament.local import LocalBackend
from bidref.tournament.runner import RESULTS_FILE, missing
from bidref.tournament.security import ClusterTrust

from .conftest import MakePlan
from .tournament_fakes import fake_play, killable_plan

REPO = Path(__file__).resolve().parents[2]

# these play functions write no real transcripts: scheduling is tested, not proofs
UNVERIFIED = ClusterTrust(verify=False)


def rated(records: list[MatchRecord]) -> dict[str, tuple[object, ...]]:
    """The comparable content of the rated records, by match key."""
    out: dict[str, tuple[object, ...]] = {}
    for r in records:
        if r.rated:
            assert r.key.id not in out, f"{r.key.id} rated twice"
            out[r.key.id] = (
                r.engine_a,
                r.engine_b,
                r.winner,
                r.reason,
                r.balances,
                r.rounds,
                r.transcript,
            )
    return out


def play_all(plan: Plan, concurrency: int = 2, mode: str = "thread") -> ResultsStore:
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    with LocalBackend(fake_play, concurrency, mode=mode) as backend:  # type: ignore[arg-type]
        run(plan, store, backend, tick_s=0.05)
    store.close()
    return store


class CountingPlay:
    """A play function that remembers which matches it played (thread backend only)."""

    def __init__(self) -> None:
        self.played: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, job: MatchJob) -> MatchReport:
        with self.lock:
            self.played.append(job.key.id)
        return fake_play(job)


def test_a_run_plays_every_scheduled_match_once(make_plan: MakePlan) -> None:
    plan = make_plan([("a", "fake strength=3"), ("b", "fake"), ("c", "fake strength=0.5")], deals=4)
    store = play_all(plan)
    results = rated(store.records)
    assert set(results) == {k.id for k in plan.keys}
    assert len(store.records) == len(plan.keys) == 3 * 4 * 2
    for r in store.records:
        assert (plan.out_dir / r.transcript).exists()  # type: ignore[operator]
    assert missing(plan, ResultsStore.open(plan.out_dir / RESULTS_FILE)) == []


def test_progress_counts_up_to_the_total(make_plan: MakePlan) -> None:
    plan = make_plan(deals=3)
    seen: list[tuple[int, int]] = []
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    with LocalBackend(fake_play, 2, mode="thread") as backend:
        summary = run(plan, store, backend, on_progress=lambda p: seen.append((p.done, p.total)))
    assert seen[0] == (0, 6) and seen[-1] == (6, 6)
    assert summary.done == summary.total == 6 and summary.played == 6


def test_aborted_matches_are_recorded_excluded_and_played_again(make_plan: MakePlan) -> None:
    clean = play_all(
        make_plan(
            [("a", "fake strength=2"), ("b", "fake")],
            deals=20,
            out=make_plan().out_dir.parent / "clean",
        )
    )
    faulty = play_all(
        make_plan(
            [("a", "fake strength=2"), ("b", "fake abort=0.3")],
            deals=20,
            out=make_plan().out_dir.parent / "faulty",
        )
    )
    aborted = [r for r in faulty.records if not r.rated]
    assert aborted, "the fake should abort some first attempts"
    assert all(r.reason == "aborted" and r.winner is None and r.attempt == 1 for r in aborted)
    # every aborted match was played again and rated on its second attempt
    retried = {r.key.id: r for r in faulty.records if r.rated and r.attempt == 2}
    assert set(retried) == {r.key.id for r in aborted}
    assert all(r.transcript.endswith("-try2.jsonl.gz") for r in retried.values())  # type: ignore[union-attr]
    # rated results (bar the transcript name of replays) equal a run without aborts
    strip = {k: v[:-1] for k, v in rated(faulty.records).items()}
    assert strip == {k: v[:-1] for k, v in rated(clean.records).items()}

    from bidref.tournament import compute

    plan = make_plan([("a", "fake strength=2"), ("b", "fake")], deals=20)
    with_aborts = compute(plan.names, plan.pairings, faulty.records).to_dict()
    without = compute(plan.names, plan.pairings, clean.records).to_dict()
    for row in with_aborts["engines"]:  # type: ignore[attr-defined]
        assert row.pop("aborted") == len(aborted)
    for row in without["engines"]:  # type: ignore[attr-defined]
        assert row.pop("aborted") == 0
    for row in [*with_aborts["pairs"], *without["pairs"]]:  # type: ignore[misc]
        row.pop("aborted")
    assert with_aborts == without


def test_a_match_that_keeps_aborting_is_given_up_after_max_attempts(
    make_plan: MakePlan,
) -> None:
    plan = make_plan([("a", "fake"), ("b", "fake abort=1.0")], deals=1)
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)

    def always_abort(job: MatchJob) -> MatchReport:
        return MatchReport(
            winner=None, reason="aborted", rated=False, detail={"cause": "timing fault"}
        )

    with LocalBackend(always_abort, 1, mode="thread") as backend:
        summary = run(plan, store, backend, max_attempts=3)
    assert summary.unresolved == plan.keys
    assert summary.aborted == 6 and summary.done == 0
    assert sorted(r.attempt for r in store.records) == [1, 1, 2, 2, 3, 3]


def test_a_play_function_that_raises_is_an_aborted_match(make_plan: MakePlan) -> None:
    plan = make_plan(deals=1)
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    calls = CountingPlay()

    def flaky(job: MatchJob) -> MatchReport:
        calls(job)
        if job.attempt == 1:
            raise RuntimeError("boom")
        return fake_play(job)

    with LocalBackend(flaky, 1, mode="thread") as backend:
        summary = run(plan, store, backend)
    assert summary.done == 2 and summary.aborted == 2
    assert all(
        r.detail == {"cause": "runner error", "error": "RuntimeError('boom')"}
        for r in store.records
        if not r.rated
    )


def test_an_engine_that_never_starts_stops_the_run(make_plan: MakePlan) -> None:
    plan = make_plan([("good", "fake"), ("broken", "fake nostart=1")], deals=10)
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    with LocalBackend(fake_play, 2, mode="thread") as backend:
        summary = run(plan, store, backend)
    assert summary.stopped is not None and "'broken' failed (startup)" in summary.stopped
    assert summary.stopped_by is EndReason.STARTUP  # typed: the CLI's hint goes by it
    assert "(broken) did not start: " in summary.stopped  # a sentence, not seat=1, ...
    assert "problem=" not in summary.stopped
    assert summary.done == 0 and 1 <= len(summary.failed) <= 2  # no more started after
    assert all(
        r.reason == "startup" and not r.rated and r.at_fault == "broken" for r in store.records
    )
    assert summary.standings is not None
    assert summary.standings.engines["broken"].faults["crashes"] == len(store.records)
    assert summary.standings.engines["good"].faults["crashes"] == 0


def test_a_rare_start_up_failure_is_recorded_not_retried_and_resume_replays_it(
    make_plan: MakePlan,
) -> None:
    plan = make_plan([("good", "fake"), ("flaky", "fake nostart=0.2")], deals=20)
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    with LocalBackend(fake_play, 1, mode="thread") as backend:
        summary = run(plan, store, backend)
    failed = {r.key for r in store.records if not r.rated}
    # (with master seed 7 the first failure comes after flaky's first rated matches)
    assert summary.stopped is None
    assert failed and set(summary.failed) == failed
    assert len(store.records) == len(plan.keys)  # none retried in the run
    assert summary.done == len(plan.keys) - len(failed)
    assert missing(plan, store) == [k for k in plan.keys if k in failed]


def test_resume_plays_exactly_the_missing_matches(make_plan: MakePlan, tmp_path: Path) -> None:
    full = play_all(make_plan(deals=6, out=tmp_path / "full"))
    plan = make_plan(deals=6, out=tmp_path / "partial")
    path = plan.out_dir / RESULTS_FILE
    with ResultsStore.create(path, plan.header) as store:
        for r in full.records[:5]:
            store.append(r)
    counting = CountingPlay()
    store = ResultsStore.open(path)
    with LocalBackend(counting, 2, mode="thread") as backend:
        run(plan, store, backend)
    kept = {r.key.id for r in full.records[:5]}
    assert sorted(counting.played) == sorted(k.id for k in plan.keys if k.id not in kept)
    assert rated(ResultsStore.open(path).records) == rated(full.records)


def test_sprt_stops_the_run_when_decided(make_plan: MakePlan) -> None:
    sprt = Sprt(0, 100, 0.05, 0.05)
    plan = make_plan(
        [("strong", "fake strength=6 draw=0"), ("weak", "fake draw=0")], deals=300, sprt=sprt
    )
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    with LocalBackend(fake_play, 2, mode="thread") as backend:
        summary = run(plan, store, backend)
    assert summary.sprt_stopped
    assert summary.standings is not None
    status = summary.standings.sprt_status(sprt)
    assert status is not None and status[2] == "H1"
    assert 0 < summary.played < len(plan.keys)
    # resuming a decided tournament plays nothing more
    counting = CountingPlay()
    with LocalBackend(counting, 2, mode="thread") as backend:
        again = run(plan, ResultsStore.open(plan.out_dir / RESULTS_FILE), backend)
    assert again.sprt_stopped and counting.played == []


def test_process_workers_give_the_same_results_as_threads(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    threads = play_all(make_plan(deals=4, out=tmp_path / "t"), mode="thread")
    procs = play_all(make_plan(deals=4, out=tmp_path / "p"), mode="process")
    assert rated(procs.records) == rated(threads.records)


def test_a_dying_worker_process_costs_only_a_replay(make_plan: MakePlan, tmp_path: Path) -> None:
    specs = [("a", "fake strength=2"), ("b", "fake die=0.15")]
    plan = make_plan(specs, deals=5, out=tmp_path / "die")
    store = play_all(plan, mode="process")
    assert any(r.detail.get("cause") == "runner error" for r in store.records if not r.rated)
    clean = play_all(
        make_plan([("a", "fake strength=2"), ("b", "fake")], deals=5, out=tmp_path / "clean"),
        mode="thread",
    )
    strip = {k: v[:-1] for k, v in rated(store.records).items()}
    assert strip == {k: v[:-1] for k, v in rated(clean.records).items()}


def test_a_dask_cluster_gives_the_same_results_as_the_local_runner(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    import distributed  # a declared test dependency

    from bidref.tournament.cluster import ClusterBackend

    specs = [("a", "fake strength=2 abort=0.2"), ("b", "fake"), ("c", "fake strength=0.7")]
    local = play_all(make_plan(specs, deals=4, out=tmp_path / "local"))
    plan = make_plan(specs, deals=4, out=tmp_path / "dask")
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster:
        backend = ClusterBackend(fake_play, cluster.scheduler_address, trust=UNVERIFIED)
        assert backend.slots == 2
        try:
            summary = run(plan, store, backend, tick_s=0.05)
        finally:
            backend.close()
    assert summary.done == len(plan.keys)
    assert rated(store.records) == rated(local.records)


def children_of(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.add(int(entry.name))
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for_lines(path: Path, more_than: int, timeout_s: float = 30.0) -> None:
    """Wait until the runner has written more than ``more_than`` lines to ``path``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.read_text(encoding="utf-8").count("\n") > more_than:
            return
        time.sleep(0.01)


def wait_gone(pids: set[int], timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


KILLABLE_RUN = """
import sys
from pathlib import Path
from bidref.tournament import ResultsStore, run
from bidref.tournament.local import LocalBackend
from tests.tournament.tournament_fakes import fake_play, killable_plan

plan = killable_plan(Path(sys.argv[1]))
path = plan.out_dir / "results.jsonl"
store = ResultsStore.open(path) if path.exists() else ResultsStore.create(path, plan.header)
with LocalBackend(fake_play, 2, mode=sys.argv[2]) as backend:
    run(plan, store, backend, tick_s=0.02)
"""


@pytest.mark.parametrize("mode", ["thread", "process"])
def test_a_killed_run_resumes_to_the_same_results(tmp_path: Path, mode: str) -> None:
    # the same tournament uninterrupted, here (the fake's results do not depend on how)
    whole = play_all(killable_plan(tmp_path / "whole"))
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-c", KILLABLE_RUN, str(killed), mode], cwd=REPO)
    results = killed / RESULTS_FILE
    wait_for_lines(results, more_than=12)
    workers = children_of(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert wait_gone(workers), "worker processes outlived the killed runner"
    partial = ResultsStore.open(results)
    lines_before = len(partial.records)
    partial.close()
    assert 0 < lines_before < 60, "the run should have been killed mid-way"
    subprocess.run(
        [sys.executable, "-c", KILLABLE_RUN, str(killed), mode], cwd=REPO, check=True, timeout=60
    )
    resumed = ResultsStore.open(results)
    assert resumed.records[:lines_before] == partial.records  # nothing rewritten
    assert rated(resumed.records) == rated(whole.records)


class InterruptAfter:
    """A progress callback that acts like Ctrl-C once ``n`` matches are recorded."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.fired = False

    def __call__(self, progress: object) -> None:
        if not self.fired and getattr(progress, "played", 0) >= self.n:
            self.fired = True
            raise KeyboardInterrupt


@pytest.mark.parametrize("where", ["threads", "dask"])
def test_an_interrupted_run_keeps_what_finished_and_resumes(
    make_plan: MakePlan, tmp_path: Path, where: str
) -> None:
    specs = [("a", "fake strength=2 sleep=0.02"), ("b", "fake abort=0.2")]
    whole = play_all(make_plan(specs, deals=8, out=tmp_path / "whole"))
    plan = make_plan(specs, deals=8, out=tmp_path / "cut")
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)

    def backend_and_close() -> tuple[object, object]:
        if where == "threads":
            b = LocalBackend(fake_play, 2, mode="thread")
            return b, b.close
        import distributed

        from bidref.tournament.cluster import ClusterBackend

        cluster = distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
        )
        b = ClusterBackend(fake_play, cluster.scheduler_address, trust=UNVERIFIED)
        return b, lambda: (b.close(), cluster.close())

    backend, close = backend_and_close()
    try:
        summary = run(
            plan,
            store,
            backend,
            on_progress=InterruptAfter(4),  # type: ignore[arg-type]
            tick_s=0.02,
        )
    finally:
        close()  # type: ignore[operator]
    assert summary.interrupted and 4 <= summary.played < len(plan.keys)
    kept = list(store.records)
    backend, close = backend_and_close()
    try:
        again = run(
            plan,
            ResultsStore.open(plan.out_dir / RESULTS_FILE),
            backend,  # type: ignore[arg-type]
            tick_s=0.02,
        )
    finally:
        close()  # type: ignore[operator]
    assert not again.interrupted and again.done == len(plan.keys)
    final = ResultsStore.open(plan.out_dir / RESULTS_FILE).records
    assert final[: len(kept)] == kept
    assert rated(final) == rated(whole.records)


def test_sigterm_to_the_cli_ends_the_run_and_resume_completes(tmp_path: Path) -> None:
    fake = ["--play-function", "tests.tournament.tournament_fakes:fake_play"]
    engines = ["a=fake strength=2 sleep=0.05", "b=fake"]
    cli = [sys.executable, "-c", "from bidref.cli import main; main()", "tournament"]
    # the same tournament uninterrupted, here (the fake's results do not depend on how)
    from bidref.tournament.engines import resolve_entries

    header = new_header(
        "round-robin",
        resolve_entries(engines),
        seeds_from_master(4, 10),
        MatchSettings(),
        master_seed=4,
        deal_book=None,
    )
    whole = play_all(Plan(header, tmp_path / "whole"))
    out = tmp_path / "cut"
    proc = subprocess.Popen(
        [
            *cli,
            *engines,
            "--deals",
            "10",
            "--seed",
            "4",
            "-j",
            "2",
            "--out",
            str(out),
            "--json",
            *fake,
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    results = out / RESULTS_FILE
    wait_for_lines(results, more_than=4)
    workers = children_of(proc.pid)
    os.kill(proc.pid, signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr.decode()
    assert wait_gone(workers)
    cut = json.loads(stdout)
    assert cut["interrupted"] and cut["done"] < 20
    resumed = subprocess.run(
        [*cli, "--resume", "--out", str(out), "--json", *fake],
        cwd=REPO,
        capture_output=True,
        timeout=60,
    )
    assert resumed.returncode == 0, resumed.stderr.decode()
    assert json.loads(resumed.stdout)["played"] == 20 - cut["done"]
    assert rated(ResultsStore.open(results).records) == rated(whole.records)


def test_an_interrupt_waits_until_the_record_is_written_and_counted() -> None:
    from bidref.tournament.runner import _shielded

    steps = []
    # (Python's own Ctrl-C handler, even where these tests run with SIGINT ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt), _shielded():
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("written")
            steps.append("counted")
        assert steps == ["written", "counted"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_worker_whose_runner_died_before_it_started_exits_at_once() -> None:
    # The runner's pid is handed to the worker: a runner killed before the worker
    # ran its initializer has already left it to init, which getppid() cannot tell.
    code = (
        "from bidref.tournament.local import worker_init\n"
        "worker_init(2**22 + 7)\n"  # not our parent's pid
        "print('still running')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and "still running" not in done.stdout
    code = f"from bidref.tournament.local import worker_init\nworker_init({os.getpid()})\n"
    code += "print('still running')\n"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "still running" in done.stdout


def test_a_network_engine_plays_one_match_at_a_time_and_others_fill_the_slots(
    make_plan: MakePlan,
) -> None:
    plan = make_plan([("net", "fake"), ("a", "fake"), ("b", "fake"), ("c", "fake")], deals=2)
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    lock = threading.Lock()
    live: list[MatchJob] = []
    most = {"net": 0, "all": 0}
    started = [0]
    # The first three matches wait for each other: the barrier opens only if the
    # runner has filled all three slots at once (one of them at most with the
    # network engine); it breaks, and the matches fail, if it never does.
    first_three = threading.Barrier(3, timeout=30)

    def watched(job: MatchJob) -> MatchReport:
        with lock:
            live.append(job)
            started[0] += 1
            first = started[0] <= 3
            nets = sum(1 for j in live if "net" in (j.engine_a.name, j.engine_b.name))
            most["net"] = max(most["net"], nets)
            most["all"] = max(most["all"], len(live))
        if first:
            first_three.wait()
        with lock:
            live.remove(job)
        return fake_play(job)

    with LocalBackend(watched, 3, mode="thread") as backend:
        summary = run(plan, store, backend, tick_s=0.01, remote=frozenset({"net"}))
    assert summary.done == len(plan.keys) == 24
    assert most["net"] == 1  # never two matches of the network engine at once
    assert most["all"] == 3  # while matches between local engines used the other slots


def test_a_network_engine_that_is_not_there_does_not_stop_the_run(make_plan: MakePlan) -> None:
    plan = make_plan([("good", "fake"), ("net", "fake nostart=1")], deals=3)
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    with LocalBackend(fake_play, 2, mode="thread") as backend:
        summary = run(plan, store, backend, remote=frozenset({"net"}))
    assert summary.stopped is None  # (a local engine that never starts stops it: above)
    assert len(summary.failed) == len(plan.keys) == 6 and summary.done == 0
    assert missing(plan, store) == plan.keys  # --resume plays them all again


# -- a machine that keeps aborting matches: fewer at once (bidref/tournament/throttle.py) --------


class OverloadedPlay:
    """Aborts (``machine_wait``) every first attempt while more than one match runs,
    counting how many run at once (thread backend only)."""

    def __init__(self) -> None:
        self.running = 0
        self.most_after: list[int] = []  # the number running as each match started
        self.lock = threading.Lock()

    def __call__(self, job: MatchJob) -> MatchReport:
        with self.lock:
            self.running += 1
            crowded = self.running > 1
            self.most_after.append(self.running)
        try:
            time.sleep(0.01)
            if crowded and job.attempt == 1:
                return MatchReport(
                    winner=None, reason="aborted", rated=False, detail={"cause": "machine_wait"}
                )
            return fake_play(job)
        finally:
            with self.lock:
                self.running -= 1


def test_a_run_that_keeps_aborting_lowers_its_concurrency_and_goes_on(
    make_plan: MakePlan, caplog: pytest.LogCaptureFixture
) -> None:
    from bidref.tournament.throttle import ABORTS

    plan = make_plan([("a", "fake"), ("b", "fake"), ("c", "fake")], deals=6)
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    play = OverloadedPlay()
    with LocalBackend(play, 4, mode="thread") as backend:  # type: ignore[arg-type]
        summary = run(plan, store, backend, tick_s=0.02, max_attempts=10)
    store.close()
    assert summary.done == summary.total  # it went on to the end
    assert summary.lowered, "the concurrency was never lowered"
    assert summary.lowered[-1].endswith("playing 1 at once instead of 2")
    assert summary.to_dict()["concurrency_lowered"] == summary.lowered
    assert any("at once instead of 4" in r.message for r in caplog.records)  # on the console
    # once lowered to 1, matches run one at a time: the last ones never crowd
    assert play.most_after[-5:] == [1] * 5
    aborted = [r for r in store.records if not r.rated]
    assert len(aborted) >= 2 * ABORTS


def test_aborts_that_are_not_the_machines_load_do_not_lower_it(make_plan: MakePlan) -> None:
    from bidref.tournament.throttle import Throttle

    t = Throttle(4)
    for _ in range(30):
        assert t.note(True, AbortCause.INTERRUPTED) is None
        assert t.note(True, AbortCause.named("referee timing fault (fake)")) is None
    assert t.limit == 4
    assert t.note(True, AbortCause.TIMING_FAULT) is None
    assert t.note(True, AbortCause.MACHINE_WAIT) is None
    assert t.note(False, None) is None
    said = t.note(True, AbortCause.TIMING_FAULT)
    assert said is not None and t.limit == 2
