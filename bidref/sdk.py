"""The SDK for Python engine authors: the engine side of protocol ``bidref/1``.

It does the handshake, reads the referee's lines, answers every request with
the right id, flushes, answers pings, logs to stderr, re-answers after an
``illegal`` error and exits on ``quit`` — you only choose actions, and you get
the position as rules-library values (``Tile``, ``Action``, ``PlayerView``,
even a ``Match`` consistent with what you may know, for search).

A complete engine (``sample_engines/python_sdk_minimal/engine.py``)::

    #!/usr/bin/env python3
    from bidref.sdk import Request, run
    from bidref.rules import Play


    def choose(req: Request) -> str:
        # Score now if we can, else the first legal action.
        plays = [a for a in req.legal if isinstance(a, Play)]
        if plays:
            return str(max(plays, key=req.points_of))
        return str(req.legal[0])


    if __name__ == "__main__":
        run(choose, name="sdk_minimal", author="you")

``req.points_of(action)`` is what an action earns at once. An engine that
sets ``features=("points",)`` (an :class:`Engine` attribute, or an argument of
:func:`run`) asks the referee for those points in every request
(``legal_points``, protocol feature ``points``): then ``points_of`` reads them
instead of computing them.

For more control, subclass :class:`Engine` (``on_hello``, ``choose``,
``on_event``, ``on_error``, ``on_quit``) and pass an instance to :func:`run`.
Inside ``choose`` you may ask the referee for the rules with
``engine.ask_rules("5")`` (the clock keeps running) and send a transcript note
with ``engine.note("...")``.
"""

from __future__ import annotations

import json
import logging
import random
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, Final

from bidref import __version__
from bidref.rules import (
    Action,
    Layout,
    LayoutView,
    Match,
    MatchConfig,
    Phase,
    Play,
    PlayerView,
    Point,
    Tile,
    action_points,
    match_from_view,
    parse_action,
    point,
    tile,
)
from bidref.rules.determinize import layout_from_view
from bidref.rules.layout import Side

log = logging.getLogger(__name__)

# The same as bidref.protocol.PROTOCOL_VERSION; not imported, to keep pydantic out of engines.
PROTOCOL_VERSION: Final = "bidref/1"
_SIDES: Final = {s.label: s for s in Side}
_EMPTY_LAYOUT: Final = Layout()  # what action_points reads for an action that is not a play (none)


# -- the view as rules-library values ---------------------------------------------------------


def _tile(pair: Any) -> Tile:
    return tile(int(pair[0]), int(pair[1]))


def _point(d: Any) -> Point:
    return point(_tile(d["tile"]), _SIDES[d["side"]])


def view_from_dict(d: dict[str, Any]) -> PlayerView:
    """The :class:`PlayerView` a request's ``view`` was written from.

    >>> from bidref.rules import Match, player_view
    >>> v = player_view(Match.new(seed=7), 0)
    >>> view_from_dict(v.to_dict()) == v
    True
    """
    lay = d["layout"]
    layout = LayoutView(
        placed=tuple(_tile(t) for t in lay["placed"]),
        connections=tuple((_point(a), _point(b)) for a, b in lay["connections"]),
        attachment_points=tuple(_point(p) for p in lay["attachment_points"]),
        scoring=tuple((_tile(s["tile"]), int(s["value"])) for s in lay["scoring"]),
        count=int(lay["count"]),
        spinner=None if lay["spinner"] is None else _tile(lay["spinner"]),
    )
    auction = d["auction"]
    return PlayerView(
        player=int(d["player"]),
        round=int(d["round"]),
        phase=str(d["phase"]),
        to_act=d["to_act"],
        turn=int(d["turn"]),
        hand=tuple(_tile(t) for t in d["hand"]),
        opponent_hand_size=int(d["opponent_hand_size"]),
        boneyard_size=int(d["boneyard_size"]),
        layout=layout,
        balances=(int(d["balances"][0]), int(d["balances"][1])),
        jockey=d["jockey"],
        opening=str(d["opening"]),
        standing_bid=auction["standing_bid"],
        bidder=auction["bidder"],
        drawn_this_turn=int(d["drawn_this_turn"]),
        legal_actions=tuple(parse_action(a) for a in d["legal_actions"]),
    )


