"""`bidref play` end to end: the real CLI in a pseudo-terminal, real engines, real time.

Few and with generous margins; the clock logic itself is tested on a fake clock
in test_match_fake_clock.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bidref.rules import seeded_deals
from bidref.transcript.expand import expanded_lines

from .pty_driver import ROOT, Screens, spawn

pytestmark = pytest.mark.e2e

C_FIRST = "sample_engines/c_first/engine"
PY_RANDOM = "sample_engines/python_random/engine.py"


@pytest.fixture(scope="module", autouse=True)
def _engines() -> None:
    subprocess.run(["make", "-s", "-C", str(ROOT / "sample_engines")], check=True)


def _records(path: Path) -> list[dict[str, object]]:
    """The transcript verified and spelled out (the v1 form of its lines)."""
    return expanded_lines(path.read_bytes())


def _delay_shown(screen: str, who: str = "A") -> float:
    m = re.search(rf"^{who} .*?delay ([\d.]+) s \+ bank", screen, re.M)
    assert m, screen
    return float(m.group(1))


def _play_out(sc: Screens, done: set[tuple[str, str]]) -> str:
    """Answer every question with Enter (pauses, reveals) or action 1; the final output."""
    while True:
        k, _ = sc.next_question(done)
        if k == "end":
            return sc.finish()
        sc.send("1\r" if k == "ask" else "\r")


def test_full_match_against_an_engine_with_an_illegal_entry_and_rules_help(tmp_path: Path) -> None:
    tr = tmp_path / "t.jsonl"
    sc = Screens(
        spawn(
            "human",
            PY_RANDOM,
            "--seed",
            "5",
            "--max-rounds",
            "2",
            "--bank",
            "60",
            "--delay",
            "10",
            "--transcript",
            str(tr),
        )
    )
    done: set[tuple[str, str]] = set()
    k, s = sc.next_question(done)
    assert k == "pause" and "Press Enter to start" in s
    assert "clocks stopped" in s
    sc.send("\r")
    k, s = sc.next_question(done)
    assert k == "ask" and "A's hand:" in s
    # An entry that is no action, then an illegal one: a message, nothing changes.
    sc.send("zz\r")
    s = sc.wait(lambda s: "'zz' is not an action" in s)
    turn = re.search(r"turn \d+", s)
    sc.send("bid 300\r")
    s = sc.wait(lambda s: "is not legal now" in s)
    assert turn and turn.group(0) in s
    # Rules help while the clock keeps running.
    sc.send("rules 7\r")
    first = sc.wait(lambda s: "7. The match clock" in s)
    d1 = _delay_shown(first)
    time.sleep(1.0)
    later = sc.wait(lambda s: "7. The match clock" in s and _delay_shown(s) <= d1 - 0.5)
    assert _delay_shown(later) < d1
    sc.send("\r")  # close the rules text
    sc.wait(lambda s: "Legal actions" in s)
    sc.send("1\r")
    out = _play_out(sc, done)
    assert "result:" in out
    assert sc.child.exitstatus == 0
    recs = _records(tr)
    assert recs[0]["type"] == "header" and recs[-1]["type"] == "result"
    mine = [r for r in recs if r["type"] == "reply" and r["seat"] == 0]
    assert len(mine) >= 3 and all(r["status"] == "accepted" for r in mine)
    assert recs[-1]["reason"] in ("round_limit", "balance")


def test_time_out_waiting_for_the_person(tmp_path: Path) -> None:
    tr = tmp_path / "t.jsonl"
    sc = Screens(
        spawn(
            C_FIRST,
            "human",
            "--seed",
            "3",
            "--bank",
            "1",
            "--delay",
            "0.5",
            "--transcript",
            str(tr),
        )
    )
    done: set[tuple[str, str]] = set()
    k, _ = sc.next_question(done)
    assert k == "pause"
    sc.send("\r")
    t0 = time.monotonic()
    out = sc.finish(timeout=20)  # nobody answers
    assert time.monotonic() - t0 >= 1.4
    assert "wins by time" in out and "A (c_first)" in out
    result = _records(tr)[-1]
    assert (result["type"], result["winner"], result["reason"]) == ("result", 0, "time")


def test_ctrl_c_asks_then_resigns(tmp_path: Path) -> None:
    tr = tmp_path / "t.jsonl"
    sc = Screens(spawn("human", C_FIRST, "--seed", "3", "--transcript", str(tr)))
    done: set[tuple[str, str]] = set()
    assert sc.next_question(done)[0] == "pause"
    sc.send("\r")
    assert sc.next_question(done)[0] == "ask"
    sc.send("\x03")
    sc.wait(lambda s: "Resign the match?" in s)
    sc.send("y\r")
    out = sc.finish()
    assert "A (human) resigned: B (c_first) wins" in out
    recs = _records(tr)
    assert recs[-1]["type"] == "result" and recs[-1]["winner"] == 1
    assert recs[-1]["reason"] == "resign"
    assert any(r["type"] == "engine_exit" and r["how"] == "resigned" for r in recs)


HAND = re.compile(r"^([AB])'s hand: (.*)$", re.M)
TILE = re.compile(r"\[(\d)\|(\d)\]")


def test_hot_seat_hand_over_stops_the_clock_and_hides_the_other_hand(tmp_path: Path) -> None:
    tr = tmp_path / "t.jsonl"
    seed = 11
    sc = Screens(
        spawn(
            "human",
            "human",
            "--seed",
            str(seed),
            "--max-rounds",
            "1",
            "--bank",
            "3",
            "--delay",
            "1",
            "--transcript",
            str(tr),
        )
    )
    done: set[tuple[str, str]] = set()
    k, s = sc.next_question(done)
    assert k == "reveal" and not HAND.search(s)
    time.sleep(4.5)  # longer than bank + delay: the clock must not run now
    sc.send("\r")
    out = _play_out(sc, done)
    assert "wins by time" not in out and "result:" in out
    recs = _records(tr)
    assert recs[-1]["reason"] in ("round_limit", "balance")
    first_reply = next(r for r in recs if r["type"] == "reply")
    assert first_reply["status"] == "accepted"
    assert int(str(first_reply["elapsed_ns"])) < 3_000_000_000  # the 4.5 s wait was not charged

    # No screen shows the wrong hand: a hand shows only after its owner revealed it,
    # and it never holds a tile dealt to the other player.
    deal = seeded_deals(seed)(1)
    dealt = [{(t.low, t.high) for t in deal.hands[p]} for p in (0, 1)]
    holder: str | None = None
    hands_seen = 0
    for screen in sc.screens:
        if "press Enter to reveal your hand" in screen:
            assert not HAND.search(screen), screen
            holder = re.search(r"Player ([AB]): press Enter", screen).group(1)  # type: ignore[union-attr]
            continue
        for who, tiles in HAND.findall(screen):
            assert who == holder, screen
            shown = {(int(a), int(b)) for a, b in TILE.findall(tiles)}
            assert not shown & dealt[1 - "AB".index(who)], screen
            hands_seen += 1
    assert hands_seen > 5


def _running(program: Path) -> list[int]:
    """Pids of processes running ``program`` (by its unique path)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmdline and cmdline[0] == str(program).encode():
                pids.append(int(proc.name))
    return pids


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_terminate_or_hang_up_ends_the_match_cleanly(tmp_path: Path, signame: str) -> None:
    # `kill` or a closed terminal window: the engine is ended, and the transcript ends
    # with a result (aborted: nobody lost), as after an interrupt.
    import shutil
    import signal

    engine = tmp_path / "engine"  # a copy with its own path, to find its process
    shutil.copy(ROOT / C_FIRST, engine)
    tr = tmp_path / "t.jsonl"
    sc = Screens(spawn("human", str(engine), "--seed", "3", "--transcript", str(tr)))
    assert sc.next_question(set())[0] == "pause"
    assert _running(engine)
    sc.child.kill(getattr(signal, signame))
    sc.finish()
    end = time.monotonic() + 10
    while _running(engine) and time.monotonic() < end:
        time.sleep(0.1)
    assert not _running(engine)
    recs = _records(tr)
    assert recs[-1]["type"] == "result" and recs[-1]["reason"] == "aborted"
    assert recs[-1]["rated"] is False


