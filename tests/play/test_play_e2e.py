"""`bidref play` end to end: the real CLI in a pseudo-terminal, real engines.

Smoke tests only, none of which waits for time to pass (issue 30): a whole match
with an illegal entry and rules help, Ctrl-C then resign, the program ended
by SIGTERM or SIGHUP, and --freeze-idle stopping a real engine while the person
thinks (what the engine's CPU time shows needs a real process). What the
clock does while a person thinks is tested on a fake clock in
test_match_fake_clock.py and test_session.py: the clock running
during rules help and illegal entries, a time-out waiting for the person, the
hot-seat hand-over (clock stopped, the other hand hidden), Ctrl-C while the
engine thinks, the end-of-round screen, a drawn tile, the rules scrolling.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bidref.transcript.expand import expanded_lines

from .pty_driver import ROOT, Screens, spawn

pytestmark = pytest.mark.e2e

C_FIRST = "sample_engines/c_first/engine"
PY_RANDOM = "sample_engines/python_random/engine.py"


@pytest.fixture(scope="module", autouse=True)
def _engines() -> None:
    subprocess.run(["make", "-s", "-C", str(ROOT / "sample_engines")], check=True)


def _records(path: Path) -> list[dict[str, object]]:
    """The transcript verified and spelled out (the v1 form of its lines)."""
    return expanded_lines(path.read_bytes())


def _play_out(sc: Screens, done: set[tuple[str, str]]) -> str:
    """Answer every question with Enter (pauses, reveals) or action 1; the final output."""
    while True:
        k, _ = sc.next_question(done)
        if k == "end":
            return sc.finish()
        sc.send("1\r" if k == "ask" else "\r")


def test_full_match_against_an_engine_with_an_illegal_entry_and_rules_help(tmp_path: Path) -> None:
    tr = tmp_path / "t.jsonl"
    sc = Screens(
        spawn(
            "human",
            PY_RANDOM,
            "--seed",
            "5",
            "--max-rounds",
            "2",
            "--bank",
            "60",
            "--delay",
            "10",
            "--transcript",
            str(tr),
        )
    )
    done: set[tuple[str, str]] = set()
    k, s = sc.next_question(done)
    assert k == "pause" and "Press Enter to start" in s
    assert "clocks stopped" in s
    sc.send("\r")
    k, s = sc.next_question(done)
    assert k == "ask" and "A's hand:" in s
    # An entry that is no action, then an illegal one: a message, nothing changes.
    sc.send("zz\r")
    s = sc.wait(lambda s: "'zz' is not an action" in s)
    turn = re.search(r"turn \d+", s)
    sc.send("bid 300\r")
    s = sc.wait(lambda s: "is not legal now" in s)
    assert turn and turn.group(0) in s
    # Rules help (that the clock keeps running meanwhile: test_match_fake_clock.py).
    sc.send("rules 7\r")
    sc.wait(lambda s: "7. The match clock" in s)
    sc.send("\r")  # close the rules text
    sc.wait(lambda s: "Legal actions" in s)
    sc.send("1\r")
    out = _play_out(sc, done)
    assert "result:" in out
    assert sc.child.exitstatus == 0
    recs = _records(tr)
    assert recs[0]["type"] == "header" and recs[-1]["type"] == "result"
    mine = [r for r in recs if r["type"] == "reply" and r["seat"] == 0]
    assert len(mine) >= 3 and all(r["status"] == "accepted" for r in mine)
    assert recs[-1]["reason"] in ("round_limit", "balance")


def test_ctrl_c_asks_then_resigns(tmp_path: Path) -> None:
    tr = tmp_path / "t.jsonl"
    sc = Screens(spawn("human", C_FIRST, "--seed", "3", "--transcript", str(tr)))
    done: set[tuple[str, str]] = set()
    assert sc.next_question(done)[0] == "pause"
    sc.send("\r")
    assert sc.next_question(done)[0] == "ask"
    sc.send("\x03")
    sc.wait(lambda s: "Resign the match?" in s)
    sc.send("y\r")
    out = sc.finish()
    assert "A (human) resigned: B (c_first) wins" in out
    recs = _records(tr)
    assert recs[-1]["type"] == "result" and recs[-1]["winner"] == 1
    assert recs[-1]["reason"] == "resign"
    assert any(r["type"] == "engine_exit" and r["how"] == "resigned" for r in recs)


def _running(program: Path) -> list[int]:
    """Pids of processes running ``program`` (by its unique path)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmdline and cmdline[0] == str(program).encode():
                pids.append(int(proc.name))
    return pids


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_terminate_or_hang_up_ends_the_match_cleanly(tmp_path: Path, signame: str) -> None:
    # `kill` or a closed terminal window: the engine is ended, and the transcript ends
    # with a result (aborted: nobody lost), as after an interrupt.
    import shutil
    import signal

    engine = tmp_path / "engine"  # a copy with its own path, to find its process
    shutil.copy(ROOT / C_FIRST, engine)
    tr = tmp_path / "t.jsonl"
    sc = Screens(spawn("human", str(engine), "--seed", "3", "--transcript", str(tr)))
    assert sc.next_question(set())[0] == "pause"
    assert _running(engine)
    sc.child.kill(getattr(signal, signame))
    sc.finish()
    end = time.monotonic() + 10
    while _running(engine) and time.monotonic() < end:
        time.sleep(0.1)
    assert not _running(engine)
    recs = _records(tr)
    assert recs[-1]["type"] == "result" and recs[-1]["reason"] == "aborted"
    assert recs[-1]["rated"] is False


