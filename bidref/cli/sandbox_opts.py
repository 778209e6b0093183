"""The engine jail's options (issue 28), declared once for every command that
starts engines (match, tournament, check-engine, play, connect).

A command is decorated with :func:`sandbox_options` (under ``@app.command``):
the eight options below join its parameters, and the function receives them
as one ``jail: JailArgs``. :meth:`JailArgs.config` checks them and
:func:`jail_engines` attaches the jail to every engine and says on stderr what
jail this machine gives (or refuses, exit 2, under ``--sandbox strict`` when a
protection is missing). docs/match.md
"Containment" says what each level stops.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from .grouped_options import grouped

if TYPE_CHECKING:
    from ..engines.spec import EngineSpec
    from ..sandbox import Level, SandboxConfig

PANEL = "Engine jail (docs/match.md, Containment)"

SandboxOption = Annotated[
    str,
    typer.Option(
        metavar="[auto|off|strict]",
        help="auto: the strongest jail this machine allows (said on stderr); strict: refuse "
        "to start without namespaces, own accounts, cgroup limits and cpusets (root + "
        "bubblewrap); off: no jail.",
        rich_help_panel=PANEL,
    ),
]
MemoryOption = Annotated[
    str,
    typer.Option(metavar="SIZE", help="Memory per engine, e.g. 512M or 2G.", rich_help_panel=PANEL),
]
MaxProcsOption = Annotated[
    int,
    typer.Option(metavar="N", help="Processes and threads per engine.", rich_help_panel=PANEL),
]
MaxFilesOption = Annotated[
    int,
    typer.Option(metavar="N", help="Open files per engine.", rich_help_panel=PANEL),
]
MaxFileSizeOption = Annotated[
    str,
    typer.Option(metavar="SIZE", help="Largest file an engine may write.", rich_help_panel=PANEL),
]
TmpSizeOption = Annotated[
    str,
    typer.Option(metavar="SIZE", help="Size of each engine's private /tmp.", rich_help_panel=PANEL),
]
CpusOption = Annotated[
    int | None,
    typer.Option(
        metavar="N",
        help="Give each seat N cores of its own (a cpuset it cannot leave; root). Default: "
        "none under auto, 1 under strict.",
        rich_help_panel=PANEL,
    ),
]
DirWritableOption = Annotated[
    bool,
    typer.Option(
        "--engine-dir-writable",
        help="Let each engine write in its own folder (read-only by default); per engine: "
        '--engine "... dir_writable=yes".',
        rich_help_panel=PANEL,
    ),
]

S = TypeVar("S", bound="Sequence[EngineSpec]")


@dataclass(frozen=True)
class JailArgs:
    """The jail options as given (checked by :meth:`config`)."""

    sandbox: SandboxOption = "auto"
    memory: MemoryOption = "1G"
    max_procs: MaxProcsOption = 64
    max_files: MaxFilesOption = 256
    max_file_size: MaxFileSizeOption = "64M"
    tmp_size: TmpSizeOption = "64M"
    cpus: CpusOption = None
    engine_dir_writable: DirWritableOption = False

    def config(self, hide: Sequence[Path | None] = ()) -> SandboxConfig:
        """The checked jail settings; ``hide``: the command's own outputs (transcript,
        results, logs), never visible to an engine. Raises ``SandboxError`` (a
        ``UsageError``: said by the CLI's one handler, exit 2)."""
        from ..sandbox.policy import Limits, SandboxConfig, parse_count, parse_level, parse_size

        limits = Limits(
            memory=parse_size(self.memory, "--memory"),
            max_procs=parse_count(self.max_procs, "--max-procs", 4, 100_000),
            max_files=parse_count(self.max_files, "--max-files", 16, 1_000_000),
            max_file_size=parse_size(self.max_file_size, "--max-file-size"),
            tmp_size=parse_size(self.tmp_size, "--tmp-size"),
            cpus=None if self.cpus is None else parse_count(self.cpus, "--cpus", 1, 1024),
        )
        level = parse_level(self.sandbox)
        folders = []
        for p in hide:
            if p is not None:
                p = p.resolve()
                folders.append(str(p if p.is_dir() else p.parent))
        return SandboxConfig(level, limits, self.engine_dir_writable, tuple(dict.fromkeys(folders)))


JAIL_DEFAULTS = JailArgs()  # what a command's ``jail`` parameter says by default
F = TypeVar("F", bound="Any")


def sandbox_options(fn: F) -> F:
    """Give the command ``fn`` the jail options (see the module docstring): they
    are declared once, on :class:`JailArgs`, and reach ``fn`` as ``jail``."""
    decorated: F = grouped(JailArgs, "jail")(fn)
    return decorated


def _real_stderr() -> bool:
    """Whether stderr is a real file (a terminal, a pipe, a log), not a captured
    stream that tests read together with stdout (``--json`` stays parseable)."""
    try:
        sys.stderr.fileno()
    except (OSError, ValueError, AttributeError):
        return False
    return True


def jail_engines(specs: S, config: SandboxConfig, *, quiet: bool = False) -> S:
    """``specs`` with ``config`` attached; the jail announced on stderr (unless
    ``quiet``). Raises ``SandboxError`` when it cannot be given (strict)."""
    from ..sandbox.policy import plan

    for s in specs:  # an engine's own stricter level that cannot be given: named
        own = config.stricter(s.sandbox_level)
        if own.level != config.level:
            with _named(s.name, s.sandbox_level):
                plan(own)
    levels = [config.stricter(s.sandbox_level) for s in specs] or [config]
    strongest = max(levels, key=lambda c: ("off", "auto", "strict").index(c.level))
    line = _jail_line(strongest)
    _close_files_to_seats(strongest)
    if not quiet and _real_stderr():
        print(line, file=sys.stderr, flush=True)
    out = [replace(s, sandbox=config) for s in specs]
    return type(specs)(out) if isinstance(specs, tuple) else out  # type: ignore[return-value]


@contextmanager
def _named(name: str, level: Level | None) -> Iterator[None]:
    """A jail an engine's own ``sandbox=`` asks for and this machine cannot give:
    refused with the engine's name (still a ``SandboxError``)."""
    from ..sandbox.policy import SandboxError

    try:
        yield
    except SandboxError as e:
        raise SandboxError(f"engine {name!r} asks for sandbox={level}: {e}") from None


def _jail_line(config: SandboxConfig) -> str:
    """What jail ``config`` gets here, in one line (``sandbox: ...``). Raises
    ``SandboxError`` when it cannot be given (strict)."""
    from ..sandbox.policy import machine, plan, seat_cores

    p = plan(config)
    cpus = config.cpus()
    cores = (
        tuple(",".join(map(str, seat_cores(cpus, seat, machine().cores))) for seat in (0, 1))
        if cpus
        else ()
    )
    return p.describe(config, cores)


def _close_files_to_seats(config: SandboxConfig) -> None:
    """Under an own account per seat, make the referee's files from now on
    (transcripts, results, logs) closed to the seats' accounts by their modes
    too (umask 077), not only by the jail's mount namespace."""
    from ..sandbox.policy import plan

    if "account" in plan(config).active:
        os.umask(os.umask(0) | 0o077)


def announce(config: SandboxConfig, own: Sequence[tuple[str, Level | None]] = ()) -> list[str]:
    """Say (or refuse) the jail of a command whose engines are not resolved into
    specs (tournaments): the command's, then, for each ``(name, level)`` in
    ``own`` stricter than it (an engine's own ``sandbox=``), that engine's.
    Nothing is said unless every one can be given. Returns the lines said (the
    results header keeps them)."""
    lines = [_jail_line(config)]
    _close_files_to_seats(config)
    for name, level in own:
        stricter = config.stricter(level)
        if stricter.level != config.level:
            with _named(name, level):
                line = _jail_line(stricter).removeprefix("sandbox: ")
            _close_files_to_seats(stricter)
            lines.append(f"sandbox of engine {name!r} (its own sandbox={level}): {line}")
    if _real_stderr():
        print("\n".join(lines), file=sys.stderr, flush=True)
    return lines
