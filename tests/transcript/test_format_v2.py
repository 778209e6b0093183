"""``bidref-transcript/2``: small, and still proving what each engine was sent and said.

Real referee transcripts (scripted in-process seats on a fake clock) replay
clean in every kind of match; editing a request's hash, the round's digest, a
reply's time or action, the reply spelling a reveal names, or leaving out a
raw line that no spelling proves is caught at the right line.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from bidref.transcript import FORMAT, FORMAT_V1
from bidref.transcript.lines import REPLY_FORMS
from bidref.transcript.replay import replay
from tests.transcript.scripted_seats import referee_transcript

KINDS: dict[str, dict[str, Any]] = {
    "two-rounds": {},
    "illegal-retries": {"illegal_rate": 0.2, "chatty": True},
    "time-loss": {"late_at": 7},
    "forfeit": {"illegal": "forfeit", "illegal_rate": 0.3},
    "to-the-end": {"max_rounds": None, "seed": 3},
    "explicit-first-deal": {"explicit_deals": 1},
}

_cache: dict[str, bytes] = {}


def v2(tmp_path_factory: pytest.TempPathFactory, **kw: Any) -> bytes:
    key = json.dumps(kw, sort_keys=True)
    if key not in _cache:
        path = tmp_path_factory.mktemp("t") / "t.jsonl"
        _cache[key] = referee_transcript(path, format=FORMAT, **kw)
    return _cache[key]


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(x) for x in data.splitlines()]


def _bytes(lines: list[dict[str, Any]]) -> bytes:
    return ("\n".join(json.dumps(x, separators=(",", ":")) for x in lines) + "\n").encode()


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("raw_lines", [False, True])
def test_v2_transcripts_replay_clean(
    kind: str, raw_lines: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    data = v2(tmp_path_factory, raw_lines=raw_lines, **KINDS[kind])
    lines = _lines(data)
    assert lines[0]["format"] == FORMAT and lines[0]["raw_lines"] is raw_lines
    assert not any(x["type"] == "event" for x in lines)  # the replay derives them
    r = replay(data)
    assert r.problem is None and r.truncated is None, r.problem
    assert r.verified_lines == r.lines == len(lines)
    assert r.result is not None and r.result.reason == lines[-1]["reason"]


def test_v2_says_the_same_game_as_v1(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The same match written both ways: the same result, steps and (derived) events."""
    kw: dict[str, Any] = {"illegal_rate": 0.2, "chatty": True, "max_rounds": 3}
    old = replay(referee_transcript(tmp_path_factory.mktemp("a") / "t", format=FORMAT_V1, **kw))
    new = replay(v2(tmp_path_factory, **kw))
    assert old.exit_code == new.exit_code == 0
    assert old.result == new.result
    assert [(s.kind, s.text) for s in old.steps] == [(s.kind, s.text) for s in new.steps]
    old_events = [x["event"] for x in old.stream if x["type"] == "event"]
    new_events = [x["event"] for x in new.stream if x["type"] == "event"]
    assert new_events == old_events and all(
        x["derived"] for x in new.stream if x["type"] == "event"
    )


def test_v2_is_ten_times_smaller(tmp_path_factory: pytest.TempPathFactory) -> None:
    kw: dict[str, Any] = {"max_rounds": 6, "seed": 3}
    old = referee_transcript(tmp_path_factory.mktemp("a") / "t", format=FORMAT_V1, **kw)
    new = v2(tmp_path_factory, **kw)
    decisions = sum(1 for x in _lines(new) if x["type"] == "reply" and "status" not in x)
    assert decisions > 30
    assert len(new) / decisions < 300
    assert len(new) * 8 < len(old)


def _reveal(lines: list[dict[str, Any]], n: int = 0) -> int:
    return [i for i, x in enumerate(lines) if x["type"] == "round_reveal"][n]


