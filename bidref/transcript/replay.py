"""Replay a transcript: re-derive the whole match and check every line against it.

The replay trusts nothing the referee wrote. It opens the commitments to the
deals and the seed, refolds the game through the rules core from the revealed
deals and the accepted actions, and checks each line in order: deal
commitments, legality, the public events (counts, transfers, balances, round
ends), drawn tiles, the clock arithmetic (delay and bank charged as the
recorded timestamps imply, with :mod:`bidref.rules.clock`), the end reason and
the result. The first disagreement stops the replay with the line number.

:func:`replay` is a fold over the lines (one pre-pass collects the private
reveals, which the format appends at each round's end). It never raises on
bad input: every problem comes back in :class:`ReplayReport`.

The format is ``protocols/transcript.md`` (``bidref-transcript/1``).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..protocol.messages import PROTOCOL_VERSION
from ..rules import (
    MILLISECOND,
    RULES_VERSION,
    Action,
    Deal,
    Drew,
    Event,
    IllegalActionError,
    Layout,
    Match,
    MatchClock,
    MatchConfig,
    MatchEnded,
    NotationError,
    Passed,
    Placed,
    RoundEnded,
    RoundStarted,
    RulesError,
    Tile,
    TimeControl,
    Transfer,
    parse_action,
    parse_side,
    player_view,
    point,
    points_earned,
    public_event,
    tile,
)
from ..rules.deal import seeded_deals
from .reader import Line, ReadResult, read_transcript, shorten
from .writer import FORMAT, commitment

log = logging.getLogger(__name__)

_SEAT_REASONS = ("resign", "time", "illegal", "crash", "protocol", "startup")


class Mismatch(Exception):
    """The transcript disagrees with the replay at ``line``."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message = shorten(message)
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True, slots=True)
class Step:
    """One thing to show: an action with its consequences, a round start or end, a note.

    ``layout`` is a snapshot after a placement (``last`` is the tile placed).
    """

    line: int
    round: int
    kind: str  # round_start, action, illegal, pass, round_end, match_end, result, note
    text: str
    player: int | None = None
    layout: Layout | None = None
    last: Tile | None = None


@dataclass
class ReplayReport:
    ok: bool = True
    problem: Mismatch | None = None
    truncated: str | None = None  # where and why the transcript stops early
    lines: int = 0  # lines read
    verified_lines: int = 0
    steps: list[Step] = field(default_factory=list)
    stream: list[dict[str, Any]] = field(default_factory=list)  # verified lines, for --json
    result: dict[str, Any] | None = None
    final_layouts: dict[int, Layout] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 clean; 1 a disagreement; 3 verified as far as it goes but truncated."""
        if self.problem is not None:
            return 1
        return 3 if self.truncated else 0

    def verdict(self) -> dict[str, Any]:
        return {
            "type": "verdict",
            "ok": self.problem is None and not self.truncated,
            "problem": None
            if self.problem is None
            else {"line": self.problem.line, "message": self.problem.message},
            "truncated": self.truncated,
            "lines": self.lines,
            "verified_lines": self.verified_lines,
            "result": self.result,
        }


@dataclass(frozen=True, slots=True)
class _Reveal:
    line: Line
    deal: Deal
    deal_json: Any
    salt: str
    private: dict[int, list[dict[str, Any]]]


def _int(d: dict[str, Any], key: str, line: int) -> int:
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise Mismatch(line, f"field {key!r} should be a whole number, is {v!r}")
    return v


def _dict(d: dict[str, Any], key: str, line: int) -> dict[str, Any]:
    v = d.get(key)
    if not isinstance(v, dict):
        raise Mismatch(line, f"field {key!r} should be an object, is {v!r}")
    return v


def _diff(said: Any, derived: Any) -> str:
    if isinstance(said, dict) and isinstance(derived, dict):
        keys = sorted(set(said) | set(derived), key=str)
        parts = [
            f"{k}: transcript {said.get(k)!r}, replay {derived.get(k)!r}"
            for k in keys
            if said.get(k) != derived.get(k)
        ]
        return "; ".join(parts)
    return f"transcript {said!r}, replay {derived!r}"


def _raw(items: list[dict[str, Any]], kind: str, seat: object, rev: _Reveal | None) -> Any:
    """The raw line of ``kind`` among a public line's private items (None if absent);
    it must belong to the line's seat."""
    item = next((i for i in items if i.get("kind") == kind), None)
    if item is None:
        return None
    if item.get("seat") != seat:
        assert rev is not None
        raise Mismatch(
            rev.line.number,
            f"a {kind} item of seat {item.get('seat')!r} for a line of seat {seat!r}",
        )
    return item.get("raw")


def _seconds(ns: int) -> str:
    return f"{ns / 1e9:.2f}s"


def _overrun(ns: int) -> str:
    """How late: in ms below a second (a time loss is often by less than 0.01 s)."""
    return _seconds(ns) if ns >= 1_000_000_000 else f"{ns / 1e6:.3f} ms"


def _name(p: int | None) -> str:
    return "—" if p is None else "AB"[p]


