"""Containment (bidref.engines.contain): what an engine starts ends with it,
double-forked daemons included, in a library user's process and in a process
that claims its orphans (the CLI, tournament workers)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bidref.engines import PipeTransport, PtyTransport, contain
from bidref.engines.transport import StderrSink
from tests.chaos.harness import CHAOS, assert_nothing_left, living, new_token

pytestmark = pytest.mark.e2e
SECOND = 1_000_000_000
ESCAPEE = Path(__file__).parent / "scripts" / "escapee.py"


def _engine_threads(pid: int) -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith(f"engine-{pid}-")]


@pytest.mark.parametrize("cls", [PipeTransport, PtyTransport])
@pytest.mark.parametrize("mode", ["daemon", "stubborn"])
def test_a_double_forked_daemon_ends_with_its_engine(
    cls: type[PipeTransport] | type[PtyTransport], mode: str, tmp_path: Path
) -> None:
    token = new_token(tmp_path, "E")
    t = cls([sys.executable, str(CHAOS), mode, token])
    try:
        t.write_line('{"type":"hello"}')
        assert t.read(time.monotonic_ns() + 30 * SECOND) is not None  # its hello
        # The engine says hello once its daemon runs (it waits for the daemon's
        # word): both are there now, on a loaded machine too; no wait on time.
        assert len(living([token])) == 2, living([token])
    finally:
        t.close('{"type":"quit"}', SECOND // 5)
    assert_nothing_left([token])
    # Its pipes are closed once the daemon is gone: the reader threads end
    # (joined: the wait is on their end, bounded generously for a loaded machine).
    for thread in [th for th in threading.enumerate() if th.name.startswith(f"engine-{t.pid}-")]:
        thread.join(30)
    assert not _engine_threads(t.pid)


CLAIMED = """
import json, os, sys, time
from bidref.engines import PipeTransport, contain
assert contain.claim_orphans()
t = PipeTransport([sys.executable, sys.argv[1], "daemon_scrub", sys.argv[2]])
t.write_line('{"type":"hello"}')
t.read(time.monotonic_ns() + 30 * 10**9)
t.close('{"type":"quit"}', 200_000_000)
me = os.getpid()
children = []
for pid in os.listdir("/proc"):
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        continue
    if int(fields[1]) == me:
        children.append((int(pid), fields[0]))
print(json.dumps({"children": children, "watchdog": contain.watchdog_pid()}))
"""


def test_a_claimed_process_ends_and_reaps_a_daemon_that_cleared_its_environment(
    tmp_path: Path,
) -> None:
    token = new_token(tmp_path, "E")
    done = subprocess.run(
        [sys.executable, "-c", CLAIMED, str(CHAOS), token],
        capture_output=True,
        timeout=60,
        check=True,
    )
    got = json.loads(done.stdout)
    # Only the watchdog is left among its children: no daemon, no zombie.
    assert [pid for pid, _ in got["children"]] == [got["watchdog"]], got
    assert_nothing_left([token])


def test_the_mark_is_in_the_engines_environment_only() -> None:
    env = contain.engine_env({"A": "1"})
    assert env == {"A": "1", contain.ENV_KEY: contain.token()}
    assert contain.ENV_KEY not in os.environ


def test_a_stderr_log_has_no_name_until_the_engine_ends(tmp_path: Path) -> None:
    path = tmp_path / "A-x.stderr.log"
    path.write_text("an old log, readable by all\n")
    path.chmod(0o644)
    sink = StderrSink(path)
    sink.write(b"my secret plan\n")
    # While the engine runs, no file of the folder holds what it wrote.
    assert all(b"secret" not in p.read_bytes() for p in tmp_path.iterdir())
    sink.close()
    assert path.read_bytes() == b"my secret plan\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


ORPHANED_LEADER = """
import json, os, sys, time
from bidref.engines import PipeTransport, contain
assert contain.claim_orphans()
t = PipeTransport([sys.executable, sys.argv[1], sys.argv[2], "plays"])
t.write_line('{"type":"hello"}')
t.read(time.monotonic_ns() + 30 * 10**9)
t.write_line('{"type":"event","event":{"kind":"match_ended"}}')
until = time.monotonic() + 10
while t.poll_exit() is None and time.monotonic() < until:
    time.sleep(0.01)
child = int(open(sys.argv[2]).read())
# the engine is gone; its session-leader child is now an orphan of ours
parent = int(open(f"/proc/{child}/stat").read().rsplit(")", 1)[1].split()[1])
print(json.dumps({"exited": t.poll_exit() is not None, "orphan_ours": parent == os.getpid()}))
t.close('{"type":"quit"}', 200_000_000)  # (no sweep_all: the match's own end must do it)
try:
    state = open(f"/proc/{child}/stat").read().rsplit(")", 1)[1].split()[0]
except OSError:
    state = "gone"
print(json.dumps({"child": state}))
"""


def test_a_claimed_process_ends_a_session_leader_orphaned_when_its_engine_exits(
    tmp_path: Path,
) -> None:
    # An engine that exits at once on match_ended leaves its setsid child to us
    # before the end-of-match scan can see it: closing the match still ends it.
    pid_file = tmp_path / "child.pid"
    done = subprocess.run(
        [sys.executable, "-c", ORPHANED_LEADER, str(ESCAPEE), str(pid_file)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    first, last = (json.loads(x) for x in done.stdout.splitlines())
    assert first == {"exited": True, "orphan_ours": True}
    assert last["child"] == "gone", last
