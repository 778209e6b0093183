"""Engines on the command line, cutechess style: --engine/--each, names, checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.cli import app
from bidref.cli.options import engines, seat_clocks
from bidref.engines.spec import (
    EngineSpecError,
    parse_engine_args,
    parse_time_control,
    unique_names,
)
from bidref.errors import UsageError
from bidref.rules.clock import SECOND, TimeControl

ROOT = Path(__file__).resolve().parents[2]
RANDOM = str(ROOT / "sample_engines" / "python_random" / "engine.py")
GREEDY = str(ROOT / "sample_engines" / "python_greedy" / "engine.py")
JS = str(ROOT / "sample_engines" / "js_random" / "engine.js")
runner = CliRunner()


def test_an_engine_string_has_every_cutechess_key(tmp_path: Path) -> None:
    a = parse_engine_args(
        "cmd='python3 bot.py' name=fast dir=bots arg=--quiet arg=-v option.depth=3 "
        "option.book=x.txt option.on=true env.BOT=1 tc=5+0.1 transport=pty"
    )
    assert (a.cmd, a.name, a.dir, a.args) == ("python3 bot.py", "fast", "bots", ("--quiet", "-v"))
    assert dict(a.options) == {"depth": 3, "book": "x.txt", "on": True}
    assert dict(a.env) == {"BOT": "1"}
    assert a.time_control == TimeControl(5 * SECOND, SECOND // 10)
    assert a.transport == "pty"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("cmd=./e speed=3", "unknown key 'speed'; the keys are cmd, name, dir"),
        ("cmd=./e justaword", "'justaword' is not KEY=VALUE"),
        ("cmd=./e tc=inf", "tc= inf: give a finite number of seconds"),
        ("cmd=./e tc=nan+1", "tc= nan: give a finite number of seconds"),
        ("cmd=./e tc=-1+1", "tc= -1: give a finite number of seconds"),
        ("cmd=./e tc=0+0", "a clock with neither bank nor delay"),
        ("cmd=./e tc=5+", "write BANK+DELAY in seconds"),
        ("cmd=./e transport=ssh", "transport= 'ssh': use pipe, or pty"),
        ("cmd='./e", "cannot split it"),
        ("", "is empty"),
    ],
)
def test_a_bad_engine_string_is_refused_with_the_fix(text: str, says: str) -> None:
    with pytest.raises(EngineSpecError, match=None) as e:
        parse_engine_args(text)
    assert says in str(e.value)


def test_time_controls_parse_bank_plus_delay() -> None:
    assert parse_time_control("120+10") == TimeControl(120 * SECOND, 10 * SECOND)
    assert parse_time_control("30") == TimeControl(30 * SECOND, 0)


def test_names_are_numbered_alike_when_they_clash() -> None:
    assert unique_names(["node", "node"]) == ["node-1", "node-2"]
    assert unique_names(["a", "a", "a-1"]) == ["a-2", "a-3", "a-1"]
    assert unique_names(["a", "b"]) == ["a", "b"]


def test_an_interpreted_engine_is_named_after_its_script() -> None:
    found = engines([f"node {JS}", f"{sys.executable} -u {RANDOM}", "cat -n"], [], check=False)
    assert [c.spec.name for c in found] == ["js_random", "python_random", "cat"]
    same = engines([RANDOM, RANDOM], [], check=False)
    assert [c.spec.name for c in same] == ["python_random-1", "python_random-2"]


def test_each_applies_to_all_and_an_engine_s_own_settings_win() -> None:
    found = engines(
        [RANDOM],
        [f"cmd={GREEDY} name=g option.depth=5 tc=1+0.5"],
        ["option.depth=2 option.book=b.txt env.X=1 tc=9+1"],
    )
    first, second = (c.spec for c in found)
    assert dict(first.options) == {"depth": 2, "book": "b.txt"}
    assert dict(second.options) == {"depth": 5, "book": "b.txt"}
    assert first.env["X"] == "1" and second.name == "g"
    assert first.time_control == TimeControl(9 * SECOND, SECOND)
    assert second.time_control == TimeControl(SECOND, SECOND // 2)
    base = TimeControl(60 * SECOND, SECOND)
    assert seat_clocks((first, second), base) == (first.time_control, second.time_control)


def test_dir_is_the_engine_s_folder_and_cmd_is_found_in_it() -> None:
    folder = ROOT / "sample_engines" / "python_random"
    (found,) = engines([], [f"cmd=engine.py dir={folder} arg=--x"])
    assert found.spec.cwd == str(folder)
    assert found.spec.command == (sys.executable, str(folder / "engine.py"), "--x")


def test_programs_that_cannot_start_are_refused_before_anything_starts(tmp_path: Path) -> None:
    plain = tmp_path / "engine"
    plain.write_text("#!/bin/sh\n")
    plain.chmod(0o644)
    for args, says in (
        (["nonexistent-command"], "there is no program 'nonexistent-command' (not on PATH)"),
        ([str(plain)], "not executable: run `chmod +x"),
        (["./no/such/engine --fast"], "does not exist"),
    ):
        with pytest.raises(UsageError) as e:  # said by the CLI's one handler
            engines(args, [])
        assert says in str(e.value)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["sample_engines/c_first/engine", "nonexistent-command"], "there is no program"),
        ([RANDOM], "match needs two engines, got 1"),
        ([RANDOM, RANDOM, "--engine", f"cmd={RANDOM}"], "match needs two engines, got 3"),
        ([RANDOM, "--engine", "name=x"], "no cmd=; give the engine's command"),
        ([RANDOM, "--engine", f"cmd={RANDOM} tc=inf"], "tc= inf"),
        ([RANDOM, RANDOM, "--each", "colour=red"], "unknown key 'colour'"),
    ],
)
def test_match_refuses_bad_engines_with_exit_2(args: list[str], says: str) -> None:
    res = runner.invoke(app, ["match", *args])
    assert res.exit_code == 2, res.output
    assert says in " ".join(res.output.split())
    assert res.exception is None or isinstance(res.exception, SystemExit)


def test_an_existing_transcript_needs_force(tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl"
    t.write_text("keep me\n")
    res = runner.invoke(app, ["match", RANDOM, RANDOM, "--transcript", str(t)])
    assert res.exit_code == 2
    assert "already exists: add --force to overwrite it" in res.output
    assert t.read_text() == "keep me\n"


def test_an_existing_stderr_log_needs_force(tmp_path: Path) -> None:
    (tmp_path / "A-python_random-1.stderr.log").write_text("old\n")
    res = runner.invoke(app, ["match", RANDOM, RANDOM, "--stderr-dir", str(tmp_path)])
    assert res.exit_code == 2
    assert "A-python_random-1.stderr.log is already there: add --force" in res.output


def _bidref(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``bidref ARGS`` as a process (run in ``cwd``), as a user runs it."""
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-c", "from bidref.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