SLOW_ENGINE = """\
import sys, time
sys.path.insert(0, {root!r})
from bidref.sdk import run

def choose(req):
    time.sleep(2.5)
    return str(req.legal[0])

sys.exit(run(choose, name="slow"))
"""


def test_ctrl_c_while_the_engine_thinks_asks_at_once(tmp_path: Path) -> None:
    engine = tmp_path / "slow.py"
    engine.write_text(SLOW_ENGINE.format(root=str(ROOT)), encoding="utf-8")
    tr = tmp_path / "t.jsonl"
    sc = Screens(spawn("human", str(engine), "--seed", "3", "--transcript", str(tr)))
    done: set[tuple[str, str]] = set()
    assert sc.next_question(done)[0] == "pause"
    sc.send("\r")
    assert sc.next_question(done, timeout=30)[0] == "ask"
    sc.send("1\r")
    sc.wait(lambda s: "B (slow) is thinking" in s)
    sc.send("\x03")
    asked = sc.wait(lambda s: "Resign the match?" in s, timeout=10)
    # asked at once: while the engine's clock still runs, not after its move
    assert re.search(r"^B slow .*clock running", asked, re.M), asked
    sc.send("y\r")
    out = sc.finish(timeout=30)
    assert "A (human) resigned: B (slow) wins" in out
    recs = _records(tr)
    kinds = [
        (r["type"], r.get("seat")) for r in recs if r["type"] in ("reply", "request", "resign")
    ]
    # the engine's move, then the person's request is answered with the resignation
    assert kinds[-3:] == [("reply", 1), ("request", 0), ("resign", 0)]
    assert recs[-1]["type"] == "result" and recs[-1]["reason"] == "resign"
    replayed = subprocess.run(
        [str(Path(sys.executable).with_name("bidref")), "replay", str(tr)],
        capture_output=True,
        text=True,
    )
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


