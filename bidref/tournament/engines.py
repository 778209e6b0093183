"""Turning engine arguments into tournament engines with unique names.

An argument is what ``bidref match`` takes (a command line, a program, a ``.py``
file or an engine file), optionally prefixed with a name: ``greedy=./engine.py``.
The spec is resolved once, with relative paths made absolute, so the tournament
can be resumed from another folder and run on cluster workers.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path

from bidref.engines.spec import EngineSpecError, resolve_engine

from .model import EngineEntry

_NAMED = re.compile(r"^([A-Za-z0-9_.+-]+)=(.+)$")


class EngineArgError(ValueError):
    """An engine argument that cannot be used (the message says the fix)."""


def _absolute(part: str, base: Path) -> str:
    if os.path.isabs(part) or (os.sep not in part and not part.endswith(".py")):
        return part
    candidate = base / part
    return str(candidate.resolve()) if candidate.exists() else part


def resolve_entry(arg: str, base: Path | None = None) -> EngineEntry:
    """One engine argument as a tournament engine (name not yet made unique)."""
    base = base or Path.cwd()
    name: str | None = None
    text = arg
    match = _NAMED.match(arg)
    if match and not Path(arg).exists():
        name, text = match.group(1), match.group(2)
    if text.startswith("listen://"):
        raise EngineArgError(
            f"{arg!r}: a network seat plays one match (bidref match or check-engine); "
            "tournaments take local engines for now (docs/network.md)"
        )
    try:
        spec = resolve_engine(text)
    except EngineSpecError as exc:
        raise EngineArgError(str(exc)) from None
    cwd = spec.cwd
    command = tuple(_absolute(p, Path(cwd) if cwd else base) for p in spec.command)
    return EngineEntry(name or spec.name, arg, command, cwd, dict(spec.env), dict(spec.options))


def resolve_entries(args: Sequence[str], base: Path | None = None) -> list[EngineEntry]:
    """All engine arguments, with repeated names made unique (``name``, ``name#2``, ...)."""
    entries = [resolve_entry(a, base) for a in args]
    seen: dict[str, int] = {}
    out: list[EngineEntry] = []
    for e in entries:
        count = seen.get(e.name, 0) + 1
        seen[e.name] = count
        name = e.name if count == 1 else f"{e.name}#{count}"
        out.append(EngineEntry(name, e.spec, e.command, e.cwd, e.env, e.options))
    names = [e.name for e in out]
    if len(set(names)) != len(names):
        raise EngineArgError(f"engine names {names} are not unique: name them, e.g. fast=./engine")
    return out


def check_programs(entries: Sequence[EngineEntry]) -> None:
    """Refuse engines whose program cannot be found here, before any match is played.

    A program named without a folder must be on ``PATH`` (the engine's own, if it
    sets one); a path must be an executable file.
    """
    for e in entries:
        program = e.command[0] if e.command else ""
        if os.sep in program:
            path = Path(e.cwd or ".") / program
            found = path.is_file() and os.access(path, os.X_OK)
        else:
            found = shutil.which(program, path=e.env.get("PATH")) is not None
        if not found:
            raise EngineArgError(
                f"engine {e.spec!r}: program {program!r} not found (not on PATH, or not an "
                "executable file); give its path, e.g. ./engine, or fix the name"
            )
