"""A jail's costly parts are made when the last jail closes, ready for the next
start (bidref/sandbox/spares.py): fresh, never shared, never taken across a
fork, removed at exit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from bidref.sandbox import Limits, SandboxConfig
from bidref.sandbox import jail as jail_module
from bidref.sandbox.jail import open_jail
from bidref.sandbox.policy import JailSetupError
from bidref.sandbox.spares import Spares

from .conftest import REPO, leaked_cgroups, root_with_jail


def test_take_makes_one_or_gives_the_spare_restocked() -> None:
    made: list[int] = []
    discarded: list[int] = []

    def make() -> int:
        made.append(len(made) + 1)
        return made[-1]

    s: Spares[int] = Spares(discarded.append)
    assert s.take("k", make) == 1  # none ready: made now
    s.restock("k", make)  # the next one, made at close
    s.restock("k", make)  # one is enough
    assert made == [1, 2]
    assert s.take("k", make) == 2 and s.take("k", make) == 3  # each used once
    s.restock("k", make)
    s.clear()
    assert discarded == [4]


def test_a_failed_restock_is_left_for_the_next_take() -> None:
    def broken() -> int:
        raise OSError("no")

    s: Spares[int] = Spares(lambda _: None)
    s.restock("k", broken)  # quietly nothing
    with pytest.raises(OSError, match="no"):
        s.take("k", broken)


def test_a_forked_child_never_takes_its_parents_spare() -> None:
    s: Spares[str] = Spares(lambda _: None)
    s.restock("k", lambda: "parent's")
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        ok = s.take("k", lambda: "child's") == "child's"
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert s.take("k", lambda: "new") == "parent's"


@pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))
def test_the_next_jail_gets_the_group_and_namespace_made_at_the_last_close() -> None:
    config = SandboxConfig("auto", Limits(cpus=1))
    engine = str(REPO / "sample_engines" / "c_first" / "engine")
    jail_module._GROUPS.clear()  # (earlier tests in this process left theirs)
    jail_module._NETNS.clear()
    first = open_jail([engine], None, config)
    assert first is not None and first.group is not None and first.netns is not None
    first.close()
    (spare_group,) = [g for _, g in jail_module._GROUPS._ready.values()]
    (spare_ns,) = [n for _, n in jail_module._NETNS._ready.values()]
    second = open_jail([engine], None, config)
    try:
        assert second is not None
        assert second.group is spare_group and second.netns == spare_ns
        assert all(d.exists() for d in spare_group.dirs.values())
    finally:
        second.close()


@pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))
def test_a_referee_that_exits_leaves_no_spare_behind() -> None:
    code = textwrap.dedent(
        f"""
        import os
        from bidref.sandbox import Limits, SandboxConfig
        from bidref.sandbox.jail import open_jail
        j = open_jail([{str(REPO / "sample_engines" / "c_first" / "engine")!r}], None,
                      SandboxConfig("auto", Limits(cpus=1)))
        j.close()  # a spare group is made here, and removed at exit
        print(os.getpid())
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        check=True,
    )
    pid = out.stdout.strip()
    left = [p for p in Path("/sys/fs/cgroup").glob(f"**/bidref-{pid}-*")]
    assert left == [] and not any(f"bidref-{pid}-" in p for p in leaked_cgroups())


@pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))
def test_a_jail_that_fails_half_made_leaves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[Any] = []
    take = jail_module._GROUPS.take

    def recording(key: Any, make: Any) -> Any:
        taken.append(take(key, make))
        return taken[-1]

    def broken(*args: Any, **kwargs: Any) -> list[str]:
        raise OSError(5, "the command line could not be made")

    monkeypatch.setattr(jail_module._GROUPS, "take", recording)
    monkeypatch.setattr(jail_module.bwrap, "argv", broken)
    engine = str(REPO / "sample_engines" / "c_first" / "engine")
    # (the referee's own failure: a JailSetupError, which aborts a match unrated)
    with pytest.raises(JailSetupError, match="could not be made"):
        open_jail([engine], None, SandboxConfig("auto", Limits(cpus=1)))
    (group,) = taken
    assert group.dirs == {}  # removed, folders and all
