"""An engine's stderr with times: stamped by the sink with the match's clock, kept in a
sidecar beside the unchanged log, and put in place by ``bidref replay --logs``."""

from __future__ import annotations

import json
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.cli import app
from bidref.engines.transport import STDERR_TIMES_CAP, StderrSink, stderr_times_path
from bidref.testing import FakeClock
from bidref.transcript.lines import Header, TimeControlField
from bidref.transcript.replay import replay
from bidref.transcript.stderr_log import StderrLine, parse_times, place, read_stderr, split_lines
from tests.transcript.scripted_seats import ScriptedSeat, referee_transcript

ROOT = Path(__file__).resolve().parents[2]
MS = 1_000_000

# -- the sink ---------------------------------------------------------------------------


def test_the_sink_stamps_each_chunk_with_its_clock_and_keeps_the_bytes(tmp_path: Path) -> None:
    clock = FakeClock(5_000)
    path = tmp_path / "A-x.stderr.log"
    sink = StderrSink(path, clock=clock)
    sink.write(b"first line\nsecond ")
    clock.now = 7_000
    sink.write(b"half\n")
    sink.close()
    assert path.read_bytes() == b"first line\nsecond half\n"  # exactly the engine's bytes
    side = stderr_times_path(path)
    assert side.name == "A-x.stderr.log.times.json"
    assert json.loads(side.read_text()) == {
        "format": "bidref-stderr-times/1",
        "chunks": [[18, 5_000], [23, 7_000]],
    }
    assert stat.S_IMODE(side.stat().st_mode) == 0o600


def test_the_sink_stamps_only_within_the_log_cap_and_without_a_clock_not_at_all(
    tmp_path: Path,
) -> None:
    clock = FakeClock(1)
    capped = StderrSink(tmp_path / "a.log", cap=10, clock=clock)
    capped.write(b"0123456\n")
    capped.write(b"789\nmore\n")  # crosses the cap: stamped (its start is kept)
    capped.write(b"lost\n")  # past the cap: not in the log, no time
    capped.close()
    assert json.loads(stderr_times_path(tmp_path / "a.log").read_text())["chunks"] == [
        [8, 1],
        [17, 1],
    ]
    plain = StderrSink(tmp_path / "b.log")
    plain.write(b"x\n")
    plain.close()
    assert plain.times == [] and not stderr_times_path(tmp_path / "b.log").exists()
    assert STDERR_TIMES_CAP >= 1000


def test_an_older_runs_times_do_not_stay_beside_a_new_log(tmp_path: Path) -> None:
    path = tmp_path / "A-x.stderr.log"
    stderr_times_path(path).write_text('{"format":"bidref-stderr-times/1","chunks":[[9,1]]}')
    sink = StderrSink(path, clock=FakeClock())
    sink.close()  # this engine wrote nothing (as with --force over an older match's files)
    assert path.read_bytes() == b"" and not stderr_times_path(path).exists()


# -- lines and their times -----------------------------------------------------------------


def test_each_line_gets_the_time_of_the_chunk_that_completed_it() -> None:
    data = b"a\nb\nc-start c-end\nd"
    times = [(2, 110), (8, 120), (18, 130)]  # "c-" then "start c-end\n" came later
    assert split_lines(data, times, origin=100) == [
        StderrLine("a", 10),
        StderrLine("b", 20),
        StderrLine("c-start c-end", 30),
        StderrLine("d", None),  # past the stamped chunks
    ]
    assert split_lines(data, None, origin=100)[0] == StderrLine("a", None)  # an older referee
    assert split_lines(data, times, origin=None)[0] == StderrLine("a", None)


def test_a_damaged_sidecar_is_no_times() -> None:
    good = '{"format":"bidref-stderr-times/1","chunks":[[3,9],[5,12]]}'
    assert parse_times(good) == [(3, 9), (5, 12)]
    for bad in (
        "not json",
        '{"format":"other","chunks":[]}',
        '{"format":"bidref-stderr-times/1","chunks":[[3]]}',
        '{"format":"bidref-stderr-times/1","chunks":[[5,1],[3,2]]}',  # offsets go back
        '{"format":"bidref-stderr-times/1","chunks":[[true,1]]}',
    ):
        assert parse_times(bad) is None, bad


def _header(origin: int | None) -> Header:
    return Header(
        seq=0,
        t_ns=0,
        format="bidref-transcript/2",
        rules="spectacular-bid/1",
        protocol="bidref/1",
        time_control=TimeControlField(1, 1),
        illegal="reject",
        monotonic_origin_ns=origin,
    )


def test_read_stderr_uses_the_header_origin(tmp_path: Path) -> None:
    log = tmp_path / "B.stderr.log"
    log.write_bytes(b"x\ny\n")
    stderr_times_path(log).write_text('{"format":"bidref-stderr-times/1","chunks":[[2,1005]]}')
    assert read_stderr(log, _header(1000)) == [StderrLine("x", 5), StderrLine("y", None)]
    assert read_stderr(tmp_path / "missing.log", _header(1000)) is None


# -- in a replay ---------------------------------------------------------------------------


