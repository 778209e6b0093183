"""What the match-playing commands (`match`, `play`) share: exit codes, the
options that set up a match, and their checks."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import CodeType, FrameType
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from .exit_codes import ExitCode

if TYPE_CHECKING:
    from ..match.referee import MatchOutcome


# -- the options of a command that listens for network engines (match, check-engine,
# tournament): one declaration, each command's own words.


def connect_info_option(with_what: str, what: str, listener: str, example: str) -> Any:
    """``--connect-info`` of a command that listens for network engines (``match``,
    ``check-engine``, ``tournament``), in the words of that command."""
    return typer.Option(
        metavar="FILE",
        help=f"{with_what}: write {what} here as JSON as soon as {listener} listens ({example}).",
        dir_okay=False,
    )


def tls_cert_option(with_what: str) -> Any:
    """``--tls-cert`` of a command that listens for network engines."""
    return typer.Option(
        metavar="FILE", help=f"{with_what}: serve wss:// with this certificate (PEM)."
    )


TlsKeyOption = Annotated[
    Path | None, typer.Option(metavar="FILE", help="The private key (PEM) of --tls-cert.")
]


@contextlib.contextmanager
def signals_interrupt(ctrl_c: bool = True) -> Iterator[None]:
    """While a match runs, SIGTERM and SIGHUP (`timeout`, a closed terminal, a
    cancelled job) stop it like Ctrl-C: aborted, and its engines ended. Once
    one has come, further ones are ignored so that the engines are still ended.
    ``ctrl_c=False`` leaves SIGINT alone (`bidref play` reads Ctrl-C as a key)."""
    stops = (
        (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        if ctrl_c
        else (signal.SIGTERM, signal.SIGHUP)
    )

    active = True
    lock = threading.Lock()

    def again(signum: int) -> None:
        with lock:
            if active:  # (once the match is over there is nothing left to stop)
                _redeliver(signum)

    def stop(signum: int, frame: FrameType | None) -> None:
        if not active:
            return  # a deferred interrupt that came after the match
        if _starting_an_engine(frame):
            # Raised now, the interrupt would lose the engine being started (its
            # seat would say `not_started` while it runs): deliver it again in a
            # moment, once the referee holds the engine.
            threading.Timer(_RETRY_S, again, (signum,)).start()
            return
        for s in stops:
            signal.signal(s, signal.SIG_IGN)
        taken[0] = signum
        raise KeyboardInterrupt

    # A KeyboardInterrupt raised while a finalizer runs (a __del__, a weakref
    # callback: the handler runs at whatever bytecode comes next) is printed and
    # swallowed, and the match would go on with every stop ignored. Such a lost
    # interrupt is delivered again.
    taken: list[int | None] = [None]
    chained = sys.unraisablehook

    def lost(u: Any) -> None:
        signum = taken[0]
        if not (active and signum is not None and isinstance(u.exc_value, KeyboardInterrupt)):
            chained(u)
            return
        if threading.current_thread() is threading.main_thread():
            signal.signal(signum, stop)
            threading.Timer(_RETRY_S, again, (signum,)).start()

    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set in the main thread
        return
    saved = {s: signal.getsignal(s) for s in stops}
    try:
        sys.unraisablehook = lost
        for s in stops:
            if s != signal.SIGINT or saved[s] is signal.default_int_handler:
                signal.signal(s, stop)
        yield
    finally:
        with lock:
            active = False
        sys.unraisablehook = chained
        _checkpoint()  # a deferred interrupt still pending runs `stop` (a no-op) now
        for s, handler in saved.items():
            signal.signal(s, handler)


def _redeliver(signum: int) -> None:
    """Send ``signum`` again, to the main thread (where `stop` runs): a real signal,
    which wakes a main thread blocked in a wait (``select`` for an engine's hello,
    up to the start-up timeout). ``_thread.interrupt_main`` only marks the
    handler as due: it ran when that wait ended on its own, and a Ctrl-C during
    an engine's start was acted on seconds later, or lost to the match's end."""
    signal.pthread_kill(threading.main_thread().ident or 0, signum)


def _checkpoint() -> None:
    """Nothing: calling a Python function lets pending signal handlers run."""


_RETRY_S = 0.02


def _spawn_code() -> frozenset[CodeType]:
    """The functions within which an engine process exists that no seat holds yet
    (from the fork until the seat has its transport)."""
    from .. import engines, players
    from ..engines import pipe, pty

    found = []
    for owner, name in (
        (pipe.PipeTransport, "__init__"),
        (pty.PtyTransport, "__init__"),
        (engines, "start_engine"),
        (getattr(players, "EngineSeat", None), "open"),
    ):
        code = getattr(getattr(owner, name, None), "__code__", None)
        if isinstance(code, CodeType):  # (one that is gone is no reason to fail here)
            found.append(code)
    return frozenset(found)


def _starting_an_engine(frame: FrameType | None) -> bool:
    """Whether ``frame`` (where a signal came) is within the start of an engine."""
    spawn = _spawn_code()
    while frame is not None:
        if frame.f_code in spawn:
            return True
        frame = frame.f_back
    return False


def exit_code_for(outcome: MatchOutcome) -> ExitCode:
    """A finished match (any winner or a draw) is a success."""
    from ..outcome import AbortCause, EndReason

    if outcome.reason is EndReason.STARTUP:
        return ExitCode.STARTUP
    if outcome.reason is EndReason.ABORTED:
        return (
            ExitCode.INTERRUPTED
            if outcome.end.cause is AbortCause.INTERRUPTED
            else ExitCode.ABORTED
        )
    return ExitCode.OK


# The options the commands share (types, names and help in one place).
SeedOption = Annotated[
    int | None,
    typer.Option(
        metavar="N",
        help="Seed of the deals (default: random, and shown so the match can be replayed).",
        show_default=False,
    ),
]
BankOption = Annotated[
    float, typer.Option(metavar="SECONDS", help="Each player's bank for the match, in s.")
]
DelayOption = Annotated[
    float, typer.Option(metavar="SECONDS", help="Delay per genuine turn, in s.")
]
TranscriptOption = Annotated[
    Path | None,
    typer.Option(
        metavar="FILE",
        help="Write the JSONL transcript here (an existing file only with --force).",
        dir_okay=False,
    ),
]
MaxRoundsOption = Annotated[
    int | None,
    typer.Option(metavar="N", help="Stop after N rounds and adjudicate by balance.", min=1),
]
TransportOption = Annotated[
    Literal["pipe", "pty"],
    typer.Option(
        metavar="[pipe|pty]", help="pipe, or pty for engines that buffer stdout on pipes."
    ),
]
IllegalOption = Annotated[
    Literal["reject", "forfeit"],
    typer.Option(
        metavar="[reject|forfeit]",
        help="reject: an illegal action gets an error reply; forfeit: it loses.",
    ),
]
StartupOption = Annotated[
    float,
    typer.Option(
        metavar="SECONDS", help="Time an engine has for its hello, in s (not the game clock)."
    ),
]
EngineOption = Annotated[
    list[str] | None,
    typer.Option(
        "--engine",
        "-e",
        metavar='"cmd=... name=..."',
        help="An engine, cutechess style (repeatable): cmd=COMMAND name=NAME dir=FOLDER "
        "arg=ARG option.K=V env.K=V tc=BANK+DELAY transport=pipe|pty "
        "sandbox=auto|off|strict (its own jail: the stricter wins) dir_writable=yes|no.",
        show_default=False,
    ),
]
EachOption = Annotated[
    list[str] | None,
    typer.Option(
        metavar='"option.K=V ..."',
        help="Settings every engine shares (same keys as --engine; an engine's own win).",
        show_default=False,
    ),
]
DebugOption = Annotated[
    bool,
    typer.Option(
        "--debug",
        metavar="",
        help="Print every line to and from each engine on stderr, with the time and its name.",
    ),
]
FreezeIdleOption = Annotated[
    bool | None,
    typer.Option(
        "--freeze-idle/--ponder",
        metavar="",
        show_default="on under --sandbox strict, else off",
        help="Stop the engine that is not on move (its jail's freezer, else SIGSTOP to its "
        "processes) and resume it when it is sent its next request, so it cannot think or "
        "take CPU on the opponent's time; its clock is charged from the request as always. "
        "The transcript's idle_cpu_ns (its CPU time while not on move) is then about 0. On "
        "by default under --sandbox strict (pondering, as in chess runners, only when asked "
        "for: --ponder). Example: bidref match ./a ./b --freeze-idle",
    ),
]


def freeze_idle_of(given: bool | None, sandbox: str) -> bool:
    """``--freeze-idle``/``--ponder`` as given, else on exactly under ``--sandbox strict``.

    >>> freeze_idle_of(None, "strict"), freeze_idle_of(None, "auto")
    (True, False)
    >>> freeze_idle_of(False, "strict")
    False
    """
    return given if given is not None else sandbox == "strict"


ForceOption = Annotated[
    bool,
    typer.Option("--force", metavar="", help="Overwrite existing transcript and log files."),
]
JsonOption = Annotated[
    bool,
    typer.Option(
        "--json", metavar="", help="Print one JSON result object instead of the live display."
    ),
]
