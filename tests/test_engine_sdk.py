"""The Python engine SDK (bidref.sdk): view decoding, determinization, the loop."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest

from bidref.protocol import PROTOCOL_VERSION as WIRE_VERSION
from bidref.rules import Match, MatchConfig, Phase, Play, parse_action, player_view
from bidref.sdk import PROTOCOL_VERSION, Engine, Request, run, sample_match, view_from_dict

HELLO = {
    "type": "hello",
    "protocol": "bidref/1",
    "bidref": "0.1.0",
    "rules": "spectacular-bid/1",
    "seat": 0,
    "settings": {
        "bank_ms": 2000,
        "delay_ms": 500,
        "max_rounds": 3,
        "illegal": "reject",
        "startup_ms": 10000,
    },
}
CLOCK = {"delay_left_ms": 500, "bank_ms": 2000, "opponent_bank_ms": 1500, "deadline_ms": 2500}


def positions(seeds: range, per_match: int = 60) -> list[Match]:
    """Positions of random matches, in every phase."""
    out = []
    rng = random.Random(1)
    for seed in seeds:
        m = Match.new(seed)
        for _ in range(per_match):
            if m.over:
                break
            out.append(m.copy())
            m.apply(rng.choice(m.legal_actions()))
    return out


def request_line(m: Match, req_id: int) -> str:
    view = player_view(m, m.to_act).to_dict()
    return json.dumps(
        {
            "type": "request",
            "id": req_id,
            "view": view,
            "clock": CLOCK,
            "legal": [str(a) for a in m.legal_actions()],
        }
    )


def test_protocol_version_matches_the_wire_module() -> None:
    assert PROTOCOL_VERSION == WIRE_VERSION


def test_view_round_trips_through_json_in_every_phase() -> None:
    phases = set()
    for m in positions(range(30)):
        v = player_view(m, m.to_act)
        phases.add(v.phase)
        assert view_from_dict(json.loads(json.dumps(v.to_dict()))) == v
    assert phases == {"auction", "opening", "play"}


def test_sample_match_agrees_with_the_view_and_hides_nothing_it_should_not() -> None:
    rng = random.Random(5)
    for m in positions(range(30)):
        p = m.to_act
        v = player_view(m, p)
        s = sample_match(v, rng)
        assert s.legal_actions() == m.legal_actions()
        assert s.layout.count() == m.layout.count()
        assert s.layout.open_points == m.layout.open_points
        assert s.hands[p] == m.hands[p]
        assert len(s.hands[1 - p]) == len(m.hands[1 - p])
        assert len(s.boneyard) == len(m.boneyard)
        assert (s.phase, s.turn, s.balances, s.jockey, s.bid) == (
            m.phase,
            m.turn,
            m.balances,
            m.jockey,
            m.bid,
        )
        # The determinization plays on to the end of the round without error.
        c = s.copy()
        r = c.round_number
        while not c.over and c.round_number == r:
            c.apply(rng.choice(c.legal_actions()))


def test_sample_match_varies_the_hidden_tiles() -> None:
    m = Match.new(3)
    v = player_view(m, m.to_act)
    hands = {tuple(sample_match(v, random.Random(i)).hands[1 - m.to_act]) for i in range(20)}
    assert len(hands) > 10


def run_lines(engine: Any, lines: list[dict[str, Any] | str]) -> list[dict[str, Any]]:
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    out = io.StringIO()
    assert run(engine, stdin=io.StringIO(text), stdout=out, clock=lambda: 100.0) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_run_handshakes_answers_with_the_id_pongs_and_quits() -> None:
    m = Match.new(7)
    seen: list[Request] = []

    def choose(req: Request) -> str:
        seen.append(req)
        return str(req.legal[-1])

    out = run_lines(
        choose,
        [
            HELLO,
            {"type": "ping", "id": 4},
            request_line(m, 17),
            {"type": "event", "event": {"kind": "passed", "player": 1}},
            {"type": "quit", "reason": "match_over"},
            request_line(m, 18),
        ],
    )  # after quit: never read
    assert out[0] == {
        "type": "hello",
        "name": "python-engine",
        "author": "",
        "version": "1",
        "protocol": "bidref/1",
    }
    assert out[1] == {"type": "pong", "id": 4}
    assert out[2] == {"type": "action", "id": 17, "action": str(m.legal_actions()[-1])}
    assert len(out) == 3
    req = seen[0]
    assert req.legal == tuple(m.legal_actions())
    assert req.hand == tuple(m.hands[m.to_act])
    assert req.clock.deadline == 2.5 and req.clock.opponent_bank == 1.5
    assert req.time_left(101.0) == pytest.approx(1.5)
    assert req.max_rounds == 3


def test_an_illegal_error_gets_a_different_legal_action_for_the_same_id() -> None:
    m = Match.new(7)
    while len(m.legal_actions()) < 2:
        m.apply(m.legal_actions()[0])
    first = str(m.legal_actions()[0])
    out = run_lines(
        lambda req: req.legal[0],
        [
            HELLO,
            request_line(m, 3),
            {"type": "error", "id": 3, "code": "illegal", "message": "no", "rule": "§3"},
            {"type": "error", "id": 2, "code": "stale_id", "message": "old"},
            {"type": "quit"},
        ],
    )
    actions = [o for o in out if o["type"] == "action"]
    assert [a["id"] for a in actions] == [3, 3]
    assert actions[0]["action"] == first and actions[1]["action"] != first
    assert parse_action(actions[1]["action"]) in m.legal_actions()


def test_a_failing_choose_still_answers_a_legal_action() -> None:
    def broken(req: Request) -> str:
        raise RuntimeError("bug in the engine")

    m = Match.new(2)
    out = run_lines(broken, [HELLO, request_line(m, 1), {"type": "quit"}])
    assert out[1] == {"type": "action", "id": 1, "action": str(m.legal_actions()[0])}


def test_garbage_lines_are_skipped_and_end_of_input_ends_the_loop() -> None:
    out = run_lines(lambda req: req.legal[0], ["not json", "[1,2]", HELLO])
    assert [o["type"] for o in out] == ["hello"]


def test_ask_rules_waits_for_its_answer_and_keeps_other_lines() -> None:
    m = Match.new(7)
    texts: list[str] = []
    events: list[str] = []

    class Curious(Engine):
        name = "curious"

        def choose(self, request: Request) -> str:
            texts.append(self.ask_rules("5"))
            self.note("read the rules")
            return str(request.legal[0])

        def on_event(self, event: dict[str, Any]) -> None:
            events.append(event["kind"])

    out = run_lines(
        Curious(),
        [
            HELLO,
            request_line(m, 9),
            {"type": "event", "event": {"kind": "transfer"}},
            {"type": "ping", "id": 1},
            {"type": "rules", "id": "sdk-1", "topic": "5", "text": "## 5. Drawing"},
            {"type": "quit"},
        ],
    )
    assert [o["type"] for o in out] == ["hello", "rules", "pong", "log", "action"]
    assert out[1] == {"type": "rules", "id": "sdk-1", "topic": "5"}
    assert texts == ["## 5. Drawing"]
    assert events == ["transfer"]


def test_points_of_a_play() -> None:
    m = Match.new(3)  # opens with 6-6 (count 12)
    m.apply(m.legal_actions()[0])
    v = player_view(m, m.to_act)
    req = Request(
        id=1, view=v, legal=v.legal_actions, clock=view_clock(), received_at=0.0, seat=m.to_act
    )
    for a in v.legal_actions:
        if isinstance(a, Play):
            c = m.copy()
            c.layout = m.layout.copy()
            count = c.layout.place(a.tile, a.at)
            assert req.points_of(a) == (count if count % 5 == 0 else 0)
    assert req.phase is Phase.PLAY


def view_clock() -> Any:
    from bidref.sdk import Clock

    return Clock.from_dict(CLOCK)


def test_sample_match_keeps_the_round_limit() -> None:
    m = Match.new(4, MatchConfig(max_rounds=1))
    v = player_view(m, m.to_act)
    assert sample_match(v, random.Random(0), max_rounds=1).config.max_rounds == 1


def test_a_stray_print_goes_to_stderr_not_into_the_protocol(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    m = Match.new(7)
    lines = [HELLO, json.loads(request_line(m, 5)), {"type": "quit"}]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(json.dumps(x) + "\n" for x in lines)))

    def chatty(req: Request) -> str:
        print("thinking hard")
        return str(req.legal[0])

    assert run(chatty) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["type"] for line in out.splitlines()] == ["hello", "action"]
    assert "thinking hard" in err


def test_a_failing_event_hook_is_logged_and_the_engine_plays_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Fragile(Engine):
        def on_event(self, event: dict[str, Any]) -> None:
            raise KeyError("side")  # a bug in the engine's own bookkeeping

    m = Match.new(2)
    out = run_lines(
        Fragile(),
        [
            HELLO,
            {"type": "event", "event": {"kind": "placed"}},
            request_line(m, 1),
            {"type": "quit"},
        ],
    )
    assert [o["type"] for o in out] == ["hello", "action"]
    assert out[1]["id"] == 1
    assert "on_event() failed" in caplog.text


def test_points_of_reads_the_referee_s_legal_points_when_sent() -> None:
    m = Match.new(3)
    m.apply(m.legal_actions()[0])
    v = player_view(m, m.to_act)
    marks = tuple(
        100 + i for i in range(len(v.legal_actions))
    )  # not real points: read, not computed
    req = Request(
        id=1,
        view=v,
        legal=v.legal_actions,
        clock=view_clock(),
        received_at=0.0,
        seat=m.to_act,
        legal_points=marks,
    )
    assert [req.points_of(a) for a in v.legal_actions] == list(marks)


def test_an_engine_asks_for_features_in_its_hello() -> None:
    import io

    from bidref.sdk import run

    hello = json.dumps(
        {
            "type": "hello",
            "protocol": "bidref/1",
            "bidref": "x",
            "rules": "r",
            "seat": 0,
            "settings": {},
            "options": {},
        }
    )
    for features, expected in (((), None), (("points",), ["points"])):
        out = io.StringIO()
        run(
            lambda req: str(req.legal[0]),
            features=features,
            stdin=io.StringIO(hello + '\n{"type":"quit"}\n'),
            stdout=out,
        )
        answer = json.loads(out.getvalue().splitlines()[0])
        assert answer.get("features") == expected
