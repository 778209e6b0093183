"""The jail's boundary (issue 40): the engine file is the entrant's, as hostile
as the program beside it. Every row of the issue as an attack through the real
`bidref match`, as root under auto and strict and as a plain user under auto;
each asserts that the attack fails and that the victim's result and the
transcript are untouched. (Each failed on the main of 1df84f1.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bidref.sandbox import accounts

from .conftest import REPO, Arena, leaked_cgroups, root_with_jail, unprivileged

needs_root = pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))

# What an engine may try from inside, whatever its engine file says.
INSIDE = ("root", "environ", "keyring", "keyplant", "userns", "lock", "shm", "devwrite", "argfile")
_BIDREF = "import sys; from bidref.launch import main; sys.argv[0] = 'bidref'; main()"
SECRETS = {"BIDREF_TOKEN": "tok-of-the-operator", "BIDREF_TEST_SECRET": "ci-secret"}


def _engine_file(arena: Arena, body: str) -> Path:
    f = arena.hostile.parent / "engine.toml"
    f.write_text(body)
    return f


def _area_secret(arena: Arena) -> Path:
    """A file the jails' accounts cannot open on the host (in a 0700 folder)."""
    area = arena.root / "area"
    area.mkdir(exist_ok=True)
    secret = area / "secret.txt"
    secret.write_text("operator's secret\n")
    area.chmod(0o700)
    return secret


def _untouched(arena: Arena, run_rc: int, outcome: dict[str, object], stderr: str) -> None:
    assert run_rc == 0, stderr
    assert outcome["winner"] == 1 and outcome["reason"] == "resign", outcome
    assert sorted(p.name for p in arena.victim.parent.iterdir()) == ["victim.py"]
    check = subprocess.run(
        [sys.executable, "-c", _BIDREF, "replay", str(arena.out / "t.jsonl"), "--check"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def _jails(arena: Arena) -> list[dict[str, Any]]:
    """Each seat's jail, from the transcript's hello lines."""
    lines = [json.loads(x) for x in (arena.out / "t.jsonl").read_text().splitlines()]
    hellos = sorted((x for x in lines if x["type"] == "hello"), key=lambda x: x["seat"])
    return [h["jail"] for h in hellos]


@needs_root
@pytest.mark.parametrize("level", ["auto", "strict"])
def test_as_root_nothing_inside_the_jail_reaches_out(arena: Arena, level: str) -> None:
    secret = _area_secret(arena)
    f = _engine_file(arena, f'command = ["hostile.py", "{secret}"]\nenv = {{ BOT = "1" }}\n')
    run = arena.match(
        INSIDE,
        args=["--sandbox", level],
        cmd=str(f),
        env=SECRETS,
        keyring_secret="the-referees-key",
    )
    worked = {name: a["detail"] for name, a in run.attacks.items() if a["ok"]}
    assert set(run.attacks) == set(INSIDE), (run.attacks, run.stderr)
    assert worked == {}
    _untouched(arena, run.rc, run.outcome, run.stderr)
    assert "operator's secret" not in (arena.out / "A-hostile.stderr.log").read_text()
    # the header says what each seat's jail was, and the two had different accounts
    jails = _jails(arena)
    assert {j["level"] for j in jails} == {level}
    assert jails[0]["account"] != jails[1]["account"]
    assert all(accounts.FIRST <= j["account"] <= accounts.LAST for j in jails)
    assert all(j["seccomp"] and j["missing"] == [] for j in jails)
    # ... and the header, written before the engines start, says what was planned
    header = json.loads((arena.out / "t.jsonl").read_text().splitlines()[0])
    planned = [e["jail"] for e in header["engines"]]
    assert [p["own_account"] for p in planned] == [True, True]
    assert [p["limits"] for p in planned] == [j["limits"] for j in jails]
    assert leaked_cgroups(arena.referees) == set()


def test_as_a_plain_user_nothing_inside_the_jail_reaches_out(arena: Arena) -> None:
    secret = _area_secret(arena)
    f = _engine_file(arena, f'command = ["hostile.py", "{secret}"]\n')
    attacks = (*INSIDE, "mapshared")
    run = arena.match(
        attacks,
        cmd=str(f),
        env=SECRETS,
        keyring_secret="the-referees-key",
        python=["/usr/bin/python3"],
        user=unprivileged(),
        args=["--memory", "512M"],
    )
    worked = {name: a["detail"] for name, a in run.attacks.items() if a["ok"]}
    assert set(run.attacks) == set(attacks), (run.attacks, run.stderr)
    assert worked == {}
    # shared memory counts against the memory limit without cgroups (RLIMIT_AS)
    assert "Cannot allocate memory" in run.attacks["mapshared"]["detail"]
    assert (
        "No space left" in run.attacks["shm"]["detail"]
        or "too large" in (run.attacks["shm"]["detail"])
    )
    _untouched(arena, run.rc, run.outcome, run.stderr)
    jails = _jails(arena)
    # what this level could not give is recorded per seat, and said on the start line
    assert jails[0]["missing"] == ["account", "cgroups"]
    assert jails[0]["limits"]["processes"]["by"] is None
    assert jails[0]["limits"]["memory"]["by"] == "rlimit AS"
    assert "NOT enforced: processes" in run.stderr


@needs_root
def test_a_folder_closed_to_the_accounts_never_runs_the_engine_as_root(arena: Arena) -> None:
    # made under umask 077: the engine gets a private copy, run as its own account
    arena.hostile.parent.chmod(0o700)
    run = arena.match(["root", "tamper", "plant"], args=["--sandbox", "auto"])
    worked = {name: a["detail"] for name, a in run.attacks.items() if a["ok"]}
    assert set(run.attacks) == {"root", "tamper", "plant"} and worked == {}, (
        run.stderr,
        run.outcome,
    )
    assert run.attacks["root"]["detail"].startswith("uid 614")
    _untouched(arena, run.rc, run.outcome, run.stderr)
    jail = _jails(arena)[0]
    assert jail["folder"] == "private copy"


@needs_root
def test_dir_writable_on_a_folder_the_accounts_cannot_write_is_refused(arena: Arena) -> None:
    run = arena.match(["root"], args=["--sandbox", "auto", "--engine-dir-writable"])
    assert run.attacks == {}
    said = run.stderr + json.dumps(run.outcome)
    assert "not writable by the jails' own accounts" in said, said
    assert "chmod o+rwx" in said


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ('command = ["hostile.py"]\nenv = { LD_PRELOAD = "x.so" }\n', "'LD_PRELOAD' cannot be set"),
        ('command = ["hostile/hostile.py"]\ncwd = ".."\n', "outside the engine file's own folder"),
        ('command = ["/bin/true"]\ncwd = "/"\n', "outside the engine file's own folder"),
        ('command = ["hostile.py"]\ndir_writable = true\n', "cannot be set by an engine file"),
    ],
)
def test_an_engine_file_that_widens_its_jail_is_refused(arena: Arena, body: str, said: str) -> None:
    run = arena.match(["root"], cmd=str(_engine_file(arena, body)))
    assert run.rc == 2 and said in run.stderr, run.stderr
    assert run.attacks == {} and not (arena.out / "t.jsonl").exists()


