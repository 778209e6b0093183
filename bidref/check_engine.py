"""Conformance check of an engine against protocol ``bidref/1`` (``bidref check-engine``).

In the spirit of fastchess's ``--compliance``: the engine is started as the
referee would start it, greeted, and sent decision requests for positions of
every kind (forced and free opening, the auction as first speaker and as
jockey answering a bid, ordinary play, a forced draw, the decision after a
draw, and a play onto the spinner's branches). Each reply must echo the
request's id, be legal, and come before the request's deadline. Then the
check sends a ``stale_id`` error, pretends an answer was refused (the engine
must answer the same request again with another action), and says ``quit``
(the engine must exit by itself within the grace period).

An engine that is running but silent gets the hint that its stdout is
probably not flushed; one that answers after the deadline (the check waits a
little longer to see) is told it is too slow; one that exited gets its exit
status, how many requests it had had, and the tail of its stderr. After a crash,
or a request left unanswered, the engine is restarted for the remaining items,
so each item is judged on its own.

The positions come from seeded matches (``find_position``), so the check is
the same on every run. Time is read only through the injected clock of the
transport (integer nanoseconds).
"""

from __future__ import annotations

import logging
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Final

from bidref.engines import EngineSpec, EngineStartError, Transport, WriteError, start_engine
from bidref.engines.transport import Clock, Eof, Line, Overlong
from bidref.protocol import (
    PROTOCOL_VERSION,
    ActionMsg,
    EngineHello,
    EngineMessage,
    ErrorMsg,
    Log,
    Ping,
    Pong,
    ProtocolError,
    Quit,
    RulesRequest,
    decode_engine_line,
    encode,
    encode_request,
)
from bidref.rules import (
    DRAW,
    MILLISECOND,
    SECOND,
    Bid,
    IllegalActionError,
    Match,
    NotationError,
    Phase,
    Play,
    Side,
    TimeControl,
    parse_action,
    player_view,
)
from bidref.session import DEFAULT_TOLERANCE_NS, hello_line, judge, rules_reply

log = logging.getLogger(__name__)

