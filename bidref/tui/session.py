"""The terminal shared by the human seats of one match, and its hand-over rules.

One :class:`PlaySession` drives one terminal. Each human seat
(:class:`bidref.players.human.HumanSeat`) forwards what the referee tells it
(hello, events, requests, errors, quit) and asks the session for the person's
answer. Through its screen state it keeps the public picture of the match
(layout, balances, auction, log) and each human's own hand, and it decides what
the screen may show:

- **Start / Continue** (RULES.md §7): at the first deal and after every
  end-of-round count the session waits for Enter before it returns to the
  referee, so no request is written — and no clock runs — until the person
  presses it.
- **Hot-seat hand-over** (two humans, one device): a request for the player
  who does not hold the device first shows a screen without any hand that asks
  that player to take the device and press Enter. The request's time starts only
  when the hand is revealed (the seat returns that moment to the referee as the
  time the request was delivered). After every accepted entry the hand is hidden
  at once. When the opponent's forced pass gives the turn straight back to the
  player who just moved, there is no hand-over: that player's clock runs at once,
  and the hand shows at their Enter (the device may already be on its way).
- **Input** (:meth:`PlaySession.ask`): read keys against the absolute deadline,
  resolve the line (:mod:`bidref.tui.entry`); a problem is shown and changes
  nothing; ``rules`` (all of the rules, ``rules 7`` opened at §7) and ``help``
  show a scrollable text instead of the layout while the clock keeps running
  (arrows, PgUp/PgDn, Home/End; q, Esc or an empty Enter closes it); Ctrl-C
  asks for confirmation and then resigns.
- **End of a round**: the count is shown above the round's final layout, with
  nobody to act, before the next deal (sent in the same batch) is taken.
- **While an engine thinks** (:meth:`PlaySession.watch`): Ctrl-C asks at once. A
  resignation confirmed when the referee is not waiting for that player (at a
  pause, a hand-over, during the engine's turn) is kept pending and the seat
  answers its next request with it, as the protocol reads a ``resign``.

The session holds three parts and the decisions between them: what the screen
knows and shows (:class:`~.state.ScreenState`: the public table, the private
hands, the clocks, the message), the keyboard (:class:`~.reader.KeyReader`),
and its own state — who holds the device, a resignation pending, the round
whose start was confirmed.

No real time is read here: the clock, the keys and the display are injected.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from rich.markdown import Markdown
from rich.text import Text

from ..rules import Action, Draw, Layout
from ..rules.clock import MILLISECOND
from ..rules_text import find_section, rules_text, section_titles
from .entry import Chosen, Command, Problem, complete, resolve
from .keys import Interrupt, Key, Keys, LineEditor, Submit
from .reader import KeyReader
from .screen import Clocks, Running, ScreenModel, Scroll, player_name
from .state import Display, ScreenState

__all__ = ["HELP", "Answer", "Display", "PlaySession", "Resigned", "ScreenModel"]

log = logging.getLogger(__name__)

Clock = Callable[[], int]
TICK: Final = 250 * MILLISECOND  # how often the input loop wakes without a key


class Resigned(Exception):
    """The person confirmed resigning the match."""


@dataclass(frozen=True, slots=True)
class Answer:
    """The person's action (canonical text), stamped when Enter was read."""

    action: str
    t: int


HELP = """\
How to answer:
  a number        pick that action from the numbered list, e.g. 3
  an action       decline, accept, bid 20, open 3-6, draw, play 1-3 1-1:branch_b
                  variants work too: raise 25, [1|3] at [1|1] branch B, 13 at 11 bb
  a unique start  de → decline, dr → draw, a → accept, play 4 → the only play of a 4-…
  a tile          1-3 plays [1|3] when it has only one place to go; 12 at 26 plays
                  [1|2] at [2|6] when only one side of [2|6] takes it
  Tab             completes the action you are typing
  rules [topic]   shows all of the rules; rules 7 or rules clock opens them at that
                  section; the clock keeps running
  help            shows this text
  Ctrl-C          resign the match (asks first)
↑ ↓ PgUp PgDn Home End scroll this text; q, Esc or Enter on an empty line closes it."""


