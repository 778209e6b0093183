"""`bidref match` through the typer app: exit codes, --json, the live display."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.cli import app

ROOT = Path(__file__).resolve().parents[2]
RANDOM = str(ROOT / "sample_engines" / "python_random" / "engine.py")
runner = CliRunner()


@pytest.mark.e2e
def test_json_result(c_first: Path, tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl"
    res = runner.invoke(
        app,
        [
            "match",
            str(c_first),
            RANDOM,
            "--seed",
            "3",
            "--bank",
            "20",
            "--delay",
            "0.05",
            "--max-rounds",
            "2",
            "--json",
            "--transcript",
            str(t),
        ],
    )
    assert res.exit_code == 0, res.output
    result = json.loads(res.stdout)
    assert result["reason"] in ("balance", "round_limit")
    assert result["engines"] == ["c_first", "python_random"]
    assert result["transcript_path"] == str(t)
    assert json.loads(t.read_text().splitlines()[-1])["type"] == "result"


@pytest.mark.e2e
def test_live_display_ends_with_a_result_line(c_first: Path) -> None:
    res = runner.invoke(
        app,
        [
            "match",
            str(c_first),
            str(c_first),
            "--seed",
            "5",
            "--bank",
            "20",
            "--delay",
            "0.05",
            "--max-rounds",
            "2",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "c_first" in res.output
    assert "result: " in res.output and "after 2 rounds" in res.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--illegal", "maybe"], "--illegal 'maybe': use reject or forfeit"),
        (["--transport", "ssh"], "--transport 'ssh': use pipe or pty"),
        (["--bank", "-1"], "--bank -1: give a finite number of seconds from 0"),
        (["--bank", "0", "--delay", "0"], "a clock with neither bank nor delay"),
        (["--startup", "0"], "--startup 0: give a positive number of seconds"),
        (["--bank", "nan"], "--bank nan"),
        (["--bank", "inf"], "--bank inf"),
        (["--delay", "1e300"], "--delay 1e+300"),
        (["--startup", "nan"], "--startup nan"),
        (["--transcript", "/nonexistent-dir/t.jsonl"], "--transcript"),
        (["--transcript", "/no[/red]/t.jsonl"], "/no[/red]/t.jsonl"),  # not rich markup
    ],
)
def test_bad_arguments_exit_2(args: list[str], says: str) -> None:
    res = runner.invoke(app, ["match", "a", "b", *args])
    assert res.exit_code == 2, res.output
    assert says in " ".join(re.sub("[│╭╮╰╯─]", " ", res.output).split())
    assert res.exception is None or isinstance(res.exception, SystemExit)


def test_a_stderr_dir_that_cannot_be_made_exits_2(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    res = runner.invoke(app, ["match", RANDOM, RANDOM, "--stderr-dir", str(afile / "logs")])
    assert res.exit_code == 2, res.output
    assert "--stderr-dir" in res.output


def test_a_missing_engine_path_exits_2_and_says_what_is_missing() -> None:
    res = runner.invoke(app, ["match", "sample_engines/c_nope/engine", RANDOM])
    assert res.exit_code == 2
    assert "does not exist: there is no folder 'sample_engines/c_nope'" in res.output
    assert "make -C" not in res.output  # (only for a program a C file builds)


@pytest.mark.e2e
def test_a_broken_engine_start_exits_3_with_the_reason() -> None:
    broken = f"{sys.executable} -c 'import sys; print(\"boom\", file=sys.stderr); sys.exit(1)'"
    res = runner.invoke(app, ["match", broken, RANDOM, "--json"])
    assert res.exit_code == 3
    result = json.loads(res.stdout)
    assert result["reason"] == "startup" and result["winner"] == 1
    assert "ended before its hello (exit code 1)" in result["detail"]["problem"]
    assert "boom" in result["detail"]["problem"]


def test_help_teaches_with_an_example() -> None:
    res = runner.invoke(app, ["match", "--help"])
    assert res.exit_code == 0
    assert "bidref match sample_engines/c_first/engine" in res.output


@pytest.mark.e2e
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_referee_stopped_by_a_signal_ends_its_engines(
    c_first: Path, tmp_path: Path, sig: str
) -> None:
    # `timeout`, a closed terminal or a cancelled job stops the referee with a
    # signal: the match is aborted like on Ctrl-C and no engine process survives.
    import signal
    import subprocess
    import time

    from tests.engines.test_transport import _pid_dead

    pidfile = tmp_path / "pids"
    hang = f"{sys.executable} {ROOT / 'tests/engines/scripts/grandchild.py'} {pidfile}"
    t = tmp_path / "t.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from bidref.cli import app; app()",
            "match",
            str(c_first),
            hang,
            "--seed",
            "5",
            "--bank",
            "60",
            "--delay",
            "10",
            "--json",
            "--transcript",
            str(t),
            "--sandbox",  # (the engines' own processes, watched from here)
            "off",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        give_up = time.monotonic() + 20
        while not (pidfile.exists() and pidfile.read_text().endswith("\n")):
            assert time.monotonic() < give_up and proc.poll() is None, "the match did not start"
            time.sleep(0.01)
        grandchild = int(pidfile.read_text())
        # the match is under way: its first request is in the transcript (waited
        # for, not slept on: on a loaded machine 0.3 s may not be enough)
        while '"request"' not in (t.read_text() if t.exists() else ""):
            assert time.monotonic() < give_up and proc.poll() is None, "no request was sent"
            time.sleep(0.01)
        proc.send_signal(getattr(signal, sig))
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert json.loads(out)["detail"]["cause"] == "interrupted"
    assert json.loads(t.read_text().splitlines()[-1])["type"] == "result"
    give_up = time.monotonic() + 15  # (a bound: it returns once the process is gone)
    while not _pid_dead(grandchild) and time.monotonic() < give_up:
        time.sleep(0.01)
    assert _pid_dead(grandchild)


EVIL_NAME = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    msg = json.loads(line)\n"
    "    if msg['type'] == 'hello':\n"
    "        print(json.dumps({'type': 'hello', 'name': '[/bold] x [red]', "
    "'protocol': 'bidref/1'}), flush=True)\n"
    "    elif msg['type'] == 'request':\n"
    "        print(json.dumps({'type': 'action', 'id': msg['id'], "
    "'action': msg['legal'][0]}), flush=True)\n"
)


@pytest.mark.e2e
def test_an_engine_name_is_shown_as_text_not_markup(c_first: Path, tmp_path: Path) -> None:
    # Rich markup in a name (the command line's, here the file's; a remote seat's
    # comes from its hello) must neither break the live display nor style it.
    engine = tmp_path / "[red]engine.py"
    engine.write_text(EVIL_NAME)
    res = runner.invoke(
        app,
        [
            "match",
            str(engine),
            str(c_first),
            "--seed",
            "5",
            "--bank",
            "20",
            "--delay",
            "0.05",
            "--max-rounds",
            "1",
        ],
    )
    assert res.exit_code == 0, res.output
    # shown as typed: in the header line, the live table and the result
    assert res.output.count("[red]engine") >= 2, res.output
    assert "[/bold] x [red]" not in res.output  # the hello's name is the transcript's
