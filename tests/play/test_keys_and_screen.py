"""The line editor, the terminal key reader's deadline, the clock display and the
play screen (a snapshot at a fixed width and a fixed clock time)."""

from __future__ import annotations

import io
import os
import time

from rich.console import Console
from rich.text import Text
from syrupy.assertion import SnapshotAssertion

from bidref.rules import SECOND, Layout, parse_action, parse_tile, tile
from bidref.rules.layout import Side, point
from bidref.tui.keys import Interrupt, Key, LineEditor, Submit, TerminalKeys
from bidref.tui.screen import Clocks, Running, ScreenModel, Scroll, compose, fit, fmt_time


def test_line_editor_editing_keys() -> None:
    ed = LineEditor(completer=lambda text: text + "line")
    assert ed.feed("de") == [] and ed.text == "de"
    ed.feed("\t")
    assert ed.text == "deline"
    ed.feed("\x7f\x7f")
    assert ed.text == "deli"
    ed.feed("\x1b[D")  # an arrow key is ignored
    assert ed.text == "deli"
    ed.feed("\x15")  # Ctrl-U clears
    assert ed.text == ""
    ed.feed("play 1-3 x\x17")  # Ctrl-W deletes a word
    assert ed.text == "play 1-3 "
    assert ed.feed("\x03") == [Interrupt()]
    assert ed.feed("\r") == [Submit("play 1-3 ")]
    assert ed.text == ""
    assert ed.feed("a\nb\n") == [Submit("a"), Submit("b")]


