"""Hostile-engine tests of the engine jail (issue 28): a hostile engine
(hostile.py) tries every attack of the issue against a victim (victim.py),
through the real `bidref match` command, and reports what it managed."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
REPO = HERE.parent.parent


@dataclass
class Run:
    rc: int
    outcome: dict[str, Any]
    attacks: dict[str, dict[str, Any]]
    stderr: str


@dataclass
class Arena:
    """Two engine folders apart, the referee's output folder, a host folder to
    drop files in, a TCP listener and an abstract unix socket on this host."""

    root: Path
    port: int
    abstract: str
    referees: set[int] = field(default_factory=set)  # the pids of the referees it ran

    @property
    def hostile(self) -> Path:
        return self.root / "hostile" / "hostile.py"

    @property
    def victim(self) -> Path:
        return self.root / "victim" / "victim.py"

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def drop(self) -> Path:
        return self.root / "drop"

    def match(
        self,
        attacks: Sequence[str],
        *,
        then: str = "resign",
        args: Sequence[str] = (),
        lethal: bool = False,
        python: Sequence[str] = (sys.executable,),
        user: Sequence[str] = (),
        timeout: float = 60,
        out: Path | None = None,
        strict_engine: bool = False,
        env: dict[str, str] | None = None,
        cmd: str | None = None,
        keyring_secret: str | None = None,
    ) -> Run:
        out = out or self.out
        opts = {
            "attacks": ",".join(attacks),
            "then": then,
            "victim": str(self.victim),
            "secret": str(out),
            "drop": str(self.drop),
            "port": self.port,
            "abstract": self.abstract,
            "lethal": lethal,
        }
        engine = " ".join(
            f"option.{k}={json.dumps(v)}" for k, v in opts.items()
        )  # values are JSON: strings quoted
        # (another interpreter, for an unprivileged referee: this one's packages)
        paths = [str(REPO), sysconfig.get_paths()["purelib"]]
        # (``env``: e.g. a PATH without bwrap, for a jail of rlimits alone)
        env = {**os.environ, "PYTHONPATH": ":".join(paths), **(env or {})}
        proc = subprocess.Popen(
            [
                *user,
                *python,
                "-c",
                (
                    _KEYRING.format(secret=keyring_secret, n=len(keyring_secret))
                    if keyring_secret
                    else ""
                )
                + "import sys; from bidref.launch import main; sys.argv[0] = 'bidref'; main()",
                "match",
                "-e",
                f"cmd={cmd or self.hostile} name=hostile {_quote(engine)}"
                + (" sandbox=strict" if strict_engine else ""),
                "-e",
                f"cmd={self.victim} name=victim",
                "--seed",
                "5",
                "--bank",
                "60",
                "--delay",
                "2",
                "--max-rounds",
                "1",
                "--transcript",
                str(out / "t.jsonl"),
                "--stderr-dir",
                str(out),
                "--json",
                *args,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=self.root,
            env=env,
        )
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
        self.referees.add(proc.pid)
        outcome = json.loads(stdout) if stdout.strip().startswith("{") else {}
        attacks_seen: dict[str, dict[str, Any]] = {}
        log = out / "A-hostile.stderr.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        for line in text.splitlines():
            if line.startswith("ATTACK "):
                a = json.loads(line[7:])
                attacks_seen[a["name"]] = a
        return Run(proc.returncode, outcome, attacks_seen, stderr)


# The referee's own session keyring (a new one, not the test's) with a secret key
# in it, as an operator's keyring would hold one.
_KEYRING = (
    "import ctypes, os\n"
    "nr = {{'x86_64': (250, 248), 'aarch64': (219, 217)}}[os.uname().machine]\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "assert libc.syscall(nr[0], 1, b'bidref-referee') > 0\n"
    "assert libc.syscall(nr[1], b'user', b'bidref-test-secret', b'{secret}', {n}, -3) > 0\n"
)


def _quote(text: str) -> str:
    # each option.K=V word as one shell word inside the --engine string
    import shlex

    return " ".join(shlex.quote(w) for w in text.split(" "))


@pytest.fixture
def arena() -> Iterator[Arena]:
    # not under pytest's tmp_path: its folders are closed to other accounts, and the
    # unprivileged referee of some tests writes here
    top = Path(tempfile.mkdtemp(prefix="bidref-sandbox-"))
    try:
        yield from _arena(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _arena(tmp_path: Path) -> Iterator[Arena]:
    root = tmp_path / "arena"
    for sub in ("hostile", "victim", "out", "drop"):
        (root / sub).mkdir(parents=True)
    shutil.copy(HERE / "hostile.py", root / "hostile" / "hostile.py")
    shutil.copy(HERE / "victim.py", root / "victim" / "victim.py")
    (root / "out" / "results-secret.txt").write_text("the referee's own file\n")
    # readable (not writable) by the seats' own accounts and by a throwaway user;
    # the tmp_path above it is closed to them
    for p in (tmp_path, root, root / "hostile", root / "victim"):
        p.chmod(0o755)
    (root / "out").chmod(0o777)
    (root / "drop").chmod(0o777)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    name = f"bidref-collude-{os.getpid()}-{id(root)}"
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind("\0" + name)
    unix.listen(8)
    try:
        yield Arena(root, tcp.getsockname()[1], name)
    finally:
        tcp.close()
        unix.close()


def root_with_jail() -> str | None:
    """Why the strict tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (CI runs as root): the seats' own accounts and cgroups"
    if shutil.which("bwrap") is None:
        return "needs bubblewrap: `make sandbox-tools`"
    return None


def unprivileged() -> list[str]:
    """A command prefix running as a uid with no account and no privileges."""
    return ["setpriv", "--reuid=61450", "--regid=61450", "--clear-groups", "--"]


def leaked_cgroups(referees: set[int] | None = None) -> set[str]:
    """The jails' control groups (bidref-PID-SEAT-N) whose referee PID is gone:
    left behind. (Groups of referees still running, e.g. other tests', are not;
    with ``referees``, only those of these referees: other test runs on the
    machine may kill referees of their own.)"""
    root = Path("/sys/fs/cgroup")
    found = {p for pattern in ("*/bidref-*", "*/*/*/bidref-*") for p in root.glob(pattern)}
    if referees is not None:
        found = {p for p in found if int(p.name.split("-")[1]) in referees}
    return {str(p) for p in found if not Path(f"/proc/{p.name.split('-')[1]}").exists()}


def assert_freezes_and_thaws(group: Any) -> None:
    """``group`` (a bidref.sandbox.cgroups.Group holding a busy process) spends
    next to no CPU while frozen, and runs again once thawed."""
    group.freeze()
    time.sleep(0.1)
    a = group.cpu_ns()
    time.sleep(0.3)
    assert group.cpu_ns() - a < 20_000_000  # frozen: (next to) no CPU
    group.thaw()
    time.sleep(0.3)
    assert group.cpu_ns() - a > 50_000_000  # running again
