"""The folder read as it grows: a real tournament's files written again, step by step,
into a new folder, as the runner and the referees wrote them."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from bidref.live.watch import STALE_MARGIN_S, Watch
from bidref.transcript.files import decompress, open_sink

from .conftest import Played

TILE = re.compile(r"(?<![0-9])([0-6])[-|]([0-6])(?![0-9])")


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def _start(played: Played, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.jsonl").write_text(played.header + "\n")


def _append_record(played: Played, out: Path, i: int) -> None:
    with (out / "results.jsonl").open("a") as f:
        f.write(played.records[i] + "\n")


def test_a_running_match_shows_as_it_is_written_and_leaves_with_its_record(
    played: Played, tmp_path: Path
) -> None:
    out = tmp_path / "live"
    _start(played, out)
    clock = Clock(os.path.getmtime(out / "results.jsonl"))
    watch = Watch(out, now=clock)
    assert watch.refresh() == (True, False)
    assert watch.snapshot()["tables"]["recorded"] == 0
    assert watch.refresh() == (False, False)  # nothing new: nothing changed

    rel = str(played.record(0)["transcript"])
    lines = decompress(played.transcripts[rel], rel).split(b"\n")[:-1]
    path = out / rel
    path.parent.mkdir(parents=True)
    sink = open_sink(path)
    written = 0
    reveals = 0
    while written < len(lines):
        step = lines[written : written + 7]
        sink.write(b"\n".join(step) + b"\n")
        written += len(step)
        reveals += sum(b'"round_reveal"' in x for x in step)
        tables, boards = watch.refresh()
        assert (tables, boards) == (False, True)
        (board,) = watch.snapshot()["boards"]["running"]
        assert board["id"] == rel and board["lines"] == written
        # what is served names no tile that is not on the table, but the
        # hands of a round whose reveal line has been written
        revealed = board.pop("revealed")
        assert revealed is None or revealed["round"] <= reveals
        if board["result"] is None:
            named = {f"{min(a, b)}-{max(a, b)}" for a, b in TILE.findall(json.dumps(board))}
            on_table = {f"{min(a, b)}-{max(a, b)}" for a, b in TILE.findall(board["layout"])}
            assert named <= on_table
    sink.close()
    assert board["result"] is not None
    assert watch.snapshot()["tables"]["finished"] == []

    _append_record(played, out, 0)
    assert watch.refresh() == (True, True)
    snap = watch.snapshot()
    assert snap["boards"]["running"] == []
    t = snap["tables"]
    assert t["recorded"] == 1 and t["rated"] == 1
    assert [f["index"] for f in t["finished"]] == [0]
    assert t["finished"][0]["replay"] == "/replay/0.html"
    assert "python_greedy" in t["standings"] and "python_random" in t["cross"]
    assert watch.stderr_log(0, 0) is not None and watch.stderr_log(0, 0).is_file()  # type: ignore[union-attr]
    assert watch.stderr_log(1, 0) is None  # not a finished match
    assert watch.stderr_log(0, 2) is None


def test_a_quiet_transcript_without_a_record_is_not_running(played: Played, tmp_path: Path) -> None:
    """Left by an interrupted run: quiet for longer than a decision may take."""
    out = tmp_path / "live"
    _start(played, out)
    rel = str(played.record(1)["transcript"])
    path = out / rel
    path.parent.mkdir(parents=True)
    path.write_bytes(played.transcripts[rel][: len(played.transcripts[rel]) // 2])
    mtime = os.path.getmtime(path)
    quiet = 30 + 1 + STALE_MARGIN_S  # bank + delay + the margin
    watch = Watch(out, now=Clock(mtime + quiet + 1))
    watch.refresh()
    assert watch.snapshot()["boards"]["running"] == []

    clock = Clock(mtime + 1)
    watch = Watch(out, now=clock)
    watch.refresh()
    assert len(watch.snapshot()["boards"]["running"]) == 1
    clock.t = mtime + quiet + 1
    assert watch.refresh() == (False, True)
    assert watch.snapshot()["boards"]["running"] == []
    # --resume plays the interrupted match again, into the same file
    path.write_bytes(played.transcripts[rel])
    clock.t = os.path.getmtime(path) + 1
    assert watch.refresh() == (False, True)
    (board,) = watch.snapshot()["boards"]["running"]
    assert board["result"] is not None  # read from its start again


def test_faults_count_per_engine_and_worker_with_links(played: Played, tmp_path: Path) -> None:
    out = tmp_path / "live"
    _start(played, out)
    crash = json.loads(played.records[0])
    loser = crash["engine_b"] if crash["winner"] == crash["engine_a"] else crash["engine_a"]
    crash.update(reason="crash", at_fault=loser, detail={"seat": 1, "worker": "tcp://w1:1"})
    aborted = json.loads(played.records[1])
    aborted.update(reason="aborted", rated=False, winner=None, detail={"cause": "referee"})
    with (out / "results.jsonl").open("a") as f:
        f.write(json.dumps(crash) + "\n" + json.dumps(aborted) + "\n")
    watch = Watch(out)
    watch.refresh()
    f = watch.snapshot()["tables"]["faults"]
    kinds = f["kinds"]
    engines = {e["name"]: e for e in f["engines"]}
    assert engines[loser]["counts"][kinds.index("crashes")] == 1
    assert all(e["counts"][kinds.index("aborted")] == 1 for e in engines.values())
    link = engines[loser]["links"][0]
    assert link["replay"] == "/replay/0.html" and link["stderr"].startswith("/stderr/0/")
    workers = {w["name"]: w["counts"] for w in f["workers"]}
    assert workers["tcp://w1:1"][kinds.index("crashes")] == 1
    assert workers["here"][kinds.index("aborted")] == 1


def test_a_results_file_cut_and_rewritten_is_read_again(played: Played, tmp_path: Path) -> None:
    out = tmp_path / "live"
    _start(played, out)
    _append_record(played, out, 0)
    _append_record(played, out, 1)
    watch = Watch(out)
    watch.refresh()
    assert watch.snapshot()["tables"]["recorded"] == 2
    _start(played, out)  # (--resume cuts a torn line; here: a new file)
    _append_record(played, out, 1)
    assert watch.refresh()[0]
    assert watch.snapshot()["tables"]["recorded"] == 1


def test_a_folder_without_results_says_so(tmp_path: Path) -> None:
    watch = Watch(tmp_path)
    assert watch.refresh() == (False, False)
    assert "no results file" in str(watch.snapshot()["tables"]["problem"])


def test_the_sprt_is_its_llr_between_its_bounds(played: Played, tmp_path: Path) -> None:
    out = tmp_path / "live"
    out.mkdir()
    header = json.loads(played.header)
    header["sprt"] = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    (out / "results.jsonl").write_text(json.dumps(header) + "\n")
    watch = Watch(out)
    watch.refresh()
    s = watch.snapshot()["tables"]["sprt"]
    assert s["llr"] in (None, 0.0) and s["pairs"] == 0  # no complete pair yet (never NaN)
    assert round(s["lower"], 3) == -2.944 and round(s["upper"], 3) == 2.944
    for i in range(len(played.records)):
        _append_record(played, out, i)
    watch.refresh()
    s = watch.snapshot()["tables"]["sprt"]
    assert s["pairs"] == 1 and isinstance(s["llr"], float) and s["status"] == "continue"
    assert s["pairing"] == "python_greedy vs python_random"
