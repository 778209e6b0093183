"""One player's protocol session: the ``bidref/1`` conversation with one seat.

An :class:`EngineSession` owns everything the protocol says about one seat:
the hello handshake, request ids, stale and extra lines, rules help, logs and
resignations, the caps on what an engine can make the referee do, the wait for
a reply against an absolute deadline (judged by the clock promises of
docs/match.md), and how the engine ended. The referee (bidref/match/referee.py) only
orchestrates two sessions: the rules, the clock, the events, the transcript.
What a session sees that belongs in the transcript it reports to a
:class:`Recorder`; what ends the match it raises as :class:`SessionEnd`.

``check-engine`` (bidref/check/) drives its engine through an
:class:`EngineSession` too, with its own :class:`Recorder`: the same hello,
request ids, stale and bad lines, rules help and judged wait; it only reacts
differently to what would end a match (it notes it and checks the next item).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from enum import IntEnum
from typing import Any, Final, Protocol, TypeVar

from .. import __version__
from ..engines import Clock, Eof, ExitInfo, Incoming, Line, Overlong
from ..outcome import EndReason
from ..outcome.details import (
    CrashDetail,
    EndDetail,
    JailSetupDetail,
    MachineEvidence,
    MachineWaitDetail,
    ProtocolDetail,
    ResignDetail,
    ResourcesDetail,
    StartupDetail,
    TimeDetail,
    TimingFaultDetail,
)
from ..outcome.excuse import MAX_EXTENSION_NS, MachineWait, ms
from ..players import Seat, SeatGone, SeatResigned, SeatSetupError, SeatStartError
from ..players.abilities import abilities_of
from ..protocol import (
    PROTOCOL_VERSION,
    ActionMsg,
    EngineHello,
    EngineMessage,
    ErrorMsg,
    Log,
    Pong,
    ProtocolError,
    RefereeHello,
    Resign,
    RulesAnswer,
    RulesRequest,
    Settings,
    decode_engine_line,
    encode,
    quote,
)
from ..protocol.codec import action_reply
from ..rules import MILLISECOND, RULES_VERSION, SECOND, TimeControl
from ..rules_text import rules_section
from .startup_evidence import evidence_hint

M = TypeVar("M", bound=EngineMessage)

DEFAULT_TOLERANCE_NS: Final = 1 * MILLISECOND  # MatchSpec.timing_tolerance_ns (docs/match.md)
# Caps on what an engine can make the referee do for one request (docs/match.md, "Caps"):
RULES_PER_TURN: Final = 16  # rules requests answered; further ones get a short error
EXTRA_LINES_PER_TURN: Final = 10_000  # lines other than the reply (logs, rules, stale, ...)
REJECTED_PER_TURN: Final = 100  # rejected replies (illegal / bad action) to one request
REJECTED_PER_MATCH: Final = 1000  # ... and in the whole match; beyond either: a protocol loss
# How long a crash report waits for an exited engine's last stderr bytes to be read
# (a process it left behind may hold the pipe open: then the tail is what came by then).
STDERR_SETTLE_NS: Final = 200 * MILLISECOND


class Counted(IntEnum):
    """What :meth:`EngineSession.count` counts against the caps of the pending
    request; the value is its place in ``EngineSession.turn``."""

    RULES_REQUEST = 0  # also a line other than the reply
    OTHER_LINE = 1  # a log, a stale or extra line: anything but the reply
    REJECTED_REPLY = 2  # an illegal or malformed action (also against the match's cap)


class SessionEnd(Exception):
    """The match ends because of what this seat did (or, for ``aborted``, because
    the referee could not judge it): the detail's ``seat`` is the seat.

    ``bad_line``: the line that is not a valid message, when that is the end
    (check-engine notes it and waits on: it reports every item, not one result)."""

    def __init__(
        self,
        reason: EndReason,
        detail: EndDetail,
        rated: bool | None = None,
        *,
        bad_line: ProtocolError | None = None,
    ) -> None:
        self.reason = reason
        self.detail = detail
        self.rated = reason.rated if rated is None else rated
        self.bad_line = bad_line
        super().__init__(reason)


class Recorder(Protocol):
    """What a session reports for the transcript (the referee implements it)."""

    origin: int
    """The clock time the transcript's times count from (0 where none is kept)."""

    def before_send(self) -> None:
        """A line is about to go to the engine: what it is told is recorded first."""

    def log(self, seat: int, msg: Log, t: int) -> None: ...

    def stale(self, seat: int, got_id: int, pending: int, raw: str, t: int) -> None: ...

    def rules(self, seat: int, msg: RulesRequest, t: int) -> None: ...

    def resign(self, seat: int, message: str | None, t: int) -> None: ...

    def timeout(self, seat: int, overrun_ns: int) -> None: ...


