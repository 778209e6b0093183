"""The hint after a start-up failure fits what the engine's stderr shows (issue 35,
item 3): a traceback, a missing module, a missing file, a permission error come
first, and the word on flushing stdout is kept for an engine that shows nothing."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.cli import app
from bidref.match.startup_evidence import evidence_hint

runner = CliRunner()


@pytest.mark.parametrize(
    ("stderr", "says"),
    [
        (
            'Traceback (most recent call last):\n  File "engine.py", line 1, in <module>\n'
            "ModuleNotFoundError: No module named 'bidref'\n",
            "cannot import 'bidref'",
        ),
        ("ImportError: cannot import name 'x' from 'y'", "cannot import a module"),
        ("Error: Cannot find module 'ws'\nRequire stack:", "cannot find the module 'ws'"),
        (
            "./engine: error while loading shared libraries: libfoo.so.1: cannot open",
            "missing ('libfoo.so.1')",
        ),
        ("python3: can't open file '/x/engine.py': [Errno 13] Permission denied", "permission"),
        ("FileNotFoundError: [Errno 2] No such file or directory: 'book.bin'", "not there"),
        ("Traceback (most recent call last):\n  x\nValueError: bad seed\n", "failed with an error"),
        ("thread 'main' panicked at src/main.rs:2:5:\nboom", "failed with an error"),
    ],
)
def test_each_kind_of_evidence_gets_its_own_hint(stderr: str, says: str) -> None:
    hint = evidence_hint(stderr)
    assert hint is not None and says in hint, hint
    assert "flush" not in hint and "check-engine" in hint


@pytest.mark.parametrize("stderr", ["", "loading weights...\n", "warming up (3 s)"])
def test_no_evidence_no_hint(stderr: str) -> None:
    assert evidence_hint(stderr) is None


def _match(engine: Path, c_first: Path) -> tuple[int, str, str]:
    res = runner.invoke(
        app, ["match", str(engine), str(c_first), "--startup", "5", "--max-rounds", "1"]
    )
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.e2e
def test_a_traceback_at_start_gets_the_import_hint_not_the_flush_one(
    tmp_path: Path, c_first: Path
) -> None:
    engine = tmp_path / "broken" / "engine.py"
    engine.parent.mkdir()
    engine.write_text("import json\nimport bidref_no_such_module\n")
    code, out, err = _match(engine, c_first)
    assert code == 3, out + err
    assert "cannot import 'bidref_no_such_module'" in err, err
    assert "flush" not in out + err and "--transport pty" not in out + err


@pytest.mark.e2e
def test_a_permission_error_at_start_gets_the_permission_hint(
    tmp_path: Path, c_first: Path
) -> None:
    engine = tmp_path / "locked" / "engine.sh"
    engine.parent.mkdir()
    data = engine.parent / "data.txt"
    data.write_text("x")
    engine.write_text(f"#!/bin/sh\necho 'cat: {data.name}: Permission denied' >&2\nexit 1\n")
    engine.chmod(engine.stat().st_mode | stat.S_IXUSR)
    code, out, err = _match(engine, c_first)
    assert code == 3, out + err
    assert "hint: permission denied" in err and "flush" not in out + err


@pytest.mark.e2e
def test_an_engine_that_shows_nothing_still_gets_the_flush_hint(
    tmp_path: Path, c_first: Path
) -> None:
    engine = tmp_path / "quiet" / "engine.py"
    engine.parent.mkdir()
    engine.write_text("import sys\nsys.stdin.readline()\n")  # reads the hello, says nothing
    code, _, err = _match(engine, c_first)
    assert code == 3
    assert "flush after every line" in err
