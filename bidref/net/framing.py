"""The network link: how ``bidref/1`` lines travel over a WebSocket.

One WebSocket text message carries exactly one ``bidref/1`` line (no newline),
unchanged in both directions. Around them the link adds three messages of its
own, never passed to an engine:

- client → referee, first message: ``{"type":"auth","token":"…","fresh":true}``
  (``fresh``: the client's engine has not been greeted yet, so it needs the
  referee's ``hello``; a bridge whose engine is already playing says false, and
  gives the ``match`` of its welcome, if it had one);
- referee → client, the answer: ``{"type":"welcome","seat":0,"protocol":"bidref/1",
  "resume":false}``, after which ``bidref/1`` lines follow (a tournament's seat
  adds ``"match":"…"``, naming the match);
- referee → client, instead of a welcome: ``{"type":"waiting"}`` when a
  tournament has no match for this engine yet (the welcome follows when it has);
- client → referee: ``{"type":"engine_exit","exit_code":0,"signal":null,
  "stderr_tail":"…"}`` when the client's engine process ended (the referee treats
  it like a local engine that exited);
- client → referee: ``{"type":"overlong","prefix":"…","length":N}`` when the
  engine wrote a line over the referee's limit (a protocol loss, as for a local
  engine).

(An engine that writes such a line itself only ends its own match: neither is a
``bidref/1`` message, so the referee would refuse it anyway.)

A refusal is a WebSocket close with one of the codes below and a reason that
says what to do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from ..engines.spec import EngineSpecError
from ..protocol import PROTOCOL_VERSION
from ..rules import MILLISECOND

LISTEN_SCHEME: Final = "listen://"
AUTH_MAX: Final = 4096  # bytes: the auth message is small; anything longer is refused

# WebSocket close codes (4000-4999 are for applications).
CLOSE_MATCH_OVER: Final = 4000  # the seat is closed: do not come back
CLOSE_REPLACED: Final = 4001  # a newer connection with the same token took the seat
CLOSE_NEXT_MATCH: Final = 4002  # this match is over, more follow: come back with a fresh engine
CLOSE_BAD_AUTH: Final = 4003  # wrong token or malformed auth: do not retry
CLOSE_AUTH_TIMEOUT: Final = 4008  # no auth message within the start-up timeout
CLOSE_BUSY: Final = 4029  # too many connections waiting to authenticate: retry later
CLOSE_POLICY: Final = 1008  # message rate or backlog over the cap
FINAL_CLOSE_CODES: Final = frozenset({CLOSE_MATCH_OVER, CLOSE_REPLACED, CLOSE_BAD_AUTH})


class NetSpecError(EngineSpecError):
    """A network engine argument that cannot be used; the message says why."""


@dataclass(frozen=True)
class ListenAddress:
    """Where a network seat listens: ``listen://HOST:PORT`` (port 0: a free one)."""

    host: str
    port: int

    @classmethod
    def parse(cls, arg: str) -> ListenAddress:
        """``listen://127.0.0.1:0`` → ListenAddress('127.0.0.1', 0).

        >>> ListenAddress.parse("listen://127.0.0.1:9000")
        ListenAddress(host='127.0.0.1', port=9000)
        """
        if not arg.startswith(LISTEN_SCHEME):
            raise NetSpecError(f"{arg!r} is not a listen:// address")
        try:
            parts = urlsplit(arg)
            port = parts.port
        except ValueError as e:
            raise NetSpecError(
                f"{arg!r}: {e}; give listen://HOST:PORT, e.g. listen://127.0.0.1:0"
            ) from None
        host = parts.hostname
        if not host or port is None or parts.path not in ("", "/") or parts.query:
            raise NetSpecError(
                f"{arg!r}: give listen://HOST:PORT, e.g. listen://127.0.0.1:0 "
                "(port 0 picks a free port; 0.0.0.0 listens on every interface)"
            )
        return cls(host, port)


def is_listen(arg: str) -> bool:
    return arg.startswith(LISTEN_SCHEME)


def auth_message(token: str, fresh: bool, match: str | None = None) -> str:
    obj: dict[str, object] = {"type": "auth", "token": token, "fresh": fresh}
    if match is not None:
        obj["match"] = match
    return json.dumps(obj)


def welcome_message(seat: int, resume: bool, match: str | None = None) -> str:
    obj: dict[str, object] = {
        "type": "welcome",
        "seat": seat,
        "protocol": PROTOCOL_VERSION,
        "resume": resume,
    }
    if match is not None:
        obj["match"] = match
    return json.dumps(obj)


WAITING_MESSAGE: Final = '{"type":"waiting"}'


def engine_exit_message(exit_code: int | None, signal: str | None, stderr_tail: str) -> str:
    return json.dumps(
        {
            "type": "engine_exit",
            "exit_code": exit_code,
            "signal": signal,
            "stderr_tail": stderr_tail[-2000:],
        }
    )


def overlong_message(prefix: str, length: int) -> str:
    return json.dumps({"type": "overlong", "prefix": prefix[:200], "length": length})


def parse_object(text: str | bytes) -> dict[str, Any] | None:
    """A JSON object, or None for anything else (not JSON, not an object)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def message_type(text: str) -> tuple[str | None, Any]:
    """(``type``, ``id``) of a protocol line, (None, None) when it is not an object."""
    obj = parse_object(text)
    if obj is None:
        return None, None
    kind = obj.get("type")
    return (kind if isinstance(kind, str) else None), obj.get("id")


@dataclass(frozen=True)
class RequestClock:
    """The clock of a pending request as the referee sent it, and when.

    A request says how much time its player had when it was written; re-sent
    after a reconnection, it must say how much is left *now* (RULES.md §7: a
    lost connection does not stop the clock). The delay is used first, then the
    bank, exactly as the referee charges it (:meth:`MatchClock.spend`).
    """

    delay_left_ns: int
    bank_ns: int
    opponent_bank_ns: int
    start: int  # clock time the stretch began (the request's or an error's write)

    @classmethod
    def of_request(cls, obj: dict[str, Any], start: int) -> RequestClock | None:
        c = obj.get("clock")
        if not isinstance(c, dict):
            return None
        try:
            return cls(
                int(c["delay_left_ms"]) * MILLISECOND,
                int(c["bank_ms"]) * MILLISECOND,
                int(c["opponent_bank_ms"]) * MILLISECOND,
                start,
            )
        except (KeyError, TypeError, ValueError):
            return None

    def after(self, elapsed: int, restart_at: int) -> RequestClock:
        """What is left once ``elapsed`` ns are spent; a new stretch from ``restart_at``."""
        elapsed = max(elapsed, 0)
        if elapsed < self.delay_left_ns:
            return RequestClock(
                self.delay_left_ns - elapsed, self.bank_ns, self.opponent_bank_ns, restart_at
            )
        bank = max(self.bank_ns - (elapsed - self.delay_left_ns), 0)
        return RequestClock(0, bank, self.opponent_bank_ns, restart_at)

    def members(self) -> dict[str, int]:
        return {
            "delay_left_ms": self.delay_left_ns // MILLISECOND,
            "bank_ms": self.bank_ns // MILLISECOND,
            "opponent_bank_ms": self.opponent_bank_ns // MILLISECOND,
            "deadline_ms": (self.delay_left_ns + self.bank_ns) // MILLISECOND,
        }


def with_clock(line: str, clock: RequestClock) -> str:
    """The request ``line`` with its ``clock`` object replaced (all else unchanged)."""
    obj = parse_object(line)
    if obj is None:
        return line
    obj["clock"] = clock.members()
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