PY_GREEDY = "sample_engines/python_greedy/engine.py"


def _events(recs: list[dict[str, object]]) -> list[dict[str, object]]:
    return [r["event"] for r in recs if r["type"] == "event"]  # type: ignore[misc]


def test_the_end_of_a_round_shows_its_final_state_and_a_drawn_tile_shows_at_once(
    tmp_path: Path,
) -> None:
    tr = tmp_path / "t.jsonl"
    sc = Screens(
        spawn(
            "human",
            PY_GREEDY,
            "--seed",
            "3",
            "--max-rounds",
            "2",
            "--transcript",
            str(tr),
        )
    )
    done: set[tuple[str, str]] = set()
    round_end = ""
    while True:
        k, s = sc.next_question(done)
        if k == "end":
            sc.finish()
            break
        if "Press Enter to continue" in s and not round_end:
            round_end = s
        sc.send("1\r" if k == "ask" else "\r")
    assert sc.child.exitstatus == 0
    events = _events(_records(tr))
    ended = next(e for e in events if e["kind"] == "round_ended")
    assert ended["round"] == 1

    # The count screen of round 1: the round as it ended, not the last turn's screen.
    assert round_end, "no end-of-round screen"
    head = round_end.splitlines()[0]
    assert "round 1 " in head and "round over" in head, head
    assert "to act" not in round_end and "clock running" not in round_end
    assert "thinking" not in round_end and "clocks stopped" in round_end
    assert "Round 1 is over" in round_end
    # Each player's tile count is what they held at the count, as the transcript says.
    for p, who in enumerate("AB"):
        n = len(ended["hands"][p])  # type: ignore[index]
        row = re.search(rf"^{who} .*?(\d+) tiles?", round_end, re.M)
        assert row and int(row.group(1)) == n, round_end
    # The final layout is on screen, with the count of the round's last placement.
    placed = [e for e in events[: events.index(ended)] if e["kind"] == "placed"]
    assert f"= {placed[-1]['count']} " in round_end and "Places:" in round_end

    # Every draw of the person's shows at once: the tile, highlighted in the hand.
    mine = [e for e in events if e["kind"] == "drew" and e["player"] == 0]
    assert mine, "the scenario has no draw by the person any more: pick another seed"
    drew_screens = [s for s in sc.screens if "you drew" in s]
    assert drew_screens
    for s in drew_screens:
        hand = HAND.search(s)
        assert hand is not None and hand.group(1) == "A", s
        tiles, _, drawn = hand.group(2).partition("← you drew")
        assert drawn and set(TILE.findall(drawn)) <= set(TILE.findall(tiles)), s
    # The engine's draws are told too (not which tile).
    if any(e["kind"] == "drew" and e["player"] == 1 for e in events):
        assert any("B drew a tile" in s for s in sc.screens)


