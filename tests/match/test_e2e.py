"""Real matches between sample engines in two languages, at fast time controls."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bidref.engines import EngineSpec, resolve_engine
from bidref.match.referee import MatchSpec, run_match
from bidref.rules import TimeControl
from bidref.transcript import commitment

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "engines" / "scripts"
FAST = TimeControl.of_seconds(bank=20, delay=0.05)  # generous bank: CI may be slow

pytestmark = pytest.mark.e2e


def test_c_against_python_random_over_pipes(c_first: Path, tmp_path: Path) -> None:
    spec = MatchSpec(
        engines=(
            resolve_engine(str(c_first)),
            resolve_engine(str(ROOT / "sample_engines/python_random/engine.py")),
        ),
        seed=3,
        time_control=FAST,
        max_rounds=4,
        stderr_dir=str(tmp_path),
    )
    out = run_match(spec, transcript_path=tmp_path / "t.jsonl")
    assert out.reason in ("balance", "round_limit"), out.summary()
    assert out.rated and out.engines == ("c_first", "python_random")
    assert out.decisions > 20
    assert [e["how"] for e in out.exits] == ["quit", "quit"]
    lines = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert lines[-1]["type"] == "result"
    for rev in (x for x in lines if x["type"] == "round_reveal"):
        start = next(x for x in lines if x["type"] == "round_start" and x["round"] == rev["round"])
        assert commitment(rev["salt"], rev["deal"]) == start["deal_commitment"]


def test_python_greedy_against_c_under_a_pty(c_first: Path) -> None:
    spec = MatchSpec(
        engines=(
            resolve_engine(str(ROOT / "sample_engines/python_greedy/engine.py")),
            resolve_engine(str(c_first)),
        ),
        seed=7,
        time_control=FAST,
        max_rounds=3,
        transport="pty",
    )
    out = run_match(spec)
    assert out.reason in ("balance", "round_limit"), out.summary()
    assert out.engines == ("python_greedy", "c_first")


def test_a_real_crash_reports_the_exit_code(c_first: Path) -> None:
    crasher = EngineSpec("crasher", (sys.executable, str(SCRIPTS / "first_legal.py"), "crash"))
    out = run_match(
        MatchSpec(engines=(crasher, resolve_engine(str(c_first))), seed=5, time_control=FAST)
    )
    assert (out.reason, out.winner) == ("crash", 1), out.summary()
    assert out.end.exit_code == 3
    assert out.exits[0]["how"] == "exited"  # it did not quit: it had crashed before


def test_a_crash_report_ends_with_the_engines_last_words(c_first: Path) -> None:
    # 1 MB of stderr just before the exit: the report waits until the pipe is read
    # to its end, so the tail is the engine's last output, not what came by then.
    crasher = EngineSpec("crasher", (sys.executable, str(SCRIPTS / "first_legal.py"), "crash_loud"))
    out = run_match(
        MatchSpec(engines=(crasher, resolve_engine(str(c_first))), seed=5, time_control=FAST)
    )
    assert (out.reason, out.winner) == ("crash", 1), out.summary()
    assert out.end.stderr_tail.endswith("last words: out of memory\n")


def test_a_crash_is_seen_while_a_grandchild_keeps_stdout_open(c_first: Path) -> None:
    # The engine's stdout stays open (its grandchild holds it), so no EOF comes:
    # the referee still sees the engine exit, long before its bank of 20 s is out.
    crasher = EngineSpec("crasher", (sys.executable, str(SCRIPTS / "first_legal.py"), "crash_gc"))
    out = run_match(
        MatchSpec(engines=(crasher, resolve_engine(str(c_first))), seed=5, time_control=FAST)
    )
    assert (out.reason, out.winner) == ("crash", 1), out.summary()
    assert out.end.exit_code == 3
    assert out.exits[0]["how"] == "exited"  # it did not quit: it had crashed before


def test_a_real_hang_loses_on_time_and_nothing_survives(c_first: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    hang = EngineSpec("hang", (sys.executable, str(SCRIPTS / "grandchild.py"), str(pidfile)))
    spec = MatchSpec(
        engines=(resolve_engine(str(c_first)), hang),
        seed=5,
        time_control=TimeControl.of_seconds(bank=0.2, delay=0.05),
        grace_ns=100_000_000,
    )
    out = run_match(spec)
    assert (out.reason, out.winner) == ("time", 0), out.summary()
    # the referee woke near the deadline: well within its timing tolerance
    assert 0 <= out.end.overrun_ms < 200
    assert out.exits[1]["how"] == "sigkill"
    from tests.engines.test_transport import _pid_dead

    grandchild = int(pidfile.read_text())
    import time

    give_up = time.monotonic() + 15  # (a bound for a loaded machine, not a wait)
    while not _pid_dead(grandchild) and time.monotonic() < give_up:
        time.sleep(0.01)
    assert _pid_dead(grandchild)


LONG_LINE_ENGINE = (
    "import json, sys, time\n"
    "for line in sys.stdin:\n"
    "    msg = json.loads(line)\n"
    "    if msg['type'] == 'hello':\n"
    "        print(json.dumps({'type': 'hello', 'name': 'long', 'protocol': 'bidref/1'}),"
    " flush=True)\n"
    "    elif msg['type'] == 'request':\n"
    "        sys.stdout.write('x' * 2000); sys.stdout.flush(); time.sleep(0.2)\n"
    "        sys.stdout.write('x' * 3000 + '\\n'); sys.stdout.flush()\n"
)


def test_an_overlong_line_is_reported_without_a_wrong_length(c_first: Path) -> None:
    # The line is cut off once it is over the limit, before its end is read: the
    # report must not pass the bytes read so far off as the line's length.
    long = EngineSpec("long", (sys.executable, "-c", LONG_LINE_ENGINE))
    out = run_match(MatchSpec(engines=(long, long), seed=5, time_control=FAST, max_line=1000))
    assert (out.reason, out.end.seat) == ("protocol", out.winner ^ 1), out.summary()
    assert "a line of more than 1000 bytes" in out.end.problem
    assert "2000" not in out.end.problem


def test_a_missing_engine_is_a_startup_failure(c_first: Path) -> None:
    out = run_match(
        MatchSpec(
            engines=(resolve_engine(str(c_first)), EngineSpec("ghost", ("/nonexistent/ghost",))),
            time_control=FAST,
        )
    )
    assert (out.reason, out.winner, out.rated) == ("startup", 0, False)
    assert "cannot start" in out.end.problem


def test_stderr_logs_stay_in_their_folder_whatever_the_engine_name(
    c_first: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    odd = EngineSpec("../sub/odd name", (str(c_first),))
    out = run_match(
        MatchSpec(
            engines=(odd, resolve_engine(str(c_first))),
            seed=5,
            time_control=FAST,
            max_rounds=1,
            stderr_dir=str(logs),
        )
    )
    assert out.reason == "round_limit", out.summary()
    assert sorted(p.name for p in logs.iterdir()) == [
        "A-.._sub_odd_name.stderr.log",
        "B-c_first.stderr.log",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs"]


def test_a_grandchild_in_its_own_session_does_not_survive_the_match(
    c_first: Path, tmp_path: Path
) -> None:
    # The engine exits at once on quit: its grandchild, in a session of its own,
    # must have been found before, to be ended with it.
    from tests.engines.test_transport import _pid_dead

    pidfile = tmp_path / "pids"
    escapee = EngineSpec(
        "escapee", (sys.executable, str(SCRIPTS / "escapee.py"), str(pidfile), "plays")
    )
    out = run_match(
        MatchSpec(
            engines=(escapee, resolve_engine(str(c_first))),
            seed=5,
            time_control=TimeControl.of_seconds(bank=0.2, delay=0.05),
        )
    )
    assert out.reason == "time", out.summary()
    grandchild = int(pidfile.read_text())
    import time

    give_up = time.monotonic() + 15  # (a bound for a loaded machine, not a wait)
    while not _pid_dead(grandchild) and time.monotonic() < give_up:
        time.sleep(0.01)
    assert _pid_dead(grandchild)
