"""The jail as one declared spec (issue 40, item 7): the pure builder, the
bubblewrap command line it becomes, the limits table, the system-call filter
(run through a small BPF interpreter), and the engine file's refusals; no root,
no bubblewrap, no real folders."""

from __future__ import annotations

import dataclasses
import errno
import os
import struct
from pathlib import Path
from typing import Literal

import pytest

from bidref.engines.spec import EngineSpecError, load_engine_file
from bidref.sandbox import bwrap, limits, seccomp
from bidref.sandbox.policy import Limits, Machine, SandboxConfig, SandboxError
from bidref.sandbox.spec import JailSpec, build

PY = ("/opt/py/bin", "/opt/py", "/src/bidref")
ROOT = Machine(
    True, True, "/usr/bin/bwrap", "/usr/bin/setpriv", "v1",
    frozenset({"memory", "pids", "cpuset", "freezer", "cpuacct", "cpu"}), (0, 1),
)  # fmt: skip
PLAIN = Machine(True, False, "/usr/bin/bwrap", None, None, frozenset(), (0, 1))
BARE = Machine(True, False, None, None, None, frozenset(), (0, 1))


class FakeFs:
    """Folders and files by path; ``closed``: folders others may not enter."""

    def __init__(self, files: dict[str, str], closed: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.files = {"/usr": "dir", "/etc": "dir", "/bin": "link", "/lib": "dir", **files}
        self.closed = closed

    def kind(self, path: str) -> Literal["dir", "file", "link"] | None:
        k = self.files.get(path)
        return k if k in ("dir", "file", "link") else None  # type: ignore[return-value]

    def readlink(self, path: str) -> str:
        return "usr/bin"

    def others_can(self, path: str, write: bool) -> bool:
        return path not in self.closed and not write

    def listdir(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        return sorted({p[len(prefix) :].split("/")[0] for p in self.files if p.startswith(prefix)})

    def resolve(self, path: str) -> str:
        return os.path.normpath(path)


def _spec(
    argv: list[str],
    fs: FakeFs,
    m: Machine = ROOT,
    cwd: str | None = None,
    own_env: dict[str, str] | None = None,
    **config: object,
) -> JailSpec:
    return build(
        SandboxConfig(**config),  # type: ignore[arg-type]
        argv,
        cwd,
        m,
        fs,
        python=PY,
        mark=("BIDREF_CONTAIN", "tok"),
        outer_env={"BIDREF_TOKEN": "secret", "LANG": "C.UTF-8", "AWS_SECRET": "x"},
        own_env=own_env,
    )


ENGINE = {"/bots/a": "dir", "/bots/a/e.py": "file", "/bots/a/runs": "dir"}


def test_the_jail_sees_only_what_it_needs() -> None:
    fs = FakeFs({**ENGINE, "/elsewhere": "dir", "/opt/py": "dir", "/src/bidref": "dir"})
    spec = _spec(["/opt/py/bin/python", "/bots/a/e.py"], fs, hide=("/bots/a/runs", "/elsewhere"))
    argv = bwrap.argv(spec, "bwrap", uid=61400, seccomp_fd=9)
    text = " ".join(argv)
    assert "--ro-bind /bots/a /bots/a" in text and "--bind /bots/a" not in text
    assert "--tmpfs /bots/a/runs" in text  # inside a bound tree: covered
    assert "elsewhere" not in text  # not bound: not there at all
    assert "--ro-bind /opt/py /opt/py" in text and "--ro-bind /src/bidref /src/bidref" in text
    for ns in ("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"):
        assert ns in argv
    assert "--unshare-net" not in argv  # as root the referee makes it (no loopback)
    # no capabilities but the two setpriv needs, which it drops with the uid
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    assert text.count("--cap-add") == 2 and "--seccomp 9" in text
    inner = argv[argv.index("--") + 1 :]
    assert inner[:2] == ["/usr/bin/setpriv", "--reuid=61400"]
    # a sized /dev/shm, a read-only /dev, then the private /tmp before the binds
    assert "--size 67108864 --tmpfs /dev/shm --remount-ro /dev" in text
    assert argv.index("/tmp") < argv.index("/bots/a")


def test_the_engine_gets_an_allow_listed_environment_handed_over_last() -> None:
    fs = FakeFs(ENGINE)
    spec = _spec(["/bots/a/e.py"], fs, own_env={"BOT_DEPTH": "3", "LD_PRELOAD": "/bots/a/x.so"})
    assert dict(spec.env) == {
        "PATH": "/opt/py/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "BOT_DEPTH": "3",
        "LD_PRELOAD": "/bots/a/x.so",  # (the operator's --engine env.: the engine's alone)
        "BIDREF_CONTAIN": "tok",
    }
    argv = bwrap.argv(spec, "bwrap", uid=61400, seccomp_fd=None)
    # bubblewrap and setpriv see none of it: env -i hands it over as the last step
    env_at = argv.index("/usr/bin/env")
    assert argv[env_at + 1] == "-i" and argv.index("/usr/bin/setpriv") < env_at
    assert not any("LD_PRELOAD" in w for w in argv[:env_at])
    assert argv[-1] == "/bots/a/e.py"


def test_a_command_word_outside_the_folder_and_the_interpreter_binds_nothing() -> None:
    fs = FakeFs({**ENGINE, "/root/area/secret.txt": "file", "/opt/py/lib/x.py": "file"})
    argv = ["/bots/a/e.py", "/root/area/secret.txt", "/opt/py/lib/x.py"]
    spec = _spec(argv, fs, cwd="/bots/a")  # (an engine file's folder: its cwd)
    text = " ".join(bwrap.argv(spec, "bwrap", uid=61400, seccomp_fd=None))
    assert "/root/area/secret.txt /root" not in text and "--dir /root" not in text
    assert "--ro-bind /root/area/secret.txt" not in text
    assert "--ro-bind /opt/py/lib/x.py /opt/py/lib/x.py" in text  # the interpreter's


@pytest.mark.parametrize(
    ("cwd", "why"),
    [
        ("/", "root of the filesystem"),
        ("/proc/1", "kernel's or the system's run-time"),
        ("/tmp", "is or holds a system folder"),
        ("/usr", "is or holds a system folder"),
    ],
)
def test_a_folder_that_would_show_the_host_is_refused(cwd: str, why: str) -> None:
    with pytest.raises(SandboxError, match=why):
        _spec(["/usr/bin/python3", "e.py"], FakeFs({cwd: "dir"}), cwd=cwd)


def test_a_writable_folder_holding_the_referees_python_is_refused() -> None:
    fs = FakeFs({"/opt": "dir", "/src": "dir"})
    with pytest.raises(SandboxError, match="would hold the Python"):
        _spec(["/usr/bin/python3", "e.py"], fs, cwd="/src", dir_writable=True, m=PLAIN)


def test_a_folder_closed_to_the_accounts_is_a_private_copy_or_refused() -> None:
    fs = FakeFs(ENGINE, closed={"/bots/a"})
    spec = _spec(["/bots/a/e.py"], fs)
    assert spec.folder_mode == "private copy" and spec.account
    text = " ".join(bwrap.argv(spec, "bwrap", uid=61400, seccomp_fd=None, folder_source="/c/f"))
    assert "--ro-bind /c/f /bots/a" in text
    with pytest.raises(SandboxError, match="dir_writable asks for it: `chmod o\\+rwx /bots/a`"):
        _spec(["/bots/a/e.py"], fs, dir_writable=True)


def test_root_never_runs_an_engine_as_root() -> None:
    no_setpriv = dataclasses.replace(ROOT, setpriv=None)
    with pytest.raises(SandboxError, match="engines never run as root"):
        _spec(["/bots/a/e.py"], FakeFs(ENGINE), m=no_setpriv)


def test_every_limit_is_enforced_by_one_mechanism_or_said() -> None:
    # every Limits field has one row of the table
    fields = {f.name for f in dataclasses.fields(Limits)}
    assert {d.field for d in limits.TABLE} == fields
    fs = FakeFs(ENGINE)
    for m, level in ((ROOT, "strict"), (PLAIN, "auto"), (BARE, "auto")):
        spec = _spec(["/bots/a/e.py"], fs, m=m, level=level)
        for name, by in spec.limits.by.items():
            value = spec.limits.value[name]
            if by is None:
                assert name in spec.limits.not_enforced()
            elif by.startswith("rlimit"):
                assert spec.limits.rlimits()[name][1] == value
            elif by == "cgroup memory":
                assert spec.cgroup is not None and spec.cgroup.memory == value
            elif by == "cgroup pids":
                assert spec.cgroup is not None and spec.cgroup.pids == value
            elif by == "tmpfs size":
                assert any(x.dest == "/tmp" and x.size == value for x in spec.mounts)
            else:
                assert by == "cgroup cpuset" and spec.cgroup is not None and spec.cgroup.cores
    # without a memory cgroup the memory limit counts shared mappings too
    plain = _spec(["/bots/a/e.py"], fs, m=PLAIN)
    assert plain.limits.by["memory"] == "rlimit AS"
    assert plain.limits.not_enforced() == ("processes",)
    assert plain.record(None)["limits"]["processes"] == {"value": 64, "by": None}  # type: ignore[index]


# -- the system-call filter, run by a small classic-BPF interpreter ---------------


def _run_bpf(code: bytes, arch: int, nr: int, args: tuple[int, ...] = ()) -> int:
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(list(args) + [0] * (6 - len(args))))
    insns = [struct.unpack("<HBBI", code[i : i + 8]) for i in range(0, len(code), 8)]
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = insns[pc]
        if op == 0x20:
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif op == 0x06:
            return k
        else:
            hit = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[op]
            pc += 1 + (jt if hit else jf)


@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_the_filter_refuses_what_an_engine_never_needs(arch: str) -> None:
    code = seccomp.program(seccomp.DEFAULT, arch)
    assert code is not None
    table, audit = seccomp.SYSCALLS[arch], seccomp.AUDIT_ARCH[arch]
    eperm = seccomp.RET_ERRNO | errno.EPERM
    for name in ("keyctl", "add_key", "mount", "unshare", "perf_event_open", "bpf", "setns"):
        assert _run_bpf(code, audit, table[name]) == eperm, name
    new_user = seccomp.CLONE_NEWUSER
    assert _run_bpf(code, audit, table["clone"], (new_user | 17,)) == eperm
    assert _run_bpf(code, audit, table["clone"], (0x3D0F00,)) == seccomp.RET_ALLOW  # a thread
    assert _run_bpf(code, audit, table["clone3"]) == seccomp.RET_ERRNO | errno.ENOSYS
    # locks succeed and do nothing; the other fcntl commands run
    assert _run_bpf(code, audit, table["flock"], (3, 2)) == seccomp.RET_ERRNO
    for cmd in seccomp.LOCK_COMMANDS:
        assert _run_bpf(code, audit, table["fcntl"], (3, cmd)) == seccomp.RET_ERRNO
    assert _run_bpf(code, audit, table["fcntl"], (3, 1)) == seccomp.RET_ALLOW  # F_GETFD
    for nr in (0, 1, 3, 9, 60, 231):  # read, write, close, mmap, exit, exit_group (x86_64)
        if nr not in table.values():
            assert _run_bpf(code, audit, nr) == seccomp.RET_ALLOW
    # another ABI's numbers mean other calls: killed
    assert _run_bpf(code, 0x40000003, 1) == seccomp.RET_KILL_PROCESS
    if arch == "x86_64":
        assert _run_bpf(code, audit, 0x40000000 | table["keyctl"]) == eperm  # x32


# -- the engine file: it may make its jail stricter, never wider ------------------


def _engine_file(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "entrant"
    folder.mkdir()
    (folder / "e.py").write_text("print()\n")
    f = folder / "engine.toml"
    f.write_text('command = ["e.py"]\n' + text)
    return f


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('env = { LD_PRELOAD = "x.so" }\n', "'LD_PRELOAD' cannot be set for an engine"),
        ('env = { GCONV_PATH = "." }\n', "'GCONV_PATH' cannot be set"),
        ('env = { HOME = "/" }\n', "'HOME' cannot be set for an engine \\(the jail sets it\\)"),
        ('cwd = ".."\n', "outside the engine file's own folder"),
        ('cwd = "/"\n', "outside the engine file's own folder"),
        ("dir_writable = true\n", "cannot be set by an engine file"),
    ],
)
def test_an_engine_file_cannot_widen_its_jail(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(EngineSpecError, match=said):
        load_engine_file(_engine_file(tmp_path, text))


def test_an_engine_file_cwd_through_a_link_out_is_refused(tmp_path: Path) -> None:
    f = _engine_file(tmp_path, 'cwd = "up"\n')
    (f.parent / "up").symlink_to(tmp_path)
    with pytest.raises(EngineSpecError, match="outside the engine file's own folder"):
        load_engine_file(f)
    # a folder inside its own, and a stricter setting, are its to choose
    (f.parent / "sub").mkdir()
    f.write_text('command = ["../e.py"]\ncwd = "sub"\ndir_writable = false\nsandbox = "strict"\n')
    spec = load_engine_file(f)
    assert spec.cwd == str((f.parent / "sub").resolve()) and spec.dir_writable is False