SEAT: Final = 0
PING_TIMEOUT: Final = 2 * SECOND
QUIT_GRACE: Final = 2 * SECOND
KILL_GRACE: Final = 100 * MILLISECOND
LATE_GRACE: Final = 1 * SECOND  # how long past a deadline to wait for a late answer
BAD_LINE_GRACE: Final = 1 * SECOND  # how long after an invalid line to wait for a hello/pong


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One item of the report."""

    item: str
    passed: bool
    detail: str

    def to_dict(self) -> dict[str, object]:
        return {"item": self.item, "passed": self.passed, "detail": self.detail}


@dataclass
class CheckReport:
    engine: str
    command: list[str]
    results: list[CheckResult] = field(default_factory=list)
    engine_name: str | None = None  # from the engine's hello

    @property
    def passed(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    def failed_items(self) -> list[str]:
        return [r.item for r in self.results if not r.passed]

    def to_dict(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "command": self.command,
            "name": self.engine_name,
            "passed": self.passed,
            "items": [r.to_dict() for r in self.results],
        }


@dataclass(frozen=True)
class CheckSettings:
    """The time control the check announces and enforces, and the start-up timeout."""

    bank: int = 2 * SECOND
    delay: int = 200 * MILLISECOND
    startup: int = 10 * SECOND
    transport: str = "pipe"


# -- positions -----------------------------------------------------------------------------------

PositionTest = Callable[[Match], bool]


def _branch_play(m: Match) -> bool:
    return any(isinstance(a, Play) and a.at.side >= Side.BRANCH_A for a in m.legal_actions())


POSITIONS: Final[dict[str, tuple[str, PositionTest]]] = {
    "forced opening": (
        "opening with the highest double (or tile), the only legal action",
        lambda m: m.phase is Phase.OPENING and m.forced_tile is not None,
    ),
    "auction: first bid": (
        "the non-jockey speaks first: decline or bid",
        lambda m: m.phase is Phase.AUCTION and m.bid is None,
    ),
    "auction: answer a bid": (
        "the jockey answers a bid: accept or raise",
        lambda m: m.phase is Phase.AUCTION and m.bid is not None and m.to_act == m.jockey,
    ),
    "free opening": (
        "the winner of the auction opens with any tile",
        lambda m: m.phase is Phase.OPENING and m.forced_tile is None,
    ),
    "play": (
        "an ordinary play with a choice",
        lambda m: m.phase is Phase.PLAY and m.drawn_this_turn == 0 and len(m.legal_actions()) >= 3,
    ),
    "draw": (
        "nothing to play: draw is the only legal action",
        lambda m: m.phase is Phase.PLAY and m.legal_actions() == [DRAW],
    ),
    "play after a draw": (
        "the drawn tile is playable and must be played",
        lambda m: m.phase is Phase.PLAY and m.drawn_this_turn > 0 and m.legal_actions() != [DRAW],
    ),
    "spinner branches": (
        "a play onto a branch of the spinner is legal",
        lambda m: m.phase is Phase.PLAY and _branch_play(m),
    ),
}


def _bidding_driver(m: Match, rng: random.Random) -> None:
    """Drive a match forward: a random legal play, a cheap bid now and then."""
    legal = m.legal_actions()
    if m.phase is Phase.AUCTION:
        bids = [
            a
            for a in legal[1:3]
            if isinstance(a, Bid) and m.net_payment(m.to_act, a.amount) < m.balances[m.to_act]
        ]
        m.apply(bids[0] if bids and rng.random() < 0.6 else legal[0])
        return
    m.apply(legal[rng.randrange(len(legal))])


@cache
def find_position(name: str) -> Match:
    """The first position of kind ``name`` (see ``POSITIONS``) with seat 0 to act,
    in seeded matches driven by a seeded policy: the same on every run. Cached:
    treat it as read-only (copy it to play on)."""
    test = POSITIONS[name][1]
    for seed in range(500):
        m = Match.new(seed)
        rng = random.Random(seed)
        for _ in range(400):
            if m.over:
                break
            if m.to_act == SEAT and test(m):
                return m
            _bidding_driver(m, rng)
    raise LookupError(f"no {name!r} position in 500 seeded matches")  # pragma: no cover


# -- the session with one engine process ----------------------------------------------------------


class _Dead(Exception):
    pass


@dataclass
class _Reply:
    message: EngineMessage
    elapsed: int  # ns from the request write to the reply line
    read: int  # clock time the line was read
    after: int  # the last look before it that found nothing (see bidref.engines.Line)


class _Session:
    """One engine process at a time, restarted after a crash."""

    def __init__(
        self,
        spec: EngineSpec,
        settings: CheckSettings,
        clock: Clock,
        starter: Callable[[EngineSpec, str, Clock], Transport],
    ) -> None:
        self.spec = spec
        self.settings = settings
        self.clock = clock
        self.starter = starter
        self.transport: Transport | None = None
        self.bad_lines: list[str] = []
        self.latencies: list[int] = []
        self.late: list[str] = []
        self.unanswered: set[int] = set()
        self.next_id = 0
        self.hello: EngineHello | None = None
        self.requests_since_start = 0  # decision requests sent to this process
        self.answers_since_start = 0  # and actions it sent back
        self.stuck = False  # a request was left unanswered: restart before the next item
        self.rules_asked = 0  # rules requests since the last decision request

    # -- process ---------------------------------------------------------------------------

    def start(self) -> Transport:
        self.transport = self.starter(self.spec, self.settings.transport, self.clock)
        self.requests_since_start = self.answers_since_start = 0
        self.stuck = False
        return self.transport

    def alive(self) -> bool:
        return self.transport is not None and self.transport.poll_exit() is None

    def close(self, quit_line: str | None = None) -> None:
        if self.transport is not None:
            # Without a quit line there is nothing to wait for: end it at once.
            self.transport.close(quit_line, QUIT_GRACE if quit_line else KILL_GRACE)
            self.transport = None

    def silence(self, waited: int) -> str:
        """Why nothing came within ``waited`` ns: exited, or alive but silent."""
        t = self.transport
        info = t.poll_exit() if t is not None else None
        if t is not None and info is not None:
            _settle_stderr(t)
            tail = t.stderr_tail().strip()[-300:]
            n = self.requests_since_start
            at = f" at its {_ordinal(n)} request since it started," if n else ""
            return (
                f"the engine exited ({info.describe()}){at} without answering"
                + (f"; its stderr ends: {tail!r}" if tail else "")
                + _EXIT_HINTS.get(info.exit_code or 0, "")
            )
        if self.answers_since_start:
            return (
                f"no answer within {waited / SECOND:g} s, nor {LATE_GRACE / SECOND:g} s "
                "later, though the engine answered the requests before: it is stuck or "
                "far too slow (your time is the request's clock.deadline_ms); it was "
                "restarted for the next items"
            )
        return (
            f"no answer within {waited / SECOND:g} s; the engine is running but wrote "
            "nothing: if it did answer, its stdout is probably not flushed (flush after "
            "every line; in Python print(..., flush=True) or run python -u; a program "
            "you cannot change may work with --transport pty); or it is still thinking"
        )

    # -- lines -----------------------------------------------------------------------------

    def send(self, line: str) -> int:
        if self.transport is None:
            raise _Dead("the engine is not running")
        try:
            return self.transport.write_line(line)
        except WriteError as e:
            raise _Dead(f"could not write to the engine: {e}") from None

    def receive(self, sent_at: int, deadline: int, bad_grace: int | None = None) -> _Reply | None:
        """The next hello/action/pong before ``deadline``; logs are skipped and
        rules requests answered. None at the deadline; raises _Dead at EOF.
        Lines that are not messages are kept in ``bad_lines``; with ``bad_grace``,
        the wait ends that long after one of them."""
        assert self.transport is not None
        while True:
            item = self.transport.read(deadline)
            if item is None:
                return None
            if isinstance(item, Eof):
                self.transport.wait_exit(SECOND)
                raise _Dead(self.silence(deadline - sent_at))
            bad: str | None = None
            if isinstance(item, Overlong):
                bad = f"a line of {item.length} characters"
            else:
                try:
                    msg = decode_engine_line(item.text)
                except ProtocolError as e:
                    bad = str(e)
            if bad is not None:
                self.bad_lines.append(bad)
                if bad_grace is not None:
                    deadline = min(deadline, item.t + bad_grace)
                continue
            if isinstance(msg, Log):
                continue
            if isinstance(msg, RulesRequest):
                self._answer_rules(msg)
                continue
            assert isinstance(item, Line)
            after = item.t if item.after is None else item.after
            return _Reply(msg, item.t - sent_at, item.t, after)

    def _answer_rules(self, req: RulesRequest) -> None:
        # as the referee answers (the same cap per request: the counter is reset
        # by each request)
        self.rules_asked += 1
        self.send(rules_reply(req, self.rules_asked))

    # -- protocol steps ------------------------------------------------------------------

    def do_hello(self) -> CheckResult:
        name = "hello"
        s = self.settings
        hello = hello_line(
            SEAT,
            TimeControl(s.bank, s.delay),
            max_rounds=None,
            illegal="reject",
            startup_ns=s.startup,
            options=dict(self.spec.options),
        )
        bad_before = len(self.bad_lines)
        try:
            try:
                t0 = self.send(hello)
            except _Dead:
                # An engine that already exited has closed its stdin: say how it ended.
                if self.transport is not None:
                    self.transport.wait_exit(SECOND)
                raise _Dead(self.silence(s.startup)) from None
            reply = self.receive(t0, t0 + s.startup, bad_grace=BAD_LINE_GRACE)
        except _Dead as e:
            return CheckResult(name, False, str(e))
        if reply is None:
            if len(self.bad_lines) > bad_before:
                return CheckResult(
                    name,
                    False,
                    "answered the hello with a line that is not "
                    f"a valid message: {self.bad_lines[bad_before]}",
                )
            return CheckResult(
                name,
                False,
                self.silence(s.startup) + "; if it only needs "
                "longer to start, allow more with --startup",
            )
        msg = reply.message
        if not isinstance(msg, EngineHello):
            return CheckResult(
                name,
                False,
                f"answered the hello with a {msg.type!r} message; "
                "the first line must be the engine's hello",
            )
        self.hello = msg
        if msg.protocol != PROTOCOL_VERSION:
            return CheckResult(
                name,
                False,
                f"speaks protocol {msg.protocol!r}; the referee speaks {PROTOCOL_VERSION!r}",
            )
        if len(self.bad_lines) > bad_before:
            return CheckResult(
                name,
                False,
                "wrote a line that is not a protocol message "
                f"before its hello ({self.bad_lines[bad_before]}): the referee "
                "ends the match at once as a start-up failure; write nothing "
                "but protocol lines on stdout (a banner goes to stderr)",
            )
        who = " ".join(x for x in (msg.name, msg.version) if x)
        return CheckResult(
            name,
            True,
            f"{who} by {msg.author or '?'}, "
            f"{msg.protocol}, in {reply.elapsed / MILLISECOND:.0f} ms",
        )

    def ensure_running(self) -> str | None:
        """Restart the engine (with its hello) if it died or left a request unanswered;
        the reason if that fails."""
        if self.alive() and not self.stuck:
            return None
        self.close()
        try:
            self.start()
        except EngineStartError as e:
            return f"could not restart the engine: {e}"
        result = self.do_hello()
        return None if result.passed else f"the restarted engine failed its hello: {result.detail}"

    def request(self, m: Match) -> tuple[int, int, int]:
        """Send a decision request for ``m``; return (id, write time, deadline)."""
        self.next_id += 1
        s = self.settings
        view = player_view(m, SEAT).to_dict()
        clock = {
            "delay_left_ms": s.delay // MILLISECOND,
            "bank_ms": s.bank // MILLISECOND,
            "opponent_bank_ms": s.bank // MILLISECOND,
            "deadline_ms": (s.delay + s.bank) // MILLISECOND,
        }
        t0 = self.send(
            encode_request(self.next_id, view, clock, [str(a) for a in m.legal_actions()])
        )
        self.requests_since_start += 1
        self.rules_asked = 0
        return self.next_id, t0, t0 + s.delay + s.bank

    def await_action(
        self, req_id: int, sent: int, deadline: int, what: str, timed: bool = True
    ) -> tuple[ActionMsg | None, str]:
        """The action answering ``req_id``, or None and why not. ``timed``: count
        it for the reply-time item (not a second answer after an error)."""
        bad_before = len(self.bad_lines)
        while True:
            reply = self.receive(sent, deadline)
            if reply is None:
                if not timed:  # a second answer (after an error) that never came
                    self.unanswered.add(req_id)
                    self.stuck = True
                    return None, f"no second answer within {(deadline - sent) / SECOND:g} s"
                self.late.append(what)
                if len(self.bad_lines) > bad_before:
                    return None, (
                        f"no valid answer within {(deadline - sent) / SECOND:g} s; "
                        "it wrote a line that is not a valid message instead: "
                        f"{self.bad_lines[bad_before]}; the referee ends the match "
                        "at such a line as your loss (protocol error)"
                    )
                late = self._late_answer(req_id, sent, deadline)
                if late is not None:
                    return None, (
                        f"answered after {late / MILLISECOND:.0f} ms, past the "
                        f"deadline of {(deadline - sent) / MILLISECOND:.0f} ms: too "
                        "slow; answer within the request's clock.deadline_ms (delay "
                        "left + bank), keeping a margin"
                    )
                self.unanswered.add(req_id)
                self.stuck = True
                return None, self.silence(deadline - sent)
            msg = reply.message
            # A late answer to a request given up on earlier is not this item's fault.
            if not (isinstance(msg, ActionMsg) and msg.id in self.unanswered):
                break
        if not isinstance(msg, ActionMsg):
            return None, f"sent a {msg.type!r} message instead of an action"
        if timed and judge(deadline, reply.after, reply.read, DEFAULT_TOLERANCE_NS) in (
            "late",
            "unjudgeable",
        ):
            # judged as the referee judges it (bidref.session.judge): a line read
            # after the deadline that was not there at a look past it is too late
            self.late.append(what)
            return None, (
                f"answered after {reply.elapsed / MILLISECOND:.0f} ms, past the deadline "
                f"of {(deadline - sent) / MILLISECOND:.0f} ms: too slow; answer within "
                "the request's clock.deadline_ms (delay left + bank), keeping a margin"
            )
        self.latencies.append(reply.elapsed)
        self.answers_since_start += 1
        if msg.id != req_id:
            return None, (
                f"answered with id {msg.id} to request {req_id}: echo the id of "
                "the request you answer"
            )
        return msg, ""

    def _late_answer(self, req_id: int, sent: int, deadline: int) -> int | None:
        """ns from ``sent`` to a late action for ``req_id`` read within LATE_GRACE of the
        deadline, or None (then the engine is still silent, or stuck)."""
        while True:
            reply = self.receive(sent, deadline + LATE_GRACE)
            if reply is None:
                return None
            msg = reply.message
            if isinstance(msg, ActionMsg) and msg.id == req_id:
                return reply.elapsed


_EXIT_HINTS: Final = {
    126: " (exit code 126: a program could not be run: is the file executable?)",
    127: " (exit code 127: a program was not found: is the interpreter on the engine's #! "
    "line, or the command it runs, installed and on PATH?)",
}


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _settle_stderr(t: Transport, polls: int = 20) -> None:
    """Give the stderr reader of an exited engine a moment to catch up (≤ 0.2 s)."""
    import time

    seen = t.stderr_bytes()
    for _ in range(polls):
        time.sleep(0.01)
        now = t.stderr_bytes()
        if now == seen and now > 0:
            return
        seen = now


def judge_action(m: Match, text: str) -> str | None:
    """None if ``text`` is a legal action in ``m``; else the referee's complaint."""
    try:
        action = parse_action(text)
    except NotationError as e:
        return f"{text!r} is not bidref notation: {e}"
    try:
        m.copy().apply(action)
    except IllegalActionError as e:
        return f"illegal: {e}"
    return None


