"""What the match-playing commands (`match`, `play`) share: exit codes, the
options that set up a match, and their checks."""

from __future__ import annotations

import _thread
import contextlib
import math
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from types import CodeType, FrameType
from typing import Annotated

import typer

from ..referee import MatchOutcome
from ..rules import SECOND

# Exit codes: a finished match (any winner or a draw) is a success.
EXIT_OK = 0
EXIT_BAD_ARGS = 2
EXIT_STARTUP = 3
EXIT_ABORTED = 4
EXIT_INTERRUPTED = 130


def transcript_problem(path: Path | None) -> str | None:
    """Why the transcript cannot be written at ``path`` (checked before any engine
    starts or the terminal is taken); None if it can."""
    if path is None:
        return None
    folder = path.parent
    if path.is_dir():
        why = "it is a folder"
    elif not folder.is_dir():
        why = f"there is no folder {str(folder)!r}"
    elif not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        why = "it is not writable"
    else:
        return None
    return (
        f"--transcript {str(path)!r}: cannot write it there ({why}); give a file in a "
        "folder you can write, e.g. --transcript t.jsonl"
    )


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
                _thread.interrupt_main(signal.Signals(signum))  # runs `stop` in the main thread

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
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set in the main thread
        return
    saved = {s: signal.getsignal(s) for s in stops}
    try:
        for s in stops:
            if s != signal.SIGINT or saved[s] is signal.default_int_handler:
                signal.signal(s, stop)
        yield
    finally:
        with lock:
            active = False
        _checkpoint()  # a deferred interrupt still pending runs `stop` (a no-op) now
        for s, handler in saved.items():
            signal.signal(s, handler)


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


def exit_code_for(outcome: MatchOutcome) -> int:
    if outcome.reason == "startup":
        return EXIT_STARTUP
    if outcome.reason == "aborted":
        return EXIT_INTERRUPTED if outcome.detail.get("cause") == "interrupted" else EXIT_ABORTED
    return EXIT_OK


SeedOption = Annotated[
    int | None,
    typer.Option(
        help="Seed of the deals (default: random, and shown so the match can be replayed)."
    ),
]
BankOption = Annotated[float, typer.Option(help="Each player's bank for the match, in s.")]
DelayOption = Annotated[float, typer.Option(help="Delay per genuine turn, in s.")]
TranscriptOption = Annotated[
    Path | None, typer.Option(help="Write the JSONL transcript here.", dir_okay=False)
]
MaxRoundsOption = Annotated[
    int | None, typer.Option(help="Stop after N rounds and adjudicate by balance.", min=1)
]
TransportOption = Annotated[
    str, typer.Option(help="pipe, or pty for engines that buffer stdout on pipes.")
]
StartupOption = Annotated[
    float, typer.Option(help="Time an engine has for its hello, in s (not the game clock).")
]


def clock_args_problem(transport: str, bank: float, delay: float, startup: float) -> str | None:
    """What is wrong with these options, said so the user can fix it; None if nothing."""
    if transport not in ("pipe", "pty"):
        return f"--transport {transport!r}: use pipe or pty"
    for name, value in (("bank", bank), ("delay", delay), ("startup", startup)):
        if not math.isfinite(value * SECOND):
            return f"--{name} {value:g}: give a finite number of seconds, e.g. --{name} 10"
    if bank < 0 or delay < 0 or startup <= 0:
        return (
            f"--bank {bank:g} / --delay {delay:g} / --startup {startup:g}: "
            "give bank and delay >= 0 and a positive start-up timeout"
        )
    return None
