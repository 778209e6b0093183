"""The live board: a transcript read as it grows, folded into what a spectator sees.

The board is checked against the replay page's own rebuild of the whole match
(which knows every deal) at every decision, and checked never to name a tile a
spectator could not know: before a round's reveal, every tile in the served
board is on the table.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bidref.live.board import Board
from bidref.live.tail import Tail
from bidref.render.dominoes import count_text, layout_markup
from bidref.render.timeline import build_timeline
from bidref.transcript.files import open_sink
from bidref.transcript.lines import FORMAT
from tests.transcript.scripted_seats import referee_transcript

TILE = re.compile(r"(?<![0-9])([0-6])[-|]([0-6])(?![0-9])")


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """Real referee transcripts (v2): whole matches with auctions, draws, illegal
    replies retried, and logs; several seeds."""
    out = []
    for seed, rate in ((7, 0.1), (11, 0.0), (23, 0.05)):
        path = tmp_path_factory.mktemp("m") / "match.jsonl"
        out.append(
            referee_transcript(
                path, seed=seed, max_rounds=None, illegal_rate=rate, chatty=True, format=FORMAT
            )
        )
    return out


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]


def test_the_board_agrees_with_the_full_replay_at_every_decision(matches: list[bytes]) -> None:
    for data in matches:
        tl = build_timeline(data)
        at_line = {s.line: s for s in tl.steps}  # the last step each line shows
        board = Board()
        checked = 0
        for n, raw in enumerate(_lines(data), 1):
            board.feed_bytes(raw)
            if json.loads(raw)["type"] != "request":
                continue
            s = at_line[n]
            layout, _ = tl.layouts[s.table.layout]
            assert sorted(map(str, board.table.layout.placed)) == sorted(map(str, layout.placed)), n
            assert board.balances == list(s.balances), n
            assert board.table.sizes == list(s.table.hand_sizes), n
            assert board.table.boneyard == s.table.boneyard, n
            assert list(board.clocks.clock.banks) == [c.bank_ns for c in s.turn.clocks], n
            assert board.to_act == s.turn.to_act, n
            checked += 1
        assert checked > 50
        assert board.result is not None and board.result["reason"] == tl.result["reason"]
        assert board.skipped == 0


def test_no_hand_is_shown_before_its_rounds_reveal(matches: list[bytes]) -> None:
    """After every line, every tile the board names (outside the last revealed
    round, which is over) is on the table of the round being played."""
    for data in matches:
        board = Board()
        reveals = 0
        for raw in _lines(data):
            board.feed_bytes(raw)
            x = json.loads(raw)
            reveals += x["type"] == "round_reveal"
            shown = board.to_dict(layout_markup(board.table.layout, board.table.last_tile), "")
            revealed = shown.pop("revealed")
            if revealed is not None:
                assert revealed["round"] <= board.table.round
                # a round is shown revealed only from its reveal line on
                assert reveals >= revealed["round"]
            if board.result is not None:
                continue
            text = json.dumps(shown)
            on_table = {str(t) for t in board.table.layout.placed}
            named = {f"{min(a, b)}-{max(a, b)}" for a, b in TILE.findall(text)}
            assert named <= on_table, (x["seq"], named - on_table)
        assert reveals >= 2


def test_a_revealed_round_shows_its_dealt_hands_and_what_was_left(matches: list[bytes]) -> None:
    data = matches[1]
    tl = build_timeline(data)
    board = Board()
    for raw in _lines(data):
        board.feed_bytes(raw)
        if json.loads(raw)["type"] == "round_reveal":
            r = board.revealed
            assert r is not None and r.left is not None
            start = tl.steps[tl.rounds[r.round]].table
            assert [sorted(h) for h in r.dealt] == [sorted(map(str, h or [])) for h in start.hands]
            end = tl.steps[tl.reveals[r.round]].table
            assert [sorted(h) for h in r.left] == [sorted(map(str, h or [])) for h in end.hands]


def test_bad_lines_are_skipped_not_raised() -> None:
    board = Board()
    bad = (b"not json", b"[1]", b'{"type":"reply","seat":0,"t_ns":"x"}', b'{"type":"request"}')
    for raw in bad:
        board.feed_bytes(raw)
    board.feed({"type": "round_start", "round": "two"})
    assert board.skipped >= 3
    board.to_dict(layout_markup(board.table.layout, None), count_text(board.table.layout))


@pytest.mark.parametrize("name", ["m.jsonl", "m.jsonl.gz"])
def test_a_tail_returns_each_line_once_whole_as_the_writer_flushes(
    tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    sink = open_sink(path)
    tail = Tail(path)
    assert tail.poll() == ([], False)
    sink.write(b'{"a":1}\n{"b":')  # a line cut in the middle: not returned yet
    assert tail.poll() == ([b'{"a":1}'], False)
    sink.write(b'2}\n{"c":3}\n')
    assert tail.poll() == ([b'{"b":2}', b'{"c":3}'], False)
    assert tail.poll() == ([], False)
    sink.close()
    assert tail.poll() == ([], False)


def test_a_replaced_file_is_read_again_from_its_start(tmp_path: Path) -> None:
    """A cluster's transcript brought home replaces the mirrored copy (a new file)."""
    path = tmp_path / "m.jsonl.gz"
    sink = open_sink(path)
    sink.write(b'{"a":1}\n')
    tail = Tail(path)
    assert tail.poll() == ([b'{"a":1}'], False)
    part = tmp_path / ".m.part.gz"
    other = open_sink(part)
    other.write(b'{"x":1}\n{"y":2}\n')
    other.close()
    part.replace(path)
    assert tail.poll() == ([b'{"x":1}', b'{"y":2}'], True)


def test_a_file_that_does_not_decompress_stops_its_tail(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl.gz"
    path.write_bytes(b"\x1f\x8b" + b"garbage" * 100)
    tail = Tail(path)
    assert tail.poll() == ([], False)
    assert tail.broken is not None and "decompress" in tail.broken
