"""Tournaments with a network engine on loopback: `bidref tournament … listen://…`
and `bidref connect` clients as processes, real sample engines (c_first).

Short clocks and two rounds a match keep them fast; the margins for a loaded
machine are in the start-up timeout and the waits, not in the match clocks.
"""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.net.test_e2e import CLI, ROOT, WAIT, Procs

pytestmark = pytest.mark.e2e

C_FIRST = str(ROOT / "sample_engines" / "c_first" / "engine")


@pytest.fixture
def ps() -> Iterator[Procs]:
    """The processes a test starts (each in its own session), ended after it."""
    started = Procs()
    yield started
    for p in started.all:
        if p.poll() is None:
            started.kill(p)


def tournament(
    ps: Procs, tmp: Path, *extra: str, startup: str = "30"
) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """Two local engines and one network engine ``net``, one deal (each pairing
    twice, seats swapped: 6 matches, 4 of them for ``net``), two at a time."""
    info = tmp / "connect.json"
    info.unlink(missing_ok=True)
    p = ps.start(
        "tournament",
        *extra,
        "--bank",
        "10",
        "--delay",
        "0.2",
        "--max-rounds",
        "2",
        "-j",
        "2",
        "--startup",
        startup,
        "--out",
        str(tmp / "out"),
        "--connect-info",
        str(info),
        "--json",
    )
    give_up = time.monotonic() + WAIT
    while not info.exists():
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < give_up, "the tournament never listened"
        time.sleep(0.02)
    engines = json.loads(info.read_text())["engines"]
    assert [e["name"] for e in engines] == ["net"]
    return p, engines[0]


NEW = ("one=" + C_FIRST, "two=" + C_FIRST, "net=listen://127.0.0.1:0", "--deals", "1")


def connect(ps: Procs, engine: dict[str, Any], *extra: str) -> subprocess.Popen[str]:
    return ps.start("connect", engine["url"], "--token", engine["token"], *extra, "--", C_FIRST)


def net_matches(tmp: Path) -> int:
    """Rated matches of ``net`` in the results file so far."""
    rows = [json.loads(x) for x in (tmp / "out" / "results.jsonl").read_text().splitlines()]
    return sum(
        1
        for r in rows
        if r.get("type") == "match" and r["rated"] and "net" in r["first"] + r["second"]
    )


def network_transcripts(tmp: Path) -> list[Path]:
    return sorted((tmp / "out" / "transcripts").glob("*net*/*.jsonl.gz"))


def check_transcripts(tmp: Path, token: str) -> None:
    """Every transcript replays clean; a network one records its connections."""
    every = sorted((tmp / "out" / "transcripts").glob("*/*.jsonl.gz"))
    assert len(every) >= 6
    for path in every:
        r = subprocess.run(
            [*CLI, "replay", str(path)], capture_output=True, text=True, timeout=WAIT
        )
        assert r.returncode == 0, (path, r.stdout[-2000:], r.stderr[-2000:])
    for path in network_transcripts(tmp):
        text = gzip.decompress(path.read_bytes()).decode()
        assert token not in text
        if '"reason":"startup"' in text:
            continue  # nobody came: no connection to record
        events = [json.loads(x)["event"] for x in text.splitlines() if '"type":"connection"' in x]
        assert events and events[-1] == "disconnect", (path, events)
        assert any(e in ("connect", "resume") for e in events), (path, events)


def finish(p: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = p.communicate(timeout=4 * WAIT)
    assert p.returncode == 0, (p.returncode, out[-2000:], err[-3000:])
    result: dict[str, Any] = json.loads(out)
    return result


def test_one_connect_serves_every_match_of_a_network_engine(ps: Procs, tmp_path: Path) -> None:
    ref, net = tournament(ps, tmp_path, *NEW)
    assert net["url"].startswith("ws://127.0.0.1:")
    wrong = ps.start("connect", net["url"], "--token", "not-the-token", "--", C_FIRST)
    _, err = wrong.communicate(timeout=WAIT)
    assert wrong.returncode == 2 and "wrong token" in err
    client = connect(ps, net)
    result = finish(ref)
    assert result["done"] == result["total"] == 6 and not result["failed"]
    _, err = client.communicate(timeout=WAIT)
    assert client.returncode == 0, err
    assert "the tournament is over" in err and "4 match(es) played" in err, err
    assert len(network_transcripts(tmp_path)) == 4
    check_transcripts(tmp_path, net["token"])


def test_a_client_that_stops_or_is_killed_between_matches_is_replaced(
    ps: Procs, tmp_path: Path
) -> None:
    ref, net = tournament(ps, tmp_path, *NEW)
    first = connect(ps, net, "--once")  # one match, then it goes
    _, err = first.communicate(timeout=2 * WAIT)
    assert first.returncode == 0 and "--once: one match played" in err, err
    second = connect(ps, net)
    give_up = time.monotonic() + 2 * WAIT
    while net_matches(tmp_path) < 2:
        assert time.monotonic() < give_up and ref.poll() is None
        time.sleep(0.05)
    ps.kill(second)  # whatever it was doing: the next client takes over
    third = connect(ps, net)
    result = finish(ref)
    assert result["done"] == result["total"] == 6, result
    _, err = third.communicate(timeout=WAIT)
    assert third.returncode == 0 and "the tournament is over" in err, err
    check_transcripts(tmp_path, net["token"])


def test_an_absent_client_loses_its_matches_at_start_up_and_resume_plays_them(
    ps: Procs, tmp_path: Path
) -> None:
    ref, net = tournament(ps, tmp_path, *NEW, startup="1")
    out, err = ref.communicate(timeout=4 * WAIT)
    assert ref.returncode == 1, err  # matches left to play
    result = json.loads(out)
    # the tournament went on: the local match was played, the network ones did not start
    assert result["done"] == 2 and len(result["failed"]) == 4, (result, err)
    assert result["stopped"] is None
    assert "did not start" in err and "--resume" in err, err
    again, net2 = tournament(ps, tmp_path, "--resume")
    assert net2["token"] != net["token"]  # a token is good for one run
    client = connect(ps, net2)
    result = finish(again)
    assert result["done"] == result["total"] == 6, result
    _, err = client.communicate(timeout=WAIT)
    assert client.returncode == 0, err
    check_transcripts(tmp_path, net2["token"])


def test_an_interrupt_ends_a_match_waiting_for_its_client(ps: Procs, tmp_path: Path) -> None:
    # the network match is played in a thread of the tournament's process, where
    # no signal reaches its referee: the interrupt reaches it through its seat
    ref, _ = tournament(ps, tmp_path, *NEW, startup="600")
    give_up = time.monotonic() + WAIT
    while not network_transcripts(tmp_path):  # its match has started, and waits
        assert time.monotonic() < give_up and ref.poll() is None
        time.sleep(0.02)
    ref.send_signal(signal.SIGTERM)  # as Ctrl-C (an ignored SIGINT would stay ignored)
    _, err = ref.communicate(timeout=WAIT)
    assert ref.returncode == 130 and "--resume" in err, err
    rows = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert not any('"net"' in r and '"startup"' in r for r in rows[1:])  # not a lost match
