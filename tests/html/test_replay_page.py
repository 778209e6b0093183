"""`bidref replay --html`: the page, opened from disk in headless Chromium, shows each line.

The transcripts come from the real referee playing two scripted seats on a fake clock
(seeded, so the same bytes every run). What the page must show is worked out here from
the transcript's own public lines and reveals, not from the page's data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.image import PNGImageSnapshotExtension
from typer.testing import CliRunner

from bidref.cli import app
from tests.html.conftest import Page
from tests.transcript.scripted_seats import ScriptedSeat, referee_transcript

_cache: dict[str, tuple[Path, Path, list[dict[str, Any]]]] = {}

KINDS: dict[str, dict[str, Any]] = {
    # Two rounds: a forced opening, then an auction after a domino; engine log lines,
    # rules questions, stale replies and illegal actions with retries.
    "busy": {"chatty": True, "illegal_rate": 0.1},
    "time-loss": {"late_at": 7},
}


def made(kind: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Any]]:
    """(transcript, page, lines): the page written by the CLI, as a user would."""
    if kind not in _cache:
        folder = tmp_path_factory.mktemp(kind)
        t = folder / "t.jsonl"
        referee_transcript(t, **KINDS[kind])
        out = folder / "replay.html"
        r = CliRunner().invoke(app, ["replay", str(t), "--final", "--html", str(out)])
        assert r.exit_code == 0, r.output
        lines = [json.loads(x) for x in t.read_text().splitlines()]
        _cache[kind] = (t, out, lines)
    return _cache[kind]


def step_of(lines: list[dict[str, Any]], pred: Any, nth: int = 0) -> int:
    """The index (= step) of the nth line that ``pred`` accepts."""
    found = [i for i, x in enumerate(lines) if pred(x)]
    return found[nth]


def is_event(kind: str) -> Any:
    return lambda x: x["type"] == "event" and x["event"]["kind"] == kind


def public_state(lines: list[dict[str, Any]], upto: int) -> dict[str, Any]:
    """What the table holds after line ``upto``: the round, its placed tiles, the hands
    (from the round's reveal: the deal, less the placements, plus the draws), balances."""
    rnd, placed, balances = 0, [], [150, 150]
    hands: list[list[str]] = [[], []]
    reveals = {x["round"]: x for x in lines if x["type"] == "round_reveal"}
    drew = {
        item["seq"]: item["tile"]
        for x in reveals.values()
        for item in x["private"]
        if item["kind"] == "drew"
    }
    boneyard = None
    for x in lines[: upto + 1]:
        if x["type"] == "round_start":
            rnd, placed, balances = x["round"], [], list(x["balances"])
            deal = reveals[rnd]["deal"]
            hands = [[f"{a}-{b}" for a, b in h] for h in deal["hands"]]
            boneyard = 14
        elif x["type"] == "event":
            ev = x["event"]
            if ev["kind"] == "placed":
                t = "{}-{}".format(*sorted(ev["tile"]))
                placed.append(t)
                hands[ev["player"]].remove(t)
            elif ev["kind"] == "drew":
                a, b = sorted(drew[x["seq"]])
                hands[ev["player"]].append(f"{a}-{b}")
                boneyard = ev["boneyard_left"]
            elif ev["kind"] == "transfer":
                balances = list(ev["balances"])
    return {
        "round": rnd,
        "placed": placed,
        "hand_sets": [sorted(hands[0]), sorted(hands[1])],
        "balances": balances,
        "boneyard": boneyard,
    }


def secs(ns: int) -> str:
    return f"{ns / 1e9:.2f} s"


def test_the_page_loads_nothing_and_steps_through_every_line(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, out, lines = made("busy", tmp_path_factory)
    page.open(out)
    assert page.page.evaluate("window.bidrefReplay.steps") == len(lines)
    page.page.keyboard.press("Home")
    for i in range(40):
        page.page.keyboard.press("ArrowRight")
        assert page.position() == i + 1
    # Every line renders (a script error would fail the test), then → past the end stays.
    page.page.evaluate(
        "for (let i = 0; i < window.bidrefReplay.steps; i++) window.bidrefReplay.go(i)"
    )
    page.page.keyboard.press("ArrowRight")
    assert page.position() == len(lines) - 1
    assert f"line {len(lines)}" in page.text("#pos")
    # No element points anywhere but into the page (the tiles are <use href="#d3-6">).
    refs = page.page.eval_on_selector_all(
        "[src], [href], link, iframe, object, embed, img",
        "els => els.map(e => e.getAttribute('src') || e.getAttribute('href') || e.tagName)",
    )
    assert refs and all(r.startswith("#") for r in refs), refs
    page.page.click("#first")
    assert page.position() == 0
    # The file itself is the only request.
    assert page.requests == [out.resolve().as_uri()]
    html = out.read_text()
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html


def test_the_page_opens_on_the_first_deal(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # (issue 35, item 10: not on an empty table "before the first round")
    _, out, lines = made("busy", tmp_path_factory)
    page.open(out)
    first_deal = next(i for i, x in enumerate(lines) if x["type"] == "round_start")
    assert page.position() == first_deal
    assert page.text("#round-no").startswith("round 1")
    assert "no round dealt yet" not in page.text("#table")
    assert len(page.tiles("#player-0")) == 7  # the hands as dealt
    page.page.keyboard.press("Home")
    assert page.position() == 0 and page.text("#round-no") == "before the first round"
    # a link to a line still opens on that line
    page.open(out, "#line=2")
    assert page.position() == 1


def test_table_hands_boneyard_and_balances_at_chosen_steps(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, out, lines = made("busy", tmp_path_factory)
    page.open(out)
    # Keyboard: the fifth placement of round 1.
    i = step_of(lines, is_event("placed"), 4)
    page.go(i)
    want = public_state(lines, i)
    assert sorted(page.tiles("#table")) == sorted(want["placed"])
    assert page.tiles("#table .last") == [want["placed"][-1]]
    assert sorted(page.tiles("#hand-0")) == want["hand_sets"][0]
    assert sorted(page.tiles("#hand-1")) == want["hand_sets"][1]
    assert page.text("#balance-0") == str(want["balances"][0])
    assert page.text("#balance-1") == str(want["balances"][1])
    assert page.text("#boneyard") == str(want["boneyard"])
    count = lines[i]["event"]["count"]
    assert page.text("#count").startswith("Count:") and f"{count}" in page.text("#count")
    scoring = page.page.eval_on_selector_all(
        "#table .end.scoring", "els => els.map(e => Number(e.dataset.counts))"
    )
    assert sum(scoring) == count
    # Every step of the match (by its #line= address): the table and the balances agree.
    for j in range(0, len(lines), 9):
        page.page.evaluate(f"location.hash = 'line={j + 1}'")
        page.page.wait_for_function(f"window.bidrefReplay.step() === {j}")
        want = public_state(lines, j)
        if want["round"]:
            assert sorted(page.tiles("#table")) == sorted(want["placed"]), j
            assert sorted(page.tiles("#hand-0")) == want["hand_sets"][0], j
        assert page.text("#balance-0") == str(want["balances"][0]), j


def test_a_draw_shows_the_tile_drawn_and_hiding_hands_turns_them_face_down(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, out, lines = made("busy", tmp_path_factory)
    i = step_of(lines, is_event("drew"))
    seat = lines[i]["event"]["player"]
    rnd = max(x["round"] for x in lines[:i] if x["type"] == "round_start")
    reveal = next(x for x in lines if x["type"] == "round_reveal" and x["round"] == rnd)
    tile = next(
        "{}-{}".format(*sorted(p["tile"]))
        for p in reveal["private"]
        if p["kind"] == "drew" and p["seq"] == lines[i]["seq"]
    )
    page.open(out, f"#line={i + 1}")
    assert page.position() == i
    assert page.page.get_attribute("#drawn", "data-tile") == tile
    assert f"{'AB'[seat]} drew [{tile[0]}|{tile[2]}]" in page.text("#drawn")
    assert tile in page.tiles(f"#hand-{seat} .drawn")
    # As a spectator saw it: before the round's reveal the hands are face down.
    page.page.check("#hide-hands")
    sizes = public_state(lines, i)["hand_sets"]
    assert page.tiles("#hand-0") == ["hidden"] * len(sizes[0])
    assert page.tiles("#hand-1") == ["hidden"] * len(sizes[1])
    assert page.page.get_attribute("#drawn", "data-tile") == "hidden"
    assert sorted(page.tiles("#table")) == sorted(public_state(lines, i)["placed"])  # public


def test_clocks_at_a_request_and_the_cost_of_the_reply(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, out, lines = made("busy", tmp_path_factory)
    # A request after the first bank use, so that delay and bank both show real values.
    i = step_of(lines, lambda x: x["type"] == "request" and x["clock"]["delay_left_ns"] == 0)
    req = lines[i]
    seat = req["seat"]
    page.open(out, f"#line={i + 1}")
    assert page.text(f"#bank-{seat}") == secs(req["clock"]["bank_ns"])
    assert page.text(f"#delay-{seat}") == secs(req["clock"]["delay_left_ns"])
    assert page.text(f"#bank-{1 - seat}") == secs(req["clock"]["opponent_bank_ns"])
    assert page.text(f"#delay-{1 - seat}") == "—"
    assert "to act" in page.text(f"#player-{seat}")
    j = step_of(lines, lambda x: x["type"] == "reply" and x["id"] == req["id"])
    reply = lines[j]
    # The tile of the action finally taken was one of those marked playable.
    taken = next(x for x in lines[j:] if x["type"] == "reply" and x["status"] == "accepted")
    if taken["action"].startswith(("play", "open")):
        assert taken["action"].split()[1] in page.tiles(f"#hand-{seat} .playable")
    else:
        assert page.tiles(f"#hand-{seat} .playable") == []  # a draw: nothing to play
    page.page.evaluate(f"window.bidrefReplay.go({j})")
    ms = round(reply["elapsed_ns"] / 1e6)
    bank_ms = round(reply["charge"]["bank_used_ns"] / 1e6)
    assert page.text(f"#cost-{seat}").startswith(f"{ms} ms (delay 0 ms, bank {bank_ms} ms)")
    assert page.text(f"#bank-{seat}") == secs(reply["banks_ns"][seat])


def test_auction_jockey_payment_logs_and_the_end(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, out, lines = made("busy", tmp_path_factory)
    page.open(out)
    page.page.click("#rounds button[data-round='2']")
    start = step_of(lines, lambda x: x["type"] == "round_start" and x["round"] == 2)
    assert page.position() == start
    jockey = lines[start]["jockey"]
    assert "jockey" in page.text(f"#player-{jockey}")
    pay = step_of(lines, lambda x: is_event("transfer")(x) and x["event"]["reason"] == "auction")
    page.page.evaluate(f"window.bidrefReplay.go({pay})")
    moves = [x["event"]["action"] for x in lines[start:pay] if is_event("auction")(x)]
    auction = page.text("#auction")
    for m in moves:
        assert m in auction
    ev = lines[pay]["event"]
    assert f"pays {ev['amount']}" in page.text("#payment")
    if ev["payer"] == jockey:
        assert "credit 15" in page.text("#payment")
    # An engine's log line, from the round's reveal, at its own line.
    k = step_of(lines, lambda x: x["type"] == "log")
    msg = next(
        p["message"]
        for x in lines
        if x["type"] == "round_reveal"
        for p in x["private"]
        if p["kind"] == "log" and p["seq"] == lines[k]["seq"]
    )
    page.page.evaluate(f"window.bidrefReplay.go({k})")
    assert msg in page.text("#logs li.now")
    assert msg in page.text("#step-text")
    # The end: reason, winner and detail.
    page.page.keyboard.press("End")
    result = lines[-1]
    assert page.page.get_attribute("#end-reason", "data-reason") == result["reason"]
    winner = result["engines"][result["winner"]]
    assert page.text("#end-reason").startswith(f"{winner} ({'AB'[result['winner']]}) wins")
    assert "max_rounds" in page.text("#end")
    assert page.page.is_hidden("#end") is False
    page.page.keyboard.press("PageUp")  # back to the start of round 2
    assert page.position() == start
    assert page.page.is_hidden("#end")


def test_the_slider_and_a_time_loss(page: Page, tmp_path_factory: pytest.TempPathFactory) -> None:
    _, out, lines = made("time-loss", tmp_path_factory)
    page.open(out)
    page.page.eval_on_selector(
        "#slider", "e => { e.value = '12'; e.dispatchEvent(new Event('input')); }"
    )
    assert page.position() == 12 and "line 13" in page.text("#pos")
    page.page.keyboard.press("End")
    result = lines[-1]
    assert result["reason"] == "time"
    seat = result["detail"]["seat"]
    assert page.page.get_attribute("#end-reason", "data-reason") == "time"
    late = round(result["detail"]["overrun_ns"] / 1e6)
    assert f"{late} ms late" in page.text("#end-reason")
    assert "time is out" in page.text(f"#player-{seat}")
    assert page.text(f"#bank-{seat}") == "0.00 s"
    i = step_of(lines, lambda x: x["type"] == "timeout")
    page.page.evaluate(f"window.bidrefReplay.go({i})")
    assert "ran out of time" in page.text("#step-text")


def test_a_screenshot_of_the_table_is_stable(
    page: Page, tmp_path_factory: pytest.TempPathFactory, snapshot: SnapshotAssertion
) -> None:
    """The drawing alone (tiles, pips, spinner, markers), pixel for pixel."""
    _, out, lines = made("busy", tmp_path_factory)
    i = step_of(lines, is_event("placed"), 9)
    page.open(out, f"#line={i + 1}")
    shot = page.page.locator("#table svg").screenshot(animations="disabled")
    assert shot == snapshot(extension_class=PNGImageSnapshotExtension)


def test_a_cut_transcript_shows_what_is_public_with_a_warning(
    page: Page, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """A referee killed in round 1: the page still steps through what was written, the
    hands face down (the deal was never revealed), and says where the file stops."""
    t, _, lines = made("busy", tmp_path_factory)
    raw = t.read_bytes().splitlines(keepends=True)
    reveal = step_of(lines, lambda x: x["type"] == "round_reveal")
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(raw[:reveal]) + raw[reveal][:50])
    out = tmp_path / "cut.html"
    r = CliRunner().invoke(app, ["replay", str(cut), "--final", "--html", str(out)])
    assert r.exit_code == 3  # verified as far as it goes, but truncated
    page.open(out)
    assert "cut short" in page.text(".warning")
    page.page.keyboard.press("End")
    want = public_state(lines, reveal - 1)
    assert page.tiles("#hand-0") == ["hidden"] * len(want["hand_sets"][0])
    assert page.tiles("#hand-1") == ["hidden"] * len(want["hand_sets"][1])
    assert sorted(page.tiles("#table")) == sorted(want["placed"])
    assert page.page.is_hidden("#end")


def test_a_transcript_that_lies_is_shown_with_the_mismatch(
    page: Page, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    _, _, lines = made("busy", tmp_path_factory)
    bad = [dict(x) for x in lines]
    i = step_of(bad, lambda x: is_event("transfer")(x))
    bad[i] = {**bad[i], "event": {**bad[i]["event"], "balances": [290, 10]}}
    t = tmp_path / "bad.jsonl"
    t.write_text("".join(json.dumps(x) + "\n" for x in bad))
    out = tmp_path / "bad.html"
    r = CliRunner().invoke(app, ["replay", str(t), "--final", "--html", str(out)])
    assert r.exit_code == 1
    page.open(out, f"#line={i + 1}")
    assert f"bidref replay: line {i + 1}:" in page.text(".warning")
    assert page.text("#balance-0") == "290"  # the page shows what the file says


def test_a_click_on_the_table_shows_it_at_full_size(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, out, lines = made("busy", tmp_path_factory)
    i = step_of(lines, is_event("round_ended"))  # the fullest table of round 1
    page.open(out, f"#line={i + 1}")
    box = page.page.locator("#table")
    fit = page.page.locator("#table svg").bounding_box()
    natural = float(page.page.get_attribute("#table svg", "width") or 0)
    assert fit is not None and fit["width"] <= (box.bounding_box() or {"width": 0})["width"]
    box.click()
    full = page.page.locator("#table svg").bounding_box()
    assert full is not None and full["width"] == pytest.approx(natural, abs=1)
    box.click()
    again = page.page.locator("#table svg").bounding_box()
    assert again is not None and again["width"] == pytest.approx(fit["width"], abs=1)


class WaitedSeat(ScriptedSeat):
    """Seat A with the run-queue counters of one task that waits a quarter of the
    time (a fake schedstat on the fake clock): its replies carry ``wait_ns``."""

    def wait_sample(self) -> dict[int, tuple[int, int]]:
        return {7: (0, self.clock.now // 4)}

    def cores(self) -> int:
        return 1


def test_the_cost_of_a_reply_shows_how_long_the_engine_waited_for_a_cpu(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    KINDS["waited"] = {"seat_class": WaitedSeat}
    _, out, lines = made("waited", tmp_path_factory)
    j = step_of(lines, lambda x: x["type"] == "reply" and x["seat"] == 0 and x["wait_ns"] > 0)
    page.open(out, f"#line={j + 1}")
    wait_ms = f"{lines[j]['wait_ns'] / 1e6:.1f} ms"
    assert f"waited for a CPU {wait_ms}" in page.text("#cost-0")
    k = step_of(lines, lambda x: x["type"] == "reply" and x["seat"] == 1)
    page.page.evaluate(f"window.bidrefReplay.go({k})")
    assert "waited" not in page.text("#cost-1")  # seat B cannot tell: nothing shown
