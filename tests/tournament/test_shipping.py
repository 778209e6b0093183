"""Engines identified by sha256, checked, cached and shipped (issue 31), without dask
processes: the worker's task runs here, and a dask cluster in this process."""

from __future__ import annotations

import hashlib
import os
import sys
from collections import Counter
from pathlib import Path

import pytest

from bidref.outcome import AbortCause
from bidref.tournament import EngineEntry, MatchJob, MatchReport, ResultsStore, run
from bidref.tournament.cluster import ClusterBackend, NeedFiles, Shipment, play_task
from bidref.tournament.engines import resolve_entries
from bidref.tournament.local import LocalBackend
from bidref.tournament.runner import RESULTS_FILE
from bidref.tournament.security import ClusterTrust
from bidref.tournament.shipping import (
    EngineCache,
    EngineFilesError,
    bundle_of,
    fingerprint,
    interpreter_problem,
    localise,
    verify,
)

from .conftest import MakePlan

# these play functions write no real transcripts: scheduling is tested, not proofs
UNVERIFIED = ClusterTrust(verify=False)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def engine_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "coordinator" / "eng"
    (folder / "data").mkdir(parents=True)
    (folder / "run.py").write_text("print('engine')\n")
    (folder / "data" / "weights.bin").write_bytes(b"\x00\x01weights")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "run.cpython-311.pyc").write_bytes(b"junk")
    tool = folder / "tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    return folder


def test_the_program_and_the_engine_folder_are_hashed_and_the_interpreter_is_not(
    engine_dir: Path, tmp_path: Path
) -> None:
    lone = tmp_path / "lone.py"
    lone.write_text("print(1)\n")
    alone, with_folder = (
        fingerprint(EngineEntry("a", "a", (sys.executable, str(lone)))),
        fingerprint(
            EngineEntry("b", "b", ("python3", str(engine_dir / "run.py")), str(engine_dir))
        ),
    )
    assert alone.files == {str(lone): sha(b"print(1)\n")}  # not sys.executable
    assert sorted(with_folder.files) == sorted(
        str(engine_dir / p) for p in ("run.py", "data/weights.bin", "tool")
    )  # __pycache__ left out
    program = fingerprint(EngineEntry("c", "c", (str(engine_dir / "tool"), "--fast")))
    assert list(program.files) == [str(engine_dir / "tool")]
    assert fingerprint(EngineEntry("d", "d", ("stockfish",))).files == {}


def test_a_folder_too_large_to_be_an_engines_own_identifies_only_its_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bidref.tournament import shipping

    monkeypatch.setattr(shipping, "MAX_FOLDER_FILES", 3)
    for i in range(5):
        (tmp_path / f"f{i}").write_text(str(i))
    entry = fingerprint(EngineEntry("big", "big", ("python3", str(tmp_path / "f0")), str(tmp_path)))
    assert list(entry.files) == [str(tmp_path / "f0")]


def test_a_tournament_records_each_engine_build_in_its_header(tmp_path: Path) -> None:
    script = tmp_path / "e.py"
    script.write_text("# v1\n")
    entries = resolve_entries([f"e={script}", f"f={script}"], check=True)
    assert entries[0].files == {str(script): sha(b"# v1\n")}
    assert resolve_entries([f"e={script}", f"f={script}"])[0].files == {}  # fakes: not checked


def test_verify_names_the_file_that_changed_or_went_missing(engine_dir: Path) -> None:
    entry = fingerprint(
        EngineEntry("b", "b", ("python3", str(engine_dir / "run.py")), str(engine_dir))
    )
    assert verify("b", entry.files) is None
    weights = engine_dir / "data" / "weights.bin"
    weights.write_bytes(b"\x00\x01weightZ")  # same size, other content
    m = verify("b", entry.files)
    assert m is not None and m.path == str(weights) and m.found == sha(b"\x00\x01weightZ")
    assert "another build" in m.text() and str(weights) in m.text()
    weights.unlink()
    m = verify("b", entry.files)
    assert m is not None and m.found is None and "is missing" in m.text()