# -- the items ------------------------------------------------------------------------------------


def _decision_item(session: _Session, name: str) -> CheckResult:
    m = find_position(name)
    try:
        req_id, sent, deadline = session.request(m)
        msg, why = session.await_action(req_id, sent, deadline, name)
    except _Dead as e:
        return CheckResult(name, False, str(e))
    if msg is None:
        return CheckResult(name, False, why)
    complaint = judge_action(m, msg.action)
    if complaint:
        return CheckResult(name, False, complaint)
    return CheckResult(name, True, f"{msg.action!r} ({POSITIONS[name][0]})")


def _stale_item(session: _Session) -> CheckResult:
    name = "stale id"
    m1, m2 = find_position("play"), find_position("spinner branches")
    try:
        req_id, sent, deadline = session.request(m1)
        msg, why = session.await_action(req_id, sent, deadline, name)
        if msg is None:
            return CheckResult(name, False, f"first request: {why}")
        session.send(
            encode(
                ErrorMsg(
                    id=req_id - 1,
                    code="stale_id",
                    message=f"a reply to request {req_id - 1}, which is no "
                    "longer pending, was ignored",
                )
            )
        )
        req2, sent2, deadline2 = session.request(m2)
        msg2, why2 = session.await_action(req2, sent2, deadline2, name)
    except _Dead as e:
        return CheckResult(name, False, str(e))
    if msg2 is None:
        return CheckResult(name, False, f"after a stale_id error: {why2}")
    complaint = judge_action(m2, msg2.action)
    if complaint:
        return CheckResult(name, False, f"after a stale_id error: {complaint}")
    return CheckResult(
        name, True, f"kept going after a stale_id error and answered request {req2} with its id"
    )


