"""A round whose deal is never revealed (the transcript stops inside it): what is
public is checked — turns go forward, the clock, and the layout the placements
build (with v1's event lines, also counts, draws and transfers)."""

from __future__ import annotations

from typing import Any

from ...rules import Layout, Match, parse_action, parse_side, point, points_earned, tile
from ...rules.actions import Open, Play
from ..lines import EventLine, Request
from ..reader import Line
from .report import Mismatch, Recorder, diff, name


class PublicRound:
    def __init__(self, out: Recorder, m: Match) -> None:
        self.out = out
        self.turn = m.turn
        self.round = m.round_number
        self.balances = list(m.balances)
        self.action: tuple[int, str, str] | None = None  # seat, action, clock note
        self.boneyard = 14
        self.layout = Layout()
        self.events_written = True

    def request(self, n: int, r: Request) -> int:
        turn = r.turn if r.turn is not None else self.turn
        if turn < self.turn:
            raise Mismatch(
                n,
                f"a request for seat {r.seat!r} in turn {turn!r}: turns only go forward "
                f"(the last was {self.turn})",
            )
        if r.round is not None and r.round != self.round:
            raise Mismatch(n, f"a request in round {r.round!r} during round {self.round}")
        self.turn = turn
        return turn

    def accepted(self, n: int, seat: int, text: str, note: str) -> None:
        self.action = (seat, text, note)
        if self.events_written:
            return
        try:
            a = parse_action(text)
        except (ValueError, Exception) as e:  # NotationError is a ValueError
            raise Mismatch(
                n, f"the referee accepted {text!r}, which is not an action: {e}"
            ) from None
        if isinstance(a, Open | Play):
            at = a.at if isinstance(a, Play) else None
            self.place(n, a.tile, at, str(a), seat, note)

    def place(self, n: int, t: Any, at: Any, text: str, seat: int, note: str) -> int:
        lay = self.layout
        if t in lay.placed:
            raise Mismatch(n, f"{t} is already on the table")
        if at is None:
            if lay.placed:
                raise Mismatch(n, f"{t} opens a round that is already open")
            count = lay.open_tile(t)
        else:
            if at not in lay.open_points or not t.has(at.value):
                raise Mismatch(
                    n,
                    f"{t} cannot go at {at.words}: it is not an open attachment point "
                    "of that value",
                )
            count = lay.place(t, at)
        self.out.step(
            n, "action", f"{name(seat)}  {text} · count {count} · {note}", seat, lay.copy(), t
        )
        return count

    def event(self, ln: Line, e: EventLine) -> None:
        """v1: an event of an unrevealed round against the public layout and balances."""
        n = ln.number
        ev = e.event
        kind = ev.get("kind")
        bal = self.balances
        if kind in ("auction", "placed", "drew"):
            last = self.action
            if last is None or ev.get("player") != last[0]:
                raise Mismatch(
                    n,
                    f"a {kind!r} event of player {ev.get('player')!r} that no accepted "
                    "reply of theirs caused",
                )
            if kind == "auction" and ev.get("action") != last[1]:
                raise Mismatch(
                    n, f"auction action {ev.get('action')!r}, but the reply was {last[1]!r}"
                )
            if kind == "drew":
                self.boneyard -= 1
                if last[1] != "draw" or ev.get("boneyard_left") != self.boneyard:
                    raise Mismatch(
                        n,
                        f"a draw leaving {ev.get('boneyard_left')!r} tiles after {last[1]!r}; "
                        f"the boneyard has {self.boneyard} left",
                    )
            if kind == "placed":
                self.placed(n, ev, last)
        elif kind == "transfer":
            payer, req = ev.get("payer"), ev.get("requested")
            if payer not in (0, 1) or ev.get("payee") != 1 - payer or not isinstance(req, int):
                raise Mismatch(
                    n, "a transfer needs a payer, the other player as payee, and a requested amount"
                )
            assert isinstance(payer, int)
            paid = min(req, bal[payer])
            bal[payer] -= paid
            bal[1 - payer] += paid
            derived = {**ev, "amount": paid, "balances": list(bal)}
            if ev != derived:
                raise Mismatch(n, f"transfer disagrees: {diff(ev, derived)}")
        elif kind == "match_ended" and ev.get("balances") != bal:
            raise Mismatch(n, f"match end balances {ev.get('balances')!r}, replay {bal}")
        self.out.emit(ln)

    def placed(self, n: int, ev: dict[str, Any], last: tuple[int, str, str]) -> None:
        try:
            t = tile(*ev["tile"])
            at = (
                None
                if ev.get("at") is None
                else point(tile(*ev["at"]["tile"]), parse_side(ev["at"]["side"]))
            )
        except (KeyError, TypeError, ValueError) as e:
            raise Mismatch(n, f"a placed event without a readable tile and point: {e}") from None
        text = f"open {t}" if at is None else f"play {t} {at}"
        if last[1] != text or ev.get("action") != text:
            raise Mismatch(n, f"placed {text!r}, but the reply was {last[1]!r}")
        count = self.place(n, t, at, text, last[0], last[2])
        derived = {"count": count, "points": points_earned(count)}
        said = {k: ev.get(k) for k in derived}
        if said != derived:
            raise Mismatch(n, f"placed event disagrees: {diff(said, derived)}")
