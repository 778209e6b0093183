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
from .text import Words, result_text

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
        self.say = Words(self.names)
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

    # One handler per line model of protocols/transcript.md (see _LINE_HANDLERS): each
    # brings the state up to date and says what the line was (self.say, .text.Words).

    def on_header(self, ln: _Line, h: Header) -> _Shown:
        return _Shown(self.say.header(h, self.tl.clock_text()))

    def on_hello(self, ln: _Line, h: Hello) -> _Shown:
        if ln.seat is not None and h.engine.get("name"):
            self.engines[ln.seat] = {**self.engines[ln.seat], **h.engine}
        return _Shown(self.say.hello(ln.seat, h))

    def on_round_start(self, ln: _Line, rs: RoundStart) -> _Shown:
        self.round_no = rs.round or self.round_no + 1
        bal = rs.balances or list(self.balances)
        self.balances = (int(bal[0]), int(bal[1]))
        jockey = seat_of(rs.jockey)
        self.round = Round(self.round_no, self.deals.get(self.round_no), self.balances, jockey)
        self.tl.rounds[self.round_no] = len(self.tl.steps)
        return _Shown(self.say.round_start(self.round_no, rs.opening, jockey, self.balances))

    def on_request(self, ln: _Line, rq: Request) -> _Shown:
        seat = ln.seat
        self.to_act = seat
        if seat is None:
            return _Shown(self.say.request(seat, rq.phase, None, None))
        c = rq.clock
        ck = self.clocks[seat]
        ck.delay_left_ns = 0 if c is None else c.delay_left_ns
        ck.deadline_ns = rq.deadline_ns
        if c is not None:
            ck.bank_ns = c.bank_ns
            self.clocks[1 - seat].bank_ns = c.opponent_bank_ns
        return _Shown(self.say.request(seat, rq.phase, ck.delay_left_ns, ck.bank_ns))

    def on_reply(self, ln: _Line, rp: Reply) -> _Shown:
        cost = None if ln.seat is None else self.charge(ln.seat, ln.number, rp)
        err = None if rp.status == "accepted" else self.private_of(ln.seq, "error_raw")
        return _Shown(self.say.reply(ln.seat, rp, None if err is None else err.message), cost=cost)

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
        return _Shown(self.say.retry(ln.seat, rt))

    def on_event(self, ln: _Line, e: EventLine) -> _Shown:
        """A ``/1`` event line: its event read back into the rules' event."""
        d = e.event
        kind = str(d.get("kind", "event"))
        if self.round is None:
            return _Shown(self.say.before_any_round(d.get("kind")), type=kind)
        ev = event_of(d)
        if ev is None:
            text, note = self.say.unusable(d.get("kind"))
            return _Shown(text, type=kind, note=note)
        return self.event(ev)

    def event(self, ev: Event) -> _Shown:
        """A rules event (derived by the replay, or read from a ``/1`` event line)."""
        handler = _EVENT_HANDLERS.get(type(ev))
        if self.round is None:
            shown = _Shown(self.say.before_any_round(ev.kind))
        elif handler is None:
            text, note = self.say.unusable(ev.kind)
            shown = _Shown(text, note=note)
        else:
            shown = handler(self, self.round, ev)
        shown.type = ev.kind
        return shown

    def on_log(self, ln: _Line, g: LogLine) -> _Shown:
        item = self.private_of(ln.seq, "log")
        log = None if item is None else item.message
        return _Shown(self.say.log(ln.seat, log, g.chars), log=log)

    def on_rules(self, ln: _Line, r: RulesAsked) -> _Shown:
        return _Shown(self.say.rules(ln.seat, r.topic))

    def on_stale(self, ln: _Line, s: Stale) -> _Shown:
        return _Shown(self.say.stale(ln.seat, s))

    def on_timeout(self, ln: _Line, t: Timeout) -> _Shown:
        if ln.seat is not None:
            ck = self.clocks[ln.seat]
            ck.timed_out = True
            ck.bank_ns = 0
            ck.delay_left_ns = 0
        return _Shown(self.say.timeout(ln.seat, t.overrun_ns))

    def on_resign(self, ln: _Line, r: Resign) -> _Shown:
        return _Shown(self.say.resign(ln.seat))

    def on_connection(self, ln: _Line, c: Connection) -> _Shown:
        # A network seat's connect or drop changes nothing on the table: the page
        # shows the line's type, as it always has.
        return _Shown(ln.kind)

    def on_round_reveal(self, ln: _Line, r: RoundReveal) -> _Shown:
        self.tl.reveals[r.round] = len(self.tl.steps)
        return _Shown(self.say.round_reveal(r.round, len(r.private)))

    def on_seed_reveal(self, ln: _Line, s: SeedReveal) -> _Shown:
        return _Shown(self.say.seed_reveal(s.seed))

    def on_engine_exit(self, ln: _Line, e: EngineExit) -> _Shown:
        return _Shown(self.say.engine_exit(ln.seat, e))

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
        note = r.place(ev.player, ev.tile, ev.at)
        return _Shown(self.say.placed(ev), note=note)

    def on_drew(self, r: Round, ev: Drew) -> _Shown:
        p = ev.player
        note, got = r.apply(p, DRAW)
        r.sizes[p] += 1
        r.boneyard = ev.boneyard_left
        return _Shown(self.say.drew(p, got, r.boneyard), note=note, drawn=(p, got))

    def on_passed(self, r: Round, ev: Passed) -> _Shown:
        return _Shown(self.say.passed(ev.player))

    def on_auction(self, r: Round, ev: AuctionMove) -> _Shown:
        p, text = ev.player, ev.action
        try:
            action = parse_action(text)
        except RulesError:
            return _Shown(self.say.not_auction(p, text), note="not an auction action")
        note, _ = r.apply(p, action)
        r.auction.append((p, text))
        if text.startswith("bid"):
            r.bid, r.bidder = int(text.split()[1]), p
            return _Shown(self.say.bid(p, r.bid, first=len(r.auction) == 1), note=note)
        if text == "decline":
            return _Shown(self.say.decline(p, r.jockey), note=note)
        return _Shown(self.say.accept(p, r.bid, r.bidder), note=note)

    def on_transfer(self, r: Round, ev: Transfer) -> _Shown:
        self.balances = (ev.balances[0], ev.balances[1])
        if ev.reason == "auction":
            r.payment = self.say.payment(ev, r.bid)
        return _Shown(self.say.transfer(ev))

    def on_round_ended(self, r: Round, ev: RoundEnded) -> _Shown:
        note = None
        if r.match is not None:
            ended = [sorted(h) for h in ev.hands]
            if [sorted(h or []) for h in r.hands()] != ended:
                note = "the hands the round ended with differ from the rebuilt ones"
        return _Shown(self.say.round_ended(ev), note=note)

    def on_match_ended(self, r: Round, ev: MatchEnded) -> _Shown:
        return _Shown(self.say.match_ended(ev))


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
