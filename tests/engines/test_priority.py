"""The referee's priority over its engines (bidref/engines/priority.py): raised for
the referee's thread where the machine allows it, never for an engine."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bidref.engines import contain
from bidref.engines.priority import BOOST, engine_nice, referee_priority

SLEEPER = "import sys; sys.stdin.read()"


def _nice_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return int(f.read().rsplit(b")", 1)[1].split()[16])  # field 19: nice


def _start(**kw: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", SLEEPER], stdin=subprocess.PIPE, **kw)  # type: ignore[call-overload]


def _end(p: subprocess.Popen[bytes]) -> None:
    assert p.stdin is not None
    p.stdin.close()
    p.wait(timeout=10)


@pytest.mark.skipif(
    os.geteuid() != 0, reason="raising a priority needs root here (CI runs as root)"
)
def test_the_referee_thread_is_raised_and_its_engines_are_not() -> None:
    base = os.getpriority(os.PRIO_PROCESS, 0)
    with referee_priority() as got:
        # real-time where the kernel lets root have it, else a lower nice value
        assert got.kind in ("realtime", "nice")
        if got.kind == "realtime":
            assert os.sched_getscheduler(0) & ~os.SCHED_RESET_ON_FORK == os.SCHED_FIFO
        else:
            assert os.getpriority(os.PRIO_PROCESS, 0) == base - BOOST
        assert engine_nice() == base
        engine = _start(preexec_fn=contain.child_setup())
        plain = _start()  # even without the engines' set-up: reset on fork
        try:
            assert _nice_of(engine.pid) == base
            assert _nice_of(plain.pid) == max(base, 0)
            for p in (engine, plain):  # an ordinary task, never a real-time one
                assert os.sched_getscheduler(p.pid) == os.SCHED_OTHER
        finally:
            _end(engine)
            _end(plain)
    assert os.getpriority(os.PRIO_PROCESS, 0) == base
    assert os.sched_getscheduler(0) == os.SCHED_OTHER
    assert engine_nice() is None


def test_without_the_privilege_or_when_turned_off_nothing_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = os.getpriority(os.PRIO_PROCESS, 0)
    monkeypatch.setenv("BIDREF_REFEREE_PRIORITY", "0")
    with referee_priority() as got:
        assert got.kind == "none" and engine_nice() is None
        assert os.getpriority(os.PRIO_PROCESS, 0) == base

    def refuse(*_: object) -> None:
        raise PermissionError("not permitted")

    monkeypatch.delenv("BIDREF_REFEREE_PRIORITY")
    monkeypatch.setattr(os, "setpriority", refuse)
    monkeypatch.setattr(os, "sched_setscheduler", refuse)
    with referee_priority() as got:
        assert got.kind == "none" and engine_nice() is None
