"""Every sample engine reads any valid JSON line, not only the referee's compact form.

PROTOCOL.md asks for one JSON object per line; it does not promise compact JSON,
a key order, or no escapes. Each sample engine gets the same exchange (hello, a
request, an ``illegal`` error, an event, a ``stale_id`` error, a ping, a second
request, quit) written in a loose but valid JSON style, and must answer exactly
as it does to the referee's lines.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bidref.check_engine import find_position
from bidref.rules import parse_action, player_view
from tests.sample_build import build_c_engines

ROOT = Path(__file__).resolve().parents[1]
SE = ROOT / "sample_engines"
ENGINES: dict[str, list[str]] = {
    "c_first": [str(SE / "c_first/engine")],
    "js_random": ["node", str(SE / "js_random/engine.js")],
    "sh_random": [str(SE / "sh_random/engine.sh")],
    "python_random": [sys.executable, str(SE / "python_random/engine.py")],
    "python_greedy": [sys.executable, str(SE / "python_greedy/engine.py")],
    "python_sdk_minimal": [sys.executable, str(SE / "python_sdk_minimal/engine.py")],
    "python_strong": [sys.executable, str(SE / "python_strong/engine.py"), "--max-seconds", "0.05"],
    "openspiel_ismcts": [
        sys.executable,
        str(SE / "openspiel_ismcts/engine.py"),
        "--max-seconds",
        "0.05",
    ],
}


def _escaped(s: str) -> str:
    """A JSON string with some letters written as \\u escapes (still the same string)."""
    return (
        '"' + "".join(f"\\u{ord(c):04x}" if c in "aelpy" else json.dumps(c)[1:-1] for c in s) + '"'
    )


def loose(obj: Any, escape: bool) -> str:
    """Valid JSON for ``obj``: spaces around every separator, keys in reverse order,
    and (with ``escape``) letters escaped in every key and string."""
    if isinstance(obj, dict):
        return (
            "{ "
            + " , ".join(
                f"{loose(k, escape)} : {loose(v, escape)}" for k, v in reversed(list(obj.items()))
            )
            + " }"
        )
    if isinstance(obj, list):
        return "[ " + " , ".join(loose(v, escape) for v in obj) + " ]"
    if isinstance(obj, str):
        return _escaped(obj) if escape else json.dumps(obj)
    return json.dumps(obj)


class Exchange:
    def __init__(self, cmd: list[str]) -> None:
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0
        )
        self.buf = b""

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode() + b"\n")

    def line(self, timeout: float = 10.0) -> dict[str, Any]:
        assert self.proc.stdout is not None
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            assert left > 0, f"no answer within {timeout} s (got {self.buf!r})"
            if select.select([self.proc.stdout], [], [], left)[0]:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"the engine closed its stdout (got {self.buf!r})"
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        msg: dict[str, Any] = json.loads(line)
        return msg


@pytest.mark.e2e
@pytest.mark.parametrize("escape", [False, True], ids=["spaced-reordered", "escaped"])
@pytest.mark.parametrize("name", list(ENGINES))
def test_a_sample_engine_reads_any_valid_json(name: str, escape: bool) -> None:
    if name == "c_first":
        build_c_engines()
    # `make test` installs Node.js where it is missing: its absence is a failure.
    assert name != "js_random" or shutil.which("node"), "Node.js is not installed"
    m = find_position("play")
    legal = [str(a) for a in m.legal_actions()]
    request = {
        "type": "request",
        "id": 5,
        "view": player_view(m, 0).to_dict(),
        "clock": {
            "delay_left_ms": 2000,
            "bank_ms": 5000,
            "opponent_bank_ms": 5000,
            "deadline_ms": 7000,
        },
        "legal": legal,
    }
    ex = Exchange(ENGINES[name])
    try:
        ex.send(
            loose(
                {
                    "type": "hello",
                    "protocol": "bidref/1",
                    "bidref": "0.1.0",
                    "rules": "spectacular-bid/1",
                    "seat": 0,
                    "settings": {
                        "bank_ms": 5000,
                        "delay_ms": 2000,
                        "max_rounds": None,
                        "illegal": "reject",
                        "startup_ms": 10000,
                    },
                    "options": {},
                },
                escape,
            )
        )
        hello = ex.line()
        assert (hello["type"], hello["protocol"]) == ("hello", "bidref/1")
        ex.send(loose(request, escape))
        first = ex.line()
        assert (first["type"], first["id"]) == ("action", 5) and first["action"] in legal
        ex.send(
            loose(
                {
                    "type": "error",
                    "id": 5,
                    "code": "illegal",
                    "rule": "§8",
                    "message": f'illegal action {first["action"]!r}: "refused"',
                },
                escape,
            )
        )
        again = ex.line()
        assert (again["type"], again["id"]) == ("action", 5)
        assert again["action"] in legal and again["action"] != first["action"]
        ex.send(
            loose(
                {
                    "type": "event",
                    "event": {
                        "kind": "transfer",
                        "payer": 1,
                        "payee": 0,
                        "requested": 5,
                        "amount": 5,
                        "reason": "count",
                        "balances": [155, 145],
                    },
                },
                escape,
            )
        )
        ex.send(
            loose(
                {
                    "type": "error",
                    "id": 4,
                    "code": "stale_id",
                    "message": "a reply to request 4 was ignored",
                },
                escape,
            )
        )
        ex.send(loose({"type": "ping", "id": 9}, escape))
        assert ex.line() == {"type": "pong", "id": 9}  # and nothing before it
        ex.send(loose({**request, "id": 6}, escape))
        second = ex.line()
        assert (second["type"], second["id"]) == ("action", 6)
        assert parse_action(second["action"]) in m.legal_actions()
        ex.send(loose({"type": "quit", "reason": "match_over"}, escape))
        assert ex.proc.wait(timeout=5) == 0
    finally:
        if ex.proc.poll() is None:
            ex.proc.kill()
            ex.proc.wait()
