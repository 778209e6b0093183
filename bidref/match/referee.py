"""The referee: plays one match between two seats, enforcing the rules and the clock.

Public API (used by the CLI and the tournament runner)::

    from bidref.match.referee import MatchSpec, run_match
    from bidref.engines import resolve_engine

    spec = MatchSpec(engines=(resolve_engine("sample_engines/c_first/engine"),
                              resolve_engine("sample_engines/python_greedy/engine.py")),
                     seed=7, time_control=TimeControl.of_seconds(bank=10, delay=0.5))
    outcome = run_match(spec, transcript_path=Path("t.jsonl"))
    outcome.winner, outcome.reason, outcome.rated

The referee orchestrates: the rules state (:class:`Match`), the one clock
owner (:class:`MatchClock`), the events to both seats and the transcript. Each
seat's protocol — hello, ids, stale and extra lines, rules help, caps, the
judged wait for a reply — is its :class:`~bidref.match.session.EngineSession`.

How time is kept (RULES.md §7; the promises are in docs/match.md, "Clock
promises"): one injected monotonic clock in integer ns. A player's time runs
from the stamp taken just before its request is written to the moment its
reply is read; the deadline is absolute (:meth:`MatchClock.deadline`). After
an illegal action the same decision stays pending: the time until the bad
reply is charged, and a new stretch starts once the error line is written,
with what is left of the delay and bank — the referee's own work is never
charged. Rules help is answered without stopping the clock. An empty look at
or after the deadline is a time loss; a line found more than
``timing_tolerance_ns`` after the deadline when the last empty look was before
it cannot be judged: the match ends as ``aborted`` (timing fault), unrated.

What an illegal action costs is a policy outside the rules
(:class:`RejectIllegal`, :class:`ForfeitIllegal`).
"""

from __future__ import annotations

import contextlib
import functools
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from ..engines import Clock, IoGroup
from ..engines.priority import referee_priority
from ..outcome import END_REASONS, EndReason, MatchOutcome, TimeLoss, last_words
from ..outcome.details import (
    BalanceDetail,
    EndDetail,
    IllegalDetail,
    InterruptedDetail,
    RoundLimitDetail,
)
from ..players import EngineSeat, Seat
from ..players.abilities import SeatAbilities
from ..protocol import (
    ErrorCode,
    ErrorMsg,
    encode,
)
from ..protocol.fastview import RequestEncoder, clock_members
from ..rules import (
    MILLISECOND,
    Action,
    Charge,
    Event,
    IllegalActionError,
    Match,
    MatchClock,
    MatchConfig,
    NotationError,
    listed_deals,
    parse_action,
    seeded_deals,
)
from ..transcript import SaltSource, TranscriptWriter, default_salt
from ..transcript.lines import PrivateItem, Request, RequestClock
from .ending import MatchEnd, end_engines, tell_then_prepare
from .meters import NO_CPU, SeatMeters
from .record import TranscriptRecorder
from .session import (
    Counted,
    EngineSession,
    SessionEnd,
    hello_line,
)
from .spec import (
    ForfeitIllegal,
    IllegalPolicy,
    LiveState,
    MatchSpec,
    Observer,
    RejectIllegal,
    illegal_policy,
)
from .wire import Branch, SeatLines, seat_event_lines

PREPARE_MARGIN_NS: Final = 5 * MILLISECOND  # stop preparing branches this long before a deadline


# (MatchSpec, the illegal-action policies and LiveState: bidref/match/spec.py)


def _file_name(name: str) -> str:
    """``name`` as one file name (no folders): other characters than letters,
    digits, ``.``, ``-`` and ``_`` become ``_``."""
    return re.sub(r"[^\w.-]", "_", name)


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
    group: IoGroup | None = None
    if seats is None:
        stderr_dir = Path(spec.stderr_dir) if spec.stderr_dir else None
        group = IoGroup()  # one wait moves both engines' I/O
        seats = [
            EngineSeat(
                e.at_seat(i),
                transport=spec.transport,
                clock=clock,
                max_line=spec.max_line,
                group=group,
                stderr_log=None
                if stderr_dir is None
                else stderr_dir / f"{'AB'[i]}-{_file_name(e.name)}.stderr.log",
            )
            for i, e in enumerate(spec.engines)
        ]
    if len(seats) != 2:
        raise ValueError(f"a match needs 2 seats, got {len(seats)}")
    # The referee's looks must come on time on a busy machine: it runs above its
    # engines' priority where it may (bidref/engines/priority.py; they start at
    # the priority they would have had anyway).
    with referee_priority():
        referee = _Referee(spec, list(seats), clock, transcript_path, observer, salt, started_at)
        referee.group = group
        return referee.run()


