"""`bidref check-engine`: good engines pass, each broken engine fails its items."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.check_engine import (
    POSITIONS,
    SEAT,
    CheckSettings,
    check_engine,
    find_position,
    judge_action,
)
from bidref.cli import app
from bidref.engines import resolve_engine
from bidref.rules import MILLISECOND, SECOND
from tests.sample_build import build_c_engines

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "tests" / "engines_broken"
FAST = CheckSettings(bank=1 * SECOND, delay=100 * MILLISECOND, startup=3 * SECOND)
ALL_ITEMS = [
    "hello",
    "ping",
    *POSITIONS,
    "stale id",
    "error reply",
    "reply time",
    "clean stdout",
    "quit",
]
EVERY_ANSWER = {*POSITIONS, "stale id", "error reply"}


def sample_engines() -> list[str]:
    """Every sample engine folder's entry point (engine.py/.js/.sh, or a compiled engine)."""
    out = []
    for d in sorted((ROOT / "sample_engines").iterdir()):
        for name in ("engine.py", "engine.js", "engine.sh", "engine.c"):
            if (d / name).is_file():
                out.append(str(d / name))
                break
    return out


@pytest.mark.parametrize("name", list(POSITIONS))
def test_every_position_kind_is_found_with_seat_0_to_act(name: str) -> None:
    m = find_position(name)
    assert m.to_act == SEAT
    assert POSITIONS[name][1](m)
    assert find_position(name) is m  # cached: the same position every time


def test_judge_action_explains_what_is_wrong() -> None:
    m = find_position("forced opening")
    assert judge_action(m, str(m.legal_actions()[0])) is None
    assert "not bidref notation" in (judge_action(m, "fly away") or "")
    assert "must be opened first" in (judge_action(m, "draw") or "")


def _run(path: str, settings: CheckSettings = FAST) -> dict[str, tuple[bool, str]]:
    if path.endswith("engine.c"):
        build_c_engines()
        path = path[: -len(".c")]
    # `make test` installs Node.js where it is missing: its absence is a failure.
    assert not path.endswith(".js") or shutil.which("node"), "Node.js is not installed"
    spec = resolve_engine(path)
    report = check_engine(spec, settings)
    assert [r.item for r in report.results] == ALL_ITEMS
    return {r.item: (r.passed, r.detail) for r in report.results}


@pytest.mark.e2e
@pytest.mark.parametrize("path", sample_engines(), ids=lambda p: Path(p).parent.name)
def test_every_sample_engine_passes(path: str) -> None:
    results = _run(path)
    failed = {k: v[1] for k, v in results.items() if not v[0]}
    assert failed == {}


BROKEN_EXPECTED: dict[str, tuple[set[str], str]] = {
    "never_flushes": (set(ALL_ITEMS), "not flushed"),
    "wrong_id": (EVERY_ANSWER, "echo the id"),
    "crashes_on_auction": (
        {"auction: first bid", "auction: answer a bid"},
        "exit code 3) at its 2nd request since it started, without "
        "answering; its stderr ends: "
        "'crashes_on_auction: no idea how to bid'",
    ),
    "illegal_moves": (EVERY_ANSWER, "illegal"),
    "ignores_quit": ({"quit"}, "SIGTERM"),
    "bad_hello": ({"hello"}, "bidref/0"),
    "noisy_stdout": ({"clean stdout"}, "thinking about"),
    # The referee ends the match at a banner before the hello: so does the hello item.
    "banner": ({"hello", "clean stdout"}, "before its hello"),
    # A late answer is told apart from an unflushed one, and costs no other item.
    "slow_to_draw": ({"draw", "reply time"}, "too slow"),
    # A stuck engine is restarted, so the items after it are judged on their own.
    "hangs_on_draw": ({"draw", "reply time"}, "stuck"),
    # An invalid answer is quoted where it was expected, not taken for silence.
    "string_id": (EVERY_ANSWER | {"reply time", "clean stdout"}, "not a valid 'action' message"),
    # An invalid hello is quoted at once, not taken for silence or unflushed output.
    "invalid_hello": (set(ALL_ITEMS), "not a valid 'hello' message"),
    # Silence after an error is that, not a stuck or slow engine.
    "ignores_errors": (
        {"error reply"},
        "no second answer within 1.1 s; the same request stays pending",
    ),
    # A crash tied to the number of requests, not the position, says so.
    "crashes_third": (
        {"auction: answer a bid", "draw", "stale id"},
        "at its 3rd request since it started",
    ),
}


@pytest.mark.e2e
@pytest.mark.parametrize("name", sorted(BROKEN_EXPECTED))
def test_each_broken_engine_fails_exactly_its_items(name: str) -> None:
    # A silent engine costs the whole start-up timeout: keep it short here.
    quick = CheckSettings(bank=FAST.bank, delay=FAST.delay, startup=SECOND)
    # One that never answers validly waits out every deadline: keep them short too.
    tight = CheckSettings(bank=300 * MILLISECOND, delay=100 * MILLISECOND, startup=3 * SECOND)
    settings = {"never_flushes": quick, "string_id": tight}.get(name, FAST)
    results = _run(str(BROKEN / f"{name}.py"), settings)
    expected, hint = BROKEN_EXPECTED[name]
    failed = {k for k, (ok, _) in results.items() if not ok}
    assert failed == expected
    first = next(item for item in ALL_ITEMS if item in expected)
    assert hint in results[first][1]


