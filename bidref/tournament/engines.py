"""Turning engine arguments into tournament engines with unique names.

An argument is what ``bidref match`` takes (a command line, a program, a ``.py``
file or an engine file), optionally prefixed with a name: ``greedy=./engine.py``;
or a cutechess-style ``--engine "cmd=... name=... tc=..."`` string, with
``--each`` for what all engines share (see :mod:`bidref.engines.spec`). The spec
is resolved once, with relative paths made absolute, so the tournament can be
resumed from another folder and run on cluster workers. Engines of the same
name are all numbered (``node-1``, ``node-2``), as everywhere in bidref.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from bidref.engines.spec import EngineSpec, EngineSpecError, resolve_engines
from bidref.rules.clock import MILLISECOND

from .model import EngineEntry

_NAMED = re.compile(r"^([A-Za-z0-9_.+-]+)=(.+)$")


class EngineArgError(ValueError):
    """An engine argument that cannot be used (the message says the fix)."""


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

    ``check``: refuse programs that are not there or not executable (real engines).
    """
    named = [split_name(a) for a in args]
    for arg, (_, text) in zip([*args], named, strict=True):
        if text.startswith("listen://"):
            raise EngineArgError(
                f"{arg!r}: a network seat plays one match (bidref match or check-engine); "
                "tournaments take local engines for now (docs/network.md)"
            )
    try:
        found = resolve_engines(
            [text for _, text in named],
            engine_texts,
            each_texts,
            named=[n for n, _ in named],
            check=check,
        )
    except EngineSpecError as exc:
        raise EngineArgError(str(exc)) from None
    givens = [*args, *engine_texts]
    return [entry_of(spec, given, base) for (spec, _), given in zip(found, givens, strict=True)]
