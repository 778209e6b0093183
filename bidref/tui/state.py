"""What the play screen knows, in three parts that change for different reasons.

- :class:`Table`: the public picture of the match that every player at the
  table may see — layout, balances, round and turn, the auction, the log —
  folded from the referee's public events and requests.
- :class:`Hands`: each human's own hand and legal actions (private).
- :class:`ScreenState`: what the terminal shows now — whose hand (the
  ``holder`` of the device), the clocks as last known, the message line — and
  the one place that composes a :class:`~.screen.ScreenModel` and shows it.

None of them reads the keys or decides when to wait: that is the session's
(:mod:`.session`). No real time is read here: the clock is injected.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from rich.console import RenderableType
from rich.text import Text

from ..rules import Action, Layout, Open, Play, Tile, parse_action, tile
from ..rules.clock import MILLISECOND
from .screen import AskView, Clocks, OwnView, ScreenModel, TableView, player_name

Clock = Callable[[], int]
LOG_LINES = 30  # the log the screen keeps (it shows the last few)


class Display(Protocol):
    def show(self, model: ScreenModel) -> None:
        """Show ``model`` now (a live display also redraws it while the clock runs)."""
        ...


def _tiles(raw: Sequence[Sequence[int]]) -> tuple[Tile, ...]:
    return tuple(tile(a, b) for a, b in raw)


class Table:
    """The public state of the match as the screen shows it."""

    def __init__(self) -> None:
        self.layout = Layout()
        self.last: Tile | None = None  # the tile placed last (highlighted)
        self.balances = (150, 150)
        self.round = 0
        self.turn = 0
        self.drawn = 0  # tiles the player to act has drawn in this turn
        self.phase = ""
        self.auction = ""
        self.boneyard: int | None = None
        self.hand_sizes: tuple[int, int] | None = None
        self.to_act: int | None = None
        self.log: list[str] = []
        self.last_round_end: Text | None = None  # the count of the last round that ended
        self.over = False

    def apply(self, ev: dict[str, Any], names: tuple[str, str]) -> None:
        """Take one public event."""
        kind = ev.get("kind")
        who = player_name(ev["player"]) if "player" in ev else ""
        if kind == "round_started":
            self.round = ev["round"]
            self.last_round_end = None
            self.layout = Layout()
            self.last = None
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
            self.drawn += 1  # (the draw keeps the turn: the header says so at once)
            self.log.append(f"{who} drew a tile ({self.boneyard} left in the boneyard)")
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
            self.last_round_end = self.round_end_text(ev, names, final=True)
            # The final state of the round: nobody is to act, the hands are as counted.
            self.to_act = None
            self.drawn = 0
            self.phase = "round over"
            self.hand_sizes = (len(ev["hands"][0]), len(ev["hands"][1]))
        elif kind == "match_ended":
            self.over = True
            self.balances = (ev["balances"][0], ev["balances"][1])
        del self.log[:-LOG_LINES]

    def round_end_text(
        self, ev: dict[str, Any], names: tuple[str, str], final: bool = False
    ) -> Text:
        t = Text(f"Round {ev['round']} is over ({ev['reason']}", style="bold")
        if ev.get("winner") is not None:
            t.append(f", {player_name(ev['winner'])} wins it")
        t.append(")\n")
        if ev.get("payout"):
            t.append(f"Block payout: {ev['payout']}\n")
        for p in (0, 1):
            hand = " ".join(f"[{a}|{b}]" for a, b in ev["hands"][p]) or "(empty)"
            t.append(f"{player_name(p)} ({names[p]}) held: {hand}  — {ev['pips'][p]} pips\n")
        t.append(f"Balances: {self.balances[0]}–{self.balances[1]}.")
        if not final:
            t.append(" The clocks stand still until you continue.")
        return t

    def take_view(self, seat: int, view: dict[str, Any]) -> None:
        """The public part of a request's view for ``seat``."""
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


