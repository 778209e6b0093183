"""Turning engine arguments into tournament engines with unique names.

An argument is what ``bidref match`` takes (a command line, a program, a ``.py``
file or an engine file), optionally prefixed with a name: ``greedy=./engine.py``;
or a cutechess-style ``--engine "cmd=... name=... tc=..."`` string, with
``--each`` for what all engines share (see :mod:`bidref.engines.spec`). The spec
is resolved once, with relative paths made absolute, so the tournament can be
resumed from another folder and run on cluster workers. Engines of the same
name are all numbered (``node-1``, ``node-2``), as everywhere in bidref.

An argument ``listen://HOST:PORT`` (or ``NAME=listen://HOST:PORT``; unnamed it is
``remote``) is a network engine: its command is that address, and the
tournament listens there for its client (:mod:`bidref.tournament.remote`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bidref.engines.spec import EngineSpec, EngineSpecError, resolve_engines, unique_names
from bidref.rules.clock import MILLISECOND

from .model import EngineEntry
from .shipping import fingerprint

_NAMED = re.compile(r"^([A-Za-z0-9_.+-]+)=(.+)$")
LISTEN = "listen://"


def is_remote(entry: EngineEntry) -> bool:
    """A network engine: one that connects to the tournament (``listen://``)."""
    return len(entry.command) == 1 and entry.command[0].startswith(LISTEN)


EngineArgError = EngineSpecError
"""Deprecated: the same error as :class:`~bidref.engines.spec.EngineSpecError`
(issue 30 folded the two engine-argument errors into one); for one release."""


def _absolute(part: str, base: Path) -> str:
    if os.path.isabs(part) or (os.sep not in part and not part.endswith(".py")):
        return part
    candidate = base / part
    return str(candidate.resolve()) if candidate.exists() else part


def split_name(arg: str) -> tuple[str | None, str]:
    """``NAME=engine`` as (NAME, engine); (None, arg) when it has no name."""
    match = _NAMED.match(arg)
    if match and not Path(arg).exists() and not arg.startswith(("cmd=", "name=")):
        return match.group(1), match.group(2)
    return None, arg


def entry_of(spec: EngineSpec, given: str, base: Path | None = None) -> EngineEntry:
    """A resolved engine as a tournament engine, with absolute paths."""
    base = base or Path.cwd()
    cwd = spec.cwd
    command = tuple(_absolute(p, Path(cwd) if cwd else base) for p in spec.command)
    tc = spec.time_control
    return EngineEntry(
        spec.name,
        given,
        command,
        cwd,
        dict(spec.env),
        dict(spec.options),
        None if tc is None else (tc.bank // MILLISECOND, tc.delay // MILLISECOND),
        spec.transport,
        sandbox_level=spec.sandbox_level,
        dir_writable=spec.dir_writable,
    )


def resolve_entries(
    args: Sequence[str],
    base: Path | None = None,
    *,
    engine_texts: Sequence[str] = (),
    each_texts: Sequence[str] = (),
    check: bool = False,
) -> list[EngineEntry]:
    """All engines: positional arguments (``NAME=`` allowed), then ``--engine`` ones.

    ``check``: refuse programs that are not there or not executable (real engines),
    and record the sha256 of each engine's files (:mod:`.shipping`).
    """
    named = [split_name(a) for a in args]
    remote: dict[int, EngineEntry] = {}
    for i, (arg, (name, text)) in enumerate(zip([*args], named, strict=True)):
        if text.startswith(LISTEN):
            remote[i] = _remote_entry(arg, name, text)
    local = [i for i in range(len(args)) if i not in remote]
    found = resolve_engines(
        [named[i][1] for i in local],
        engine_texts,
        each_texts,
        named=[named[i][0] for i in local],
        check=check,
    )
    givens = [*(args[i] for i in local), *engine_texts]
    resolved = iter(
        [entry_of(spec, given, base) for (spec, _), given in zip(found, givens, strict=True)]
    )
    entries = [remote[i] if i in remote else next(resolved) for i in range(len(args))]
    entries += list(resolved)
    names = unique_names([e.name for e in entries])
    entries = [
        e if e.name == n else replace(e, name=n) for e, n in zip(entries, names, strict=True)
    ]
    if not check:
        return entries
    # identified by content once, now: workers check it before each match (an
    # unreadable file is an EngineFilesError, a UsageError as it is)
    return [fingerprint(e) for e in entries]


def _remote_entry(arg: str, name: str | None, text: str) -> EngineEntry:
    from bidref.net.framing import ListenAddress

    ListenAddress.parse(text)  # NetSpecError: an EngineSpecError
    return EngineEntry(name or "remote", arg, (text,))