def test_a_request_line_that_is_not_the_rules_is_caught_at_its_line(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    lines = _lines(v2(tmp_path_factory))
    rv = _reveal(lines)
    tags = lines[rv]["requests"]["tags"]
    tags[3] = "00000000" if tags[3] != "00000000" else "11111111"
    r = replay(_bytes(lines))
    requests = [i for i, x in enumerate(lines) if x["type"] == "request"]
    assert r.problem is not None and r.problem.line == requests[3] + 1
    assert "not the one the rules give" in r.problem.message
    assert '{"type":"request"' in r.problem.message  # it shows the line the rules give


def test_a_round_digest_that_does_not_match_is_caught_at_the_reveal(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    lines = _lines(v2(tmp_path_factory))
    rv = _reveal(lines)
    lines[rv]["requests"]["sha256"] = hashlib.sha256(b"other").hexdigest()
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == rv + 1
    assert "hash to" in r.problem.message


def test_the_digest_is_the_sha256_of_the_lines_sent(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """With --raw-lines the lines are kept too: their SHA-256 is the reveal's digest."""
    lines = _lines(v2(tmp_path_factory, raw_lines=True))
    rv = lines[_reveal(lines)]
    raws = [i["raw"] for i in rv["private"] if i["kind"] == "request_raw"]
    assert len(raws) == rv["requests"]["count"] > 5
    assert (
        rv["requests"]["sha256"]
        == hashlib.sha256(b"".join(x.encode() + b"\n" for x in raws)).hexdigest()
    )
    assert rv["requests"]["tags"] == [hashlib.sha256(x.encode()).hexdigest()[:8] for x in raws]


def test_a_replay_that_changes_the_clock_changes_the_request_lines(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A request's time is only its t_ns: moving a reply later changes the bank the next
    request shows, which the reveal's hash of that request catches."""
    lines = _lines(v2(tmp_path_factory))
    i = next(i for i, x in enumerate(lines) if x["type"] == "reply" and x["seat"] == 0)
    for x in lines[i:]:
        if x["type"] not in ("round_reveal", "header"):
            x["t_ns"] += 2_000_000_000  # seat 0 took 2 s longer
    r = replay(_bytes(lines))
    assert r.problem is not None
    assert "not the one the rules give" in r.problem.message


def test_an_unusual_reply_spelling_keeps_its_raw_line(tmp_path: Path) -> None:
    """A seat's usual spelling is named; a reply spelled otherwise has its raw line."""
    data = referee_transcript(tmp_path / "t.jsonl", format=FORMAT, max_rounds=2)
    rv = _lines(data)[_reveal(_lines(data))]
    assert rv["reply_forms"] == ["spaced", "spaced"]  # json.dumps with its default spaces
    assert not [i for i in rv.get("private", []) if i["kind"] == "reply_raw"]
    assert set(REPLY_FORMS) == {"compact", "spaced"}
    odd = referee_transcript(tmp_path / "o.jsonl", format=FORMAT, max_rounds=2, odd_spelling=True)
    assert replay(odd).exit_code == 0
    lines = _lines(odd)
    kept = [i for x in lines if x["type"] == "round_reveal" for i in x.get("private", [])]
    raws = [i for i in kept if i["kind"] == "reply_raw"]
    assert raws and all(i["raw"].startswith('{"action":') and i["seat"] == 0 for i in raws)
    # a kept raw line is checked: one that names another action is caught
    rv_i = _reveal(lines)
    item = next(i for i in lines[rv_i].get("private", []) if i["kind"] == "reply_raw")
    item["raw"] = item["raw"].replace('"action":"', '"action":"x', 1)
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == rv_i + 1


def test_a_missing_raw_reply_without_a_spelling_is_caught(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    lines = _lines(v2(tmp_path_factory))
    rv = _reveal(lines)
    lines[rv]["reply_forms"] = [None, None]
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == rv + 1
    assert "what the engine said is not shown" in r.problem.message


def test_an_edited_action_is_caught(tmp_path_factory: pytest.TempPathFactory) -> None:
    lines = _lines(v2(tmp_path_factory))
    i = next(i for i, x in enumerate(lines) if x["type"] == "reply" and x.get("action") != "draw")
    lines[i]["action"] = "draw"
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line <= i + 2


def test_an_event_line_in_a_v2_file_is_refused(tmp_path_factory: pytest.TempPathFactory) -> None:
    lines = _lines(v2(tmp_path_factory))
    i = next(i for i, x in enumerate(lines) if x["type"] == "reply")
    ev = {"type": "event", "seq": 0, "t_ns": lines[i]["t_ns"], "event": {"kind": "passed"}}
    lines.insert(i + 1, ev)
    for n, x in enumerate(lines):
        x["seq"] = n
    r = replay(_bytes(lines))
    assert r.problem is not None and r.problem.line == i + 2
    assert "derives them" in r.problem.message


def test_rejected_replies_keep_their_raw_lines_and_errors(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    lines = _lines(v2(tmp_path_factory, illegal_rate=0.2, chatty=True))
    rejected = [x for x in lines if x["type"] == "reply" and x.get("status") == "illegal"]
    assert rejected and all("action" not in x for x in rejected)
    private = [i for x in lines if x["type"] == "round_reveal" for i in x["private"]]
    kinds = {i["kind"] for i in private}
    assert {"reply_raw", "error_raw", "log"} <= kinds
    assert "request_raw" not in kinds and "drew" not in kinds


def test_v1_samples_still_replay(tmp_path: Path) -> None:
    """Transcripts written by bidref before bidref-transcript/2 (checked in)."""
    data_dir = Path(__file__).parent / "data"
    for name in ("v1-sample.jsonl", "v1-timeout.jsonl"):
        data = (data_dir / name).read_bytes()
        assert json.loads(data.splitlines()[0])["format"] == FORMAT_V1
        r = replay(data)
        assert r.exit_code == 0, (name, r.problem)
        assert r.decisions > 10 and r.result is not None


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_v2_file_expands_to_the_v1_file_of_the_same_match(
    kind: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Nothing is lost: replaying the small file gives back, line for line, what the
    old format stored — the clock fields, every event, every raw request line
    (regenerated), every raw reply and every drawn tile."""
    from bidref.transcript.expand import expanded_lines

    kw = KINDS[kind]
    old = _lines(referee_transcript(tmp_path_factory.mktemp("v1") / "t", format=FORMAT_V1, **kw))
    new = expanded_lines(v2(tmp_path_factory, **kw))
    assert old[0].pop("format") == FORMAT_V1 and new[0].pop("format") == FORMAT
    assert new == old
