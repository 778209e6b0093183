"""A match as a sequence of shown states, one per transcript line, for the HTML replay.

This module is the one place that turns a transcript into what the replay page
shows. It reads only the *public* line types of ``protocols/transcript.md``
(header, hello, round_start, request, reply, retry, event, timeout, resign,
log, rules, stale, round_reveal, seed_reveal, engine_exit, result) through
:mod:`bidref.transcript.reader`, and rebuilds the game by re-applying the
placements, draws and auction moves with the rules core (:mod:`bidref.rules`):
with a round's revealed deal a :class:`~bidref.rules.Match` gives both hands,
every drawn tile and the legal actions at each request; a round that was never
revealed (a transcript cut short) is rebuilt on a bare
:class:`~bidref.rules.Layout`, its hands face down. It never reads the raw
request or reply copies, and it does not verify the transcript (``bidref
replay`` does): a line that disagrees with the rules is shown with a note and
the rebuild goes on from the public facts.

From the reveal it takes only what a spectator would want after the round:
the deal, engine log messages and error messages (by the ``seq`` of the public
line they belong to).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ...rules import (
    DRAW,
    Action,
    Deal,
    Drew,
    Layout,
    Match,
    MatchConfig,
    Open,
    Phase,
    Point,
    RulesError,
    Tile,
    parse_action,
    parse_side,
    play,
    point,
    tile,
)
from ...transcript.reader import read_transcript
from .model import NO_BIDDING, NO_TABLE, Bidding, Clock, Cost, Step, Table, Timeline, Turn
from .text import SEATS, cpu_duration, duration, result_text, seconds


def _seat_controls(raw: Any) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The header's per-seat ``time_controls`` as (bank, delay) pairs, if well formed."""
    if not isinstance(raw, list) or len(raw) != 2 or not all(isinstance(c, dict) for c in raw):
        return None
    try:
        a, b = ((int(c.get("bank_ns") or 0), int(c.get("delay_ns") or 0)) for c in raw)
    except (TypeError, ValueError):
        return None
    return a, b


def _tile(pair: Any) -> Tile:
    return tile(int(pair[0]), int(pair[1]))


def _point(at: Any) -> Point:
    """The attachment point of a ``placed`` event's ``at``: ``{"tile": [5, 5], "side": ...}``."""
    return point(_tile(at["tile"]), parse_side(str(at["side"])))


def _deal(d: Any) -> Deal | None:
    try:
        return Deal.from_lists(d["hands"][0], d["hands"][1], d["boneyard"])
    except (KeyError, TypeError, ValueError, IndexError, RulesError):
        return None


class _Round:
    """One round being rebuilt: a Match when its deal is known, else a bare Layout."""

    def __init__(
        self, number: int, deal: Deal | None, balances: tuple[int, int], jockey: int | None
    ) -> None:
        self.number = number
        self.match: Match | None = None
        if deal is not None:
            try:
                config = MatchConfig(start_balances=balances, first_jockey=jockey, max_rounds=1)
                self.match = Match.from_deal(deal, config)
            except RulesError:
                self.match = None
        self.layout = Layout()  # the public layout, rebuilt from the placements
        self.sizes = [7, 7]
        self.boneyard = 14
        self.auction: list[tuple[int, str]] = []
        self.bid: int | None = None
        self.bidder: int | None = None
        self.payment: str | None = None
        self.jockey = jockey
        self.last: Tile | None = None

    def hands(self) -> tuple[list[Tile] | None, list[Tile] | None]:
        if self.match is None:
            return (None, None)
        return (list(self.match.hands[0]), list(self.match.hands[1]))

    def apply(self, player: int, action: Action) -> tuple[str | None, Tile | None]:
        """Apply ``action`` to the known hands; (a note if the rules disagree, a drawn tile)."""
        if self.match is None:
            return None, None
        try:
            events = self.match.apply(action, player)
        except RulesError as e:
            self.match = None  # go on from the public facts alone
            return f"the rules do not allow this here ({e}); hands are no longer shown", None
        for ev in events:
            if isinstance(ev, Drew):
                return None, ev.tile
        return None, None

    def place(self, player: int, t: Tile, at: Any) -> str | None:
        """Put ``t`` on the public layout (``at`` None: the opening)."""
        note = None
        if at is None:
            if self.layout.placed:
                note = f"[{t.low}|{t.high}] opens a round that is already open: left off the table"
            else:
                self.layout.open_tile(t)
            n2, _ = self.apply(player, Open(t))
            note = note or n2
        else:
            p = _point(at)
            if p in self.layout.open_points and t.has(p.value) and t not in self.layout.placed:
                self.layout.place(t, p)
            else:
                note = (
                    f"[{t.low}|{t.high}] cannot go at {p.words} (not an open point of this "
                    "layout): it is left off the table"
                )
            n2, _ = self.apply(player, play(t, p))
            note = note or n2
        self.sizes[player] -= 1
        self.last = t
        return note


