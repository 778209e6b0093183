"""The live server on a real socket (127.0.0.1): the page, the event stream, the
JSON fallback, the stderr logs of finished matches and nothing else."""

from __future__ import annotations

import http.client
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bidref.live.server import LiveServer
from bidref.transcript.files import decompress, open_sink

from .conftest import Played


@pytest.fixture
def folder(played: Played, tmp_path: Path) -> Path:
    out = tmp_path / "live"
    out.mkdir()
    (out / "results.jsonl").write_text(played.header + "\n" + played.records[0] + "\n")
    rel = str(played.record(0)["transcript"])
    (out / rel).parent.mkdir(parents=True)
    (out / rel).write_bytes(played.transcripts[rel])
    return out


@pytest.fixture
def server(folder: Path) -> Iterator[LiveServer]:
    srv = LiveServer(folder, 0, poll_s=0.05)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=10)


def get(srv: LiveServer, path: str) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection(*srv.server_address[:2], timeout=10)
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, r.getheader("Content-Type") or "", body


class Events:
    """The event stream, read message by message (each read bounded by the timeout)."""

    def __init__(self, srv: LiveServer) -> None:
        self.conn = http.client.HTTPConnection(*srv.server_address[:2], timeout=10)
        self.conn.request("GET", "/live/events")
        self.r = self.conn.getresponse()
        assert self.r.status == 200
        assert self.r.getheader("Content-Type") == "text/event-stream"

    def next(self) -> dict[str, object]:
        while True:
            line = self.r.fp.readline()
            assert line, "the stream ended"
            if line.startswith(b"data: "):
                message: dict[str, object] = json.loads(line[6:])
                return message

    def close(self) -> None:
        self.conn.close()


def test_it_listens_on_loopback_only(server: LiveServer) -> None:
    assert server.server_address[0] == "127.0.0.1"


def test_the_page_loads_nothing_from_elsewhere(server: LiveServer) -> None:
    status, kind, body = get(server, "/live")
    assert status == 200 and kind.startswith("text/html")
    page = body.decode()
    assert "/live/live.js" in page and 'id="tile-defs"' in page
    assert "http:" not in page and "https:" not in page and "//" not in page.replace("://", "")
    for asset in ("/live/live.js", "/live/live.css"):
        status, _, body = get(server, asset)
        assert status == 200 and b"http:" not in body and b"https:" not in body
    assert get(server, "/")[0] == 200 and b"/live/live.js" in get(server, "/")[2]
    assert b"Standings" in get(server, "/report")[2]


def test_the_stream_sends_the_snapshot_then_only_what_changed(
    server: LiveServer, folder: Path, played: Played
) -> None:
    events = Events(server)
    try:
        first = events.next()
        assert set(first) == {"tables", "boards"}
        assert first["tables"]["recorded"] == 1  # type: ignore[index]
        # a match starts: its transcript grows, the boards part comes alone
        rel = str(played.record(1)["transcript"])
        lines = decompress(played.transcripts[rel], rel).split(b"\n")[:-1]
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        sink = open_sink(folder / rel)
        sink.write(b"\n".join(lines[:10]) + b"\n")
        while True:
            m = events.next()
            running = m["boards"]["running"]  # type: ignore[index]
            if running and running[0]["lines"] == 10:
                break
        assert "tables" not in m
        sink.write(b"\n".join(lines[10:]) + b"\n")
        sink.close()
        with (folder / "results.jsonl").open("a") as f:
            f.write(played.records[1] + "\n")
        while "tables" not in (m := events.next()):
            pass
        assert m["tables"]["recorded"] == 2  # type: ignore[index]
    finally:
        events.close()


def test_the_polling_fallback_gives_the_same_snapshot(server: LiveServer) -> None:
    status, kind, body = get(server, "/live/state.json")
    assert status == 200 and kind == "application/json"
    snap = json.loads(body)
    assert snap["tables"]["recorded"] == 1 and snap["boards"]["running"] == []


