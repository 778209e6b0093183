"""The bidref/1 codec: round trips, narrow errors, the hot-path encoder."""

from __future__ import annotations

import doctest
import json

import pytest

import bidref.protocol.codec
import bidref.protocol.messages
from bidref.protocol import (
    ActionMsg,
    BadJson,
    BadMessage,
    ClockInfo,
    EngineHello,
    ErrorMsg,
    EventMsg,
    Log,
    Ping,
    Pong,
    Quit,
    RefereeHello,
    Request,
    RulesAnswer,
    RulesRequest,
    Settings,
    decode_engine_line,
    decode_referee_line,
    encode,
    encode_request,
)
from bidref.rules import Match, player_view


def test_doctests() -> None:
    for mod in (bidref.protocol.codec, bidref.protocol.messages):
        assert doctest.testmod(mod).failed == 0


REFEREE_MESSAGES = [
    RefereeHello(
        bidref="0.1.0",
        rules="spectacular-bid/1",
        seat=1,
        settings=Settings(
            bank_ms=2000, delay_ms=50, max_rounds=None, illegal="reject", startup_ms=10000
        ),
    ),
    Request(
        id=4,
        view={"hand": [[1, 2]]},
        clock=ClockInfo(delay_left_ms=50, bank_ms=2000, opponent_bank_ms=1900, deadline_ms=2050),
        legal=["draw"],
    ),
    ErrorMsg(id=4, code="illegal", message="no", rule="§4"),
    ErrorMsg(id=None, code="bad_json", message="not JSON"),
    EventMsg(event={"kind": "passed", "player": 0}),
    RulesAnswer(id="r1", topic="7", text="## 7. The match clock"),
    Ping(id=9),
    Quit(),
]
ENGINE_MESSAGES = [
    EngineHello(name="x", author="me", version="1", protocol="bidref/1"),
    ActionMsg(id=4, action="play 1-3 1-1:b"),
    RulesRequest(id=2, topic=None),
    RulesRequest(id="q", topic="clock"),
    Log(message="hello"),
    Pong(id=9),
]


@pytest.mark.parametrize("msg", REFEREE_MESSAGES, ids=lambda m: m.type)
def test_referee_messages_round_trip(msg: object) -> None:
    line = encode(msg)  # type: ignore[arg-type]
    assert "\n" not in line
    assert decode_referee_line(line) == msg


@pytest.mark.parametrize("msg", ENGINE_MESSAGES, ids=lambda m: m.type)
def test_engine_messages_round_trip(msg: object) -> None:
    line = encode(msg)  # type: ignore[arg-type]
    assert decode_engine_line(line) == msg


def test_fast_path_equals_validated_models() -> None:
    fast = decode_engine_line('{"type":"action","id":3,"action":"draw"}')
    assert isinstance(fast, ActionMsg)
    assert fast == ActionMsg(id=3, action="draw")
    # a string is not an id: the fast path is skipped and validation rejects it
    with pytest.raises(BadMessage, match="id"):
        decode_engine_line('{"type":"action","id":"3","action":"draw"}')


def test_encode_request_equals_model_encoding() -> None:
    m = Match.new(seed=3)
    view = player_view(m, m.to_act).to_dict()
    clock = {"delay_left_ms": 10, "bank_ms": 20, "opponent_bank_ms": 30, "deadline_ms": 30}
    legal = [str(a) for a in m.legal_actions()]
    model = Request(id=7, view=view, clock=ClockInfo(**clock), legal=legal)
    assert encode_request(7, view, clock, legal) == encode(model)
    assert json.loads(encode_request(7, view, clock, legal)) == json.loads(encode(model))


@pytest.mark.parametrize(
    ("line", "error", "says"),
    [
        ("draw", BadJson, "not JSON"),
        ('{"type": "action", "id": 1', BadJson, "not JSON"),
        ("[1, 2]", BadJson, "a JSON list, not an object"),
        ('{"id": 1, "action": "draw"}', BadMessage, 'no "type"'),
        ('{"type": "move", "id": 1}', BadMessage, "types are hello, action"),
        ('{"type": "action", "id": 1}', BadMessage, "action: Field required"),
        ('{"type": "hello", "name": "x"}', BadMessage, "protocol"),
    ],
)
def test_errors_are_narrow_and_quote_the_line(line: str, error: type[Exception], says: str) -> None:
    with pytest.raises(error) as info:
        decode_engine_line(line)
    assert says in str(info.value)
    assert repr(line[:50])[:-1] in str(info.value)


def test_long_lines_are_quoted_truncated() -> None:
    line = "x" * 5000
    with pytest.raises(BadJson) as info:
        decode_engine_line(line)
    assert len(str(info.value)) < 400
    assert "(5000 chars)" in str(info.value)
    assert info.value.line == line


def test_deeply_nested_json_is_a_bad_json_error_not_a_recursion_error() -> None:
    # Issue 14, item 1: 100,000 levels used to raise RecursionError in the parser.
    from bidref.protocol.codec import MAX_DEPTH, BadJson, decode_engine_line

    for line in (
        "[" * 100_000 + "]" * 100_000,
        '{"type":"log","message":"x","a":' + "{" * 5000 + "}" * 5000 + "}",
        '{"type":"action","id":1,"action":' + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "}",
    ):
        with pytest.raises(BadJson, match="nested more than"):
            decode_engine_line(line)
    # brackets inside strings are not nesting, and MAX_DEPTH levels are fine
    assert decode_engine_line('{"type":"log","message":"' + "[" * 500 + '"}').type == "log"
    ok = '{"type":"log","message":"x","a":' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}"
    assert decode_engine_line(ok).type == "log"


def test_lone_surrogates_become_replacement_characters() -> None:
    # Issue 14, item 2: a rules id "\ud800" echoed back used to crash the referee
    # (UnicodeEncodeError); pairs stay the character they encode.
    from bidref.protocol import encode
    from bidref.protocol.codec import decode_engine_line
    from bidref.protocol.messages import RulesAnswer

    msg = decode_engine_line('{"type":"rules","id":"q\\ud800","topic":"7\\uDFFF"}')
    assert (msg.id, msg.topic) == ("q\ufffd", "7\ufffd")  # type: ignore[union-attr]
    answer = encode(RulesAnswer(id=msg.id, topic=msg.topic, text="§7"))  # type: ignore[union-attr]
    assert "q\ufffd" in answer
    hello = decode_engine_line(
        '{"type":"hello","name":"a\\ud83d\\ude00\\ud800","author":"x","version":"1",'
        '"protocol":"bidref/1"}'
    )
    assert hello.name == "a\U0001f600\ufffd"  # type: ignore[union-attr]