def test_the_cache_keeps_files_by_digest_and_lays_out_an_engine_as_on_the_coordinator(
    engine_dir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "shared-lib.so"
    outside.write_bytes(b"lib")
    entry = fingerprint(
        EngineEntry("b", "b", (str(engine_dir / "tool"), str(outside)), str(engine_dir))
    )
    bundle = bundle_of(entry)
    cache = EngineCache(tmp_path / "cache")
    need = cache.missing([bundle])
    assert sorted(need) == sorted(set(entry.files.values()))
    with pytest.raises(EngineFilesError, match="damaged"):
        cache.put(need[0], b"not it")
    for path, digest in entry.files.items():
        cache.put(digest, Path(path).read_bytes())
    assert cache.missing([bundle]) == []
    folder = cache.lay_out(bundle)
    assert (folder / "data" / "weights.bin").read_bytes() == b"\x00\x01weights"
    assert os.access(folder / "tool", os.X_OK)  # modes kept
    here = localise(entry, bundle, folder, python=sys.executable)
    assert here.cwd == str(folder)
    assert here.command[0] == str(folder / "tool")
    assert Path(here.command[1]).read_bytes() == b"lib"  # kept apart, outside the folder
    assert "_outside" in here.command[1]
    assert verify("b", here.files) is None
    assert cache.lay_out(bundle) == folder  # laid out once, reused
    for blob in (tmp_path / "cache" / "blobs").iterdir():
        blob.unlink()
    assert cache.missing([bundle]) == []  # the laid-out engine is enough


def test_the_coordinators_python_becomes_the_workers_and_a_missing_interpreter_is_named(
    tmp_path: Path,
) -> None:
    script = tmp_path / "e.py"
    script.write_text("")
    entry = EngineEntry("e", "e", ("/coordinator/venv/bin/python", str(script)))
    assert localise(entry, None, None, "/coordinator/venv/bin/python").command[0] == sys.executable
    assert interpreter_problem(localise(entry, None, None, "/coordinator/venv/bin/python")) is None
    problem = interpreter_problem(EngineEntry("js", "js", ("no-such-node-9", str(script))))
    assert problem is not None and "'no-such-node-9'" in problem and "js" in problem


def file_play(job: MatchJob) -> MatchReport:
    """A play function that reads the engines' program files where the worker has them."""
    texts = [Path(e.command[-1]).read_text() for e in (job.engine_a, job.engine_b)]
    Path(job.transcript).write_text("|".join(texts))
    winner = 0 if job.key.seat == 0 else 1
    return MatchReport(winner=winner, reason="round_limit", rated=True, rounds=1)


def _job(make_plan: MakePlan, tmp_path: Path) -> tuple[MatchJob, Path]:
    script = tmp_path / "coordinator" / "e.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("v1")
    entries = [fingerprint(EngineEntry(n, n, (sys.executable, str(script)))) for n in "ab"]
    plan = make_plan(out=tmp_path / "out")
    job = plan.job(plan.keys[0], 1)
    return MatchJob(job.key, entries[0], entries[1], job.settings, job.transcript), script


def test_a_worker_asks_for_missing_files_then_plays_privately_and_returns_the_transcript(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    job, _script = _job(make_plan, tmp_path)
    shipment = Shipment(
        sys.executable, {e.name: bundle_of(e) for e in (job.engine_a, job.engine_b)}
    )
    cache = str(tmp_path / "worker-cache")
    need = play_task(file_play, job, shipment, None, cache)
    assert need == NeedFiles("here", (sha(b"v1"),))
    report = play_task(file_play, job, shipment, {sha(b"v1"): b"v1"}, cache)
    assert isinstance(report, MatchReport) and report.rated
    assert report.outputs == ((job.transcript, b"v1|v1"),)  # for the coordinator to write
    assert not Path(job.transcript).exists()  # the worker wrote nothing there
    again = play_task(file_play, job, shipment, None, cache)  # cached: no files asked
    assert isinstance(again, MatchReport) and again.rated
    # the cached copy changed: refused, nothing played, the file named
    (cached,) = (tmp_path / "worker-cache" / "engines").glob("*/e.py")
    cached.write_text("v2")
    refused = play_task(file_play, job, shipment, None, cache)
    assert isinstance(refused, MatchReport) and not refused.rated and refused.outputs == ()
    assert refused.detail["cause"] == AbortCause.ENGINE_REFUSED and refused.detail["file"] == str(
        cached
    )
    assert "delete" in str(refused.detail["problem"])


def test_without_shipping_a_worker_refuses_another_build_at_the_recorded_path(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    job, script = _job(make_plan, tmp_path)
    shipment = Shipment(sys.executable)
    assert isinstance(play_task(file_play, job, shipment), MatchReport)
    script.write_text("v2")
    refused = play_task(file_play, job, shipment)
    assert isinstance(refused, MatchReport) and refused.reason == "aborted"
    assert refused.detail["file"] == str(script) and refused.detail["worker"] == "here"
    assert "--ship-engines" in str(refused.detail["problem"])


def test_a_worker_with_another_bidref_version_refuses(make_plan: MakePlan, tmp_path: Path) -> None:
    job, _script = _job(make_plan, tmp_path)
    refused = play_task(file_play, job, Shipment(sys.executable, None, "0.0.1"))
    assert isinstance(refused, MatchReport) and refused.detail["cause"] == AbortCause.ENGINE_REFUSED
    assert "bidref 0.0.1" in str(refused.detail["problem"]) and not Path(job.transcript).exists()


def outputs_play(job: MatchJob) -> MatchReport:
    elsewhere = str(Path(job.transcript).parent.parent.parent / "elsewhere.txt")
    return MatchReport(
        winner=0,
        reason="round_limit",
        rated=True,
        outputs=((elsewhere, b"no"), (job.transcript, b"transcript bytes")),
    )


def test_the_runner_writes_a_matchs_own_files_before_its_record_and_nothing_else(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    plan = make_plan(deals=1)
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    with LocalBackend(outputs_play, 1, mode="thread") as backend:
        run(plan, store, backend, tick_s=0.02)
    assert len(store.records) == 2
    for r in store.records:
        assert (plan.out_dir / str(r.transcript)).read_bytes() == b"transcript bytes"
    assert not (tmp_path / "elsewhere.txt").exists() and not list(tmp_path.rglob("elsewhere*"))
    assert not list(plan.out_dir.rglob(".*.part"))


def test_shipped_engines_stay_cached_on_a_worker_across_runs(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    import distributed

    job, _script = _job(make_plan, tmp_path)
    engines = [job.engine_a, job.engine_b]
    sent = []
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster:
        for run_no in range(2):
            plan = make_plan(deals=2, out=tmp_path / f"out{run_no}")
            header = plan.header.model_copy(
                update={"engines": [type(plan.header.engines[0]).of(e) for e in engines]}
            )
            plan = type(plan)(header, plan.out_dir)
            store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
            backend = ClusterBackend(
                file_play,
                cluster.scheduler_address,
                engines=plan.engines,
                ship=True,
                cache_dir=str(tmp_path / "worker-cache"),
                trust=UNVERIFIED,
            )
            try:
                summary = run(plan, store, backend, tick_s=0.02)
            finally:
                backend.close()
            assert summary.done == 4
            sent.append(backend.files_sent)
            for r in store.records:
                assert (plan.out_dir / str(r.transcript)).read_text() == "v1|v1"
    assert sent[0] >= 1 and sent[1] == 0  # the second run found them in the cache


def test_ship_engines_needs_a_cluster(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from bidref.cli import app

    result = CliRunner().invoke(
        app,
        ["tournament", "a=fake", "b=fake", "--out", str(tmp_path / "t"), "--ship-engines"],
    )
    assert result.exit_code == 2
    assert "--ship-engines" in result.output and "add --cluster" in result.output
    assert not (tmp_path / "t").exists()


def test_resuming_with_a_rebuilt_engine_is_refused_naming_the_file(tmp_path: Path) -> None:
    import shutil

    from typer.testing import CliRunner

    from bidref.cli import app
    from tests.sample_build import build_c_engines

    c_first = Path(__file__).resolve().parents[2] / "sample_engines" / "c_first" / "engine"
    if not c_first.exists():
        build_c_engines()
    engine = tmp_path / "engine"
    shutil.copy(c_first, engine)
    out = tmp_path / "t"
    args = ["tournament", f"x={engine}", f"y={c_first}", "--deals", "1", "--out", str(out)]
    first = CliRunner().invoke(app, [*args, "--bank", "30", "--delay", "3", "--json"])
    assert first.exit_code == 0, first.output
    header = ResultsStore.open(out / RESULTS_FILE).header
    assert header.engines[0].files == {str(engine): sha(engine.read_bytes())}
    with engine.open("ab") as f:
        f.write(b"\0rebuilt")
    again = CliRunner().invoke(app, ["tournament", "--resume", "--out", str(out)])
    assert again.exit_code == 2
    assert str(engine) in again.output and "another build" in again.output


def test_a_refusing_worker_gets_no_more_matches_and_its_match_is_played_elsewhere(
    make_plan: MakePlan, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import distributed

    from bidref.tournament import cluster as cluster_module
    from bidref.tournament.shipping import Mismatch

    from .tournament_fakes import fake_play

    def verify_on(engine: str, files: object) -> Mismatch | None:
        # worker "1" of this in-process cluster has another build of every engine
        if distributed.get_worker().name == 1:
            return Mismatch(engine, "/engines/x", "a" * 64, "b" * 64)
        return None

    monkeypatch.setattr(cluster_module, "verify", verify_on)
    specs = [("a", "fake strength=2 sleep=0.05"), ("b", "fake")]
    plan = make_plan(specs, deals=4)
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        backend = ClusterBackend(fake_play, cluster.scheduler_address, trust=UNVERIFIED)
        try:
            summary = run(plan, store, backend, tick_s=0.02)
        finally:
            backend.close()
        bad = [w.address for w in cluster.workers.values() if w.name == 1]
    refused = [r for r in store.records if r.detail.get("cause") == AbortCause.ENGINE_REFUSED]
    assert 1 <= len(refused) <= 2  # those sent before the first refusal came back
    assert list(backend.refusing) == bad
    assert {r.detail["worker"] for r in refused} == set(bad)
    assert summary.done == len(plan.keys) == 8  # each refused match played elsewhere
    assert Counter(r.key.id for r in store.records if r.rated).most_common(1)[0][1] == 1


def test_the_sprt_stops_a_cluster_run_and_progress_is_reported(make_plan: MakePlan) -> None:
    import distributed

    from bidref.tournament import Progress, Sprt

    from .tournament_fakes import fake_play

    sprt = Sprt(0, 100, 0.05, 0.05)
    plan = make_plan(
        [("strong", "fake strength=6 draw=0"), ("weak", "fake draw=0")], deals=300, sprt=sprt
    )
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    seen: list[Progress] = []
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster:
        backend = ClusterBackend(fake_play, cluster.scheduler_address, trust=UNVERIFIED)
        try:
            summary = run(plan, store, backend, on_progress=seen.append, tick_s=0.02)
        finally:
            backend.close()
    assert summary.sprt_stopped and 0 < summary.played < len(plan.keys)
    assert summary.played <= summary.done + 2  # at most the matches in flight after the stop
    assert [p.played for p in seen if p.last is not None] == list(range(1, summary.played + 1))
    for r in store.records:  # every transcript came back through the report
        assert (plan.out_dir / str(r.transcript)).read_text().startswith('{"fake"')


def logs_play(job: MatchJob) -> MatchReport:
    assert job.debug_log is not None and job.stderr_dir is not None
    Path(job.debug_log).write_text("debug lines")
    Path(job.stderr_dir).mkdir(parents=True, exist_ok=True)
    (Path(job.stderr_dir) / f"{job.stderr_prefix}A-a.stderr.log").write_text("stderr of A")
    Path(job.transcript).write_bytes(b"t")
    return MatchReport(winner=0, reason="round_limit", rated=True)


def test_debug_logs_and_stderr_files_come_back_with_the_transcript(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    from dataclasses import replace

    plan = replace(make_plan(deals=1), stderr_dir=tmp_path / "stderr", debug=True)
    job = plan.job(plan.keys[0], 1)
    report = play_task(logs_play, job, Shipment(sys.executable))
    assert isinstance(report, MatchReport)
    assert job.debug_log is not None and job.stderr_dir is not None
    assert dict(report.outputs) == {
        job.debug_log: b"debug lines",
        os.path.join(job.stderr_dir, f"{job.stderr_prefix}A-a.stderr.log"): b"stderr of A",
        job.transcript: b"t",
    }
    assert report.outputs[-1][0] == job.transcript  # written last, just before the record
    assert not (tmp_path / "stderr").exists() and not Path(job.debug_log).exists()
