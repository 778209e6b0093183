"""Every attack of issue 28 against a real jail (bubblewrap, own accounts,
cgroups) through `bidref match`; and, to show the attacks are real, the same
engine without a jail."""

from __future__ import annotations

import pytest

from .conftest import Arena, leaked_cgroups, root_with_jail, unprivileged

# The attacks that leave the hostile engine playing (the resource ones end it).
ISOLATION = (
    "signal",
    "mem",
    "ptrace",
    "autogroup",
    "tamper",
    "plant",
    "secret",
    "tcp",
    "collude",
)
LIMITS = ("cpuset", "nofile", "disk")
NAMESPACE = ("signal", "mem", "ptrace", "autogroup", "tamper", "plant", "secret", "tcp", "collude")

needs_root = pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))


def _nothing_dropped(arena: Arena) -> None:
    assert sorted(p.name for p in arena.drop.iterdir()) == []
    assert sorted(p.name for p in arena.victim.parent.iterdir()) == ["victim.py"]


@needs_root
def test_strict_every_attack_fails_and_the_victim_wins(arena: Arena) -> None:
    victim_bytes = arena.victim.read_bytes()
    run = arena.match([*ISOLATION, *LIMITS], args=["--sandbox", "strict"])
    assert run.rc == 0, run.stderr
    assert "sandbox: namespaces+account+cgroups+seccomp (cpuset 1,0)" in run.stderr
    assert set(run.attacks) == {*ISOLATION, *LIMITS}, run.attacks
    worked = {name: a["detail"] for name, a in run.attacks.items() if a["ok"]}
    assert worked == {}
    assert run.outcome["winner"] == 1 and run.outcome["reason"] == "resign"
    assert run.outcome["exits"][1]["how"] == "quit"  # the victim untouched
    assert arena.victim.read_bytes() == victim_bytes
    _nothing_dropped(arena)
    # the limits held where the engine hit them, and said so
    assert "Too many open files" in run.attacks["nofile"]["detail"]
    assert "MiB then" in run.attacks["disk"]["detail"]
    assert run.attacks["cpuset"]["detail"] in ("[0]", "[1]")
    assert leaked_cgroups(arena.referees) == set()


@needs_root
def test_strict_memory_hog_loses_by_resources(arena: Arena) -> None:
    run = arena.match(["memory"], then="play", args=["--sandbox", "strict", "--memory", "256M"])
    assert run.rc == 0, run.stderr
    assert run.outcome["reason"] == "resources", run.outcome
    assert run.outcome["winner"] == 1 and run.outcome["rated"] is True
    assert run.outcome["detail"]["limit"] == "memory"
    assert run.outcome["detail"]["limit_value"] == 256 << 20
    assert run.outcome["detail"]["evidence"] == "kernel"  # the group's OOM kill
    assert run.outcome["exits"][1]["how"] == "quit"


@needs_root
def test_strict_fork_bomb_is_bounded_and_loses_by_resources(arena: Arena) -> None:
    run = arena.match(["fork"], then="exit", args=["--sandbox", "strict", "--max-procs", "32"])
    assert run.rc == 0, run.stderr
    assert run.attacks["fork"]["ok"] is False
    assert int(run.attacks["fork"]["detail"].split()[0]) < 32
    assert run.outcome["reason"] == "resources", run.outcome
    assert run.outcome["detail"]["limit"] == "processes"
    assert run.outcome["detail"]["limit_value"] == 32
    assert run.outcome["detail"]["problem"].startswith(
        "exceeded its processes limit (32; exit code"
    )
    assert run.outcome["winner"] == 1
    assert leaked_cgroups(arena.referees) == set()


def test_strict_refuses_without_every_protection(arena: Arena) -> None:
    # an unprivileged referee cannot give own accounts nor cgroups: exit 2, says why
    run = arena.match(
        ["signal"], args=["--sandbox", "strict"], python=["/usr/bin/python3"], user=unprivileged()
    )
    assert run.rc == 2
    assert "--sandbox strict: this machine cannot give account" in run.stderr
    assert run.attacks == {}


def test_an_engines_own_strict_that_cannot_be_given_names_the_engine(arena: Arena) -> None:
    run = arena.match(
        ["signal"], strict_engine=True, python=["/usr/bin/python3"], user=unprivileged()
    )
    assert run.rc == 2
    assert "engine 'hostile' asks for sandbox=strict: --sandbox strict: this machine" in (
        run.stderr
    ), run.stderr


def test_auto_unprivileged_namespace_attacks_fail(arena: Arena) -> None:
    run = arena.match(NAMESPACE, python=["/usr/bin/python3"], user=unprivileged())
    assert run.rc == 0, run.stderr
    assert "sandbox: namespaces+seccomp;" in run.stderr
    worked = {name: a["detail"] for name, a in run.attacks.items() if a["ok"]}
    assert set(run.attacks) == set(NAMESPACE) and worked == {}
    assert run.outcome["winner"] == 1 and run.outcome["reason"] == "resign"
    _nothing_dropped(arena)


def test_off_the_same_attacks_work(arena: Arena) -> None:
    """The hostile engine is not a straw man: unjailed, its attacks succeed and
    the victim is killed (what --sandbox off does not stop)."""
    run = arena.match(
        ["mem", "autogroup", "tamper", "secret", "tcp", "collude", "signal"],
        then="play",
        args=["--sandbox", "off"],
        lethal=True,
    )
    worked = {name for name, a in run.attacks.items() if a["ok"]}
    assert worked == {"mem", "autogroup", "tamper", "secret", "tcp", "collude", "signal"}, (
        run.attacks
    )
    assert "sandbox: off" in run.stderr
    assert run.outcome["winner"] == 0 and run.outcome["reason"] == "crash"


@needs_root
def test_outputs_inside_the_engines_own_folder_are_closed_by_modes(arena: Arena) -> None:
    # the transcript and logs inside the hostile engine's own (bound) folder: the
    # referee made them with umask 077, the engine runs as its seat's own uid
    out = arena.hostile.parent / "runs"
    out.mkdir()
    out.chmod(0o777)
    (out / "results-secret.txt").write_text("the referee's own file\n")
    run = arena.match(["secret"], args=["--sandbox", "auto"], out=out)
    assert run.rc == 0, run.stderr
    assert run.attacks["secret"]["ok"] is False, run.attacks
    assert run.outcome["winner"] == 1


@needs_root
def test_an_engine_asks_for_strict_itself(arena: Arena) -> None:
    # sandbox=strict on the engine wins over the command's off
    run = arena.match(["signal", "tamper"], args=["--sandbox", "off"], strict_engine=True)
    assert run.rc == 0, run.stderr
    assert {a["ok"] for a in run.attacks.values()} == {False}, run.attacks