class _Stats:
    """What the referee counts for the outcome and live displays."""

    __slots__ = ("decisions", "first_request", "last", "last_accept")

    def __init__(self) -> None:
        self.decisions = 0
        self.first_request: int | None = None
        self.last_accept = 0
        self.last: str | None = None  # the last accepted action, for live displays


class _Referee:
    """Orchestrates one match: the rules state, the clock, the events to both
    seats, the transcript. Each seat's protocol is its :class:`EngineSession`."""

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
        if spec.seed is None and not spec.deals:
            import secrets

            # the seed is drawn once, here, so spec.seed is the match's seed from now on
            spec = replace(spec, seed=secrets.randbits(63))
        self.spec = spec
        self.clock = clock
        self.observer = observer
        self.policy = illegal_policy(spec.illegal)
        origin = clock()
        self.rec = TranscriptRecorder(
            TranscriptWriter(transcript_path, origin, salt, raw_lines=spec.raw_lines),
            clock,
            origin,
        )
        self.rec.path, self.rec.started_at = transcript_path, started_at
        self.sessions = [EngineSession(s, i, clock, self.rec, spec) for i, s in enumerate(seats)]
        self.rec.sessions = self.sessions
        for i, sess in enumerate(self.sessions):
            watch = sess.abilities.watch_connection  # a network seat (bidref.net)
            if watch is not None:
                watch(self._connection_writer(i))
        self.match: Match | None = None
        self.mclock = MatchClock.start(spec.time_control, spec.time_controls)
        self.req_id = 0
        self.stats = _Stats()
        self.encoder = RequestEncoder()
        self.prepared: tuple[Match, int, str, str] | None = None  # see Branch.request
        self.outbox: list[list[str]] = [[], []]  # event lines not yet written, per seat
        self.group: IoGroup | None = None  # the engines' I/O, when run_match made the seats
        # CPU times, run-queue waits, --freeze-idle
        self.meters = SeatMeters([s.abilities for s in self.sessions], spec.freeze_idle, clock)
        for i, sess in enumerate(self.sessions):
            # a late reply asks how long the machine kept the engine waiting
            sess.machine = functools.partial(self.meters.machine, i)

    def _connection_writer(self, i: int) -> Callable[[int, dict[str, Any]], None]:
        """A ``connection`` line for seat ``i`` (called in this thread, from the
        seat's receive or close): ``t`` when written, ``at_ns`` when it happened."""

        def write(t: int, fields: dict[str, Any]) -> None:
            self.rec.connection(i, t, fields)

        return write

    # -- the whole match ---------------------------------------------------------------

    def run(self) -> MatchOutcome:
        end: MatchEnd
        try:
            self.rec.header(self.spec, self.policy.name, self.spec.seed, self.mclock.controls)
            self._start_seats()
            self._play()
            assert self.match is not None and self.match.result is not None
            r = self.match.result
            reason = EndReason(r.reason)  # the rules' two end kinds are end reasons too
            detail: EndDetail = BalanceDetail()
            if reason is EndReason.ROUND_LIMIT:
                detail = RoundLimitDetail(max_rounds=self.spec.max_rounds)
            end = MatchEnd(r.winner, reason, detail)
        except SessionEnd as e:
            end = MatchEnd.of(e)
        except MatchEnd as e:
            end = e
        except KeyboardInterrupt:
            end = MatchEnd(None, EndReason.ABORTED, InterruptedDetail(), rated=False)
        except BaseException:
            # A bug of ours (or of an injected seat): never leave engines running.
            self.meters.thaw_all()
            for sess in self.sessions:
                if sess.opened:
                    with contextlib.suppress(Exception):
                        sess.seat.close(None, 0)
            self.rec.tx.close()
            raise
        return self._finish(end)

    # -- start-up ------------------------------------------------------------------------

    def _start_seats(self) -> None:
        spec = self.spec
        for sess in self.sessions:
            sess.open()
        hellos: list[tuple[str, int]] = []
        for i, sess in enumerate(self.sessions):
            line = hello_line(
                i,
                self.mclock.control_of(i),
                max_rounds=spec.max_rounds,
                illegal=spec.illegal,
                startup_ns=spec.startup_timeout_ns,
                options=dict(spec.engines[i].options) if i < len(spec.engines) else {},
            )
            hellos.append((line, sess.send_hello(line)))
        wants_points = [False, False]
        for i, sess in enumerate(self.sessions):
            line, sent_at = hellos[i]
            hello, raw, t = sess.await_hello(sent_at + spec.startup_timeout_ns)
            self.sessions[i].name = hello.name
            wants_points[i] = "points" in hello.features
            jail = sess.seat.describe().get("jail")  # (a jailed engine seat's, once started)
            self.rec.hello(
                i,
                line,
                raw,
                hello.model_dump(exclude={"type"}),
                t,
                sent_at,
                jail if isinstance(jail, dict) else None,
            )
        # engines that asked for it get each legal action's points in their requests
        self.encoder.points = (wants_points[0], wants_points[1])
        self.meters.start()

    # -- the game --------------------------------------------------------------------------

    def _play(self) -> None:
        spec = self.spec
        deals = (
            listed_deals(spec.deals, spec.seed)
            if spec.deals
            else seeded_deals(spec.seed if spec.seed is not None else 0)
        )
        match = self.match = Match(deals, MatchConfig(max_rounds=spec.max_rounds))
        self._dispatch(match.start_events, self.clock())
        self._notify(None)
        # What the last decision leaves behind (its branches, the match and the
        # encoder before it) is freed once the next request is written: freeing
        # it is work too, and the critical path is no place for it.
        spent: list[object] = []
        while not match.over:
            self._decision(match, spent)
            match = self.match  # a prepared branch may have taken its place

    def _decision(self, match: Match, spent: list[object]) -> None:
        # The hot path: everything between reading a reply and writing the next
        # request is the referee's own time, so it is kept to what the next
        # request needs; the rest of the work is done while the player thinks
        # (_prepare). benchmarks/referee_work.py and referee_overhead.py measure it.
        p = match.to_act
        sess = self.sessions[p]
        mclock = self.mclock = self.mclock.begin(p, match.turn)
        rid = self.req_id = self.req_id + 1
        available = mclock.delay_left + mclock.banks[p]
        line = self._request_line(match, p, rid, available)
        meters = self.meters
        tx = self.rec.tx
        if meters.holds is not None or tx.enabled:
            meters.before_request(p, tx.enabled)
        pending = self.outbox[p]
        if pending:
            # events not yet sent to the player to move go in the same write
            self.outbox[p] = []
            pending.append(line)
            start = sess.send("\n".join(pending))
        else:
            start = sess.send(line)
        spent.clear()
        deadline = start + available
        if self.stats.first_request is None:
            self.stats.first_request = start
        if tx.enabled:
            self._record_request(match, p, rid, line, start, deadline)
        meters.after_request(p)  # (the run-queue counters; read while stopped with a hold)
        branches, came = self._prepare(match, sess.abilities, start, deadline)
        if came is None:
            # The referee may wait now: the request line goes to the file first. (A
            # reply already here takes it along with its own lines, in one write,
            # before anything is sent or waited for.)
            tx.flush()
        sess.begin(rid, start)
        while True:
            _, action_text, text, t, was_prepared = sess.next_action(deadline, came)
            if not was_prepared:
                came = None
            cpu = meters.at_reply(p) if tx.enabled else NO_CPU
            # A reply can be read before the request's stamp (it came early): no time.
            elapsed = t - start if t > start else 0
            branch = branches.get(action_text)
            if branch is not None:
                spent += (branches, match, self.encoder)
                self._accept(p, rid, branch.action, branch, text, t, elapsed, cpu)
                return
            try:
                action = self.encoder.actions_by_text.get(action_text) or parse_action(action_text)
                if branches:  # a looser spelling of a prepared action?
                    branch = branches.get(str(action))
                if branch is None:
                    events = match.apply(action, p)
            except (NotationError, IllegalActionError) as err:
                sess.count(Counted.REJECTED_REPLY, text)
                mclock, charge = self.mclock.charge(elapsed)
                self.mclock = mclock
                start, deadline = self._illegal(p, rid, action_text, text, t, charge, err, cpu)
                sess.retry(start)
                continue
            if branch is None:
                branch = Branch(action, match, events, seat_event_lines(events), self.encoder, None)
            spent += (branches, match, self.encoder)
            self._accept(p, rid, action, branch, text, t, elapsed, cpu)
            return

    def _request_line(self, match: Match, p: int, rid: int, available: int) -> str:
        """The request line of decision ``rid`` (seat ``p`` to act, with ``available``
        ns): the prepared branch's, if it is this one, with the clock filled in."""
        mclock = self.mclock
        banks = mclock.banks
        clock = clock_members(
            mclock.delay_left // MILLISECOND,
            banks[p] // MILLISECOND,
            banks[1 - p] // MILLISECOND,
            available // MILLISECOND,
        )
        prepared = self.prepared
        self.prepared = None
        if prepared is not None and prepared[0] is match and prepared[1] == rid:
            return prepared[2] + clock + prepared[3]
        head, tail = self.encoder.encode_parts(match, rid)
        return head + clock + tail

    def _record_request(
        self, match: Match, p: int, rid: int, line: str, start: int, deadline: int
    ) -> None:
        """The transcript's request line (not flushed: see _decision) and its raw text."""
        tx = self.rec.tx
        mclock = self.mclock
        banks = mclock.banks
        seq, t_ns = tx.stamp(start)
        request = Request(seq, t_ns, p, rid)
        if not tx.compact:  # (what /2 derives, made only for /1)
            request.round, request.turn = match.round_number, match.turn
            request.phase = match.phase._value_
            request.clock = RequestClock(mclock.delay_left, banks[p], banks[1 - p])
            request.deadline_ns = deadline - self.rec.origin
        tx.put(request, flush=False)
        tx.private(PrivateItem(seq, "request_raw", seat=p, raw=line))

    def _prepare(
        self, match: Match, abilities: SeatAbilities, start: int, deadline: int
    ) -> tuple[dict[str, Branch], tuple[int, int] | None]:
        """Work out where each legal action of the player to move leads, while it
        thinks, so that its reply is answered at once. Stops as soon as the
        player has sent a line, and in time to watch the deadline; a seat that
        cannot say so (no ``has_input``) gets nothing prepared.
        Returns the branches by action text, and, when a line came in
        meanwhile, the last time nothing had and the time it was found (see
        EngineSession.next_action)."""
        has_input = abilities.has_input
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
        self,
        p: int,
        rid: int,
        action: Action,
        branch: Branch,
        text: str,
        t: int,
        elapsed: int,
        cpu: tuple[int | None, int | None, int | None],
    ) -> None:
        """Take ``action`` (in time and legal): the match is now ``branch.match``."""
        tx = self.rec.tx
        if tx.enabled:
            mclock, charge = self.mclock.charge(elapsed)
            # (the JSON string of a canonical action text is that text in quotes)
            self.rec.accepted(
                p, rid, self.encoder.action_json(action)[1:-1], text, t, mclock, charge, cpu
            )
        else:
            mclock = self.mclock.spend(elapsed)
        self.mclock = mclock
        self.match = branch.match
        self.meters.replied(p)
        self.encoder = branch.encoder
        self.prepared = branch.request
        stats = self.stats
        stats.decisions += 1
        stats.last_accept = t
        self._dispatch(branch.events, t, branch.lines)
        if self.observer is not None:
            stats.last = f"{'AB'[p]}: {action}"
            self._notify(stats.last)

    def _illegal(
        self,
        p: int,
        rid: int,
        action_text: str,
        raw: str,
        t: int,
        charge: Charge,
        err: NotationError | IllegalActionError,
        cpu: tuple[int | None, int | None, int | None],
    ) -> tuple[int, int]:
        """Record an illegal action; forfeit, or reply with an error and return the new
        (start, deadline) of the same pending decision."""
        code: ErrorCode = "illegal" if isinstance(err, IllegalActionError) else "bad_action"
        rule = err.rule if isinstance(err, IllegalActionError) else None
        message = str(err) if rule else (f"{err}; answer with one of the request's 'legal' actions")
        self.rec.rejected(p, rid, code, rule, charge, self.mclock.banks, raw, message, t, cpu)
        if self.policy.forfeits(p, err):
            raise MatchEnd(
                1 - p,
                EndReason.ILLEGAL,
                IllegalDetail(seat=p, action=action_text, rule=rule, code=code, message=message),
            )
        start = self.sessions[p].send(
            encode(ErrorMsg(id=rid, code=code, message=message, rule=rule))
        )
        deadline = self.mclock.deadline(start)
        self.rec.retry(p, rid, start, deadline, self.mclock.delay_left, self.mclock.banks[p])
        return start, deadline

    # -- events ------------------------------------------------------------------------------

    def _dispatch(self, events: list[Event], t: int, lines: SeatLines | None = None) -> None:
        """Record ``events`` and queue each seat's form of them (``lines``, from
        :func:`~bidref.match.wire.seat_event_lines`, if made already). A seat's event lines
        are written together with its next request (one write per decision), or at once with
        ``MatchSpec.eager_events``, and at the end."""
        if lines is None:
            lines = seat_event_lines(events)
        # over: the match result is known, stop talking to engines (the last dispatch)
        own0, own1, over = lines
        self.outbox[0].extend(own0)
        self.outbox[1].extend(own1)
        tx = self.rec.tx
        if tx.enabled:
            self.rec.events(events, t, self.match)
            tx.flush()  # the reply and its events: one write
        if not over and self.match is not None and not self.spec.eager_events:
            return  # each seat gets its lines with its next request
        for s, out in enumerate(self.outbox):
            if out:
                text = "\n".join(out)
                out.clear()
                if over:
                    self.sessions[s].send_quietly(text)
                else:
                    self.sessions[s].send(text)

    # -- ends ---------------------------------------------------------------------------------

    def _time_loss(self, end: MatchEnd) -> TimeLoss | None:
        """For a time loss, what the player had when its deadline was set (the
        clock is not charged past it), and when its client left, if it did."""
        if end.reason is not EndReason.TIME:
            return None
        p = end.detail.at_seat
        assert p is not None, f"a time loss names no seat: {end.detail!r}"
        bank, delay = self.mclock.banks[p], self.mclock.delay_left
        gone = self.sessions[p].abilities.disconnected_at
        at = gone() if gone is not None else None
        return TimeLoss(bank + delay, bank, delay, None if at is None else at - self.rec.origin)

    def _finish(self, end: MatchEnd) -> MatchOutcome:
        self.meters.thaw_all()
        t = self.clock()
        m = self.match
        time_loss = self._time_loss(end)
        tell_then_prepare(self.sessions, self.outbox, m, end, self.group, self.clock)
        exits = end_engines(self.sessions, end, self.spec.grace_ns)
        t_end = self.clock()
        self.rec.exits(t, t_end, exits)
        balances = (m.balances[0], m.balances[1]) if m else (150, 150)
        rounds = m.round_number if m else 0
        if m is not None and m.result is not None:
            rounds = m.result.rounds
        stats = self.stats
        outcome = MatchOutcome(
            winner=end.winner,
            reason=end.reason,
            end=end.detail,
            balances=balances,
            rounds=rounds,
            engines=(self.sessions[0].name, self.sessions[1].name),
            transcript_path=self.rec.path,
            rated=end.rated,
            seed=self.spec.seed,
            decisions=stats.decisions,
            decision_ns=(stats.last_accept - stats.first_request) if stats.first_request else 0,
            exits=tuple(exits),
            time_loss=time_loss,
            last_stderr=(
                last_words(self.sessions[0].seat.stderr_tail()),
                last_words(self.sessions[1].seat.stderr_tail()),
            ),
        )
        self.rec.result(t_end, outcome)
        self._notify(stats.last, outcome)
        return outcome

    def _notify(self, last: str | None, outcome: MatchOutcome | None = None) -> None:
        if self.observer is None:
            return
        m = self.match
        self.observer(
            LiveState(
                engines=(self.sessions[0].name, self.sessions[1].name),
                round=m.round_number if m else 0,
                turn=m.turn if m else 0,
                balances=(m.balances[0], m.balances[1]) if m else (150, 150),
                banks_ns=self.mclock.banks,
                delay_ns=self.spec.time_control.delay,
                to_act=None if (m is None or m.over) else m.to_act,
                last=last,
                decisions=self.stats.decisions,
                outcome=outcome,
            )
        )


__all__ = [
    "END_REASONS",
    "EndReason",
    "ForfeitIllegal",
    "IllegalPolicy",
    "LiveState",
    "MatchOutcome",
    "MatchSpec",
    "Observer",
    "RejectIllegal",
    "illegal_policy",
    "run_match",
]
