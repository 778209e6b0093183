"""An engine's CPU time from /proc: the whole process tree, reaped children included."""

from __future__ import annotations

import subprocess
import sys
import time

from bidref.engines.cputime import ProcTreeCpu

BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}: pass\n"


def _wait_for(pred: object, timeout_s: float = 20.0) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if pred():  # type: ignore[operator]
            return
        time.sleep(0.02)
    raise AssertionError("timed out")


def _tree(code: str) -> subprocess.Popen[bytes]:
    """A parent that runs ``code`` in a child and then waits on its stdin."""
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )


def test_a_living_child_and_a_reaped_one_both_count() -> None:
    # The parent itself is idle: it starts a child that burns 0.3 s and exits
    # (reaped: its parent's cutime), then one that burns 0.3 s and stays alive.
    code = (
        "import subprocess, sys\n"
        f"subprocess.run([sys.executable, '-c', {BURN.format(s=0.3)!r}])\n"
        f"live = subprocess.Popen([sys.executable, '-c', {BURN.format(s=0.3)!r} + "
        "'import sys; sys.stdin.read()'], stdin=subprocess.PIPE)\n"
        "print('ok', flush=True)\n"
        "sys.stdin.read()\n"
    )
    p = _tree(code)
    try:
        cpu = ProcTreeCpu(p.pid)
        before = cpu.read()
        assert before is not None
        assert p.stdout is not None and p.stdout.readline() == b"ok\n"
        # both children's 0.3 s, once the living one has burnt its share
        _wait_for(lambda: (cpu.read() or 0) - before >= 550_000_000)
        own = ProcTreeCpu(p.pid)  # a fresh reader agrees (nothing cached matters)
        assert abs((own.read() or 0) - (cpu.read() or 0)) < 200_000_000
        cpu.close()
        own.close()
    finally:
        p.kill()
        p.wait()


def test_an_idle_engine_reads_nearly_nothing_and_the_figure_is_precise() -> None:
    p = _tree("import sys\nprint('ok', flush=True)\nsys.stdin.read()\n")
    try:
        assert p.stdout is not None and p.stdout.readline() == b"ok\n"
        cpu = ProcTreeCpu(p.pid)
        a = cpu.read()
        time.sleep(0.2)
        b = cpu.read()
        assert a is not None and b is not None
        assert 0 <= b - a < 5_000_000
        # finer than a clock tick (10 ms): the start-up of Python is not a round figure
        assert a % 10_000_000 != 0
        cpu.close()
    finally:
        p.kill()
        p.wait()


def test_a_gone_process_keeps_its_last_figure_and_an_unknown_one_has_none() -> None:
    p = _tree(BURN.format(s=0.05))
    cpu = ProcTreeCpu(p.pid)
    first = cpu.read()
    p.wait()
    last = cpu.read()
    assert first is not None and last is not None and last >= first
    assert ProcTreeCpu(2**22 + 12345).read() is None  # beyond pid_max: never a process


def test_a_jail_set_on_the_transport_answers_for_cpu_time_and_holds() -> None:
    """The sandbox's glue point: set ``transport.jail`` and its cpu_ns(), freeze()
    and thaw() are used instead of /proc and process-group signals."""
    from bidref.engines import PipeTransport
    from tests.procinfo import state

    class Jail:
        freezes = True  # a freezer group: the transport asks it, not the signals
        wrapped = False
        tasks_path = None

        def __init__(self) -> None:
            self.calls: list[str] = []

        def close(self) -> None:
            self.calls.append("close")

        def freeze(self) -> None:
            self.calls.append("freeze")

        def thaw(self) -> None:
            self.calls.append("thaw")

        def cpu_ns(self) -> int | None:
            return 42

    t = PipeTransport([sys.executable, "-c", "import sys; sys.stdin.read()"])
    try:
        own = t.cpu_ns()
        assert own is not None and own > 0  # from /proc: Python's start-up
        t.freeze()  # without a jail: SIGSTOP to the group
        _wait_for(lambda: state(t.pid) == "T")
        t.thaw()
        _wait_for(lambda: state(t.pid) != "T")
        jail = Jail()
        t.jail = jail
        assert t.cpu_ns() == 42
        t.freeze()
        t.freeze()  # once frozen, not again
        time.sleep(0.05)
        assert state(t.pid) != "T"  # the jail froze it, not a signal
        t.thaw()
        assert jail.calls == ["freeze", "thaw"]
        t.freeze()
    finally:
        info = t.close(None, 200_000_000)  # thawed first: it ends as any other
    assert jail.calls == ["freeze", "thaw", "freeze", "thaw", "close"]  # closed after the reap
    assert info.how in ("sigterm", "sigkill", "exited")