@needs_root
def test_running_jails_never_share_an_account() -> None:
    held = [accounts.lease() for _ in range(6)]
    try:
        uids = [h.uid for h in held]
        assert len(set(uids)) == 6
        # another referee on the machine takes none of them either
        code = "from bidref.sandbox import accounts; print(accounts.lease().uid)"
        other = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
        )
        assert int(other.stdout) not in uids
    finally:
        for h in held:
            h.close()


def test_limits_under_off_are_said_not_enforced(arena: Arena) -> None:
    run = arena.match(["environ"], args=["--sandbox", "off", "--memory", "512M", "--cpus", "1"])
    assert "sandbox: off" in run.stderr
    assert "NOT enforced under --sandbox off: --memory 512M, --cpus 1" in run.stderr, run.stderr


def test_the_engine_file_env_reaches_the_engine_only(arena: Arena) -> None:
    f = _engine_file(arena, 'command = ["hostile.py"]\nenv = { BIDREF_TEST_SECRET = "its-own" }\n')
    run = arena.match(["environ"], cmd=str(f), env={"BIDREF_TOKEN": "x"})
    # its own variable (it set it) and none of the referee's
    assert run.attacks["environ"]["detail"] == "['BIDREF_TEST_SECRET']", run.attacks
    assert os.environ.get("BIDREF_TEST_SECRET") is None


