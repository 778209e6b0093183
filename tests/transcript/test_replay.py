"""`bidref replay`: real referee transcripts replay clean; every tampering is caught."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion
from typer.testing import CliRunner

from bidref.cli import app
from bidref.transcript.replay import replay
from tests.transcript.fake_transcript import as_bytes, write_transcript
from tests.transcript.scripted_seats import referee_transcript

runner = CliRunner()
_cache: dict[str, bytes] = {}


def transcript(tmp_path_factory: pytest.TempPathFactory, **kw: Any) -> bytes:
    key = json.dumps(kw, sort_keys=True)
    if key not in _cache:
        path = tmp_path_factory.mktemp("t") / "t.jsonl"
        _cache[key] = referee_transcript(path, **kw)
    return _cache[key]


KINDS: dict[str, dict[str, Any]] = {
    "two-rounds": {},
    "illegal-retries": {"illegal_rate": 0.2, "chatty": True},
    "time-loss": {"late_at": 7},
    "forfeit": {"illegal": "forfeit", "illegal_rate": 0.3},
    "to-the-end": {"max_rounds": None, "seed": 3},
    "explicit-first-deal": {"explicit_deals": 1},
    "round-limit": {"max_rounds": 1},
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_referee_transcripts_replay_clean(
    kind: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    data = transcript(tmp_path_factory, **KINDS[kind])
    r = replay(data)
    assert r.problem is None and r.truncated is None, r.problem
    assert r.exit_code == 0
    assert r.verified_lines == r.lines == data.count(b"\n")
    last = json.loads(data.splitlines()[-1])
    assert r.result is not None and r.result.reason == last["reason"]


def test_independent_writer_agrees(tmp_path: Path) -> None:
    """A second writer, written from protocols/transcript.md alone, replays clean too."""
    for kw in ({}, {"illegal_rate": 0.2}, {"max_rounds": None, "seed": 3}, {"time_out_at": 9}):
        r = replay(as_bytes(write_transcript(**kw)))  # type: ignore[arg-type]
        assert r.exit_code == 0, r.problem


# -- tampering --------------------------------------------------------------------------------

Lines = list[dict[str, Any]]


def _lines(data: bytes) -> Lines:
    return [json.loads(x) for x in data.splitlines()]


def _bytes(lines: Lines) -> bytes:
    return ("\n".join(json.dumps(x, separators=(",", ":")) for x in lines) + "\n").encode()


def _first(lines: Lines, pred: Callable[[dict[str, Any]], bool], after: int = 0) -> int:
    return next(i for i, x in enumerate(lines) if i >= after and pred(x))


def _placed_with_count(x: dict[str, Any]) -> bool:
    return x["type"] == "event" and x["event"]["kind"] == "placed" and x["event"]["count"] > 0


def tamper_count(lines: Lines) -> int:
    i = _first(lines, _placed_with_count)
    lines[i]["event"]["count"] += 5
    return i


def tamper_transfer(lines: Lines) -> int:
    i = _first(lines, lambda x: x["type"] == "event" and x["event"]["kind"] == "transfer")
    lines[i]["event"]["amount"] += 5
    lines[i]["event"]["balances"] = [
        b + d for b, d in zip(lines[i]["event"]["balances"], (5, -5), strict=True)
    ]
    return i


def tamper_swapped_tile_in_play(lines: Lines) -> int:
    i = _first(
        lines,
        lambda x: (
            x["type"] == "event" and x["event"]["kind"] == "placed" and x["event"]["at"] is not None
        ),
    )
    ev = lines[i]["event"]
    ev["tile"] = [ev["tile"][1], ev["tile"][0]] if ev["tile"][0] != ev["tile"][1] else [0, 0]
    if ev["tile"][0] > ev["tile"][1]:  # still the same tile: use another one
        ev["tile"] = [6, 6] if ev["tile"] != [6, 6] else [0, 0]
    return i


def tamper_swapped_tile_in_deal(lines: Lines) -> int:
    i = _first(lines, lambda x: x["type"] == "round_reveal")
    hands = lines[i]["deal"]["hands"]
    a, b = hands[0][0], hands[1][0]
    hands[0][0], hands[1][0] = b, a
    hands[0].sort()
    hands[1].sort()
    return i


def tamper_action(lines: Lines) -> int:
    """An accepted reply names another (still parseable) action than the one played."""
    i = _first(
        lines,
        lambda x: (
            x["type"] == "reply" and x["status"] == "accepted" and x["action"].startswith("play")
        ),
    )
    lines[i]["action"] = "draw"
    return i


def tamper_elapsed(lines: Lines) -> int:
    i = _first(lines, lambda x: x["type"] == "reply")
    lines[i]["elapsed_ns"] += 1_000_000
    return i


def tamper_reply_time(lines: Lines) -> int:
    """The reply's time stamp is edited (its elapsed no longer follows from it)."""
    i = _first(lines, lambda x: x["type"] == "reply" and x["elapsed_ns"] > 0)
    lines[i]["t_ns"] += 3_000_000_000
    return i


