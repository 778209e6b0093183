"""The referee's connect hint keeps the token off the engine machine's command
line (issue 29 item 14): it prints `BIDREF_TOKEN=... bidref connect URL --
ENGINE`, and `bidref connect` takes `--token-file FILE` too. Real processes on
loopback."""

from __future__ import annotations

import json
import re
import shlex
import time
from pathlib import Path

import pytest

from bidref.net.tokens import connect_hint
from tests.net.test_cli import run
from tests.net.test_e2e import RANDOM, WAIT, Procs, procs, referee  # noqa: F401

TOKEN = "s3cret-token-xyz"


def test_the_hint_puts_the_token_in_the_environment_not_on_the_command_line() -> None:
    hint = connect_hint("seat A", "ws://127.0.0.1:9000/", TOKEN)
    command = next(ln for ln in hint.splitlines() if "bidref connect" in ln)
    words = shlex.split(command.split(": ", 1)[1])
    assert words[0] == f"BIDREF_TOKEN={TOKEN}"
    assert TOKEN not in " ".join(words[1:])  # nothing after the assignment holds it
    assert "--token-file FILE" in hint and "--token " not in command


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("", "is empty: write the token"),
        (None, "cannot read it"),
    ],
)
def test_a_bad_token_file_is_refused(tmp_path: Path, content: str | None, says: str) -> None:
    path = tmp_path / "seat.token"
    if content is not None:
        path.write_text(content)
    code, out = run("connect", "ws://127.0.0.1:1/", "--token-file", str(path), "--", RANDOM)
    assert code == 2 and f"--token-file {str(path)!r}" in out and says in out, out


def test_a_token_given_twice_or_not_at_all_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BIDREF_TOKEN", raising=False)
    path = tmp_path / "seat.token"
    path.write_text(TOKEN + "\n")
    code, out = run(
        "connect", "ws://127.0.0.1:1/", "--token-file", str(path), "--token", "t", "--", RANDOM
    )
    assert code == 2 and "give the token once" in out
    code, out = run("connect", "ws://127.0.0.1:1/", "--", RANDOM)
    assert code == 2 and "no token: give the token the referee printed" in out
    assert "BIDREF_TOKEN=TOKEN bidref connect" in out


@pytest.mark.e2e
def test_a_match_played_with_the_token_from_a_file(procs: Procs, tmp_path: Path) -> None:  # noqa: F811
    ref, seat = referee(procs, tmp_path, "--max-rounds", "2")
    token_file = tmp_path / "seat.token"
    token_file.write_text(seat["token"] + "\n")
    token_file.chmod(0o600)
    client = procs.start("connect", seat["url"], "--token-file", str(token_file), "--", RANDOM)
    # the token is in no process's command line
    give_up = time.monotonic() + 5
    while time.monotonic() < give_up and client.poll() is None:
        cmdline = Path(f"/proc/{client.pid}/cmdline").read_bytes().replace(b"\0", b" ")
        assert seat["token"].encode() not in cmdline
        time.sleep(0.2)
    out, err = ref.communicate(timeout=WAIT * 3)
    assert ref.returncode == 0, err
    assert json.loads(out)["reason"] in ("balance", "round_limit")
    # the hint the referee printed names this form
    hint = re.search(r"on the engine's machine: (.*)", err)
    assert hint and hint.group(1).startswith(f"BIDREF_TOKEN={seat['token']} bidref connect ")
    _, c_err = client.communicate(timeout=WAIT)
    assert client.returncode == 0, c_err
