"""Whole matches through the real referee with human seats, on a fake clock.

The person is scripted (:class:`BotKeys`): it looks at each screen the session
shows and types after a wait that advances the fake clock. Nothing sleeps.
"""

from __future__ import annotations

from pathlib import Path

from bidref.engines import EngineSpec
from bidref.match.referee import LiveState, MatchSpec, run_match
from bidref.players import Seat
from bidref.players.human import HumanSeat
from bidref.rules import SECOND, Match, MatchConfig, TimeControl, parse_action, tile
from bidref.transcript.expand import expanded_lines
from bidref.transcript.replay import replay
from bidref.tui.screen import Clocks, ScreenModel
from bidref.tui.session import PlaySession

from .fakes import BotKeys, FakeClock, FirstLegalSeat, Policy, RecordingDisplay, first_legal

HUMAN = EngineSpec(name="human", command=("human",))


def _spec(seed: int, bank: float, delay: float, max_rounds: int | None) -> MatchSpec:
    return MatchSpec(
        engines=(HUMAN, HUMAN),
        seed=seed,
        time_control=TimeControl.of_seconds(bank, delay),
        max_rounds=max_rounds,
        eager_events=True,
    )


def _setup(
    policy: Policy, humans: list[int]
) -> tuple[FakeClock, RecordingDisplay, BotKeys, PlaySession]:
    clock = FakeClock()
    display = RecordingDisplay(clock)
    display.show(ScreenModel(names=("a", "b"), clocks=Clocks((0, 0), 0)))
    keys = BotKeys(clock, display, policy)
    names = (
        ("human", "human")
        if len(humans) == 2
        else (("human", "first") if humans == [0] else ("first", "human"))
    )
    session = PlaySession(keys=keys, display=display, clock=clock, humans=humans, names=names)
    return clock, display, keys, session


def _records(path: Path) -> list[dict[str, object]]:
    """The transcript verified and spelled out (the v1 form of its lines)."""
    return expanded_lines(path.read_bytes())


def _true_hands(
    seed: int, max_rounds: int | None, records: list[dict[str, object]]
) -> dict[tuple[int, int, int], tuple[str, str]]:
    """(round, turn, drawn) -> both hands as text, replaying the accepted actions."""
    m = Match.new(seed, MatchConfig(max_rounds=max_rounds))
    out: dict[tuple[int, int, int], tuple[str, str]] = {}

    def note() -> None:
        hands = tuple(" ".join(str(t) for t in m.hands[p]) for p in (0, 1))
        out[(m.round_number, m.turn, m.drawn_this_turn)] = hands  # type: ignore[assignment]

    note()
    for r in records:
        if r["type"] == "reply" and r["status"] == "accepted":
            m.apply(parse_action(str(r["action"])))
            if not m.over:
                note()
    return out


