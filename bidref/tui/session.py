"""The terminal shared by the human seats of one match, and its hand-over rules.

One :class:`PlaySession` drives one terminal. Each human seat
(:class:`bidref.players.human.HumanSeat`) forwards what the referee tells it
(hello, events, requests, errors, quit) and asks the session for the person's
answer. The session keeps the public picture of the match (layout, balances,
auction, log) and each human's own hand, and decides what the screen may show:

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
  nothing; ``rules`` and ``help`` show text while the clock keeps running;
  Ctrl-C asks for confirmation and then resigns.
- **While an engine thinks** (:meth:`PlaySession.watch`): Ctrl-C asks at once. A
  resignation confirmed when the referee is not waiting for that player (at a
  pause, a hand-over, during the engine's turn) is kept pending and the seat
  answers its next request with it, as the protocol reads a ``resign``.

No real time is read here: the clock, the keys and the display are injected.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from rich.text import Text

from ..rules import Action, Draw, Layout, Open, Play, Tile, parse_action, tile
from ..rules.clock import MILLISECOND
from ..rules_text import rules_section, rules_text
from .entry import Chosen, Command, Problem, complete, resolve
from .keys import CTRL_C, EditEvent, Interrupt, Keys, LineEditor, Submit
from .screen import Clocks, Running, ScreenModel, player_name

log = logging.getLogger(__name__)

Clock = Callable[[], int]
TICK: Final = 250 * MILLISECOND  # how often the input loop wakes without a key
RULES_LINES: Final = 22


class Display(Protocol):
    def show(self, model: ScreenModel) -> None:
        """Show ``model`` now (a live display also redraws it while the clock runs)."""
        ...


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
  a tile          1-3 plays [1|3] when it has only one place to go
  Tab             completes the action you are typing
  rules [topic]   shows the rules (e.g. rules 7, rules clock); the clock keeps running
  help            shows this text
  Ctrl-C          resign the match (asks first)
Enter on an empty line closes this text."""


