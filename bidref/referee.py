"""The referee: plays one match between two seats, enforcing the rules and the clock.

Public API (used by the CLI and the tournament runner)::

    from bidref.referee import MatchSpec, run_match
    from bidref.engines import resolve_engine

    spec = MatchSpec(engines=(resolve_engine("sample_engines/c_first/engine"),
                              resolve_engine("sample_engines/python_greedy/engine.py")),
                     seed=7, time_control=TimeControl.of_seconds(bank=10, delay=0.5))
    outcome = run_match(spec, transcript_path=Path("t.jsonl"))
    outcome.winner, outcome.reason, outcome.rated

How time is kept (RULES.md §7): one injected monotonic clock in integer ns. A
player's time runs from the moment the request line has been written to the
moment the newline of its reply has been read (stamped by the seat's reader);
the deadline is absolute (:meth:`MatchClock.deadline`). After an illegal action
the same decision stays pending: the time until the bad reply is charged, and
a new stretch starts once the error line is written, with what is left of the
delay and bank — the referee's own work is never charged. Rules help is
answered without stopping the clock. If the referee finds it was not watching
at the deadline (it woke more than ``timing_tolerance_ns`` after it, or a
reply was stamped that late) it cannot prove a time loss: the match ends as
``aborted`` (timing fault) with no rated result.

What an illegal action costs is a policy outside the rules
(:class:`RejectIllegal`, :class:`ForfeitIllegal`).
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal, Protocol

from . import __version__
from .engines import Clock, EngineSpec, Eof, ExitInfo, Incoming, Line, Overlong
from .engines.framing import MAX_LINE
from .players import EngineSeat, Seat, SeatGone, SeatResigned, SeatStartError
from .protocol import (
    PROTOCOL_VERSION,
    ActionMsg,
    EngineHello,
    ErrorCode,
    ErrorMsg,
    EventMsg,
    Log,
    Pong,
    ProtocolError,
    Quit,
    RefereeHello,
    Resign,
    RulesAnswer,
    RulesRequest,
    Settings,
    decode_engine_line,
    encode,
    quote,
)
from .protocol.codec import action_reply
from .protocol.fastview import RequestEncoder, clock_members, event_json
from .rules import (
    MILLISECOND,
    RULES_VERSION,
    SECOND,
    Action,
    Charge,
    Deal,
    Drew,
    Event,
    IllegalActionError,
    Match,
    MatchClock,
    MatchConfig,
    NotationError,
    RoundEnded,
    RoundStarted,
    TimeControl,
    listed_deals,
    parse_action,
    seeded_deals,
)
from .rules_text import rules_section
from .transcript import SaltSource, TranscriptWriter, default_salt
from .wire import Branch, SeatLines, seat_event_lines

log = logging.getLogger(__name__)

EndReason = Literal[
    "balance", "round_limit", "resign", "time", "illegal", "crash", "protocol", "startup", "aborted"
]
END_REASONS: Final[tuple[str, ...]] = (
    "balance",
    "round_limit",
    "resign",
    "time",
    "illegal",
    "crash",
    "protocol",
    "startup",
    "aborted",
)
LOG_LINE_CAP: Final = 1000  # characters kept of a log line, or of a raw engine line held back
LOG_LINES_CAP: Final = 200  # per seat and match: log lines, stale replies, rules requests and
# rejected replies whose raw line is recorded; further ones are counted (engine_exit)
PREPARE_MARGIN_NS: Final = 5 * MILLISECOND  # stop preparing branches this long before a deadline


# -- the illegal-action policy (outside the rules) ------------------------------------------


class IllegalPolicy(Protocol):
    """Decides what an illegal (or unreadable) action costs the player who sent it."""

    @property
    def name(self) -> str: ...

    def forfeits(self, seat: int, error: IllegalActionError | NotationError) -> bool:
        """True: the player loses the match; False: an error reply, the decision stays."""
        ...


@dataclass(frozen=True)
class RejectIllegal:
    """RULES.md §8: the game does not change, the same decision stays pending."""

    name: str = "reject"

    def forfeits(self, seat: int, error: IllegalActionError | NotationError) -> bool:
        return False


@dataclass(frozen=True)
class ForfeitIllegal:
    """Strict testing: the first illegal action loses the match."""

    name: str = "forfeit"

    def forfeits(self, seat: int, error: IllegalActionError | NotationError) -> bool:
        return True


def illegal_policy(name: str) -> IllegalPolicy:
    if name == "reject":
        return RejectIllegal()
    if name == "forfeit":
        return ForfeitIllegal()
    raise ValueError(f"unknown illegal-action policy {name!r}: use reject or forfeit")


# -- the public API ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchSpec:
    """Everything that defines a match. Picklable (tournament workers get one each)."""

    engines: tuple[EngineSpec, EngineSpec]
    seed: int | None = None  # None: a random seed (recorded, revealed at the end)
    time_control: TimeControl = field(default_factory=TimeControl)
    max_rounds: int | None = None
    illegal: Literal["reject", "forfeit"] = "reject"
    transport: Literal["pipe", "pty"] = "pipe"
    deals: tuple[Deal, ...] = ()  # explicit first deals (then the seed's)
    startup_timeout_ns: int = 10 * SECOND
    grace_ns: int = 500 * MILLISECOND
    timing_tolerance_ns: int = 200 * MILLISECOND
    stderr_dir: str | None = None  # per-engine stderr logs go here (None: memory tail only)
    max_line: int = MAX_LINE
    eager_events: bool = False  # write events to both seats at once, not with the next request
    raw_lines: bool = False  # the transcript keeps every raw engine line (TranscriptWriter)

    def __post_init__(self) -> None:
        if len(self.engines) != 2:
            raise ValueError(f"a match needs 2 engines, got {len(self.engines)}")
        if self.max_rounds is not None and self.max_rounds < 1:
            raise ValueError(f"max_rounds={self.max_rounds}: give at least 1, or None")
        if self.illegal not in ("reject", "forfeit"):
            raise ValueError(f"illegal={self.illegal!r}: use 'reject' or 'forfeit'")
        if self.transport not in ("pipe", "pty"):
            raise ValueError(f"transport={self.transport!r}: use 'pipe' or 'pty'")
        if (
            self.deals
            and self.seed is None
            and (self.max_rounds is None or self.max_rounds > len(self.deals))
        ):
            raise ValueError(
                f"{len(self.deals)} explicit deal(s) and no seed: give a seed "
                "for the rounds after them, or max_rounds <= "
                f"{len(self.deals)}"
            )
        if self.startup_timeout_ns <= 0 or self.grace_ns < 0 or self.timing_tolerance_ns < 0:
            raise ValueError(
                "startup_timeout_ns must be positive; grace_ns and "
                "timing_tolerance_ns must not be negative"
            )


@dataclass(frozen=True)
class MatchOutcome:
    """How a match ended. ``winner`` is a seat (0 = A, 1 = B) or None (draw/aborted)."""

    winner: int | None
    reason: EndReason
    detail: dict[str, Any]
    balances: tuple[int, int]
    rounds: int
    engines: tuple[str, str]
    transcript_path: Path | None
    rated: bool
    seed: int | None = None
    decisions: int = 0  # accepted actions
    decision_ns: int = 0  # referee clock from the first request to the last accepted action
    exits: tuple[dict[str, object], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["transcript_path"] = None if self.transcript_path is None else str(self.transcript_path)
        d["balances"] = list(self.balances)
        d["engines"] = list(self.engines)
        d["exits"] = list(self.exits)
        return d

    def summary(self) -> str:
        """One line, e.g. ``A (c_first) wins by balance 300-0 after 3 rounds``."""
        bal = f"{self.balances[0]}-{self.balances[1]}"
        if self.winner is None:
            what = "aborted" if self.reason in ("aborted", "startup") else "draw"
            head = what if what == self.reason else f"{what} ({self.reason})"
        elif self.reason == "resign":
            w, lo = self.winner, 1 - self.winner
            head = f"{'AB'[lo]} ({self.engines[lo]}) resigned: {'AB'[w]} ({self.engines[w]}) wins"
        else:
            head = f"{'AB'[self.winner]} ({self.engines[self.winner]}) wins by {self.reason}"
        extra = ""
        if self.reason == "time":
            extra = f", {'AB'[self.detail['seat']]} overran by {self.detail['overrun_ms']} ms"
        elif self.reason in ("crash", "protocol", "startup", "illegal", "aborted"):
            bits = {
                k: v
                for k, v in self.detail.items()
                if k in ("seat", "exit_code", "signal", "problem", "rule", "action", "cause")
            }
            if "seat" in bits:
                bits["seat"] = "AB"[bits["seat"]]
            extra = ", " + ", ".join(f"{k}={v}" for k, v in bits.items() if v is not None)
        return f"{head}{extra}; balances {bal} after {self.rounds} rounds"


@dataclass(frozen=True)
class LiveState:
    """A snapshot for live displays (``observer`` of :func:`run_match`)."""

    engines: tuple[str, str]
    round: int
    turn: int
    balances: tuple[int, int]
    banks_ns: tuple[int, int]
    delay_ns: int
    to_act: int | None
    last: str | None  # the last accepted action, e.g. "A: play 1-3 1-1:line_a"
    decisions: int
    outcome: MatchOutcome | None = None


Observer = Callable[[LiveState], None]


def _file_name(name: str) -> str:
    """``name`` as one file name (no folders): other characters than letters,
    digits, ``.``, ``-`` and ``_`` become ``_``."""
    return re.sub(r"[^\w.-]", "_", name)


def _cut(raw: str) -> str:
    """An engine's line as held back in the transcript: at most LOG_LINE_CAP
    characters, and a mark of its length when cut."""
    if len(raw) <= LOG_LINE_CAP:
        return raw
    return f"{raw[:LOG_LINE_CAP]}…[{len(raw)} chars]"


class _End(Exception):
    def __init__(
        self, winner: int | None, reason: EndReason, detail: dict[str, Any], rated: bool = True
    ) -> None:
        self.winner = winner
        self.reason = reason
        self.detail = detail
        self.rated = rated
        super().__init__(reason)


def run_match(
    spec: MatchSpec,
    *,
    transcript_path: Path | None = None,
    clock: Clock = time.monotonic_ns,
    seats: Sequence[Seat] | None = None,
    observer: Observer | None = None,
    salt: SaltSource = default_salt,
    started_at: str | None = None,
) -> MatchOutcome:
    """Play one match and return how it ended. Never raises for anything an engine does.

    - ``transcript_path``: write the JSONL transcript there (flushed per line).
    - ``clock``: the monotonic clock (integer ns); tests pass a fake one.
    - ``seats``: ready-made seats (tests, a human seat); by default engine seats
      are made from ``spec.engines`` with ``spec.transport``.
    - ``observer``: called with a :class:`LiveState` after every accepted action.
    - ``salt``: random bytes for the commitments (tests pass ``counter_salt()``).
    - ``started_at``: the header's start time (ISO 8601); default: now, UTC.
    """
    if seats is None:
        stderr_dir = Path(spec.stderr_dir) if spec.stderr_dir else None
        seats = [
            EngineSeat(
                e,
                transport=spec.transport,
                clock=clock,
                max_line=spec.max_line,
                stderr_log=None
                if stderr_dir is None
                else stderr_dir / f"{'AB'[i]}-{_file_name(e.name)}.stderr.log",
            )
            for i, e in enumerate(spec.engines)
        ]
    if len(seats) != 2:
        raise ValueError(f"a match needs 2 seats, got {len(seats)}")
    return _Referee(spec, list(seats), clock, transcript_path, observer, salt, started_at).run()


class _Referee:
    def __init__(
        self,
        spec: MatchSpec,
        seats: list[Seat],
        clock: Clock,
        transcript_path: Path | None,
        observer: Observer | None,
        salt: SaltSource,
        started_at: str | None,
    ) -> None:
        self.spec = spec
        self.seats = seats
        self.clock = clock
        self.observer = observer
        self.policy = illegal_policy(spec.illegal)
        self.origin = clock()
        self.tx = TranscriptWriter(transcript_path, self.origin, salt, raw_lines=spec.raw_lines)
        self.transcript_path = transcript_path
        self.started_at = started_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.seed = spec.seed
        if self.seed is None and not spec.deals:
            import secrets

            self.seed = secrets.randbits(63)
        self.names = [s.name for s in seats]
        self.match: Match | None = None
        self.mclock = MatchClock.start(spec.time_control)
        self.req_id = 0
        self.decisions = 0
        self.first_request: int | None = None
        self.last_accept = 0
        self.logs = [0, 0]
        self.stales = [0, 0]
        self.rules_asked = [0, 0]
        self.rejected = [0, 0]
        self.last: str | None = None
        self.encoder = RequestEncoder()
        self.prepared: tuple[Match, int, str, str] | None = None  # see Branch.request
        self.outbox: list[list[str]] = [[], []]  # event lines not yet written, per seat
        self.opened = [False, False]
        self.over = False  # the match result is known: stop talking to engines

    # -- the whole match ---------------------------------------------------------------

    def run(self) -> MatchOutcome:
        end: _End
        try:
            self._header()
            self._start_seats()
            self._play()
            assert self.match is not None and self.match.result is not None
            r = self.match.result
            detail: dict[str, Any] = {}
            if r.reason == "round_limit":
                detail = {"max_rounds": self.spec.max_rounds}
            end = _End(r.winner, r.reason, detail)
        except _End as e:
            end = e
        except KeyboardInterrupt:
            end = _End(None, "aborted", {"cause": "interrupted"}, rated=False)
        except BaseException:
            # A bug of ours (or of an injected seat): never leave engines running.
            for i, seat in enumerate(self.seats):
                if self.opened[i]:
                    with contextlib.suppress(Exception):
                        seat.close(None, 0)
            self.tx.close()
            raise
        return self._finish(end)

    def _header(self) -> None:
        tc = self.spec.time_control
        seed_commitment = self.tx.commit_seed(self.seed) if self.seed is not None else None
        self.tx.write(
            "header",
            self.origin,
            {
                "format": "bidref-transcript/1",
                "bidref": __version__,
                "protocol": PROTOCOL_VERSION,
                "rules": RULES_VERSION,
                "started_at": self.started_at,
                "time_control": {"bank_ns": tc.bank, "delay_ns": tc.delay},
                "max_rounds": self.spec.max_rounds,
                "illegal": self.policy.name,
                "transport": self.spec.transport,
                "seeded": self.seed is not None,
                "explicit_deals": len(self.spec.deals),
                "seed_commitment": seed_commitment,
                "engines": [{"seat": i, **s.describe()} for i, s in enumerate(self.seats)],
            },
        )

    # -- start-up ------------------------------------------------------------------------

    def _start_seats(self) -> None:
        tc = self.spec.time_control
        settings = Settings(
            bank_ms=tc.bank // MILLISECOND,
            delay_ms=tc.delay // MILLISECOND,
            max_rounds=self.spec.max_rounds,
            illegal=self.spec.illegal,
            startup_ms=self.spec.startup_timeout_ns // MILLISECOND,
        )
        hello_lines: list[str] = []
        sent_at: list[int] = []
        for i, seat in enumerate(self.seats):
            try:
                seat.open()
                self.opened[i] = True
            except SeatStartError as e:
                raise _End(1 - i, "startup", {"seat": i, "problem": str(e)}, rated=False) from None
        for i, seat in enumerate(self.seats):
            options = dict(self.spec.engines[i].options) if i < len(self.spec.engines) else {}
            line = encode(
                RefereeHello(
                    bidref=__version__,
                    rules=RULES_VERSION,
                    seat=i,
                    settings=settings,
                    options=options,
                )
            )
            hello_lines.append(line)
            try:
                sent_at.append(seat.send(line))
            except SeatGone as e:
                # An engine that already exited closes its stdin first: say how it ended.
                info = seat.exit_info(self.spec.grace_ns)
                problem = f"the engine ended before its hello ({info.describe()})" if info else e
                raise _End(
                    1 - i,
                    "startup",
                    {"seat": i, "problem": f"{problem}{self._tail(i)}"},
                    rated=False,
                ) from None
        for i, seat in enumerate(self.seats):
            deadline = sent_at[i] + self.spec.startup_timeout_ns
            hello, raw, t = self._await_hello(i, seat, deadline)
            self.names[i] = hello.name
            self.tx.write(
                "hello",
                t,
                {
                    "seat": i,
                    "sent": hello_lines[i],
                    "received": raw,
                    "engine": hello.model_dump(exclude={"type"}),
                    "elapsed_ns": t - sent_at[i],
                },
            )

    def _await_hello(self, i: int, seat: Seat, deadline: int) -> tuple[EngineHello, str, int]:
        """The engine's hello, its raw line and the time it was read."""

        def fail(problem: str) -> _End:
            return _End(1 - i, "startup", {"seat": i, "problem": problem}, rated=False)

        while True:
            inc = seat.receive(deadline)
            if inc is None:
                secs = self.spec.startup_timeout_ns / SECOND
                raise fail(f"no hello within the start-up timeout of {secs:g} s{self._tail(i)}")
            if isinstance(inc, Eof):
                info = seat.exit_info(self.spec.grace_ns)
                how = info.describe() if info else "closed its stdout"
                raise fail(f"the engine ended before its hello ({how}){self._tail(i)}")
            if isinstance(inc, Overlong):
                raise fail(f"a line of more than {self.spec.max_line} bytes instead of a hello")
            try:
                msg = decode_engine_line(inc.text)
            except ProtocolError as e:
                raise fail(f"expected a hello: {e}") from None
            if isinstance(msg, Log):
                self._log(i, msg, inc.t)
                continue
            if not isinstance(msg, EngineHello):
                raise fail(f"expected a hello, got a {msg.type!r} message: {quote(inc.text)}")
            if msg.protocol != PROTOCOL_VERSION:
                raise fail(
                    f"the engine speaks protocol {msg.protocol!r}; this referee speaks "
                    f"{PROTOCOL_VERSION!r}"
                )
            return msg, inc.text, inc.t

    def _tail(self, i: int) -> str:
        tail = self.seats[i].stderr_tail().strip()
        return f"; stderr ends: {tail[-300:]!r}" if tail else ""

    # -- the game --------------------------------------------------------------------------

    def _play(self) -> None:
        spec = self.spec
        deals = (
            listed_deals(spec.deals, self.seed)
            if spec.deals
            else seeded_deals(self.seed if self.seed is not None else 0)
        )
        match = self.match = Match(deals, MatchConfig(max_rounds=spec.max_rounds))
        self._dispatch(match.start_events, self.clock())
        self._notify(None)
        while not match.over:
            self._decision(match)
            match = self.match  # a prepared branch may have taken its place

    def _decision(self, match: Match) -> None:
        # The hot path: everything between reading a reply and writing the next
        # request is the referee's own time, so it is kept to what the next
        # request needs; the rest of the work is done while the player thinks
        # (_prepare). benchmarks/referee_work.py and referee_overhead.py measure it.
        p = match.to_act
        seat = self.seats[p]
        mclock = self.mclock = self.mclock.begin(p, match.turn)
        rid = self.req_id = self.req_id + 1
        banks = mclock.banks
        available = mclock.delay_left + banks[p]
        clock = clock_members(
            mclock.delay_left // MILLISECOND,
            banks[p] // MILLISECOND,
            banks[1 - p] // MILLISECOND,
            available // MILLISECOND,
        )
        prepared = self.prepared
        self.prepared = None
        if prepared is not None and prepared[0] is match and prepared[1] == rid:
            line = prepared[2] + clock + prepared[3]
        else:
            head, tail = self.encoder.encode_parts(match, rid)
            line = head + clock + tail
        pending = self.outbox[p]
        if pending:
            # events not yet sent to the player to move go in the same write
            self.outbox[p] = []
            pending.append(line)
            start = self._send(p, "\n".join(pending))
        else:
            start = self._send(p, line)
        deadline = start + available
        if self.first_request is None:
            self.first_request = start
        tx = self.tx
        if tx.enabled:
            seq = tx.write_json(
                "request",
                start,
                (
                    f'"seat":{p},"id":{rid},"round":{match.round_number},"turn":{match.turn},'
                    f'"phase":"{match.phase._value_}","clock":{{"delay_left_ns":{mclock.delay_left},'
                    f'"bank_ns":{banks[p]},"opponent_bank_ns":{banks[1 - p]}}},'
                    f'"deadline_ns":{deadline - self.origin}'
                ),
                flush=False,
            )
            tx.private(seq, "request_raw", {"seat": p, "raw": line})
        branches, came = self._prepare(match, seat, start, deadline)
        if came is None:
            # The referee may wait now: the request line goes to the file first. (A
            # reply already here takes it along with its own lines, in one write,
            # before anything is sent or waited for.)
            tx.flush()
        first_t: int | None = None
        while True:
            inc = seat.receive(deadline)
            if type(inc) is not Line:
                self._not_a_line(p, inc, deadline)
            assert isinstance(inc, Line)
            t = inc.t
            if came is not None:
                # The first line (and the others read with it) came while the
                # referee was preparing: after the last look that found nothing
                # (quiet) and by the look that found it (found); the reader thread
                # could stamp it only once the referee let it run. The player gets
                # the benefit of that doubt, never the referee's work.
                quiet, found = came
                if first_t is None:
                    first_t = t
                if t != first_t:
                    came = None
                else:
                    if quiet < deadline <= found and t >= deadline:
                        # the deadline passed while the referee prepared: it cannot
                        # tell whether the line came before it
                        raise self._timing_fault(p, deadline, found, "prepared")
                    t = min(t, quiet)
            if t >= deadline:
                raise self._late(p, deadline, t, "stamped")
            text = inc.text
            fast = action_reply(text)  # the usual action line, without a JSON parser
            if fast is None:
                got = self._slow_reply(p, text, t)
                if got is None:
                    continue
                got_id, action_text = got
            else:
                got_id, action_text = fast
            if got_id != rid:
                self._stale(p, got_id, text, t)
                continue
            # A reply can be stamped before write_line() took its own stamp
            # (the reader thread ran first): that is no time at all.
            elapsed = t - start if t > start else 0
            branch = branches.get(action_text)
            if branch is not None:
                self._accept(p, rid, branch.action, branch, text, t, elapsed)
                return
            try:
                action = self.encoder.actions_by_text.get(action_text) or parse_action(action_text)
                if branches:  # a looser spelling of a prepared action?
                    branch = branches.get(str(action))
                if branch is None:
                    events = match.apply(action, p)
            except (NotationError, IllegalActionError) as err:
                mclock, charge = self.mclock.charge(elapsed)
                self.mclock = mclock
                start, deadline = self._illegal(p, rid, action_text, text, t, charge, err)
                continue
            if branch is None:
                branch = Branch(action, match, events, seat_event_lines(events), self.encoder, None)
            self._accept(p, rid, action, branch, text, t, elapsed)
            return

    def _prepare(
        self, match: Match, seat: Seat, start: int, deadline: int
    ) -> tuple[dict[str, Branch], tuple[int, int] | None]:
        """Work out where each legal action of the player to move leads, while it
        thinks, so that its reply is answered at once. Stops as soon as the
        player has sent a line, and in time to watch the deadline; a seat that
        cannot say so (no ``has_input``) gets nothing prepared.
        Returns the branches by action text, and, when a line came in
        meanwhile, the last time nothing had and the time it was found (see
        _decision)."""
        has_input = getattr(seat, "has_input", None)
        if has_input is None:
            return {}, None  # no way to stop in time: prepare nothing
        clock = self.clock
        quiet = start
        branches: dict[str, Branch] = {}
        for action in match.legal_actions():
            now = clock()
            if has_input():
                # Before any work of ours, the stamp stands as it is.
                return branches, (quiet, clock()) if branches else None
            if now + max(PREPARE_MARGIN_NS, 2 * (now - quiet)) >= deadline:
                # no time for another branch (the last one and a look took now -
                # quiet): the referee must be waiting when the deadline comes
                return branches, None
            quiet = now
            # (every round a branch can start has a deal: MatchSpec checks it)
            branches[str(action)] = Branch.of(match, action, self.encoder, self.req_id + 1)
        if has_input():
            return branches, (quiet, clock()) if branches else None
        return branches, None

    def _accept(
        self, p: int, rid: int, action: Action, branch: Branch, text: str, t: int, elapsed: int
    ) -> None:
        """Take ``action`` (in time and legal): the match is now ``branch.match``."""
        tx = self.tx
        if tx.enabled:
            mclock, charge = self.mclock.charge(elapsed)
            self._record_reply(p, rid, action, text, t, mclock, charge)
        else:
            mclock = self.mclock.spend(elapsed)
        self.mclock = mclock
        self.match = branch.match
        self.encoder = branch.encoder
        self.prepared = branch.request
        self.decisions += 1
        self.last_accept = t
        self._dispatch(branch.events, t, branch.lines)
        if self.observer is not None:
            self.last = f"{'AB'[p]}: {action}"
            self._notify(self.last)

    def _not_a_line(self, p: int, inc: Incoming | None, deadline: int) -> None:
        """Raise the end that ``inc`` (not a line: a timeout, EOF or an over-long
        line) means for seat ``p``."""
        if inc is None:
            raise self._late(p, deadline, self.clock(), "woke")
        if isinstance(inc, Eof):
            raise self._crash(p)
        assert isinstance(inc, Overlong)
        raise _End(
            1 - p,
            "protocol",
            {
                "seat": p,
                "line": quote(inc.prefix),
                "problem": f"a line of more than {self.spec.max_line} bytes (the limit)",
            },
        )

    def _late(self, p: int, deadline: int, seen: int, how: str) -> _End:
        """A time loss, or a timing fault when the referee was not watching."""
        late = seen - deadline
        if late > self.spec.timing_tolerance_ns:
            return self._timing_fault(p, deadline, seen, how)
        return self._time_loss(p, max(late, 0))

    def _slow_reply(self, p: int, text: str, t: int) -> tuple[int, str] | None:
        """Decode a line that is not an action in its usual form: (id, action) for
        an action; None for any other message (handled here)."""
        try:
            msg = decode_engine_line(text)
        except ProtocolError as e:
            self._send_quietly(p, encode(ErrorMsg(id=None, code=e.code, message=str(e))))
            raise _End(
                1 - p, "protocol", {"seat": p, "line": quote(text), "problem": e.problem}
            ) from None
        if type(msg) is not ActionMsg:
            self._other_message(p, msg, text, t)
            return None
        return msg.id, msg.action

    def _record_reply(
        self,
        p: int,
        rid: int,
        action: Action,
        text: str,
        t: int,
        mclock: MatchClock,
        charge: Charge,
    ) -> None:
        tx = self.tx
        banks = mclock.banks
        seq = tx.write_json(
            "reply",
            t,
            (
                f'"seat":{p},"id":{rid},"status":"accepted",'
                f'"action":{self.encoder.action_json(action)},"rule":null,'
                f'"elapsed_ns":{charge.elapsed},"charge":{{'
                f'"delay_used_ns":{charge.delay_used},"bank_used_ns":{charge.bank_used},'
                f'"timed_out":{"true" if charge.timed_out else "false"},'
                f'"overrun_ns":{charge.overrun}}},"banks_ns":[{banks[0]},{banks[1]}]'
            ),
            flush=False,
        )
        # the raw line may carry extra fields: private until the round ends
        tx.private(seq, "reply_raw", {"seat": p, "raw": _cut(text)})

    def _illegal(
        self,
        p: int,
        rid: int,
        action_text: str,
        raw: str,
        t: int,
        charge: Charge,
        err: NotationError | IllegalActionError,
    ) -> tuple[int, int]:
        """Record an illegal action; forfeit, or reply with an error and return the new
        (start, deadline) of the same pending decision."""
        code: ErrorCode = "illegal" if isinstance(err, IllegalActionError) else "bad_action"
        rule = err.rule if isinstance(err, IllegalActionError) else None
        message = str(err) if rule else (f"{err}; answer with one of the request's 'legal' actions")
        tx = self.tx
        seq = tx.write(
            "reply",
            t,
            {
                "seat": p,
                "id": rid,
                "status": code,
                "action": None,
                "rule": rule,
                "elapsed_ns": charge.elapsed,
                "charge": {
                    "delay_used_ns": charge.delay_used,
                    "bank_used_ns": charge.bank_used,
                    "timed_out": charge.timed_out,
                    "overrun_ns": charge.overrun,
                },
                "banks_ns": list(self.mclock.banks),
            },
        )
        self.rejected[p] += 1
        if self.rejected[p] <= LOG_LINES_CAP:
            tx.private(seq, "reply_raw", {"seat": p, "raw": _cut(raw)})
            tx.private(seq, "error_raw", {"seat": p, "message": _cut(message)})
        if self.policy.forfeits(p, err):
            raise _End(
                1 - p,
                "illegal",
                {"seat": p, "action": action_text, "rule": rule, "code": code, "message": message},
            )
        start = self._send(p, encode(ErrorMsg(id=rid, code=code, message=message, rule=rule)))
        deadline = self.mclock.deadline(start)
        tx.write(
            "retry",
            start,
            {
                "seat": p,
                "id": rid,
                "deadline_ns": deadline - self.origin,
                "delay_left_ns": self.mclock.delay_left,
                "bank_ns": self.mclock.banks[p],
            },
        )
        return start, deadline

    def _stale(self, p: int, got_id: int, raw: str, t: int) -> None:
        self.stales[p] += 1
        if self.stales[p] <= LOG_LINES_CAP:
            seq = self.tx.write("stale", t, {"seat": p, "id": got_id, "pending": self.req_id})
            self.tx.private(seq, "reply_raw", {"seat": p, "raw": _cut(raw)})
        self._send(
            p,
            encode(
                ErrorMsg(
                    id=got_id,
                    code="stale_id",
                    message=(
                        f"action for request {got_id} ignored: the pending request is {self.req_id}"
                    ),
                )
            ),
        )

    def _other_message(self, p: int, msg: Any, raw: str, t: int) -> None:
        if isinstance(msg, RulesRequest):
            self.rules_asked[p] += 1
            if self.rules_asked[p] <= LOG_LINES_CAP:
                self.tx.write(
                    "rules",
                    t,
                    {
                        "seat": p,
                        "id": _cut(msg.id) if isinstance(msg.id, str) else msg.id,
                        "topic": None if msg.topic is None else _cut(msg.topic),
                    },
                )
            self._send(
                p, encode(RulesAnswer(id=msg.id, topic=msg.topic, text=rules_section(msg.topic)))
            )
        elif isinstance(msg, Log):
            self._log(p, msg, t)
        elif isinstance(msg, Pong):
            pass
        elif isinstance(msg, Resign):
            raise self._resign(p, t, msg.message)
        else:
            self._send(
                p,
                encode(
                    ErrorMsg(
                        id=None,
                        code="unexpected",
                        message=(
                            f"a {msg.type!r} message is not expected now; ignored: {quote(raw)}"
                        ),
                    )
                ),
            )

    def _log(self, p: int, msg: Log, t: int) -> None:
        self.logs[p] += 1
        if self.logs[p] > LOG_LINES_CAP:
            return
        text = msg.message[:LOG_LINE_CAP]
        seq = self.tx.write("log", t, {"seat": p, "chars": len(msg.message)})
        self.tx.private(seq, "log", {"seat": p, "message": text})

    # -- events ------------------------------------------------------------------------------

    def _dispatch(self, events: list[Event], t: int, lines: SeatLines | None = None) -> None:
        """Record ``events`` and queue each seat's form of them (``lines``, from
        :func:`~bidref.wire.seat_event_lines`, if made already). A seat's event lines are written
        together with its next request (one write per decision), or at once with
        ``MatchSpec.eager_events``, and at the end."""
        if lines is None:
            lines = seat_event_lines(events)
        own0, own1, over = lines
        self.outbox[0].extend(own0)
        self.outbox[1].extend(own1)
        if over:
            self.over = True
        tx = self.tx
        if tx.enabled:
            self._record_events(events, t)
            tx.flush()  # the reply and its events: one write
        if not self.over and self.match is not None and not self.spec.eager_events:
            return  # each seat gets its lines with its next request
        for s, out in enumerate(self.outbox):
            if out:
                text = "\n".join(out)
                out.clear()
                if self.over:
                    self._send_quietly(s, text)
                else:
                    self._send(s, text)

    def _record_events(self, events: list[Event], t: int) -> None:
        tx = self.tx
        for ev in events:
            tp = type(ev)
            if tp is Drew:
                assert isinstance(ev, Drew)
                seq = tx.write_json(
                    "event", t, '"event":' + event_json(ev.public_form()), flush=False
                )
                tx.private(
                    seq, "drew", {"seat": ev.player, "tile": ev.tile.as_list() if ev.tile else None}
                )
            elif tp is RoundStarted:
                assert isinstance(ev, RoundStarted)
                tx.start_round(
                    t,
                    ev.round,
                    ev.deal.to_dict(),
                    {
                        "opening": ev.opening,
                        "jockey": ev.jockey,
                        "balances": list(self.match.balances) if self.match else None,
                    },
                )
            else:
                tx.write_json("event", t, '"event":' + event_json(ev), flush=False)
                if tp is RoundEnded:
                    tx.reveal_round(t)

    def _send(self, p: int, text: str) -> int:
        self.tx.flush()  # what the engine is told is in the transcript first
        try:
            return self.seats[p].send(text)
        except SeatResigned:
            raise self._resign(p, self.clock(), None) from None
        except SeatGone as e:
            raise self._crash(p, str(e)) from None

    def _send_quietly(self, p: int, text: str) -> None:
        self.tx.flush()
        with contextlib.suppress(SeatGone):
            self.seats[p].send(text)

    # -- ends ---------------------------------------------------------------------------------

    def _crash(self, p: int, write_problem: str | None = None) -> _End:
        info = self.seats[p].exit_info(self.spec.grace_ns)
        if info is not None:
            problem = info.describe()
        else:
            problem = write_problem or "closed its stdout but is still running"
        detail: dict[str, Any] = {
            "seat": p,
            "exit_code": info.exit_code if info else None,
            "signal": info.signal if info else None,
            "problem": problem,
            "stderr_tail": self.seats[p].stderr_tail()[-500:],
        }
        return _End(1 - p, "crash", detail)

    def _resign(self, p: int, t: int, message: str | None) -> _End:
        seq = self.tx.write("resign", t, {"seat": p})
        if message:  # private like a log line: it could say something about the hand
            self.tx.private(seq, "resign_message", {"seat": p, "message": message[:LOG_LINE_CAP]})
        return _End(1 - p, "resign", {"seat": p})

    def _time_loss(self, p: int, overrun: int) -> _End:
        self.tx.write("timeout", self.clock(), {"seat": p, "overrun_ns": overrun})
        return _End(
            1 - p,
            "time",
            {"seat": p, "overrun_ns": overrun, "overrun_ms": round(overrun / MILLISECOND, 3)},
        )

    def _timing_fault(self, p: int, deadline: int, seen: int, how: str) -> _End:
        late = seen - deadline
        log.warning("referee timing fault: %s %d ns after seat %d's deadline", how, late, p)
        if how == "prepared":
            problem = (
                f"the referee was preparing moves at the deadline and found a line "
                f"{late / MILLISECOND:.1f} ms after it that may have come before it: "
                "neither an in-time reply nor a time loss can be proven"
            )
        else:
            problem = (
                f"the referee {'woke' if how == 'woke' else 'read a reply'} "
                f"{late / MILLISECOND:.1f} ms after the deadline (tolerance "
                f"{self.spec.timing_tolerance_ns / MILLISECOND:g} ms): a time loss "
                "cannot be proven"
            )
        return _End(
            None,
            "aborted",
            {"cause": "timing_fault", "seat": p, "late_ns": late, "problem": problem},
            rated=False,
        )

    def _finish(self, end: _End) -> MatchOutcome:
        t = self.clock()
        m = self.match
        # An interrupt now (a Ctrl-C during a grace period) must not leave engines
        # running: telling them is skipped, ending them is started again.
        with contextlib.suppress(KeyboardInterrupt):
            for i, seat in enumerate(self.seats):
                before_end = getattr(seat, "before_end", None)
                if before_end is not None and self.opened[i]:
                    before_end()
            if m is not None:
                self._tell_the_end(m, end)
        quit_line = encode(Quit(reason="match_over" if end.reason != "aborted" else "aborted"))
        quit_sent = [False, False]
        with contextlib.suppress(KeyboardInterrupt):
            for i in (0, 1):
                # an engine that had exited already (e.g. crashed) does not quit now
                if self.opened[i]:
                    gone = self.seats[i].exit_info(0) is not None
                    with contextlib.suppress(SeatGone):
                        self.seats[i].send(quit_line)
                        quit_sent[i] = not gone
        exits: list[dict[str, object]] = []
        for i, seat in enumerate(self.seats):
            info = self._close(seat) if self.opened[i] else None
            if info is not None and info.how == "exited" and quit_sent[i]:
                info = replace(info, how="quit")  # it exited after our quit line
            exits.append(
                {
                    "seat": i,
                    "exit_code": info.exit_code if info else None,
                    "signal": info.signal if info else None,
                    "how": info.how if info else "not_started",
                    "stderr_bytes": seat.stderr_bytes(),
                    "log_lines": self.logs[i],
                    "stale_lines": self.stales[i],
                    "rules_requests": self.rules_asked[i],
                    "rejected": self.rejected[i],
                    "stderr_log": seat.describe().get("stderr_log"),
                }
            )
        t_end = self.clock()
        self.tx.reveal_round(t)
        for e in exits:
            self.tx.write("engine_exit", t_end, e)
        self.tx.reveal_seed(t_end)
        balances = (m.balances[0], m.balances[1]) if m else (150, 150)
        rounds = m.round_number if m else 0
        if m is not None and m.result is not None:
            rounds = m.result.rounds
        outcome = MatchOutcome(
            winner=end.winner,
            reason=end.reason,
            detail=end.detail,
            balances=balances,
            rounds=rounds,
            engines=(self.names[0], self.names[1]),
            transcript_path=self.transcript_path,
            rated=end.rated,
            seed=self.seed,
            decisions=self.decisions,
            decision_ns=(self.last_accept - self.first_request) if self.first_request else 0,
            exits=tuple(exits),
        )
        self.tx.write(
            "result",
            t_end,
            {
                "winner": outcome.winner,
                "reason": outcome.reason,
                "detail": outcome.detail,
                "balances": list(balances),
                "rounds": rounds,
                "rated": outcome.rated,
                "engines": list(outcome.engines),
            },
        )
        self.tx.close()
        self._notify(self.last, outcome)
        return outcome

    def _close(self, seat: Seat) -> ExitInfo:
        while True:
            try:
                return seat.close(None, self.spec.grace_ns)
            except KeyboardInterrupt:
                log.warning("interrupted while ending an engine: ending it again")

    def _tell_the_end(self, m: Match, end: _End) -> None:
        """Write each seat its pending events and, when the rules did not end the
        match (time, crash, ...), a ``match_ended`` event with the end reason:
        the last event an engine gets is always ``match_ended`` (PROTOCOL.md)."""
        if m.result is None:
            event = {
                "kind": "match_ended",
                "winner": end.winner,
                "reason": end.reason,
                "balances": list(m.balances),
                "rounds": m.round_number,
            }
            line = encode(EventMsg(event=event))
            for out in self.outbox:
                out.append(line)
        for i, out in enumerate(self.outbox):
            if out and self.opened[i]:
                self._send_quietly(i, "\n".join(out))
            out.clear()

    def _notify(self, last: str | None, outcome: MatchOutcome | None = None) -> None:
        if self.observer is None:
            return
        m = self.match
        self.observer(
            LiveState(
                engines=(self.names[0], self.names[1]),
                round=m.round_number if m else 0,
                turn=m.turn if m else 0,
                balances=(m.balances[0], m.balances[1]) if m else (150, 150),
                banks_ns=self.mclock.banks,
                delay_ns=self.spec.time_control.delay,
                to_act=None if (m is None or m.over) else m.to_act,
                last=last,
                decisions=self.decisions,
                outcome=outcome,
            )
        )
