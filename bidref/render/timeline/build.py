"""Reading a transcript into the replay page's :class:`~.model.Timeline`.

This is the one place that turns a transcript into what the replay page shows.
It reads only the *public* line types of ``protocols/transcript.md`` as their
typed models (:mod:`bidref.transcript.lines`) and the rules' typed events, and
hands each to its handler by its class (as :mod:`bidref.transcript.replay.fold`
does); it rebuilds the game by re-applying the placements, draws and auction
moves with the rules core (:mod:`.rebuild`). It never reads the raw request or
reply copies, and it does not verify the transcript (``bidref replay`` does): a
line that disagrees with the rules is shown with a note and the rebuild goes on
from the public facts.

From the reveal it takes only what a spectator would want after the round:
the deal, engine log messages and error messages (by the ``seq`` of the public
line they belong to).
"""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final

from ...rules import (
    DRAW,
    AuctionMove,
    Deal,
    Drew,
    Event,
    Layout,
    MatchEnded,
    Passed,
    Phase,
    Placed,
    RoundEnded,
    RulesError,
    Tile,
    Transfer,
    parse_action,
)
from ...transcript.expand import Expanded, TranscriptMismatch, expanded_items
from ...transcript.files import TranscriptFileError, decompress
from ...transcript.lines import (
    Connection,
    EngineExit,
    EventLine,
    Header,
    Hello,
    Line,
    LogLine,
    PrivateItem,
    Reply,
    Request,
    Resign,
    Result,
    Retry,
    RoundReveal,
    RoundStart,
    RulesAsked,
    SeedReveal,
    Stale,
    TimeControlField,
    Timeout,
    tag_of,
)
from ...transcript.reader import read_transcript
from .events import event_of, seat_of
from .model import NO_BIDDING, NO_TABLE, Bidding, Clock, Cost, Step, Table, Timeline, Turn
from .rebuild import Round
from .text import SEATS, duration, engine_exit_text, result_text, seconds, took_text

EVENT_TYPES: Final[tuple[type[Any], ...]] = typing.get_args(Event)
"""Every class of rules event (a line the reader meets is a line model or one of these)."""

_SEATED: Final = (
    Hello,
    Request,
    Reply,
    Retry,
    Timeout,
    Stale,
    RulesAsked,
    LogLine,
    Resign,
    EngineExit,
    Connection,
)
"""The line models that are a seat's."""