def _tiles(raw: Sequence[Sequence[int]]) -> tuple[Tile, ...]:
    return tuple(tile(a, b) for a, b in raw)


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
        self.keys = keys
        self.display = display
        self.clock = clock
        self.humans = tuple(sorted(humans))
        self.hot_seat = len(self.humans) == 2
        self.names = names
        self.primary = self.humans[0]  # public events are taken from this seat's copy
        self.clocks = Clocks((0, 0), 0)
        self.delay = 0
        self.layout = Layout()
        self.last: Tile | None = None
        self.balances = (150, 150)
        self.round = 0
        self.turn = 0
        self.drawn = 0
        self.phase = ""
        self.auction = ""
        self.boneyard: int | None = None
        self.hand_sizes: tuple[int, int] | None = None
        self.to_act: int | None = None
        self.hands: dict[int, tuple[Tile, ...] | None] = {p: None for p in self.humans}
        self.legal: dict[int, tuple[Action, ...]] = {p: () for p in self.humans}
        self.log: list[str] = []
        self.holder: int | None = None if self.hot_seat else self.humans[0]
        # Hot-seat: the player who revealed their hand last in this round (the device
        # is with them), and a player whose turn came straight back to them (the
        # opponent's forced pass): no hand-over, so their clock runs, but their hand
        # waits for their Enter.
        self._device: int | None = None
        self._reveal: int | None = None
        # Keys typed while an engine thinks (see watch): a Ctrl-C asks at once.
        self._watch = LineEditor()
        self._watch_confirming = False
        # A resignation confirmed when the referee was not waiting for that player (at
        # a pause, a hand-over, while the engine thinks): the seat answers the next
        # request with it (the protocol's rule: it is read when the referee next waits
        # for the player), without asking anything more.
        self.resign_pending: int | None = None
        self.resigned: int | None = None
        self.over = False
        self.last_round_end: Text | None = None  # the count of the last round that ended
        self._continued_round = 0  # the round whose start the person already confirmed
        self.message = ""
        self.message_style = "bold red"
        self._typed = ""  # keys read from the terminal and not yet fed to an editor

    # -- what the screen shows -------------------------------------------------------------

    def model(
        self,
        *,
        prompt: str | None = None,
        overlay: object = None,
        footer: str = "",
        legal: tuple[Action, ...] = (),
    ) -> ScreenModel:
        viewer = self.holder
        hand = self.hands.get(viewer) if viewer is not None else None
        return ScreenModel(
            names=self.names,
            clocks=self.clocks,
            balances=self.balances,
            round=self.round,
            turn=self.turn,
            drawn=self.drawn,
            phase=self.phase,
            layout=self.layout.copy(),
            last=self.last,
            viewer=viewer,
            hand=hand,
            hand_sizes=self.hand_sizes,
            boneyard=self.boneyard,
            auction=self.auction,
            to_act=self.to_act,
            legal=legal,
            log=tuple(self.log),
            message=self.message,
            message_style=self.message_style,
            prompt=prompt,
            overlay=overlay,  # type: ignore[arg-type]
            footer=footer,
        )

    def show(self, **kw: Any) -> None:
        self.display.show(self.model(**kw))

    def _note(self, text: str, style: str = "bold red") -> None:
        self.message = text
        self.message_style = style

    # -- the referee's messages -------------------------------------------------------------

    def on_hello(self, seat: int, bank_ms: int, delay_ms: int) -> None:
        self.delay = delay_ms * MILLISECOND
        self.clocks = Clocks((bank_ms * MILLISECOND, bank_ms * MILLISECOND), self.delay)
        self.show()

    def on_state(
        self, banks: tuple[int, int], to_act: int | None, balances: tuple[int, int], turn: int
    ) -> None:
        """The referee's snapshot after an accepted action (its observer hook):
        exact banks; the clock of an engine to act is shown running from now."""
        now = self.clock()
        running: Running | None = None
        prev = self.clocks.running
        turn_changed = turn != self.turn
        if turn_changed:
            self.turn, self.drawn = turn, 0
        if to_act is not None and to_act not in self.humans:
            if prev is not None and prev.player == to_act and not turn_changed:
                running = prev
            else:
                running = Running(to_act, now, self.delay)
        self.clocks = Clocks(banks, self.delay, running)
        self.balances = balances
        self.to_act = to_act
        if self._watch_confirming or self.resign_pending is not None:
            pass  # the question (or the answer) about resigning stays on screen
        elif to_act is not None and to_act not in self.humans and not self.over:
            self._note(self._thinking_text(to_act), "dim")
        elif self.message.endswith("is thinking…"):
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
        editor = self._watch
        before = (editor.text, self._watch_confirming)
        while events := self._read(editor, self.clock()):
            for ev in events:
                if isinstance(ev, Interrupt):
                    self._watch_confirming = True
                    editor.clear()  # the answer to the question is what comes next
                    self._note(
                        self._confirm_text(seat) + " (The match ends once "
                        f"{player_name(1 - seat)} has moved.)",
                        "bold yellow",
                    )
                elif self._watch_confirming:
                    self._watch_confirming = False
                    if ev.text.strip().lower() in ("y", "yes"):
                        self._resign_later(
                            seat,
                            f"{player_name(seat)} resigns: the match "
                            f"ends as soon as {player_name(1 - seat)} "
                            f"({self.names[1 - seat]}) has moved.",
                        )
                        return
                    self._note(self._thinking_text(1 - seat), "dim")
        if (editor.text, self._watch_confirming) != before:
            self.show(prompt=editor.text if self._watch_confirming else None)

    def _resign_later(self, seat: int, message: str) -> None:
        """``seat`` resigned while the referee was not waiting for it (see
        ``resign_pending``)."""
        self.resign_pending = self.resigned = seat
        self._note(message, "bold red")
        self.show()

    def on_events(self, seat: int, events: list[dict[str, Any]]) -> None:
        """A batch of events for ``seat``. Public effects are taken once (from the
        primary human's copy); private ones (own placements, own draws) per seat."""
        for ev in events:
            self._private_effect(seat, ev)
        if seat != self.primary:
            return
        for ev in events:
            self._public_effect(ev)
        kinds = [ev.get("kind") for ev in events]
        self.show()
        if "match_ended" in kinds or self.resign_pending is not None:
            return  # (a player who resigned is not asked to continue)
        if "round_ended" in kinds:
            ended = next(ev for ev in events if ev.get("kind") == "round_ended")
            if self.hot_seat:
                self.holder = None  # the next hand shows only after a reveal
                self._device = None  # after the count: a hand-over, clocks stopped
            self._pause(seat, self._round_end_text(ended), "Press Enter to continue")
            self._continued_round = self.round  # the next deal's start is confirmed too
        elif "round_started" in kinds and self._continued_round < self.round:
            self._continued_round = self.round
            if not self.hot_seat:  # hot-seat: revealing the hand is the start
                self._pause(
                    seat,
                    Text(
                        f"Round {self.round} is dealt. The clocks stand still until you start.",
                        style="bold",
                    ),
                    "Press Enter to start",
                )

    def _private_effect(self, seat: int, ev: dict[str, Any]) -> None:
        kind = ev.get("kind")
        hand = self.hands.get(seat)
        if kind == "round_started":
            self.hands[seat] = None
        elif hand is None:
            return
        elif kind == "placed" and ev.get("player") == seat:
            t = tile(*ev["tile"])
            self.hands[seat] = tuple(x for x in hand if x is not t)
        elif kind == "drew" and ev.get("player") == seat and ev.get("tile"):
            self.hands[seat] = tuple(sorted((*hand, tile(*ev["tile"])), key=lambda x: x.index))

    def _public_effect(self, ev: dict[str, Any]) -> None:
        kind = ev.get("kind")
        who = player_name(ev["player"]) if "player" in ev else ""
        if kind == "round_started":
            self.round = ev["round"]
            self.last_round_end = None
            self.layout = Layout()
            self.last = None
            self.clocks = self.clocks.stopped(self.clock())
            jockey = ev.get("jockey")
            if ev.get("opening") == "auction" and jockey is not None:
                self.phase = "auction"
                self.auction = f"jockey {player_name(jockey)}"
            else:
                self.phase = "opening"
                self.auction = "forced opening"
            self.log.append(f"— round {self.round} dealt ({self.auction})")
        elif kind == "auction":
            self.log.append(f"{who}: {ev['action']}")
        elif kind == "placed":
            action = parse_action(ev["action"])
            if isinstance(action, Open):
                self.layout = Layout()
                self.layout.open_tile(action.tile)
            elif isinstance(action, Play):
                self.layout.place(action.tile, action.at)
            self.last = tile(*ev["tile"])
            self.phase = "play"
            earned = f", earns {ev['points']}" if ev.get("points") else ""
            self.log.append(f"{who}: {ev['action']} — count {ev['count']}{earned}")
        elif kind == "drew":
            self.boneyard = ev.get("boneyard_left", self.boneyard)
            self.log.append(f"{who} draws a tile ({self.boneyard} left in the boneyard)")
        elif kind == "passed":
            self.log.append(f"{who} passes (cannot play or draw)")
        elif kind == "transfer":
            self.balances = (ev["balances"][0], ev["balances"][1])
            self.log.append(
                f"{player_name(ev['payer'])} pays {player_name(ev['payee'])} "
                f"{ev['amount']} ({ev['reason']}) → {self.balances[0]}–"
                f"{self.balances[1]}"
            )
        elif kind == "round_ended":
            self.log.append(f"— round {ev['round']} ends ({ev['reason']})")
            self.last_round_end = self._round_end_text(ev, final=True)
        elif kind == "match_ended":
            self.over = True
            self.balances = (ev["balances"][0], ev["balances"][1])
        del self.log[:-30]

    def _round_end_text(self, ev: dict[str, Any], final: bool = False) -> Text:
        t = Text(f"Round {ev['round']} is over ({ev['reason']}", style="bold")
        if ev.get("winner") is not None:
            t.append(f", {player_name(ev['winner'])} wins it")
        t.append(")\n")
        if ev.get("payout"):
            t.append(f"Block payout: {ev['payout']}\n")
        for p in (0, 1):
            hand = " ".join(f"[{a}|{b}]" for a, b in ev["hands"][p]) or "(empty)"
            t.append(f"{player_name(p)} ({self.names[p]}) held: {hand}  — {ev['pips'][p]} pips\n")
        t.append(f"Balances: {self.balances[0]}–{self.balances[1]}.")
        if not final:
            t.append(" The clocks stand still until you continue.")
        return t

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
        self.hands[seat] = _tiles(view["hand"])
        self.legal[seat] = tuple(parse_action(a) for a in legal)
        self.round = view["round"]
        self.turn = view["turn"]
        self.drawn = view["drawn_this_turn"]
        self.phase = view["phase"]
        self.boneyard = view["boneyard_size"]
        self.to_act = seat
        own, opp = len(view["hand"]), view["opponent_hand_size"]
        self.hand_sizes = (own, opp) if seat == 0 else (opp, own)
        self.balances = (view["balances"][0], view["balances"][1])
        bid = view["auction"]["standing_bid"]
        jockey = view.get("jockey")
        if view["opening"] == "auction" and jockey is not None:
            self.auction = f"jockey {player_name(jockey)}"
            if bid is not None:
                self.auction += f" · standing bid {bid} by {player_name(view['auction']['bidder'])}"
        else:
            self.auction = "forced opening"
        banks = (bank_ms, opponent_bank_ms) if seat == 0 else (opponent_bank_ms, bank_ms)
        self.clocks = Clocks((banks[0] * MILLISECOND, banks[1] * MILLISECOND), self.delay)
        if self.resign_pending == seat:
            pass  # nothing more to ask: the seat answers with the resignation
        elif self.holder != seat:
            if self.hot_seat and self._device == seat:
                # The opponent's forced pass gave the turn straight back: no hand-over,
                # so the clock runs (RULES.md §7); the hand shows at this player's
                # Enter (ask), in case the device is already on its way.
                self._reveal = seat
            else:
                self._hand_over(seat)
        start = self.clock()
        self.clocks = Clocks(
            self.clocks.banks, self.delay, Running(seat, start, delay_left_ms * MILLISECOND)
        )
        self._note("")
        return start

    def _hand_over(self, seat: int) -> None:
        """Hot-seat: hide every hand and wait until ``seat``'s player reveals theirs."""
        self.holder = None
        self.clocks = self.clocks.stopped(self.clock())
        self._drain()  # a key typed by the previous player must not reveal anything
        name = f"{player_name(seat)} ({self.names[seat]})"
        text = Text(f"Hand over the device to player {name}.\n\n", style="bold yellow")
        text.append(
            f"Player {name}: when the other player cannot see the screen, "
            "press Enter to reveal your hand.\nThe clocks stand still until then."
        )
        self._note("")
        self._wait_enter(seat, text, f"Player {player_name(seat)}: press Enter to reveal your hand")
        if self.resign_pending is None:
            self.holder = self._device = seat

    def _pause(self, seat: int, overlay: Text, footer: str) -> None:
        self.clocks = self.clocks.stopped(self.clock())
        self._drain()
        self._wait_enter(seat, overlay, footer)

    def _wait_enter(
        self, seat: int, overlay: Text, footer: str, deadline: int | None = None
    ) -> bool:
        """Wait for Enter; Ctrl-C may resign for ``seat`` (the player this wait is
        for). With no ``deadline`` the clocks stand still; with one, ``seat``'s clock
        runs and False means the time ran out first."""
        editor = LineEditor()
        confirming = False
        self.show(overlay=overlay, footer=footer, prompt="" if confirming else None)
        while True:
            now = self.clock()
            if deadline is not None and now >= deadline:
                return False
            until = now + TICK if deadline is None else min(deadline, now + TICK)
            for ev in self._read(editor, until):
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
            self.show(overlay=overlay, footer=footer, prompt=editor.text if confirming else None)

    def _read(self, editor: LineEditor, until: int) -> list[EditEvent]:
        """Feed typed keys to ``editor`` up to its first event; keys typed after it
        stay for the next question (so type-ahead is neither lost nor reordered)."""
        if not self._typed:
            self._typed = self.keys.read(until)
        while self._typed:
            ch, self._typed = self._typed[0], self._typed[1:]
            events = editor.feed(ch)
            if events:
                return events
        return []

    def _drain(self) -> None:
        """Forget everything typed ahead (before a hand-over or a pause), except a
        Ctrl-C: that is kept and asks for confirmation at the next question."""
        ahead = self._typed + self.keys.drain()
        self._typed = CTRL_C if CTRL_C in ahead or self._watch_confirming else ""
        self._watch.clear()
        self._watch_confirming = False

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
        legal = self.legal[seat]
        hand = self.hands.get(seat) or ()
        # Keys typed before this question was on screen (e.g. while the engine was
        # thinking) were typed for another list of actions: drop them (not Ctrl-C).
        self._drain()
        if self._reveal == seat and not self._reveal_running(seat, deadline):
            self._time_out(seat)
            return None
        if self.resign_pending == seat:  # (confirmed instead of revealing)
            raise Resigned()
        editor = LineEditor(lambda text: complete(text, legal))
        overlay: Text | None = None
        confirming = False
        footer = "number / action / Tab to complete · rules [topic] · help · Ctrl-C resigns"
        while True:
            self.show(prompt=editor.text, overlay=overlay, footer=footer, legal=legal)
            now = self.clock()
            if now >= deadline:
                self._time_out(seat)
                return None
            events = self._read(editor, min(deadline, now + TICK))
            t = self.clock()
            for ev in events:
                if isinstance(ev, Interrupt):
                    confirming = True
                    editor.clear()  # the answer to the question is what comes next
                    self._note(self._confirm_text(seat, running=True), "bold yellow")
                    continue
                text = ev.text
                if confirming:
                    confirming = False
                    self._note("")
                    if text.strip().lower() in ("y", "yes"):
                        self.clocks = self.clocks.stopped(t)
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
                            "The clock keeps running. Enter on an empty line closes this text.",
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
            text,
            f"Player {player_name(seat)}: press Enter to reveal your hand (your clock is running)",
            deadline,
        )
        self._reveal = None
        if revealed and self.resign_pending is None:
            self.holder = self._device = seat
        return revealed

    def _time_out(self, seat: int) -> None:
        now = self.clock()
        self._note(f"{player_name(seat)}'s time is out.", "bold red")
        self.clocks = self.clocks.stopped(now)
        self.show()

    def _chosen(self, seat: int, action: Action, t: int) -> Answer:
        self.clocks = self.clocks.stopped(t)
        self._note(f"{player_name(seat)}: {action}", "bold green")
        if self.hot_seat and not isinstance(action, Draw):
            # The turn is over: hide the hand at once. (A draw keeps the turn: the
            # same player decides again, on the same clock, with the device.)
            self.holder = None
            self._drain()
        self.show()
        return Answer(str(action), t)

    def _help_text(self, name: str, arg: str) -> Text:
        if name == "help":
            return Text(HELP)
        section = rules_section(arg) if arg else ""
        if not arg or section == rules_text():  # no topic, or none that matches
            titles = [line[3:] for line in rules_text().splitlines() if line.startswith("## ")]
            body = (
                "Sections: "
                + "; ".join(titles)
                + "\nType 'rules 7' or 'rules clock' for one section "
                "(`bidref rules` prints them all)."
            )
            if arg:
                body = f"No rules section matches {arg!r}.\n" + body
            return Text(body)
        lines = section.splitlines()
        if len(lines) > RULES_LINES:
            lines = [*lines[:RULES_LINES], "… (the rest: `bidref rules`)"]
        return Text("\n".join(lines))

    def on_error(self, seat: int, message: str) -> None:
        self._note(message)
        self.show()

    def on_quit(self, seat: int) -> None:
        self.over = True
        self.clocks = self.clocks.stopped(self.clock())
        if self.hot_seat:
            self.holder = None
        self.show()
