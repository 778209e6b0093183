"""The referee's regex fast path for action lines agrees with the full decoder."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bidref.protocol import ActionMsg, ProtocolError, decode_engine_line
from bidref.protocol.codec import action_reply


def _reference(line: str) -> tuple[int, str] | None:
    """What the full decoder makes of ``line``: (id, action) of an ActionMsg, else None."""
    try:
        msg = decode_engine_line(line)
    except ProtocolError:
        return None
    return (msg.id, msg.action) if isinstance(msg, ActionMsg) else None


@pytest.mark.parametrize(
    "line",
    [
        '{"type":"action","id":3,"action":"play 1-3 1-1:line_a"}',
        '{"type":"action","id":0,"action":"draw"}',
        '{"type": "action", "id": 12, "action": "bid 20"}',
        ' \t{"type":"action" ,"id" :7,"action":"open 3-6"}\r',
        '{"type":"action","id":5,"action":"düß ☃"}',
        '{"type":"action","id":123456789012345678,"action":""}',
    ],
)
def test_usual_forms_take_the_fast_path(line: str) -> None:
    got = action_reply(line)
    assert got is not None
    assert got == _reference(line)


@pytest.mark.parametrize(
    "line",
    [
        '{"type":"action","id":03,"action":"draw"}',  # leading zero: not JSON
        '{"type":"action","id":-1,"action":"draw"}',  # valid, but left to the decoder
        '{"type":"action","id":1.0,"action":"draw"}',  # a float is not an id
        '{"type":"action","id":"1","action":"draw"}',  # strict: a string is not an id
        '{"type":"action","id":true,"action":"draw"}',
        '{"type":"action","id":1,"action":"dr\\"aw"}',  # an escape: the decoder's job
        '{"type":"action","id":1,"action":"a\tb"}',  # a raw control character: bad JSON
        '{"id":1,"type":"action","action":"draw"}',  # other key order
        '{"type":"action","id":1,"action":"draw","x":1}',  # extra field
        '{"type":"action","id":1,"action":"draw"} x',
        '{"type":"action","id":1\u00a0,"action":"draw"}',  # not JSON whitespace
        '{"type":"action","id":1234567890123456789,"action":"draw"}',  # 19 digits
        '{"type":"action","id":١,"action":"draw"}',  # a non-ASCII digit
    ],
)
def test_other_forms_are_left_to_the_decoder(line: str) -> None:
    assert action_reply(line) is None


_ws = st.sampled_from(["", " ", "\t", "\r", "\n", "  ", "\u00a0", "\x0b"])
_ids = st.one_of(
    st.integers(-5, 10**19), st.sampled_from(["03", "1.0", "1e2", '"1"', "true", "null", "-0", "0"])
)
_actions = st.one_of(st.text(max_size=12), st.sampled_from(["draw", "play 1-3 1-1:line_a"]))


@settings(max_examples=200, deadline=None)
@given(
    ws=st.lists(_ws, min_size=15, max_size=15),
    rid=_ids,
    action=_actions,
    raw_action=st.booleans(),
    key=st.sampled_from(["action", "Action", "id"]),
)
def test_fast_path_never_disagrees(
    ws: list[str], rid: int | str, action: str, raw_action: bool, key: str
) -> None:
    """Wherever the fast path answers, the full decoder gives the same message."""
    a = f'"{action}"' if raw_action else json.dumps(action, ensure_ascii=False)
    parts = [
        "{",
        '"type"',
        ":",
        '"action"',
        ",",
        '"id"',
        ":",
        str(rid),
        ",",
        f'"{key}"',
        ":",
        a,
        "}",
    ]
    line = "".join(w + p for w, p in zip(ws, parts, strict=False)) + ws[13]
    fast = action_reply(line)
    if fast is not None:
        assert fast == _reference(line)
    elif (
        ws == [""] * 15
        and key == "action"
        and not raw_action
        and isinstance(rid, int)
        and 0 <= rid < 10**18
        and a == f'"{action}"'
        and "\\" not in action
    ):
        pytest.fail(f"the usual form {line!r} missed the fast path")
