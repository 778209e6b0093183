"""The session's state machine on a fake clock: hand-over, pauses, input deadline."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from bidref.rules import SECOND, Match
from bidref.rules.view import player_view
from bidref.rules_text import rules_text
from bidref.tui.screen import Clocks, ScreenModel, Scroll, fit
from bidref.tui.session import PlaySession, Resigned

from .fakes import FakeClock, RecordingDisplay, ScriptKeys

T0 = 1_000 * SECOND


def _session(
    script: list[tuple[int, str]], humans: list[int]
) -> tuple[FakeClock, RecordingDisplay, PlaySession]:
    clock = FakeClock(T0)
    display = RecordingDisplay(clock)
    display.show(ScreenModel(names=("a", "b"), clocks=Clocks((0, 0), 0)))
    s = PlaySession(
        keys=ScriptKeys(clock, script),
        display=display,
        clock=clock,
        humans=humans,
        names=("ann", "bob"),
    )
    s.on_hello(0, 30_000, 5_000)
    return clock, display, s


def _request(s: PlaySession, m: Match) -> int:
    v = player_view(m, m.to_act).to_dict()
    return s.on_request(m.to_act, v, [str(a) for a in m.legal_actions()], 5_000, 30_000, 30_000)


def test_hand_over_hides_hands_and_starts_the_time_at_the_reveal() -> None:
    m = Match.new(seed=2)
    script = [
        (T0 + 1 * SECOND, "x"),  # typed ahead by the previous player: dropped
        (T0 + 40 * SECOND, "\x03"),
        (T0 + 41 * SECOND, "n\n"),  # no resignation
        (T0 + 50 * SECOND, "\n"),
    ]
    clock, display, s = _session(script, [0, 1])
    clock.advance(2 * SECOND)
    start = _request(s, m)
    assert start == T0 + 50 * SECOND == clock.t
    during = [mo for mo in display.models[1:] if mo.ask.footer.startswith("Player ")]
    assert during and all(mo.own.hand is None and mo.clocks.running is None for mo in during)
    who = "AB"[m.to_act]
    assert any(f"Player {who}: resign the match?" in mo.ask.message for mo in during)
    assert s.screen.holder == m.to_act
    after = s.model()
    assert after.own.hand == tuple(m.hands[m.to_act]) and after.own.viewer == m.to_act
    assert after.clocks.running is not None and after.clocks.running.since == start


def test_no_hand_over_when_the_same_player_holds_the_device() -> None:
    m = Match.new(seed=2)
    clock, display, s = _session([(T0 + SECOND, "\n")], [0, 1])
    _request(s, m)
    n = len(display.models)
    t = clock.t
    assert _request(s, m) == t  # e.g. after a draw: straight back to the same player
    assert not any(mo.ask.footer.startswith("Player ") for mo in display.models[n:])


def test_ask_returns_none_exactly_at_the_deadline() -> None:
    m = Match.new(seed=2)
    clock, _, s = _session([], [m.to_act])
    start = _request(s, m)
    assert s.ask(m.to_act, start + 5 * SECOND) is None
    assert clock.t == start + 5 * SECOND


def test_answer_is_stamped_when_enter_is_read() -> None:
    m = Match.new(seed=2)
    _clock, _display, s = _session([(T0 + 3 * SECOND, "1"), (T0 + 4 * SECOND, "\n")], [m.to_act])
    _request(s, m)
    answer = s.ask(m.to_act, T0 + 100 * SECOND)
    assert answer is not None
    assert (answer.action, answer.t) == (str(m.legal_actions()[0]), T0 + 4 * SECOND)


def test_too_late_is_too_late() -> None:
    m = Match.new(seed=2)
    _clock, _, s = _session([(T0 + 5 * SECOND, "1\n")], [m.to_act])
    _request(s, m)
    assert s.ask(m.to_act, T0 + 5 * SECOND) is None


def test_confirmed_ctrl_c_resigns() -> None:
    m = Match.new(seed=2)
    _clock, _display, s = _session([(T0 + SECOND, "\x03"), (T0 + 2 * SECOND, "yes\n")], [m.to_act])
    _request(s, m)
    with pytest.raises(Resigned):
        s.ask(m.to_act, T0 + 100 * SECOND)
    assert s.resigned == m.to_act


def test_start_pause_waits_for_enter_with_the_clocks_stopped() -> None:
    clock, display, s = _session([(T0 + 30 * SECOND, "\n")], [1])
    s.on_events(1, [{"kind": "round_started", "round": 1, "opening": "forced", "jockey": None}])
    assert clock.t == T0 + 30 * SECOND
    paused = [mo for mo in display.models if "to start" in mo.ask.footer]
    assert paused and all(mo.clocks.running is None and mo.own.hand is None for mo in paused)


def test_ctrl_c_typed_ahead_survives_the_drain_before_a_pause() -> None:
    # Ctrl-C pressed while the engine was thinking, with other keys: the keys are
    # dropped, the Ctrl-C asks for confirmation at the pause.
    clock, display, s = _session([(T0, "x\x03\n"), (T0 + 2 * SECOND, "y\n")], [1])
    clock.advance(SECOND)
    s.on_events(1, [{"kind": "round_started", "round": 1, "opening": "forced", "jockey": None}])
    assert any("Resign the match?" in mo.ask.message for mo in display.models)
    # (the seat answers its next request with the resignation)
    assert s.resign_pending == s.resigned == 1


def test_ctrl_c_in_the_middle_of_typing_asks_about_what_comes_next() -> None:
    m = Match.new(seed=2)
    _clock, _display, s = _session([(T0 + SECOND, "pla\x03"), (T0 + 2 * SECOND, "y\n")], [m.to_act])
    _request(s, m)
    with pytest.raises(Resigned):
        s.ask(m.to_act, T0 + 100 * SECOND)


def test_ctrl_c_at_a_hand_over_resigns_the_player_taking_the_device() -> None:
    m = Match.new(seed=2)
    _, display, s = _session([(T0 + SECOND, "\x03"), (T0 + 2 * SECOND, "y\n")], [0, 1])
    _request(s, m)
    assert s.resigned == s.resign_pending == m.to_act
    assert all(mo.own.hand is None for mo in display.models)  # no hand shown on the way out


def test_keys_typed_before_the_question_are_dropped() -> None:
    m = Match.new(seed=2)
    m.apply(m.legal_actions()[0])  # a position with more than one legal action
    assert len(m.legal_actions()) > 1
    _, _, s = _session([(T0, "1\n"), (T0 + 2 * SECOND, "2\n")], [m.to_act])
    _request(s, m)
    answer = s.ask(m.to_act, T0 + 100 * SECOND)
    assert answer is not None and answer.action == str(m.legal_actions()[1])


def _passed_back(
    script: list[tuple[int, str]],
) -> tuple[FakeClock, RecordingDisplay, PlaySession, Match, int]:
    """A hot-seat session where the player to act revealed, answered, and the turn
    came straight back (the opponent's forced pass); returns the new request's start."""
    m = Match.new(seed=2)
    clock, display, s = _session([(T0 + SECOND, "\n"), *script], [0, 1])
    _request(s, m)  # the hand-over: revealed at T0 + 1 s
    s.screen.holder = None  # the answer hid the hand ...
    return clock, display, s, m, _request(s, m)  # ... and the turn is back


def test_a_turn_passed_back_starts_the_clock_at_once_and_reveals_at_enter() -> None:
    _clock, display, s, m, start = _passed_back([(T0 + 3 * SECOND, "\n"), (T0 + 4 * SECOND, "1\n")])
    assert start == T0 + SECOND  # no waiting: the clock runs from the request
    answer = s.ask(m.to_act, start + 35 * SECOND)
    assert answer is not None and answer.t == T0 + 4 * SECOND
    hidden = [mo for mo in display.models if "your clock is running" in mo.ask.footer]
    assert hidden and all(mo.own.hand is None and mo.clocks.running is not None for mo in hidden)
    assert any(mo.own.hand is not None and mo.ask.prompt is not None for mo in display.models)


def test_a_turn_passed_back_times_out_while_the_hand_is_hidden() -> None:
    clock, display, s, m, start = _passed_back([])
    assert s.ask(m.to_act, start + 2 * SECOND) is None
    assert clock.t == start + 2 * SECOND and "time is out" in display.last.ask.message


def test_resigning_instead_of_revealing_a_passed_back_turn() -> None:
    _clock, display, s, m, start = _passed_back(
        [(T0 + 2 * SECOND, "\x03"), (T0 + 3 * SECOND, "y\n")]
    )
    with pytest.raises(Resigned):
        s.ask(m.to_act, start + 35 * SECOND)
    assert all(mo.own.hand is None for mo in display.models[-3:])


def test_rules_with_an_unknown_topic_lists_the_sections() -> None:
    m = Match.new(seed=2)
    _, display, s = _session([(T0 + SECOND, "rules xyz\n"), (T0 + 2 * SECOND, "1\n")], [m.to_act])
    _request(s, m)
    assert s.ask(m.to_act, T0 + 100 * SECOND) is not None
    shown = [
        str(getattr(mo.ask.overlay, "plain", ""))
        for mo in display.models
        if mo.ask.overlay is not None
    ]
    assert shown and "No rules section matches 'xyz'" in shown[-1]
    assert "The match clock" in shown[-1]  # the list of sections to choose from


def test_no_part_of_the_session_holds_more_than_fifteen_attributes() -> None:
    """The session is split along what changes together (STYLE.md): the public table,
    the private hands, the screen, the keyboard, and the session's own decisions."""
    _, _, s = _session([], [0, 1])
    parts = [s, s.screen, s.screen.table, s.screen.hands, s.input]
    assert [type(p).__name__ for p in parts] == [
        "PlaySession",
        "ScreenState",
        "Table",
        "Hands",
        "KeyReader",
    ]
    assert all(len(vars(p)) <= 15 for p in parts), {type(p).__name__: len(vars(p)) for p in parts}


def test_the_rules_open_whole_scroll_with_keys_and_close_with_q_or_esc() -> None:
    m = Match.new(seed=2)
    script = [
        (T0 + 1 * SECOND, "rules 7\n"),
        (T0 + 2 * SECOND, "\x1b[6~"),  # PgDn
        (T0 + 3 * SECOND, "\x1b[H"),  # Home
        (T0 + 4 * SECOND, "q"),
        (T0 + 5 * SECOND, "rules\n"),
        (T0 + 6 * SECOND, "\x1b"),  # Esc
        (T0 + 7 * SECOND, "1\n"),
    ]
    _, display, s = _session(script, [m.to_act])
    start = _request(s, m)
    answer = s.ask(m.to_act, T0 + 100 * SECOND)
    assert answer is not None and answer.action == str(m.legal_actions()[0])
    shown = [
        (t, mo.ask.overlay)
        for mo, t in zip(display.models, display.times, strict=True)
        if isinstance(mo.ask.overlay, Scroll)
    ]
    # The whole rules, opened at §7: every section is in the text shown.
    assert shown and all(o.plain == rules_text() for _, o in shown)
    assert shown[0][1].anchor == "7. The match clock"
    # Open from 1 s to 4 s (q), again from 5 s to 6 s (Esc); the clock ran all along.
    times = sorted({t for t, _ in shown})
    assert times[0] == T0 + SECOND and max(times) < T0 + 6 * SECOND
    assert not any(T0 + 4 * SECOND <= t < T0 + 5 * SECOND for t in times)
    assert all(mo.clocks.running is not None for mo in display.models if mo.ask.overlay is not None)
    assert all(mo.clocks.running.since == start for mo in display.models if mo.clocks.running)
    # 'q' closed the text and was not left in the line.
    seen = zip(display.models, display.times, strict=True)
    after_q = next(mo for mo, t in seen if t >= T0 + 4 * SECOND)
    assert after_q.ask.overlay is None and after_q.ask.prompt == ""


def test_scroll_keys_move_the_window_the_screen_measured() -> None:
    m = Match.new(seed=2)
    script = [
        (T0 + SECOND, "rules\n"),
        (T0 + 2 * SECOND, "\x1b[6~\x1b[B"),
        (T0 + 3 * SECOND, "1\n"),
    ]
    _, display, s = _session(script, [m.to_act])
    _request(s, m)
    scroll = None

    def measure(model: ScreenModel) -> None:  # as the live screen does at each redraw
        nonlocal scroll
        if isinstance(model.ask.overlay, Scroll):
            scroll = model.ask.overlay
            console = Console(width=80, height=24, file=io.StringIO(), color_system=None)
            fit(model, 0, console, console.options)

    show = display.show
    display.show = lambda model: (measure(model), show(model))[1]  # type: ignore[method-assign]
    assert s.ask(m.to_act, T0 + 100 * SECOND) is not None
    assert scroll is not None and scroll.total > 3 * scroll.page
    assert scroll.top == scroll.page + 1  # one page and one line down