def test_hot_seat_match_clock_stands_still_during_hand_over(tmp_path: Path) -> None:
    # Each hand-over takes 100 s; the bank is 3 s and the delay 0.5 s. If the hand-over
    # were charged, the first one would lose the match on time.
    policy = first_legal(wait=SECOND // 5, reveal_wait=100 * SECOND)
    clock, display, keys, session = _setup(policy, [0, 1])
    seats: list[Seat] = [HumanSeat(session, 0), HumanSeat(session, 1)]
    path = tmp_path / "t.jsonl"
    outcome = run_match(_spec(11, 3, 0.5, 2), seats=seats, clock=clock, transcript_path=path)
    assert outcome.reason in ("round_limit", "balance"), outcome.summary()
    recs = _records(path)
    assert recs[0]["type"] == "header" and recs[-1]["type"] == "result"
    replies = [r for r in recs if r["type"] == "reply"]
    assert replies and all(r["status"] == "accepted" for r in replies)
    # Every answer was charged only the 0.2 s of typing, never the 100 s hand-over.
    assert all(r["elapsed_ns"] == SECOND // 5 for r in replies)
    reveals = [k for k in keys.done if k[0] == "reveal"]
    assert len(reveals) >= 2
    # A draw keeps the turn and the device: no hand-over in the middle of a turn.
    assert any(
        r["type"] == "event" and r["event"]["kind"] == "drew"  # type: ignore[index]
        for r in recs
    )
    assert all(k[4] == 0 for k in reveals)

    truth = _true_hands(11, 2, recs)
    shown = 0
    for i, m in enumerate(display.models):
        if m.own.hand is None:
            continue
        # A hand is only ever on screen for the player to act, after their reveal ...
        assert m.own.viewer is not None and m.own.viewer == m.table.to_act, (
            i,
            m.own.viewer,
            m.table.to_act,
        )
        before = [x for x in display.models[:i] if x.ask.footer.startswith("Player ")]
        assert before and before[-1].ask.footer.startswith(f"Player {'AB'[m.own.viewer]}:")
        # ... and it is that player's true hand.
        if m.ask.prompt is not None:
            assert (
                " ".join(str(t) for t in m.own.hand)
                == truth[(m.table.round, m.table.turn, m.table.drawn)][m.own.viewer]
            )
            shown += 1
    assert shown >= len(replies) // 2
    # The hand-over screens themselves show no hand.
    assert all(m.own.hand is None for m in display.models if m.ask.footer.startswith("Player "))


def test_clocks_stand_still_until_start_and_continue(tmp_path: Path) -> None:
    # The person takes 60 s to press Start / Continue; the engine's bank is 2 s.
    def policy(m: ScreenModel, sit: tuple[object, ...]) -> tuple[int, str] | None:
        if sit[0] == "pause":
            return 60 * SECOND, "\n"
        return SECOND // 10, "1\n"

    clock, display, keys, session = _setup(policy, [1])
    engine = FirstLegalSeat(clock)
    seats: list[Seat] = [engine, HumanSeat(session, 1)]
    path = tmp_path / "t.jsonl"
    spec = MatchSpec(
        engines=(EngineSpec(name="first", command=("x",)), HUMAN),
        seed=4,
        time_control=TimeControl.of_seconds(2, 0.5),
        max_rounds=2,
        eager_events=True,
    )
    outcome = run_match(spec, seats=seats, clock=clock, transcript_path=path)
    assert outcome.reason in ("round_limit", "balance"), outcome.summary()
    starts = [t for t, chars in keys.typed if chars == "\n"]
    assert starts, "the person was asked to press Start"
    # No request reached the engine before the person pressed Start, and none in a
    # round before its Continue: the 60 s waits (bank 2 s) cost the engine nothing.
    # Start of round 1, Continue after round 1, Start of round 2 (issue 35, item 7:
    # every deal waits for its Enter, the one after a count too)
    assert len(starts) == 3
    assert {r for r, _ in engine.requests} == {1, 2}
    assert all(t >= starts[2 * (rnd - 1)] for rnd, t in engine.requests)
    pauses = [m for m in display.models if "Press Enter" in m.ask.footer]
    assert pauses and all(m.clocks.running is None for m in pauses)
    said = [m.ask.footer for m in pauses]
    said = [f for i, f in enumerate(said) if i == 0 or said[i - 1] != f]
    assert said == ["Press Enter to start", "Press Enter to continue", "Press Enter to start"]
    assert [m.table.round for m in pauses if m.ask.footer == "Press Enter to start"][-1] == 2


def test_time_out_while_waiting_for_input(tmp_path: Path) -> None:
    def policy(m: ScreenModel, sit: tuple[object, ...]) -> tuple[int, str] | None:
        return (SECOND // 10, "\n") if sit[0] == "pause" else None  # never answers

    clock, display, _, session = _setup(policy, [0])
    seats: list[Seat] = [HumanSeat(session, 0), FirstLegalSeat(clock)]
    spec = MatchSpec(
        engines=(HUMAN, EngineSpec(name="first", command=("x",))),
        seed=3,
        time_control=TimeControl.of_seconds(1.5, 0.5),
        eager_events=True,
    )
    path = tmp_path / "t.jsonl"
    outcome = run_match(spec, seats=seats, clock=clock, transcript_path=path)
    assert (outcome.winner, outcome.reason) == (1, "time")
    assert outcome.end.overrun_ns == 0  # given up exactly at the deadline
    recs = _records(path)
    assert [r["type"] for r in recs][-1] == "result"
    assert "time is out" in display.last.ask.message or "time is out" in " ".join(
        m.ask.message for m in display.models
    )


def test_illegal_entry_and_rules_change_nothing_while_the_clock_runs(tmp_path: Path) -> None:
    answered: list[bool] = []

    def policy(m: ScreenModel, sit: tuple[object, ...]) -> tuple[int, str] | None:
        if sit[0] != "ask":
            return SECOND // 10, "\n"
        if answered:
            return SECOND // 10, "1\n"
        if m.ask.message.startswith("'zz'"):
            return SECOND, "play 6-6 0-0:line_a\n"
        if "is not legal now" in m.ask.message:
            return SECOND, "rules 7\n"
        if m.ask.overlay is not None:
            answered.append(True)
            return 2 * SECOND, "\n1\n"  # close the rules text, then answer
        return SECOND, "zz\n"

    clock, display, _, session = _setup(policy, [0])
    seats: list[Seat] = [HumanSeat(session, 0), FirstLegalSeat(clock)]
    spec = MatchSpec(
        engines=(HUMAN, EngineSpec(name="first", command=("x",))),
        seed=3,
        time_control=TimeControl.of_seconds(30, 2),
        max_rounds=1,
        eager_events=True,
    )
    path = tmp_path / "t.jsonl"
    outcome = run_match(spec, seats=seats, clock=clock, transcript_path=path)
    assert outcome.reason in ("round_limit", "balance")
    messages = [m.ask.message for m in display.models]
    assert any(msg.startswith("'zz' is not an action") for msg in messages)
    assert any("is not legal now" in msg for msg in messages)
    overlays = [m for m in display.models if m.ask.overlay is not None and m.ask.prompt is not None]
    assert overlays, "the rules were shown while a decision was pending"
    assert "The match clock" in str(getattr(overlays[0].ask.overlay, "plain", ""))
    assert all(m.clocks.running is not None for m in overlays)
    # The referee never saw the bad entries: every reply was accepted, and the first
    # one was charged all five seconds of that turn (2 s delay, then 3 s of bank).
    recs = _records(path)
    replies = [r for r in recs if r["type"] == "reply"]
    assert all(r["status"] == "accepted" for r in replies)
    first = next(r for r in replies if r["seat"] == 0)
    assert first["elapsed_ns"] == 5 * SECOND
    assert first["charge"] == {
        "delay_used_ns": 2 * SECOND,
        "bank_used_ns": 3 * SECOND,
        "timed_out": False,
        "overrun_ns": 0,
    }


def test_resign_with_ctrl_c_after_confirmation(tmp_path: Path) -> None:
    steps = iter(["\x03", "n\n", "\x03", "y\n"])

    def policy(m: ScreenModel, sit: tuple[object, ...]) -> tuple[int, str] | None:
        if sit[0] == "pause":
            return SECOND // 10, "\n"
        return SECOND // 10, "".join(steps)

    clock, display, _, session = _setup(policy, [0])
    human = HumanSeat(session, 0)
    seats: list[Seat] = [human, FirstLegalSeat(clock)]
    spec = MatchSpec(
        engines=(HUMAN, EngineSpec(name="first", command=("x",))),
        seed=3,
        time_control=TimeControl.of_seconds(30, 5),
        eager_events=True,
    )
    path = tmp_path / "t.jsonl"
    outcome = run_match(spec, seats=seats, clock=clock, transcript_path=path)
    assert (outcome.winner, outcome.reason, outcome.rated) == (1, "resign", True)
    assert human.resigned
    recs = _records(path)
    assert recs[-1]["type"] == "result" and recs[-1]["winner"] == 1
    assert recs[-1]["reason"] == "resign"
    assert [r["seat"] for r in recs if r["type"] == "resign"] == [0]
    report = replay(path.read_bytes())
    assert report.ok and report.truncated is None, report.problem
    exits = [r for r in recs if r["type"] == "engine_exit"]
    assert exits[0]["how"] == "resigned"
    assert any("Resign the match?" in m.ask.message for m in display.models)


def test_hot_seat_forced_pass_keeps_the_clock_running_and_the_hand_hidden(tmp_path: Path) -> None:
    # Seed 42, first legal action each time: in round 2 A plays 1-1 and B can neither
    # play nor draw, so B passes and the turn comes straight back to A. No hand-over
    # happens, so A's clock must run (RULES.md §7), but A's hand must still wait for
    # A's Enter: A may already be passing the device to B.
    policy = first_legal(wait=SECOND // 5, reveal_wait=3 * SECOND // 10)
    clock, display, _, session = _setup(policy, [0, 1])
    seats: list[Seat] = [HumanSeat(session, 0), HumanSeat(session, 1)]
    path = tmp_path / "t.jsonl"
    outcome = run_match(_spec(42, 60, 2, 2), seats=seats, clock=clock, transcript_path=path)
    assert outcome.reason in ("round_limit", "balance"), outcome.summary()
    recs = _records(path)
    back: list[dict[str, object]] = []  # replies to a request right after a forced pass
    last_seat, passed = None, False
    for r in recs:
        if r["type"] == "event" and r["event"]["kind"] == "passed":  # type: ignore[index]
            passed = True
        elif r["type"] == "request":
            if passed and r["seat"] == last_seat:
                back.append(r)
            passed = False
        elif r["type"] == "reply":
            last_seat = r["seat"]
    assert back, "the seed no longer gives a forced pass in mid-round"
    ids = {(r["seat"], r["id"]) for r in back}
    for r in recs:
        if r["type"] == "reply":
            # 0.3 s to reveal and 0.2 s to answer after a pass-back; 0.2 s otherwise.
            want = SECOND // 2 if (r["seat"], r["id"]) in ids else SECOND // 5
            assert r["elapsed_ns"] == want, r
    # The screen that asks A to reveal again shows no hand, while A's clock runs.
    again = [
        m
        for m in display.models
        if m.ask.footer.startswith("Player ") and m.clocks.running is not None
    ]
    assert again and all(m.own.hand is None and m.own.viewer is None for m in again)
    assert all(m.clocks.running.player == m.table.to_act for m in again)  # type: ignore[union-attr]
    # Every other reveal is a real hand-over, with the clocks stopped.
    assert any(
        m.ask.footer.startswith("Player ") and m.clocks.running is None for m in display.models
    )


def test_ctrl_c_while_the_engine_thinks_asks_at_once_and_resigns_after_its_move(
    tmp_path: Path,
) -> None:
    # The engine thinks 5 s per decision. One second into its first thought the person
    # presses Ctrl-C and confirms half a second later: the question shows at once (not
    # at the person's next turn), and the match ends as soon as the engine has moved,
    # without waiting for the person to be asked anything else.
    from bidref.players.human import WatchedEngineSeat

    def policy(m: ScreenModel, sit: tuple[object, ...]) -> tuple[int, str] | None:
        if sit[0] == "pause":
            return SECOND // 10, "\n"
        if sit[0] == "ask":
            return SECOND // 5, "1\n"
        if sit[0] == "thinking":
            return SECOND, "\x03"
        if sit[0] == "confirm":
            return SECOND // 2, "y\n"
        return None

    clock, display, keys, session = _setup(policy, [0])
    engine = FirstLegalSeat(clock, think=5 * SECOND)
    seats: list[Seat] = [HumanSeat(session, 0), WatchedEngineSeat(engine, session)]
    spec = MatchSpec(
        engines=(HUMAN, EngineSpec(name="first", command=("x",))),
        seed=3,
        time_control=TimeControl.of_seconds(60, 10),
        eager_events=True,
    )
    path = tmp_path / "t.jsonl"

    def observe(state: LiveState) -> None:  # as `bidref play` does
        session.on_state(state.banks_ns, state.to_act, state.balances, state.turn)

    outcome = run_match(spec, seats=seats, clock=clock, transcript_path=path, observer=observe)
    assert (outcome.winner, outcome.reason, outcome.rated) == (1, "resign", True)
    ctrl_c = next(t for t, chars in keys.typed if chars == "\x03")
    confirmed = next(t for t, chars in keys.typed if chars == "y\n")
    asked = [
        m
        for m, t in zip(display.models, display.times, strict=True)
        if "Resign the match?" in m.ask.message and ctrl_c <= t < confirmed
    ]
    assert asked and all(m.table.to_act == 1 for m in asked)  # asked while the engine thinks
    recs = _records(path)
    resign = next(r for r in recs if r["type"] == "resign")
    assert resign["seat"] == 0
    before = [r for r in recs if r["type"] in ("request", "reply") and r["seq"] < resign["seq"]]
    # The engine's move came, then the person's request was answered at once with the
    # resignation (the referee reads it when it next waits for that player).
    assert [(r["type"], r["seat"]) for r in before[-2:]] == [("reply", 1), ("request", 0)]
    assert resign["t_ns"] == before[-1]["t_ns"] == before[-2]["t_ns"]
    assert before[-2]["t_ns"] < confirmed + 5 * SECOND  # the engine's first thought
    assert recs[-1]["type"] == "result" and recs[-1]["reason"] == "resign"
    assert replay(path.read_bytes()).ok


def test_resigning_at_the_start_pause_gives_a_transcript_that_replays(tmp_path: Path) -> None:
    # Ctrl-C and y at "Press Enter to start": the resignation is read when the referee
    # next waits for this player (as the protocol says), so replay accepts it.
    from .fakes import ScriptKeys

    for human in (0, 1):
        clock = FakeClock()
        display = RecordingDisplay(clock)
        keys = ScriptKeys(clock, [(clock.t + SECOND, "\x03"), (clock.t + 2 * SECOND, "y\n")])
        session = PlaySession(
            keys=keys,
            display=display,
            clock=clock,
            humans=[human],
            names=("human", "first") if human == 0 else ("first", "human"),
        )
        engine = FirstLegalSeat(clock)
        seats: list[Seat] = (
            [HumanSeat(session, 0), engine] if human == 0 else [engine, HumanSeat(session, 1)]
        )
        engines = (HUMAN, EngineSpec(name="first", command=("x",)))
        spec = MatchSpec(
            engines=engines if human == 0 else engines[::-1],
            seed=3,
            time_control=TimeControl.of_seconds(30, 5),
            eager_events=True,
        )
        path = tmp_path / f"t{human}.jsonl"
        outcome = run_match(spec, seats=seats, clock=clock, transcript_path=path)
        assert (outcome.winner, outcome.reason) == (1 - human, "resign"), outcome.summary()
        report = replay(path.read_bytes())
        assert report.ok and report.truncated is None, report.problem
        assert any("Resign the match?" in m.ask.message for m in display.models)


def test_the_end_of_round_screen_shows_the_round_as_it_ended(tmp_path: Path) -> None:
    clock, display, _keys, session = _setup(first_legal(), [0])
    seats: list[Seat] = [HumanSeat(session, 0), FirstLegalSeat(clock)]
    path = tmp_path / "t.jsonl"
    spec = MatchSpec(
        engines=(HUMAN, EngineSpec(name="first", command=("x",))),
        seed=3,
        time_control=TimeControl.of_seconds(100, 10),
        max_rounds=2,
        eager_events=True,
    )

    def observe(state: LiveState) -> None:
        session.on_state(state.banks_ns, state.to_act, state.balances, state.turn)

    outcome = run_match(spec, seats=seats, clock=clock, transcript_path=path, observer=observe)
    assert outcome.reason in ("round_limit", "balance"), outcome.summary()
    events = [r["event"] for r in _records(path) if r["type"] == "event"]
    ended = next(e for e in events if e["kind"] == "round_ended")  # type: ignore[index]
    before = events[: events.index(ended)]
    # The layout as the round ended: every tile the transcript says was placed in it.
    final = [tile(*e["tile"]) for e in before if e["kind"] == "placed"]  # type: ignore[misc]
    transfers = [e["balances"] for e in before if e["kind"] == "transfer"]
    balances = transfers[-1] if transfers else [150, 150]
    counts = [mo for mo in display.models if mo.ask.footer == "Press Enter to continue"]
    assert counts, "no end-of-round screen"
    for mo in counts:
        assert mo.table.round == 1 and mo.table.phase == "round over"
        assert mo.table.to_act is None and mo.clocks.running is None
        assert "thinking" not in mo.ask.message
        assert mo.ask.overlay is None  # the layout shows, the count above it
        assert str(getattr(mo.ask.notice, "plain", "")).startswith("Round 1 is over")
        assert sorted(mo.table.layout.placed, key=lambda t: t.index) == sorted(
            final, key=lambda t: t.index
        )
        assert mo.table.hand_sizes == tuple(len(h) for h in ended["hands"])  # type: ignore[index]
        assert mo.own.hand == tuple(tile(a, b) for a, b in ended["hands"][0])  # type: ignore[index]
        assert list(mo.table.balances) == balances


def test_a_drawn_tile_shows_in_its_drawers_hand_only(tmp_path: Path) -> None:
    """Hot-seat: the tile a player draws is highlighted in their hand, at once; the
    other player never sees it (the log says only that a tile was drawn)."""
    clock, display, _keys, session = _setup(first_legal(), [0, 1])
    seats: list[Seat] = [HumanSeat(session, 0), HumanSeat(session, 1)]
    path = tmp_path / "t.jsonl"
    run_match(_spec(11, 100, 10, 2), seats=seats, clock=clock, transcript_path=path)
    draws = [r for r in _records(path) if r["type"] == "reply" and r["action"] == "draw"]
    assert draws, "the scenario has no draw any more: pick another seed"
    fresh = [mo for mo in display.models if mo.own.fresh]
    assert fresh
    for mo in fresh:
        assert mo.own.hand is not None and mo.own.viewer is not None
        assert set(mo.own.fresh) <= set(mo.own.hand)
        assert mo.table.drawn >= len(mo.own.fresh)  # the header counts the draw at once
    # Which tile was drawn is never in the shared log.
    assert all("drew [" not in line for mo in display.models for line in mo.table.log)