class _StderrSeat(ScriptedSeat):
    """A scripted engine that writes a line to its stderr (a real sink on the fake
    clock) for every request, 2 ms after reading it, before it answers."""

    log_dir: Path

    def __init__(self, name: str, clock: FakeClock, seed: int, **kw: object) -> None:
        super().__init__(name, clock, seed, **kw)  # type: ignore[arg-type]
        self.path = self.log_dir / f"{name}.stderr.log"
        self.sink = StderrSink(self.path, clock=clock)
        self.requests = 0

    def _on(self, msg: dict[str, object]) -> None:
        super()._on(msg)
        if msg.get("type") == "request":
            self.requests += 1
            before = self.clock.now
            self.clock.now += 2 * MS
            self.sink.write(f"thinking about request {msg['id']}\n".encode())
            self.clock.now = before

    def stderr_bytes(self) -> int:
        return self.sink.total

    def close(self, quit_line: str | None, grace_ns: int):  # type: ignore[no-untyped-def]
        self.sink.close()
        return super().close(quit_line, grace_ns)

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "stderr_log": str(self.path)}


def _stderr_transcript(tmp_path: Path) -> Path:
    _StderrSeat.log_dir = tmp_path
    path = tmp_path / "t.jsonl"
    referee_transcript(
        path, seed=5, max_rounds=1, format="bidref-transcript/2", seat_class=_StderrSeat
    )
    return path


def test_replay_places_stderr_lines_after_the_line_written_before_them(tmp_path: Path) -> None:
    path = _stderr_transcript(tmp_path)
    report = replay(path.read_bytes())
    assert report.ok and report.header is not None
    lines = read_stderr(tmp_path / "alpha.stderr.log", report.header)
    assert lines is not None and all(ln.t_ns is not None for ln in lines)
    steps = place(report, 0, lines)
    assert len(steps) == len(lines) > 0
    by_line = {e.line: e.item for e in report.entries if hasattr(e.item, "t_ns")}
    for s in steps:
        # the stamp is 2 ms after a request to seat A, which came before it ...
        before = by_line[s.line]
        assert before.t_ns <= (s.t_ns or 0)
        # ... and every later line was written after it
        later = [it for n, it in by_line.items() if n > s.line]
        assert all(it.t_ns > (s.t_ns or 0) for it in later[:1])


def test_replay_logs_shows_stderr_in_place_with_times(tmp_path: Path) -> None:
    path = _stderr_transcript(tmp_path)
    out = CliRunner().invoke(app, ["replay", str(path), "--logs", "--width", "60"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    # the request to A is line 7 (0.487 s), its stderr note 2 ms later, A's reply line 8
    assert lines[:6] == [
        "Round 1 — forced opening; balances A 150 · B 150 " + "─" * 31,
        "    6  B  open 4-4 · count 8 · 0.49s, bank 30.00s",
        "    7  A stderr at 0.489s: thinking about request 2",
        "    8  A  play 2-4 4-4:line_b · count 10 · A +10 → 160–140 · 0.46s, bank 30.00s",
        "   10  B  play 3-4 4-4:line_a · count 5 · B +5 → 155–145 · 0.67s, bank 29.83s",
        "   11  A stderr at 1.627s: thinking about request 4",
    ]
    assert sum("A stderr at" in ln for ln in lines) == 7  # one per request to A
    assert "stderr of A" not in out.output  # nothing left to show after the game


def test_a_log_without_times_is_shown_after_the_game(tmp_path: Path) -> None:
    path = _stderr_transcript(tmp_path)
    stderr_times_path(tmp_path / "alpha.stderr.log").unlink()  # as an older referee left it
    out = CliRunner().invoke(app, ["replay", str(path), "--logs"])
    assert out.exit_code == 0, out.output
    assert "A stderr at" not in out.output
    after = out.output.split("stderr of A", 1)[1]
    assert after.splitlines()[1] == "thinking about request 2"  # A's first


@pytest.mark.e2e
def test_a_real_engines_stderr_is_shown_in_place(tmp_path: Path) -> None:
    """chatty_stderr writes to stderr before each reply; its log keeps exactly its
    bytes, and replay --logs shows the lines before the result, with times."""
    t = tmp_path / "t.jsonl"
    bidref = str(Path(sys.executable).parent / "bidref")
    subprocess.run(
        [
            bidref,
            "match",
            str(ROOT / "sample_engines" / "c_first" / "engine"),
            str(ROOT / "tests" / "engines_broken" / "chatty_stderr.py"),
            *("--seed", "3", "--max-rounds", "1", "--bank", "60", "--delay", "5"),
            *("--transcript", str(t), "--stderr-dir", str(tmp_path)),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    log = tmp_path / "B-chatty_stderr.stderr.log"
    assert log.read_bytes().startswith(b"debug 1.0: considering")
    out = subprocess.run(
        [bidref, "replay", str(t), "--logs"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    placed = [i for i, ln in enumerate(lines) if re.search(r"B stderr at \d+\.\d{3}s: debug", ln)]
    result = next(i for i, ln in enumerate(lines) if "Match over" in ln)
    assert placed and placed[0] < result
