"""The run-queue wait of an engine's tasks, read from the kernel's schedstat counters.

Real processes: a busy process pinned to one CPU with busy neighbours pinned
there too waits on its run queue, and the reader sees it; the tree reader finds
every thread of every descendant. Every process is started by the test and
ended by its pid.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bidref.engines.schedwait import (
    ListedTasks,
    TaskWait,
    TreeTasks,
    between,
    cores_of,
    parse_schedstat,
    runnable_tasks,
    unseen_ns,
)

pytestmark = pytest.mark.skipif(
    not Path(f"/proc/self/task/{os.getpid()}/schedstat").exists(),
    reason="needs Linux /proc with schedstat counters",
)

BUSY = "import sys\nwhile True: pass\n"
# a parent with a thread and a child, all three busy
FAMILY = """
import os, threading, time
def spin():
    while True: pass
threading.Thread(target=spin, daemon=True).start()
if os.fork() == 0:
    spin()
print("ready", flush=True)
spin()
"""


def _start(code: str, cpu: int | None = None) -> subprocess.Popen[bytes]:
    p = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    if cpu is not None:
        os.sched_setaffinity(p.pid, {cpu})
    return p


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for p in started:
        p.kill()  # by its pid (a FAMILY child dies with its parent's pipe: see the test)
        p.wait(timeout=10)


def test_schedstat_lines_are_parsed() -> None:
    assert parse_schedstat(b"10 20 3\n") == (10, 20)
    assert parse_schedstat(b"") is None and parse_schedstat(b"x y z") is None


def test_a_task_that_shares_its_cpu_with_busy_neighbours_waits(
    procs: list[subprocess.Popen[bytes]],
) -> None:
    cpu = min(os.sched_getaffinity(0))
    victim = _start(BUSY, cpu)
    procs.append(victim)
    for _ in range(3):
        procs.append(_start(BUSY, cpu))
    meter = TaskWait(TreeTasks(victim.pid))
    before = meter.sample()
    assert before is not None and list(before) == [victim.pid]
    time.sleep(0.4)  # the figures are the kernel's: this only lets them grow
    after = meter.sample()
    assert after is not None
    w = between(before, after)
    # four busy tasks on one CPU: each waits about three quarters of the time; a
    # generous floor, since the machine may be busy with other work too
    assert w.wait_ns > 50_000_000, w
    assert w.wait_max_ns == w.wait_ns and w.tasks == 1
    assert cores_of(victim.pid) == 1
    meter.close()


def test_the_tree_reader_finds_every_thread_of_every_descendant(
    procs: list[subprocess.Popen[bytes]],
) -> None:
    family = _start(FAMILY)
    procs.append(family)
    assert family.stdout is not None and family.stdout.readline() == b"ready\n"
    tids = TreeTasks(family.pid)()
    # the parent's two threads and its child's one
    assert len(tids) == 3, tids
    assert family.pid in tids
    meter = TaskWait(TreeTasks(family.pid))
    sample = meter.sample()
    assert sample is not None and set(sample) == set(tids)
    # the child ends: it is no longer read (and its counts go with it)
    own = {int(t) for t in os.listdir(f"/proc/{family.pid}/task")}
    (child,) = set(tids) - own
    os.kill(child, signal.SIGKILL)
    for _ in range(200):  # bounded: the parent does not reap it, so it is a zombie
        if Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            break
        time.sleep(0.01)
    later = meter.sample()
    assert later is not None and family.pid in later
    meter.close()


def test_a_listed_group_is_read_from_its_file(tmp_path: Path) -> None:
    listing = tmp_path / "tasks"
    listing.write_text(f"{os.getpid()}\n")
    assert ListedTasks(str(listing))() == [os.getpid()]
    sample = TaskWait(ListedTasks(str(listing))).sample()
    assert sample is not None and os.getpid() in sample
    assert ListedTasks(str(tmp_path / "gone"))() == []
    listing.write_text("not a number\n")
    assert ListedTasks(str(listing))() == []


def test_between_counts_new_tasks_from_zero_and_drops_gone_ones() -> None:
    w = between({1: (10, 5), 2: (7, 7)}, {1: (30, 9), 3: (4, 6)})
    assert (w.wait_ns, w.wait_max_ns, w.run_ns, w.tasks) == (4 + 6, 6, 20 + 4, 2)


def test_a_task_that_lowers_its_own_priority_is_seen(
    procs: list[subprocess.Popen[bytes]],
) -> None:
    from bidref.engines.schedwait import priority_lowered

    base = os.getpriority(os.PRIO_PROCESS, 0)
    plain = _start("import sys; print('ready', flush=True); sys.stdin.read()")
    niced = _start("import os, sys; os.nice(5); print('ready', flush=True); sys.stdin.read()")
    idle = _start(
        "import os, sys; os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0)); "
        "print('ready', flush=True); sys.stdin.read()"
    )
    procs += [plain, niced, idle]
    for p in (plain, niced, idle):
        assert p.stdout is not None and p.stdout.readline() == b"ready\n"
    assert not priority_lowered(TreeTasks(plain.pid)(), base)
    assert priority_lowered(TreeTasks(niced.pid)(), base)
    assert priority_lowered(TreeTasks(idle.pid)(), base)
    assert not priority_lowered([2**22 + 12345], base)  # (no such task: nothing lowered)


def test_a_busy_task_is_runnable_and_a_sleeping_one_is_not(
    procs: list[subprocess.Popen[bytes]],
) -> None:
    busy = _start("print('ready', flush=True)\n" + BUSY)
    asleep = _start("import sys; print('ready', flush=True); sys.stdin.read()")
    procs += [busy, asleep]
    for p in (busy, asleep):
        assert p.stdout is not None and p.stdout.readline() == b"ready\n"
    # The busy one never sleeps once ready: runnable whenever it is read. The other
    # is runnable until it reaches its read (on a loaded machine, a while): once
    # there, it sleeps and is not.
    give_up = time.monotonic() + 30
    while True:
        found = runnable_tasks([busy.pid, asleep.pid, 2**22 + 12345])
        assert busy.pid in found and 2**22 + 12345 not in found
        if found == {busy.pid}:
            break
        assert time.monotonic() < give_up, "the sleeping process never went to sleep"
        time.sleep(0.01)


def test_unseen_is_the_window_less_what_a_runnable_tasks_counters_grew() -> None:
    before = {1: (10, 5), 2: (0, 0)}
    after = {1: (30, 15), 2: (50, 0), 3: (5, 5)}
    # task 1: 100 - 20 - 10; task 3 (born in the window): 100 - 5 - 5; task 2 not runnable
    assert unseen_ns(before, after, {1, 3, 99}, 100) == 70 + 90
    assert unseen_ns(before, after, set(), 100) == 0
    assert unseen_ns({}, {1: (300, 0)}, {1}, 100) == 0  # (never below 0)