def _error_item(session: _Session) -> CheckResult:
    name = "error reply"
    m = find_position("play")
    try:
        req_id, sent, deadline = session.request(m)
        msg, why = session.await_action(req_id, sent, deadline, name)
        if msg is None:
            return CheckResult(name, False, f"first answer: {why}")
        refused = msg.action
        session.send(
            encode(
                ErrorMsg(
                    id=req_id,
                    code="illegal",
                    rule="§8",
                    message=f"illegal action {refused!r} (check-engine refuses it on purpose): the "
                    "same request stays pending; answer it again",
                )
            )
        )
        again, why = session.await_action(req_id, sent, deadline, name, timed=False)
    except _Dead as e:
        return CheckResult(name, False, str(e))
    if again is None:
        return CheckResult(
            name,
            False,
            f"after an illegal error on {refused!r}: {why}; the "
            "same request stays pending and needs another answer",
        )
    if again.action.strip() == refused.strip():
        return CheckResult(name, False, f"sent the refused action {refused!r} again")
    complaint = judge_action(m, again.action)
    if complaint:
        return CheckResult(name, False, f"second answer: {complaint}")
    return CheckResult(name, True, f"answered {again.action!r} after {refused!r} was refused")


def _ping_item(session: _Session) -> CheckResult:
    name = "ping"
    bad_before = len(session.bad_lines)
    try:
        t0 = session.send(encode(Ping(id=777)))
        reply = session.receive(t0, t0 + PING_TIMEOUT, bad_grace=BAD_LINE_GRACE)
    except _Dead as e:
        return CheckResult(name, False, str(e))
    if reply is None:
        if len(session.bad_lines) > bad_before:
            return CheckResult(
                name,
                False,
                "answered ping 777 with a line that is not a "
                f"valid message: {session.bad_lines[bad_before]}",
            )
        return CheckResult(name, False, session.silence(PING_TIMEOUT))
    msg = reply.message
    if not isinstance(msg, Pong) or msg.id != 777:
        return CheckResult(
            name, False, f'answered ping 777 with {msg!r}; send {{"type":"pong","id":777}}'
        )
    return CheckResult(name, True, f"pong in {reply.elapsed / MILLISECOND:.0f} ms")