@dataclass(frozen=True)
class _Line:
    """One transcript line as the builder meets it."""

    number: int  # its line number in the file (events a v2 file leaves out: their reply's)
    x: dict[str, Any]
    kind: str
    seq: int  # the line's ``seq`` (the key of its private items in the reveal)
    seat: int | None


@dataclass
class _Shown:
    """What one line adds to the page beside the state: its text and the extras."""

    text: str
    type: str | None = None  # what the step is called, if not the line's type (an event)
    note: str | None = None
    cost: Cost | None = None
    log: str | None = None
    drawn: tuple[int, Tile | None] | None = None


class _Builder:
    def __init__(self, lines: list[tuple[int, dict[str, Any]]]) -> None:
        self.lines = lines
        header = lines[0][1] if lines and lines[0][1].get("type") == "header" else {}
        engines = header.get("engines") or [{}, {}]
        self.engines: list[dict[str, Any]] = [dict(e) for e in engines[:2]]
        while len(self.engines) < 2:
            self.engines.append({})
        self.names = [str(e.get("name") or f"seat {i}") for i, e in enumerate(self.engines)]
        tc = header.get("time_control") or {}
        bank = int(tc.get("bank_ns") or 0)
        delay = int(tc.get("delay_ns") or 0)
        per_seat = _seat_controls(header.get("time_controls"))
        self.tl = Timeline(
            names=(self.names[0], self.names[1]),
            engines=(self.engines[0], self.engines[1]),
            bank_ns=bank,
            delay_ns=delay,
            max_rounds=header.get("max_rounds"),
            controls=per_seat if per_seat and per_seat[0] != per_seat[1] else None,
        )
        banks = [c[0] for c in self.tl.seat_controls()]
        self.clocks = [Clock(banks[0]), Clock(banks[1])]
        self.balances = (150, 150)
        self.round: _Round | None = None
        self.round_no = 0
        self.to_act: int | None = None
        self.deals: dict[int, Deal | None] = {}
        self.private: dict[int, list[dict[str, Any]]] = {}
        for _, x in lines:
            if x.get("type") == "round_reveal":
                self.deals[int(x.get("round") or 0)] = _deal(x.get("deal"))
                for item in x.get("private") or []:
                    if isinstance(item, dict) and isinstance(item.get("seq"), int):
                        self.private.setdefault(item["seq"], []).append(item)
        self.layout_key: tuple[int, int] | None = None
        self.legal: list[str] | None = None

    def who(self, seat: Any) -> str:
        if seat in (0, 1):
            return f"{SEATS[seat]} ({self.names[seat]})"
        return "nobody"

    def private_of(self, seq: int, kind: str) -> dict[str, Any] | None:
        for item in self.private.get(seq, []):
            if item.get("kind") == kind:
                return item
        return None

    def build(self) -> Timeline:
        for i, (number, x) in enumerate(self.lines):
            try:
                self.line(i, number, x)
            except (KeyError, TypeError, ValueError, IndexError, AttributeError, RulesError) as e:
                # A line whose fields are not as protocols/transcript.md gives them: shown
                # with a note, the state as it was (the page is for looking, not checking).
                text = f"{x.get('type')} line that cannot be read ({type(e).__name__}: {e})"
                self.tl.steps.append(self.unreadable(number, x, text))
        return self.tl

    def unreadable(self, number: int, x: dict[str, Any], note: str) -> Step:
        if self.tl.steps:
            prev = self.tl.steps[-1]
            return replace(
                prev,
                line=number,
                type=str(x.get("type")),
                text=note,
                note=note,
                log=None,
                seat=None,
                table=replace(prev.table, drawn=None),
                turn=replace(prev.turn, cost=None),
            )
        return Step(
            line=number,
            type=str(x.get("type")),
            text=note,
            t_ns=0,
            seat=None,
            table=replace(NO_TABLE, layout=self.layout_index()),
            bidding=NO_BIDDING,
            turn=Turn((Clock(0), Clock(0)), None, None, None),
            balances=self.balances,
            log=None,
            note=note,
            end=None,
        )

    def layout_index(self) -> int:
        r = self.round
        key = (self.round_no, len(r.layout.placed) if r else 0)
        if key != self.layout_key or not self.tl.layouts:
            lay = r.layout.copy() if r else Layout()
            self.tl.layouts.append((lay, r.last if r else None))
            self.layout_key = key
        return len(self.tl.layouts) - 1

    def line(self, index: int, number: int, x: dict[str, Any]) -> None:
        """Apply one line (the ``index``-th, line ``number`` of the file) and record its step."""
        kind = str(x.get("type"))
        raw_seq = x.get("seq")
        seat = x.get("seat") if x.get("seat") in (0, 1) else None
        ln = _Line(number, x, kind, raw_seq if isinstance(raw_seq, int) else index, seat)
        handler = _LINE_HANDLERS.get(kind)
        shown = handler(self, ln) if handler is not None else _Shown(kind)
        self.record(ln, shown)

    def record(self, ln: _Line, shown: _Shown) -> None:
        """The step after ``ln``: the state as it now stands, and what the line adds."""
        r = self.round
        phase = "—"
        if r is not None and r.match is not None:
            phase = r.match.phase.value
        elif r is not None:
            phase = "play" if r.layout.placed else "opening"
        # The legal actions of a pending decision, shown until it is settled.
        if self.to_act is None:
            self.legal = None
        elif (
            ln.kind in ("request", "retry")
            and r is not None
            and r.match is not None
            and r.match.phase is not Phase.OVER
            and r.match.to_act == ln.seat
        ):
            self.legal = [str(a) for a in r.match.legal_actions()]
        table = NO_TABLE
        bidding = NO_BIDDING
        if r is not None:
            table = Table(
                self.round_no,
                phase,
                self.layout_index(),
                r.last,
                r.hands(),
                (r.sizes[0], r.sizes[1]),
                r.boneyard,
                shown.drawn,
            )
            bidding = Bidding(list(r.auction), r.jockey, r.bid, r.bidder, r.payment)
        else:
            table = replace(
                table, round=self.round_no, layout=self.layout_index(), drawn=shown.drawn
            )
        clocks = (replace(self.clocks[0]), replace(self.clocks[1]))
        self.tl.steps.append(
            Step(
                line=ln.number,
                type=shown.type or ln.kind,
                text=shown.text,
                t_ns=int(ln.x.get("t_ns") or 0),
                seat=ln.seat,
                table=table,
                bidding=bidding,
                turn=Turn(clocks, self.to_act, self.legal, shown.cost),
                balances=self.balances,
                log=shown.log,
                note=shown.note,
                end=self.tl.result,
            )
        )

    # One handler per line type of protocols/transcript.md (see _LINE_HANDLERS).

    def on_header(self, ln: _Line) -> _Shown:
        limit = ln.x.get("max_rounds")
        return _Shown(
            f"{self.names[0]} (A) vs {self.names[1]} (B) · {self.tl.clock_text()}"
            + (f" · at most {limit} rounds" if limit else "")
            + f" · illegal actions: {ln.x.get('illegal', 'reject')}"
        )

    def on_hello(self, ln: _Line) -> _Shown:
        e = ln.x.get("engine") or {}
        if ln.seat is not None and e.get("name"):
            self.engines[ln.seat] = {**self.engines[ln.seat], **e}
        return _Shown(
            f"{self.who(ln.seat)} said hello: {e.get('name', '?')} {e.get('version', '')}"
            f" by {e.get('author', '?')} · {duration(ln.x.get('elapsed_ns'))}"
        )

    def on_round_start(self, ln: _Line) -> _Shown:
        x = ln.x
        self.round_no = int(x.get("round") or self.round_no + 1)
        bal = x.get("balances") or list(self.balances)
        self.balances = (int(bal[0]), int(bal[1]))
        jockey = x.get("jockey") if x.get("jockey") in (0, 1) else None
        self.round = _Round(self.round_no, self.deals.get(self.round_no), self.balances, jockey)
        self.tl.rounds[self.round_no] = len(self.tl.steps)
        opening = x.get("opening", "forced")
        text = f"Round {self.round_no}: {opening} opening" + (
            f", {self.who(jockey)} is the jockey" if jockey is not None else ""
        )
        return _Shown(text + f" · balances {self.balances[0]}–{self.balances[1]}")

    def on_request(self, ln: _Line) -> _Shown:
        seat, x = ln.seat, ln.x
        self.to_act = seat
        if seat is not None:
            c = x.get("clock") or {}
            ck = self.clocks[seat]
            ck.bank_ns = int(c.get("bank_ns", ck.bank_ns))
            ck.delay_left_ns = int(c.get("delay_left_ns", 0))
            ck.deadline_ns = x.get("deadline_ns")
            other = self.clocks[1 - seat]
            if isinstance(c.get("opponent_bank_ns"), int):
                other.bank_ns = c["opponent_bank_ns"]
        return _Shown(
            f"{self.who(seat)} to decide ({x.get('phase', '?')}): delay "
            f"{seconds(self.clocks[seat].delay_left_ns if seat is not None else None)}"
            f" + bank {seconds(self.clocks[seat].bank_ns if seat is not None else None)}"
        )

    def on_reply(self, ln: _Line) -> _Shown:
        seat, x = ln.seat, ln.x
        status = x.get("status")
        charge = x.get("charge") or {}
        cost = None
        if seat is not None:
            cost = self.charge(seat, ln.number, x, accepted=status == "accepted")
        cpu, wait = x.get("cpu_ns"), x.get("wait_ns")
        took = (
            f"{duration(x.get('elapsed_ns'))} (delay {duration(charge.get('delay_used_ns'))},"
            f" bank {duration(charge.get('bank_used_ns'))}"
            f"{f', CPU {cpu_duration(cpu)}' if isinstance(cpu, int) else ''}"
            f"{f', waited for a CPU {cpu_duration(wait)}' if isinstance(wait, int) else ''})"
        )
        if status == "accepted":
            return _Shown(f"{self.who(seat)}: {x.get('action')} · took {took}", cost=cost)
        err = self.private_of(ln.seq, "error_raw")
        why = f": {err['message']}" if err and err.get("message") else ""
        return _Shown(
            f"{self.who(seat)}: {status} action ({x.get('rule') or 'no rule'}) · took {took}{why}",
            cost=cost,
        )

    def charge(self, seat: int, number: int, x: dict[str, Any], accepted: bool) -> Cost:
        """Settle a reply on ``seat``'s clock; the cost it shows."""
        charge = x.get("charge") or {}
        ck = self.clocks[seat]
        ck.last = Cost(
            int(x.get("elapsed_ns") or 0),
            int(charge.get("delay_used_ns") or 0),
            int(charge.get("bank_used_ns") or 0),
            number,
            x["cpu_ns"] if isinstance(x.get("cpu_ns"), int) else None,
            x["wait_ns"] if isinstance(x.get("wait_ns"), int) else None,
        )
        banks = x.get("banks_ns")
        if isinstance(banks, list) and len(banks) == 2:
            self.clocks[0].bank_ns, self.clocks[1].bank_ns = int(banks[0]), int(banks[1])
        if accepted:
            ck.delay_left_ns = None
            ck.deadline_ns = None
            self.to_act = None
        else:
            ck.delay_left_ns = max(0, (ck.delay_left_ns or 0) - ck.last.delay_used_ns)
        return ck.last

    def on_retry(self, ln: _Line) -> _Shown:
        seat, x = ln.seat, ln.x
        if seat is not None:
            ck = self.clocks[seat]
            ck.delay_left_ns = x.get("delay_left_ns", ck.delay_left_ns)
            ck.bank_ns = int(x.get("bank_ns", ck.bank_ns))
            ck.deadline_ns = x.get("deadline_ns")
            self.to_act = seat
        return _Shown(
            f"{self.who(seat)} decides again: delay {seconds(x.get('delay_left_ns'))}"
            f" + bank {seconds(x.get('bank_ns'))}"
        )

    def on_event(self, ln: _Line) -> _Shown:
        ev = ln.x.get("event") or {}
        kind = str(ev.get("kind", "event"))
        player = ev.get("player") if ev.get("player") in (0, 1) else None
        r = self.round
        if r is None:
            shown = _Shown(f"{ev.get('kind')} (before any round)")
        elif kind in _EVENT_HANDLERS and (player is not None or kind not in _PLAYER_EVENTS):
            shown = _EVENT_HANDLERS[kind](self, r, player, ev)
        else:
            k = ev.get("kind")
            shown = _Shown(
                f"event {k!r}", note=f"an event of kind {k!r} whose fields the page cannot use"
            )
        shown.type = kind
        return shown

    def on_log(self, ln: _Line) -> _Shown:
        item = self.private_of(ln.seq, "log")
        log = str(item["message"]) if item and "message" in item else None
        shown = log if log is not None else f"({ln.x.get('chars', '?')} characters, not revealed)"
        return _Shown(f"{self.who(ln.seat)} log: " + shown, log=log)

    def on_rules(self, ln: _Line) -> _Shown:
        return _Shown(f"{self.who(ln.seat)} asked for the rules, topic {ln.x.get('topic')!r}")

    def on_stale(self, ln: _Line) -> _Shown:
        return _Shown(
            f"{self.who(ln.seat)} answered request {ln.x.get('id')}, which is not pending "
            f"({ln.x.get('pending')} is): ignored"
        )

    def on_timeout(self, ln: _Line) -> _Shown:
        if ln.seat is not None:
            ck = self.clocks[ln.seat]
            ck.timed_out = True
            ck.bank_ns = 0
            ck.delay_left_ns = 0
        late = duration(ln.x.get("overrun_ns"))
        return _Shown(f"{self.who(ln.seat)} ran out of time: {late} late")

    def on_resign(self, ln: _Line) -> _Shown:
        return _Shown(f"{self.who(ln.seat)} resigned")

    def on_round_reveal(self, ln: _Line) -> _Shown:
        rn = int(ln.x.get("round") or 0)
        self.tl.reveals[rn] = len(self.tl.steps)
        n = len(ln.x.get("private") or [])
        return _Shown(f"Round {rn} revealed: the deal and {n} private items open")

    def on_seed_reveal(self, ln: _Line) -> _Shown:
        return _Shown(f"The seed is revealed: {ln.x.get('seed')}")

    def on_engine_exit(self, ln: _Line) -> _Shown:
        x = ln.x
        sig = x.get("signal")
        status = f"signal {sig}" if sig else f"exit code {x.get('exit_code')}"
        return _Shown(
            f"{self.who(ln.seat)} ended: {x.get('how', '?')}, {status}; "
            f"{x.get('log_lines', 0)} log lines, {x.get('stderr_bytes', 0)} bytes on stderr"
        )

    def on_result(self, ln: _Line) -> _Shown:
        x = ln.x
        end = {
            "winner": x.get("winner"),
            "reason": x.get("reason"),
            "detail": x.get("detail") or {},
            "balances": x.get("balances"),
            "rounds": x.get("rounds"),
            "rated": x.get("rated"),
        }
        self.tl.result = end
        bal = x.get("balances")
        if isinstance(bal, list) and len(bal) == 2:
            self.balances = (int(bal[0]), int(bal[1]))
        self.to_act = None
        return _Shown(result_text(end, self.names))

    # One handler per event kind (see _EVENT_HANDLERS): the round is under way.

    def on_placed(self, r: _Round, p: int | None, ev: dict[str, Any]) -> _Shown:
        assert p is not None
        t = _tile(ev["tile"])
        at = ev.get("at")
        note = r.place(p, t, at)
        where = "opens with" if at is None else "plays"
        place = "" if at is None else f" at {_point(at).words}"
        pts = ev.get("points") or 0
        text = f"{self.who(p)} {where} [{t.low}|{t.high}]{place} · count {ev.get('count')}"
        return _Shown(text + (f" → earns {pts}" if pts else ""), note=note)

    def on_drew(self, r: _Round, p: int | None, ev: dict[str, Any]) -> _Shown:
        assert p is not None
        note, got = r.apply(p, DRAW)
        r.sizes[p] += 1
        left = ev.get("boneyard_left")
        r.boneyard = int(left) if isinstance(left, int) else r.boneyard - 1
        shown = f"[{got.low}|{got.high}]" if got is not None else "a tile"
        return _Shown(f"{self.who(p)} draws {shown} · {r.boneyard} left", note=note, drawn=(p, got))

    def on_passed(self, r: _Round, p: int | None, ev: dict[str, Any]) -> _Shown:
        return _Shown(f"{self.who(p)} passes: cannot play and the boneyard is empty")

    def on_auction(self, r: _Round, p: int | None, ev: dict[str, Any]) -> _Shown:
        assert p is not None
        text = str(ev.get("action"))
        try:
            action = parse_action(text)
        except RulesError:
            return _Shown(f"{self.who(p)}: {text}", note="not an auction action")
        note, _ = r.apply(p, action)
        r.auction.append((p, text))
        if text.startswith("bid"):
            r.bid, r.bidder = int(text.split()[1]), p
            word = "bids" if len(r.auction) == 1 else "raises to"
            return _Shown(f"{self.who(p)} {word} {r.bid}", note=note)
        if text == "decline":
            opens = f"{self.who(r.jockey)} opens for free"
            return _Shown(f"{self.who(p)} declines: {opens}", note=note)
        return _Shown(f"{self.who(p)} accepts {r.bid} from {self.who(r.bidder)}", note=note)

    def on_transfer(self, r: _Round, p: int | None, ev: dict[str, Any]) -> _Shown:
        bal = ev.get("balances") or list(self.balances)
        self.balances = (int(bal[0]), int(bal[1]))
        payer, payee = ev.get("payer"), ev.get("payee")
        amount, requested = ev.get("amount"), ev.get("requested")
        reason = ev.get("reason")
        capped = f" (of {requested}: all {self.who(payer)} had)" if amount != requested else ""
        if reason == "auction":
            credit = ""
            if r.bid is not None and requested != r.bid:
                credit = f" (bid {r.bid} less the jockey's credit 15)"
            r.payment = f"{self.who(payer)} pays {amount}{credit}"
        return _Shown(
            f"{self.who(payer)} pays {self.who(payee)} {amount}{capped} for the {reason}"
            f" → {self.balances[0]}–{self.balances[1]}"
        )

    def on_round_ended(self, r: _Round, p: int | None, ev: dict[str, Any]) -> _Shown:
        reason = ev.get("reason")
        w = ev.get("winner")
        pips = ev.get("pips") or [0, 0]
        hands = ev.get("hands")
        note = None
        if r.match is not None and isinstance(hands, list):
            ended = [sorted(_tile(pair) for pair in h) for h in hands]
            if [sorted(h or []) for h in r.hands()] != ended:
                note = "the hands the round ended with differ from the rebuilt ones"
        if reason == "domino":
            text = f"Round {ev.get('round')} ends: {self.who(w)} dominoes"
        elif reason == "block":
            paid = ev.get("payout") or 0
            text = f"Round {ev.get('round')} is blocked: pips {pips[0]}–{pips[1]}, " + (
                f"{self.who(w)} is paid {paid}" if w is not None else "equal, nothing paid"
            )
        else:
            text = f"Round {ev.get('round')} ends: a balance reached 0"
        return _Shown(text + f" · pips in hand {pips[0]}–{pips[1]}", note=note)

    def on_match_ended(self, r: _Round, p: int | None, ev: dict[str, Any]) -> _Shown:
        winner = self.who(ev.get("winner"))
        return _Shown(f"The game is over: {winner} wins by {ev.get('reason')}")