@needs_root
def test_a_jail_the_referee_cannot_make_aborts_the_match_unrated(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from bidref.cli import app

    def exhausted() -> accounts.Lease:
        raise OSError("all 100 accounts of 61400-61499 are in use by running jails")

    monkeypatch.setattr(accounts, "lease", exhausted)
    out = arena.out / "t.jsonl"
    victim = str(arena.victim)
    args = ["match", victim, victim, "--seed", "1", "--transcript", str(out), "--json"]
    r = CliRunner().invoke(app, [*args, "--max-rounds", "1"])
    outcome = json.loads(r.stdout[r.stdout.index("{") :])
    # the referee's own set-up failed: nobody's loss, said as such
    assert outcome["reason"] == "aborted" and outcome["rated"] is False, outcome
    assert outcome["detail"]["cause"] == "jail_setup"
    assert "could not make the engine's jail: all 100 accounts" in outcome["detail"]["problem"]


@needs_root
@pytest.mark.parametrize(("flags", "frozen"), [((), True), (("--ponder",), False)])
def test_strict_freezes_the_engine_not_on_move_unless_pondering_is_asked_for(
    tmp_path: Path, flags: tuple[str, ...], frozen: bool
) -> None:
    burner = REPO / "tests" / "engines_broken" / "burns_while_idle.py"
    folder = tmp_path / "burner"
    folder.mkdir()
    folder.chmod(0o755)
    (folder / "engine.py").write_bytes(burner.read_bytes())
    out = tmp_path / "t.jsonl"
    engine = str(folder / "engine.py")
    match = ["match", engine, engine, "--sandbox", "strict", "--seed", "3", "--max-rounds", "1"]
    clock = ["--bank", "60", "--delay", "2", "--json", "--transcript", str(out)]
    r = subprocess.run(
        [sys.executable, "-c", _BIDREF, *match, *clock, *flags],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    idle = sorted(x["idle_cpu_ns"] for x in lines if x["type"] == "reply")
    median = idle[len(idle) // 2]
    assert (median < 10_000_000) is frozen, idle


CLOSER = """\
import json, os, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "closer", "author": "t", "version": "1",
                          "protocol": "bidref/1"}), flush=True)
    elif msg["type"] == "request":
        os.close({fd})  # its stdout or stdin, and it runs on, silent
        time.sleep(30)
        break
"""


def _closer_match(tmp_path: Path, fd: int, sandbox: str) -> tuple[dict[str, Any], float]:
    folder = tmp_path / f"closer-{sandbox}"
    folder.mkdir()
    folder.chmod(0o755)
    (folder / "engine.py").write_text(CLOSER.replace("{fd}", str(fd)))
    victim = str(REPO / "tests" / "sandbox" / "victim.py")
    args = ["match", str(folder / "engine.py"), victim, "--sandbox", sandbox, "--seed", "2"]
    began = time.monotonic()
    r = subprocess.run(
        # (a closed stdout ends it at once: a bank far from that; a closed stdin by time)
        [sys.executable, "-c", _BIDREF, *args, "--bank", "20" if fd == 1 else "3", "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
        timeout=60,
    )
    assert r.stdout.startswith("{"), r.stderr
    outcome: dict[str, Any] = json.loads(r.stdout)
    return outcome, time.monotonic() - began


@pytest.mark.parametrize("fd", [0, 1], ids=["stdin", "stdout"])
def test_an_engine_that_closes_its_pipe_ends_the_same_jailed_or_not(
    tmp_path: Path, fd: int
) -> None:
    unjailed, _ = _closer_match(tmp_path, fd, "off")
    jailed, took = _closer_match(tmp_path, fd, "auto")
    assert jailed["reason"] == unjailed["reason"] and jailed["winner"] == unjailed["winner"] == 1
    if fd == 1:  # a closed stdout is a crash when it is seen, not a time loss later
        assert jailed["reason"] == "crash", jailed
        assert took < 15, jailed  # (its deadline: 20 s)
    else:  # a closed stdin is seen by the next write only: it runs out of time
        assert jailed["reason"] == "time", jailed


_KEY_PROBE = """
import ctypes, os, sys
nr = {"x86_64": (250, 248), "aarch64": (219, 217)}[os.uname().machine]
libc = ctypes.CDLL(None, use_errno=True)
if sys.argv[1] == "add":
    assert libc.syscall(nr[1], b"user", b"bidref-left", b"hand", 4, -4) > 0  # user keyring
    sys.exit(0)
found = libc.syscall(nr[0], 10, -4, b"user", b"bidref-left", 0)  # KEYCTL_SEARCH
print("found" if found > 0 else "gone")
"""


@needs_root
def test_a_jails_account_leaves_no_key_to_the_next_jail() -> None:
    # (the filter refuses the key calls inside a jail; this is the second wall: a
    # key the account has anyway is cleared when its lease is returned)
    lease = accounts.lease()
    uid = lease.uid

    def as_uid(what: str) -> str:
        r = subprocess.run(
            ["/usr/bin/python3", "-c", _KEY_PROBE, what],  # (one the account may run)
            user=uid,
            group=uid,
            extra_groups=[],
            capture_output=True,
            text=True,
            check=True,
            cwd="/",
        )
        return r.stdout.strip()

    try:
        as_uid("add")
        assert as_uid("look") == "found"
    finally:
        lease.close()
    assert as_uid("look") == "gone"
