"""Network engines of a tournament: their entries, listeners, seats and connect info."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from bidref.tournament.engines import EngineArgError, is_remote, resolve_entries
from bidref.tournament.remote import RemoteEngines

from .conftest import MakePlan

ROOT = Path(__file__).resolve().parents[2]
C_FIRST = str(ROOT / "sample_engines" / "c_first" / "engine")


def test_listen_arguments_are_network_engines_in_their_place() -> None:
    entries = resolve_entries(
        [C_FIRST, "listen://127.0.0.1:0", "gpu=listen://127.0.0.1:0", "listen://127.0.0.1:0"]
    )
    assert [e.name for e in entries] == ["c_first", "remote-1", "gpu", "remote-2"]
    assert [is_remote(e) for e in entries] == [False, True, True, True]
    assert entries[2].command == ("listen://127.0.0.1:0",)
    assert entries[2].spec == "gpu=listen://127.0.0.1:0"  # as given, for --resume checks


def test_a_bad_listen_argument_says_the_fix() -> None:
    with pytest.raises(EngineArgError, match="give listen://HOST:PORT"):
        resolve_entries([C_FIRST, "net=listen://127.0.0.1"])


def test_one_listener_and_token_per_network_engine(make_plan: MakePlan, tmp_path: Path) -> None:
    from bidref.tournament import EngineEntry

    plan = make_plan([("local", "fake"), ("n1", "x"), ("n2", "x")], deals=1)
    entries = [
        EngineEntry("local", "fake"),
        EngineEntry("n1", "n1=listen://127.0.0.1:0", ("listen://127.0.0.1:0",)),
        EngineEntry("n2", "n2=listen://127.0.0.1:0", ("listen://127.0.0.1:0",)),
    ]
    engines = RemoteEngines(entries)
    try:
        info = engines.connect_info()["engines"]
        assert [e["name"] for e in info] == ["n1", "n2"]
        assert len({e["url"] for e in info}) == 2 and len({e["token"] for e in info}) == 2
        path = tmp_path / "ci.json"
        engines.write_connect_info(path)
        assert json.loads(path.read_text())["engines"] == info
        assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it holds the tokens
        job = plan.job(plan.keys[0], 2)
        assert engines.seat_for(entries[0], 0, job) is None
        seat = engines.seat_for(entries[1], 1, job)
        assert seat is not None and seat.match_id == f"{job.key.id}#2" and seat.seat == 1
        assert seat.url == info[0]["url"] and seat.token_ok(info[0]["token"])
        assert not seat.token_ok(info[1]["token"])
        seat.open()
        engines.interrupt()  # a thread's match ends as a Ctrl-C would end it
        with pytest.raises(KeyboardInterrupt):
            seat.receive(None)
        assert seat.receive(seat.clock()) is None  # once
        seat.close(None, 0)
    finally:
        engines.close(final_word_s=0)