class _Fold:
    """The replay's state while folding over the lines."""

    def __init__(self, report: ReplayReport, reveals: dict[int, _Reveal]) -> None:
        self.report = report
        self.reveals = reveals
        self.header: dict[str, Any] | None = None
        self.match: Match | None = None
        self.clock: MatchClock | None = None
        self.expected: deque[Event] = deque()
        self.pending: dict[str, int] | None = None  # seat, id, start, deadline
        self.last_t = 0
        self.floor = 0
        self.last_t_before_request = 0
        self.public_only = False  # a round never revealed: check what is public only
        self.public_turn = 0
        self.public_balances = [0, 0]
        self.public_action: tuple[int, str, str] | None = None  # seat, action, clock note
        self.public_boneyard = 14
        self.early_reveal: int | None = None
        self.seed_revealed = False
        self.public_layout = Layout()
        self.round = 0
        self.round_ended: set[int] = set()
        self.last_reply: dict[str, Any] | None = None
        self.resigned: int | None = None  # the seat whose resign line was read
        self.policy = "reject"  # the header's illegal-action policy
        self.explicit_deals = 0  # the first rounds' deals were given, not the seed's
        self.rejected: dict[str, Any] | None = None  # the last rejected reply, revealed
        self.hellos: set[int] = set()
        self.timed_out: tuple[int, int, int] | None = None  # seat, overrun, line
        self.done = False

    # -- helpers ----------------------------------------------------------------------

    @property
    def m(self) -> Match:
        assert self.match is not None
        return self.match

    def step(
        self,
        line: int,
        kind: str,
        text: str,
        player: int | None = None,
        layout: Layout | None = None,
        last: Tile | None = None,
    ) -> None:
        self.report.steps.append(Step(line, self.round, kind, text, player, layout, last))

    def emit(self, ln: Line, **extra: Any) -> None:
        """Record a checked line for the JSON stream: ``verified`` is True, or "public"
        for a line of a round that was never revealed (only its public facts checked)."""
        verified: bool | str = "public" if self.public_only else True
        self.report.stream.append({"line": ln.number, **ln.data, **extra, "verified": verified})
        self.report.verified_lines += 1

    # -- the fold --------------------------------------------------------------------------

    def feed(self, ln: Line) -> None:
        d = ln.data
        n = ln.number
        if self.done:
            raise Mismatch(n, f"a {ln.type!r} line after the result line")
        if d.get("seq") != n - 1:
            raise Mismatch(n, f"seq is {d.get('seq')!r}, but this is line {n} (seq {n - 1})")
        t = _int(d, "t_ns", n)
        kind = ln.type
        # Time never goes back, except that an engine may answer before the referee has
        # stamped its request line: the reply and the lines it causes may then carry an
        # earlier time (with elapsed_ns 0), but never one before the line preceding the
        # request.
        floor = self.last_t if kind == "request" else self.floor
        if t < floor:
            raise Mismatch(n, f"t_ns {t} goes back in time (an earlier line has {floor})")
        if kind == "request":
            self.floor = self.last_t_before_request
        else:
            self.last_t_before_request = max(self.last_t_before_request, t)
        self.last_t = max(self.last_t, t)
        if self.header is None:
            if kind != "header":
                raise Mismatch(
                    n, f"the first line is {kind!r}; a transcript starts with its header"
                )
            self.on_header(ln)
            return
        if self.public_only:
            if kind in ("round_start", "result", "round_reveal", "seed_reveal"):
                raise Mismatch(
                    n,
                    f"round {self.round}'s deal is never revealed, but the "
                    f"transcript goes on with a {kind!r} line",
                )
            if kind == "event":
                self.public_event(ln)
                return
        handler = getattr(self, f"on_{kind}", None)
        if handler is None or kind == "header":
            raise Mismatch(n, f"unknown or repeated line type {kind!r}")
        handler(ln)

    def on_header(self, ln: Line) -> None:
        d, n = ln.data, ln.number
        if d.get("format") != FORMAT:
            raise Mismatch(n, f"format {d.get('format')!r}: this replay reads {FORMAT!r}")
        for key, mine in (("rules", RULES_VERSION), ("protocol", PROTOCOL_VERSION)):
            if d.get(key) != mine:
                raise Mismatch(n, f"{key} {d.get(key)!r}: this replay checks {mine!r}")
        if d.get("t_ns") != 0:
            raise Mismatch(n, f"the header's t_ns is {d.get('t_ns')!r}: time starts at 0 there")
        tc = _dict(d, "time_control", n)
        try:
            control = TimeControl(_int(tc, "bank_ns", n), _int(tc, "delay_ns", n))
        except ValueError as e:
            raise Mismatch(n, str(e)) from None
        max_rounds = d.get("max_rounds")
        if max_rounds is not None and (not isinstance(max_rounds, int) or max_rounds < 1):
            raise Mismatch(n, f"max_rounds {max_rounds!r} is not a round limit")
        policy = d.get("illegal")
        if policy not in ("reject", "forfeit"):
            raise Mismatch(n, f"illegal-action policy {policy!r}: expected 'reject' or 'forfeit'")
        self.policy = policy
        explicit = d.get("explicit_deals", 0)
        if not isinstance(explicit, int) or isinstance(explicit, bool) or explicit < 0:
            raise Mismatch(n, f"explicit_deals {explicit!r} is not a number of rounds")
        self.explicit_deals = explicit
        if bool(d.get("seeded")) != (d.get("seed_commitment") is not None):
            raise Mismatch(n, "'seeded' and 'seed_commitment' disagree")
        controls = None
        if d.get("time_controls") is not None:  # per seat (a handicap match)
            tcs = d["time_controls"]
            if (
                not isinstance(tcs, list)
                or len(tcs) != 2
                or not all(isinstance(x, dict) for x in tcs)
            ):
                raise Mismatch(n, f"time_controls {tcs!r}: expected one per seat")
            try:
                controls = (
                    TimeControl(_int(tcs[0], "bank_ns", n), _int(tcs[0], "delay_ns", n)),
                    TimeControl(_int(tcs[1], "bank_ns", n), _int(tcs[1], "delay_ns", n)),
                )
            except ValueError as e:
                raise Mismatch(n, str(e)) from None
        self.header = d
        self.clock = MatchClock.start(control, controls)

        def deal(round_number: int) -> Deal:
            rev = self.reveals.get(round_number)
            # An unrevealed round (a truncated transcript) gets a stand-in deal that is
            # never used: the replay stops verifying at that round's start.
            return rev.deal if rev else Deal.from_seed(0, round_number)

        try:
            self.match = Match(deal, MatchConfig(max_rounds=max_rounds))
        except RulesError as e:
            raise Mismatch(n, str(e)) from None
        self.expected.extend(self.m.start_events)
        self.emit(ln)

    def on_hello(self, ln: Line) -> None:
        seat = ln.data.get("seat")
        if seat not in (0, 1):
            raise Mismatch(ln.number, f"seat {seat!r} is not 0 or 1")
        if seat in self.hellos:
            raise Mismatch(ln.number, f"a second hello of seat {seat}")
        self.hellos.add(seat)
        self.check_hello_sent(ln)
        self.emit(ln)

    def check_hello_sent(self, ln: Line) -> None:
        """The hello the engine was sent tells it the match's settings: the header's."""
        h = self.header
        assert h is not None
        try:
            sent = json.loads(ln.data.get("sent", ""))
        except (json.JSONDecodeError, TypeError, RecursionError):
            sent = None
        settings = sent.get("settings") if isinstance(sent, dict) else None
        if not isinstance(settings, dict) or sent.get("seat") != ln.data.get("seat"):
            raise Mismatch(
                ln.number,
                "the hello sent to the engine ('sent') is not a hello "
                "with this seat and its settings",
            )
        assert self.clock is not None
        tc = self.clock.control_of(ln.data["seat"])
        said = {k: settings.get(k) for k in ("bank_ms", "delay_ms", "max_rounds", "illegal")}
        derived = {
            "bank_ms": tc.bank // MILLISECOND,
            "delay_ms": tc.delay // MILLISECOND,
            "max_rounds": h.get("max_rounds"),
            "illegal": self.policy,
        }
        if said != derived:
            raise Mismatch(
                ln.number,
                f"the engine was told other settings than the header's: {_diff(said, derived)}",
            )

    def on_other(self, ln: Line) -> None:
        if ln.data.get("seat") not in (0, 1):
            raise Mismatch(ln.number, f"seat {ln.data.get('seat')!r} is not 0 or 1")
        self.emit(ln)

    def on_stale(self, ln: Line) -> None:
        d, n = ln.data, ln.number
        p = self.pending
        if d.get("seat") not in (0, 1):
            raise Mismatch(n, f"seat {d.get('seat')!r} is not 0 or 1")
        if (
            p is not None
            and d.get("seat") == p["seat"]
            and (d.get("id") == p["id"] or d.get("pending") != p["id"])
        ):
            raise Mismatch(
                n,
                f"a stale reply id {d.get('id')!r} (pending {d.get('pending')!r}),"
                f" but the pending request is id {p['id']}",
            )
        self.emit(ln)

    def on_resign(self, ln: Line) -> None:
        # A player may resign at any time: the referee records it when it learns
        # of it, usually while waiting for that player, but also when a seat
        # refuses what it is sent (SeatResigned, e.g. a person at a pause).
        d, n = ln.data, ln.number
        if d.get("seat") not in (0, 1):
            raise Mismatch(n, f"a resignation of seat {d.get('seat')!r}, which is not 0 or 1")
        if self.resigned is not None:
            raise Mismatch(n, f"a second resignation (seat {self.resigned} resigned already)")
        self.resigned = d["seat"]
        self.emit(ln)

    on_rules = on_other
    on_log = on_other
    on_engine_exit = on_other
    on_connection = on_other  # a network seat's connect/disconnect/resume (docs/network.md)

    def on_round_start(self, ln: Line) -> None:
        d, n = ln.data, ln.number
        m = self.m
        ev = self.expected.popleft() if self.expected else None
        if not isinstance(ev, RoundStarted):
            raise Mismatch(
                n,
                "a round starts here, but the replay expects "
                + (f"the event {ev.kind!r}" if ev else "no new round"),
            )
        said = {k: d.get(k) for k in ("round", "opening", "jockey", "balances")}
        derived = {**ev.public(), "balances": list(m.balances)}
        derived.pop("kind")
        if said != derived:
            raise Mismatch(n, f"round start disagrees: {_diff(said, derived)}")
        assert self.header is not None
        if not self.header.get("seeded") and ev.round > self.explicit_deals:
            raise Mismatch(
                n,
                f"round {ev.round} starts, but the match was not seeded and "
                f"the header gives {self.explicit_deals} explicit deal(s)",
            )
        self.round = ev.round
        self.public_layout = Layout()
        rev = self.reveals.get(ev.round)
        if rev is None:
            self.public_only = True
            self.public_turn = m.turn
            self.public_balances = list(m.balances)
            self.report.truncated = (
                f"round {ev.round} (from line {n}) is never revealed: "
                "the transcript stops before the round's end, so only "
                "its public facts (layout, counts, transfers, clock) "
                "are verified"
            )
            self.step(
                n,
                "round_start",
                f"Round {ev.round} — {ev.opening} opening; "
                f"balances A {m.balances[0]} · B {m.balances[1]} (deal not revealed)",
            )
            self.emit(ln)
            return
        if commitment(rev.salt, rev.deal_json) != d.get("deal_commitment"):
            raise Mismatch(
                rev.line.number,
                f"the deal revealed for round {ev.round} does not open the commitment on line {n}",
            )
        jockey = f", jockey {_name(ev.jockey)}" if ev.jockey is not None else ""
        self.step(
            n,
            "round_start",
            f"Round {ev.round} — {ev.opening} opening{jockey}; "
            f"balances A {m.balances[0]} · B {m.balances[1]}",
        )
        self.emit(ln, deal=rev.deal.to_dict())

    def on_request(self, ln: Line) -> None:
        d, n = ln.data, ln.number
        if self.public_only:
            seat, turn = d.get("seat"), d.get("turn")
            if seat not in (0, 1) or not isinstance(turn, int) or turn < self.public_turn:
                raise Mismatch(
                    n,
                    f"a request for seat {seat!r} in turn {turn!r}: turns only "
                    f"go forward (the last was {self.public_turn})",
                )
            if d.get("round") != self.round:
                raise Mismatch(
                    n, f"a request in round {d.get('round')!r} during round {self.round}"
                )
            assert isinstance(seat, int)
            self.public_turn = turn
            self._request_clock(ln, seat, turn)
            return
        m = self.m
        if self.early_reveal is not None:
            raise Mismatch(
                self.early_reveal,
                f"round {self.round} is revealed here, before "
                f"its end: the game goes on with a request on line {n}",
            )
        if self.expected:
            raise Mismatch(
                n,
                f"a request, but the event {self.expected[0].kind!r} of the "
                "last action was never written",
            )
        if m.over:
            raise Mismatch(n, "a request after the match is over")
        seat = d.get("seat")
        said = {k: d.get(k) for k in ("seat", "round", "turn", "phase")}
        derived = {
            "seat": m.to_act,
            "round": m.round_number,
            "turn": m.turn,
            "phase": m.phase.value,
        }
        if said != derived:
            raise Mismatch(n, f"request disagrees with the game: {_diff(said, derived)}")
        assert isinstance(seat, int)
        self._request_clock(ln, seat, m.turn)
        self.check_request_raw(ln, seat)

    def _revealed_raw(
        self, ln: Line, kind: str, seat: object, what: str
    ) -> tuple[_Reveal, Any] | None:
        """The raw ``kind`` item revealed for public line ``ln``, with its reveal;
        None while the round is not revealed. A reveal without it is a mismatch."""
        rev = self.reveals.get(self.round)
        if rev is None:
            return None
        raw = _raw(rev.private.get(ln.data["seq"], []), kind, seat, rev)
        if raw is None:
            told = "was sent" if kind == "request_raw" else "said"
            raise Mismatch(
                rev.line.number,
                f"the reveal has no raw line of the {what} on "
                f"line {ln.number}: what the engine {told} is not shown",
            )
        return rev, raw

    def check_request_raw(self, ln: Line, seat: int) -> None:
        """With the round revealed, check the request line the engine was sent: its id,
        its view, its legal actions and its clock are the ones the rules give."""
        found = self._revealed_raw(ln, "request_raw", seat, "request")
        if found is None:
            return
        rev, raw = found
        c = self.clock
        assert c is not None
        ms = MILLISECOND
        derived = {
            "type": "request",
            "id": ln.data.get("id"),
            "view": player_view(self.m, seat).to_dict(),
            "clock": {
                "delay_left_ms": c.delay_left // ms,
                "bank_ms": c.banks[seat] // ms,
                "opponent_bank_ms": c.banks[1 - seat] // ms,
                "deadline_ms": (c.delay_left + c.banks[seat]) // ms,
            },
            "legal": [str(a) for a in self.m.legal_actions()],
        }
        try:
            said = json.loads(raw) if isinstance(raw, str) else raw
        except (json.JSONDecodeError, RecursionError):
            said = raw
        if said != derived:
            what = _diff(said, derived) if isinstance(said, dict) else f"{raw!r}"
            raise Mismatch(
                rev.line.number,
                f"the request sent on line {ln.number} (revealed "
                f"here) is not what the rules give: {what}",
            )

    def _request_clock(self, ln: Line, seat: int, turn: int) -> None:
        d, n = ln.data, ln.number
        assert self.clock is not None
        if self.pending is not None:
            raise Mismatch(
                n,
                f"a new request, but request id {self.pending['id']} of seat "
                f"{self.pending['seat']} (line {self.pending['line']}) was never "
                "answered",
            )
        self.clock = self.clock.begin(seat, turn)
        c = self.clock
        clock = _dict(d, "clock", n)
        said_c = {k: clock.get(k) for k in ("delay_left_ns", "bank_ns", "opponent_bank_ns")}
        derived_c = {
            "delay_left_ns": c.delay_left,
            "bank_ns": c.banks[seat],
            "opponent_bank_ns": c.banks[1 - seat],
        }
        if said_c != derived_c:
            raise Mismatch(n, f"request clock disagrees: {_diff(said_c, derived_c)}")
        t = _int(d, "t_ns", n)
        if _int(d, "deadline_ns", n) != c.deadline(t):
            raise Mismatch(
                n,
                f"deadline_ns {d['deadline_ns']} but t_ns {t} + delay "
                f"{c.delay_left} + bank {c.banks[seat]} = {c.deadline(t)}",
            )
        self.pending = {
            "seat": seat,
            "id": _int(d, "id", n),
            "start": t,
            "deadline": c.deadline(t),
            "line": n,
        }
        self.emit(ln)

    def on_reply(self, ln: Line) -> None:
        d, n = ln.data, ln.number
        p = self.pending
        if p is None:
            raise Mismatch(n, "a reply, but no request is pending")
        if d.get("seat") != p["seat"] or d.get("id") != p["id"]:
            raise Mismatch(
                n,
                f"reply to seat {d.get('seat')!r} id {d.get('id')!r}, but the "
                f"pending request is seat {p['seat']} id {p['id']}",
            )
        t = _int(d, "t_ns", n)
        elapsed = _int(d, "elapsed_ns", n)
        if elapsed != max(0, t - p["start"]):
            raise Mismatch(
                n,
                f"elapsed_ns {elapsed}, but the reply at t_ns {t} answers a "
                f"decision that started at {p['start']}: {max(0, t - p['start'])}",
            )
        assert self.clock is not None
        self.clock, charge = self.clock.charge(elapsed)
        said = _dict(d, "charge", n)
        derived = {
            "delay_used_ns": charge.delay_used,
            "bank_used_ns": charge.bank_used,
            "timed_out": charge.timed_out,
            "overrun_ns": charge.overrun,
        }
        said_c = {k: said.get(k) for k in derived}
        if said_c != derived:
            raise Mismatch(n, f"clock charge disagrees: {_diff(said_c, derived)}")
        if d.get("banks_ns") != list(self.clock.banks):
            raise Mismatch(n, f"banks_ns {d.get('banks_ns')!r}, replay {list(self.clock.banks)}")
        status = d.get("status")
        seat = p["seat"]
        if status == "accepted" and d.get("rule") is not None:
            raise Mismatch(n, f"an accepted reply names a broken rule {d.get('rule')!r}")
        clock_note = f"{_seconds(elapsed)}, bank {_seconds(self.clock.banks[seat])}"
        self.last_reply = d
        if charge.timed_out:
            self.timed_out = (seat, charge.overrun, n)
            self.pending = None
            self.step(
                n,
                "note",
                f"{_name(seat)} replied {_overrun(charge.overrun)} after the deadline: time is out",
                seat,
            )
            self.emit(ln)
            return
        if status == "accepted":
            if self.public_only:
                self.public_action = (seat, str(d.get("action")), clock_note)
                self.pending = None
                self.emit(ln)
                return
            self.accepted(ln, seat, clock_note)
            return
        if status not in ("illegal", "bad_action"):
            raise Mismatch(n, f"status {status!r}: expected accepted, illegal or bad_action")
        if d.get("action") is not None:
            raise Mismatch(
                n,
                f"a rejected reply shows an action {d.get('action')!r}: its "
                "text is private until the round's reveal",
            )
        if not self.public_only:
            self.check_rejected(ln, seat)
        self.step(
            n,
            "illegal",
            f"{_name(seat)} {status.replace('_', ' ')} rejected "
            f"({d.get('rule') or 'no rule'}); {clock_note}",
            seat,
        )
        self.emit(ln)

    def on_retry(self, ln: Line) -> None:
        """After a rejected reply the referee sends an error; the decision goes on from
        the time the error was written, with what is left of the delay and the bank."""
        d, n = ln.data, ln.number
        p = self.pending
        last = self.last_reply
        if p is None or last is None or last.get("status") not in ("illegal", "bad_action"):
            raise Mismatch(n, "a retry, but no rejected reply is pending")
        if self.policy != "reject":
            raise Mismatch(
                n,
                f"a retry after an illegal action, but the header's policy is "
                f"{self.policy!r}: the first illegal action loses the match",
            )
        if d.get("seat") != p["seat"] or d.get("id") != p["id"]:
            raise Mismatch(
                n,
                f"retry for seat {d.get('seat')!r} id {d.get('id')!r}, but the "
                f"pending request is seat {p['seat']} id {p['id']}",
            )
        assert self.clock is not None
        c = self.clock
        t = _int(d, "t_ns", n)
        if t < _int(last, "t_ns", n):
            raise Mismatch(
                n,
                f"the error was written at {t}, before the rejected reply was "
                f"read at {last['t_ns']}",
            )
        said = {k: d.get(k) for k in ("delay_left_ns", "bank_ns", "deadline_ns")}
        derived = {
            "delay_left_ns": c.delay_left,
            "bank_ns": c.banks[p["seat"]],
            "deadline_ns": c.deadline(t),
        }
        if said != derived:
            raise Mismatch(n, f"retry clock disagrees: {_diff(said, derived)}")
        p["start"], p["deadline"], p["line"] = t, c.deadline(t), n
        self.emit(ln)

    def on_timeout(self, ln: Line) -> None:
        d, n = ln.data, ln.number
        p = self.pending
        seat = d.get("seat")
        if p is None or p["seat"] != seat:
            raise Mismatch(
                n, f"a timeout of seat {seat!r}, but no decision of that seat is pending"
            )
        overrun = _int(d, "overrun_ns", n)
        t = _int(d, "t_ns", n)
        if overrun < 0 or p["deadline"] + overrun > t:
            raise Mismatch(
                n,
                f"overrun_ns {overrun}: seat {seat}'s deadline was "
                f"{p['deadline']} (line {p['line']}), and this line is at {t}",
            )
        self.timed_out = (p["seat"], overrun, n)
        self.pending = None
        self.step(
            n,
            "note",
            f"{_name(p['seat'])} is out of time ({_overrun(overrun)} past the deadline)",
            p["seat"],
        )
        self.emit(ln)

    def check_rejected(self, ln: Line, seat: int) -> None:
        """With the raw reply revealed, check that a rejected action was really illegal
        (or unreadable, for ``bad_action``), by the rule the line names, and that the
        error the engine was sent is the rules' own message."""
        n = ln.number
        found = self._revealed_raw(ln, "reply_raw", seat, "rejected reply")
        if found is None:
            return
        rev, raw = found
        obj: Any = None
        with contextlib.suppress(json.JSONDecodeError, RecursionError):
            obj = json.loads(raw) if isinstance(raw, str) else None
        text = obj.get("action") if isinstance(obj, dict) else None
        if not isinstance(text, str) or obj.get("id") != ln.data.get("id"):
            raise Mismatch(
                rev.line.number,
                f"the reply revealed for line {n} is {raw!r}, "
                f"not an action for id {ln.data.get('id')!r}",
            )
        status, rule = ln.data.get("status"), ln.data.get("rule")
        try:
            action = parse_action(text)
        except (NotationError, ValueError) as e:
            if status != "bad_action" or rule is not None:
                raise Mismatch(
                    n, f"{text!r} is no action ({e}): a bad_action without a rule"
                ) from None
            message = f"{e}; answer with one of the request's 'legal' actions"
        else:
            if action in self.m.legal_actions():
                raise Mismatch(
                    n, f"the referee rejected {str(action)!r}, which is legal {self.m.where()}"
                )
            try:
                self.m.copy().apply(action, seat)
            except IllegalActionError as e:
                if status != "illegal" or rule != e.rule:
                    raise Mismatch(
                        n,
                        f"{status!r} by rule {rule!r}, but the rules forbid "
                        f"{str(action)!r} by {e.rule}",
                    ) from None
                message = str(e)
            else:  # not reached: an action outside legal_actions() is refused by apply
                raise Mismatch(n, f"the referee rejected {str(action)!r}, which is legal")
        said = next(
            (
                i.get("message")
                for i in rev.private.get(ln.data["seq"], [])
                if i.get("kind") == "error_raw"
            ),
            None,
        )
        if said != message:
            raise Mismatch(
                rev.line.number,
                f"the error sent for line {n} was {said!r}; the rules say {message!r}",
            )
        self.rejected = {
            "seat": seat,
            "action": text,
            "rule": rule,
            "code": status,
            "message": message,
        }

    def check_accepted_raw(self, ln: Line, action: Action) -> None:
        """With the raw reply revealed, check that it is the accepted action, for this id."""
        found = self._revealed_raw(ln, "reply_raw", ln.data.get("seat"), "reply")
        if found is None:
            return
        rev, raw = found
        obj: Any = None
        try:
            obj = json.loads(raw) if isinstance(raw, str) else None
            text = obj.get("action") if isinstance(obj, dict) else None
            said = parse_action(text) if isinstance(text, str) else None
        except (json.JSONDecodeError, NotationError, ValueError, RecursionError):
            said = None
        if said != action or not isinstance(obj, dict) or obj.get("id") != ln.data.get("id"):
            raise Mismatch(
                rev.line.number,
                f"the reply revealed for line {ln.number} is "
                f"{raw!r}, but line {ln.number} accepts {str(action)!r} for id "
                f"{ln.data.get('id')!r}",
            )

    def accepted(self, ln: Line, seat: int, clock_note: str) -> None:
        d, n = ln.data, ln.number
        m = self.m
        text = d.get("action")
        if not isinstance(text, str):
            raise Mismatch(n, f"an accepted reply without an action: {text!r}")
        try:
            action = parse_action(text)
            layout_before = m.layout
            events = m.apply(action, seat)
        except NotationError as e:
            raise Mismatch(
                n, f"the referee accepted {text!r}, which is not an action: {e}"
            ) from None
        except IllegalActionError as e:
            raise Mismatch(n, f"the referee accepted an illegal action: {e}") from None
        except RulesError as e:
            raise Mismatch(n, f"the replay cannot go on after {text!r}: {e}") from None
        self.pending = None
        self.check_accepted_raw(ln, action)
        self.expected.extend(events)
        parts = [f"{_name(seat)}  {action}"]
        lay: Layout | None = None
        last: Tile | None = None
        for ev in events:
            if isinstance(ev, Placed):
                parts.append(f"count {ev.count}")
                lay, last = layout_before.copy(), ev.tile
            elif isinstance(ev, Transfer):
                why = "" if ev.reason == "count" else f" ({ev.reason})"
                parts.append(
                    f"{_name(ev.payee)} +{ev.amount}{why} → {ev.balances[0]}–{ev.balances[1]}"
                )
            elif isinstance(ev, Drew):
                parts.append(f"drew {ev.tile}, boneyard {ev.boneyard_left}")
        parts.append(clock_note)
        self.step(n, "action", " · ".join(parts), seat, lay, last)
        for ev in events:
            if isinstance(ev, Passed):
                self.step(n, "pass", f"{_name(ev.player)}  passes (forced)", ev.player)
            elif isinstance(ev, RoundEnded):
                self.round_ended.add(ev.round)
                self.report.final_layouts[ev.round] = layout_before.copy()
                who = f" by {_name(ev.winner)}" if ev.winner is not None else ""
                paid = f", paid {ev.payout}" if ev.payout else ""
                self.step(
                    n,
                    "round_end",
                    f"Round {ev.round} ends: {ev.reason}{who}; pips "
                    f"A {ev.pips[0]} · B {ev.pips[1]}{paid}; balances A {m.balances[0]} "
                    f"· B {m.balances[1]}",
                    layout=layout_before.copy(),
                )
        self.emit(ln)

    def on_event(self, ln: Line) -> None:
        d, n = ln.data, ln.number
        said = _dict(d, "event", n)
        if not self.expected or isinstance(self.expected[0], RoundStarted):
            raise Mismatch(n, f"an event {said.get('kind')!r} that no accepted action caused")
        ev = self.expected.popleft()
        pub = public_event(ev, None)
        assert pub is not None
        derived = pub.to_dict()
        if said != derived:
            raise Mismatch(n, f"{ev.kind} event disagrees: {_diff(said, derived)}")
        extra: dict[str, Any] = {}
        if isinstance(ev, Drew):
            rev = self.reveals.get(self.round)
            items = rev.private.get(d["seq"], []) if rev else []
            item = next((i for i in items if i.get("kind") == "drew"), None)
            if item is None:
                raise Mismatch(n, f"the tile drawn here is not in round {self.round}'s reveal")
            assert ev.tile is not None
            if item.get("tile") != ev.tile.as_list() or item.get("seat") != ev.player:
                raise Mismatch(
                    rev.line.number if rev else n,
                    f"the reveal says seat "
                    f"{item.get('seat')!r} drew {item.get('tile')!r} on line {n}; "
                    f"the deal gives {ev.tile} to {_name(ev.player)}",
                )
            extra["event"] = ev.to_dict()
        if isinstance(ev, MatchEnded):
            self.step(
                n,
                "match_end",
                f"Match over: {ev.reason}; winner {_name(ev.winner)}; "
                f"balances A {ev.balances[0]} · B {ev.balances[1]}",
            )
        self.emit(ln, **extra)

    def on_round_reveal(self, ln: Line) -> None:
        d, n = ln.data, ln.number
        r = d.get("round")
        if r != self.round:
            raise Mismatch(n, f"a reveal of round {r!r} during round {self.round}")
        if r not in self.round_ended and not self.m.over:
            # The match may also end inside a round for reasons outside the rules (time,
            # forfeit, crash); then the reveal comes before the result, and no request may
            # follow it: a deal revealed while its round goes on would leak the hands.
            self.early_reveal = n
        self.emit(ln)

    def on_seed_reveal(self, ln: Line) -> None:
        d, n = ln.data, ln.number
        assert self.header is not None
        seed, salt = d.get("seed"), d.get("salt")
        if not isinstance(seed, int) or not isinstance(salt, str):
            raise Mismatch(n, "a seed reveal needs a whole-number 'seed' and a 'salt'")
        if commitment(salt, {"seed": seed}) != self.header.get("seed_commitment"):
            raise Mismatch(n, "the revealed seed does not open the header's seed_commitment")
        deals = seeded_deals(seed)
        for r, rev in sorted(self.reveals.items()):
            if r > self.explicit_deals and deals(r) != rev.deal:
                raise Mismatch(
                    rev.line.number, f"round {r}'s revealed deal is not the deal seed {seed} gives"
                )
        self.seed_revealed = True
        self.emit(ln)

    def on_result(self, ln: Line) -> None:
        d, n = ln.data, ln.number
        m = self.m
        reason = d.get("reason")
        winner = d.get("winner")
        raw_detail = d.get("detail")
        detail: dict[str, Any] = raw_detail if isinstance(raw_detail, dict) else {}
        if self.expected and not isinstance(self.expected[0], RoundStarted):
            raise Mismatch(
                n, f"the result, but the event {self.expected[0].kind!r} was never written"
            )
        assert self.header is not None
        if self.header.get("seeded") and not self.seed_revealed:
            raise Mismatch(n, "the match was seeded, but the seed is never revealed")
        if d.get("balances") != list(m.balances):
            raise Mismatch(n, f"balances {d.get('balances')!r}, replay {list(m.balances)}")
        if reason in ("balance", "round_limit"):
            res = m.result
            if res is None or res.reason != reason:
                raise Mismatch(
                    n,
                    f"the result says {reason!r}, but the game "
                    + ("is not over" if res is None else f"ended by {res.reason!r}"),
                )
            if reason == "round_limit" and detail.get("max_rounds") != self.header.get(
                "max_rounds"
            ):
                raise Mismatch(
                    n,
                    f"detail max_rounds {detail.get('max_rounds')!r}, but the "
                    f"header's is {self.header.get('max_rounds')!r}",
                )
            if winner != res.winner or d.get("rounds") != res.rounds:
                diff = _diff(
                    {"winner": winner, "rounds": d.get("rounds")},
                    {"winner": res.winner, "rounds": res.rounds},
                )
                raise Mismatch(n, f"result disagrees: {diff}")
        elif reason in _SEAT_REASONS:
            if m.result is not None:
                raise Mismatch(
                    n, f"the result says {reason!r}, but the game ended by {m.result.reason!r}"
                )
            seat = detail.get("seat")
            if seat not in (0, 1) or winner != 1 - seat:
                raise Mismatch(
                    n,
                    f"a {reason!r} loss of seat {seat!r} must name the other "
                    f"seat as winner, not {winner!r}",
                )
            if d.get("rounds") != self.round:
                raise Mismatch(n, f"rounds {d.get('rounds')!r}, but {self.round} round(s) started")
            if reason == "time":
                self.check_time(n, seat, detail)
                if detail.get("overrun_ms") != round(detail.get("overrun_ns", 0) / 1e6, 3):
                    raise Mismatch(
                        n,
                        f"overrun_ms {detail.get('overrun_ms')!r} is not "
                        f"overrun_ns {detail.get('overrun_ns')!r} in ms",
                    )
            if reason == "resign" and self.resigned != seat:
                raise Mismatch(
                    n, f"a resignation of seat {seat}, but no resign line of that seat came before"
                )
            if reason == "illegal":
                if self.policy != "forfeit":
                    raise Mismatch(
                        n,
                        f"a forfeit for an illegal action, but the header's "
                        f"policy is {self.policy!r}: an illegal action gets a retry",
                    )
                last = self.last_reply
                if (
                    last is None
                    or last.get("seat") != seat
                    or last.get("status") not in ("illegal", "bad_action")
                ):
                    raise Mismatch(
                        n,
                        f"a forfeit for an illegal action, but seat {seat}'s "
                        "last reply was not rejected",
                    )
                if self.rejected is not None and detail != self.rejected:
                    raise Mismatch(
                        n,
                        f"the forfeit's detail disagrees with the rejected "
                        f"reply: {_diff(detail, self.rejected)}",
                    )
        elif reason == "aborted":
            if winner is not None or d.get("rated") is not False:
                raise Mismatch(n, "an aborted match has no winner and is not rated")
        else:
            raise Mismatch(n, f"unknown end reason {reason!r}")
        unrated = ("aborted", "startup")  # no game was played, or no result proven
        if d.get("rated") is not (reason not in unrated):
            raise Mismatch(
                n,
                f"rated is {d.get('rated')!r}, but a match ended by {reason!r} "
                + ("is not rated" if reason in unrated else "is rated"),
            )
        if self.resigned is not None and reason != "resign":
            raise Mismatch(n, f"seat {self.resigned} resigned, but the result is {reason!r}")
        if self.timed_out is not None and reason != "time":
            raise Mismatch(
                n,
                f"line {self.timed_out[2]} shows a reply after the deadline, "
                f"but the result is {reason!r}, not 'time'",
            )
        self.done = True
        self.report.result = {
            k: d.get(k) for k in ("winner", "reason", "detail", "balances", "rounds", "rated")
        }
        if m.layout.placed and self.round not in self.report.final_layouts:
            self.report.final_layouts[self.round] = m.layout.copy()
        self.step(
            n,
            "result",
            f"Result: {reason}; winner {_name(winner)}; balances "
            f"A {m.balances[0]} · B {m.balances[1]}",
        )
        self.emit(ln)

    def check_time(self, n: int, seat: int, detail: dict[str, Any]) -> None:
        """A time loss needs the line that shows the deadline passing: a ``timeout`` line
        (checked against the deadline there) or a reply read after the deadline."""
        overrun = detail.get("overrun_ns")
        if self.timed_out is None:
            raise Mismatch(
                n,
                f"a time loss of seat {seat}, but no timeout line (nor a reply "
                "after the deadline) shows its deadline passing",
            )
        if self.timed_out[0] != seat or overrun != self.timed_out[1]:
            raise Mismatch(
                n,
                f"time loss of seat {seat} by {overrun!r} ns, but line "
                f"{self.timed_out[2]} shows seat {self.timed_out[0]} "
                f"{self.timed_out[1]} ns past the deadline",
            )

    # -- a round never revealed (a truncated transcript): what is public ----------------------

    def public_event(self, ln: Line) -> None:
        """Check an event of an unrevealed round against the public layout and balances."""
        d, n = ln.data, ln.number
        ev = _dict(d, "event", n)
        kind = ev.get("kind")
        bal = self.public_balances
        if kind in ("auction", "placed", "drew"):
            last = self.public_action
            if last is None or ev.get("player") != last[0]:
                raise Mismatch(
                    n,
                    f"a {kind!r} event of player {ev.get('player')!r} that no "
                    "accepted reply of theirs caused",
                )
            if kind == "auction" and ev.get("action") != last[1]:
                raise Mismatch(
                    n, f"auction action {ev.get('action')!r}, but the reply was {last[1]!r}"
                )
            if kind == "drew":
                self.public_boneyard -= 1
                if last[1] != "draw" or ev.get("boneyard_left") != self.public_boneyard:
                    raise Mismatch(
                        n,
                        f"a draw leaving {ev.get('boneyard_left')!r} tiles after "
                        f"{last[1]!r}; the boneyard has {self.public_boneyard} left",
                    )
            if kind == "placed":
                self.public_placed(ln, ev, last)
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
                raise Mismatch(n, f"transfer disagrees: {_diff(ev, derived)}")
        elif kind == "match_ended" and ev.get("balances") != bal:
            raise Mismatch(n, f"match end balances {ev.get('balances')!r}, replay {bal}")
        self.emit(ln)

    def public_placed(self, ln: Line, ev: dict[str, Any], last: tuple[int, str, str]) -> None:
        n = ln.number
        lay = self.public_layout
        try:
            t = tile(*ev["tile"])
            at = (
                None
                if ev.get("at") is None
                else point(tile(*ev["at"]["tile"]), parse_side(ev["at"]["side"]))
            )
        except (KeyError, TypeError, ValueError) as e:
            raise Mismatch(n, f"a placed event without a readable tile and point: {e}") from None
        if t in lay.placed:
            raise Mismatch(n, f"{t} is already on the table")
        text = f"open {t}" if at is None else f"play {t} {at}"
        if last[1] != text or ev.get("action") != text:
            raise Mismatch(n, f"placed {text!r}, but the reply was {last[1]!r}")
        if at is None:
            if lay.placed:
                raise Mismatch(n, f"{t} opens a round that is already open")
            count = lay.open_tile(t)
        else:
            if at not in lay.open_points or not t.has(at.value):
                raise Mismatch(
                    n,
                    f"{t} cannot go at {at.words}: it is not an open attachment "
                    "point of that value",
                )
            count = lay.place(t, at)
        derived = {"count": count, "points": points_earned(count)}
        said = {k: ev.get(k) for k in derived}
        if said != derived:
            raise Mismatch(n, f"placed event disagrees: {_diff(said, derived)}")
        self.step(
            n,
            "action",
            f"{_name(last[0])}  {text} · count {count} · {last[2]}",
            last[0],
            lay.copy(),
            t,
        )