def _seat_controls(
    raw: list[TimeControlField] | None,
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The header's per-seat ``time_controls`` as (bank, delay) pairs, if two."""
    if raw is None or len(raw) != 2:
        return None
    a, b = raw
    return (a.bank_ns, a.delay_ns), (b.bank_ns, b.delay_ns)


def _deal(d: dict[str, Any]) -> Deal | None:
    try:
        return Deal.from_lists(d["hands"][0], d["hands"][1], d["boneyard"])
    except (KeyError, TypeError, ValueError, IndexError, RulesError):
        return None


def kind_of(item: object) -> str:
    """What a line is called: its ``type`` (``event`` for a rules event)."""
    if isinstance(item, Line):
        return tag_of(type(item))
    return "event" if isinstance(item, EVENT_TYPES) else type(item).__name__


@dataclass(frozen=True)
class _Line:
    """One transcript line as the builder meets it."""

    number: int  # its line number in the file (events a v2 file leaves out: their reply's)
    item: Line | Event
    kind: str
    seq: int  # the line's ``seq`` (the key of its private items in the reveal)
    seat: int | None
    t_ns: int


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
    def __init__(self, items: list[Expanded]) -> None:
        self.items = items
        header = items[0].item if items and isinstance(items[0].item, Header) else None
        engines = (header.engines if header else None) or [{}, {}]
        self.engines: list[dict[str, Any]] = [dict(e) for e in engines[:2]]
        while len(self.engines) < 2:
            self.engines.append({})
        self.names = [str(e.get("name") or f"seat {i}") for i, e in enumerate(self.engines)]
        tc = header.time_control if header else TimeControlField(0, 0)
        per_seat = _seat_controls(header.time_controls if header else None)
        self.tl = Timeline(
            names=(self.names[0], self.names[1]),
            engines=(self.engines[0], self.engines[1]),
            bank_ns=tc.bank_ns,
            delay_ns=tc.delay_ns,
            max_rounds=header.max_rounds if header else None,
            controls=per_seat if per_seat and per_seat[0] != per_seat[1] else None,
        )
        banks = [c[0] for c in self.tl.seat_controls()]
        self.clocks = [Clock(banks[0]), Clock(banks[1])]
        self.balances = (150, 150)
        self.round: Round | None = None
        self.round_no = 0
        self.to_act: int | None = None
        self.deals: dict[int, Deal | None] = {}
        self.private: dict[int, list[PrivateItem]] = {}
        for entry in items:
            if isinstance(entry.item, RoundReveal):
                self.deals[entry.item.round] = _deal(entry.item.deal)
                for p in entry.item.private:
                    self.private.setdefault(p.seq, []).append(p)
        self.layout_key: tuple[int, int] | None = None
        self.legal: list[str] | None = None

    def who(self, seat: int | None) -> str:
        """``A (alpha)``; ``nobody`` for no seat."""
        if seat is None or seat not in (0, 1):
            return "nobody"
        return f"{SEATS[seat]} ({self.names[seat]})"

    def private_of(self, seq: int, kind: str) -> PrivateItem | None:
        for item in self.private.get(seq, []):
            if item.kind == kind:
                return item
        return None

    def build(self) -> Timeline:
        for entry in self.items:
            try:
                self.line(entry)
            except (KeyError, TypeError, ValueError, IndexError, AttributeError, RulesError) as e:
                # A line whose fields are not as protocols/transcript.md gives them: shown
                # with a note, the state as it was (the page is for looking, not checking).
                kind = kind_of(entry.item)
                text = f"{kind} line that cannot be read ({type(e).__name__}: {e})"
                self.tl.steps.append(self.unreadable(entry.line, kind, text))
        return self.tl

    def unreadable(self, number: int, kind: str, note: str) -> Step:
        if self.tl.steps:
            prev = self.tl.steps[-1]
            return replace(
                prev,
                line=number,
                type=kind,
                text=note,
                note=note,
                log=None,
                seat=None,
                table=replace(prev.table, drawn=None),
                turn=replace(prev.turn, cost=None),
            )
        return Step(
            line=number,
            type=kind,
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

    def line(self, entry: Expanded) -> None:
        """Apply one line (line ``entry.line`` of the file) and record its step: a line
        model goes to the handler of its class, a rules event to its event's."""
        item = entry.item
        if not isinstance(item, (Line, *EVENT_TYPES)):
            raise TypeError(f"{type(item).__name__} is not a transcript line nor a rules event")
        seat = None
        if isinstance(item, _SEATED):
            seat = seat_of(item.seat)
        ln = _Line(entry.line, item, kind_of(item), entry.seq, seat, entry.t_ns)
        if isinstance(item, Line):
            handler = _LINE_HANDLERS.get(type(item))
            # (a line type the page has no handler for is shown by its type)
            shown = handler(self, ln, item) if handler is not None else _Shown(ln.kind)
        else:
            shown = self.event(item)
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
            isinstance(ln.item, (Request, Retry))
            and r is not None
            and r.match is not None
            and r.match.phase is not Phase.OVER
            and r.match.to_act == ln.seat
        ):
            self.legal = [str(a) for a in r.match.legal_actions()]
        # (the records made as they are, not with dataclasses.replace: 4x faster, per step)
        layout, drawn = self.layout_index(), shown.drawn
        if r is None:
            table = Table(self.round_no, phase, layout, None, (None, None), (0, 0), None, drawn)
            bidding = NO_BIDDING
        else:
            sizes = (r.sizes[0], r.sizes[1])
            table = Table(self.round_no, phase, layout, r.last, r.hands(), sizes, r.boneyard, drawn)
            bidding = Bidding(list(r.auction), r.jockey, r.bid, r.bidder, r.payment)
        clocks = (self.clocks[0].copy(), self.clocks[1].copy())
        self.tl.steps.append(
            Step(
                line=ln.number,
                type=shown.type or ln.kind,
                text=shown.text,
                t_ns=ln.t_ns,
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

    # One handler per line model of protocols/transcript.md (see _LINE_HANDLERS).

    def on_header(self, ln: _Line, h: Header) -> _Shown:
        limit = h.max_rounds
        return _Shown(
            f"{self.names[0]} (A) vs {self.names[1]} (B) · {self.tl.clock_text()}"
            + (f" · at most {limit} rounds" if limit else "")
            + f" · illegal actions: {h.illegal}"
        )

    def on_hello(self, ln: _Line, h: Hello) -> _Shown:
        e = h.engine
        if ln.seat is not None and e.get("name"):
            self.engines[ln.seat] = {**self.engines[ln.seat], **e}
        return _Shown(
            f"{self.who(ln.seat)} said hello: {e.get('name', '?')} {e.get('version', '')}"
            f" by {e.get('author', '?')} · {duration(h.elapsed_ns)}"
        )

    def on_round_start(self, ln: _Line, rs: RoundStart) -> _Shown:
        self.round_no = rs.round or self.round_no + 1
        bal = rs.balances or list(self.balances)
        self.balances = (int(bal[0]), int(bal[1]))
        jockey = seat_of(rs.jockey)
        self.round = Round(self.round_no, self.deals.get(self.round_no), self.balances, jockey)
        self.tl.rounds[self.round_no] = len(self.tl.steps)
        text = f"Round {self.round_no}: {rs.opening} opening" + (
            f", {self.who(jockey)} is the jockey" if jockey is not None else ""
        )
        return _Shown(text + f" · balances {self.balances[0]}–{self.balances[1]}")

    def on_request(self, ln: _Line, rq: Request) -> _Shown:
        seat = ln.seat
        self.to_act = seat
        if seat is not None:
            c = rq.clock
            ck = self.clocks[seat]
            ck.delay_left_ns = 0 if c is None else c.delay_left_ns
            ck.deadline_ns = rq.deadline_ns
            if c is not None:
                ck.bank_ns = c.bank_ns
                self.clocks[1 - seat].bank_ns = c.opponent_bank_ns
        ck_of = None if seat is None else self.clocks[seat]
        return _Shown(
            f"{self.who(seat)} to decide ({'?' if rq.phase is None else rq.phase}): delay "
            f"{seconds(ck_of.delay_left_ns if ck_of else None)}"
            f" + bank {seconds(ck_of.bank_ns if ck_of else None)}"
        )

    def on_reply(self, ln: _Line, rp: Reply) -> _Shown:
        seat = ln.seat
        cost = None if seat is None else self.charge(seat, ln.number, rp)
        ch = rp.charge
        took = took_text(
            rp.elapsed_ns,
            None if ch is None else ch.delay_used_ns,
            None if ch is None else ch.bank_used_ns,
            rp.cpu_ns,
            rp.wait_ns,
        )
        if rp.status == "accepted":
            return _Shown(f"{self.who(seat)}: {rp.action} · took {took}", cost=cost)
        err = self.private_of(ln.seq, "error_raw")
        why = f": {err.message}" if err and err.message else ""
        return _Shown(
            f"{self.who(seat)}: {rp.status} action ({rp.rule or 'no rule'}) · took {took}{why}",
            cost=cost,
        )

    def charge(self, seat: int, number: int, rp: Reply) -> Cost:
        """Settle a reply on ``seat``'s clock; the cost it shows."""
        ch = rp.charge
        ck = self.clocks[seat]
        ck.last = Cost(
            rp.elapsed_ns or 0,
            0 if ch is None else ch.delay_used_ns,
            0 if ch is None else ch.bank_used_ns,
            number,
            rp.cpu_ns,
            rp.wait_ns,
        )
        banks = rp.banks_ns
        if banks is not None and len(banks) == 2:
            self.clocks[0].bank_ns, self.clocks[1].bank_ns = banks[0], banks[1]
        if rp.status == "accepted":
            ck.delay_left_ns = None
            ck.deadline_ns = None
            self.to_act = None
        else:
            ck.delay_left_ns = max(0, (ck.delay_left_ns or 0) - ck.last.delay_used_ns)
        return ck.last

    def on_retry(self, ln: _Line, rt: Retry) -> _Shown:
        if ln.seat is not None:
            ck = self.clocks[ln.seat]
            # (a v2 retry leaves its clock out: the clock stays as it was)
            if rt.delay_left_ns is not None:
                ck.delay_left_ns = rt.delay_left_ns
            if rt.bank_ns is not None:
                ck.bank_ns = rt.bank_ns
            ck.deadline_ns = rt.deadline_ns
            self.to_act = ln.seat
        return _Shown(
            f"{self.who(ln.seat)} decides again: delay {seconds(rt.delay_left_ns)}"
            f" + bank {seconds(rt.bank_ns)}"
        )

    def on_event(self, ln: _Line, e: EventLine) -> _Shown:
        """A ``/1`` event line: its event read back into the rules' event."""
        d = e.event
        kind = str(d.get("kind", "event"))
        if self.round is None:
            return _Shown(f"{d.get('kind')} (before any round)", type=kind)
        ev = event_of(d)
        if ev is None:
            k = d.get("kind")
            note = f"an event of kind {k!r} whose fields the page cannot use"
            return _Shown(f"event {k!r}", type=kind, note=note)
        return self.event(ev)

    def event(self, ev: Event) -> _Shown:
        """A rules event (derived by the replay, or read from a ``/1`` event line)."""
        handler = _EVENT_HANDLERS.get(type(ev))
        if self.round is None:
            shown = _Shown(f"{ev.kind} (before any round)")
        elif handler is None:
            note = f"an event of kind {ev.kind!r} whose fields the page cannot use"
            shown = _Shown(f"event {ev.kind!r}", note=note)
        else:
            shown = handler(self, self.round, ev)
        shown.type = ev.kind
        return shown

    def on_log(self, ln: _Line, g: LogLine) -> _Shown:
        item = self.private_of(ln.seq, "log")
        log = None if item is None else item.message
        shown = log if log is not None else f"({g.chars} characters, not revealed)"
        return _Shown(f"{self.who(ln.seat)} log: " + shown, log=log)

    def on_rules(self, ln: _Line, r: RulesAsked) -> _Shown:
        return _Shown(f"{self.who(ln.seat)} asked for the rules, topic {r.topic!r}")

    def on_stale(self, ln: _Line, s: Stale) -> _Shown:
        return _Shown(
            f"{self.who(ln.seat)} answered request {s.id}, which is not pending "
            f"({s.pending} is): ignored"
        )

    def on_timeout(self, ln: _Line, t: Timeout) -> _Shown:
        if ln.seat is not None:
            ck = self.clocks[ln.seat]
            ck.timed_out = True
            ck.bank_ns = 0
            ck.delay_left_ns = 0
        return _Shown(f"{self.who(ln.seat)} ran out of time: {duration(t.overrun_ns)} late")

    def on_resign(self, ln: _Line, r: Resign) -> _Shown:
        return _Shown(f"{self.who(ln.seat)} resigned")

    def on_connection(self, ln: _Line, c: Connection) -> _Shown:
        # A network seat's connect or drop changes nothing on the table: the page
        # shows the line's type, as it always has.
        return _Shown(ln.kind)

    def on_round_reveal(self, ln: _Line, r: RoundReveal) -> _Shown:
        self.tl.reveals[r.round] = len(self.tl.steps)
        n = len(r.private)
        return _Shown(f"Round {r.round} revealed: the deal and {n} private items open")

    def on_seed_reveal(self, ln: _Line, s: SeedReveal) -> _Shown:
        return _Shown(f"The seed is revealed: {s.seed}")

    def on_engine_exit(self, ln: _Line, e: EngineExit) -> _Shown:
        return _Shown(f"{self.who(ln.seat)} ended: {engine_exit_text(e)}")

    def on_result(self, ln: _Line, r: Result) -> _Shown:
        end = {
            "winner": r.winner,
            "reason": r.reason,
            "detail": r.detail or {},
            "balances": r.balances,
            "rounds": r.rounds,
            "rated": r.rated,
        }
        self.tl.result = end
        if len(r.balances) == 2:
            self.balances = (r.balances[0], r.balances[1])
        self.to_act = None
        return _Shown(result_text(end, self.names))

    # One handler per class of rules event (see _EVENT_HANDLERS): the round is under way.

    def on_placed(self, r: Round, ev: Placed) -> _Shown:
        t, at, p = ev.tile, ev.at, ev.player
        note = r.place(p, t, at)
        where = "opens with" if at is None else "plays"
        place = "" if at is None else f" at {at.words}"
        text = f"{self.who(p)} {where} [{t.low}|{t.high}]{place} · count {ev.count}"
        return _Shown(text + (f" → earns {ev.points}" if ev.points else ""), note=note)

    def on_drew(self, r: Round, ev: Drew) -> _Shown:
        p = ev.player
        note, got = r.apply(p, DRAW)
        r.sizes[p] += 1
        r.boneyard = ev.boneyard_left
        shown = f"[{got.low}|{got.high}]" if got is not None else "a tile"
        return _Shown(f"{self.who(p)} draws {shown} · {r.boneyard} left", note=note, drawn=(p, got))

    def on_passed(self, r: Round, ev: Passed) -> _Shown:
        return _Shown(f"{self.who(ev.player)} passes: cannot play and the boneyard is empty")

    def on_auction(self, r: Round, ev: AuctionMove) -> _Shown:
        p, text = ev.player, ev.action
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

    def on_transfer(self, r: Round, ev: Transfer) -> _Shown:
        self.balances = (ev.balances[0], ev.balances[1])
        payer, payee, amount, requested = ev.payer, ev.payee, ev.amount, ev.requested
        capped = f" (of {requested}: all {self.who(payer)} had)" if amount != requested else ""
        if ev.reason == "auction":
            credit = ""
            if r.bid is not None and requested != r.bid:
                credit = f" (bid {r.bid} less the jockey's credit 15)"
            r.payment = f"{self.who(payer)} pays {amount}{credit}"
        return _Shown(
            f"{self.who(payer)} pays {self.who(payee)} {amount}{capped} for the {ev.reason}"
            f" → {self.balances[0]}–{self.balances[1]}"
        )

    def on_round_ended(self, r: Round, ev: RoundEnded) -> _Shown:
        w, pips = ev.winner, ev.pips
        note = None
        if r.match is not None:
            ended = [sorted(h) for h in ev.hands]
            if [sorted(h or []) for h in r.hands()] != ended:
                note = "the hands the round ended with differ from the rebuilt ones"
        if ev.reason == "domino":
            text = f"Round {ev.round} ends: {self.who(w)} dominoes"
        elif ev.reason == "block":
            text = f"Round {ev.round} is blocked: pips {pips[0]}–{pips[1]}, " + (
                f"{self.who(w)} is paid {ev.payout}" if w is not None else "equal, nothing paid"
            )
        else:
            text = f"Round {ev.round} ends: a balance reached 0"
        return _Shown(text + f" · pips in hand {pips[0]}–{pips[1]}", note=note)

    def on_match_ended(self, r: Round, ev: MatchEnded) -> _Shown:
        return _Shown(f"The game is over: {self.who(ev.winner)} wins by {ev.reason}")


_LINE_HANDLERS: Final[dict[type[Line], Callable[[_Builder, _Line, Any], _Shown]]] = {
    Header: _Builder.on_header,
    Hello: _Builder.on_hello,
    RoundStart: _Builder.on_round_start,
    Request: _Builder.on_request,
    Reply: _Builder.on_reply,
    Retry: _Builder.on_retry,
    EventLine: _Builder.on_event,
    LogLine: _Builder.on_log,
    RulesAsked: _Builder.on_rules,
    Stale: _Builder.on_stale,
    Timeout: _Builder.on_timeout,
    Resign: _Builder.on_resign,
    Connection: _Builder.on_connection,
    RoundReveal: _Builder.on_round_reveal,
    SeedReveal: _Builder.on_seed_reveal,
    EngineExit: _Builder.on_engine_exit,
    Result: _Builder.on_result,
}
"""What each line model goes to (every class of :data:`~bidref.transcript.lines.LINE_TYPES`)."""

_EVENT_HANDLERS: Final[dict[type[Any], Callable[[_Builder, Round, Any], _Shown]]] = {
    Placed: _Builder.on_placed,
    Drew: _Builder.on_drew,
    Passed: _Builder.on_passed,
    AuctionMove: _Builder.on_auction,
    Transfer: _Builder.on_transfer,
    RoundEnded: _Builder.on_round_ended,
    MatchEnded: _Builder.on_match_ended,
}
"""What each public rules event goes to (:class:`~bidref.rules.RoundStarted` is the
referee's own: never in a transcript, so the page has no use for it)."""


def build_timeline(data: bytes) -> Timeline:
    """Every step of the transcript in ``data`` (plain or compressed); a bad or cut
    line ends the steps there.

    A ``bidref-transcript/2`` file leaves out what the rules and the clock derive
    (events, each request's clock, each reply's charge): a file that replays clean
    is read spelled out (:func:`~bidref.transcript.expand.expanded_items`, the
    ``/1`` form of the same match, typed); any other is read line by line as it is.
    Either way every step carries the number of the file's own line it comes from (a
    derived event, the line that caused it), so the page's "line N", ``#line=N`` and
    the ``FILE:LINE`` of ``bidref replay`` agree."""
    try:
        data = decompress(data, "")
    except TranscriptFileError as e:
        tl = _Builder([]).build()
        tl.problem = str(e)
        return tl
    read = read_transcript(data)
    items = [Expanded(ln.number, ln.item, ln.item.seq, ln.item.t_ns) for ln in read.lines]
    if read.problem is None:
        # (a file that does not replay clean is shown as it is, up to where it goes wrong)
        with contextlib.suppress(TranscriptMismatch, ValueError):
            items = expanded_items(data)
    tl = _Builder(items).build()
    if read.problem is not None:
        tl.problem = f"line {read.problem.number}: {read.problem.message}"
    elif read.truncated_at is not None:
        tl.problem = f"line {read.truncated_at} is cut short: the transcript stops there"
    return tl
