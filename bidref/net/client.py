"""The remote side: bridge a local engine process to a referee's network seat.

``bidref connect URL --token T -- ENGINE_CMD...`` runs :class:`Bridge`. It
starts the engine once, then keeps a WebSocket connection to the referee up:
when the connection drops it reconnects with exponential backoff (and gives up
after ``retry_for_ns`` without a connection). It never stops the clock: the
referee charges the time while it is away.

What it sends again after a reconnection, so that nothing is lost and nothing
is answered twice:

- engine lines written while disconnected are sent once it is back;
- a re-sent request the engine already has is not passed to it again; if the
  engine had answered it but the answer never reached the referee, the answer
  is sent again (its time counts by its arrival at the referee);
- a restarted bridge (a new engine) says ``fresh`` and is greeted again by the
  referee; the engine's hello is then not news to the referee, which answers it.

A tournament's seat ends a match with ``CLOSE_NEXT_MATCH``: the bridge then
returns ``next_match`` and :func:`serve` starts a fresh engine and a fresh
bridge for the next match, until the referee says it is over (see
:mod:`bidref.net.listener`).

Library code: it reports through the ``status`` callback and returns a
:class:`BridgeResult`; only the CLI prints.
"""

from __future__ import annotations

import random
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from websockets.exceptions import ConnectionClosed, InvalidURI, WebSocketException
from websockets.sync.client import ClientConnection, connect

from ..engines import (
    Clock,
    EngineSpec,
    Eof,
    Line,
    Overlong,
    Transport,
    WriteError,
    start_engine,
)
from ..engines.framing import MAX_LINE
from ..protocol import Quit, encode
from ..rules import MILLISECOND, SECOND
from .framing import (
    CLOSE_BAD_AUTH,
    CLOSE_MATCH_OVER,
    CLOSE_NEXT_MATCH,
    CLOSE_REPLACED,
    auth_message,
    engine_exit_message,
    message_type,
    overlong_message,
    parse_object,
)
from .resend import BUFFER_CAP as BUFFER_CAP
from .resend import Resend


@dataclass(frozen=True)
class Backoff:
    """Reconnection delays: ``first`` doubling up to ``cap``, each with up to 25 %
    random jitter (so that many clients do not come back in step).

    >>> b = Backoff(first_ns=100, cap_ns=350, jitter=0.0)
    >>> [b.delay(n) for n in range(4)]
    [100, 200, 350, 350]
    """

    first_ns: int = 250 * MILLISECOND
    cap_ns: int = 5 * SECOND
    jitter: float = 0.25

    def delay(self, attempt: int, rng: random.Random | None = None) -> int:
        base: int = min(self.first_ns * (2 ** min(attempt, 30)), self.cap_ns)
        if self.jitter <= 0:
            return base
        r: float = (rng or random).random()
        return int(base * (1 - self.jitter * r))


@dataclass(frozen=True)
class BridgeResult:
    """How a bridge ended.

    ``how``: ``match_over`` (the referee closed the seat), ``next_match`` (a
    tournament's match is over and more may follow: come back with a fresh engine),
    ``refused`` (wrong token), ``replaced`` (another client took the seat with the same
    token), ``gave_up`` (no connection for too long), ``engine_exit`` (the engine ended
    before the referee said quit, and the referee was told: it loses the match as a
    crash), ``start_failed`` (the engine did not start).
    """

    how: str
    detail: str
    connections: int

    @property
    def ok(self) -> bool:
        return self.how in ("match_over", "next_match")


@dataclass(frozen=True)
class BridgeOptions:
    """What a :class:`Bridge` is given (its constructor's arguments): fixed for its run."""

    url: str
    token: str
    engine: EngineSpec
    transport_name: str
    ssl_context: ssl.SSLContext | None
    clock: Clock
    sleep: Callable[[float], None]
    retry_for_ns: int
    backoff: Backoff
    open_timeout_s: float
    status: Callable[[str], None]
    max_line: int


class _EngineExit:
    """The engine's end, told to the referee once, and whether the referee had said
    quit before it (if not, the engine ended before the match did)."""

    def __init__(self) -> None:
        self.message: str | None = None  # engine ended: tell the referee
        self.sent = False
        self.detail = ""
        self.quit = False

    def referee_quit(self) -> None:
        """(locked) The referee said quit."""
        if self.message is None:  # (a quit that comes after the engine ended does not count)
            self.quit = True

    def ended(self, detail: str, message: str, ws: ClientConnection | None) -> None:
        """(locked) Tell the referee now if connected, else on the next connection."""
        self.detail = detail
        self.message = message
        if ws is not None:
            _send(ws, message)
            self.sent = True

    def catch_up(self, ws: ClientConnection) -> None:
        """(locked) Tell the referee on this connection if no earlier one was told."""
        if self.message is not None and not self.sent:
            ws.send(self.message)
            self.sent = True

    @property
    def before_quit(self) -> bool:
        """The referee was told the engine ended, and had not said quit: a crash."""
        return self.sent and not self.quit