_LINE_HANDLERS: dict[str, Callable[[_Builder, _Line], _Shown]] = {
    "header": _Builder.on_header,
    "hello": _Builder.on_hello,
    "round_start": _Builder.on_round_start,
    "request": _Builder.on_request,
    "reply": _Builder.on_reply,
    "retry": _Builder.on_retry,
    "event": _Builder.on_event,
    "log": _Builder.on_log,
    "rules": _Builder.on_rules,
    "stale": _Builder.on_stale,
    "timeout": _Builder.on_timeout,
    "resign": _Builder.on_resign,
    "round_reveal": _Builder.on_round_reveal,
    "seed_reveal": _Builder.on_seed_reveal,
    "engine_exit": _Builder.on_engine_exit,
    "result": _Builder.on_result,
}

_EVENT_HANDLERS: dict[str, Callable[[_Builder, _Round, int | None, dict[str, Any]], _Shown]] = {
    "placed": _Builder.on_placed,
    "drew": _Builder.on_drew,
    "passed": _Builder.on_passed,
    "auction": _Builder.on_auction,
    "transfer": _Builder.on_transfer,
    "round_ended": _Builder.on_round_ended,
    "match_ended": _Builder.on_match_ended,
}
# Events that only make sense with a player: without one they are shown as unusable.
_PLAYER_EVENTS = frozenset({"placed", "drew", "auction"})


