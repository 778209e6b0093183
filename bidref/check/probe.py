"""check-engine's connection to the engine it checks: one EngineSession at a time.

The protocol (the hello, request ids, stale and bad lines, rules help, logs,
the caps, and the wait for a reply judged against an absolute deadline from
the injected clock) is :class:`bidref.match.session.EngineSession`'s, exactly as in
``bidref match``. What is check-engine's own is the reaction: where the
referee would end the match, the check notes what happened, says what to do
about it, and goes on to the next item, restarting the engine after a crash
or a request left unanswered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from bidref.engines import (
    MAX_LINE,
    Clock,
    EngineSpec,
    EngineStartError,
    ExitInfo,
    Incoming,
    Line,
    Overlong,
    Transport,
    WriteError,
)
from bidref.match.session import (
    DEFAULT_TOLERANCE_NS,
    STDERR_SETTLE_NS,
    Counted,
    EngineSession,
    SessionEnd,
    hello_line,
)
from bidref.outcome import EndDetail, EndReason
from bidref.outcome.details import ProtocolDetail
from bidref.players import SeatGone
from bidref.protocol import (
    PROTOCOL_VERSION,
    EngineHello,
    ErrorMsg,
    Log,
    Ping,
    Pong,
    RulesRequest,
    encode,
)
from bidref.protocol.fastview import RequestEncoder
from bidref.rules import MILLISECOND, SECOND, Match, TimeControl

from .positions import SEAT
from .report import CheckResult, CheckSettings

T = TypeVar("T")
Starter = Callable[[EngineSpec, str, Clock], Transport]

PING_ID: Final = 777
PING_TIMEOUT: Final = 2 * SECOND
QUIT_GRACE: Final = 2 * SECOND
KILL_GRACE: Final = 100 * MILLISECOND
LATE_GRACE: Final = 1 * SECOND  # how long past a deadline to wait for a late answer
BAD_LINE_GRACE: Final = 1 * SECOND  # how long after an invalid line to wait for a hello/pong
TOO_SLOW: Final = (
    "too slow; answer within the request's clock.deadline_ms (delay left + bank), keeping a margin"
)


@dataclass(frozen=True, slots=True)
class Terms:
    """What an EngineSession reads of a MatchSpec, for the check."""

    transport: str
    startup_timeout_ns: int
    timing_tolerance_ns: int = DEFAULT_TOLERANCE_NS
    grace_ns: int = SECOND  # how long an engine that closed its stdout gets to exit
    max_line: int = MAX_LINE


@dataclass(frozen=True, slots=True)
class Answer:
    action: str
    raw: str


class WrongId(Exception):
    """A reply for a request that is neither pending nor given up on."""

    def __init__(self, got: int, t: int) -> None:
        self.got = got
        self.t = t
        super().__init__(got)


class Notes:
    """The check's :class:`~bidref.match.session.Recorder`: where the referee writes
    its transcript, the check keeps only what an item is judged on."""

    origin = 0  # (no transcript: times are the clock's own)

    def __init__(self) -> None:
        self.given_up: set[int] = set()  # requests left unanswered (the engine was restarted)

    def before_send(self) -> None:
        pass

    def log(self, seat: int, msg: Log, t: int) -> None:
        pass

    def stale(self, seat: int, got_id: int, pending: int, raw: str, t: int) -> None:
        # A late answer to a request given up on is not this item's fault. Any
        # other id is: the referee would ignore it and wait on into a time loss,
        # the check says so at once.
        if got_id not in self.given_up:
            raise WrongId(got_id, t)

    def rules(self, seat: int, msg: RulesRequest, t: int) -> None:
        pass

    def resign(self, seat: int, message: str | None, t: int) -> None:
        pass

    def timeout(self, seat: int, overrun_ns: int) -> None:
        pass


class TransportSeat:
    """The :class:`~bidref.players.Seat` face of a started transport (an engine
    process, or a network seat behind :class:`bidref.net.transport.SeatTransport`).
    It keeps the last thing it read: what a session ended on, for the report."""

    def __init__(self, transport: Transport, name: str) -> None:
        self.t = transport
        self.name = name
        self.last: Incoming | None = None

    def open(self) -> None:
        pass  # the starter started it

    def send(self, text: str) -> int:
        self.t.thaw()  # --freeze-idle: a stopped engine runs again when it is told anything
        try:
            return self.t.write_line(text)
        except WriteError as e:
            raise SeatGone(str(e)) from None

    def receive(self, deadline: int | None) -> Incoming | None:
        self.last = self.t.read(deadline)
        return self.last

    def exit_info(self, wait_ns: int) -> ExitInfo | None:
        return self.t.wait_exit(wait_ns) if wait_ns > 0 else self.t.poll_exit()

    def close(self, quit_line: str | None, grace_ns: int) -> ExitInfo:
        return self.t.close(quit_line, grace_ns)

    def stderr_tail(self) -> str:
        return self.t.stderr_tail()

    def stderr_bytes(self) -> int:
        return self.t.stderr_bytes()

    def describe(self) -> dict[str, object]:
        return {"name": self.name}


class Probe:
    """The engine under check, one process at a time (restarted after a crash),
    and what the items are judged on across processes."""

    def __init__(
        self, spec: EngineSpec, settings: CheckSettings, clock: Clock, starter: Starter
    ) -> None:
        self.spec = spec
        self.settings = settings
        self.clock = clock
        self.starter = starter
        self.notes = Notes()
        self.seat: TransportSeat | None = None
        self._session: EngineSession | None = None
        self.bad_lines: list[str] = []  # lines that are not messages, as the session said
        self.latencies: list[int] = []
        self.late: list[str] = []  # the items answered late, or not at all
        self.next_id = 0
        self.hello: EngineHello | None = None
        self.counts = [0, 0]  # decision requests sent to this process, and actions back
        self.encoder = RequestEncoder()
        self.stuck = False  # a request was left unanswered: restart before the next item

    # -- the process ----------------------------------------------------------------------

    def start(self) -> None:
        transport = self.starter(self.spec, self.settings.transport, self.clock)
        self.seat = TransportSeat(transport, self.spec.name)
        terms = Terms(self.settings.transport, self.settings.startup)
        self._session = EngineSession(self.seat, SEAT, self.clock, self.notes, terms)
        self.counts = [0, 0]
        self.stuck = False

    @property
    def session(self) -> EngineSession:
        if self._session is None:
            raise RuntimeError("start() the probe first")
        return self._session

    def alive(self) -> bool:
        return self.seat is not None and self.seat.t.poll_exit() is None

    def close(self, quit_line: str | None = None) -> ExitInfo | None:
        if self.seat is None:
            return None
        # Without a quit line there is nothing to wait for: end it at once.
        info = self.seat.close(quit_line, QUIT_GRACE if quit_line else KILL_GRACE)
        self.seat = self._session = None
        return info

    def ensure_running(self) -> str | None:
        """Restart the engine (with its hello) if it died or left a request
        unanswered; the reason if that fails."""
        if self.alive() and not self.stuck:
            return None
        self.close()
        try:
            self.start()
        except EngineStartError as e:
            return f"the engine could not be restarted: {e}"
        result = self.do_hello()
        return None if result.passed else f"the restarted engine failed its hello: {result.detail}"

    # -- what the session ended on, said for the engine's author ---------------------------

    def silence(self, waited: int) -> str:
        """Why nothing came within ``waited`` ns: exited, or alive but silent."""
        seat = self.seat
        info = seat.t.poll_exit() if seat is not None else None
        if seat is not None and info is not None:
            seat.t.settle_stderr(STDERR_SETTLE_NS)  # its last words may still be in the pipe
            tail = seat.stderr_tail().strip()[-300:]
            n = self.counts[0]
            at = f" at its {_ordinal(n)} request since it started," if n else ""
            return (
                f"the engine exited ({info.describe()}){at} without answering"
                + (f"; its stderr ends: {tail!r}" if tail else "")
                + _EXIT_HINTS.get(info.exit_code or 0, "")
            )
        if self.counts[1]:
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

    def ended(self, e: SessionEnd, waited: int) -> str:
        """What an end other than a time loss means for the item."""
        problem = e.detail.problem_text
        if problem is None:
            problem = str(e.reason)
        if e.reason is EndReason.CRASH:
            if self.seat is not None and self.seat.t.poll_exit() is not None:
                return self.silence(waited)
            return f"the engine cannot be reached: {problem}"
        if e.reason is EndReason.RESIGN:
            return "resigned instead of answering (the referee scores a loss by resignation)"
        if e.reason is EndReason.ABORTED:
            return f"not judged: {problem}; check again on a quieter machine"
        if e.reason is EndReason.PROTOCOL:
            return (
                f"{problem}: {_line_of(e.detail)}; the referee ends the match there "
                "as your loss (protocol error)"
            )
        return problem

    def _bad_line(self, e: SessionEnd) -> str | None:
        """The line that is not a message that ``e`` ended on, if that is what it is."""
        if e.bad_line is not None:
            return str(e.bad_line)
        last = self.seat.last if self.seat is not None else None
        if e.reason in (EndReason.PROTOCOL, EndReason.STARTUP) and isinstance(last, Overlong):
            return f"a line of {last.length} characters"
        return None

    def _wait(self, get: Callable[[int], T], deadline: int, bad_grace: int | None = None) -> T:
        """``get(deadline)``, waiting past lines that are not messages (noted in
        ``bad_lines``: the "clean stdout" item reports them). With ``bad_grace``
        the wait ends that long after such a line."""
        while True:
            try:
                return get(deadline)
            except SessionEnd as e:
                bad = self._bad_line(e)
                if bad is None:
                    raise
                self.bad_lines.append(bad)
                last = self.seat.last if self.seat is not None else None
                if bad_grace is not None and isinstance(last, Line | Overlong):
                    deadline = min(deadline, last.t + bad_grace)

    # -- protocol steps ---------------------------------------------------------------------

    def do_hello(self) -> CheckResult:
        name = "hello"
        s = self.settings
        line = hello_line(
            SEAT,
            TimeControl(s.bank, s.delay),
            max_rounds=None,
            illegal="reject",
            startup_ns=s.startup,
            options=dict(self.spec.options),
        )
        bad_before = len(self.bad_lines)
        session = self.session
        try:
            t0 = session.send_hello(line)
        except SessionEnd:
            # An engine that already exited has closed its stdin: say how it ended.
            return CheckResult(name, False, self.silence(s.startup))
        try:
            msg, _, t = self._wait(
                lambda d: session.await_hello(d, same_protocol=False),
                t0 + s.startup,
                BAD_LINE_GRACE,
            )
        except SessionEnd as e:
            return CheckResult(name, False, self._no_hello(e, bad_before))
        self.hello = msg
        # the request lines the referee would write (with points, if asked for)
        self.encoder.points = ("points" in msg.features, False)
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
            f"{who} by {msg.author or '?'}, {msg.protocol}, in {(t - t0) / MILLISECOND:.0f} ms",
        )

    def _no_hello(self, e: SessionEnd, bad_before: int) -> str:
        if len(self.bad_lines) > bad_before:
            return (
                "answered the hello with a line that is not "
                f"a valid message: {self.bad_lines[bad_before]}"
            )
        last = self.seat.last if self.seat is not None else None
        if isinstance(last, Line):  # a message, but not a hello
            return f"{e.detail.problem_text}; the first line must be the engine's hello"
        if last is None:  # nothing within the start-up timeout
            return (
                self.silence(self.settings.startup)
                + "; if it only needs longer to start, allow more with --startup"
            )
        return self.silence(self.settings.startup)

    def ping(self) -> CheckResult:
        name = "ping"
        bad_before = len(self.bad_lines)
        session = self.session
        try:
            t0 = session.send(encode(Ping(id=PING_ID)))
            msg, _, t = self._wait(
                lambda d: session.next_message(d, Pong), t0 + PING_TIMEOUT, BAD_LINE_GRACE
            )
        except WrongId as w:
            return CheckResult(
                name,
                False,
                f"answered ping {PING_ID} with an action for request {w.got}; "
                f'send {{"type":"pong","id":{PING_ID}}}',
            )
        except SessionEnd as e:
            if e.reason is not EndReason.TIME:
                return CheckResult(name, False, self.ended(e, PING_TIMEOUT))
            if len(self.bad_lines) > bad_before:
                return CheckResult(
                    name,
                    False,
                    f"answered ping {PING_ID} with a line that is not a "
                    f"valid message: {self.bad_lines[bad_before]}",
                )
            return CheckResult(name, False, self.silence(PING_TIMEOUT))
        if msg.id != PING_ID:
            return CheckResult(
                name,
                False,
                f'answered ping {PING_ID} with {msg!r}; send {{"type":"pong","id":{PING_ID}}}',
            )
        return CheckResult(name, True, f"pong in {(t - t0) / MILLISECOND:.0f} ms")

    def request(self, m: Match) -> tuple[int, int, int]:
        """Send a decision request for ``m``; return (id, start of its clock, deadline)."""
        self.next_id += 1
        s = self.settings
        delay, bank = s.delay // MILLISECOND, s.bank // MILLISECOND
        line = self.encoder.encode_ms(m, self.next_id, delay, bank, bank, delay + bank)
        start = self.session.send(line)
        self.session.begin(self.next_id, start)
        self.counts[0] += 1
        return self.next_id, start, start + s.delay + s.bank

    def tell(self, error: ErrorMsg) -> int:
        return self.session.send(encode(error))

    def refuse(self, answer: Answer, error: ErrorMsg) -> None:
        """Reject ``answer`` as the referee rejects an illegal one: the same
        request stays pending, its clock running."""
        self.session.count(Counted.REJECTED_REPLY, answer.raw)
        self.session.retry(self.tell(error))

    def await_action(
        self, req_id: int, start: int, deadline: int, what: str, timed: bool = True
    ) -> tuple[Answer | None, str]:
        """The answer to ``req_id``, or None and why not. ``timed``: count it for
        the reply-time item (not a second answer after an error)."""
        bad_before = len(self.bad_lines)
        try:
            action, raw, t = self._wait(self._next_action, deadline)
        except WrongId as w:
            if timed:
                self.latencies.append(max(w.t - start, 0))
            self.counts[1] += 1
            return None, (
                f"answered with id {w.got} to request {req_id}: echo the id of "
                "the request you answer"
            )
        except SessionEnd as e:
            return None, self._no_action(e, req_id, start, deadline, what, timed, bad_before)
        if timed:
            self.latencies.append(t - start)
        self.counts[1] += 1
        if self.settings.freeze_idle and self.seat is not None:
            self.seat.t.freeze()  # idle until it is sent the next line
        return Answer(action, raw), ""

    def _next_action(self, deadline: int) -> tuple[str, str, int]:
        _, action, raw, t, _ = self.session.next_action(deadline, None)
        return action, raw, t

    def _no_action(
        self,
        e: SessionEnd,
        req_id: int,
        start: int,
        deadline: int,
        what: str,
        timed: bool,
        bad_before: int,
    ) -> str:
        waited = deadline - start
        if e.reason is not EndReason.TIME:
            return self.ended(e, waited)
        last = self.seat.last if self.seat is not None else None
        if isinstance(last, Line):
            # a line the session proved late (a look at or after the deadline found nothing)
            if timed:
                self.late.append(what)
            return (
                f"answered {'' if timed else 'again '}after {(last.t - start) / MILLISECOND:.0f} "
                f"ms, past the deadline of {waited / MILLISECOND:.0f} ms: {TOO_SLOW}"
            )
        if not timed:  # a second answer (after an error) that never came
            self.notes.given_up.add(req_id)
            self.stuck = True
            return f"no second answer within {waited / SECOND:g} s"
        self.late.append(what)
        if len(self.bad_lines) > bad_before:
            return (
                f"no valid answer within {waited / SECOND:g} s; it wrote a line that is "
                f"not a valid message instead: {self.bad_lines[bad_before]}; the referee "
                "ends the match at such a line as your loss (protocol error)"
            )
        # Nothing by the deadline: a little longer tells a slow engine from a silent one.
        try:
            _, _, t = self._wait(self._next_action, deadline + LATE_GRACE)
        except (SessionEnd, WrongId):
            self.notes.given_up.add(req_id)
            self.stuck = True
            return self.silence(waited)
        return (
            f"answered after {(t - start) / MILLISECOND:.0f} ms, past the deadline of "
            f"{waited / MILLISECOND:.0f} ms: {TOO_SLOW}"
        )


_EXIT_HINTS: Final = {
    126: " (exit code 126: a program could not be run: is the file executable?)",
    127: " (exit code 127: a program was not found: is the interpreter on the engine's #! "
    "line, or the command it runs, installed and on PATH?)",
}


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _line_of(detail: EndDetail) -> str:
    """The line a protocol end quotes ("" for another end)."""
    return detail.line or "" if isinstance(detail, ProtocolDetail) else ""