def _pre_pass(lines: Sequence[Line]) -> dict[int, _Reveal]:
    """Collect the round reveals (the format appends them at each round's end)."""
    reveals: dict[int, _Reveal] = {}
    for ln in lines:
        d = ln.data
        if ln.type == "round_reveal":
            r, deal_json, salt = d.get("round"), d.get("deal"), d.get("salt")
            if (
                not isinstance(r, int)
                or not isinstance(salt, str)
                or not isinstance(deal_json, dict)
            ):
                raise Mismatch(ln.number, "a round reveal needs 'round', 'salt' and 'deal'")
            if r in reveals:
                raise Mismatch(ln.number, f"round {r} is revealed twice")
            try:
                deal = Deal.from_lists(
                    deal_json["hands"][0], deal_json["hands"][1], deal_json["boneyard"]
                )
            except (KeyError, IndexError, TypeError, ValueError, RulesError) as e:
                raise Mismatch(ln.number, f"the revealed deal is not a deal: {e}") from None
            if deal.to_dict() != deal_json:
                raise Mismatch(
                    ln.number,
                    "the revealed deal is not in canonical form "
                    "(hands sorted, tiles as [low, high])",
                )
            private: dict[int, list[dict[str, Any]]] = {}
            items = d.get("private", [])
            if not isinstance(items, list):
                raise Mismatch(ln.number, "'private' must be a list")
            for item in items:
                if isinstance(item, dict) and isinstance(item.get("seq"), int):
                    private.setdefault(item["seq"], []).append(item)
            reveals[r] = _Reveal(ln, deal, deal_json, salt, private)
    return reveals