def sample_match(view: PlayerView, rng: random.Random, max_rounds: int | None = None) -> Match:
    """A :class:`Match` that agrees with everything ``view`` shows, with the tiles
    hidden from the player (opponent's hand, boneyard, later deals) dealt at random.

    It is one *determinization* for search: call it (or :func:`bidref.rules.redeal_hidden` on
    its result) once per simulation. Its ``legal_actions()`` equal the view's.
    """
    return match_from_view(view, rng, MatchConfig(max_rounds=max_rounds))


# -- requests --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Clock:
    """The clocks in a request, in seconds."""

    delay_left: float
    bank: float
    opponent_bank: float
    deadline: float  # delay_left + bank: the time for this reply, from the request

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Clock:
        return cls(
            d["delay_left_ms"] / 1000,
            d["bank_ms"] / 1000,
            d["opponent_bank_ms"] / 1000,
            d["deadline_ms"] / 1000,
        )


@dataclass(frozen=True, slots=True)
class Request:
    """One decision request, decoded into rules-library values.

    ``legal`` holds the legal actions as ``Action`` values (``str(a)`` is the
    reply text); ``view`` is the :class:`PlayerView`; ``received_at`` is the
    monotonic time the line was read, so ``received_at + clock.deadline`` is
    when your time runs out.
    """

    id: int
    view: PlayerView
    legal: tuple[Action, ...]
    clock: Clock
    received_at: float
    seat: int
    max_rounds: int | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    # What each action of ``legal`` earns at once, as the referee sent it (the
    # ``points`` feature); None when the engine did not ask for it.
    legal_points: tuple[int, ...] | None = None
    _memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def hand(self) -> tuple[Tile, ...]:
        return self.view.hand

    @property
    def phase(self) -> Phase:
        return Phase(self.view.phase)

    def points_of(self, action: Action) -> int:
        """What ``action`` earns at once: a play or an opening the count it makes if
        that is a multiple of 5; 0 for every other action. Read from the request's
        ``legal_points`` when the referee sent them (the ``points`` feature)."""
        if self.legal_points is not None:
            by_action = self._memo.get("points")
            if by_action is None:
                by_action = self._memo["points"] = dict(
                    zip(self.legal, self.legal_points, strict=False)
                )
            if action in by_action:
                return int(by_action[action])
        if not isinstance(action, Play):
            return action_points(_EMPTY_LAYOUT, action)  # an opening needs no layout
        lay = self._memo.get("layout")
        if lay is None:
            lay = self._memo["layout"] = layout_from_view(self.view.layout)
        return action_points(lay, action)

    def sample_match(self, rng: random.Random) -> Match:
        """A determinization of the position: see :func:`sample_match`."""
        return sample_match(self.view, rng, self.max_rounds)

    def time_left(self, now: float) -> float:
        """Seconds until the deadline of this reply, at monotonic time ``now``."""
        return self.received_at + self.clock.deadline - now


# -- the engine loop --------------------------------------------------------------------------


class EngineQuit(Exception):
    """The referee said ``quit`` or closed stdin while the engine waited for a line."""