def tamper_bank(lines: Lines) -> int:
    """Charge and banks edited together, consistently: the next request's clock disagrees."""
    i = _first(
        lines,
        lambda x: x["type"] == "reply" and x["charge"]["bank_used_ns"] == 0 and x["elapsed_ns"] > 0,
    )
    seat = lines[i]["seat"]
    lines[i]["banks_ns"][seat] += 0  # unchanged banks, but the delay charged is edited:
    lines[i]["charge"]["delay_used_ns"] -= 1
    return i


def tamper_deadline(lines: Lines) -> int:
    i = _first(lines, lambda x: x["type"] == "request", after=10)
    lines[i]["deadline_ns"] += 10_000_000_000
    return i


def tamper_result(lines: Lines) -> int:
    lines[-1]["winner"] = 1 - lines[-1]["winner"]
    return len(lines) - 1


def tamper_seed(lines: Lines) -> int:
    i = _first(lines, lambda x: x["type"] == "seed_reveal")
    lines[i]["seed"] += 1
    return i


def tamper_round_limit_balances(lines: Lines) -> int:
    i = _first(lines, lambda x: x["type"] == "round_start", after=5)
    lines[i]["balances"] = [lines[i]["balances"][0] + 5, lines[i]["balances"][1] - 5]
    return i


def tamper_drawn_tile(lines: Lines) -> int:
    i = _first(
        lines,
        lambda x: x["type"] == "round_reveal" and any(p["kind"] == "drew" for p in x["private"]),
    )
    item = next(p for p in lines[i]["private"] if p["kind"] == "drew")
    item["tile"] = [6, 6] if item["tile"] != [6, 6] else [0, 0]
    return i


TAMPERS = [
    tamper_count,
    tamper_transfer,
    tamper_swapped_tile_in_play,
    tamper_swapped_tile_in_deal,
    tamper_action,
    tamper_elapsed,
    tamper_reply_time,
    tamper_bank,
    tamper_deadline,
    tamper_result,
    tamper_seed,
    tamper_round_limit_balances,
    tamper_drawn_tile,
]


@pytest.mark.parametrize("tamper", TAMPERS, ids=[t.__name__ for t in TAMPERS])
def test_tampering_is_caught_at_the_right_line(
    tamper: Callable[[Lines], int], tmp_path_factory: pytest.TempPathFactory
) -> None:
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    index = tamper(lines)
    r = replay(_bytes(lines))
    assert r.problem is not None, f"{tamper.__name__} went unnoticed"
    assert r.exit_code == 1
    # The right line: the tampered one (1-based), except a lying deal or drawn tile, which
    # is caught at the reveal that fails to open the commitment (or names the tile).
    assert r.problem.line == index + 1, (r.problem, index + 1)


