"""A --cluster run's transcripts mirrored into the coordinator's folder as they grow
(``bidref.tournament.live_mirror``): the coordinator holds what is live."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from bidref.live.watch import Watch
from bidref.tournament import MatchJob, MatchReport, ResultsStore, run
from bidref.tournament.live_mirror import TOPIC, CoordinatorMirror, WorkerMirror
from bidref.tournament.runner import RESULTS_FILE
from bidref.transcript.files import open_sink

from ..tournament.conftest import MakePlan, make_plan  # noqa: F401 (a fixture)


class Wire:
    """Worker -> coordinator, in order, as the dask event topic carries it."""

    def __init__(self, coordinator: CoordinatorMirror) -> None:
        self.coordinator = coordinator
        self.sent: list[dict[str, Any]] = []

    def __call__(self, topic: str, msg: dict[str, Any]) -> None:
        assert topic == TOPIC
        self.sent.append(msg)
        self.coordinator.on_event((0.0, msg))


def test_the_coordinator_copy_grows_with_the_worker_file(tmp_path: Path) -> None:
    source = tmp_path / "worker" / "transcript.jsonl.gz"
    source.parent.mkdir()
    dest = tmp_path / "out" / "transcripts" / "a--b" / "1-0.jsonl.gz"
    running = {str(dest)}
    wire = Wire(CoordinatorMirror(lambda p: p in running))
    mirror = WorkerMirror(source, str(dest), wire)
    assert not mirror.step()  # nothing written yet
    sink = open_sink(source)
    for i in range(3):
        sink.write(b'{"line":%d}\n' % i)
        assert mirror.step()
        assert dest.read_bytes() == source.read_bytes()
    assert not mirror.step()
    sink.close()
    # the task played again elsewhere (its worker lost): a new run starts the copy over
    again = WorkerMirror(source, str(dest), wire)
    source.write_bytes(source.read_bytes()[:30])
    assert again.step() and dest.read_bytes() == source.read_bytes()
    # a message that does not fit (a gap) is dropped; the next that fits goes on
    wire.coordinator.on_event((0.0, {**wire.sent[-1], "offset": 10_000, "data": b"x"}))
    assert dest.read_bytes() == source.read_bytes()


def test_only_a_running_matchs_transcript_is_ever_written(tmp_path: Path) -> None:
    """A worker names the file: the coordinator writes none but a running match's."""
    victim = tmp_path / "results.jsonl"
    victim.write_text("keep\n")
    coordinator = CoordinatorMirror(lambda p: False)
    for path in (str(victim), str(tmp_path / "new.txt")):
        coordinator.on_event((0.0, {"path": path, "run": "r", "offset": 0, "data": b"evil"}))
    for bad in (None, (0.0,), (0.0, {"path": 1}), (0.0, {"path": str(victim), "data": "s"})):
        coordinator.on_event(bad)
    assert victim.read_text() == "keep\n" and not (tmp_path / "new.txt").exists()


GATE = threading.Event()  # the test saw the mirrored transcript of the running match
SEEN: list[int] = []


def gated_play(job: MatchJob) -> MatchReport:
    """Writes the first lines, waits until the test has seen them at home, ends."""
    sink = open_sink(Path(job.transcript))
    sink.write(b'{"type":"header","seq":0,"t_ns":0,"engines":[{"name":"alpha"},{"name":"beta"}]}\n')
    sink.write(b'{"type":"round_start","seq":1,"t_ns":5,"round":1,"opening":"forced"}\n')
    GATE.wait(30)
    sink.write(b'{"type":"result","seq":2,"t_ns":9,"winner":0,"reason":"balance"}\n')
    sink.close()
    return MatchReport(winner=0, reason="balance", rated=True, balances=(300, 0), rounds=1)


@pytest.mark.e2e
def test_a_cluster_match_shows_in_the_coordinators_folder_while_it_runs(
    make_plan: MakePlan,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    distributed = pytest.importorskip("distributed")
    from bidref.tournament.cluster import ClusterBackend
    from bidref.tournament.security import ClusterTrust

    plan = make_plan(deals=1, out=tmp_path / "out")
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, plan.header)
    watch = Watch(plan.out_dir)
    GATE.clear()
    result: list[Any] = []
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        # (its transcript is a stand-in of three lines: no proof, which would refuse it)
        trust = ClusterTrust(verify=False)
        backend = ClusterBackend(gated_play, cluster.scheduler_address, trust=trust)
        try:
            runner = threading.Thread(target=lambda: result.append(run(plan, store, backend)))
            runner.start()
            seen = threading.Event()
            for _ in range(300):  # bounded: 30 s
                watch.refresh()
                running = watch.snapshot()["boards"]["running"]
                if running and running[0]["lines"] == 2 and running[0]["round"] == 1:
                    seen.set()
                    break
                seen.wait(0.1)
            assert seen.is_set(), "the running match never showed in the coordinator's folder"
            assert store.records == []  # (still running: no record yet)
            GATE.set()
            runner.join(timeout=60)
        finally:
            GATE.set()
            backend.close()
    assert result and result[0].done == 2
    watch.refresh()
    assert watch.snapshot()["boards"]["running"] == []
    assert watch.snapshot()["tables"]["recorded"] == 2