class Engine:
    """Subclass and override :meth:`choose` (and any ``on_*`` hook you need).

    Attributes set by the SDK: ``seat`` (0 or 1), ``settings`` (the hello's
    settings dict), ``hello`` (the whole referee hello).
    """

    name: str = "python-engine"
    author: str = ""
    version: str = __version__
    features: tuple[str, ...] = ()  # protocol features to ask for, e.g. ("points",)

    def __init__(self) -> None:
        self.seat = 0
        self.settings: dict[str, Any] = {}
        self.hello: dict[str, Any] = {}
        self.last_action: str | None = None  # the text of the last action sent
        self._io: _LineIO | None = None

    # -- hooks ----------------------------------------------------------------------------

    def on_hello(self, hello: dict[str, Any]) -> None:
        """Called once with the referee's hello, before the engine answers it."""

    def choose(self, request: Request) -> Action | str:
        """Return the action for ``request`` (an ``Action`` or its text)."""
        return request.legal[0]

    def on_event(self, event: dict[str, Any]) -> None:
        """Called for every event (``event["kind"]``: placed, drew, transfer, …).
        An exception here is logged to stderr and the engine plays on."""

    def on_error(self, error: dict[str, Any], pending: Request | None) -> Action | str | None:
        """Called for every ``error`` line. For an illegal or malformed action the
        same request stays pending; return the action to send instead (default:
        the first legal action), or None to send nothing."""
        log.warning("referee error %s: %s", error.get("code"), error.get("message"))
        if pending is not None and error.get("code") in ("illegal", "bad_action"):
            others = [a for a in pending.legal if str(a) != self.last_action]
            return others[0] if others else None
        return None

    def on_quit(self) -> None:
        """Called once when the referee says quit (or closes stdin)."""

    # -- services for choose() --------------------------------------------------------------

    def note(self, message: str) -> None:
        """Send a ``log`` line to the referee's transcript (capped there)."""
        if self._io is not None:
            self._io.send({"type": "log", "message": message})

    def ask_rules(self, topic: str | None = None) -> str:
        """Ask the referee for a rules section (``"5"``, ``"clock"``) or all of them.

        Blocks until the answer; other lines that arrive meanwhile are kept for
        later. Your clock keeps running while you read (RULES.md §8).
        """
        if self._io is None:
            raise RuntimeError("ask_rules works only while the engine runs under run()")
        return self._io.ask_rules(topic)


class _LineIO:
    """Line framing over the engine's stdin/stdout, with a queue for look-ahead."""

    def __init__(self, stdin: IO[str], stdout: IO[str]) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.queue: deque[dict[str, Any]] = deque()
        self.next_rules_id = 0

    def send(self, obj: dict[str, Any]) -> None:
        self.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self.stdout.flush()

    def read(self) -> dict[str, Any] | None:
        """The next message as a dict, None at end of input. Bad lines are logged."""
        if self.queue:
            return self.queue.popleft()
        while True:
            line = self.stdin.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                log.warning("ignoring a line that is not JSON: %.200r", line)
                continue
            if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
                log.warning("ignoring a line that is not a message: %.200r", line)
                continue
            if obj["type"] == "ping":  # answer at once, even in the middle of a search
                self.send({"type": "pong", "id": obj.get("id")})
                continue
            return obj

    def ask_rules(self, topic: str | None) -> str:
        self.next_rules_id += 1
        rid = f"sdk-{self.next_rules_id}"
        self.send({"type": "rules", "id": rid, "topic": topic})
        held: list[dict[str, Any]] = []
        try:
            while True:
                obj = self.read()
                if obj is None:
                    raise EngineQuit("stdin closed while waiting for a rules answer")
                if obj["type"] == "rules" and obj.get("id") == rid:
                    return str(obj.get("text", ""))
                held.append(obj)
        finally:
            self.queue.extendleft(reversed(held))


ChooseFn = Callable[[Request], Action | str]


class _FunctionEngine(Engine):
    def __init__(
        self, fn: ChooseFn, name: str, author: str, version: str, features: tuple[str, ...] = ()
    ) -> None:
        super().__init__()
        self.fn = fn
        self.name = name
        self.author = author
        self.version = version
        self.features = features

    def choose(self, request: Request) -> Action | str:
        return self.fn(request)


def _hello(engine: Engine, io: _LineIO, msg: dict[str, Any]) -> None:
    """Take the referee's hello and answer with the engine's."""
    engine.hello = msg
    engine.seat = int(msg.get("seat", 0))
    engine.settings = dict(msg.get("settings") or {})
    if msg.get("protocol") != PROTOCOL_VERSION:
        log.warning(
            "the referee speaks %r; this SDK speaks %r", msg.get("protocol"), PROTOCOL_VERSION
        )
    engine.on_hello(msg)
    answer: dict[str, Any] = {
        "type": "hello",
        "name": engine.name,
        "author": engine.author,
        "version": engine.version,
        "protocol": PROTOCOL_VERSION,
    }
    if engine.features:
        answer["features"] = list(engine.features)
    io.send(answer)


