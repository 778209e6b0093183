"""One options model for every command: engines, clocks, output paths, and their checks.

Every command turns its raw option values into checked values here *before
anything starts* (no engine, no terminal, no file). A value that cannot be used
raises a :class:`~bidref.errors.UsageError` (:class:`Refused`, or the narrow
error of the layer that found it, e.g. ``EngineSpecError``) with a message that
quotes it and names the fix; the CLI's one handler prints it and exits with
status 2 (:func:`refusal`), never a traceback.

Engines come from positional arguments (a program, a ``.py`` file, an engine
file or a quoted command line) and from cutechess-style ``--engine
"cmd=... name=... tc=..."`` options, with ``--each`` for what they share (see
:mod:`bidref.engines.spec`). Their names are made unique the same way
everywhere (``node-1``, ``node-2``).

This module is imported by the command functions only (not at start-up), so it
may import the rules and the engine specs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import typer

from bidref.errors import UsageError

from ..engines.spec import (
    EngineSpec,
    gives_time,
    parse_seconds,
    parse_transport,
    resolve_engines,
)
from ..rules.clock import SECOND, TimeControl
from .exit_codes import ExitCode


class Refused(UsageError, ValueError):  # ValueError: as before, for one release
    """An option value that cannot be used; the message quotes it and says the fix."""


def refusal(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr (as text, not rich markup, its control
    characters escaped: it may quote an entrant's file name); exit status 2."""
    from rich.console import Console
    from rich.text import Text

    from ..visible import visible

    Console(stderr=True, soft_wrap=True).print(
        Text.assemble(("error:", "red"), " ", visible(message, lines=True)), highlight=False
    )
    return typer.Exit(code=ExitCode.USAGE)


def seconds_value(flag: str, value: float) -> float:
    return parse_seconds(flag, value)


def clock(bank: float, delay: float) -> TimeControl:
    """The match clock of ``--bank``/``--delay``: finite, >= 0, not both 0."""
    b, d = seconds_value("--bank", bank), seconds_value("--delay", delay)
    tc = TimeControl(round(b * SECOND), round(d * SECOND))
    return gives_time(tc, f"--bank {bank:g} --delay {delay:g}", "--bank 10 --delay 0.5")


def startup_ns(startup: float) -> int:
    """The start-up timeout (``--startup``): a positive, finite number of seconds."""
    value = seconds_value("--startup", startup)
    if value <= 0:
        raise Refused(f"--startup {startup:g}: give a positive number of seconds, e.g. 10")
    return round(value * SECOND)


def transport(value: str) -> Literal["pipe", "pty"]:
    return parse_transport(value)


def output_file(flag: str, path: Path | None, *, force: bool) -> Path | None:
    """A file this run will write: its folder must exist and be writable, and an
    existing file is only replaced with ``--force``."""
    if path is None:
        return None
    folder = path.parent
    if path.is_dir():
        why = "it is a folder"
    elif not folder.is_dir():
        why = f"there is no folder {str(folder)!r}"
    elif not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        why = "it is not writable"
    elif path.exists() and not force:
        raise Refused(
            f"{flag} {str(path)!r} already exists: add --force to overwrite it, or give "
            "another file"
        )
    else:
        return path
    raise Refused(
        f"{flag} {str(path)!r}: cannot write it there ({why}); give a file in a folder "
        f"you can write, e.g. {flag} t.jsonl"
    )


def output_folder(flag: str, path: Path | None) -> Path | None:
    """A folder this run writes files into, made now if missing."""
    if path is None:
        return None
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise Refused(
            f"{flag} {str(path)!r}: cannot create it ({e.strerror or e}); give another folder"
        ) from None
    if not os.access(path, os.W_OK):
        raise Refused(f"{flag} {str(path)!r}: the folder is not writable; give another folder")
    return path


def stderr_logs(folder: Path | None, names: Sequence[str], *, force: bool) -> None:
    """The match's stderr logs (``A-name.stderr.log``) must not overwrite old ones."""
    if folder is None:
        return
    for seat, name in zip("AB", names, strict=False):
        log = folder / f"{seat}-{file_name(name)}.stderr.log"
        if log.exists() and not force:
            raise Refused(
                f"--stderr-dir {str(folder)!r}: {log.name} is already there: add --force "
                "to overwrite it, or give another folder"
            )


def file_name(name: str) -> str:
    """``name`` as one file name: characters other than letters, digits, ``.``,
    ``-`` and ``_`` become ``_`` (as the referee names stderr logs)."""
    import re

    return re.sub(r"[^\w.-]", "_", name)


@dataclass(frozen=True)
class EngineChoice:
    """One engine as the user gave it, resolved: what to start and what they typed."""

    spec: EngineSpec
    given: str  # the positional argument or the --engine string


def engines(
    positional: Sequence[str],
    engine_opts: Sequence[str],
    each_opts: Sequence[str] = (),
    *,
    check: bool = True,
    named: Sequence[str | None] | None = None,
) -> list[EngineChoice]:
    """The engines of a command (see :func:`bidref.engines.spec.resolve_engines`)."""
    found = resolve_engines(positional, engine_opts, each_opts, named=named, check=check)
    return [EngineChoice(spec, text) for spec, text in found]


def two_engines(choices: list[EngineChoice], command: str) -> tuple[EngineSpec, EngineSpec]:
    if len(choices) != 2:
        raise Refused(
            f"{command} needs two engines, got {len(choices)}: give two, e.g. bidref "
            f'{command} ./engine_a ./engine_b, or --engine "cmd=./engine_a" twice'
        )
    return choices[0].spec, choices[1].spec


def seat_clocks(
    engines: tuple[EngineSpec, EngineSpec], base: TimeControl
) -> tuple[TimeControl, TimeControl] | None:
    """Each seat's clock when an engine has its own ``tc=`` (a handicap); else None."""
    if engines[0].time_control is None and engines[1].time_control is None:
        return None
    return (engines[0].time_control or base, engines[1].time_control or base)


def describe_clock(tc: TimeControl) -> str:
    return f"{tc.bank / SECOND:g}+{tc.delay / SECOND:g} s"