def _timing_item(session: _Session) -> CheckResult:
    name = "reply time"
    limit = (session.settings.bank + session.settings.delay) / MILLISECOND
    if session.late:
        return CheckResult(
            name, False, f"no reply within {limit:.0f} ms in: " + ", ".join(session.late)
        )
    lat = session.latencies
    if not lat:
        return CheckResult(name, False, "no replies to time")
    return CheckResult(
        name,
        True,
        f"{len(lat)} replies: median "
        f"{statistics.median(lat) / MILLISECOND:.1f} ms, max "
        f"{max(lat) / MILLISECOND:.1f} ms (limit {limit:.0f} ms)",
    )


def _output_item(session: _Session) -> CheckResult:
    name = "clean stdout"
    if session.bad_lines:
        return CheckResult(
            name,
            False,
            f"{len(session.bad_lines)} line(s) that are not "
            f"protocol messages, first: {session.bad_lines[0]}; the referee "
            "ends a match at such a line as your loss (protocol error): write "
            "diagnostics to stderr or send log messages",
        )
    return CheckResult(name, True, "every line was a protocol message")


def _quit_item(session: _Session) -> CheckResult:
    name = "quit"
    t = session.transport
    if t is None or t.poll_exit() is not None:
        return CheckResult(name, False, "the engine was no longer running when told to quit")
    info = t.close(encode(Quit()), QUIT_GRACE)
    session.transport = None
    if info.how == "quit":
        return CheckResult(name, True, f"exited by itself after quit ({info.describe()})")
    return CheckResult(
        name,
        False,
        f"still running {QUIT_GRACE / SECOND:g} s after quit; "
        f"ended with {info.how.upper()}: exit when you read quit",
    )