def _request(engine: Engine, msg: dict[str, Any], received: float) -> Request | None:
    """The request ``msg`` received at ``received``; None (logged) if it cannot be read."""
    try:
        return Request(
            id=msg["id"],
            view=view_from_dict(msg["view"]),
            legal=tuple(parse_action(a) for a in msg["legal"]),
            clock=Clock.from_dict(msg["clock"]),
            received_at=received,
            seat=engine.seat,
            max_rounds=engine.settings.get("max_rounds"),
            raw=msg,
            legal_points=None
            if msg.get("legal_points") is None
            else tuple(int(x) for x in msg["legal_points"]),
        )
    except (KeyError, TypeError, ValueError) as e:
        log.error("cannot read request %r (%s); answering its first legal action", msg.get("id"), e)
        return None


def _choose(engine: Engine, req: Request) -> Action | str:
    """The engine's choice; the first legal action if ``choose`` fails (but not
    if it asks to quit)."""
    try:
        return engine.choose(req)
    except EngineQuit:
        raise
    except Exception:
        log.exception("choose() failed; answering the first legal action")
        return req.legal[0]


def run(
    engine: Engine | ChooseFn,
    *,
    name: str = "python-engine",
    author: str = "",
    version: str = "1",
    features: tuple[str, ...] = (),
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    clock: Callable[[], float] = time.monotonic,
    log_level: int = logging.INFO,
) -> int:
    """Play as an engine on stdin/stdout until the referee says quit; return 0.

    ``engine`` is an :class:`Engine` or just a function ``Request -> action``
    (then ``name``/``author``/``version`` name it in the handshake, and
    ``features`` asks for protocol features, e.g. ``("points",)``). Python
    logging goes to stderr; nothing but protocol lines is written to stdout (while it
    runs, a stray ``print`` goes to stderr).
    """
    if not isinstance(engine, Engine):
        engine = _FunctionEngine(engine, name, author, version, tuple(features))
    if not logging.getLogger().handlers:
        logging.basicConfig(
            stream=sys.stderr, level=log_level, format=f"{engine.name}: %(levelname)s %(message)s"
        )
    io = _LineIO(stdin or sys.stdin, stdout or sys.stdout)
    engine._io = io
    saved_stdout = sys.stdout
    if stdout is None:
        # A stray print() in the engine must not corrupt the protocol: send it to stderr.
        sys.stdout = sys.stderr
    pending: Request | None = None

    def reply(req: Request, action: Action | str) -> None:
        engine.last_action = str(action)
        io.send({"type": "action", "id": req.id, "action": str(action)})

    try:
        while True:
            msg = io.read()
            if msg is None:
                log.info("stdin closed: exiting")
                break
            kind = msg["type"]
            if kind == "hello":
                _hello(engine, io, msg)
            elif kind == "request":
                pending = _request(engine, msg, clock())
                if pending is None:
                    legal = msg.get("legal") or []  # unreadable: its first legal action
                    if legal:
                        io.send({"type": "action", "id": msg.get("id"), "action": legal[0]})
                    continue
                reply(pending, _choose(engine, pending))
            elif kind == "error":
                retry = engine.on_error(
                    msg, pending if pending and msg.get("id") == pending.id else None
                )
                if retry is not None and pending is not None:
                    reply(pending, retry)
            elif kind == "event":
                try:
                    engine.on_event(dict(msg.get("event") or {}))
                except EngineQuit:
                    raise
                except Exception:  # a bug in the hook must not lose the match by a crash
                    log.exception("on_event() failed; playing on")
            elif kind == "quit":
                break
            elif kind == "rules":
                log.debug("a rules answer nobody waited for: %r", msg.get("id"))
            else:
                log.debug("ignoring a %r message", kind)
    except EngineQuit:
        pass
    except KeyboardInterrupt:
        pass
    finally:
        sys.stdout = saved_stdout
    engine.on_quit()
    return 0
