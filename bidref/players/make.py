"""The engine seats of a match, made by the commands (match, tournaments).

:func:`engine_seats` builds what ``run_match`` would build by default, plus
what the command line can ask for: each engine's own transport
(``--engine "... transport=pty"``) and a debug log of every line
(``--debug``, see :mod:`.tap`). The seats are passed to ``run_match(seats=...)``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from ..engines import Clock, EngineSpec
from ..engines.framing import MAX_LINE
from . import EngineSeat, Seat
from .tap import DebugLog, TappedSeat


def stderr_log_name(seat: int, name: str) -> str:
    """``A-name.stderr.log``: the name made one safe file name."""
    safe = re.sub(r"[^\w.-]", "_", name)
    return f"{'AB'[seat]}-{safe}.stderr.log"


def engine_seats(
    engines: tuple[EngineSpec, EngineSpec],
    transport: str,
    *,
    clock: Clock = time.monotonic_ns,
    stderr_dir: Path | None = None,
    stderr_prefix: str = "",
    debug: DebugLog | None = None,
    max_line: int = MAX_LINE,
) -> list[Seat]:
    """One engine seat per engine, on the engine's transport or else ``transport``.

    ``stderr_dir``: keep each engine's stderr in ``stderr_prefix + A-name.stderr.log``
    there. ``debug``: write every line to and from each engine to that log.
    """
    seats: list[Seat] = []
    for i, e in enumerate(engines):
        seat: Seat = EngineSeat(
            e.at_seat(i),  # each seat its own account and cores
            transport=e.transport or transport,
            clock=clock,
            stderr_log=None
            if stderr_dir is None
            else stderr_dir / f"{stderr_prefix}{stderr_log_name(i, e.name)}",
            max_line=max_line,
        )
        if debug is not None:
            seat = TappedSeat(seat, debug, f"{e.name}({'AB'[i]})")
        seats.append(seat)
    return seats