def _window(screen: str) -> tuple[int, int, int]:
    m = re.search(r"lines (\d+)–(\d+) of (\d+)", screen)
    assert m, screen
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def test_the_whole_rules_scroll_in_the_play_screen_while_the_clock_runs(tmp_path: Path) -> None:
    sc = Screens(spawn("human", C_FIRST, "--seed", "3", "--delay", "60", rows=30, cols=100))
    done: set[tuple[str, str]] = set()
    assert sc.next_question(done)[0] == "pause"
    sc.send("\r")
    assert sc.next_question(done)[0] == "ask"
    sc.send("rules\r")
    s = sc.wait(lambda s: "lines 1–" in s)
    first, last, total = _window(s)
    assert total > 2 * (last - first + 1)  # a window of a longer text
    assert "Spectacular Bid — the rules" in s and "## " not in s  # rendered Markdown
    d0 = _delay_shown(s)
    sc.send("\x1b[6~")  # PgDn
    s = sc.wait(lambda s: "lines " in s and _window(s)[0] > 1)
    assert _window(s)[0] == last + 1  # one window further, no line skipped
    sc.send("\x1b[B\x1b[B")  # two arrows down
    s = sc.wait(lambda s: "lines " in s and _window(s)[0] == last + 3)
    sc.send("\x1b[F")  # End: the last section is reachable
    s = sc.wait(lambda s: "lines " in s and _window(s)[1] == total)
    assert "A match cannot run forever" in s  # the last rule of the text
    sc.send("\x1b[5~")  # PgUp
    s = sc.wait(lambda s: "lines " in s and _window(s)[1] < total)
    assert _delay_shown(s) < d0  # the clock ran all along
    sc.send("q")  # closes the text; the question is still there
    s = sc.wait(lambda s: "Legal actions" in s)
    assert "lines " not in s
    # rules 7 opens the rules at §7; Esc closes them.
    sc.send("rules 7\r")
    s = sc.wait(lambda s: "lines " in s)
    assert _window(s)[0] > 1 and "7. The match clock" in s
    sc.send("\x1b")
    sc.wait(lambda s: "Legal actions" in s)
    sc.send("\x03")
    sc.wait(lambda s: "Resign the match?" in s)
    sc.send("y\r")
    assert "resigned" in sc.finish()


def test_freeze_idle_stops_the_engine_while_the_person_thinks(tmp_path: Path) -> None:
    """An engine that spins while it waits gets no CPU time during the person's
    turns with --freeze-idle (its idle_cpu_ns), and the match plays to its end."""
    burner = f"{sys.executable} {ROOT / 'tests' / 'engines_broken' / 'burns_while_idle.py'}"
    tr = tmp_path / "t.jsonl"
    sc = Screens(
        spawn(
            burner,
            "human",
            "--seed",
            "3",
            "--max-rounds",
            "1",
            "--bank",
            "60",
            "--delay",
            "5",
            "--freeze-idle",
            "--transcript",
            str(tr),
        )
    )
    out = _play_out(sc, set())
    assert "round_limit" in out or "wins" in out or "draw" in out, out
    replies = [x for x in _records(tr) if x["type"] == "reply" and x["seat"] == 0]
    assert replies and all(int(str(x["cpu_ns"])) >= 30_000_000 for x in replies)
    # the person's turns took far longer than 10 ms each: the engine spun through none
    idle = [(x["seq"], x["idle_cpu_ns"], x["cpu_ns"]) for x in replies]
    assert max(int(str(i)) for _, i, _ in idle) < 10_000_000, idle