def test_terminal_keys_never_wait_past_the_deadline() -> None:
    r, w = os.pipe()
    try:
        keys = TerminalKeys(r, time.monotonic_ns)
        with keys:  # not a terminal: the mode is left alone
            t0 = time.monotonic_ns()
            assert keys.read(t0 + SECOND // 20) == ""
            assert time.monotonic_ns() - t0 < SECOND  # returned at the deadline, not later
            assert keys.read(t0 - SECOND) == ""  # a past deadline: no wait at all
            os.write(w, "ä1\r".encode())
            assert keys.read(time.monotonic_ns() + SECOND) == "ä1\r"
            os.write(w, b"\xc3")  # half of a two-byte character
            assert keys.read(time.monotonic_ns() + SECOND) == ""
            os.write(w, b"\xa4x")
            assert keys.read(time.monotonic_ns() + SECOND) == "äx"
            os.write(w, b"typed ahead")
            assert keys.drain() == "typed ahead"
    finally:
        os.close(r)
        os.close(w)


def test_clocks_count_delay_then_bank() -> None:
    c = Clocks((10 * SECOND, 20 * SECOND), 2 * SECOND, Running(0, 100 * SECOND, 2 * SECOND))
    assert c.shown(0, 101 * SECOND) == (10 * SECOND, 1 * SECOND)
    assert c.shown(0, 105 * SECOND) == (7 * SECOND, 0)
    assert c.shown(1, 105 * SECOND) == (20 * SECOND, None)  # not running
    assert c.shown(0, 200 * SECOND) == (0, 0)
    stopped = c.stopped(105 * SECOND)
    assert stopped.running is None and stopped.banks == (7 * SECOND, 20 * SECOND)
    assert fmt_time(118_349_000_000) == "1:58.3"
    assert fmt_time(42 * SECOND) == "42.0 s"
    assert fmt_time(-5) == "0.0 s"


def _model() -> ScreenModel:
    lay = Layout()
    lay.open_tile(tile(6, 6))
    lay.place(tile(4, 6), point(tile(6, 6), Side.LINE_A))
    clocks = Clocks((120 * SECOND, 95 * SECOND), 10 * SECOND, Running(0, 50 * SECOND, 10 * SECOND))
    return ScreenModel(names=("human", "c_first"), clocks=clocks).but(
        balances=(150, 150),
        round=1,
        turn=3,
        phase="play",
        layout=lay,
        last=tile(4, 6),
        viewer=0,
        hand=tuple(parse_tile(t) for t in ("0-2", "0-4", "2-2", "4-4", "5-5")),
        hand_sizes=(5, 5),
        boneyard=14,
        auction="forced opening",
        to_act=0,
        legal=tuple(
            parse_action(a) for a in ("play 0-4 4-6:low", "play 4-4 4-6:low", "play 2-2 6-6:line_b")
        ),
        log=("B: open 6-6 — count 12", "A: play 4-6 6-6:line_a — count 16"),
        message="'zz' is not an action",
        prompt="pla",
        footer="Ctrl-C resigns",
    )


def _render(renderable: object, width: int = 90, height: int | None = None) -> str:
    out = io.StringIO()
    console = Console(
        width=width, height=height or 100, file=out, color_system=None, legacy_windows=False
    )
    console.print(renderable)
    return out.getvalue()


def test_play_screen_snapshot(snapshot: SnapshotAssertion) -> None:
    # 12.5 s into the turn: the 10 s delay is used up, and 2.5 s of the bank.
    text = _render(compose(_model(), 62_500_000_000))
    assert "A human (you)" in text and "delay 0.0 s + bank 1:57.5" in text
    assert "A's hand: [0|2] [0|4] [2|2] [4|4] [5|5]" in text
    assert text == snapshot


def test_hidden_hand_screen_shows_no_tile_of_any_hand() -> None:
    m = _model().but(viewer=None, hand=None, legal=(), prompt=None)
    text = _render(compose(m, 50 * SECOND))
    assert "(hands hidden)" in text
    assert "[0|2]" not in text and "[5|5]" not in text


def test_short_terminal_keeps_hand_prompt_and_footer() -> None:
    console = Console(width=60, height=16, file=io.StringIO(), color_system=None)
    r = fit(_model(), 50 * SECOND, console, console.options)
    lines = console.render_lines(r, console.options.update(height=None), pad=False)
    assert len(lines) <= 16
    text = "\n".join("".join(s.text for s in line) for line in lines)
    assert "A's hand:" in text and "> pla" in text and "Ctrl-C resigns" in text


def test_navigation_keys_come_out_as_key_events_and_leave_the_line_alone() -> None:
    ed = LineEditor()
    assert ed.feed("ru\x1b[5~\x1b[6~\x1b[A\x1bOB\x1b[H\x1b[4~les") == [
        Key("pgup"),
        Key("pgdn"),
        Key("up"),
        Key("down"),
        Key("home"),
        Key("end"),
    ]
    assert ed.text == "rules"
    assert ed.feed("\x1b[1;5D") == [] and ed.text == "rules"  # Ctrl-Left: ignored
    assert ed.feed("\x1b") == [] and ed.end_of_input() == [Key("esc")]
    assert ed.end_of_input() == []  # once
    assert ed.feed("\x1b[A") == [Key("up")] and ed.end_of_input() == []


def _window(scroll: Scroll, rows: int, width: int = 60) -> list[str]:
    console = Console(width=width, height=100, file=io.StringIO(), color_system=None)
    return ["".join(s.text for s in line) for line in scroll.window(console, console.options, rows)]


def test_a_scroll_shows_a_window_and_keeps_it_inside_the_text() -> None:
    body = "\n".join(f"line {i}" for i in range(1, 51))
    sc = Scroll(Text(body), body)
    shown = _window(sc, 11)
    assert shown[0] == "line 1" and shown[9] == "line 10" and len(shown) == 11
    assert shown[-1].startswith("lines 1–10 of 50")
    sc.scroll("pgdn")
    assert _window(sc, 11)[0] == "line 11"  # a page is the window's height
    sc.scroll("up")
    assert _window(sc, 11)[0] == "line 10"
    sc.scroll("end")
    shown = _window(sc, 11)
    assert shown[9] == "line 50" and shown[-1].startswith("lines 41–50 of 50")
    sc.scroll("pgdn")
    assert _window(sc, 11)[0] == "line 41"  # not past the end
    sc.scroll("home")
    sc.scroll("pgup")
    assert _window(sc, 11)[0] == "line 1"  # not before the start
    # A taller terminal shows all of it, without a status line.
    assert _window(sc, 60) == [f"line {i}" for i in range(1, 51)]
    # An anchor opens the text at that line.
    assert _window(Scroll(Text(body), body, anchor="line 23"), 11)[0] == "line 23"


def test_the_screen_gives_a_scroll_the_free_rows_and_keeps_the_prompt() -> None:
    body = "\n".join(f"line {i}" for i in range(1, 200))
    m = _model().but(overlay=Scroll(Text(body), body), legal=())
    console = Console(width=80, height=24, file=io.StringIO(), color_system=None)
    r = fit(m, 50 * SECOND, console, console.options)
    lines = console.render_lines(r, console.options.update(height=None), pad=False)
    text = "\n".join("".join(s.text for s in line) for line in lines)
    assert len(lines) <= 24
    assert "line 1\n" in text and "lines 1–" in text and "> pla" in text
    assert "Ctrl-C resigns" in text


def test_the_hand_highlights_the_tiles_just_drawn() -> None:
    m = _model().but(fresh=(parse_tile("2-2"),))
    text = _render(compose(m, 50 * SECOND))
    assert "A's hand: [0|2] [0|4] [2|2] [4|4] [5|5]  ← you drew [2|2]" in text
    assert "you drew" not in _render(compose(m.but(viewer=None, hand=None), 50 * SECOND))