class PlaySession:
    """The shared terminal of one match. ``humans``: the seats a person plays."""

    def __init__(
        self,
        *,
        keys: Keys,
        display: Display,
        clock: Clock,
        humans: Sequence[int],
        names: tuple[str, str],
    ) -> None:
        self.clock = clock
        self.humans = tuple(sorted(humans))
        self.hot_seat = len(self.humans) == 2
        self.names = names
        self.primary = self.humans[0]  # public events are taken from this seat's copy
        self.screen = ScreenState(
            display, clock, names, self.humans, None if self.hot_seat else self.humans[0]
        )
        self.input = KeyReader(keys)
        # Hot-seat: the player who revealed their hand last in this round (the device
        # is with them), and a player whose turn came straight back to them (the
        # opponent's forced pass): no hand-over, so their clock runs, but their hand
        # waits for their Enter.
        self._device: int | None = None
        self._reveal: int | None = None
        # A resignation confirmed when the referee was not waiting for that player (at
        # a pause, a hand-over, while the engine thinks): the seat answers the next
        # request with it (the protocol's rule: it is read when the referee next waits
        # for the player), without asking anything more.
        self.resign_pending: int | None = None
        self.resigned: int | None = None
        self._continued_round = 0  # the round whose start the person already confirmed

    # -- what the screen shows -------------------------------------------------------------

    @property
    def layout(self) -> Layout:
        return self.screen.table.layout

    @property
    def over(self) -> bool:
        return self.screen.table.over

    @property
    def last_round_end(self) -> Text | None:
        return self.screen.table.last_round_end

    def model(self, **kw: Any) -> ScreenModel:
        return self.screen.model(**kw)

    def show(self, **kw: Any) -> None:
        self.screen.show(**kw)

    def _note(self, text: str, style: str = "bold red") -> None:
        self.screen.note(text, style)

    # -- the referee's messages -------------------------------------------------------------

    def on_hello(self, seat: int, bank_ms: int, delay_ms: int) -> None:
        self.screen.set_clock_settings(bank_ms, delay_ms)
        self.show()

    def on_state(
        self, banks: tuple[int, int], to_act: int | None, balances: tuple[int, int], turn: int
    ) -> None:
        """The referee's snapshot after an accepted action (its observer hook):
        exact banks; the clock of an engine to act is shown running from now."""
        sc, tb = self.screen, self.screen.table
        now = self.clock()
        running: Running | None = None
        prev = sc.clocks.running
        turn_changed = turn != tb.turn
        if turn_changed:
            tb.turn, tb.drawn = turn, 0
        if to_act is not None and to_act not in self.humans:
            if prev is not None and prev.player == to_act and not turn_changed:
                running = prev
            else:
                running = Running(to_act, now, sc.delay)
        sc.clocks = Clocks(banks, sc.delay, running)
        tb.balances = balances
        tb.to_act = to_act
        if self.input.watch_confirming or self.resign_pending is not None:
            pass  # the question (or the answer) about resigning stays on screen
        elif to_act is not None and to_act not in self.humans and not tb.over:
            self._note(self._thinking_text(to_act), "dim")
        elif sc.message.endswith("is thinking…"):
            self._note("")
        self.show()

    def _thinking_text(self, p: int) -> str:
        return f"{player_name(p)} ({self.names[p]}) is thinking…"

    def watch(self) -> None:
        """While an engine thinks (:class:`~bidref.players.human.WatchedEngineSeat`
        calls this between short waits): take what was typed, without waiting.

        Ctrl-C asks at once whether to resign. A confirmed resignation cannot stop
        the engine's turn (the referee waits for its move), so it takes effect as
        soon as the engine has moved: the person's seat answers its next request
        with it. Anything else typed now is dropped, as it is at the next question.
        """
        if self.hot_seat or self.over or self.resign_pending is not None:
            return
        seat = self.humans[0]
        inp = self.input
        editor = inp.watch
        before = (editor.text, inp.watch_confirming)
        while events := inp.read(editor, self.clock()):
            for ev in events:
                if isinstance(ev, Interrupt):
                    inp.watch_confirming = True
                    editor.clear()  # the answer to the question is what comes next
                    self._note(
                        self._confirm_text(seat) + " (The match ends once "
                        f"{player_name(1 - seat)} has moved.)",
                        "bold yellow",
                    )
                elif inp.watch_confirming and isinstance(ev, Submit):
                    inp.watch_confirming = False
                    if ev.text.strip().lower() in ("y", "yes"):
                        self._resign_later(
                            seat,
                            f"{player_name(seat)} resigns: the match "
                            f"ends as soon as {player_name(1 - seat)} "
                            f"({self.names[1 - seat]}) has moved.",
                        )
                        return
                    self._note(self._thinking_text(1 - seat), "dim")
        if (editor.text, inp.watch_confirming) != before:
            self.show(prompt=editor.text if inp.watch_confirming else None)

    def _resign_later(self, seat: int, message: str) -> None:
        """``seat`` resigned while the referee was not waiting for it (see
        ``resign_pending``)."""
        self.resign_pending = self.resigned = seat
        self._note(message, "bold red")
        self.show()

    def on_events(self, seat: int, events: list[dict[str, Any]]) -> None:
        """A batch of events for ``seat``. Public effects are taken once (from the
        primary human's copy); private ones (own placements, own draws) per seat.

        A round that ends is shown as it ended — its final layout, hands and balances,
        nobody to act — and the person continues before the events after it (the next
        deal, in the same batch) are taken."""
        hands = self.screen.hands
        if seat != self.primary:
            for ev in events:
                hands.apply(seat, ev)
            return
        kinds = [ev.get("kind") for ev in events]
        cut = len(events)
        if "match_ended" not in kinds and "round_ended" in kinds:
            cut = kinds.index("round_ended") + 1
        for batch in (events[:cut], events[cut:]):
            if batch:
                self._take(seat, batch)

    def _take(self, seat: int, events: list[dict[str, Any]]) -> None:
        tb = self.screen.table
        for ev in events:
            self.screen.hands.apply(seat, ev)
            if ev.get("kind") == "round_started":
                self.screen.stop_clocks()
            tb.apply(ev, self.names)
        kinds = [ev.get("kind") for ev in events]
        if "round_ended" in kinds:
            self.screen.stop_clocks()
            if self.resign_pending is None:
                self._note("")  # (no engine is thinking any more)
            if self.hot_seat:
                self.screen.holder = None  # the next hand shows only after a reveal
                self._device = None  # after the count: a hand-over, clocks stopped
        self.show()
        if "match_ended" in kinds or self.resign_pending is not None:
            return  # (a player who resigned is not asked to continue)
        if "round_ended" in kinds:
            ended = next(ev for ev in events if ev.get("kind") == "round_ended")
            self._pause(
                seat, "Press Enter to continue", notice=tb.round_end_text(ended, self.names)
            )
            # (the next deal waits for its own Enter: the person sees the new hand
            # before any clock runs, docs/play.md "When the clocks stand still")
        elif "round_started" in kinds and self._continued_round < tb.round:
            self._continued_round = tb.round
            if not self.hot_seat:  # hot-seat: revealing the hand is the start
                self._pause(
                    seat,
                    "Press Enter to start",
                    overlay=Text(
                        f"Round {tb.round} is dealt. The clocks stand still until you start.",
                        style="bold",
                    ),
                )

    def on_request(
        self,
        seat: int,
        view: dict[str, Any],
        legal: Sequence[str],
        delay_left_ms: int,
        bank_ms: int,
        opponent_bank_ms: int,
    ) -> int:
        """A request for ``seat``: returns the clock time the person's time starts."""
        sc = self.screen
        sc.hands.take_request(seat, view, legal)
        sc.table.take_view(seat, view)
        banks = (bank_ms, opponent_bank_ms) if seat == 0 else (opponent_bank_ms, bank_ms)
        sc.clocks = Clocks((banks[0] * MILLISECOND, banks[1] * MILLISECOND), sc.delay)
        if self.resign_pending == seat:
            pass  # nothing more to ask: the seat answers with the resignation
        elif sc.holder != seat:
            if self.hot_seat and self._device == seat:
                # The opponent's forced pass gave the turn straight back: no hand-over,
                # so the clock runs (RULES.md §7); the hand shows at this player's
                # Enter (ask), in case the device is already on its way.
                self._reveal = seat
            else:
                self._hand_over(seat)
        start = self.clock()
        sc.clocks = Clocks(
            sc.clocks.banks, sc.delay, Running(seat, start, delay_left_ms * MILLISECOND)
        )
        self._note("")
        return start

    def _hand_over(self, seat: int) -> None:
        """Hot-seat: hide every hand and wait until ``seat``'s player reveals theirs."""
        self.screen.holder = None
        self.screen.stop_clocks()
        self.input.drain()  # a key typed by the previous player must not reveal anything
        name = f"{player_name(seat)} ({self.names[seat]})"
        text = Text(f"Hand over the device to player {name}.\n\n", style="bold yellow")
        text.append(
            f"Player {name}: when the other player cannot see the screen, "
            "press Enter to reveal your hand.\nThe clocks stand still until then."
        )
        self._note("")
        self._wait_enter(
            seat, f"Player {player_name(seat)}: press Enter to reveal your hand", overlay=text
        )
        if self.resign_pending is None:
            self.screen.holder = self._device = seat

    def _pause(
        self, seat: int, footer: str, *, overlay: Text | None = None, notice: Text | None = None
    ) -> None:
        self.screen.stop_clocks()
        self.input.drain()
        self._wait_enter(seat, footer, overlay=overlay, notice=notice)

    def _wait_enter(
        self,
        seat: int,
        footer: str,
        *,
        overlay: Text | None = None,
        notice: Text | None = None,
        deadline: int | None = None,
    ) -> bool:
        """Wait for Enter; Ctrl-C may resign for ``seat`` (the player this wait is
        for). With no ``deadline`` the clocks stand still; with one, ``seat``'s clock
        runs and False means the time ran out first."""
        editor = LineEditor()
        confirming = False
        self.show(overlay=overlay, notice=notice, footer=footer)
        while True:
            now = self.clock()
            if deadline is not None and now >= deadline:
                return False
            until = now + TICK if deadline is None else min(deadline, now + TICK)
            for ev in self.input.read(editor, until):
                if isinstance(ev, Interrupt):
                    confirming = True
                    editor.clear()  # the answer to the question is what comes next
                    self._note(
                        self._confirm_text(seat, running=deadline is not None), "bold yellow"
                    )
                elif isinstance(ev, Submit):
                    if confirming:
                        if ev.text.strip().lower() in ("y", "yes"):
                            self._resign_later(seat, f"{player_name(seat)} resigns.")
                            return True
                        confirming = False
                        self._note("")
                    else:
                        return True
            self.show(
                overlay=overlay,
                notice=notice,
                footer=footer,
                prompt=editor.text if confirming else None,
            )

    def _confirm_text(self, seat: int, running: bool = False) -> str:
        who = f"Player {player_name(seat)}: r" if self.hot_seat else "R"
        return f"{who}esign the match? Type y and Enter to resign, anything else to go on." + (
            " (Your clock is running.)" if running else ""
        )

    def _resign(self, seat: int) -> None:
        self.resigned = seat
        self._note(f"{player_name(self.resigned)} resigns.", "bold red")
        self.show()
        raise Resigned()

    # -- the person's answer ----------------------------------------------------------------

    def ask(self, seat: int, deadline: int) -> Answer | None:
        """Read the person's action for ``seat`` until the absolute ``deadline``.
        Returns None when the time is out; raises :class:`Resigned`."""
        sc = self.screen
        legal = sc.hands.legal[seat]
        hand = sc.hands.hands.get(seat) or ()
        # Keys typed before this question was on screen (e.g. while the engine was
        # thinking) were typed for another list of actions: drop them (not Ctrl-C).
        self.input.drain()
        if self._reveal == seat and not self._reveal_running(seat, deadline):
            self._time_out(seat)
            return None
        if self.resign_pending == seat:  # (confirmed instead of revealing)
            raise Resigned()
        editor = LineEditor(lambda text: complete(text, legal))
        overlay: Scroll | None = None  # the rules or the help, shown instead of the layout
        confirming = False
        footer = "number / action / Tab to complete · rules [topic] · help · Ctrl-C resigns"
        while True:
            if overlay is not None and editor.text.strip().lower() == "q":
                overlay = None  # q closes the text (no action starts with q)
                editor.clear()
                self._note("")
            self.show(prompt=editor.text, overlay=overlay, footer=footer, legal=legal)
            now = self.clock()
            if now >= deadline:
                self._time_out(seat)
                return None
            events = self.input.read(editor, min(deadline, now + TICK))
            t = self.clock()
            for ev in events:
                if isinstance(ev, Interrupt):
                    confirming = True
                    editor.clear()  # the answer to the question is what comes next
                    self._note(self._confirm_text(seat, running=True), "bold yellow")
                    continue
                if isinstance(ev, Key):
                    if overlay is not None and ev.name == "esc":
                        overlay = None
                        self._note("")
                    elif overlay is not None:
                        overlay.scroll(ev.name)
                    continue
                text = ev.text
                if confirming:
                    confirming = False
                    self._note("")
                    if text.strip().lower() in ("y", "yes"):
                        sc.clocks = sc.clocks.stopped(t)
                        self._resign(seat)
                    continue
                if not text.strip() and overlay is not None:
                    overlay = None
                    self._note("")
                    continue
                r = resolve(text, legal, hand)
                if isinstance(r, Chosen):
                    if t >= deadline:
                        continue  # too late: the loop reports the time out
                    return self._chosen(seat, r.action, t)
                if isinstance(r, Command):
                    if r.name == "resign":
                        confirming = True
                        self._note(self._confirm_text(seat, running=True), "bold yellow")
                    else:
                        overlay = self._help_text(r.name, r.arg)
                        self._note(
                            "The clock keeps running while you read (an action typed now "
                            "is taken).",
                            "yellow",
                        )
                    continue
                assert isinstance(r, Problem)
                self._note(r.message)

    def _reveal_running(self, seat: int, deadline: int) -> bool:
        """The turn came straight back to ``seat`` (the opponent's forced pass): show
        the hand at the player's Enter while the clock runs; False: time ran out."""
        name = f"{player_name(seat)} ({self.names[seat]})"
        other = player_name(1 - seat)
        text = Text(
            f"{other} cannot play or draw and passes: it is player {name}'s turn again.\n\n",
            style="bold yellow",
        )
        text.append(
            f"Player {name}: press Enter to reveal your hand.\nThere is no "
            "hand-over, so your clock is running."
        )
        self._note("")
        revealed = self._wait_enter(
            seat,
            f"Player {player_name(seat)}: press Enter to reveal your hand (your clock is running)",
            overlay=text,
            deadline=deadline,
        )
        self._reveal = None
        if revealed and self.resign_pending is None:
            self.screen.holder = self._device = seat
        return revealed

    def _time_out(self, seat: int) -> None:
        self._note(f"{player_name(seat)}'s time is out.", "bold red")
        self.screen.stop_clocks()
        self.show()

    def _chosen(self, seat: int, action: Action, t: int) -> Answer:
        sc = self.screen
        sc.clocks = sc.clocks.stopped(t)
        self._note(f"{player_name(seat)}: {action}", "bold green")
        if self.hot_seat and not isinstance(action, Draw):
            # The turn is over: hide the hand at once. (A draw keeps the turn: the
            # same player decides again, on the same clock, with the device.)
            sc.holder = None
            self.input.drain()
        self.show()
        return Answer(str(action), t)

    def _help_text(self, name: str, arg: str) -> Scroll:
        """The help, or the whole rules (rendered, scrollable; ``rules 7`` opens them at
        §7); a topic that matches no section lists the sections."""
        if name == "help":
            return Scroll(Text(HELP), HELP)
        text = rules_text()
        section = find_section(arg) if arg else None
        if arg and section is None:
            body = (
                f"No rules section matches {arg!r}.\nSections: "
                + "; ".join(section_titles())
                + "\nType 'rules' for all of the rules, 'rules 7' or 'rules clock' to open "
                "them at one section."
            )
            return Scroll(Text(body), body)
        anchor = section.splitlines()[0].removeprefix("## ") if section else None
        return Scroll(Markdown(text), text, anchor=anchor)

    def on_error(self, seat: int, message: str) -> None:
        self._note(message)
        self.show()

    def on_quit(self, seat: int) -> None:
        self.screen.table.over = True
        self.screen.stop_clocks()
        if self.hot_seat:
            self.screen.holder = None
        self.show()