def build_timeline(data: bytes) -> Timeline:
    """Every step of the transcript in ``data`` (plain or compressed); a bad or cut
    line ends the steps there.

    A ``bidref-transcript/2`` file leaves out what the rules and the clock derive
    (events, each request's clock, each reply's charge): a file that replays clean
    is read spelled out (:func:`~bidref.transcript.expand.expanded_entries`, the
    ``/1`` form of the same match); any other is read line by line as it is. Either
    way every step carries the number of the file's own line it comes from (a derived
    event, the line that caused it), so the page's "line N", ``#line=N`` and the
    ``FILE:LINE`` of ``bidref replay`` agree."""
    from ...transcript.expand import TranscriptMismatch, expanded_entries
    from ...transcript.files import TranscriptFileError, decompress

    try:
        data = decompress(data, "")
    except TranscriptFileError as e:
        tl = _Builder([]).build()
        tl.problem = str(e)
        return tl
    read = read_transcript(data)
    items: list[tuple[int, dict[str, Any]]] = [(ln.number, ln.data) for ln in read.lines]
    if read.problem is None:
        # (a file that does not replay clean is shown as it is, up to where it goes wrong)
        with contextlib.suppress(TranscriptMismatch, ValueError):
            items = expanded_entries(data)
    tl = _Builder(items).build()
    if read.problem is not None:
        tl.problem = f"line {read.problem.number}: {read.problem.message}"
    elif read.truncated_at is not None:
        tl.problem = f"line {read.truncated_at} is cut short: the transcript stops there"
    return tl
