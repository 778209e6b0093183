"""Hostile files for `bidref replay` and `bidref validate`: real transcripts and move
files, mutated by hypothesis. Never a traceback; every error names FILE:LINE."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bidref.cli import app
from bidref.transcript import FORMAT
from tests.transcript.scripted_seats import referee_transcript

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"

_files: dict[str, bytes] = {}


def _transcripts() -> dict[str, bytes]:
    if not _files:
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            _files["v2"] = referee_transcript(
                Path(d) / "t.jsonl", format=FORMAT, illegal_rate=0.2, chatty=True, max_rounds=2
            )
        _files["v1"] = (DATA / "v1-sample.jsonl").read_bytes()
    return _files


MOVE_FILES = {p.name: p.read_bytes() for p in (ROOT / "examples").iterdir() if p.is_file()}

# What a hostile file puts in a field: each once made replay print a traceback.
NASTY = [
    b'"\\ud800"',
    b"1" * 5000,
    b"Infinity",
    b"-Infinity",
    b"NaN",
    b"1e400",
    b"-1",
    b"null",
    b"true",
    b"[]",
    b"{}",
    b"[" * 3000 + b"]" * 3000,
    b'"' + b"x" * 100_000 + b'"',
    b"[[7,7],[9,9]]",
    b'"\\u0000"',
]


def _mutate(data: bytes, draw: st.DrawFn) -> bytes:
    lines = data.split(b"\n")
    i = draw(st.integers(0, max(0, len(lines) - 2)))
    how = draw(st.sampled_from(["field", "flip", "drop", "dup", "cut", "swap", "junk"]))
    if how == "field":
        # replace one JSON value (after a ':') on the line by a nasty one
        spots = [m.end() for m in re.finditer(rb'":', lines[i])]
        if spots:
            at = draw(st.sampled_from(spots))
            end = re.search(rb"[,}\]]", lines[i][at:])
            stop = at + (end.start() if end else 0)
            lines[i] = lines[i][:at] + draw(st.sampled_from(NASTY)) + lines[i][stop:]
    elif how == "flip" and lines[i]:
        j = draw(st.integers(0, len(lines[i]) - 1))
        b = draw(st.integers(0, 255))
        lines[i] = lines[i][:j] + bytes([b]) + lines[i][j + 1 :]
    elif how == "drop":
        del lines[i]
    elif how == "dup":
        lines.insert(i, lines[i])
    elif how == "cut":
        return b"\n".join(lines)[: draw(st.integers(0, len(data)))]
    elif how == "swap" and i + 1 < len(lines):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    elif how == "junk":
        lines.insert(i, draw(st.sampled_from(NASTY)))
    return b"\n".join(lines)


def _check(args: list[str], name: str) -> None:
    res = runner.invoke(app, args)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception  # a traceback: the bug this test is for
    assert res.exit_code in (0, 1, 2, 3), res.output
    if "--json" in args and res.exit_code == 1:  # the verdict names the line
        verdict = json.loads(res.output.strip().splitlines()[-1])
        assert verdict["type"] == "verdict" and verdict["problem"]["line"] >= 1
    elif res.exit_code in (1, 2):
        assert re.search(rf"{re.escape(name)}:\d+(:\d+)?: ", res.output), res.output[-2000:]
    assert "Traceback" not in res.output


@pytest.mark.timeout(600)
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_replay_of_mutated_transcripts(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    kind = data.draw(st.sampled_from(sorted(_transcripts())))
    mutated = _mutate(_transcripts()[kind], data.draw)
    path = tmp_path_factory.mktemp("f") / "t.jsonl"
    path.write_bytes(mutated)
    extra = data.draw(st.sampled_from([[], ["--json"], ["--round", "2"], ["--logs"], ["--final"]]))
    _check(["replay", str(path), *extra], str(path))


@pytest.mark.timeout(600)
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_validate_of_mutated_move_files(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    name = data.draw(st.sampled_from(sorted(MOVE_FILES)))
    mutated = _mutate(MOVE_FILES[name], data.draw)
    path = tmp_path_factory.mktemp("f") / name
    path.write_bytes(mutated)
    extra = data.draw(st.sampled_from([[], ["--json"]]))
    res = runner.invoke(app, ["validate", str(path), *extra])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    assert res.exit_code in (0, 1, 2), res.output
    if res.exit_code and not extra:
        assert re.search(rf"{re.escape(str(path))}:\d+(:\d+)?: ", res.output), res.output[-2000:]
    if res.exit_code and extra:
        assert json.loads(res.output)["problem"]["line"] >= 1


@pytest.mark.parametrize("nasty", NASTY, ids=lambda b: b[:12].decode("latin-1"))
def test_each_nasty_value_in_each_line_type(nasty: bytes, tmp_path: Path) -> None:
    """Every nasty value in the first field of every line type: a clean error."""
    data = _transcripts()["v2"]
    lines = data.split(b"\n")
    seen: set[bytes] = set()
    for i, line in enumerate(lines[:-1]):
        kind = json.loads(line)["type"].encode()
        if kind in seen:
            continue
        seen.add(kind)
        for k, m in enumerate(list(re.finditer(rb'":', line))[1:3]):
            end = re.search(rb"[,}\]]", line[m.end() :])
            stop = m.end() + (end.start() if end else 0)
            bad = line[: m.end()] + nasty + line[stop:]
            path = tmp_path / "t.jsonl"
            path.write_bytes(b"\n".join([*lines[:i], bad, *lines[i + 1 :]]))
            _check(["replay", str(path), *(["--round", "1"] if k else [])], str(path))