def hello_line(
    seat: int,
    control: TimeControl,
    *,
    max_rounds: int | None,
    illegal: str,
    startup_ns: int,
    options: dict[str, Any],
) -> str:
    """The referee's hello to the engine in ``seat``."""
    settings = Settings(
        bank_ms=control.bank // MILLISECOND,
        delay_ms=control.delay // MILLISECOND,
        max_rounds=max_rounds,
        illegal=illegal,  # type: ignore[arg-type]  # (checked by MatchSpec)
        startup_ms=startup_ns // MILLISECOND,
    )
    return encode(
        RefereeHello(
            bidref=__version__, rules=RULES_VERSION, seat=seat, settings=settings, options=options
        )
    )


def rules_reply(msg: RulesRequest, asked_this_turn: int) -> str:
    """The answer to a rules request: the section asked for, or, beyond
    :data:`RULES_PER_TURN` for one request, a short error (the answers are long,
    and the engine's clock runs meanwhile)."""
    if asked_this_turn > RULES_PER_TURN:
        return encode(
            ErrorMsg(
                id=None,
                code="unexpected",
                message=(
                    f"more than {RULES_PER_TURN} rules requests for one request: not "
                    "answered (the cap; the rules text does not change)"
                ),
            )
        )
    return encode(RulesAnswer(id=msg.id, topic=msg.topic, text=rules_section(msg.topic)))


def judge(deadline: int, after: int, read: int, tolerance_ns: int) -> str:
    """The clock's verdict on a line read at ``read`` that reached the reader
    after its look at ``after`` (docs/match.md, "Clock promises"): ``in_time``
    (read before the deadline), ``band`` (it may have come in time, read within
    the tolerance: it counts), ``late`` (proven late: a look at or after the
    deadline found nothing before it), or ``unjudgeable`` (nobody looked at the
    deadline: a referee timing fault).

    >>> [judge(100, 90, r, 5) for r in (99, 100, 105, 106)]
    ['in_time', 'band', 'band', 'unjudgeable']
    >>> judge(100, 100, 101, 5)
    'late'
    """
    if read < deadline:
        return "in_time"
    if after >= deadline:
        return "late"
    return "band" if read - deadline <= tolerance_ns else "unjudgeable"


def unflushed_hint(transport: str) -> str:
    if transport != "pipe":
        return ""
    return (
        " (if it does print a hello, its stdout is probably not flushed on a pipe: "
        "flush after every line, or run it with --transport pty)"
    )


