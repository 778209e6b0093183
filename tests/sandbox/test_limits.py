"""Every jail limit an engine runs into is named in its loss (issue 28, item 3):
the hostile engine's lethal attacks (hostile.py ``die``) through `bidref match`,
and the evidence matcher (bidref/sandbox/breach.py) on the words of several
languages."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from bidref.outcome import EndReason, end_sentence
from bidref.render.timeline import result_text
from bidref.sandbox.breach import Breach, judge, said

from .conftest import Arena, Run, root_with_jail, unprivileged

MIB = 1 << 20
needs_root = pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))


def _lost_by_resources(run: Run, limit: str, value: int, evidence: str) -> dict[str, Any]:
    """The hostile engine (A) lost a rated match by ``resources`` at ``limit``, and
    the victim (B) played on untouched until the referee's quit."""
    assert run.rc == 0, run.stderr
    out = run.outcome
    assert (out["reason"], out["winner"], out["rated"]) == ("resources", 1, True), out
    detail = out["detail"]
    assert (detail["seat"], detail["limit"], detail["limit_value"], detail["evidence"]) == (
        0,
        limit,
        value,
        evidence,
    ), detail
    assert out["exits"][1]["how"] == "quit", out["exits"]
    return dict(detail)


@needs_root
def test_strict_write_past_the_file_size_limit_is_killed_and_loses(arena: Arena) -> None:
    # /tmp (a private tmpfs of --tmp-size, 64M) has room: RLIMIT_FSIZE stops it at 2M
    run = arena.match(["fsize"], args=["--sandbox", "strict", "--max-file-size", "2M"])
    # its process is bubblewrap, which reports the death by SIGXFSZ as 128 + 25
    detail = _lost_by_resources(run, "file size", 2 * MIB, "exit status")
    assert detail["exit_code"] == 153
    assert detail["problem"] == (
        "exceeded its file size limit (2 MiB; exit code 153: killed by SIGXFSZ)"
    )
    assert "fsize" not in run.attacks  # it never got past the write


@needs_root
def test_strict_write_failing_with_efbig_then_crashing_loses_by_resources(arena: Arena) -> None:
    # Python ignores SIGXFSZ: the write fails with EFBIG, the error ends the engine
    run = arena.match(["efbig"], args=["--sandbox", "strict", "--max-file-size", "2M"])
    detail = _lost_by_resources(run, "file size", 2 * MIB, "stderr")
    assert detail["problem"] == (
        "ran into its file size limit (its limit is 2 MiB; it said: File too large; exit code 1)"
    )


