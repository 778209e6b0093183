"""``expanded_items``: the spelled-out transcript of ``expanded_entries``, typed."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from bidref.rules import Drew, Event
from bidref.transcript.expand import (
    TranscriptMismatch,
    expanded_entries,
    expanded_items,
)
from bidref.transcript.lines import FORMAT, FORMAT_V1, EventLine, Reply, Request
from tests.transcript.scripted_seats import referee_transcript


@pytest.mark.parametrize("fmt", [FORMAT_V1, FORMAT])
def test_each_item_is_its_entrys_line_typed(fmt: str, tmp_path: Path) -> None:
    data = referee_transcript(tmp_path / "t.jsonl", format=fmt, chatty=True, illegal_rate=0.1)
    entries = expanded_entries(data)
    items = expanded_items(data)
    assert [(x.line, x.seq, x.t_ns) for x in items] == [
        (n, d["seq"], d["t_ns"]) for n, d in entries
    ]
    for x, (_, d) in zip(items, entries, strict=True):
        if isinstance(x.item, Event):  # a derived event: its public form, as the dict has it
            assert fmt == FORMAT and d["event"] == x.item.to_dict()
            assert not isinstance(x.item, Drew) or x.item.tile is None  # face down
            continue
        said = msgspec.to_builtins(x.item)
        assert {k: d[k] for k in said} == said  # what the model holds, the dict says
    # a /2 request and reply carry what /1 spells out: the clock, the charge
    assert all(x.item.clock is not None for x in items if isinstance(x.item, Request))
    assert all(x.item.charge is not None for x in items if isinstance(x.item, Reply))
    assert any(isinstance(x.item, EventLine if fmt == FORMAT_V1 else Event) for x in items)


def test_a_file_that_does_not_replay_clean_raises_as_the_entries_do(tmp_path: Path) -> None:
    data = referee_transcript(tmp_path / "t.jsonl", format=FORMAT)
    bad = data.splitlines(keepends=True)
    bad[3] = bad[3].replace(b'"round":1', b'"round":2')  # the round_start of round 2
    with pytest.raises(TranscriptMismatch) as items:
        expanded_items(b"".join(bad))
    with pytest.raises(TranscriptMismatch) as entries:
        expanded_entries(b"".join(bad))
    assert str(items.value) == str(entries.value) and items.value.line == 4