@pytest.mark.e2e
def test_cli_reports_json_and_exit_codes() -> None:
    runner = CliRunner()
    bad = runner.invoke(
        app,
        ["check-engine", str(BROKEN / "bad_hello.py"), "--json", "--bank", "1", "--delay", "0.1"],
    )
    assert bad.exit_code == 1
    report = json.loads(bad.output)
    assert report["passed"] is False and report["name"] == "bad_hello"
    assert [i["item"] for i in report["items"] if not i["passed"]] == ["hello"]
    good = runner.invoke(
        app,
        [
            "check-engine",
            str(ROOT / "sample_engines/sh_random/engine.sh"),
            "--bank",
            "1",
            "--delay",
            "0.1",
        ],
    )
    assert good.exit_code == 0, good.output
    assert "15/15 items passed" in good.output


def test_cli_refuses_a_missing_engine() -> None:
    result = CliRunner().invoke(app, ["check-engine", "./no/such/engine"])
    assert result.exit_code == 2
    assert "does not exist" in result.output


@pytest.mark.e2e
@pytest.mark.parametrize(
    "shebang,hint",
    [
        ("#!/usr/bin/env bidref-no-such-interpreter", "exit code 127"),
        ("#!/no/such/bin/python9", "'/no/such/bin/python9'"),
    ],
    ids=["env", "absolute"],
)
def test_a_missing_interpreter_is_named(tmp_path: Path, shebang: str, hint: str) -> None:
    script = tmp_path / "engine"
    script.write_text(f"{shebang}\nprint('hello')\n")
    script.chmod(0o755)
    results = _run(str(script), FAST)
    assert {k for k, (ok, _) in results.items() if not ok} == set(ALL_ITEMS)
    detail = results["hello"][1]
    assert hint in detail and "#!" in detail, detail
    assert results["quit"][1].startswith("skipped (because the engine ")  # (never ran)


@pytest.mark.parametrize(
    "args",
    [
        ["--bank", "-1"],
        ["--delay", "-0.5"],
        ["--startup", "0"],
        ["--bank", "0", "--delay", "0"],
        ["--transport", "tty"],
    ],
)
def test_cli_refuses_a_clock_no_engine_could_meet(args: list[str]) -> None:
    engine = str(ROOT / "sample_engines/sh_random/engine.sh")
    result = CliRunner().invoke(app, ["check-engine", engine, *args])
    assert result.exit_code == 2, result.output
    assert args[0] in result.output


@pytest.mark.e2e
def test_an_engine_that_writes_much_to_stderr_passes() -> None:
    # Some 200 KB of stderr per request: the check drains it, so the engine never blocks.
    results = _run(str(BROKEN / "chatty_stderr.py"))
    assert {k: v for k, (ok, v) in results.items() if not ok} == {}


def test_cli_says_how_to_fix_an_engine_that_is_not_executable(tmp_path: Path) -> None:
    script = tmp_path / "engine.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    result = CliRunner().invoke(app, ["check-engine", str(script)])
    assert result.exit_code == 2
    assert "not executable" in result.output and "chmod +x" in result.output


@pytest.mark.e2e
def test_freeze_idle_stops_the_engine_between_answers_and_it_still_passes() -> None:
    """--freeze-idle: the engine is stopped after each answer and runs again when it
    is sent its next line (request, ping, error, quit); every item still passes."""
    from dataclasses import replace

    from bidref.engines import start_engine
    from tests.procinfo import state

    seen: list[str] = []  # the engine's state each time it is resumed from a freeze

    def starter(spec, transport, clock):  # type: ignore[no-untyped-def]
        t = start_engine(spec, transport, clock=clock)
        thaw = t.thaw

        def noted_thaw() -> None:
            if t._frozen:  # type: ignore[attr-defined]
                # SIGSTOP takes effect when the engine next runs: give it that moment
                give_up = time.monotonic() + 10  # (bounded for a loaded machine)
                while state(t.pid) != "T" and time.monotonic() < give_up:
                    time.sleep(0.005)
                seen.append(state(t.pid))
            thaw()

        t.thaw = noted_thaw  # type: ignore[method-assign]
        return t

    spec = resolve_engine(str(ROOT / "sample_engines" / "python_random" / "engine.py"))
    report = check_engine(spec, replace(FAST, freeze_idle=True), starter=starter)
    assert [(r.item, r.passed) for r in report.results] == [(i, True) for i in ALL_ITEMS], [
        (r.item, r.detail) for r in report.results if not r.passed
    ]
    # stopped after every answer until told the next thing
    assert len(seen) >= len(POSITIONS) and set(seen) == {"T"}, seen
