"""The rules state of a replay: the match refolded from the revealed deals and the
accepted actions, and the game's lines checked against it.

Round starts, request positions, accepted actions and their events: a
``bidref-transcript/1`` file writes each event as a line (checked here against
the rules' own); ``/2`` leaves them out, and they are derived here and added to
the verified stream (``"derived": true``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from ...protocol.fastview import ACTIONS_BY_TEXT
from ...rules import (
    Action,
    Deal,
    Drew,
    Event,
    IllegalActionError,
    Layout,
    Match,
    MatchConfig,
    MatchEnded,
    NotationError,
    Passed,
    Placed,
    RoundEnded,
    RoundStarted,
    RulesError,
    Tile,
    Transfer,
    parse_action,
    public_event,
)
from ..lines import EventLine, Request, RoundStart
from ..reader import Line
from ..writer import commitment
from .report import Mismatch, Recorder, Reveal, diff, name

_ACTIONS: dict[str, Action] = {}


def _parse(text: str) -> Action:
    """``parse_action``, remembered (a match repeats the same few hundred actions).
    The actions the request encoder wrote come first: they are the rules' own
    interned values, which :meth:`Match.apply` finds by identity."""
    a = ACTIONS_BY_TEXT.get(text) or _ACTIONS.get(text)
    if a is not None:
        return a
    a = parse_action(text)
    if len(_ACTIONS) < 10_000:
        _ACTIONS[text] = a
    return a


class GameState:
    def __init__(
        self,
        out: Recorder,
        reveals: dict[int, Reveal],
        max_rounds: int | None,
        *,
        seeded: bool,
        explicit_deals: int,
        events_written: bool,
    ) -> None:
        self.out = out
        self.reveals = reveals
        self.seeded = seeded
        self.explicit_deals = explicit_deals
        self.events_written = events_written  # v1: event lines; v2: derived here

        def deal(round_number: int) -> Deal:
            rev = reveals.get(round_number)
            # An unrevealed round (a truncated transcript) gets a stand-in deal that is
            # never used: the replay stops verifying at that round's start.
            return rev.deal if rev else Deal.from_seed(0, round_number)

        self.match = Match(deal, MatchConfig(max_rounds=max_rounds))
        self.expected: deque[Event] = deque(self.match.start_events)
        self.round = 0
        self.reveal: Reveal | None = None  # the current round's (None: never revealed)
        self.round_ended: set[int] = set()
        self.early_reveal: int | None = None
        self.on_unrevealed: Callable[[Line], None] | None = None

    def round_start(self, ln: Line, rs: RoundStart) -> Reveal | None:
        """Check a round start; return the round's reveal (None: never revealed)."""
        n = ln.number
        m = self.match
        ev = self.expected.popleft() if self.expected else None
        if not isinstance(ev, RoundStarted):
            raise Mismatch(
                n,
                "a round starts here, but the replay expects "
                + (f"the event {ev.kind!r}" if ev else "no new round"),
            )
        said = {
            "round": rs.round,
            "opening": rs.opening,
            "jockey": rs.jockey,
            "balances": rs.balances,
        }
        derived = {**ev.public(), "balances": list(m.balances)}
        derived.pop("kind")
        if said != derived:
            raise Mismatch(n, f"round start disagrees: {diff(said, derived)}")
        if not self.seeded and ev.round > self.explicit_deals:
            raise Mismatch(
                n,
                f"round {ev.round} starts, but the match was not seeded and the header "
                f"gives {self.explicit_deals} explicit deal(s)",
            )
        self.round = self.out.round = ev.round
        rev = self.reveal = self.reveals.get(ev.round)
        balances = f"balances A {m.balances[0]} · B {m.balances[1]}"
        if rev is None:
            self.out.step(
                n,
                "round_start",
                f"Round {ev.round} — {ev.opening} opening; {balances} (deal not revealed)",
            )
            return None
        if commitment(rev.salt, rev.deal_dict()) != rs.deal_commitment:
            raise Mismatch(
                rev.line,
                f"the deal revealed for round {ev.round} does not open the commitment on line {n}",
            )
        jockey = f", jockey {name(ev.jockey)}" if ev.jockey is not None else ""
        self.out.step(
            n, "round_start", f"Round {ev.round} — {ev.opening} opening{jockey}; {balances}"
        )
        return rev

    def request(self, n: int, r: Request) -> None:
        """A request must be for the player to act, in the position the rules give."""
        m = self.match
        if self.early_reveal is not None:
            raise Mismatch(
                self.early_reveal,
                f"round {self.round} is revealed here, before its end: the game goes on "
                f"with a request on line {n}",
            )
        if self.expected:
            if not isinstance(self.expected[0], RoundStarted):
                raise Mismatch(
                    n,
                    f"a request, but the event {self.expected[0].kind!r} of the last action "
                    "was never written",
                )
            raise Mismatch(n, "a request, but the next round's round_start line is missing")
        if m.over:
            raise Mismatch(n, "a request after the match is over")
        if r.seat == m.to_act and r.round is None and r.turn is None and r.phase is None:
            return  # v2: the position is the rules' (the request line is checked in seats)
        said: dict[str, object] = {"seat": r.seat}
        derived: dict[str, object] = {"seat": m.to_act}
        if r.round is not None or r.turn is not None or r.phase is not None:
            said |= {"round": r.round, "turn": r.turn, "phase": r.phase}
            derived |= {"round": m.round_number, "turn": m.turn, "phase": m.phase.value}
        if said != derived:
            raise Mismatch(n, f"request disagrees with the game: {diff(said, derived)}")

    def accept(self, ln: Line, seat: int, text: str | None, clock_note: str, seq: int) -> Action:
        """Apply an accepted action; record its events (derive them for v2)."""
        n = ln.number
        m = self.match
        if not isinstance(text, str):
            raise Mismatch(n, f"an accepted reply without an action: {text!r}")
        try:
            action = _parse(text)
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
        record = self.out.report.game
        record.moves.append((self.round, seat, text))  # the canonical text: the referee's
        for ev in events:
            if type(ev) is RoundEnded:
                record.round_ends.append(ev)
                self.round_ended.add(ev.round)
                self.out.report.final_layouts[ev.round] = layout_before.copy()
        if self.out.steps:
            self._show(n, seat, action, events, layout_before, clock_note)
        if self.events_written:
            self.expected.extend(events)
            return action
        keep = self.out.record
        for ev in events:
            tp = type(ev)
            if tp is RoundStarted:
                self.expected.append(ev)
                continue
            if keep:
                self.out.derived(n, seq, ln.item.t_ns, ev)
            if tp is MatchEnded:
                assert isinstance(ev, MatchEnded)
                self._match_end(n, ev)
        return action

    def _show(
        self,
        n: int,
        seat: int,
        action: Action,
        events: list[Event],
        layout_before: Layout,
        clock_note: str,
    ) -> None:
        m = self.match
        out = self.out
        parts = [f"{name(seat)}  {action}"]
        lay: Layout | None = None
        last: Tile | None = None
        for ev in events:
            if isinstance(ev, Placed):
                parts.append(f"count {ev.count}")
                lay, last = layout_before.copy(), ev.tile
            elif isinstance(ev, Transfer):
                why = "" if ev.reason == "count" else f" ({ev.reason})"
                parts.append(
                    f"{name(ev.payee)} +{ev.amount}{why} → {ev.balances[0]}–{ev.balances[1]}"
                )
            elif isinstance(ev, Drew):
                parts.append(f"drew {ev.tile}, boneyard {ev.boneyard_left}")
        parts.append(clock_note)
        out.step(n, "action", " · ".join(parts), seat, lay, last)
        for ev in events:
            if isinstance(ev, Passed):
                out.step(n, "pass", f"{name(ev.player)}  passes (forced)", ev.player)
            elif isinstance(ev, RoundEnded):
                who = f" by {name(ev.winner)}" if ev.winner is not None else ""
                paid = f", paid {ev.payout}" if ev.payout else ""
                out.step(
                    n,
                    "round_end",
                    f"Round {ev.round} ends: {ev.reason}{who}; pips A {ev.pips[0]} · "
                    f"B {ev.pips[1]}{paid}; balances A {m.balances[0]} · B {m.balances[1]}",
                    layout=out.report.final_layouts[ev.round],
                )

    def _match_end(self, n: int, ev: MatchEnded) -> None:
        self.out.step(
            n,
            "match_end",
            f"Match over: {ev.reason}; winner {name(ev.winner)}; balances "
            f"A {ev.balances[0]} · B {ev.balances[1]}",
        )

    def event_line(self, ln: Line, e: EventLine) -> None:
        """v1: an event line must be the next event the rules gave, in its public form."""
        n = ln.number
        said = e.event
        if not self.events_written:
            raise Mismatch(n, "an event line in a bidref-transcript/2 file (it derives them)")
        if not self.expected or isinstance(self.expected[0], RoundStarted):
            raise Mismatch(n, f"an event {said.get('kind')!r} that no accepted action caused")
        ev = self.expected.popleft()
        pub = public_event(ev, None)
        assert pub is not None
        derived = pub.to_dict()
        if said != derived:
            raise Mismatch(n, f"{ev.kind} event disagrees: {diff(said, derived)}")
        extra: dict[str, Any] = {}
        if isinstance(ev, Drew):
            rev = self.reveal
            item = rev.item(e.seq, "drew") if rev else None
            if item is None:
                raise Mismatch(n, f"the tile drawn here is not in round {self.round}'s reveal")
            assert ev.tile is not None and rev is not None
            if item.tile != ev.tile.as_list() or item.seat != ev.player:
                raise Mismatch(
                    rev.line,
                    f"the reveal says seat {item.seat!r} drew {item.tile!r} on line {n}; "
                    f"the deal gives {ev.tile} to {name(ev.player)}",
                )
            extra["event"] = ev.to_dict()
        if isinstance(ev, MatchEnded):
            self._match_end(n, ev)
        self.out.emit(ln, **extra)

    def round_reveal(self, n: int, r: int) -> None:
        if r != self.round:
            raise Mismatch(n, f"a reveal of round {r!r} during round {self.round}")
        if r not in self.round_ended and not self.match.over:
            # The match may also end inside a round for reasons outside the rules (time,
            # forfeit, crash); then the reveal comes before the result, and no request may
            # follow it: a deal revealed while its round goes on would leak the hands.
            self.early_reveal = n
