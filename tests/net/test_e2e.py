"""Real matches on loopback: `bidref match listen://…` and `bidref connect` as processes.

One seat is a local engine, the other a remote one reached through `bidref
connect`, running the real sample engine python_random. Some tests put a relay
between them that cuts the connection at a request (the remote engine never
sees it): the referee's clock is real here, so the margins are generous.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bidref.rules import SECOND
from bidref.transcript.expand import expanded_lines
from tests.net.proxy import CutProxy
from tests.net.test_server import make_cert

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
RANDOM = str(ROOT / "sample_engines" / "python_random" / "engine.py")
CLI = [sys.executable, "-c", "from bidref.cli import app; app()"]
WAIT = 60.0  # real seconds any one step may take at most on a loaded machine


class Procs:
    def __init__(self) -> None:
        self.all: list[subprocess.Popen[str]] = []

    def start(self, *args: str) -> subprocess.Popen[str]:
        p = subprocess.Popen(
            [*CLI, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # so that a test can end it with its engine
            # (a process that hangs shows where: finish() sends it SIGABRT first)
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        )
        self.all.append(p)
        return p

    def finish(self, p: subprocess.Popen[str]) -> tuple[str, str]:
        """``p``'s (stdout, stderr) once it ends; if it does not within WAIT, every
        process of the test is ended and the test fails with what each wrote (a
        client that gave up shows why the referee waited)."""
        try:
            return p.communicate(timeout=WAIT)
        except subprocess.TimeoutExpired:
            said = [_process_tree(q.pid) for q in self.all if q.poll() is None]
            for q in self.all:
                if q.poll() is None:  # its threads' stacks, on its stderr (faulthandler)
                    os.kill(q.pid, signal.SIGABRT)
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        q.wait(timeout=10)
                self.kill(q)
                out, err = q.communicate()
                said.append(f"{q.args[3:6]} exit {q.returncode}:\n{out[-2000:]}{err[-12000:]}")
            pytest.fail(f"no end within {WAIT:g} s; each process wrote:\n" + "\n".join(said))

    def kill(self, p: subprocess.Popen[str]) -> None:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.communicate(timeout=WAIT)


def _process_tree(pid: int) -> str:
    """What process ``pid`` and its descendants are doing now: name, state, where
    in the kernel each waits (for a test that hangs)."""
    out, todo = [], [pid]
    while todo and len(out) < 50:
        p = todo.pop()
        proc = Path(f"/proc/{p}")
        try:
            name = (proc / "comm").read_text().strip()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            wchan = (proc / "wchan").read_text().strip()
            stack = (proc / "stack").read_text().strip().replace("\n", " | ")
        except OSError as e:
            out.append(f"  {p}: gone or unreadable ({e.strerror})")
            continue
        out.append(f"  {p} {name} {state} wchan={wchan} stack={stack[:400]}")
        for task in proc.glob("task/*/children"):
            with contextlib.suppress(OSError):
                todo += [int(c) for c in task.read_text().split()]
    return f"process tree of {pid}:\n" + "\n".join(out)


@pytest.fixture
def procs() -> Iterator[Procs]:
    ps = Procs()
    yield ps
    for p in ps.all:
        if p.poll() is None:
            ps.kill(p)


def referee(
    procs: Procs, tmp: Path, *extra: str, bank: str = "30", delay: str = "0.2"
) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    info = tmp / "connect.json"
    p = procs.start(
        "match",
        "listen://127.0.0.1:0",
        RANDOM,
        "--seed",
        "11",
        "--bank",
        bank,
        "--delay",
        delay,
        "--startup",
        "60",
        "--json",
        "--transcript",
        str(tmp / "t.jsonl"),
        "--connect-info",
        str(info),
        *extra,
    )
    give_up = time.monotonic() + WAIT
    while not info.exists():
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < give_up, "the referee never listened"
        time.sleep(0.02)
    seats = json.loads(info.read_text())["seats"]
    assert len(seats) == 1 and seats[0]["seat"] == 0
    return p, seats[0]


def connect(procs: Procs, url: str, token: str, *extra: str) -> subprocess.Popen[str]:
    return procs.start("connect", url, "--token", token, *extra, "--", RANDOM)


def lines(tmp: Path) -> list[dict[str, Any]]:
    return expanded_lines((tmp / "t.jsonl").read_bytes())


def of_type(ls: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [x for x in ls if x["type"] == kind]


def replays(tmp: Path) -> None:
    r = subprocess.run(
        [*CLI, "replay", str(tmp / "t.jsonl")], capture_output=True, text=True, timeout=WAIT
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("scheme", ["ws", "wss"])
def test_a_full_match_with_a_remote_engine(procs: Procs, tmp_path: Path, scheme: str) -> None:
    extra: tuple[str, ...] = ()
    client_extra: tuple[str, ...] = ()
    if scheme == "wss":
        cert, key = make_cert(tmp_path)
        extra = ("--tls-cert", str(cert), "--tls-key", str(key))
        client_extra = ("--ca-file", str(cert))
    ref, seat = referee(procs, tmp_path, *extra)
    assert seat["url"].startswith(f"{scheme}://127.0.0.1:")
    # someone with a wrong token is refused and changes nothing
    wrong = connect(procs, seat["url"], "not-the-token", *client_extra)
    _, err = wrong.communicate(timeout=WAIT)
    assert wrong.returncode == 2 and "wrong token" in err
    right = connect(procs, seat["url"], seat["token"], *client_extra)
    out, ref_err = procs.finish(ref)
    assert ref.returncode == 0, (ref.returncode, out, ref_err)
    assert seat["token"] in ref_err and seat["url"] in ref_err  # shown to the operator
    result = json.loads(out)
    assert result["reason"] in ("balance", "round_limit") and result["decisions"] > 10
    assert result["engines"] == ["python_random", "python_random"]
    assert result["exits"][0]["how"] == "quit"
    _, err = right.communicate(timeout=WAIT)
    assert right.returncode == 0, err
    ls = lines(tmp_path)
    conns = of_type(ls, "connection")
    assert [(c["seat"], c["event"]) for c in conns] == [
        (0, "refused"),
        (0, "connect"),
        (0, "disconnect"),
    ]
    assert conns[0]["reason"] == "wrong token"
    assert conns[-1]["reason"] == "match over"
    assert seat["token"] not in (tmp_path / "t.jsonl").read_text()
    header = ls[0]["engines"][0]
    assert header["transport"] == "websocket" and header["url"] == seat["url"]
    replays(tmp_path)


def test_a_connection_cut_mid_turn_and_restored_goes_on_and_the_time_is_charged(
    procs: Procs, tmp_path: Path
) -> None:
    ref, seat = referee(procs, tmp_path)
    proxy = CutProxy(int(seat["url"].rsplit(":", 1)[1].strip("/")), cut_at=3, restore_after=2.0)
    try:
        right = connect(procs, proxy.url(), seat["token"])
        out, ref_err = procs.finish(ref)
    finally:
        proxy.close()
    assert ref.returncode == 0, (ref.returncode, out, ref_err)
    assert proxy.cut.is_set()
    result = json.loads(out)
    assert result["reason"] in ("balance", "round_limit")
    _, err = right.communicate(timeout=WAIT)
    assert right.returncode == 0, err
    ls = lines(tmp_path)
    events = [c["event"] for c in of_type(ls, "connection")]
    assert events[:3] == ["connect", "disconnect", "resume"]
    cut = of_type(ls, "connection")[1]
    back = of_type(ls, "connection")[2]
    assert back["fresh"] is False  # the same engine: it was not greeted again
    assert back["at_ns"] - cut["at_ns"] >= 1.9 * SECOND
    # the request the engine never saw was answered after the resume, and the
    # whole time since it was written is charged
    requests = [r for r in of_type(ls, "request") if r["seat"] == 0]
    third = requests[2]
    reply = next(r for r in of_type(ls, "reply") if r["id"] == third["id"])
    assert reply["status"] == "accepted"
    assert reply["t_ns"] > back["at_ns"]
    assert reply["elapsed_ns"] >= back["at_ns"] - third["t_ns"] >= 1.9 * SECOND
    assert not of_type(ls, "stale")  # nothing was answered twice
    replays(tmp_path)


def test_a_connection_cut_and_not_restored_loses_on_time(procs: Procs, tmp_path: Path) -> None:
    ref, seat = referee(procs, tmp_path, bank="2", delay="0.1")
    proxy = CutProxy(int(seat["url"].rsplit(":", 1)[1].strip("/")), cut_at=2)  # for good
    try:
        right = connect(procs, proxy.url(), seat["token"], "--retry-for", "3")
        out, ref_err = procs.finish(ref)
        _, err = right.communicate(timeout=WAIT)
    finally:
        proxy.close()
    assert ref.returncode == 0, (ref.returncode, out, ref_err)
    result = json.loads(out)
    assert (result["winner"], result["reason"]) == (1, "time")
    assert right.returncode == 1 and "gave up" in err
    ls = lines(tmp_path)
    kinds = [x["type"] for x in ls]
    cut = next(
        i for i, x in enumerate(ls) if x["type"] == "connection" and x["event"] == "disconnect"
    )
    assert "timeout" in kinds[cut:]
    timeout = of_type(ls, "timeout")[0]
    last_request = [r for r in of_type(ls, "request") if r["seat"] == 0][-1]
    assert timeout["seat"] == 0
    # it lost at the deadline its request gave it, not at the cut
    assert timeout["t_ns"] >= last_request["deadline_ns"]
    # and the result says so: the time it had, and since when its client was gone
    gone = ls[cut]
    assert result["time_loss"]["disconnected_ns"] == gone["at_ns"]
    allowed = last_request["deadline_ns"] - last_request["t_ns"]
    assert result["time_loss"]["allowed_ns"] == allowed
    assert last_request["deadline_ns"] - last_request["t_ns"] >= SECOND
    replays(tmp_path)


def test_a_killed_connect_restarted_with_the_token_takes_its_seat_back(
    procs: Procs, tmp_path: Path
) -> None:
    ref, seat = referee(procs, tmp_path)
    proxy = CutProxy(int(seat["url"].rsplit(":", 1)[1].strip("/")), cut_at=3, restore_after=30)
    try:
        first = connect(procs, proxy.url(), seat["token"])
        assert proxy.cut.wait(WAIT)
        procs.kill(first)  # the bridge and its engine are gone while a request is pending
        time.sleep(0.5)  # (the referee is waiting for the pending request meanwhile)
        again = connect(procs, seat["url"], seat["token"])  # straight to the seat now
        out, ref_err = procs.finish(ref)
    finally:
        proxy.close()
    assert ref.returncode == 0, (ref.returncode, out, ref_err)
    result = json.loads(out)
    assert result["reason"] in ("balance", "round_limit")
    _, err = again.communicate(timeout=WAIT)
    assert again.returncode == 0, err
    ls = lines(tmp_path)
    conns = of_type(ls, "connection")
    assert [c["event"] for c in conns] == [
        "connect",
        "disconnect",
        "resume",
        "engine_restarted",
        "disconnect",
    ]
    assert conns[2]["fresh"] is True  # a new engine: greeted again by the seat
    assert len(of_type(ls, "hello")) == 2  # the referee saw one hello per seat only
    replays(tmp_path)


def test_check_engine_checks_a_remote_engine(procs: Procs, tmp_path: Path) -> None:
    info = tmp_path / "connect.json"
    check = procs.start(
        "check-engine",
        "listen://127.0.0.1:0",
        "--startup",
        "60",
        "--json",
        "--connect-info",
        str(info),
    )
    give_up = time.monotonic() + WAIT
    while not info.exists():
        assert check.poll() is None and time.monotonic() < give_up, check.communicate()
        time.sleep(0.02)
    seat = json.loads(info.read_text())["seats"][0]
    remote = connect(procs, seat["url"], seat["token"])
    out, err = check.communicate(timeout=WAIT)
    assert out, err
    report = json.loads(out)
    failed = [r for r in report["items"] if not r["passed"]]
    assert check.returncode == 0 and report["passed"] and not failed, failed
    assert report["name"] == "python_random"
    assert {r["item"] for r in report["items"]} >= {"hello", "stale id", "error reply", "quit"}
    remote.communicate(timeout=WAIT)
    assert remote.returncode == 0


CRASHER = """\
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "crasher", "protocol": "bidref/1"}), flush=True)
    elif msg["type"] == "request":
        sys.exit(3)
"""


def test_a_remote_engine_that_crashes_loses_as_a_crash(procs: Procs, tmp_path: Path) -> None:
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    ref, seat = referee(procs, tmp_path)
    remote = procs.start("connect", seat["url"], "--token", seat["token"], "--", str(crasher))
    out, ref_err = procs.finish(ref)
    assert ref.returncode == 0, (ref.returncode, out, ref_err)
    result = json.loads(out)
    assert (result["winner"], result["reason"]) == (1, "crash")
    assert result["detail"]["exit_code"] == 3
    _, err = remote.communicate(timeout=WAIT)
    assert remote.returncode == 1 and "the engine ended before the match did" in err, err
    replays(tmp_path)