def _default_starter(spec: EngineSpec, transport: str, clock: Clock) -> Transport:
    return start_engine(spec, transport, clock=clock)


def check_engine(
    spec: EngineSpec,
    settings: CheckSettings | None = None,
    *,
    clock: Clock | None = None,
    starter: Callable[[EngineSpec, str, Clock], Transport] | None = None,
) -> CheckReport:
    """Run every check against ``spec``; never raises for a misbehaving engine."""
    import time

    settings = settings or CheckSettings()
    session = _Session(spec, settings, clock or time.monotonic_ns, starter or _default_starter)
    report = CheckReport(spec.name, list(spec.command))
    add = report.results.append
    not_checked = (
        "ping",
        *POSITIONS,
        "stale id",
        "error reply",
        "reply time",
        "clean stdout",
        "quit",
    )
    try:
        session.start()
    except EngineStartError as e:
        add(CheckResult("hello", False, str(e)))
        for item in not_checked:
            add(CheckResult(item, False, "not checked: the engine could not be started"))
        return report
    try:
        hello = session.do_hello()
        add(hello)
        report.engine_name = session.hello.name if session.hello else None
        if session.hello is None:
            # Nothing came back: every other item would just wait and fail the same way.
            for item in not_checked:
                add(CheckResult(item, False, "not checked: the engine never said hello"))
            return report
        add(_ping_item(session))
        for name in POSITIONS:
            problem = session.ensure_running()
            add(CheckResult(name, False, problem) if problem else _decision_item(session, name))
        for label, check in (("stale id", _stale_item), ("error reply", _error_item)):
            problem = session.ensure_running()
            add(CheckResult(label, False, problem) if problem else check(session))
        add(_timing_item(session))
        add(_output_item(session))
        problem = session.ensure_running()
        add(CheckResult("quit", False, problem) if problem else _quit_item(session))
        return report
    finally:
        session.close()