def _send(ws: ClientConnection, text: str) -> bool:
    try:
        ws.send(text)
        return True
    except (ConnectionClosed, OSError):
        return False


class _Done(Exception):
    def __init__(self, result: BridgeResult) -> None:
        super().__init__(result.detail)
        self.result = result


class Bridge:
    """One engine, one seat; see the module docstring. Call :meth:`run` once."""

    def __init__(
        self,
        url: str,
        token: str,
        engine: EngineSpec,
        *,
        transport: str = "pipe",
        ssl_context: ssl.SSLContext | None = None,
        clock: Clock = time.monotonic_ns,
        sleep: Callable[[float], None] = time.sleep,
        retry_for_ns: int = 120 * SECOND,
        backoff: Backoff | None = None,
        open_timeout_s: float = 10.0,
        status: Callable[[str], None] = lambda _: None,
        max_line: int = MAX_LINE,
    ) -> None:
        self.options = BridgeOptions(
            url=url,
            token=token,
            engine=engine,
            transport_name=transport,
            ssl_context=ssl_context,
            clock=clock,
            sleep=sleep,
            retry_for_ns=retry_for_ns,
            backoff=backoff or Backoff(),
            open_timeout_s=open_timeout_s,
            status=status,
            max_line=max_line,
        )
        self._lock = threading.Lock()
        # changed only under the lock: the reader thread and the session thread both do
        self._ws: ClientConnection | None = None
        self._conn_no = 0
        self._resend = Resend()
        self._exit = _EngineExit()
        self._match: str | None = None  # the match its welcome named (a tournament's)
        self._t: Transport | None = None

    # -- the whole run ------------------------------------------------------------------

    def run(self) -> BridgeResult:
        try:
            self._t = start_engine(
                self.options.engine,
                self.options.transport_name,
                clock=self.options.clock,
                max_line=self.options.max_line,
            )
        except Exception as e:  # EngineStartError, OSError, ValueError: the CLI says why
            return BridgeResult("start_failed", str(e), 0)
        reader = threading.Thread(
            target=self._read_engine, name="bidref-connect-engine", daemon=True
        )
        reader.start()
        try:
            return self._connect_loop()
        finally:
            # an engine still running (refused, gave up, interrupted) is told to go
            self._t.close(encode(Quit(reason="aborted")), 2 * SECOND)

    def _connect_loop(self) -> BridgeResult:
        o = self.options
        attempt = 0
        give_up_at = o.clock() + o.retry_for_ns
        while True:
            try:
                ws = connect(
                    o.url,
                    ssl=o.ssl_context,
                    compression=None,
                    open_timeout=o.open_timeout_s,
                    max_size=4 * o.max_line,
                    ping_interval=5.0,
                    ping_timeout=15.0,
                    close_timeout=2.0,
                    user_agent_header="bidref-connect",
                    proxy=None,
                )
            except InvalidURI as e:
                return BridgeResult(
                    "refused",
                    f"{o.url!r} is not a ws:// or wss:// URL ({e})",
                    self._conn_no,
                )
            except (OSError, WebSocketException, TimeoutError, EOFError) as e:
                if o.clock() >= give_up_at:
                    return BridgeResult(
                        "gave_up",
                        f"no connection to {o.url} for {o.retry_for_ns / SECOND:g} s ({e})",
                        self._conn_no,
                    )
                wait = o.backoff.delay(attempt)
                attempt += 1
                o.status(f"cannot connect ({e}); trying again in {wait / SECOND:.2f} s")
                o.sleep(wait / SECOND)
                continue
            try:
                with ws:  # (websockets >= 17.1 wants a context manager)
                    self._session(ws)
            except _Done as d:
                return d.result
            attempt = 0
            give_up_at = o.clock() + o.retry_for_ns

    def _session(self, ws: ClientConnection) -> None:
        """One connection: authenticate, catch up, then pass lines until it ends."""
        try:
            fresh = not self._resend.greeted
            ws.send(auth_message(self.options.token, fresh, None if fresh else self._match))
            first = ws.recv(timeout=self.options.open_timeout_s)
            welcome = parse_object(first)
            if welcome is not None and welcome.get("type") == "waiting":
                self.options.status("waiting for the referee to start a match")
                first = ws.recv()  # (keepalive pings find a referee that is gone)
                welcome = parse_object(first)
            if welcome is None or welcome.get("type") != "welcome":
                raise _Done(
                    BridgeResult("refused", f"unexpected answer: {first!r:.200}", self._conn_no)
                )
            with self._lock:
                self._ws = ws
                self._conn_no += 1
                self._catch_up(ws)
            match = welcome.get("match")
            if isinstance(match, str):
                self._match = match
            seat = welcome.get("seat")
            self.options.status(
                f"{'resumed' if welcome.get('resume') or self._conn_no > 1 else 'connected'}: "
                f"seat {'AB'[seat] if seat in (0, 1) else seat} at {self.options.url}"
            )
            for msg in ws:
                self._from_referee(msg if isinstance(msg, str) else msg.decode("utf-8", "replace"))
        except ConnectionClosed:
            pass
        except TimeoutError:
            self.options.status("no welcome from the referee in time")
        except OSError as e:
            self.options.status(f"connection lost ({e})")
        finally:
            with self._lock:
                if self._ws is ws:
                    self._ws = None
        rcvd = ws.close_code
        reason = ws.close_reason or ""
        if rcvd == CLOSE_BAD_AUTH:
            raise _Done(BridgeResult("refused", reason or "token refused", self._conn_no))
        if rcvd == CLOSE_REPLACED:
            raise _Done(BridgeResult("replaced", reason or "replaced", self._conn_no))
        if rcvd == CLOSE_NEXT_MATCH:
            if self._exit.before_quit:
                reason = f"{reason} ({self._exit.detail})"
            raise _Done(BridgeResult("next_match", reason or "the match is over", self._conn_no))
        if self._exit.before_quit:
            raise _Done(BridgeResult("engine_exit", self._exit.detail, self._conn_no))
        if rcvd == CLOSE_MATCH_OVER or self._exit.sent:
            raise _Done(BridgeResult("match_over", reason or "the match is over", self._conn_no))
        self.options.status(f"connection lost ({rcvd} {reason}".rstrip() + "); reconnecting")

    def _catch_up(self, ws: ClientConnection) -> None:
        """(locked) Send what the engine wrote while there was no connection."""
        self._resend.catch_up(ws, self._conn_no)
        self._exit.catch_up(ws)

    # -- referee → engine ---------------------------------------------------------------

    def _from_referee(self, text: str) -> None:
        kind, rid = message_type(text)
        with self._lock:
            if not self._resend.from_referee(kind, rid, self._ws, self._conn_no):
                return
            if kind == "quit":
                self._exit.referee_quit()
        try:
            assert self._t is not None
            self._t.write_line(text)
        except WriteError:
            pass  # the engine is gone: its reader reports the exit

    # -- engine → referee ---------------------------------------------------------------

    def _read_engine(self) -> None:
        t = self._t
        assert t is not None
        while True:
            inc = t.read(None)
            if isinstance(inc, Line):
                self._from_engine(inc.text)
            elif isinstance(inc, Overlong):
                self._from_engine(overlong_message(inc.prefix, inc.length))
            elif isinstance(inc, Eof):
                info = t.wait_exit(2 * SECOND)
                how = info.describe() if info else "closed its stdout"
                with self._lock:
                    self._exit.ended(
                        f"the engine ended before the match did ({how})",
                        engine_exit_message(
                            info.exit_code if info else None,
                            info.signal if info else None,
                            t.stderr_tail(),
                        ),
                        self._ws,
                    )
                self.options.status(f"the engine ended ({how})")
                return

    def _from_engine(self, text: str) -> None:
        kind, rid = message_type(text)
        with self._lock:
            self._resend.from_engine(text, kind, rid)
            ws = self._ws
            if ws is not None and _send(ws, text):
                self._resend.sent(text, self._conn_no)
            else:
                self._resend.keep(text)


def serve(
    new_bridge: Callable[[], Bridge],
    *,
    once: bool = False,
    status: Callable[[str], None] = lambda _: None,
) -> tuple[BridgeResult, int]:
    """Play match after match, each with a fresh bridge (and engine), until the
    referee says it is over; with ``once``, after the first match. Returns how
    the last bridge ended and how many matches were played."""
    matches = 0
    while True:
        result = new_bridge().run()
        if result.how not in ("next_match", "match_over"):
            return result, matches
        if result.connections:
            matches += 1
        if result.how == "match_over" or once:
            return result, matches
        status(f"match {matches} over; a fresh engine waits for the next one")
