"""`bidref tournament-report` says what it cannot do through the CLI's one
handler: ``error: <message>`` on stderr, exit 2, nothing on stdout."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.cli import app
from bidref.tournament.runner import RESULTS_FILE


def _refused(args: list[str]) -> str:
    res = CliRunner().invoke(app, ["tournament-report", *args])
    assert (res.exit_code, res.stdout) == (2, ""), res.output
    return res.stderr


def test_a_port_in_use_is_refused_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / RESULTS_FILE).write_text("")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        said = _refused([str(tmp_path), "--serve", "--port", str(port)])
    assert said.startswith(f"error: --port {port}: cannot listen on 127.0.0.1 (")
    assert said.endswith("choose another port, or 0 for any free one\n")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--serve", "--replays"], "error: --replays writes pages beside --html OUT.html: add it"),
        (["--html", "r.html"], "holds no results.jsonl: give the --out folder of a `bidref"),
    ],
)
def test_what_it_cannot_make_is_refused(tmp_path: Path, args: list[str], says: str) -> None:
    assert says in _refused([str(tmp_path / "none"), *args])