def test_freeze_idle_stops_the_engine_while_the_person_thinks(tmp_path: Path) -> None:
    """An engine that spins while it waits gets no CPU time during the person's
    turns with --freeze-idle (its idle_cpu_ns), and the match plays to its end."""
    burner = f"{sys.executable} {ROOT / 'tests' / 'engines_broken' / 'burns_while_idle.py'}"
    tr = tmp_path / "t.jsonl"
    sc = Screens(
        spawn(
            burner,
            "human",
            "--seed",
            "3",
            "--max-rounds",
            "1",
            "--bank",
            "60",
            "--delay",
            "5",
            "--freeze-idle",
            "--transcript",
            str(tr),
        )
    )
    out = _play_out(sc, set())
    assert "round_limit" in out or "wins" in out or "draw" in out, out
    replies = [x for x in _records(tr) if x["type"] == "reply" and x["seat"] == 0]
    assert replies and all(int(str(x["cpu_ns"])) >= 30_000_000 for x in replies)
    # the person's turns took far longer than 10 ms each: the engine spun through none
    idle = [(x["seq"], x["idle_cpu_ns"], x["cpu_ns"]) for x in replies]
    assert max(int(str(i)) for _, i, _ in idle) < 10_000_000, idle


NAMED = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    msg = json.loads(line)\n"
    "    if msg['type'] == 'hello':\n"
    "        print(json.dumps({'type': 'hello', 'name': 'HelloName', 'protocol': 'bidref/1'}),"
    " flush=True)\n"
    "    elif msg['type'] == 'request':\n"
    "        print(json.dumps({'type': 'action', 'id': msg['id'], 'action': msg['legal'][0]}),"
    " flush=True)\n"
)


def test_an_engine_has_one_name_in_the_header_and_the_result(tmp_path: Path) -> None:
    # (issue 35, item 5: the header said the file's name, the result the hello's)
    engine = tmp_path / "file_name" / "engine.py"
    engine.parent.mkdir()
    engine.write_text(NAMED)
    sc = Screens(spawn("human", str(engine), "--seed", "3"))
    done: set[tuple[str, str]] = set()
    assert sc.next_question(done)[0] == "pause"
    sc.send("\r")
    assert sc.next_question(done)[0] == "ask"
    sc.send("\x03")
    sc.wait(lambda s: "Resign the match?" in s)
    sc.send("y\r")
    out = sc.finish()
    assert "A (human) resigned: B (file_name) wins" in out, out
    assert "HelloName" not in out
