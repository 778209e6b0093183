"""The line models: every line the writer writes decodes into one; the JSON Schema
and the field tables of protocols/transcript.md are the ones the models give."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from bidref.transcript import FORMAT, FORMAT_V1
from bidref.transcript.lines import LINE_TYPES, AnyLine, decoder, encoder, tag_of
from bidref.transcript.replay import replay
from bidref.transcript.schema import BEGIN, END, fields_markdown, schema_text
from tests.transcript.scripted_seats import referee_transcript

ROOT = Path(__file__).resolve().parents[2]


def test_the_checked_in_schema_is_the_models() -> None:
    path = ROOT / "protocols" / "transcript.schema.json"
    assert path.read_text(encoding="utf-8") == schema_text(), (
        "protocols/transcript.schema.json is out of date: run python -m bidref.transcript.schema"
    )


def test_the_documented_fields_are_the_models() -> None:
    doc = (ROOT / "protocols" / "transcript.md").read_text(encoding="utf-8")
    section = doc[doc.index(BEGIN) : doc.index(END) + len(END)]
    assert section == fields_markdown(), (
        "protocols/transcript.md's field tables are out of date: "
        "run python -m bidref.transcript.schema"
    )
    for cls in LINE_TYPES:  # and each line type has its own prose section
        assert f"### `{tag_of(cls)}`" in doc


@pytest.mark.parametrize(
    "kw",
    [
        {"format": FORMAT},
        {"format": FORMAT, "raw_lines": True, "illegal_rate": 0.2, "chatty": True},
        {"format": FORMAT_V1, "illegal_rate": 0.2, "chatty": True},
        {"format": FORMAT, "late_at": 5},
    ],
)
def test_every_line_written_decodes_into_its_model(kw: dict[str, object], tmp_path: Path) -> None:
    data = referee_transcript(tmp_path / "t.jsonl", **kw)  # type: ignore[arg-type]
    schema = json.loads(schema_text())
    tags = {tag_of(c) for c in LINE_TYPES}
    for raw in data.splitlines():
        line = decoder.decode(raw)
        assert tag_of(type(line)) in tags
        # decode → encode → decode gives the same line (nothing lost but unknown fields)
        assert decoder.decode(encoder.encode(line)) == line
        obj = json.loads(raw)
        assert list(obj)[:3] == ["type", "seq", "t_ns"]
    assert schema["anyOf"] and len(schema["$defs"]) >= len(LINE_TYPES)


def test_a_wrong_field_type_names_the_field() -> None:
    with pytest.raises(msgspec.ValidationError, match=r"\$\.id"):
        decoder.decode(b'{"type":"request","seq":1,"t_ns":2,"seat":0,"id":"5"}')
    with pytest.raises(msgspec.ValidationError, match=r"\$\.type"):
        decoder.decode(b'{"type":"nonsense","seq":1,"t_ns":2}')


def test_fields_a_newer_referee_adds_are_ignored(tmp_path: Path) -> None:
    """Header fields and a result detail's extras this replay does not know: still
    clean (time_controls is known: replay checks it against the hellos)."""
    data = referee_transcript(tmp_path / "t.jsonl", format=FORMAT)
    lines = [json.loads(x) for x in data.splitlines()]
    lines[0]["monotonic_origin_ns"] = 123456789
    lines[0]["referee_host"] = {"cpus": 2}
    lines[-1]["detail"]["late_ns"] = 5
    lines[-1]["something_new"] = {"x": [1, 2]}
    out = ("\n".join(json.dumps(x) for x in lines) + "\n").encode()
    r = replay(out)
    assert r.exit_code == 0, r.problem


def test_the_union_holds_every_line_type() -> None:
    assert set(AnyLine.__args__) == set(LINE_TYPES)  # type: ignore[attr-defined]
    assert len({tag_of(c) for c in LINE_TYPES}) == len(LINE_TYPES) == 17