def test_tampered_clock_messages_say_what_disagrees(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    tamper_elapsed(lines)
    r = replay(_bytes(lines))
    assert r.problem is not None and "elapsed_ns" in r.problem.message
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    tamper_count(lines)
    r = replay(_bytes(lines))
    assert r.problem is not None and "count: transcript" in r.problem.message


# -- truncation and fuzz ------------------------------------------------------------------------


def test_truncated_transcript_replays_up_to_its_last_line(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    data = transcript(tmp_path_factory, **KINDS["two-rounds"])
    lines = data.splitlines(keepends=True)
    cut = b"".join(lines[:40]) + lines[40][:25]  # killed in the middle of line 41
    r = replay(cut)
    assert r.problem is None and r.exit_code == 3
    assert r.truncated is not None
    assert "stops after line 40 (an unfinished line 41)" in r.truncated
    assert "never revealed" in r.truncated  # round 1's deal is never revealed
    assert any(s.kind == "action" for s in r.steps)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(cut=st.integers(min_value=0, max_value=200_000))
def test_no_traceback_at_any_cut(cut: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    data = transcript(tmp_path_factory, **KINDS["illegal-retries"])
    r = replay(data[: cut % (len(data) + 1)])
    assert r.exit_code in (0, 1, 3)
    if cut % (len(data) + 1) < len(data):
        assert r.exit_code != 0


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_no_traceback_on_random_bytes(data: bytes) -> None:
    r = replay(data)
    assert r.exit_code in (0, 1, 3)
    assert r.exit_code != 0 or data.strip() == b""


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_traceback_on_mangled_fields(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    lines = _lines(transcript(tmp_path_factory, **KINDS["illegal-retries"]))
    i = data.draw(st.integers(min_value=0, max_value=len(lines) - 1))
    key = data.draw(st.sampled_from(sorted(lines[i])))
    lines[i][key] = data.draw(
        st.one_of(
            st.none(),
            st.integers(),
            st.text(max_size=5),
            st.lists(st.integers(), max_size=3),
            st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
        )
    )
    r = replay(_bytes(lines))
    assert r.exit_code in (0, 1, 3)


# -- the command -------------------------------------------------------------------------------


def _cli(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stdout, r.stderr


def test_cli_replay_output(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, snapshot: SnapshotAssertion
) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(transcript(tmp_path_factory, **KINDS["time-loss"]))
    code, out, err = _cli("replay", str(p))
    assert code == 0 and err == ""
    assert out == snapshot
    code, out, _ = _cli("replay", "--final", str(p))
    assert code == 0 and "Result: time; winner B" in out and "open 5-5" not in out


def test_cli_round_json_and_svg(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    p = tmp_path / "t.jsonl"
    data = transcript(tmp_path_factory, **KINDS["two-rounds"])
    p.write_bytes(data)
    code, out, _ = _cli("replay", "--round", "2", str(p))
    assert code == 0 and "Round 2" in out and "Round 1 —" not in out and "Count:" in out
    code, _, err = _cli("replay", "--round", "3", str(p))
    assert code == 2 and "no round 3 in this transcript (rounds 1–2)" in err
    code, out, _ = _cli("replay", "--json", str(p))
    items = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and items[-1]["type"] == "verdict" and items[-1]["ok"] is True
    assert len(items) - 1 == data.count(b"\n") and all(x["verified"] for x in items[:-1])
    drew = [x for x in items if x.get("type") == "event" and x["event"]["kind"] == "drew"]
    assert drew and all(x["event"]["tile"] is not None for x in drew)  # revealed and checked
    code, out, _ = _cli("replay", "--svg", str(tmp_path / "svg"), "--final", str(p))
    svgs = sorted((tmp_path / "svg").glob("*.svg"))
    placements = sum(
        1 for x in items if x.get("type") == "event" and x["event"]["kind"] == "placed"
    )
    assert code == 0 and len(svgs) == placements
    assert (tmp_path / "svg" / "index.html").read_text().count("<svg") == placements


def test_cli_mismatch_and_truncation_exit_codes(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    index = tamper_count(lines)
    p = tmp_path / "bad.jsonl"
    p.write_bytes(_bytes(lines))
    code, _, err = _cli("replay", str(p))
    assert code == 1 and err.startswith(f"{p}:{index + 1}: mismatch: placed event disagrees")
    # Cut short before round 1's reveal, the public facts are still checked: the edited
    # count is caught without the deal.
    p.write_bytes(_bytes(lines)[:3000])
    code, _, err = _cli("replay", str(p))
    assert code == 1 and err.startswith(f"{p}:{index + 1}: mismatch: placed event disagrees")
    p.write_bytes(transcript(tmp_path_factory, **KINDS["two-rounds"])[:3000])
    code, out, err = _cli("replay", str(p))
    assert code == 3 and "truncated" in err and "incomplete" in out
    code, _, err = _cli("replay", str(tmp_path / "none.jsonl"))
    assert code == 2 and "cannot read" in err


def test_cli_check_only_verifies_with_the_same_verdicts(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    data = transcript(tmp_path_factory, **KINDS["two-rounds"])
    p = tmp_path / "t.jsonl"
    p.write_bytes(data)
    code, out, err = _cli("replay", "--check", str(p))
    assert (code, err) == (0, "") and out.startswith("✓ verified: all ")
    assert len(out.splitlines()) == 1  # nothing of the game
    lines = _lines(data)
    index = tamper_count(lines)
    p.write_bytes(_bytes(lines))
    code, out, err = _cli("replay", "--check", str(p))
    assert (code, out) == (1, "")
    assert err.startswith(f"{p}:{index + 1}: mismatch: placed event disagrees")
    assert (code, err) == _cli("replay", str(p))[::2]  # as the full replay says
    p.write_bytes(data[:3000])
    code, out, err = _cli("replay", "--check", str(p))
    assert code == 3 and "truncated" in err and "incomplete" in out
    code, _, err = _cli("replay", "--check", "--final", "--logs", str(p))
    assert code == 2 and "--final, --logs" in err and "drop one" in err


def test_cli_check_verifies_many_transcripts_and_exits_with_the_worst(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    data = transcript(tmp_path_factory, **KINDS["two-rounds"])
    good = [tmp_path / f"good{i}.jsonl" for i in range(3)]
    for g in good:
        g.write_bytes(data)
    code, out, err = _cli("replay", "--check", *map(str, good))
    assert (code, err) == (0, "")
    assert [x.split(": ✓ verified")[0] for x in out.splitlines()[:3]] == list(map(str, good))
    assert out.splitlines()[-1] == "3 of 3 transcripts verified clean"
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[:3000])
    missing = tmp_path / "missing.jsonl"
    lines = _lines(data)
    tamper_count(lines)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(_bytes(lines))
    files = [good[0], cut]
    assert _cli("replay", "--check", *map(str, files))[0] == 3
    assert _cli("replay", "--check", *map(str, [*files, missing]))[0] == 2
    code, out, err = _cli("replay", "--check", *map(str, [bad, *files, missing]))
    assert code == 1 and out.splitlines()[-1] == "1 of 4 transcripts verified clean"
    assert f"{bad}:" in err and f"{cut}: truncated" in err and f"{missing}: cannot read" in err
    code, _, err = _cli("replay", *map(str, good))
    assert code == 2 and "give one transcript to show (3 given)" in err and "--check" in err


def test_cli_step_without_a_terminal_shows_every_placement(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    p = tmp_path / "t.jsonl"
    data = transcript(tmp_path_factory, **KINDS["time-loss"])
    p.write_bytes(data)
    code, out, _ = _cli("replay", "--step", str(p))
    placements = data.count(b'"kind":"placed"')
    assert code == 0 and out.count("Count:") >= placements


@pytest.mark.e2e
@pytest.mark.parametrize("seed", [1, 2])
def test_bidref_match_transcripts_replay_clean(seed: int, tmp_path: Path) -> None:
    """Real engine processes through `bidref match`: the transcript replays clean."""
    root = Path(__file__).resolve().parents[2]
    engines = root / "sample_engines"
    t = tmp_path / "m.jsonl"
    r = runner.invoke(
        app,
        [
            "match",
            str(engines / "python_random" / "engine.py"),
            str(engines / "python_greedy" / "engine.py"),
            "--seed",
            str(seed),
            "--bank",
            "20",
            "--delay",
            "1",
            "--max-rounds",
            "3",
            "--transcript",
            str(t),
        ],
    )
    assert r.exit_code == 0, r.output
    code, out, err = _cli("replay", str(t))
    assert code == 0 and err == "" and "✓ verified" in out


def test_a_rejected_legal_action_is_caught(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The reveal shows what a rejected reply said; if that was legal, the referee lied."""
    lines = _lines(transcript(tmp_path_factory, **KINDS["illegal-retries"]))
    i = _first(lines, lambda x: x["type"] == "reply" and x["status"] == "illegal")
    accepted = lines[
        _first(lines, lambda x: x["type"] == "reply" and x["status"] == "accepted", after=i)
    ]["action"]
    reveal = lines[_first(lines, lambda x: x["type"] == "round_reveal", after=i)]
    item = next(p for p in reveal["private"] if p["seq"] == i and p["kind"] == "reply_raw")
    item["raw"] = json.dumps({"type": "action", "id": lines[i]["id"], "action": accepted})
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == i + 1
    assert "rejected" in r.problem.message and "which is legal" in r.problem.message
    # And the rule it names must be the rule that forbids the action.
    lines = _lines(transcript(tmp_path_factory, **KINDS["illegal-retries"]))
    lines[i]["rule"] = "§6"
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == i + 1 and "forbid" in r.problem.message


def test_every_cut_replays_up_to_the_cut(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Cut after every line and inside every line: never a traceback, never 'clean', and
    the report says where the transcript stops."""
    data = transcript(tmp_path_factory, **KINDS["illegal-retries"])
    lines = data.splitlines(keepends=True)
    for k in range(len(lines)):
        head = b"".join(lines[:k])
        for cut, unfinished in ((head, False), (head + lines[k][: len(lines[k]) // 2], True)):
            r = replay(cut)
            assert r.exit_code == 3, (k, r.problem)
            assert r.truncated is not None
            if not cut:  # not cut short: empty
                assert r.empty and r.truncated.startswith("not one line"), r.truncated
                continue
            assert not r.empty
            where = f"an unfinished line {k + 1}" if unfinished else "no result line"
            assert f"stops after line {k} ({where})" in r.truncated, (k, r.truncated)


PUBLIC_TAMPERS = [
    tamper_count,
    tamper_transfer,
    tamper_swapped_tile_in_play,
    tamper_elapsed,
    tamper_reply_time,
    tamper_bank,
    tamper_deadline,
]


@pytest.mark.parametrize("tamper", PUBLIC_TAMPERS, ids=[t.__name__ for t in PUBLIC_TAMPERS])
def test_truncated_round_still_checks_public_facts(
    tamper: Callable[[Lines], int], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Without the round's reveal the hands are unknown, but the layout, counts, transfers
    and the clock are public: tampering with them is caught at the right line."""
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    reveal = _first(lines, lambda x: x["type"] == "round_reveal")
    lines = lines[:reveal]  # killed before round 1 was revealed
    assert replay(_bytes(lines)).exit_code == 3
    index = tamper(lines)
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == index + 1, (r.problem, index + 1)


def test_a_missing_reveal_is_caught(tmp_path_factory: pytest.TempPathFactory) -> None:
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    reveal = _first(lines, lambda x: x["type"] == "round_reveal")
    del lines[reveal]
    for i, x in enumerate(lines):
        x["seq"] = i
    r = replay(_bytes(lines))
    assert r.problem is not None and "never revealed" in r.problem.message
    assert r.problem.line == reveal + 1  # the next round's start, where the reveal was due


def _renumber(lines: Lines) -> None:
    for i, x in enumerate(lines):
        x["seq"] = i


def test_an_early_reveal_and_a_missing_seed_reveal_are_caught(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    reveal = lines.pop(_first(lines, lambda x: x["type"] == "round_reveal"))
    at = _first(lines, lambda x: x["type"] == "request", after=10)
    reveal["t_ns"] = lines[at - 1]["t_ns"]
    lines.insert(at, reveal)  # revealed while the round still runs: the hands leak
    _renumber(lines)
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == at + 1
    assert "before its end" in r.problem.message
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    del lines[_first(lines, lambda x: x["type"] == "seed_reveal")]
    _renumber(lines)
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == len(lines)
    assert "seed is never revealed" in r.problem.message


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_cli_never_raises(
    data: st.DataObject, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    full = transcript(tmp_path_factory, **KINDS["illegal-retries"])
    raw = data.draw(
        st.one_of(
            st.binary(max_size=300),
            st.integers(min_value=0, max_value=len(full)).map(lambda k: full[:k]),
        )
    )
    p = tmp_path / "fuzz.jsonl"
    p.write_bytes(raw)
    for args in (["replay", str(p)], ["replay", "--json", str(p)], ["replay", "--final", str(p)]):
        r = runner.invoke(app, args)
        assert isinstance(r.exception, SystemExit | None), r.exception
        assert r.exit_code in (0, 1, 3)


# -- end reasons and private lines that must agree with the public ones --------------------------


def _set_policy(lines: Lines, policy: str) -> None:
    """The header's policy and what the engines were told, edited together."""
    lines[0]["illegal"] = policy
    for x in lines:
        if x["type"] == "hello":
            sent = json.loads(x["sent"])
            sent["settings"]["illegal"] = policy
            x["sent"] = json.dumps(sent)


def tamper_policy_to_forfeit(lines: Lines) -> int:
    """The header says forfeit, but an illegal action was answered with a retry."""
    _set_policy(lines, "forfeit")
    return _first(lines, lambda x: x["type"] == "retry")


def tamper_policy_to_reject(lines: Lines) -> int:
    """The header says reject, but an illegal action lost the match."""
    _set_policy(lines, "reject")
    return len(lines) - 1


def tamper_no_timeout_line(lines: Lines) -> int:
    """A time loss with its timeout line removed: nothing shows the deadline passed."""
    del lines[_first(lines, lambda x: x["type"] == "timeout")]
    _renumber(lines)
    return len(lines) - 1


def tamper_resign_then_other_reason(lines: Lines) -> int:
    """The player resigned (the timeout line becomes a resign line), but the result gives
    another reason."""
    i = _first(lines, lambda x: x["type"] == "timeout")
    lines[i] = {"type": "resign", "seq": i, "t_ns": lines[i]["t_ns"], "seat": lines[i]["seat"]}
    lines[-1]["reason"] = "crash"
    lines[-1]["detail"] = {
        "seat": lines[i]["seat"],
        "exit_code": 1,
        "signal": None,
        "problem": "exit code 1",
        "stderr_tail": "",
    }
    return len(lines) - 1


def tamper_accepted_raw_reply(lines: Lines) -> int:
    """The revealed raw line of an accepted reply names another action than the public one."""
    i = _first(
        lines,
        lambda x: (
            x["type"] == "reply" and x["status"] == "accepted" and x["action"].startswith("play")
        ),
    )
    reveal = _first(lines, lambda x: x["type"] == "round_reveal", after=i)
    item = next(p for p in lines[reveal]["private"] if p["seq"] == i and p["kind"] == "reply_raw")
    raw = json.loads(item["raw"])
    raw["action"] = "draw"
    item["raw"] = json.dumps(raw)
    return reveal


def tamper_hello_seat(lines: Lines) -> int:
    lines[2]["seat"] = lines[1]["seat"]
    return 2


END_TAMPERS = [
    ("illegal-retries", tamper_policy_to_forfeit),
    ("forfeit", tamper_policy_to_reject),
    ("time-loss", tamper_no_timeout_line),
    ("time-loss", tamper_resign_then_other_reason),
    ("two-rounds", tamper_accepted_raw_reply),
    ("two-rounds", tamper_hello_seat),
]


@pytest.mark.parametrize(("kind", "tamper"), END_TAMPERS, ids=[t.__name__ for _, t in END_TAMPERS])
def test_end_reasons_and_private_lines_are_checked(
    kind: str, tamper: Callable[[Lines], int], tmp_path_factory: pytest.TempPathFactory
) -> None:
    lines = _lines(transcript(tmp_path_factory, **KINDS[kind]))
    assert replay(_bytes(lines)).exit_code == 0
    index = tamper(lines)
    r = replay(_bytes(lines))
    assert r.problem is not None, f"{tamper.__name__} went unnoticed"
    assert r.problem.line == index + 1, (r.problem, index + 1)


def test_a_request_while_another_is_pending_is_caught(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """After a rejected action the same decision stays pending (a retry follows): a fresh
    request in its place would hand the player a new delay."""
    lines = _lines(transcript(tmp_path_factory, **KINDS["illegal-retries"]))
    i = _first(lines, lambda x: x["type"] == "retry")
    retry = lines[i]
    req = lines[_first(lines, lambda x: x["type"] == "request" and x["id"] == retry["id"])]
    clock = {
        "delay_left_ns": retry["delay_left_ns"],
        "bank_ns": retry["bank_ns"],
        "opponent_bank_ns": req["clock"]["opponent_bank_ns"],
    }
    lines[i] = {
        **req,
        "seq": i,
        "t_ns": retry["t_ns"],
        "clock": clock,
        "deadline_ns": retry["deadline_ns"],
    }
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == i + 1, r.problem


def _tamper_request_raw(lines: Lines, edit: Callable[[dict[str, Any]], None]) -> int:
    reveal = _first(lines, lambda x: x["type"] == "round_reveal")
    items = [p for p in lines[reveal]["private"] if p["kind"] == "request_raw"]
    item = items[len(items) // 2]
    raw = json.loads(item["raw"])
    edit(raw)
    item["raw"] = json.dumps(raw, separators=(",", ":"))
    return reveal


@pytest.mark.parametrize(
    "edit",
    [
        lambda raw: raw.update(legal=[*raw["legal"], "bid 995"]),
        lambda raw: raw["view"].update(hand=raw["view"]["hand"][1:]),
        lambda raw: raw["view"].update(balances=raw["view"]["balances"][::-1]),
        lambda raw: raw["clock"].update(bank_ms=raw["clock"]["bank_ms"] + 1000),
        lambda raw: raw.update(id=raw["id"] + 1),
    ],
    ids=["legal", "hand", "balances", "clock", "id"],
)
def test_what_the_engines_were_sent_is_checked(
    edit: Callable[[dict[str, Any]], None], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The revealed request lines are what each engine was told: its view, its legal
    actions and its clock must be the ones the rules and the clock give."""
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    index = _tamper_request_raw(lines, edit)
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == index + 1, r.problem
    assert "request" in r.problem.message


def test_step_stops_at_every_action_not_only_at_placements(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--step walks event by event: bids, draws and forced passes get their own stop too,
    and q ends the walk."""
    import io

    from rich.console import Console

    from bidref.cli import replay_cmd

    report = replay(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    stops: list[str] = []

    def wait(console: Console) -> bool:
        stops.append("stop")
        return True

    monkeypatch.setattr(replay_cmd, "_wait", wait)
    console = Console(file=io.StringIO(), width=100)
    replay_cmd._show(
        console, report, round_only=None, step=True, final=False, width=100, interactive=True
    )
    walked = [
        s
        for s in report.steps
        if s.kind in ("action", "illegal", "pass", "note", "round_end", "match_end")
    ]
    assert any(s.kind == "action" and s.layout is None for s in walked)  # a bid or a draw
    assert len(stops) == len(walked)
    monkeypatch.setattr(replay_cmd, "_wait", lambda console: False)
    console = Console(file=io.StringIO(), width=100)
    replay_cmd._show(
        console, report, round_only=None, step=True, final=False, width=100, interactive=True
    )
    assert console.file.getvalue().count("Count:") == 1  # type: ignore[attr-defined]


def test_a_huge_field_gets_a_short_message() -> None:
    header = {"type": "header", "seq": 0, "t_ns": 0, "format": "x" * 100_000}
    r = replay((json.dumps(header) + "\n").encode())
    assert r.problem is not None and r.problem.line == 1
    assert len(r.problem.message) < 400, len(r.problem.message)


def test_a_time_loss_says_how_late_in_milliseconds(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    lines = _lines(transcript(tmp_path_factory, **KINDS["time-loss"]))
    i = _first(lines, lambda x: x["type"] == "timeout")
    deadline = lines[
        _first(
            lines,
            lambda x: (
                x["type"] == "request"
                and x["seq"] < i
                and x["seat"] == lines[i]["seat"]
                and not any(y["type"] == "request" for y in lines[x["seq"] + 1 : i])
            ),
        )
    ]["deadline_ns"]
    lines[i]["overrun_ns"] = lines[-1]["detail"]["overrun_ns"] = 121_480
    for x in lines[i:]:
        x["t_ns"] = max(x["t_ns"], deadline + 121_480)
    r = replay(_bytes(lines))
    note = next(s.text for s in r.steps if s.kind == "note")
    assert "0.121 ms past the deadline" in note, (note, r.problem)


def test_cli_replay_reads_stdin(tmp_path_factory: pytest.TempPathFactory) -> None:
    data = transcript(tmp_path_factory, **KINDS["two-rounds"])
    r = runner.invoke(app, ["replay", "--final", "-"], input=data)
    assert r.exit_code == 0 and "✓ verified" in r.stdout, r.output


@pytest.mark.parametrize(
    ("key", "value"),
    [("bank_ms", 1), ("delay_ms", 99_000), ("max_rounds", 50), ("illegal", "forfeit")],
)
def test_the_settings_each_engine_was_told_are_checked(
    key: str, value: object, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The hello each engine was sent states the time control, the round limit and the
    illegal-action policy: they must be the header's."""
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    sent = json.loads(lines[2]["sent"])
    sent["settings"][key] = value
    lines[2]["sent"] = json.dumps(sent)
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == 3, r.problem
    assert key in r.problem.message


_junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=3),
    st.sampled_from(
        [
            "{}",
            "[]",
            '{"action": 5}',
            '{"settings": []}',
            '{"type": "request", "id": 1}',
            "nan",
            '"x"',
        ]
    ),
)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_traceback_on_mangled_private_items_and_hellos(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The reveals' private items and the hello lines are checked too: junk in any of
    their fields is a mismatch, never a traceback."""
    lines = _lines(transcript(tmp_path_factory, **KINDS["illegal-retries"]))
    targets = [x for x in lines if x["type"] == "hello"] + [
        p for x in lines if x["type"] == "round_reveal" for p in x["private"]
    ]
    target = data.draw(st.sampled_from(targets))
    key = data.draw(st.sampled_from(sorted(target)))
    target[key] = data.draw(_junk)
    r = replay(_bytes(lines))
    assert r.exit_code in (0, 1, 3)


@pytest.mark.parametrize("kind", ["request_raw", "reply_raw"])
def test_a_missing_raw_line_in_a_reveal_is_caught(
    kind: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Every request and reply of a revealed round has its raw line in the reveal: a
    reveal that leaves one out hides what an engine was sent or said."""
    lines = _lines(transcript(tmp_path_factory, **KINDS["two-rounds"]))
    reveal = _first(lines, lambda x: x["type"] == "round_reveal")
    items = lines[reveal]["private"]
    items.remove(next(p for p in items[len(items) // 2 :] if p["kind"] == kind))
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == reveal + 1, r.problem
    assert "no raw" in r.problem.message


def _edit_first(
    kind: str,
    edit: Callable[[dict[str, Any]], None],
    pred: Callable[[dict[str, Any]], bool] = lambda x: True,
) -> Callable[[Lines], int]:
    def tamper(lines: Lines) -> int:
        i = _first(lines, lambda x: x["type"] == kind and pred(x))
        edit(lines[i])
        return i

    return tamper


def _private_seat(kind: str) -> Callable[[dict[str, Any]], None]:
    def edit(reveal: dict[str, Any]) -> None:
        item = next(p for p in reveal["private"] if p["kind"] == kind)
        item["seat"] = 1 - item["seat"]

    return edit


SMALL_TAMPERS = {
    "rules-version": (
        "two-rounds",
        _edit_first("header", lambda x: x.update(rules="spectacular-bid/2")),
    ),
    "protocol-version": (
        "two-rounds",
        _edit_first("header", lambda x: x.update(protocol="bidref/2")),
    ),
    "header-time": ("two-rounds", _edit_first("header", lambda x: x.update(t_ns=5))),
    "rule-on-accepted": (
        "two-rounds",
        _edit_first("reply", lambda x: x.update(rule="§3"), lambda x: x["status"] == "accepted"),
    ),
    "overrun-ms": (
        "time-loss",
        lambda lines: (lines[-1]["detail"].update(overrun_ms=7.0), len(lines) - 1)[1],
    ),
    "request-raw-seat": ("two-rounds", _edit_first("round_reveal", _private_seat("request_raw"))),
    "reply-raw-seat": ("two-rounds", _edit_first("round_reveal", _private_seat("reply_raw"))),
}


def _drop_rejected_raw(lines: Lines) -> int:
    i = _first(lines, lambda x: x["type"] == "reply" and x["status"] == "illegal")
    reveal = _first(lines, lambda x: x["type"] == "round_reveal", after=i)
    lines[reveal]["private"] = [
        p for p in lines[reveal]["private"] if not (p["seq"] == i and p["kind"] == "reply_raw")
    ]
    return reveal


SMALL_TAMPERS.update(
    {
        "action-on-rejected": (
            "illegal-retries",
            _edit_first(
                "reply", lambda x: x.update(action="draw"), lambda x: x["status"] == "illegal"
            ),
        ),
        "round-limit-detail": (
            "round-limit",
            lambda lines: (lines[-1]["detail"].update(max_rounds=3), len(lines) - 1)[1],
        ),
        "rejected-raw-missing": ("illegal-retries", _drop_rejected_raw),
        "error-message": (
            "illegal-retries",
            _edit_first(
                "round_reveal",
                lambda x: next(p for p in x["private"] if p["kind"] == "error_raw").update(
                    message="try again"
                ),
                lambda x: any(p["kind"] == "error_raw" for p in x["private"]),
            ),
        ),
        "rejected-status": (
            "illegal-retries",
            _edit_first(
                "reply",
                lambda x: x.update(status="bad_action", rule=None),
                lambda x: x["status"] == "illegal",
            ),
        ),
        "forfeit-detail": (
            "forfeit",
            lambda lines: (lines[-1]["detail"].update(action="bid 15"), len(lines) - 1)[1],
        ),
    }
)


@pytest.mark.parametrize("name", list(SMALL_TAMPERS))
def test_small_edits_are_caught(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    kind, tamper = SMALL_TAMPERS[name]
    lines = _lines(transcript(tmp_path_factory, **KINDS[kind]))
    index = tamper(lines)
    r = replay(_bytes(lines))
    assert r.problem is not None, f"{name} went unnoticed"
    assert r.problem.line == index + 1, (r.problem, index + 1)


def test_a_seat_that_resigns_while_being_sent_something_replays_clean(tmp_path: Path) -> None:
    # A seat may refuse what it is sent by resigning (SeatResigned: a person at a
    # pause); the referee records it then, not while waiting, and replay agrees.
    from bidref.engines import EngineSpec
    from bidref.match.referee import MatchSpec, run_match
    from bidref.players import SeatResigned
    from bidref.rules import TimeControl
    from bidref.transcript import counter_salt
    from tests.transcript.scripted_seats import FakeClock, ScriptedSeat

    class Quitter(ScriptedSeat):
        requests = 0

        def send(self, text: str) -> int:
            if '"type":"request"' in text:
                self.requests += 1
                if self.requests == 4:
                    raise SeatResigned("resigned at a pause")
            return super().send(text)

    clock = FakeClock(1_000_000_000)
    seats = [ScriptedSeat("alpha", clock, 1), Quitter("beta", clock, 2)]
    spec = MatchSpec(
        engines=(EngineSpec("alpha", ("x",)), EngineSpec("beta", ("x",))),
        seed=5,
        time_control=TimeControl.of_seconds(30, 0.5),
        max_rounds=2,
    )
    path = tmp_path / "t.jsonl"
    out = run_match(
        spec,
        transcript_path=path,
        clock=clock,
        seats=seats,  # type: ignore[arg-type]
        salt=counter_salt(),
        started_at="2026-12-02T13:00:00Z",
    )
    assert (out.reason, out.winner) == ("resign", 0)
    r = replay(path.read_bytes())
    assert r.problem is None and r.exit_code == 0, r.problem
