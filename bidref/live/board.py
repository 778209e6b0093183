"""A running match as a spectator sees it, folded from its transcript's public lines.

While a round runs, a ``bidref-transcript/2`` file holds only what is public:
who was asked when, each accepted action, the balances at the round's start
(``protocols/transcript.md``, "Hidden information"). That is enough for what a
spectator may see, and this fold derives exactly that, one line at a time:

- the layout, from the placements (the rules' :class:`~bidref.rules.Layout`, so
  the page draws it with the replay page's own drawing);
- the hand sizes and the boneyard, from the placements and the draws;
- the auction and the balances, from the bids and the counts a placement scores
  (a blocked round's payout needs the hands: the next ``round_start`` says it);
- the clocks, with the rules' clock arithmetic (:mod:`bidref.rules.clock`) from
  the times of the requests and replies, and whose clock runs since when.

Hands are known only from a round's ``round_reveal`` line on: then the round's
dealt hands and the hands it ended with (the deal refolded with the round's
actions by the rules core) are shown for that round. Nothing else in a reveal
(private logs, error texts, raw lines) is used. The fold never raises on bad
input: a line it cannot use is counted and skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..rules import (
    Accept,
    Bid,
    Deal,
    Decline,
    Draw,
    Layout,
    Match,
    MatchClock,
    MatchConfig,
    Open,
    Play,
    RulesError,
    Tile,
    TimeControl,
    parse_action,
    points_earned,
)
from ..rules.phase import JOCKEY_CREDIT

MAX_RECENT = 8  # last actions kept for the page
_decode = msgspec.json.decode  # (about 3x json.loads: the fold's first cost)


@dataclass
class Revealed:
    """A round after its reveal: the hands dealt and the hands it ended with (refolded
    when first asked for: a fast match reveals many rounds between two looks)."""

    round: int
    dealt: tuple[list[str], list[str]]
    table: Table
    deal: dict[str, Any]
    _left: tuple[list[str], list[str]] | bool | None = False  # False: not refolded yet

    @property
    def left(self) -> tuple[list[str], list[str]] | None:
        """None: the actions did not refold."""
        if self._left is False:
            self._left = self.table.refold(self.deal)
        assert self._left is not True
        return self._left

    def to_dict(self) -> dict[str, object]:
        left = self.left
        return {
            "round": self.round,
            "dealt": list(self.dealt),
            "left": None if left is None else list(left),
        }


@dataclass
class Players:
    """Who plays: names (the header's), the engines' own words (their hellos), and
    where their stderr logs are kept (served once the match is over)."""

    names: list[str] = field(default_factory=lambda: ["A", "B"])
    engines: list[dict[str, str]] = field(default_factory=lambda: [{}, {}])
    stderr_logs: list[str | None] = field(default_factory=lambda: [None, None])


@dataclass
class Clocks:
    """Both clocks, with the rules' arithmetic, from the times of the lines: whose
    runs since when. A turn's draws and retries keep its delay (RULES.md §7)."""

    controls: tuple[TimeControl, TimeControl] = (TimeControl(), TimeControl())
    clock: MatchClock = field(default_factory=lambda: MatchClock.start(TimeControl()))
    to_act: int | None = None
    started_t: int | None = None  # t_ns the pending decision's clock runs from
    last_cost: list[int | None] = field(default_factory=lambda: [None, None])
    turn: int = 0
    continues: bool = False  # the next request of the same seat is the same turn
    last_seat: int | None = None

    def start(self, base: TimeControl, controls: tuple[TimeControl, TimeControl]) -> None:
        self.controls = controls
        self.clock = MatchClock.start(base, None if controls[0] == controls[1] else controls)

    def request(self, seat: int, t: int) -> None:
        if not (self.continues and seat == self.last_seat):
            self.turn += 1
        self.continues = False
        self.last_seat = seat
        self.clock = self.clock.begin(seat, self.turn)
        self.to_act, self.started_t = seat, t

    def reply(self, seat: int, t: int) -> bool:
        """Charge the pending decision; False if no decision of ``seat`` is pending."""
        if seat != self.to_act or self.started_t is None:
            return False
        self.clock, charge = self.clock.charge(max(0, t - self.started_t))
        self.last_cost[seat] = charge.elapsed
        return True

    def settled(self, same_turn: bool) -> None:
        """The decision is over (``same_turn``: a draw, the turn goes on)."""
        self.to_act = self.started_t = None
        self.continues = same_turn

    def timeout(self, seat: int) -> None:
        banks = list(self.clock.banks)
        banks[seat] = 0
        self.clock = self.clock._replace(banks=(banks[0], banks[1]), delay_left=0)
        self.to_act = self.started_t = None

    def to_list(self) -> list[dict[str, object]]:
        c = self.clock
        return [
            {
                "bank": c.banks[s],
                "full": self.controls[s].bank,
                "delay_left": c.delay_left if c.player == s and self.to_act == s else None,
                "last": self.last_cost[s],
            }
            for s in (0, 1)
        ]


@dataclass
class Table:
    """The round being played, as far as it is public."""

    round: int = 0
    phase: str = "starting"
    opening: str | None = None
    jockey: int | None = None
    start_balances: tuple[int, int] = (150, 150)
    layout: Layout = field(default_factory=Layout)
    last_tile: Tile | None = None
    sizes: list[int] = field(default_factory=lambda: [7, 7])
    boneyard: int = 14
    bid: int | None = None
    bidder: int | None = None
    auction: list[tuple[int, str]] = field(default_factory=list)
    actions: list[tuple[int, str]] = field(default_factory=list)  # (seat, action)

    def refold(self, d: dict[str, Any]) -> tuple[list[str], list[str]] | None:
        """The hands the round ended with: its revealed deal ``d``, refolded with its
        actions by the rules core (None if they do not refold)."""
        try:
            deal = Deal.from_lists(d["hands"][0], d["hands"][1], d["boneyard"])
            config = MatchConfig(
                start_balances=self.start_balances, first_jockey=self.jockey, max_rounds=1
            )
            m = Match.from_deal(deal, config)
            for seat, text in self.actions:
                if m.over:
                    break
                m.apply(parse_action(text), seat)
            return ([str(t) for t in m.hands[0]], [str(t) for t in m.hands[1]])
        except (KeyError, TypeError, ValueError, IndexError, RulesError):
            return None


@dataclass
class Board:
    """The public state of one match, fed line by line (:meth:`feed`)."""

    players: Players = field(default_factory=Players)
    clocks: Clocks = field(default_factory=Clocks)
    table: Table = field(default_factory=Table)
    balances: list[int] = field(default_factory=lambda: [150, 150])
    last_t: int = 0  # t_ns of the last line
    lines: int = 0
    skipped: int = 0
    result: dict[str, Any] | None = None
    revealed: Revealed | None = None
    faults: list[str] = field(default_factory=list)  # illegal replies, timeouts, ...

    @property
    def to_act(self) -> int | None:
        return self.clocks.to_act

    def feed_bytes(self, raw: bytes) -> None:
        """One line of the file, as written."""
        try:
            x = _decode(raw)
        except (msgspec.DecodeError, RecursionError):
            self.skipped += 1
            return
        if isinstance(x, dict):
            self.feed(x)
        else:
            self.skipped += 1

    def feed(self, x: dict[str, Any]) -> None:
        """One line of the file, decoded."""
        handler = _HANDLERS.get(str(x.get("type")))
        self.lines += 1
        t = x.get("t_ns")
        if isinstance(t, int) and t > self.last_t:
            self.last_t = t
        if handler is None:
            return
        try:
            handler(self, x)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RulesError):
            self.skipped += 1  # a line that is not as protocols/transcript.md gives it

    # -- lines -------------------------------------------------------------------------

    def on_header(self, x: dict[str, Any]) -> None:
        engines = x.get("engines") or []
        p = self.players
        for i, e in enumerate(engines[:2]):
            if isinstance(e, dict):
                p.names[i] = str(e.get("name") or p.names[i])
                log = e.get("stderr_log")
                p.stderr_logs[i] = log if isinstance(log, str) else None
        tc = x.get("time_control") or {}
        base = TimeControl(int(tc.get("bank_ns") or 0), int(tc.get("delay_ns") or 0))
        per = x.get("time_controls")
        controls = (base, base)
        if isinstance(per, list) and len(per) == 2 and all(isinstance(c, dict) for c in per):
            controls = (
                TimeControl(int(per[0].get("bank_ns") or 0), int(per[0].get("delay_ns") or 0)),
                TimeControl(int(per[1].get("bank_ns") or 0), int(per[1].get("delay_ns") or 0)),
            )
        self.clocks.start(base, controls)

    def on_hello(self, x: dict[str, Any]) -> None:
        seat = _seat(x)
        e = x.get("engine")
        if seat is not None and isinstance(e, dict):
            self.players.engines[seat] = {
                k: str(e[k])[:80] for k in ("name", "author", "version") if e.get(k) is not None
            }

    def on_round_start(self, x: dict[str, Any]) -> None:
        bal = x.get("balances")
        if isinstance(bal, list) and len(bal) == 2:
            self.balances = [int(bal[0]), int(bal[1])]
        opening = str(x.get("opening") or "forced")
        self.table = Table(
            round=int(x.get("round") or self.table.round + 1),
            phase="auction" if opening == "auction" else "opening",
            opening=opening,
            jockey=x.get("jockey") if x.get("jockey") in (0, 1) else None,
            start_balances=(self.balances[0], self.balances[1]),
        )

    def on_request(self, x: dict[str, Any]) -> None:
        seat = _seat(x)
        if seat is not None:
            self.clocks.request(seat, int(x["t_ns"]))

    def on_reply(self, x: dict[str, Any]) -> None:
        seat = _seat(x)
        if seat is None or not self.clocks.reply(seat, int(x["t_ns"])):
            return
        status = x.get("status") or "accepted"
        if status != "accepted":
            self.clocks.continues = True  # a retry keeps the turn (and what is left of its delay)
            self.faults.append(f"{self.players.names[seat]}: {status} action")
            return
        text = str(x.get("action"))
        self.clocks.settled(same_turn=text == "draw")
        self.apply(seat, text)

    def on_retry(self, x: dict[str, Any]) -> None:
        seat = _seat(x)
        if seat is not None:
            self.clocks.to_act, self.clocks.started_t = seat, int(x["t_ns"])

    def on_timeout(self, x: dict[str, Any]) -> None:
        seat = _seat(x)
        if seat is not None:
            self.clocks.timeout(seat)
            self.faults.append(f"{self.players.names[seat]}: out of time")

    def on_round_reveal(self, x: dict[str, Any]) -> None:
        rnd = int(x.get("round") or 0)
        d = x.get("deal") or {}
        hands = d.get("hands")
        if rnd != self.table.round or not isinstance(hands, list) or len(hands) != 2:
            return
        dealt = ([_tile_text(t) for t in hands[0]], [_tile_text(t) for t in hands[1]])
        self.revealed = Revealed(rnd, dealt, self.table, d)

    def on_result(self, x: dict[str, Any]) -> None:
        self.result = {
            k: x.get(k) for k in ("winner", "reason", "balances", "rounds", "rated", "detail")
        }
        bal = x.get("balances")
        if isinstance(bal, list) and len(bal) == 2:
            self.balances = [int(bal[0]), int(bal[1])]
        self.clocks.settled(same_turn=False)
        self.table.phase = "over"

    # -- the public effect of an accepted action ------------------------------------------

    def apply(self, seat: int, text: str) -> None:
        tb = self.table
        tb.actions.append((seat, text))
        a = parse_action(text)
        if isinstance(a, Open | Play):
            count = (
                tb.layout.open_tile(a.tile)
                if isinstance(a, Open)
                else tb.layout.place(a.tile, a.at)
            )
            tb.sizes[seat] -= 1
            tb.last_tile = a.tile
            tb.phase = "play"
            self.transfer(1 - seat, points_earned(count))
        elif isinstance(a, Draw):
            tb.sizes[seat] += 1
            tb.boneyard = max(0, tb.boneyard - 1)
        elif isinstance(a, Bid):
            tb.bid, tb.bidder = a.amount, seat
            tb.auction.append((seat, text))
        elif isinstance(a, Accept):
            tb.auction.append((seat, text))
            if tb.bidder is not None and tb.bid is not None:
                credit = JOCKEY_CREDIT if tb.bidder == tb.jockey else 0
                self.transfer(tb.bidder, max(0, tb.bid - credit))
            tb.phase = "opening"
        elif isinstance(a, Decline):
            tb.auction.append((seat, text))
            tb.phase = "opening"

    def transfer(self, payer: int, amount: int) -> None:
        paid = min(amount, self.balances[payer])
        self.balances[payer] -= paid
        self.balances[1 - payer] += paid

    # -- what the page gets -------------------------------------------------------------

    def to_dict(self, layout_svg: str, count: str) -> dict[str, object]:
        """The board for the page; ``layout_svg`` and ``count``: the layout drawn (by
        the caller, with the replay page's drawing)."""
        tb, ck = self.table, self.clocks
        return {
            "names": list(self.players.names),
            "engines": [dict(e) for e in self.players.engines],
            "round": tb.round,
            "phase": tb.phase,
            "opening": tb.opening,
            "jockey": tb.jockey,
            "balances": list(self.balances),
            "hand_sizes": list(tb.sizes),
            "boneyard": tb.boneyard,
            "bid": tb.bid,
            "bidder": tb.bidder,
            "auction": [list(a) for a in tb.auction],
            "to_act": ck.to_act,
            "clock_t": None if ck.started_t is None else self.last_t - ck.started_t,
            "clocks": ck.to_list(),
            "recent": [list(a) for a in tb.actions[-MAX_RECENT:]],
            "layout": layout_svg,
            "count": count,
            "tiles": len(tb.layout.placed),
            "revealed": None if self.revealed is None else self.revealed.to_dict(),
            "result": self.result,
            "lines": self.lines,
        }


def _seat(x: dict[str, Any]) -> int | None:
    s = x.get("seat")
    return s if s in (0, 1) else None


def _tile_text(pair: Any) -> str:
    return (
        f"{int(pair[0])}-{int(pair[1])}"
        if int(pair[0]) <= int(pair[1])
        else (f"{int(pair[1])}-{int(pair[0])}")
    )


_HANDLERS = {
    "header": Board.on_header,
    "hello": Board.on_hello,
    "round_start": Board.on_round_start,
    "request": Board.on_request,
    "reply": Board.on_reply,
    "retry": Board.on_retry,
    "timeout": Board.on_timeout,
    "round_reveal": Board.on_round_reveal,
    "result": Board.on_result,
}