def test_stderr_logs_of_finished_matches_only(server: LiveServer) -> None:
    status, kind, body = get(server, "/stderr/0/0")
    assert status == 200 and kind.startswith("text/plain")
    bad_paths = ["/stderr/1/0", "/stderr/0/2", "/stderr/../../etc/passwd", "/stderr/0/0/x"]
    bad_paths += ["/stderr/-1/0", "/results.jsonl", "/transcripts/", "/live/../results.jsonl"]
    for bad in bad_paths:
        status, _, body = get(server, bad)
        assert status == 404, bad
        assert b'"type":"tournament"' not in body


def test_nobody_listening_nothing_is_read(server: LiveServer, folder: Path) -> None:
    """The poller sleeps while no page listens (the JSON fallback reads on demand)."""
    before = server.watch.boards_version
    (folder / "transcripts" / "x--y").mkdir()
    sink = open_sink(folder / "transcripts" / "x--y" / "1-0.jsonl")
    sink.write(b'{"type":"header","seq":0,"t_ns":0}\n')
    ready = threading.Event()
    ready.wait(0.3)  # six polls' time
    assert server.watch.boards_version == before
    snap = json.loads(get(server, "/live/state.json")[2])
    assert [b["id"] for b in snap["boards"]["running"]] == ["transcripts/x--y/1-0.jsonl"]
    sink.close()


def test_the_servers_work_yields_to_the_matches(server: LiveServer) -> None:
    """Its threads run at nice + 10 (Linux: per thread); the process's others do not."""
    events = Events(server)
    try:
        events.next()
        poller = server._poller.native_id
        assert poller is not None
        base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        assert os.getpriority(os.PRIO_PROCESS, poller) == min(19, base + 10)
    finally:
        events.close()


def test_a_running_matchs_replay_so_far_shows_no_hand_of_its_round(
    server: LiveServer, folder: Path, played: Played
) -> None:
    i = next(i for i in range(len(played.records)) if played.record(i)["rounds"] >= 2)
    rel = str(played.record(i)["transcript"])
    lines = decompress(played.transcripts[rel], rel).split(b"\n")[:-1]
    first_reveal = next(n for n, x in enumerate(lines) if b'"round_reveal"' in x)
    running = "transcripts/x--y/7-0.jsonl"  # (a running match of its own name)
    (folder / running).parent.mkdir(parents=True)
    (folder / running).write_bytes(b"\n".join(lines[: first_reveal + 8]) + b"\n")
    json.loads(get(server, "/live/state.json")[2])  # (the server sees it running)
    status, _, body = get(server, "/running/" + running)
    assert status == 200
    page = body.decode()
    data = json.loads(page.split('id="match-data">', 1)[1].split("</script>", 1)[0])
    rounds = {s["round"]: s["hands"] for s in data["steps"] if s["round"]}
    assert all(h is not None for h in rounds[1])  # round 1 is revealed
    assert rounds[2] == [None, None]  # round 2 is being played: no hand
    for bad in ("/running/" + rel, "/running/../results.jsonl", "/running/"):
        assert get(server, bad)[0] == 404, bad


def test_the_end_of_the_run_reaches_open_pages_before_the_server_goes(
    folder: Path, played: Played
) -> None:
    # a poller too slow to see the last result before the run ends (a loaded machine):
    # finish() reads it and waits until every open stream has sent it
    srv = LiveServer(folder, 0, poll_s=3600)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    events = Events(srv)
    try:
        assert events.next()["tables"]["recorded"] == 1  # type: ignore[index]
        with (folder / "results.jsonl").open("a") as f:
            f.write(played.records[1] + "\n")
        assert srv.finish(timeout_s=10)
        while "tables" not in (m := events.next()):
            pass
        assert m["tables"]["recorded"] == 2  # type: ignore[index]
    finally:
        events.close()
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=10)
