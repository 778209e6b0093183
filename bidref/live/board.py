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

import json
from dataclasses import dataclass, field
from typing import Any

from ..match.outcome import EndReason
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


@dataclass
class Revealed:
    """A round after its reveal: the hands dealt and the hands it ended with."""

    round: int
    dealt: tuple[list[str], list[str]]
    left: tuple[list[str], list[str]] | None  # None: the actions did not refold

    def to_dict(self) -> dict[str, object]:
        return {
            "round": self.round,
            "dealt": list(self.dealt),
            "left": None if self.left is None else list(self.left),
        }


@dataclass
class Board:
    """The public state of one match, fed line by line (:meth:`feed`)."""

    names: list[str] = field(default_factory=lambda: ["A", "B"])
    engines: list[dict[str, str]] = field(default_factory=lambda: [{}, {}])
    stderr_logs: list[str | None] = field(default_factory=lambda: [None, None])
    controls: tuple[TimeControl, TimeControl] = (TimeControl(), TimeControl())
    clock: MatchClock = field(default_factory=lambda: MatchClock.start(TimeControl()))
    round: int = 0
    phase: str = "starting"
    opening: str | None = None
    jockey: int | None = None
    balances: list[int] = field(default_factory=lambda: [150, 150])
    layout: Layout = field(default_factory=Layout)
    last_tile: Tile | None = None
    sizes: list[int] = field(default_factory=lambda: [7, 7])
    boneyard: int = 14
    bid: int | None = None
    bidder: int | None = None
    auction: list[tuple[int, str]] = field(default_factory=list)
    to_act: int | None = None
    started_t: int | None = None  # t_ns the pending decision's clock runs from
    last_t: int = 0  # t_ns of the last line
    lines: int = 0
    skipped: int = 0
    recent: list[tuple[int, str]] = field(default_factory=list)  # (seat, action)
    last_cost: list[int | None] = field(default_factory=lambda: [None, None])
    result: dict[str, Any] | None = None
    revealed: Revealed | None = None
    faults: list[str] = field(default_factory=list)  # illegal replies, timeouts, ...
    _turn: int = 0
    _continues: bool = False  # the next request of the same seat is the same turn
    _last_seat: int | None = None
    _round_actions: list[tuple[int, str]] = field(default_factory=list)
    _round_balances: tuple[int, int] = (150, 150)

    def feed_bytes(self, raw: bytes) -> None:
        """One line of the file, as written."""
        try:
            x = json.loads(raw)
        except ValueError:
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
        for i, e in enumerate(engines[:2]):
            if isinstance(e, dict):
                self.names[i] = str(e.get("name") or self.names[i])
                log = e.get("stderr_log")
                self.stderr_logs[i] = log if isinstance(log, str) else None
        tc = x.get("time_control") or {}
        base = TimeControl(int(tc.get("bank_ns") or 0), int(tc.get("delay_ns") or 0))
        per = x.get("time_controls")
        controls = (base, base)
        if isinstance(per, list) and len(per) == 2 and all(isinstance(c, dict) for c in per):
            controls = (
                TimeControl(int(per[0].get("bank_ns") or 0), int(per[0].get("delay_ns") or 0)),
                TimeControl(int(per[1].get("bank_ns") or 0), int(per[1].get("delay_ns") or 0)),
            )
        self.controls = controls
        self.clock = MatchClock.start(base, None if controls[0] == controls[1] else controls)

    def on_hello(self, x: dict[str, Any]) -> None:
        seat = _seat(x)
        e = x.get("engine")
        if seat is not None and isinstance(e, dict):
            self.engines[seat] = {
                k: str(e[k])[:80] for k in ("name", "author", "version") if e.get(k) is not None
            }

    def on_round_start(self, x: dict[str, Any]) -> None:
        self.round = int(x.get("round") or self.round + 1)
        bal = x.get("balances")
        if isinstance(bal, list) and len(bal) == 2:
            self.balances = [int(bal[0]), int(bal[1])]
        self._round_balances = (self.balances[0], self.balances[1])
        self.jockey = x.get("jockey") if x.get("jockey") in (0, 1) else None
        self.opening = str(x.get("opening") or "forced")
        self.phase = "auction" if self.opening == "auction" else "opening"
        self.layout = Layout()
        self.last_tile = None
        self.sizes = [7, 7]
        self.boneyard = 14
        self.bid = self.bidder = None
        self.auction = []
        self.recent = []  # this round's actions only
        self._round_actions = []

    def on_request(self, x: dict[str, Any]) -> None:
        seat = _seat(x)
        if seat is None:
            return
        if not (self._continues and seat == self._last_seat):
            self._turn += 1
        self._continues = False
        self._last_seat = seat
        self.clock = self.clock.begin(seat, self._turn)
        self.to_act = seat
        self.started_t = int(x["t_ns"])

    def on_reply(self, x: dict[str, Any]) -> None:
        seat = _seat(x)
        if seat is None or seat != self.to_act or self.started_t is None:
            return
        t = int(x["t_ns"])
        self.clock, charge = self.clock.charge(max(0, t - self.started_t))
        self.last_cost[seat] = charge.elapsed
        status = x.get("status") or "accepted"
        if status != "accepted":
            self._continues = True  # a retry keeps the turn (and what is left of its delay)
            self.faults.append(f"{self.names[seat]}: {status} action")
            return
        self.to_act = None
        self.started_t = None
        text = str(x.get("action"))
        self._continues = text == "draw"
        self.apply(seat, text)

    def on_retry(self, x: dict[str, Any]) -> None:
        seat = _seat(x)
        if seat is not None:
            self.to_act = seat
            self.started_t = int(x["t_ns"])

    def on_timeout(self, x: dict[str, Any]) -> None:
        seat = _seat(x)
        if seat is not None:
            banks = list(self.clock.banks)
            banks[seat] = 0
            self.clock = self.clock._replace(banks=(banks[0], banks[1]), delay_left=0)
            self.faults.append(f"{self.names[seat]}: out of time")
        self.to_act = None
        self.started_t = None

    def on_round_reveal(self, x: dict[str, Any]) -> None:
        rnd = int(x.get("round") or 0)
        d = x.get("deal") or {}
        hands = d.get("hands")
        if rnd != self.round or not isinstance(hands, list) or len(hands) != 2:
            return
        dealt = ([_tile_text(t) for t in hands[0]], [_tile_text(t) for t in hands[1]])
        self.revealed = Revealed(rnd, dealt, self._refold(d))

    def _refold(self, d: dict[str, Any]) -> tuple[list[str], list[str]] | None:
        """The hands the round ended with: its deal, refolded with its actions."""
        try:
            deal = Deal.from_lists(d["hands"][0], d["hands"][1], d["boneyard"])
            config = MatchConfig(
                start_balances=self._round_balances, first_jockey=self.jockey, max_rounds=1
            )
            m = Match.from_deal(deal, config)
            for seat, text in self._round_actions:
                if m.over:
                    break
                m.apply(parse_action(text), seat)
            return ([str(t) for t in m.hands[0]], [str(t) for t in m.hands[1]])
        except (KeyError, TypeError, ValueError, IndexError, RulesError):
            return None

    def on_result(self, x: dict[str, Any]) -> None:
        self.result = {
            k: x.get(k) for k in ("winner", "reason", "balances", "rounds", "rated", "detail")
        }
        bal = x.get("balances")
        if isinstance(bal, list) and len(bal) == 2:
            self.balances = [int(bal[0]), int(bal[1])]
        self.to_act = None
        self.started_t = None
        self.phase = "over"

    # -- the public effect of an accepted action ------------------------------------------

    def apply(self, seat: int, text: str) -> None:
        self._round_actions.append((seat, text))
        self.recent = [*self.recent[-(MAX_RECENT - 1) :], (seat, text)]
        a = parse_action(text)
        if isinstance(a, Open | Play):
            count = (
                self.layout.open_tile(a.tile)
                if isinstance(a, Open)
                else self.layout.place(a.tile, a.at)
            )
            self.sizes[seat] -= 1
            self.last_tile = a.tile
            self.phase = "play"
            self.transfer(1 - seat, points_earned(count))
        elif isinstance(a, Draw):
            self.sizes[seat] += 1
            self.boneyard = max(0, self.boneyard - 1)
        elif isinstance(a, Bid):
            self.bid, self.bidder = a.amount, seat
            self.auction.append((seat, text))
        elif isinstance(a, Accept):
            self.auction.append((seat, text))
            if self.bidder is not None and self.bid is not None:
                credit = JOCKEY_CREDIT if self.bidder == self.jockey else 0
                self.transfer(self.bidder, max(0, self.bid - credit))
            self.phase = "opening"
        elif isinstance(a, Decline):
            self.auction.append((seat, text))
            self.phase = "opening"

    def transfer(self, payer: int, amount: int) -> None:
        paid = min(amount, self.balances[payer])
        self.balances[payer] -= paid
        self.balances[1 - payer] += paid

    # -- what the page gets -------------------------------------------------------------

    def clocks(self) -> list[dict[str, object]]:
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

    def to_dict(self, layout_svg: str, count: str) -> dict[str, object]:
        """The board for the page; ``layout_svg`` and ``count``: the layout drawn (by
        the caller, with the replay page's drawing)."""
        return {
            "names": list(self.names),
            "engines": [dict(e) for e in self.engines],
            "round": self.round,
            "phase": self.phase,
            "opening": self.opening,
            "jockey": self.jockey,
            "balances": list(self.balances),
            "hand_sizes": list(self.sizes),
            "boneyard": self.boneyard,
            "bid": self.bid,
            "bidder": self.bidder,
            "auction": [list(a) for a in self.auction],
            "to_act": self.to_act,
            "clock_t": None if self.started_t is None else self.last_t - self.started_t,
            "clocks": self.clocks(),
            "recent": [list(a) for a in self.recent],
            "layout": layout_svg,
            "count": count,
            "tiles": len(self.layout.placed),
            "revealed": None if self.revealed is None else self.revealed.to_dict(),
            "result": self.result,
            "lines": self.lines,
        }

    def fault_reason(self) -> str | None:
        """The end reason if the match has ended by a fault."""
        if self.result is None:
            return None
        reason = EndReason.named(str(self.result.get("reason")))
        return None if reason is None or not reason.fault else reason.value


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