class EngineSession:
    """The protocol with the player in one seat. See the module docstring."""

    __slots__ = (
        "abilities",
        "clock",
        "counts",
        "floor",
        "index",
        "machine",
        "name",
        "opened",
        "pending",
        "rec",
        "seat",
        "spec",
        "turn",
    )

    def __init__(self, seat: Seat, index: int, clock: Clock, rec: Recorder, spec: Any) -> None:
        self.seat = seat
        self.abilities = abilities_of(seat)  # what it can do beyond the Seat interface
        self.name = seat.name  # the engine's hello may name it
        self.index = index
        self.clock = clock
        self.rec = rec
        self.spec = spec  # the MatchSpec: tolerance, grace, start-up timeout, line limit
        self.opened = False
        self.pending = 0  # the id of the request waiting for its reply
        self.floor = 0  # the last t_ns recorded: engine lines are never stamped before it
        # per match: log lines, stale replies, rules requests, rejected replies
        self.counts = {"log_lines": 0, "stale_lines": 0, "rules_requests": 0, "rejected": 0}
        self.turn = [0, 0, 0]  # for the pending request, by Counted
        # The machine's wait of the pending decision (bidref/outcome/excuse.py), where
        # the referee can read it; None: a late reply is a time loss, as ever.
        self.machine: Callable[[], MachineWait | None] | None = None

    # -- start-up ---------------------------------------------------------------------------

    def open(self) -> None:
        try:
            self.seat.open()
        except SeatSetupError as e:  # the referee's own set-up: nobody's loss
            raise SessionEnd(
                EndReason.ABORTED, JailSetupDetail(seat=self.index, problem=str(e))
            ) from None
        except SeatStartError as e:
            raise self._startup(str(e)) from None
        self.opened = True

    def send_hello(self, line: str) -> int:
        try:
            return self.seat.send(line)
        except SeatGone as e:
            # An engine that already exited closes its stdin first: say how it ended.
            info = self.ended_info()
            problem = f"the engine ended before its hello ({info.describe()})" if info else e
            raise self._startup(f"{problem}{self.stderr_hint()}") from None

    def await_hello(
        self, deadline: int, *, same_protocol: bool = True
    ) -> tuple[EngineHello, str, int]:
        """The engine's hello, its raw line and the time it was read. With
        ``same_protocol`` false, a hello naming another protocol is returned too
        (check-engine reports it and checks the rest)."""
        secs = self.spec.startup_timeout_ns / SECOND
        while True:
            inc = self.seat.receive(deadline)
            if inc is None:
                raise self._startup(
                    f"no hello within the start-up timeout of {secs:g} s{self.stderr_hint()}"
                    f"{self.flush_hint()}"
                )
            if isinstance(inc, Eof):
                info = self.ended_info()
                how = info.describe() if info else "closed its stdout"
                raise self._startup(
                    f"the engine ended before its hello ({how}){self.stderr_hint()}"
                    f"{self.flush_hint()}"
                )
            if isinstance(inc, Overlong):
                raise self._startup(
                    f"a line of more than {self.spec.max_line} bytes instead of a hello"
                )
            try:
                msg = decode_engine_line(inc.text)
            except ProtocolError as e:
                raise self._startup(f"expected a hello: {e}", e) from None
            if inc.t >= deadline and not isinstance(msg, EngineHello):
                # A seat hands back lines already read even past the deadline: an
                # engine that floods logs never lets a look find nothing, so the
                # deadline is judged here, on each line (else the wait never ends).
                logs = self.counts["log_lines"]
                raise self._startup(
                    f"no hello within the start-up timeout of {secs:g} s ({logs} log "
                    f"lines and no hello){self.stderr_hint()}"
                )
            if isinstance(msg, Log):
                self.log(msg, inc.t)
                continue
            if not isinstance(msg, EngineHello):
                raise self._startup(
                    f"expected a hello, got a {msg.type!r} message: {quote(inc.text)}"
                )
            if same_protocol and msg.protocol != PROTOCOL_VERSION:
                raise self._startup(
                    f"the engine speaks protocol {msg.protocol!r}; this referee speaks "
                    f"{PROTOCOL_VERSION!r}"
                )
            return msg, inc.text, inc.t

    def ended_info(self) -> ExitInfo | None:
        """How the engine ended (None: it runs), its stderr then read to the end: on a
        loaded machine its last words (a traceback) may still be in the pipe."""
        info = self.seat.exit_info(self.spec.grace_ns)
        settle = self.abilities.settle_stderr
        if info is not None and settle is not None:
            settle(STDERR_SETTLE_NS)
        return info

    def _startup(self, problem: str, bad_line: ProtocolError | None = None) -> SessionEnd:
        return SessionEnd(
            EndReason.STARTUP, StartupDetail(seat=self.index, problem=problem), bad_line=bad_line
        )

    def stderr_hint(self) -> str:
        tail = self.seat.stderr_tail().strip()
        return f"; stderr ends: {tail[-300:]!r}" if tail else ""

    def flush_hint(self) -> str:
        """The word on flushing, unless the stderr shows another cause (a traceback, a
        missing module or file, ...: :mod:`.startup_evidence`), which then stands alone."""
        if evidence_hint(self.seat.stderr_tail()):
            return ""
        return unflushed_hint(self.spec.transport)

    # -- lines out ------------------------------------------------------------------------------

    def send(self, text: str) -> int:
        """Deliver ``text``; the clock time taken before it could be read."""
        self.rec.before_send()
        try:
            return self.seat.send(text)
        except SeatResigned:
            raise self.resigned(self.clock(), None) from None
        except SeatGone as e:
            raise self.crash(str(e)) from None

    def send_quietly(self, text: str) -> None:
        """Deliver ``text`` if the player can still receive it (the match is over)."""
        self.rec.before_send()
        with contextlib.suppress(SeatGone):
            self.seat.send(text)

    # -- waiting for a reply ----------------------------------------------------------------------

    def begin(self, rid: int, start: int) -> None:
        """Request ``rid`` was sent at ``start``: its reply is awaited now."""
        self.pending = rid
        self.floor = start
        self.turn = [0, 0, 0]

    def retry(self, start: int) -> None:
        """An error line for a rejected reply was sent at ``start``."""
        self.floor = start

    def next_action(
        self, deadline: int, came: tuple[int, int] | None
    ) -> tuple[int, str, str, int, bool]:
        """The next action line for the pending request that may have come in
        time: ``(id, action text, raw line, t, prepared)``, with ``t`` the time it
        is charged up to. Every other line is handled here (stale ids, rules,
        logs, resignations, bad lines, the caps); what ends the match is raised.

        ``came``: (the last look that found nothing, the look that found input)
        when the caller saw the first line while it was preparing; the player is
        then charged up to the quiet look (never the caller's work), and
        ``prepared`` is true for lines read with it."""
        first_t: int | None = None
        while True:
            inc = self._line(deadline)
            # The line's end reached the referee in (after, read]: after the last
            # look that found nothing, by the look that read it.
            read = inc.t
            after = read if inc.after is None else inc.after
            t = read
            prepared = False
            if came is not None:
                quiet, found = came
                if first_t is None:
                    first_t = read
                if read != first_t:
                    came = None
                else:
                    after, read, t, prepared = quiet, min(read, found), quiet, True
            t = self._charged_up_to(deadline, after, read, t)
            text = inc.text
            fast = action_reply(text)  # the usual action line, without a JSON parser
            if fast is None:
                got = self._slow_line(text, t)
                if got is None:
                    continue
                got_id, action_text = got
            else:
                got_id, action_text = fast
            if got_id != self.pending:
                self.count(Counted.OTHER_LINE, text)
                self._stale(got_id, text, t)
                continue
            return got_id, action_text, text, t, prepared

    def next_message(self, deadline: int, kind: type[M]) -> tuple[M, str, int]:
        """The next message of ``kind`` (a pong to a ping, say), its raw line and
        the time it is charged up to, as :meth:`next_action` judges a reply:
        every other line is handled as while a reply is awaited (no action is,
        so an action is stale), and what ends the match is raised."""
        while True:
            inc = self._line(deadline)
            read = inc.t
            t = self._charged_up_to(deadline, read if inc.after is None else inc.after, read, read)
            text = inc.text
            try:
                msg: EngineMessage | None = decode_engine_line(text)
            except ProtocolError:
                msg = None  # _slow_line ends on it, as next_action does
            if isinstance(msg, kind):
                return msg, text, t
            got = self._slow_line(text, t)
            if got is not None:
                self.count(Counted.OTHER_LINE, text)
                self._stale(got[0], text, t)

    def _line(self, deadline: int) -> Line:
        """The next line from the engine; what ends the match instead is raised.

        A look at the deadline that finds nothing is a time loss, unless the
        machine kept the engine waiting for a CPU longer than it is now past the
        deadline (bidref/outcome/excuse.py): then the look is put off until the
        excuse runs out, re-read each time; a reply found meanwhile is judged by
        :meth:`_judge_late`."""
        until = deadline
        while True:
            inc = self.seat.receive(until)
            if inc is None:
                until = self._put_off(deadline)
                continue
            if type(inc) is not Line:
                raise self._not_a_line(inc, deadline)
            assert isinstance(inc, Line)
            return inc

    def _machine_now(self) -> MachineWait | None:
        """The machine's figures of the pending decision, with what the engine made
        the referee do meanwhile (rules requests, other lines: excuse.py, rule 0)."""
        found = self.machine() if self.machine is not None else None
        if found is None:
            return None
        turn = self.turn
        return dataclasses.replace(
            found,
            rules_requests=turn[Counted.RULES_REQUEST],
            other_lines=turn[Counted.OTHER_LINE],
        )

    def _put_off(self, deadline: int) -> int:
        """A look at or after the deadline found nothing: the time of the next look,
        if the machine's wait still excuses a reply (else the end is raised)."""
        now = self.clock()
        late = max(now - deadline, 0)
        found = self._machine_now()
        excused = 0 if found is None else found.excused_ns
        if late >= excused:
            raise self.time_loss(late, found)
        if found is not None and late >= MAX_EXTENSION_NS:
            # still the machine's doing, a second on: the engine hardly ran
            raise self.machine_wait(deadline, now, found)
        return deadline + min(excused, MAX_EXTENSION_NS)

    def _charged_up_to(self, deadline: int, after: int, read: int, t: int) -> int:
        """When a line that reached the referee in (``after``, ``read``] is charged
        up to, ``t`` if it was read before the deadline: judged if not (and its
        end raised), and never before a line already recorded (a queued line)."""
        if read >= deadline:
            t = self._judge_late(deadline, after, read)
        return t if t >= self.floor else self.floor

    def _not_a_line(self, inc: Incoming | None, deadline: int) -> SessionEnd:
        """The end that ``inc`` (not a line: a timeout, EOF or an over-long line) means."""
        if inc is None:
            # the seat looked at or after the deadline and found nothing: a time
            # loss, however late the look was (the reply was not there)
            return self.time_loss(max(self.clock() - deadline, 0))
        if isinstance(inc, Eof):
            return self.crash()
        assert isinstance(inc, Overlong)
        return SessionEnd(
            EndReason.PROTOCOL,
            ProtocolDetail(
                seat=self.index,
                line=quote(inc.prefix),
                problem=f"a line of more than {self.spec.max_line} bytes (the limit)",
            ),
        )

    def _judge_late(self, deadline: int, after: int, read: int) -> int:
        """A line read at or after the deadline, that reached the referee in
        (``after``, ``read``]: the time to charge it at if it may have been in
        time; else raise the end it means (docs/match.md, "Clock promises")."""
        verdict = judge(deadline, after, read, self.spec.timing_tolerance_ns)
        if verdict == "late":
            # a look at or after the deadline found nothing: the line came later,
            # at the earliest just after that look (``after``)
            found = self._machine_now()
            if found is not None and after - deadline < found.excused_ns:
                raise self.machine_wait(deadline, after, found)
            raise self.time_loss(read - deadline, found)
        if verdict == "band":
            # within the tolerance: it may have come in time, so it counts as in
            # time, with all the time there was
            return deadline - 1
        # the referee was not looking at the deadline (a stall, an overloaded
        # machine): neither an in-time reply nor a time loss can be proven
        raise self.timing_fault(deadline, read, after)

    def _slow_line(self, text: str, t: int) -> tuple[int, str] | None:
        """Decode a line that is not an action in its usual form: (id, action) for
        an action; None for any other message (handled here)."""
        try:
            msg = decode_engine_line(text)
        except ProtocolError as e:
            self.send_quietly(encode(ErrorMsg(id=None, code=e.code, message=str(e))))
            raise SessionEnd(
                EndReason.PROTOCOL,
                ProtocolDetail(seat=self.index, line=quote(text), problem=e.problem),
                bad_line=e,
            ) from None
        if type(msg) is ActionMsg:
            return msg.id, msg.action
        self.count(Counted.RULES_REQUEST if type(msg) is RulesRequest else Counted.OTHER_LINE, text)
        if isinstance(msg, RulesRequest):
            self.counts["rules_requests"] += 1
            self.rec.rules(self.index, msg, t)
            # answered with the clock running, and only so many per request
            self.send(rules_reply(msg, self.turn[Counted.RULES_REQUEST]))
        elif isinstance(msg, Log):
            self.log(msg, t)
        elif isinstance(msg, Pong):
            pass
        elif isinstance(msg, Resign):
            raise self.resigned(t, msg.message)
        else:
            self.send(
                encode(
                    ErrorMsg(
                        id=None,
                        code="unexpected",
                        message=(
                            f"a {msg.type!r} message is not expected now; ignored: {quote(text)}"
                        ),
                    )
                )
            )
        return None

    def _stale(self, got_id: int, raw: str, t: int) -> None:
        self.counts["stale_lines"] += 1
        self.rec.stale(self.index, got_id, self.pending, raw, t)
        self.send(
            encode(
                ErrorMsg(
                    id=got_id,
                    code="stale_id",
                    message=(
                        f"action for request {got_id} ignored: the pending request is "
                        f"{self.pending}"
                    ),
                )
            )
        )

    def log(self, msg: Log, t: int) -> None:
        self.counts["log_lines"] += 1
        self.rec.log(self.index, msg, t)

    def count(self, what: Counted, raw: str) -> None:
        """Count a line other than the accepted reply against the caps of the
        pending request (rejected replies also against the match's cap): beyond
        one, the engine loses by ``protocol``."""
        turn = self.turn
        turn[what] += 1
        if what is Counted.REJECTED_REPLY:
            self.counts["rejected"] += 1
            over = turn[what] > REJECTED_PER_TURN or self.counts["rejected"] > REJECTED_PER_MATCH
            problem = (
                f"more than {REJECTED_PER_TURN} rejected replies to one request, or "
                f"{REJECTED_PER_MATCH} in the match (the caps)"
            )
        else:
            if what is Counted.RULES_REQUEST:
                turn[Counted.OTHER_LINE] += 1  # also a line other than the reply
            over = turn[Counted.OTHER_LINE] > EXTRA_LINES_PER_TURN
            problem = (
                f"more than {EXTRA_LINES_PER_TURN} lines other than the reply to one "
                "request (the cap)"
            )
        if over:
            raise SessionEnd(
                EndReason.PROTOCOL,
                ProtocolDetail(seat=self.index, line=quote(raw), problem=problem),
            )

    # -- ends ------------------------------------------------------------------------------------

    def time_loss(self, overrun: int, machine: MachineWait | None = None) -> SessionEnd:
        self.rec.timeout(self.index, overrun)
        # machine: what the machine's wait excused (less than the overrun), and why not more
        detail = TimeDetail(
            seat=self.index,
            overrun_ns=overrun,
            overrun_ms=round(overrun / MILLISECOND, 3),
            machine=None if machine is None else MachineEvidence.of(machine, with_why_not=True),
        )
        return SessionEnd(EndReason.TIME, detail)

    def machine_wait(self, deadline: int, at: int, machine: MachineWait) -> SessionEnd:
        """The reply was not there at ``at`` (past the deadline), but the machine
        kept the engine waiting for a CPU longer than that: it would have been in
        time without that wait. Not a time loss: aborted, unrated, with the figures."""
        late = at - deadline
        problem = (
            f"seat {'AB'[self.index]}'s reply was not there {ms(late)} after its "
            f"deadline, but its tasks waited for a CPU (not for each other) "
            f"{ms(machine.excused_ns)} in the decision (the longest one task's run-queue "
            f"wait; all: {ms(machine.wait_ns)}, {machine.tasks} task(s), "
            f"{machine.cores} CPU(s)): the machine, not the engine, made it late"
        )
        return SessionEnd(
            EndReason.ABORTED,
            MachineWaitDetail(
                seat=self.index,
                late_ns=late,
                at_ns=at - self.rec.origin,  # (transcript time)
                machine=MachineEvidence.of(machine),
                problem=problem,
            ),
            rated=False,
        )

    def timing_fault(self, deadline: int, read: int, after: int) -> SessionEnd:
        late = read - deadline
        problem = (
            f"the referee found a line {late / MILLISECOND:.3f} ms after seat "
            f"{'AB'[self.index]}'s deadline (tolerance "
            f"{self.spec.timing_tolerance_ns / MILLISECOND:g} ms), and its last look "
            f"that found nothing was {(deadline - after) / MILLISECOND:.3f} ms before it: "
            "the referee was not looking at the deadline (stalled or overloaded), so "
            "neither an in-time reply nor a time loss can be proven"
        )
        return SessionEnd(
            EndReason.ABORTED,
            TimingFaultDetail(
                seat=self.index, late_ns=late, quiet_before_ns=deadline - after, problem=problem
            ),
        )

    def resigned(self, t: int, message: str | None) -> SessionEnd:
        self.rec.resign(self.index, message, t)
        return SessionEnd(EndReason.RESIGN, ResignDetail(seat=self.index))

    def crash(self, write_problem: str | None = None) -> SessionEnd:
        info = self.seat.exit_info(self.spec.grace_ns)
        if info is not None:
            settle = self.abilities.settle_stderr
            if settle is not None:  # its last words may still be in the pipe
                settle(STDERR_SETTLE_NS)
            problem = info.describe()
        else:
            problem = write_problem or "closed its stdout but is still running"
        breach = self.abilities.breach
        hit = breach(info) if breach is not None else None
        if hit is not None:  # it ended at a jail limit (bidref/sandbox/breach.py)
            return SessionEnd(
                EndReason.RESOURCES,
                ResourcesDetail(
                    seat=self.index,
                    limit=hit.limit,
                    limit_value=hit.value,
                    evidence=hit.evidence,
                    exit_code=info.exit_code if info else None,
                    signal=info.signal if info else None,
                    problem=hit.sentence(problem),
                    stderr_tail=self.seat.stderr_tail()[-500:],
                ),
            )
        return SessionEnd(
            EndReason.CRASH,
            CrashDetail(
                seat=self.index,
                exit_code=info.exit_code if info else None,
                signal=info.signal if info else None,
                problem=problem,
                stderr_tail=self.seat.stderr_tail()[-500:],
            ),
        )


__all__ = [
    "EXTRA_LINES_PER_TURN",
    "REJECTED_PER_MATCH",
    "REJECTED_PER_TURN",
    "RULES_PER_TURN",
    "EngineSession",
    "Recorder",
    "SessionEnd",
    "hello_line",
    "judge",
    "rules_reply",
]