@pytest.mark.e2e
def test_debug_shows_every_line_live_on_stderr_with_time_and_name(tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl"
    res = _bidref(
        "match",
        "--engine",
        f"cmd={RANDOM} name=left",
        "--engine",
        f"cmd={GREEDY} name=right",
        "--seed",
        "4",
        "--bank",
        "20",
        "--delay",
        "1",
        "--max-rounds",
        "1",
        "--debug",
        "--json",
        "--transcript",
        str(t),
    )
    assert res.returncode == 0, res.stderr
    lines = res.stderr.splitlines()
    hello_out = [ln for ln in lines if '>left(A): {"type":"hello"' in ln]
    hello_in = [ln for ln in lines if "<right(B): " in ln and '"hello"' in ln]
    assert hello_out and hello_in
    seconds = [float(ln.split()[0]) for ln in lines if ln.split() and ln.split()[1][0] in "<>"]
    assert seconds == sorted(seconds) or len(seconds) > 4  # stamped by the referee's clock
    # every request the referee sent is in the log, and every action received
    transcript = [json.loads(x) for x in t.read_text().splitlines()]
    requests = sum(1 for ln in lines if '"type":"request"' in ln)
    assert requests >= sum(1 for x in transcript if x["type"] == "action")
    result = json.loads(res.stdout)
    assert result["reason"] in ("balance", "round_limit")
    assert result["engines"] == ["left", "right"]  # the command line's names, not the hellos'
    hellos = [x for x in transcript if x["type"] == "hello"]
    assert {
        h["data"]["engine"]["name"] if "data" in h else h["engine"]["name"] for h in hellos
    } == {
        "python_random",
        "python_greedy",
    }


@pytest.mark.e2e
def test_a_handicap_is_shown_and_recorded(tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl"
    res = _bidref(
        "match",
        "--engine",
        f"cmd={RANDOM} tc=30+2",
        GREEDY,
        "--seed",
        "4",
        "--bank",
        "20",
        "--delay",
        "1",
        "--max-rounds",
        "1",
        "--transcript",
        str(t),
    )
    assert res.returncode == 0, res.stderr
    # positional engines sit first, then the --engine ones
    assert "A python_greedy  vs  B python_random" in res.stdout
    assert "handicap: A 20+1 s, B 30+2 s (bank+delay)" in res.stdout
    header = json.loads(t.read_text().splitlines()[0])
    engines_ = header["engines"] if "engines" in header else header["data"]["engines"]
    assert engines_[1]["time_control"] == {"bank_ns": 30 * SECOND, "delay_ns": 2 * SECOND}
    assert "time_control" not in engines_[0]


@pytest.mark.e2e
def test_the_live_table_and_the_result_use_the_command_line_names(tmp_path: Path) -> None:
    res = _bidref(
        "match",
        "--engine",
        f"cmd={RANDOM} name=left",
        "--engine",
        f"cmd={GREEDY} name=right",
        "--seed",
        "4",
        "--bank",
        "20",
        "--delay",
        "1",
    )
    assert res.returncode == 0, res.stderr
    assert "python_random" not in res.stdout and "python_greedy" not in res.stdout, res.stdout
    result = [ln for ln in res.stdout.splitlines() if ln.startswith("result: ")]
    assert len(result) == 1 and ("(left) wins" in result[0] or "(right) wins" in result[0])
