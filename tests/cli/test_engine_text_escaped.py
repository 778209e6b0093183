"""Engine bytes never reach a terminal raw (issue 40, item 5): an engine whose
folder name, hello name, log lines and stderr hold a window-title sequence, a
clear-screen and an OSC 52 clipboard write is shown with them escaped, in every
place that shows them: the match header, live table and result (a crash summary
and a start-up failure), `replay --logs`, `check-engine` and `play`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from bidref.cli import app
from tests.play.pty_driver import BIDREF, ROOT

runner = CliRunner()

TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"
EVIL = TITLE + CLEAR + CLIPBOARD + "\u202e"
# how each is shown: visible escapes
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\u202e"

ENGINE = f"""\
import json, sys
EVIL = {EVIL!r}
CRASH_AT = {{crash_at}}
sys.stderr.write("boot " + EVIL + "\\n"); sys.stderr.flush()
if CRASH_AT == 0:
    sys.exit(1)
n = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({{"type": "hello", "name": "evil" + EVIL, "protocol": "bidref/1"}}),
              flush=True)
    elif msg["type"] == "request":
        n += 1
        print(json.dumps({{"type": "log", "message": "thinking " + EVIL}}), flush=True)
        if n == CRASH_AT:
            sys.stderr.write("crash " + EVIL + "\\n"); sys.stderr.flush()
            sys.exit(1)
        print(json.dumps({{"type": "action", "id": msg["id"], "action": msg["legal"][0]}}),
              flush=True)
"""


def _engine(where: Path, crash_at: int) -> Path:
    """The engine, in a folder whose name (so the engine's name) holds the
    sequences; it ends at its ``crash_at``-th request (0: before its hello)."""
    folder = where / ("evil" + TITLE + CLEAR + CLIPBOARD)
    folder.mkdir()
    (folder / "engine.py").write_text(ENGINE.replace("{crash_at}", str(crash_at)))
    return folder / "engine.py"


@pytest.fixture
def evil(tmp_path: Path) -> Path:
    return _engine(tmp_path, 3)


def _no_raw_escape(*outputs: str) -> None:
    for out in outputs:
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out, repr(out)


def _match(evil: Path, c_first: Path, *extra: str) -> tuple[int, str, str]:
    res = runner.invoke(
        app,
        [
            *("match", str(evil), str(c_first), "--seed", "5"),
            *("--bank", "20", "--delay", "0.05", "--max-rounds", "2", *extra),
        ],
    )
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.e2e
def test_a_crash_summary_and_the_live_table_show_the_engine_text_escaped(
    evil: Path, c_first: Path, tmp_path: Path
) -> None:
    code, out, err = _match(evil, c_first, "--transcript", str(tmp_path / "t.jsonl"))
    assert code == 0 and "wins by crash" in out, out
    _no_raw_escape(out, err)
    # the folder's name in the header, the table and the result; the stderr's last words
    assert out.count("evil\\x1b]0;pwned\\x07\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07") >= 3, out
    assert f"crash {SHOWN}" in out, out


@pytest.mark.e2e
def test_a_startup_failure_shows_the_stderr_escaped(tmp_path: Path, c_first: Path) -> None:
    code, out, err = _match(_engine(tmp_path, 0), c_first)
    assert code == 3, out + err
    _no_raw_escape(out, err)
    assert f"boot {SHOWN}" in out + err


@pytest.mark.e2e
def test_replay_logs_shows_log_lines_stderr_and_names_escaped(
    evil: Path, c_first: Path, tmp_path: Path
) -> None:
    t = tmp_path / "t.jsonl"
    _match(evil, c_first, "--transcript", str(t), "--stderr-dir", str(tmp_path / "err"))
    assert json.loads(t.read_text().splitlines()[-1])["reason"] == "crash"
    res = runner.invoke(app, ["replay", "--logs", str(t)])
    _no_raw_escape(res.stdout, res.stderr)
    assert f"thinking {SHOWN}" in res.stdout, res.stdout
    assert f"crash {SHOWN}" in res.stdout, res.stdout
    # without a stderr log, the tail the crash result quotes
    t2 = tmp_path / "t2.jsonl"
    _match(evil, c_first, "--transcript", str(t2))
    res = runner.invoke(app, ["replay", "--logs", str(t2)])
    _no_raw_escape(res.stdout, res.stderr)
    assert f"crash {SHOWN}" in res.stdout, res.stdout


@pytest.mark.e2e
def test_check_engine_shows_the_hello_name_and_details_escaped(evil: Path) -> None:
    res = runner.invoke(app, ["check-engine", str(evil)])
    _no_raw_escape(res.stdout, res.stderr)
    assert "evil\\x1b]0;pwned" in res.stdout, res.stdout


@pytest.mark.e2e
def test_play_shows_the_engine_name_escaped(evil: Path) -> None:
    child = pexpect.spawn(
        BIDREF,
        ["play", str(evil), "human", "--bank", "60", "--delay", "5"],
        cwd=str(ROOT),
        encoding="utf-8",
        dimensions=(60, 200),
        timeout=30,
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "TERM": "xterm-256color"},
    )
    try:
        child.expect("Press Enter to start")
        raw = child.before or ""
    finally:
        child.terminate(force=True)
    # (the screen's own escape codes are rich's: none sets a title or the clipboard)
    assert TITLE not in raw and "\x1b]52;" not in raw and "\u202e" not in raw
    assert "evil\\x1b]0;pwned\\x07" in raw


@pytest.mark.e2e
def test_a_tournament_shows_names_and_results_escaped(
    evil: Path, c_first: Path, tmp_path: Path
) -> None:
    res = runner.invoke(
        app,
        [
            *("tournament", str(evil), str(c_first), "--deals", "1", "--seed", "9"),
            *("--bank", "20", "--delay", "0.05", "--out", str(tmp_path / "out")),
        ],
    )
    assert res.exit_code == 0, res.output
    _no_raw_escape(res.stdout, res.stderr)
    # the match lines and every table name the engine by its folder, escaped
    assert res.stdout.count("evil\\x1b]0;pwned\\x07") >= 3, res.stdout


def test_the_one_error_handler_shows_a_quoted_name_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # (a refusal may quote an entrant's file name or an engine's own words)
    from bidref.cli.options import refusal

    refusal(f"engine {EVIL}: cannot be used")
    err = capsys.readouterr().err
    _no_raw_escape(err)
    assert f"error: engine {SHOWN}: cannot be used" in err


def test_visible_escapes_every_control_and_keeps_the_rest() -> None:
    from bidref.visible import visible

    controls = [*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0))]
    for c in controls:
        assert visible(c) != c and visible(c).startswith("\\")
    assert visible("\t\n", lines=True) == "\t\n"
    assert visible("\r", lines=True) == "\\r"  # (a carriage return rewrites a line)
    for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f":
        assert visible(c) == f"\\u{ord(c):04x}"
    text = "c_first-2 — Ärger 🂡 C:\\bots"
    assert visible(text) == text
