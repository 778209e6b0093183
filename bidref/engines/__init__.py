"""Engine processes: transports (pipe, pty), line framing, start and teardown.

Layers, from the bottom: :mod:`.framing` splits bytes into lines;
:mod:`.transport` defines the :class:`~.transport.Transport` interface and
the stamped line types; :mod:`.io` reads and writes without blocking and waits
for all the engines of a match at once; :mod:`.pipe` and :mod:`.pty` are the
two transports; :mod:`.spec` says how to start an engine.
"""

from __future__ import annotations

import time
from pathlib import Path

from .framing import MAX_LINE, LineFramer, LineTooLong
from .io import IoGroup
from .pipe import PipeTransport
from .pty import PtyTransport
from .spec import EngineSpec, EngineSpecError, load_engine_file, resolve_engine, start_hint
from .transport import (
    Clock,
    EngineStartError,
    Eof,
    ExitInfo,
    Incoming,
    JailStartError,
    Line,
    Overlong,
    Transport,
    WriteError,
)


def start_engine(
    spec: EngineSpec,
    transport: str = "pipe",
    *,
    clock: Clock = time.monotonic_ns,
    stderr_log: Path | None = None,
    max_line: int = MAX_LINE,
    group: IoGroup | None = None,
) -> Transport:
    """Start ``spec`` over ``transport`` ("pipe" or "pty"). Engines of one match
    share a ``group``: waiting for one of them moves the I/O of all."""
    cls: type[PipeTransport] | type[PtyTransport]
    if transport == "pipe":
        cls = PipeTransport
    elif transport == "pty":
        cls = PtyTransport
    else:
        raise ValueError(f"unknown transport {transport!r}: use pipe or pty")
    from ..sandbox.jail import open_jail
    from ..sandbox.policy import JailSetupError, SandboxError

    try:
        jail = open_jail(spec.command, spec.cwd, spec.jail_config(), spec.env)
    except JailSetupError as e:
        raise JailStartError(f"engine {spec.name!r}: {e}") from None
    except (SandboxError, OSError) as e:
        raise EngineStartError(f"cannot jail engine {spec.name!r}: {e}") from None
    try:
        return cls(
            spec.command if jail is None else jail.argv,
            cwd=spec.cwd if jail is None else jail.cwd,
            env=dict(spec.env) if jail is None else jail.env,
            clock=clock,
            stderr_log=stderr_log,
            max_line=max_line,
            group=group,
            jail=jail,
        )
    except EngineStartError as e:
        raise EngineStartError(f"{e}{start_hint(spec)}") from None
    except BaseException:  # (an interrupt, a log that cannot be made): no group left behind
        if jail is not None:
            jail.close()
        raise


__all__ = [
    "MAX_LINE",
    "Clock",
    "EngineSpec",
    "EngineSpecError",
    "EngineStartError",
    "Eof",
    "ExitInfo",
    "Incoming",
    "IoGroup",
    "JailStartError",
    "Line",
    "LineFramer",
    "LineTooLong",
    "Overlong",
    "PipeTransport",
    "PtyTransport",
    "Transport",
    "WriteError",
    "load_engine_file",
    "resolve_engine",
    "start_engine",
]
