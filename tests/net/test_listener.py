"""A tournament engine's listener on loopback: one token, a seat per match in turn."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection

from bidref.net.framing import (
    CLOSE_BAD_AUTH,
    CLOSE_MATCH_OVER,
    CLOSE_NEXT_MATCH,
    CLOSE_REPLACED,
    ListenAddress,
    auth_message,
)
from bidref.net.listener import EngineListener
from bidref.net.seat import NetworkSeat
from tests.net.test_server import WAIT, close_code, ws_connect


@pytest.fixture
def listener() -> Iterator[EngineListener]:
    lst = EngineListener(ListenAddress("127.0.0.1", 0), name="net")
    yield lst
    lst.close(final_word_s=0)


def seat_of(lst: EngineListener, match: str, index: int = 0) -> NetworkSeat:
    seat = NetworkSeat(lst.address, seat=index, token=lst.token, host=lst, match_id=match)
    seat.open()  # as the referee does: offers it to the listener
    return seat


def client(
    lst: EngineListener, token: str | None = None, fresh: bool = True, match: str | None = None
) -> ClientConnection:
    ws = ws_connect(lst.url, open_timeout=WAIT, compression=None)
    ws.send(auth_message(lst.token if token is None else token, fresh, match))
    return ws


def recv(ws: ClientConnection) -> dict[str, object]:
    obj: dict[str, object] = json.loads(ws.recv(timeout=WAIT))
    return obj


def test_a_waiting_client_gets_each_match_seat_in_turn(listener: EngineListener) -> None:
    ws = client(listener)
    assert recv(ws) == {"type": "waiting"}
    first = seat_of(listener, "m1", index=1)
    assert first.url == listener.url
    first.send('{"type":"ping","id":1}')
    welcome = recv(ws)
    assert welcome["type"] == "welcome" and welcome["seat"] == 1 and welcome["match"] == "m1"
    assert recv(ws) == {"type": "ping", "id": 1}
    first.close(None, 0)
    assert close_code(ws) == CLOSE_NEXT_MATCH  # come back with a fresh engine
    # the client's next engine takes the next match's seat, with the same token
    again = client(listener)
    assert recv(again) == {"type": "waiting"}
    second = seat_of(listener, "m2")
    assert recv(again)["match"] == "m2"
    assert [n["event"] for n in second.connection_notes()] == ["connect"]
    second.close(None, 0)


def test_a_client_still_in_an_old_match_is_sent_to_start_afresh(listener: EngineListener) -> None:
    seat = seat_of(listener, "m2")
    stale = client(listener, fresh=False, match="m1")  # its engine played m1
    assert close_code(stale) == CLOSE_NEXT_MATCH
    assert seat.connection_notes() == []  # it never touched m2
    # one that lost its connection in m2 resumes m2
    ws = client(listener)
    assert recv(ws)["resume"] is False
    back = client(listener, fresh=False, match="m2")
    assert recv(back)["resume"] is True
    assert close_code(ws) == CLOSE_REPLACED
    seat.close(None, 0)


def test_a_wrong_token_is_refused_and_noted_in_the_match_in_play(
    listener: EngineListener,
) -> None:
    assert close_code(client(listener, token="nope")) == CLOSE_BAD_AUTH  # between matches
    seat = seat_of(listener, "m1")
    assert close_code(client(listener, token="nope")) == CLOSE_BAD_AUTH
    other = EngineListener(ListenAddress("127.0.0.1", 0), name="other")
    try:  # another engine's token is just as wrong
        assert close_code(client(listener, token=other.token)) == CLOSE_BAD_AUTH
    finally:
        other.close(final_word_s=0)
    notes = seat.connection_notes()
    assert [(n["event"], n["reason"]) for n in notes] == [("refused", "wrong token")] * 2
    seat.close(None, 0)


def test_a_newer_waiting_client_replaces_the_older(listener: EngineListener) -> None:
    old = client(listener)
    assert recv(old) == {"type": "waiting"}
    new = client(listener)
    assert recv(new) == {"type": "waiting"}
    assert close_code(old) == CLOSE_REPLACED
    seat = seat_of(listener, "m1")
    assert recv(new)["type"] == "welcome"
    seat.close(None, 0)


def test_the_end_of_the_tournament_is_told_to_a_waiting_client(
    listener: EngineListener,
) -> None:
    ws = client(listener)
    assert recv(ws) == {"type": "waiting"}
    listener.close(final_word_s=0)
    with pytest.raises(ConnectionClosed) as e:
        ws.recv(timeout=WAIT)
    assert e.value.rcvd is not None and e.value.rcvd.code == CLOSE_MATCH_OVER
    assert e.value.rcvd.reason == "the tournament is over"
    with pytest.raises(OSError):
        ws_connect(listener.url, open_timeout=WAIT)  # and nothing listens any more


def test_one_seat_at_a_time(listener: EngineListener) -> None:
    seat = seat_of(listener, "m1")
    with pytest.raises(RuntimeError, match="one match of a network engine at a time"):
        seat_of(listener, "m2")
    seat.close(None, 0)
    seat_of(listener, "m3").close(None, 0)  # once the first is over
