"""No network at all in a jail, loopback included (issue 28, item 1).

As root the referee makes each jail's network namespace itself and never
brings its loopback up (bidref.sandbox.netns): an engine can reach neither the
host (a listener on the host's 127.0.0.1) nor itself over 127.0.0.1. Without
root bubblewrap makes the namespace, with a loopback of its own: the host is
still out of reach.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bidref.engines import start_engine
from bidref.engines.spec import resolve_engine
from bidref.engines.transport import Line
from bidref.sandbox import Limits, SandboxConfig

from .conftest import REPO, root_with_jail, unprivileged

PROBE = r"""
import json, socket, sys
def attempt(port):
    s = socket.socket()
    s.settimeout(1)
    try:
        s.connect(("127.0.0.1", port))
        return "connected"
    except OSError as e:
        return e.errno
    finally:
        s.close()
host = attempt(int(sys.argv[1]))
me = socket.socket()
try:
    me.bind(("127.0.0.1", 0))
    me.listen(1)
    itself = attempt(me.getsockname()[1])
except OSError as e:
    itself = e.errno
print(json.dumps({"host": host, "itself": itself}), flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def probe() -> Iterator[tuple[Path, int]]:
    top = Path(tempfile.mkdtemp(prefix="bidref-nonet-"))
    listener = socket.socket()
    try:
        folder = top / "engine"
        folder.mkdir()
        (folder / "probe.py").write_text(PROBE)
        for p in (top, folder):
            p.chmod(0o755)
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        yield folder / "probe.py", listener.getsockname()[1]
    finally:
        listener.close()
        shutil.rmtree(top, ignore_errors=True)


def _probe_jailed(script: Path, port: int, transport: str = "pipe") -> dict[str, object]:
    spec = resolve_engine(f"{sys.executable} {script} {port}")
    spec = replace(spec, sandbox=SandboxConfig("strict", Limits(cpus=1)))
    t = start_engine(spec, transport)
    try:
        got = t.read(time.monotonic_ns() + 20_000_000_000)
        assert isinstance(got, Line), got
        return dict(json.loads(got.text))
    finally:
        t.close(None, 500_000_000)


@pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))
@pytest.mark.parametrize("transport", ["pipe", "pty"])
def test_as_root_a_jail_has_no_network_not_even_its_own_loopback(
    probe: tuple[Path, int], transport: str
) -> None:
    # (pty: its spawner closes every descriptor before the jail's set-up runs)
    script, port = probe
    got = _probe_jailed(script, port, transport)
    assert got == {"host": errno.ENETUNREACH, "itself": errno.ENETUNREACH}


@pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))
def test_unjailed_the_same_probe_reaches_both(probe: tuple[Path, int]) -> None:
    # the probe itself works: without a jail it reaches the host and itself
    script, port = probe
    spec = resolve_engine(f"{sys.executable} {script} {port}")
    t = start_engine(spec)
    try:
        got = t.read(time.monotonic_ns() + 20_000_000_000)
        assert isinstance(got, Line), got
        assert json.loads(got.text) == {"host": "connected", "itself": "connected"}
    finally:
        t.close(None, 500_000_000)


@pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))
def test_without_root_bubblewraps_loopback_leads_nowhere(probe: tuple[Path, int]) -> None:
    script, port = probe
    code = (
        "import json, sys, time\n"
        "from dataclasses import replace\n"
        "from bidref.engines import start_engine\n"
        "from bidref.engines.spec import resolve_engine\n"
        "from bidref.sandbox import SandboxConfig\n"
        f"spec = replace(resolve_engine({f'/usr/bin/python3 {script} {port}'!r}),"
        " sandbox=SandboxConfig('auto'))\n"
        "t = start_engine(spec)\n"
        "print(t.read(time.monotonic_ns() + 20_000_000_000).text)\n"
        "t.close(None, 500_000_000)\n"
    )
    # (the system's interpreter: this one may lie in a folder closed to that uid)
    paths = [str(REPO), sysconfig.get_paths()["purelib"]]
    out = subprocess.run(
        [*unprivileged(), "/usr/bin/python3", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        env={**os.environ, "PYTHONPATH": ":".join(paths)},
        check=True,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    # its own loopback is up (bubblewrap's), but the host's listener is not there
    assert got == {"host": errno.ECONNREFUSED, "itself": "connected"}