def replay_lines(read: ReadResult) -> ReplayReport:
    """Fold over the lines read from a transcript; never raises on bad input."""
    report = ReplayReport(lines=len(read.lines))
    try:
        fold = _Fold(report, _pre_pass(read.lines))
        for ln in read.lines:
            try:
                fold.feed(ln)
            except Mismatch:
                raise
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
                raise Mismatch(
                    ln.number, f"a malformed {ln.type!r} line: {type(e).__name__}: {e}"
                ) from None
        if read.problem is not None:
            raise Mismatch(read.problem.number, read.problem.message)
        if not fold.done:
            last = read.lines[-1].number if read.lines else 0
            where = (
                f"an unfinished line {read.truncated_at}" if read.truncated_at else "no result line"
            )
            note = (
                f"the transcript stops after line {last} ({where}): the referee may "
                "have been killed; everything up to there is replayed"
            )
            report.truncated = f"{report.truncated}; {note}" if report.truncated else note
            if fold.match is not None and fold.match.layout.placed:
                report.final_layouts.setdefault(fold.round, fold.match.layout.copy())
            if fold.public_only and fold.public_layout.placed:
                report.final_layouts[fold.round] = fold.public_layout.copy()
    except Mismatch as e:
        log.debug("replay stopped at line %d: %s", e.line, e.message)
        report.ok = False
        report.problem = e
    return report


def replay(data: bytes) -> ReplayReport:
    """Read and replay a transcript's bytes."""
    return replay_lines(read_transcript(data))