@needs_root
def test_strict_out_of_open_files_loses_by_resources(arena: Arena) -> None:
    run = arena.match(["emfile"], args=["--sandbox", "strict", "--max-files", "64"])
    detail = _lost_by_resources(run, "open files", 64, "stderr")
    assert detail["problem"] == (
        "ran out of open files (its limit is 64; it said: Too many open files; exit code 1)"
    )
    assert "[Errno 24] Too many open files" in detail["stderr_tail"]
    # the transcript with the new detail replays clean
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from bidref.launch import main; sys.argv[0] = 'bidref'; main()",
            "replay",
            "--check",
            str(arena.out / "t.jsonl"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0 and "verified" in check.stdout, check.stdout + check.stderr


def test_off_the_same_words_are_a_plain_crash(arena: Arena) -> None:
    """The rule needs the limit set by the jail: unjailed, the engine that dies
    saying "Too many open files" (of the host's own limit, or its own raise)
    crashes."""
    run = arena.match(["emfile"], args=["--sandbox", "off"])
    assert run.rc == 0, run.stderr
    assert run.outcome["reason"] == "crash", run.outcome
    assert run.outcome["winner"] == 1 and run.outcome["rated"] is True
    assert "Too many open files" in run.outcome["detail"]["stderr_tail"]
    assert "limit" not in run.outcome["detail"]


def test_auto_unprivileged_memory_by_rlimit_loses_by_resources(arena: Arena) -> None:
    # no memory cgroup for an unprivileged referee: RLIMIT_DATA, and the engine
    # dies of its MemoryError (bounded: the allocation fails at 256M)
    run = arena.match(
        ["oom"],
        args=["--sandbox", "auto", "--memory", "256M"],
        python=["/usr/bin/python3"],
        user=unprivileged(),
    )
    assert "sandbox: namespaces+seccomp;" in run.stderr
    detail = _lost_by_resources(run, "memory", 256 * MIB, "stderr")
    assert detail["problem"].startswith("ran out of memory (its limit is 256 MiB; it said: Memory")


def test_auto_without_bwrap_sigxfsz_is_the_kernels_word(arena: Arena) -> None:
    # a jail of rlimits alone (no bubblewrap on PATH, no root): the engine's own
    # process is killed by SIGXFSZ, which the referee sees as such
    bin_dir = arena.root / "bin"  # (readable by the unprivileged referee)
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to("/usr/bin/python3")
    for tool in ("env", "setpriv"):
        (bin_dir / tool).symlink_to(f"/usr/bin/{tool}")
    run = arena.match(
        ["fsize"],
        args=["--sandbox", "auto", "--max-file-size", "2M"],
        python=["/usr/bin/python3"],
        user=unprivileged(),
        env={"PATH": str(bin_dir), "TMPDIR": str(arena.drop)},  # no private /tmp here
    )
    assert "sandbox: rlimits only;" in run.stderr, run.stderr
    detail = _lost_by_resources(run, "file size", 2 * MIB, "kernel")
    assert detail["signal"] == "SIGXFSZ"
    assert detail["problem"] == "exceeded its file size limit (2 MiB; killed by SIGXFSZ)"
    # the kernel stopped the write at the limit (the file stays: it died mid-write)
    (left,) = arena.drop.glob("hostile-*")
    assert left.stat().st_size == 2 * MIB


# -- the evidence matcher ---------------------------------------------------------

_RLIMITS = {"open files": 256, "file size": 64 * MIB, "memory": 1 << 30}
WORDS = [
    ("OSError: [Errno 24] Too many open files: '/dev/null'", "open files"),  # Python
    ("fopen: Too many open files", "open files"),  # C (perror, glibc and musl)
    (  # Rust
        "thread 'main' panicked at src/main.rs:4:37:\ncalled `Result::unwrap()` on an `Err` "
        'value: Os { code: 24, kind: Uncategorized, message: "Too many open files" }\n'
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        "open files",
    ),
    (  # Go: the words are above the goroutine dump
        "panic: open /dev/null: too many open files\n\ngoroutine 1 [running]:\n"
        "main.main()\n\t/src/main.go:12 +0x1d8\nexit status 2",
        "open files",
    ),
    (  # Java
        'Exception in thread "main" java.io.FileNotFoundException: /dev/null '
        "(Too many open files)\n\tat java.base/java.io.FileInputStream.open0(Native Method)",
        "open files",
    ),
    ("OSError: [Errno 27] File too large", "file size"),  # Python (SIGXFSZ ignored)
    ("write: File too large", "file size"),  # C
    ('Traceback (most recent call last):\n  File "e.py", line 3\nMemoryError', "memory"),
    (
        "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  "
        "std::bad_alloc",
        "memory",
    ),  # C++
    ("memory allocation of 1073741824 bytes failed", "memory"),  # Rust
    ("fatal error: runtime: out of memory\n\nruntime stack:", "memory"),  # Go
    ('Exception in thread "main" java.lang.OutOfMemoryError: Java heap space', "memory"),
    ("mmap: Cannot allocate memory", "memory"),  # C (ENOMEM)
]


@pytest.mark.parametrize(("stderr", "limit"), WORDS)
def test_the_systems_words_name_the_limit(stderr: str, limit: str) -> None:
    found = said(stderr, frozenset(_RLIMITS))
    assert found is not None and found[0] == limit
    assert found[1].lower() in stderr.lower()


@pytest.mark.parametrize(("stderr", "limit"), WORDS)
def test_only_a_limit_the_jail_set_counts(stderr: str, limit: str) -> None:
    others = frozenset(_RLIMITS) - {limit}
    assert said(stderr, others) is None
    # memory in a cgroup is judged by the kernel's count, never by words
    hit = judge(
        counted=None,
        signal_name=None,
        exit_code=1,
        wrapped=False,
        stderr=stderr,
        set_by_rlimit={k: v for k, v in _RLIMITS.items() if k != limit},
        values={"memory": 1 << 30, "processes": 64},
    )
    assert hit is None


def test_the_last_words_win_and_case_does_not_matter() -> None:
    text = "warning: TOO MANY OPEN FILES, closing some\nMemoryError\n"
    assert said(text, frozenset(_RLIMITS)) == ("memory", "MemoryError")
    assert said("nothing to see\nexit", frozenset(_RLIMITS)) is None


def test_judge_prefers_the_kernels_count_then_the_signal() -> None:
    common: dict[str, Any] = {
        "exit_code": None,
        "wrapped": False,
        "stderr": "Too many open files",
        "set_by_rlimit": _RLIMITS,
        "values": {"memory": 1 << 30, "processes": 64},
    }
    assert judge(counted="processes", signal_name="SIGKILL", **common) == Breach(
        "processes", 64, "kernel"
    )
    assert judge(counted=None, signal_name="SIGXFSZ", **common) == Breach(
        "file size", 64 * MIB, "kernel"
    )
    # exit code 153 counts only from bubblewrap, which reports a death by signal so
    code = {**common, "stderr": ""}
    code["exit_code"] = 153
    assert judge(counted=None, signal_name=None, **code) is None
    code["wrapped"] = True
    assert judge(counted=None, signal_name=None, **code) == Breach(
        "file size", 64 * MIB, "exit status"
    )


def test_the_end_sentence_names_the_limit_and_its_value() -> None:
    hit = Breach("open files", 256, "stderr", "Too many open files")
    detail = {"seat": 0, "limit": "open files", "problem": hit.sentence("exit code 1")}
    said_ = end_sentence(EndReason.RESOURCES, 1, detail, ("hog", "victim"))
    assert said_ == (
        "B (victim) wins by resources: A (hog) ran out of open files (its limit is 256; "
        "it said: Too many open files; exit code 1)"
    )
    assert Breach("memory", 3 << 29, "kernel").sentence("killed by SIGKILL") == (
        "exceeded its memory limit (1536 MiB; killed by SIGKILL)"
    )


def test_the_replay_page_names_the_limit() -> None:
    hit = Breach("file size", 2 * MIB, "kernel")
    detail = {"seat": 0, "limit": "file size", "problem": hit.sentence("killed by SIGXFSZ")}
    end = {"winner": 1, "reason": "resources", "detail": detail, "balances": [150, 150]}
    assert result_text(end, ["hog", "victim"]) == (
        "victim (B) wins: a jail limit (file size) (A, problem exceeded its file size "
        "limit (2 MiB; killed by SIGXFSZ)) · balances 150–150"
    )


def test_breach_doctests() -> None:
    import doctest

    import bidref.sandbox.breach

    assert doctest.testmod(bidref.sandbox.breach).failed == 0


def test_bidref_plays_watched_engine_seat_passes_the_jails_word_on() -> None:
    # `bidref play` wraps the engine's seat: its limits must reach the referee
    from types import SimpleNamespace

    from bidref.engines import ExitInfo
    from bidref.players.abilities import abilities_of
    from bidref.players.human import WatchedEngineSeat

    hit = Breach("open files", 64, "stderr", "Too many open files")
    asked: list[ExitInfo | None] = []

    def breach(info: ExitInfo | None) -> Breach:
        asked.append(info)
        return hit

    info = ExitInfo(1, None, "exited")
    inner: Any = SimpleNamespace(name="e", breach=breach)
    session: Any = None  # (not needed to pass it on)
    passed = abilities_of(WatchedEngineSeat(inner, session)).breach
    assert passed is not None and passed(info) is hit
    assert asked == [info]
    unjailed: Any = SimpleNamespace(name="net")  # a seat without a jail
    assert abilities_of(WatchedEngineSeat(unjailed, session)).breach is None
