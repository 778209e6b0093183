"""The transcript writer: never fails on a string, writes typed lines only, and writes
``.gz`` and ``.zst`` files that are flushed at every step."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bidref.transcript import FORMAT, FORMAT_V1, TranscriptWriter
from bidref.transcript.files import TranscriptFileError, read_bytes
from bidref.transcript.lines import LogLine, PrivateItem, RulesAsked, Stale
from bidref.transcript.replay import replay
from tests.transcript.scripted_seats import referee_transcript


@pytest.mark.parametrize("fmt", [FORMAT, FORMAT_V1])
def test_lone_surrogates_in_engine_strings_never_crash_the_writer(fmt: str, tmp_path: Path) -> None:
    """A hostile engine's log line and resignation carry lone surrogates (JSON
    "\\ud800" escapes): the transcript is written, valid UTF-8, and replays clean;
    the surrogates are U+FFFD. (A rules question's id is echoed in the referee's
    answer, whose encoding is the protocol codec's: see
    test_typed_lines_are_written_in_both_formats.)"""
    data = referee_transcript(tmp_path / "t.jsonl", format=fmt, hostile=True, max_rounds=3)
    text = data.decode("utf-8")  # strict: valid UTF-8 throughout
    lines = [json.loads(x) for x in text.splitlines()]
    assert lines[-1]["type"] == "result" and lines[-1]["reason"] == "resign"
    private = [i for x in lines if x["type"] == "round_reveal" for i in x.get("private", [])]
    assert any(i.get("message") == "lone \ufffd surrogate" for i in private)
    assert any(i["kind"] == "resign_message" and "\ufffd" in i["message"] for i in private)
    r = replay(data)
    assert r.exit_code == 0, r.problem


def test_typed_lines_are_written_in_both_formats(tmp_path: Path) -> None:
    """Every line is a model of ``lines`` (``write``/``write_json`` are gone): its
    seq and time come from :meth:`~TranscriptWriter.stamp`, lone surrogates become
    U+FFFD, and a line held back with ``flush=False`` keeps its place."""
    for fmt in (FORMAT, FORMAT_V1):
        path = tmp_path / f"{fmt[-1]}.jsonl"
        w = TranscriptWriter(path, 100, format=fmt)
        assert w.enabled
        assert w.put(LogLine(*w.stamp(150), seat=1, chars=3)) == 0
        assert w.put(Stale(*w.stamp(160), seat=0, id=4, pending=5), flush=False) == 1
        assert w.put(RulesAsked(*w.stamp(170), seat=0, id="x\ud800", topic=None)) == 2
        w.private(PrivateItem(2, "log", seat=0, message="\udc00"))
        w.close()
        text = path.read_text(encoding="utf-8")
        assert text.splitlines()[:3] == [
            '{"type":"log","seq":0,"t_ns":50,"seat":1,"chars":3}',
            '{"type":"stale","seq":1,"t_ns":60,"seat":0,"id":4,"pending":5}',
            '{"type":"rules","seq":2,"t_ns":70,"seat":0,"id":"x\ufffd","topic":null}',
        ]
        assert not hasattr(w, "write") and not hasattr(w, "write_json")


def test_an_unknown_format_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="bidref-transcript/2"):
        TranscriptWriter(tmp_path / "t", 0, format="bidref-transcript/9")


@pytest.mark.parametrize("suffix", [".jsonl.gz", ".jsonl.zst"])
def test_compressed_transcripts_replay_and_are_small(suffix: str, tmp_path: Path) -> None:
    plain = referee_transcript(tmp_path / "t.jsonl", format=FORMAT, max_rounds=3)
    packed_path = tmp_path / f"t{suffix}"
    same = referee_transcript(packed_path, format=FORMAT, max_rounds=3)
    assert same == plain  # read back transparently, byte for byte
    assert packed_path.read_bytes()[:2] in (b"\x1f\x8b", b"\x28\xb5")
    assert packed_path.stat().st_size * 2 < len(plain)
    assert replay(packed_path.read_bytes()).exit_code == 0  # replay() unpacks by magic


@pytest.mark.parametrize("suffix", [".jsonl.gz", ".jsonl.zst"])
def test_a_cut_compressed_transcript_replays_as_far_as_it_goes(suffix: str, tmp_path: Path) -> None:
    """A killed referee leaves a compressed file without its end: every step was
    flushed, so what is there reads back and replays as truncated (exit 3)."""
    path = tmp_path / f"t{suffix}"
    referee_transcript(path, format=FORMAT, max_rounds=3)
    whole = path.read_bytes()
    for keep in (len(whole) // 3, len(whole) // 2, len(whole) * 9 // 10):
        cut = tmp_path / f"cut{suffix}"
        cut.write_bytes(whole[:keep])
        r = replay(read_bytes(cut))
        assert r.problem is None and r.exit_code == 3 and r.verified_lines > 3, (keep, r.problem)


def test_a_broken_compressed_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "t.jsonl.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00" + b"garbage" * 10)
    with pytest.raises(TranscriptFileError, match="gzip"):
        read_bytes(bad)


def test_gzip_files_are_standard(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl.gz"
    data = referee_transcript(path, format=FORMAT, max_rounds=1)
    assert gzip.decompress(path.read_bytes()) == data