class Hands:
    """Each human's own hand and legal actions, kept from their requests and events."""

    def __init__(self, humans: Sequence[int]) -> None:
        self.hands: dict[int, tuple[Tile, ...] | None] = {p: None for p in humans}
        self.legal: dict[int, tuple[Action, ...]] = {p: () for p in humans}
        # The tiles each drew in the turn they are in (shown highlighted in the hand).
        self.fresh: dict[int, tuple[Tile, ...]] = {p: () for p in humans}

    def take_request(self, seat: int, view: dict[str, Any], legal: Sequence[str]) -> None:
        self.hands[seat] = _tiles(view["hand"])
        self.legal[seat] = tuple(parse_action(a) for a in legal)

    def apply(self, seat: int, ev: dict[str, Any]) -> None:
        """Take one event as ``seat`` was sent it (its own draws show the tile)."""
        kind = ev.get("kind")
        hand = self.hands.get(seat)
        mine = ev.get("player") == seat
        if kind == "round_started":
            self.hands[seat] = None
            self.fresh[seat] = ()
        elif kind == "round_ended":
            self.hands[seat] = _tiles(ev["hands"][seat])  # what is left, as the count says
            self.fresh[seat] = ()
        elif hand is None:
            return
        elif kind == "placed" and mine:
            t = tile(*ev["tile"])
            self.hands[seat] = tuple(x for x in hand if x is not t)
            self.fresh[seat] = ()
        elif kind == "passed" and mine:
            self.fresh[seat] = ()
        elif kind == "drew" and mine and ev.get("tile"):
            t = tile(*ev["tile"])
            self.hands[seat] = tuple(sorted((*hand, t), key=lambda x: x.index))
            self.fresh[seat] = (*self.fresh[seat], t)


class ScreenState:
    """What the terminal shows: composes the screen from the table, the holder's hand,
    the clocks and the message, and shows it on the display."""

    def __init__(
        self,
        display: Display,
        clock: Clock,
        names: tuple[str, str],
        humans: Sequence[int],
        holder: int | None,
    ) -> None:
        self.display = display
        self.clock = clock
        self.names = names
        self.table = Table()
        self.hands = Hands(humans)
        self.clocks = Clocks((0, 0), 0)
        self.delay = 0
        self.holder = holder  # whose hand the screen may show (None: every hand hidden)
        self.message = ""
        self.message_style = "bold red"

    def set_clock_settings(self, bank_ms: int, delay_ms: int) -> None:
        self.delay = delay_ms * MILLISECOND
        self.clocks = Clocks((bank_ms * MILLISECOND, bank_ms * MILLISECOND), self.delay)

    def stop_clocks(self) -> None:
        self.clocks = self.clocks.stopped(self.clock())

    def note(self, text: str, style: str = "bold red") -> None:
        self.message = text
        self.message_style = style

    def model(
        self,
        *,
        prompt: str | None = None,
        overlay: RenderableType | None = None,
        footer: str = "",
        legal: tuple[Action, ...] = (),
        notice: RenderableType | None = None,
    ) -> ScreenModel:
        viewer = self.holder
        hand = self.hands.hands.get(viewer) if viewer is not None else None
        fresh = self.hands.fresh.get(viewer, ()) if viewer is not None else ()
        tb = self.table
        table = TableView(
            balances=tb.balances,
            round=tb.round,
            turn=tb.turn,
            drawn=tb.drawn,
            phase=tb.phase,
            layout=tb.layout.copy(),
            last=tb.last,
            hand_sizes=tb.hand_sizes,
            boneyard=tb.boneyard,
            auction=tb.auction,
            to_act=tb.to_act,
            log=tuple(tb.log),
        )
        ask = AskView(legal, self.message, self.message_style, prompt, overlay, footer, notice)
        return ScreenModel(self.names, self.clocks, table, OwnView(viewer, hand, fresh), ask)

    def show(
        self,
        *,
        prompt: str | None = None,
        overlay: RenderableType | None = None,
        footer: str = "",
        legal: tuple[Action, ...] = (),
        notice: RenderableType | None = None,
    ) -> None:
        self.display.show(
            self.model(prompt=prompt, overlay=overlay, footer=footer, legal=legal, notice=notice)
        )
