"""How a match ends: the one list of end reasons (:class:`EndReason`: what each
means, whether it is rated, who loses, whose fault it is), the
:class:`MatchOutcome` the referee returns, and how an ending is said in
sentences (:func:`end_sentence`, :class:`TimeLoss`, :func:`last_words`).

Adding an end reason touches this module (and its tests) only: the referee
raises it; the replay, the tournament, the pages and the CLI read its
predicates from here, never a list of words of their own.

>>> EndReason.TIME.rated, EndReason.ABORTED.rated
(True, False)
>>> from .details import BalanceDetail, ResignDetail
>>> EndReason("resign").loser(ResignDetail(seat=0))
0
>>> EndReason.BALANCE.loser(BalanceDetail()) is None
True
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .details import EndDetail


class EndReason(StrEnum):
    """Why a match ended: the one list of end reasons, with what each means and
    counts for. The value is the transcript's and the CLI's word for it (a
    ``StrEnum``: it equals its word and is written as it).

    The rules end a game two ways (``bidref.rules.MatchEndKind``: ``balance`` and
    ``round_limit``, the first two here); every other reason is the referee's.
    """

    BALANCE = "balance"
    ROUND_LIMIT = "round_limit"
    RESIGN = "resign"
    TIME = "time"
    ILLEGAL = "illegal"
    CRASH = "crash"
    PROTOCOL = "protocol"
    RESOURCES = "resources"
    STARTUP = "startup"
    ABORTED = "aborted"

    @classmethod
    def named(cls, word: str) -> EndReason | None:
        """The reason ``word`` names; None for any other value (a file's unknown word).

        >>> EndReason.named("time"), EndReason.named("timeout")
        (<EndReason.TIME: 'time'>, None)
        """
        try:
            return cls(word)
        except ValueError:
            return None

    @property
    def text(self) -> str:
        """What it means, for people."""
        return _TEXT[self]

    @property
    def cause(self) -> str:
        """What ended it, as a short noun phrase (``a crash``): the result line of
        the replay page and the like."""
        return _CAUSE[self]

    @property
    def rated(self) -> bool:
        """Whether the result counts: no game was played (startup), or no result
        could be proven (aborted: an interrupt, a referee timing fault)."""
        return self not in (EndReason.STARTUP, EndReason.ABORTED)

    @property
    def by_rules(self) -> bool:
        """Whether the rules ended the game (a :class:`~bidref.rules.MatchEnded`)."""
        return self in (EndReason.BALANCE, EndReason.ROUND_LIMIT)

    @property
    def by_seat(self) -> bool:
        """Whether one seat's doing ended it (that seat, the detail's ``seat``, loses;
        for ``aborted`` the seat named is the one being judged, and nobody loses)."""
        return self in _SEAT_REASONS

    @property
    def fault(self) -> bool:
        """Whether the losing engine is at fault (a failure counted per engine:
        time, crash, illegal, protocol, startup); a resignation is a choice."""
        return self in _SEAT_REASONS and self is not EndReason.RESIGN

    def loser(self, detail: EndDetail | Mapping[str, Any]) -> int | None:
        """The seat that lost, from the outcome's ``detail`` (None: the rules decided,
        or nobody lost); a detail as a file holds it (a dict) is read first."""
        seat = _typed(self, detail).at_seat
        return seat if self.by_seat and seat in (0, 1) else None


_SEAT_REASONS: Final = frozenset(
    {
        EndReason.RESIGN,
        EndReason.TIME,
        EndReason.ILLEGAL,
        EndReason.CRASH,
        EndReason.PROTOCOL,
        EndReason.RESOURCES,
        EndReason.STARTUP,
    }
)
_TEXT: Final = {
    EndReason.BALANCE: "a player's balance ran out (RULES.md §6)",
    EndReason.ROUND_LIMIT: "the round limit was reached; the higher balance wins",
    EndReason.RESIGN: "a player resigned",
    EndReason.TIME: "a player's time ran out (RULES.md §7)",
    EndReason.ILLEGAL: "an illegal action, under the forfeit policy",
    EndReason.CRASH: "an engine exited or closed its stdout",
    EndReason.PROTOCOL: "an engine broke the protocol or one of its caps",
    EndReason.RESOURCES: (
        "an engine ran into one of its jail's limits (memory, processes, open files, file size)"
    ),
    EndReason.STARTUP: "an engine did not start or sent no valid hello",
    EndReason.ABORTED: "no result can be proven (interrupted, or a referee timing fault)",
}
_CAUSE: Final = {
    EndReason.BALANCE: "the opponent's balance reached 0",
    EndReason.ROUND_LIMIT: "adjudicated by balance at the round limit",
    EndReason.RESIGN: "resignation",
    EndReason.TIME: "time: the clock ran out",
    EndReason.ILLEGAL: "an illegal action (forfeit)",
    EndReason.CRASH: "a crash",
    EndReason.PROTOCOL: "a protocol error",
    EndReason.RESOURCES: "a jail limit (memory, processes, open files, file size)",
    EndReason.STARTUP: "a failed start",
    EndReason.ABORTED: "aborted by the referee",
}
END_REASONS: Final[tuple[str, ...]] = tuple(r.value for r in EndReason)


class AbortCause(StrEnum):
    """Why a match ended ``aborted``: the detail's ``cause`` of an unrated end, the
    one list of them. A ``StrEnum``, so the transcript's and the record's JSON keep
    the word as it was; whoever decides on a cause (an exit code, a retry, the
    throttle) compares with a member here, never with a word of its own.

    >>> AbortCause.named("interrupted") is AbortCause.INTERRUPTED
    True
    >>> AbortCause.named("timeout") is None
    True
    """

    INTERRUPTED = "interrupted"  # Ctrl-C or a signal stopped the referee
    TIMING_FAULT = "timing_fault"  # the referee itself read a line late
    MACHINE_WAIT = "machine_wait"  # the machine, not the engine, made a seat wait
    JAIL_SETUP = "jail_setup"  # a seat's jail could not be built
    RUNNER_ERROR = "runner error"  # the tournament runner failed around the match
    TRANSCRIPT_REJECTED = "transcript rejected"  # a worker's transcript failed its proof
    ENGINE_CHANGED = "engine changed"  # a local engine is not the build the event pinned
    ENGINE_REFUSED = "engine refused"  # a worker would not play the engine sent

    @classmethod
    def named(cls, word: object) -> AbortCause | None:
        """The cause ``word`` names; None for any other value (no cause, or a word
        from a file this version does not know)."""
        try:
            return cls(word) if isinstance(word, str) else None
        except ValueError:
            return None

    @classmethod
    def of(cls, detail: dict[str, Any]) -> AbortCause | None:
        """The cause a detail as a file holds it (a dict) names, if any; a typed
        detail says it as ``.cause`` (:mod:`.details`)."""
        return cls.named(detail.get("cause"))

    def __repr__(self) -> str:
        # a detail printed whole (a log line: ``aborted ({'cause': 'timing_fault', ...})``)
        # reads as it did when the cause was a plain word
        return repr(self.value)


@dataclass(frozen=True)
class TimeLoss:
    """What a player who lost on time had: ``allowed_ns`` for the reply it never
    sent in time (``bank_ns`` + ``delay_ns``, as they stood when the deadline was
    set), and, for a seat behind a connection, when its client left (match time,
    the transcript's ``t_ns``; None: connected, or not a network seat)."""

    allowed_ns: int
    bank_ns: int
    delay_ns: int
    disconnected_ns: int | None = None

    def sentence(self) -> str:
        """``no reply within 1.2 s (bank 0.7 s + delay 0.5 s)``, and the disconnection.

        >>> TimeLoss(1_200_000_000, 700_000_000, 500_000_000, 12_300_000_000).sentence()
        'no reply within 1.2 s (bank 0.7 s + delay 0.5 s); disconnected since 12.3 s'
        """
        said = (
            f"no reply within {_secs(self.allowed_ns)} (bank {_secs(self.bank_ns)} + "
            f"delay {_secs(self.delay_ns)})"
        )
        if self.disconnected_ns is not None:
            said += f"; disconnected since {_secs(self.disconnected_ns)}"
        return said


def _secs(ns: int) -> str:
    """``ns`` in seconds, to the millisecond: ``1.2 s``, ``0.015 s``."""
    return f"{round(ns / 1_000_000) / 1000:g} s"


def last_words(stderr: str, limit: int = 200) -> str:
    """The line of an engine's stderr that says why it ended: the last one, except
    a Rust panic's backtrace note; a Rust panic that says where on one line and
    what on the next is given as one line.

    >>> last_words("thread 'main' panicked at src/main.rs:2:5:\\nboom\\n"
    ...            "note: run with `RUST_BACKTRACE=1` for a backtrace\\n")
    "thread 'main' panicked at src/main.rs:2:5: boom"
    """
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    while lines and lines[-1].startswith("note: run with `RUST_BACKTRACE"):
        lines.pop()
    if not lines:
        return ""
    last = lines[-1]
    if len(lines) >= 2 and lines[-2].startswith("thread '") and lines[-2].endswith(":"):
        last = f"{lines[-2]} {last}"
    return last if len(last) <= limit else last[: limit - 1] + "…"


@dataclass(frozen=True)
class MatchOutcome:
    """How a match ended. ``winner`` is a seat (0 = A, 1 = B) or None (draw/aborted);
    ``end``: the referee's detail of the end, typed (:mod:`.details`).

    ``detail`` (the dict, as the transcript's ``result`` line has it) is a
    deprecated alias of ``end.to_dict()``, kept for one release: read ``end``."""

    winner: int | None
    reason: EndReason
    end: EndDetail
    balances: tuple[int, int]
    rounds: int
    engines: tuple[str, str]
    transcript_path: Path | None
    rated: bool
    seed: int | None = None
    decisions: int = 0  # accepted actions
    decision_ns: int = 0  # referee clock from the first request to the last accepted action
    exits: tuple[dict[str, object], ...] = ()
    time_loss: TimeLoss | None = None  # for a time loss: what the player had
    last_stderr: tuple[str, str] = ("", "")  # each seat's last stderr line (last_words)

    def __post_init__(self) -> None:
        # (a reason given as its word, as a caller may: the enum from here on)
        object.__setattr__(self, "reason", EndReason(self.reason))

    @property
    def detail(self) -> dict[str, Any]:
        """Deprecated (goes in the next release): ``end.to_dict()``, the detail as a dict."""
        warnings.warn(
            "MatchOutcome.detail is deprecated and goes in the next release: read "
            "MatchOutcome.end (the typed detail), or end.to_dict() for the dict",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.end.to_dict()

    def to_dict(self) -> dict[str, Any]:
        d = {("detail" if k == "end" else k): v for k, v in asdict(self).items()}
        d["detail"] = self.end.to_dict()
        d["transcript_path"] = None if self.transcript_path is None else str(self.transcript_path)
        d["balances"] = list(self.balances)
        d["engines"] = list(self.engines)
        d["exits"] = list(self.exits)
        d["last_stderr"] = list(self.last_stderr)
        return d

    def summary(self) -> str:
        """One line, in sentences: ``A (c_first) wins by balance; balances 300-0 after
        3 rounds``, ``B (c_first) wins by crash: A (rusty) crashed (exit code 101);
        its stderr ends: thread 'main' panicked at src/main.rs:2:5: boom; ...``."""
        bal = f"{self.balances[0]}-{self.balances[1]}"
        said = end_sentence(
            self.reason,
            self.winner,
            self.end,
            self.engines,
            time_loss=self.time_loss,
            last_stderr=self.last_stderr,
        )
        return f"{said}; balances {bal} after {self.rounds} rounds"


def end_sentence(
    reason: EndReason,
    winner: int | None,
    said: EndDetail | Mapping[str, Any],
    engines: tuple[str, str],
    *,
    time_loss: TimeLoss | None = None,
    last_stderr: tuple[str, str] = ("", ""),
) -> str:
    """How a match ended, in sentences, from its reason and the referee's detail:
    who won by what, and what the seat at fault did (its last stderr line from
    ``last_stderr``, else from the detail's ``stderr_tail``). ``winner`` counts
    only where the rules decided: a seat's end names the loser, the detail's ``seat``.
    A detail as a file holds it (a dict) is read first (:func:`.details.decode_detail`).

    >>> from .details import StartupDetail
    >>> end_sentence(EndReason.STARTUP, None, StartupDetail(seat=1, problem="no hello"), ("a", "b"))
    'A (a) wins by startup: B (b) did not start: no hello'
    """

    detail = _typed(reason, said)

    def who(seat: int) -> str:
        return f"{'AB'[seat]} ({engines[seat]})"

    def stderr_of(seat: int | None) -> str:
        if seat != 0 and seat != 1:
            return ""
        words = last_stderr[seat] or last_words(detail.stderr_text)
        return f"; its stderr ends: {words}" if words else ""

    seat = detail.at_seat
    problem = detail.problem_text or ""
    if reason is EndReason.ABORTED:
        why = (
            "interrupted (Ctrl-C or a signal), so no result"
            if detail.cause is AbortCause.INTERRUPTED
            else str(problem or detail.cause_word or reason.text)
        )
        return f"aborted: {why}{stderr_of(seat)}"
    if not reason.by_seat or (seat != 0 and seat != 1):
        if winner is None:
            return f"{'draw' if reason.rated else 'aborted'} ({reason})"
        return f"{who(winner)} wins by {reason}"
    if reason is EndReason.RESIGN:
        return f"{who(seat)} resigned: {who(1 - seat)} wins{stderr_of(seat)}"
    won = f"{who(1 - seat)} wins by {reason}"
    if reason is EndReason.STARTUP:  # the problem quotes the engine's stderr already
        return f"{won}: {who(seat)} did not start: {problem}"
    what = _seat_end(reason, detail, problem, time_loss)
    return f"{won}: {who(seat)} {what}{stderr_of(seat)}"


def _typed(reason: EndReason | str, detail: EndDetail | Mapping[str, Any]) -> EndDetail:
    from .details import EndDetail, decode_detail

    return detail if isinstance(detail, EndDetail) else decode_detail(reason, detail)


def _seat_end(
    reason: EndReason, detail: EndDetail, problem: str, time_loss: TimeLoss | None
) -> str:
    """What the seat at fault did, after its name: ``crashed (exit code 101)``."""
    from .details import IllegalDetail, ProtocolDetail, ResourcesDetail

    if reason is EndReason.TIME:
        return f"sent {time_loss.sentence()}" if time_loss else "ran out of time"
    if reason is EndReason.CRASH:
        return f"crashed ({problem or 'closed its stdout'})"
    if reason is EndReason.ILLEGAL:
        action, message = (
            (detail.action, detail.message) if isinstance(detail, IllegalDetail) else (None, None)
        )
        return f"forfeits with the illegal action {action!r}: {message}"
    if reason is EndReason.PROTOCOL:
        line = detail.line if isinstance(detail, ProtocolDetail) else None
        return f"broke the protocol: {problem}" + (f"; it sent {line}" if line else "")
    if reason is EndReason.RESOURCES:  # "exceeded its memory limit (1 GiB; killed by ...)"
        limit = detail.limit if isinstance(detail, ResourcesDetail) else "jail"
        return problem or f"exceeded its {limit} limit"
    # a seat's end this function has no words of its own for yet
    return f"lost: {reason.text}" + (f": {problem}" if problem else "")
