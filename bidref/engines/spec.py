"""What an engine is: a command line, or a small engine file.

An engine argument on the command line is resolved by :func:`resolve_engine`:

- a ``.toml`` or ``.json`` file: an engine file (below);
- a ``.py`` file: run by the same Python that runs bidref (``sys.executable``);
- any other existing file: run as a program (it must be executable); a file
  named without a folder (``engine``) is run from the current folder
  (``./engine``), never looked up on ``PATH``;
- a folder: the engine in it (:func:`engine_in_folder`): its engine file
  ``engine.toml``/``engine.json``, else its program ``engine`` or ``engine.*``
  (``engine.py``, ``engine.js``, ...), else its only executable file;
- otherwise: a command line, split like a shell would (``"python3 my_bot.py --fast"``).

A path that does not exist is refused with what exactly is missing, the names
nearby that it may have meant, and, for a program built from a C file beside
it (the C sample engines), how to build it.

An engine file (TOML shown; JSON has the same keys)::

    name = "greedy"                       # shown in results (default: from the file name)
    command = ["python3", "engine.py"]    # or one string, split like a shell would
    cwd = "."                             # relative to the engine file (default: its folder);
                                          # never outside that folder
    env = { BOT_DEPTH = "3" }             # its variables (no LD_*, GCONV_PATH, ...: refused)
    options = { depth = 3 }               # sent to the engine in the referee's hello

A relative program path in ``command`` is taken relative to ``cwd``.

On the command line an engine can also be given cutechess-style, as one
``--engine`` string of ``key=value`` settings (split like a shell would, so a
value with spaces is quoted), parsed by :func:`parse_engine_args`::

    --engine "cmd=./engine name=fast dir=bots/fast arg=--quiet option.depth=3 tc=5+0.1"

Keys: ``cmd`` (what :func:`resolve_engine` takes: a program, a ``.py`` file, an
engine file or a quoted command line; relative to ``dir``), ``name``, ``dir``
(the engine's working folder), ``arg`` (one more argument, repeatable),
``option.K=V`` (sent in the hello; ``V`` is read as JSON when it can be, so
``option.depth=3`` is the number 3 and ``option.book=x.txt`` a string),
``env.K=V`` (added to the environment), ``tc=BANK+DELAY`` (seconds: this
engine's own clock, a handicap), ``transport=pipe|pty``, ``sandbox=auto|off|strict``
(this engine's jail level: the stricter of it and the command's ``--sandbox``)
and ``dir_writable=yes|no`` (its working folder writable inside the jail;
engine files take ``sandbox``, and ``dir_writable = false`` only: an engine file
may make its jail stricter, never wider). ``--each`` takes the
same keys for every engine; an engine's own setting wins.

Names: an engine is called by its ``name=``, else its engine file's ``name``,
else after the file it runs (``sample_engines/js_random/engine.js`` is
``js_random``, also behind an interpreter: ``node js/engine.js``), else after
its program. Engines that end up with the same name are all numbered:
``node-1``, ``node-2`` (:func:`unique_names`).
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import shlex
import shutil
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from bidref.errors import UsageError

from ..rules.clock import SECOND, TimeControl
from ..sandbox.environ import check as check_env
from ..sandbox.policy import Level, SandboxConfig, SandboxError, parse_level

TRANSPORTS = ("pipe", "pty")
# The longest bank or delay taken (seconds): more is a typo, and engines written
# in other languages must hold the milliseconds in 64-bit integers.
MAX_SECONDS = 1e6


class EngineSpecError(UsageError, ValueError):  # ValueError: as before, for one release
    """An engine argument or engine file that cannot be used; the message says why."""


@dataclass(frozen=True)
class EngineSpec:
    """How to start one engine. Picklable (for tournament workers)."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    # This engine's own clock (a handicap match) and transport; None: the match's.
    time_control: TimeControl | None = None
    transport: Literal["pipe", "pty"] | None = None
    # The command's jail (bidref.sandbox; None: none), and this engine's own
    # ``sandbox=`` level (the stricter one wins) and ``dir_writable=``.
    sandbox: SandboxConfig | None = None
    sandbox_level: Level | None = None
    dir_writable: bool | None = None

    def at_seat(self, seat: int) -> EngineSpec:
        """This engine in ``seat`` (its jail's own account and cores are the seat's)."""
        return self if self.sandbox is None else replace(self, sandbox=self.sandbox.for_seat(seat))

    def jail_config(self) -> SandboxConfig | None:
        """The jail this engine gets: the command's, made stricter by its own level."""
        base = self.sandbox
        if base is None:
            if self.sandbox_level in (None, "off"):
                return None
            base = SandboxConfig(level="off")
        config = base.stricter(self.sandbox_level)
        if self.dir_writable is not None:
            config = replace(config, dir_writable=self.dir_writable)
        return config

    def __post_init__(self) -> None:
        if not self.command:
            raise EngineSpecError(f"engine {self.name!r} has an empty command")

    def describe(self) -> dict[str, object]:
        d: dict[str, object] = {"name": self.name, "command": list(self.command), "cwd": self.cwd}
        if self.time_control is not None:  # recorded in the transcript header
            d["time_control"] = {
                "bank_ns": self.time_control.bank,
                "delay_ns": self.time_control.delay,
            }
        return d


def _name_from_path(p: Path) -> str:
    if p.stem.startswith("engine") and p.parent.name:
        return p.parent.name
    return p.stem


# Programs that run a script named after them: the engine is named after the script.
_INTERPRETER = re.compile(
    r"^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|sh|bash|dash|zsh|ruby|perl|php|lua"
    r"[0-9.]*|luajit|Rscript|julia|java|dotnet|guile|racket|sbcl|ocaml|elixir|escript)$"
)


def _name_from_command(parts: Sequence[str]) -> str:
    """The engine's name from its command: the program, or the script an
    interpreter runs (``node js/engine.js`` is ``js``'s engine)."""
    prog = Path(parts[0])
    if _INTERPRETER.match(prog.name):
        for part in parts[1:]:
            if not part.startswith("-") and Path(part).is_file():
                return _name_from_path(Path(part))
    return _name_from_path(prog) if prog.is_file() else prog.name


def _program_text(p: Path) -> str:
    """``p`` as a program to run: with its folder, so that a file of the current
    folder (``engine``, or ``./engine``, which ``Path`` shortens to ``engine``)
    is run from there, not looked up on ``PATH``."""
    text = str(p)
    return text if os.sep in text else os.path.join(os.curdir, text)


def _python_or_program(p: Path) -> tuple[str, ...]:
    if p.suffix == ".py":
        return (sys.executable, str(p))
    shown = _program_text(p)
    if not os.access(p, os.X_OK):
        raise EngineSpecError(
            f"{shown!r} is a file but not executable: run `chmod +x {shown}`, or give the "
            f'interpreter, e.g. "python3 {shown}"'
        )
    return (shown,)


ENGINE_FILES = ("engine.toml", "engine.json")


def engine_in_folder(folder: Path) -> EngineSpec:
    """The engine a folder holds: its engine file (``engine.toml`` or
    ``engine.json``), else its program ``engine``, ``engine.py`` or another
    executable ``engine.*``, else its only executable file."""
    for name in ENGINE_FILES:
        if (folder / name).is_file():
            return load_engine_file(folder / name)
    try:
        files = sorted(f for f in folder.iterdir() if f.is_file() and not f.name.startswith("."))
    except OSError as e:
        raise EngineSpecError(f"cannot read the folder {str(folder)!r}: {e.strerror}") from None
    # (a module beside the engine, such as __init__.py, is no program of its own)
    runnable = [f for f in files if f.name == "engine.py" or os.access(f, os.X_OK)]
    named = [f for f in runnable if f.stem == "engine"]
    plain = [f for f in named if f.name == "engine"]
    found = plain or named or runnable
    if len(found) == 1:
        return EngineSpec(_name_from_path(found[0]), _python_or_program(found[0]))
    shown = str(folder)
    if found:
        listed = ", ".join(f.name for f in found)
        raise EngineSpecError(
            f"the folder {shown!r} holds several programs ({listed}): give the engine's "
            f"own, e.g. {str(found[0])!r}, or put an engine.toml in the folder"
        )
    build = _build_hint(folder / "engine")
    raise EngineSpecError(
        f"the folder {shown!r} holds no engine (no engine.toml or engine.json, no program "
        "engine or engine.*, no executable file)"
        + (build or "; give the engine's program in it, or put an engine.toml in the folder")
    )


def _build_hint(program: Path) -> str:
    """For a missing program that a C file beside it builds: how to build it. The
    sample engines are built by their folder's Makefile (``make -C sample_engines``)."""
    source = program.with_name(program.name + ".c")
    if program.suffix or not source.is_file():
        return ""
    makefile = program.parent.parent / "Makefile"
    if makefile.is_file():
        return f"; it is built from {source.name}: run `make -C {program.parent.parent}` first"
    return f"; it is built from {source.name}: build it first, e.g. `cc -o {program} {source}`"


def missing_path(text: str, base: Path | None = None) -> str:
    """Why the path ``text`` (relative to ``base``) is not there, and what it may
    have meant: the first missing part, close names beside it, how to build it."""
    given = Path(text)
    full = given if given.is_absolute() or base is None else base / given
    parts = full.parts
    # The deepest folder that exists, and the first part of the path missing from it.
    i = len(parts) - 1
    while i > 0 and not Path(*parts[:i]).is_dir():
        i -= 1
    folder = Path(*parts[:i]) if i else Path(os.curdir)
    missing = parts[i]
    dotted = text.startswith("./")

    def shown(p: Path) -> str:  # as the user wrote it: ./x stays ./x
        relative = not (p.is_absolute() or p.parts[:1] == (os.pardir,))
        return os.path.join(os.curdir, p) if dotted and relative else str(p)

    if (folder / missing).is_file():
        why = f"{shown(folder / missing)!r} is a file, not a folder"
    elif i == len(parts) - 1:
        why = f"the folder {shown(folder)!r} has no {missing!r}"
    else:
        why = f"there is no folder {shown(folder / missing)!r}"
    try:
        names = sorted(e.name for e in folder.iterdir() if not e.name.startswith("."))
    except OSError:
        names = []
    guesses = []
    source = f"{missing}.c"  # (the build hint below names it)
    for name in difflib.get_close_matches(missing, names, n=3, cutoff=0.6):
        if name == source:
            continue
        guess = folder.joinpath(name, *parts[i + 1 :])
        guesses.append(repr(shown(guess if guess.exists() else folder / name)))
    hint = f"; did you mean {' or '.join(guesses)}?" if guesses else ""
    return f"{why}{hint}{_build_hint(full)}"


def load_engine_file(path: Path) -> EngineSpec:
    """Read an engine file (``.toml`` or ``.json``)."""
    try:
        text = path.read_text(encoding="utf-8")
        data: Any = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (OSError, ValueError) as e:
        raise EngineSpecError(f"cannot read engine file {str(path)!r}: {e}") from None
    if not isinstance(data, dict):
        raise EngineSpecError(f"engine file {str(path)!r} must hold a table/object")
    unknown = set(data) - {"name", "command", "cwd", "env", "options", "sandbox", "dir_writable"}
    if unknown:
        raise EngineSpecError(
            f"engine file {str(path)!r}: unknown keys {sorted(unknown)}; "
            "use name, command, cwd, env, options, sandbox, dir_writable"
        )
    cmd = data.get("command")
    if isinstance(cmd, str):
        cmd = shlex.split(cmd)
    if not (isinstance(cmd, list) and cmd and all(isinstance(c, str) for c in cmd)):
        raise EngineSpecError(
            f"engine file {str(path)!r}: 'command' must be a string or a list of strings, "
            f"got {cmd!r}"
        )
    base = path.resolve().parent
    cwd = (base / str(data.get("cwd", "."))).resolve()
    if not cwd.is_dir():
        raise EngineSpecError(f"engine file {str(path)!r}: cwd {str(cwd)!r} is not a folder")
    # An engine file is the entrant's: it may make its jail stricter, never wider.
    if cwd != base and base not in cwd.parents:
        raise EngineSpecError(
            f"engine file {str(path)!r}: cwd {str(data.get('cwd'))!r} leads to {str(cwd)!r}, "
            f"outside the engine file's own folder {str(base)!r}; an engine runs in its own "
            "folder or one inside it (the operator may give another with --engine dir=...)"
        )
    if data.get("dir_writable") is True:
        raise EngineSpecError(
            f"engine file {str(path)!r}: dir_writable = true cannot be set by an engine file "
            "(an engine may not widen its own jail); the operator grants it with "
            '--engine "cmd=... dir_writable=yes" or --engine-dir-writable'
        )
    prog = cmd[0]
    if os.sep in prog or prog.endswith(".py"):
        p = (cwd / prog) if not os.path.isabs(prog) else Path(prog)
        if p.exists():
            cmd = [*_python_or_program(p), *cmd[1:]]
    env = data.get("env", {})
    options = data.get("options", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise EngineSpecError(f"engine file {str(path)!r}: 'env' must map names to strings")
    try:
        check_env(env, f"engine file {str(path)!r}: env")
    except ValueError as e:
        raise EngineSpecError(str(e)) from None
    if not isinstance(options, dict):
        raise EngineSpecError(f"engine file {str(path)!r}: 'options' must be a table/object")
    name = data.get("name") or path.stem
    where = f"engine file {str(path)!r}: sandbox"
    level = None if "sandbox" not in data else _level(str(data["sandbox"]), where)
    writable = data.get("dir_writable")
    if writable is not None and not isinstance(writable, bool):
        raise EngineSpecError(f"engine file {str(path)!r}: 'dir_writable' must be true or false")
    return EngineSpec(
        str(name),
        tuple(cmd),
        str(cwd),
        dict(env),
        dict(options),
        sandbox_level=level,
        dir_writable=writable,
    )


def _level(text: str, flag: str) -> Level:
    try:
        return parse_level(text, flag)
    except SandboxError as e:
        raise EngineSpecError(str(e)) from None


def _yes_no(text: str, flag: str) -> bool:
    if text in ("yes", "true", "1"):
        return True
    if text in ("no", "false", "0"):
        return False
    raise EngineSpecError(f"{flag}{text!r}: use yes or no")


def resolve_engine(arg: str) -> EngineSpec:
    """Turn a command-line engine argument into an :class:`EngineSpec`."""
    if not arg.strip():
        raise EngineSpecError("an engine argument is empty: give a command or a file")
    p = Path(arg)
    if p.is_dir():
        return engine_in_folder(p)
    if p.suffix in (".toml", ".json") and p.is_file():
        return load_engine_file(p)
    if p.is_file():
        return EngineSpec(_name_from_path(p), _python_or_program(p))
    try:
        parts = shlex.split(arg)
    except ValueError as e:
        raise EngineSpecError(f"cannot split the engine command {arg!r}: {e}") from None
    first = Path(parts[0])
    if first.suffix == ".py" and first.is_file():
        return EngineSpec(_name_from_path(first), (sys.executable, *parts))
    if len(parts) == 1 and (os.sep in arg) and not p.exists():
        raise EngineSpecError(f"engine {arg!r} does not exist: {missing_path(arg)}")
    return EngineSpec(_name_from_command(parts), tuple(parts))


def start_hint(spec: EngineSpec) -> str:
    """Why a command that exists as a file could not be started: its #! interpreter."""
    prog = Path(spec.command[0])
    if spec.cwd and not prog.is_absolute():
        prog = Path(spec.cwd) / prog
    try:
        with prog.open("rb") as f:
            first = f.readline(300)
    except OSError:
        if os.sep not in spec.command[0]:
            return f" (is {spec.command[0]!r} installed and on PATH?)"
        return ""
    if not first.startswith(b"#!"):
        return ""
    words = first[2:].decode(errors="replace").split()
    if words and not os.path.exists(words[0]):
        return (
            f" (its #! line names the interpreter {words[0]!r}, which does not exist: "
            "fix the #! line, or give the interpreter in the command, e.g. "
            f'"python3 {spec.command[0]}")'
        )
    return ""


def check_runnable(spec: EngineSpec, label: str | None = None) -> None:
    """Refuse an engine whose program cannot be started here, before anything starts.

    A program named without a folder must be on ``PATH`` (the engine's own, if
    it sets one); a path must be an executable file (relative to the engine's
    ``cwd``).
    """
    label = label or spec.name
    program = spec.command[0]
    if os.sep in program:
        path = Path(program)
        if not path.is_absolute() and spec.cwd:
            path = Path(spec.cwd) / path
        if path.is_dir():
            raise EngineSpecError(
                f"engine {label!r}: {program!r} is a folder; give the engine's program in "
                f"it, or the folder alone (bidref finds the engine in it)"
            )
        if not path.is_file():
            base = Path(spec.cwd) if spec.cwd and not Path(program).is_absolute() else None
            raise EngineSpecError(
                f"engine {label!r}: {program!r} does not exist: {missing_path(program, base)}"
            )
        if not os.access(path, os.X_OK):
            raise EngineSpecError(
                f"engine {label!r}: {program!r} is not executable: run `chmod +x {program}`, "
                f'or give the interpreter, e.g. "python3 {program}"'
            )
    elif shutil.which(program, path=spec.env.get("PATH")) is None:
        raise EngineSpecError(
            f"engine {label!r}: there is no program {program!r} (not on PATH); give its "
            "path, e.g. ./engine, or install it"
        )


def parse_seconds(flag: str, text: str | float) -> float:
    """A number of seconds for ``flag``: finite, >= 0 and at most MAX_SECONDS."""
    try:
        value = float(text)
    except ValueError:
        raise EngineSpecError(f"{flag} {text!r}: give a number of seconds, e.g. 10") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_SECONDS:
        shown = text if isinstance(text, str) else f"{value:g}"
        raise EngineSpecError(
            f"{flag} {shown}: give a finite number of seconds from 0 to {MAX_SECONDS:g}, e.g. 10"
        )
    return value


def time_control_of(flag: str, bank: str | float, delay: str | float) -> TimeControl:
    """A checked clock: bank and delay in seconds, at least one of them positive."""
    b, d = parse_seconds(flag, bank), parse_seconds(flag, delay)
    return gives_time(TimeControl(round(b * SECOND), round(d * SECOND)), f"{flag} {b:g}+{d:g}")


def gives_time(tc: TimeControl, shown: str, example: str = "10+0.5") -> TimeControl:
    """``tc`` if it gives some time to answer (bank and delay not both zero);
    ``shown`` is how the user wrote it, ``example`` a clock written the same way."""
    if tc.bank == 0 and tc.delay == 0:
        raise EngineSpecError(
            f"{shown}: a clock with neither bank nor delay gives no time to answer; "
            f"give a bank, a delay or both, e.g. {example}"
        )
    return tc


def parse_time_control(text: str, flag: str = "tc") -> TimeControl:
    """``BANK+DELAY`` in seconds (``120+10``, ``5+0.1``), or ``BANK`` alone (no delay).

    >>> parse_time_control("5+0.1")
    TimeControl(bank=5000000000, delay=100000000)
    """
    bank, plus, delay = text.partition("+")
    if not bank or (plus and not delay):
        raise EngineSpecError(
            f"{flag}={text!r}: write BANK+DELAY in seconds, e.g. {flag}=120+10 or {flag}=5+0.1"
        )
    return time_control_of(f"{flag}=", bank, delay if plus else "0")


def parse_transport(text: str, flag: str = "--transport") -> Literal["pipe", "pty"]:
    if text == "pipe":
        return "pipe"
    if text == "pty":
        return "pty"
    raise EngineSpecError(
        f"{flag} {text!r}: use pipe, or pty for an engine that buffers its output on pipes"
    )


@dataclass(frozen=True)
class EngineArgs:
    """The ``key=value`` settings of one ``--engine`` (or ``--each``), not yet resolved."""

    cmd: str | None = None
    name: str | None = None
    dir: str | None = None
    args: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    time_control: TimeControl | None = None
    transport: Literal["pipe", "pty"] | None = None
    sandbox_level: Level | None = None
    dir_writable: bool | None = None
    text: str = ""  # as given, for messages and the tournament's record

    def under(self, each: EngineArgs) -> EngineArgs:
        """These settings on top of ``each`` (what every engine shares): ours win."""
        return EngineArgs(
            cmd=self.cmd or each.cmd,
            name=self.name or each.name,
            dir=self.dir or each.dir,
            args=(*each.args, *self.args),
            options={**each.options, **self.options},
            env={**each.env, **self.env},
            time_control=self.time_control or each.time_control,
            transport=self.transport or each.transport,
            sandbox_level=self.sandbox_level or each.sandbox_level,
            dir_writable=self.dir_writable if self.dir_writable is not None else each.dir_writable,
            text=self.text,
        )


ENGINE_KEYS = "cmd, name, dir, arg, option.K, env.K, tc, transport, sandbox, dir_writable"


def _option_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_engine_args(text: str, flag: str = "--engine") -> EngineArgs:
    """One ``--engine``/``--each`` string of ``key=value`` settings (see the module doc).

    >>> a = parse_engine_args("cmd='python3 bot.py' name=bot option.depth=3 tc=5+0.1")
    >>> a.cmd, a.name, dict(a.options), a.time_control.bank
    ('python3 bot.py', 'bot', {'depth': 3}, 5000000000)
    """
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise EngineSpecError(f"{flag} {text!r}: cannot split it ({e}); check the quotes") from None
    if not words:
        raise EngineSpecError(f'{flag} {text!r} is empty: give e.g. {flag} "cmd=./engine name=a"')
    found: dict[str, Any] = {"args": [], "options": {}, "env": {}}
    for word in words:
        key, eq, value = word.partition("=")
        where = f"{flag} {text!r}: {word!r}"
        if not eq or not key:
            raise EngineSpecError(f"{where} is not KEY=VALUE; the keys are {ENGINE_KEYS}")
        if key.startswith("option.") and len(key) > 7:
            found["options"][key[7:]] = _option_value(value)
        elif key.startswith("env.") and len(key) > 4:
            found["env"][key[4:]] = value
        elif key == "arg":
            found["args"].append(value)
        elif key in ("cmd", "name", "dir"):
            if not value:
                raise EngineSpecError(f"{where}: give a value after {key}=")
            found[key] = value
        elif key == "tc":
            found["time_control"] = parse_time_control(value)
        elif key == "transport":
            found["transport"] = parse_transport(value, f"{flag} transport=")
        elif key == "sandbox":
            found["sandbox_level"] = _level(value, f"{flag} sandbox=")
        elif key == "dir_writable":
            found["dir_writable"] = _yes_no(value, f"{flag} dir_writable=")
        else:
            raise EngineSpecError(f"{where}: unknown key {key!r}; the keys are {ENGINE_KEYS}")
    return EngineArgs(
        cmd=found.get("cmd"),
        name=found.get("name"),
        dir=found.get("dir"),
        args=tuple(found["args"]),
        options=found["options"],
        env=found["env"],
        time_control=found.get("time_control"),
        transport=found.get("transport"),
        sandbox_level=found.get("sandbox_level"),
        dir_writable=found.get("dir_writable"),
        text=text,
    )


def engine_from_args(a: EngineArgs, flag: str = "--engine") -> EngineSpec:
    """Resolve ``--engine`` settings into an :class:`EngineSpec`."""
    if a.cmd is None:
        raise EngineSpecError(
            f"{flag} {a.text!r}: no cmd=; give the engine's command, e.g. cmd=./engine"
        )
    cmd = a.cmd
    folder: Path | None = None
    if a.dir is not None:
        folder = Path(a.dir).resolve()
        if not folder.is_dir():
            raise EngineSpecError(f"{flag} {a.text!r}: dir={a.dir!r} is not a folder")
        try:
            parts = shlex.split(cmd)
        except ValueError as e:
            raise EngineSpecError(f"cannot split the engine command {cmd!r}: {e}") from None
        if parts and not os.path.isabs(parts[0]) and (folder / parts[0]).exists():
            parts[0] = str(folder / parts[0])
            cmd = shlex.join(parts)
    spec = resolve_engine(cmd)
    cwd = str(folder) if folder is not None else spec.cwd
    return replace(
        spec,
        name=a.name or spec.name,
        command=(*spec.command, *a.args),
        cwd=cwd,
        env={**spec.env, **a.env},
        options={**spec.options, **a.options},
        time_control=a.time_control,
        transport=a.transport,
        sandbox_level=a.sandbox_level or spec.sandbox_level,
        dir_writable=a.dir_writable if a.dir_writable is not None else spec.dir_writable,
    )


def unique_names(names: Sequence[str]) -> list[str]:
    """Names made unique: every engine of a repeated name is numbered.

    >>> unique_names(["node", "c_first", "node"])
    ['node-1', 'c_first', 'node-2']
    """
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    taken = {n for n in names if counts[n] == 1}
    out: list[str] = []
    next_no: dict[str, int] = {}
    for n in names:
        if counts[n] == 1:
            out.append(n)
            continue
        k = next_no.get(n, 0)
        while True:
            k += 1
            candidate = f"{n}-{k}"
            if candidate not in taken:
                break
        next_no[n] = k
        taken.add(candidate)
        out.append(candidate)
    return out


def resolve_engines(
    positional: Sequence[str],
    engine_texts: Sequence[str] = (),
    each_texts: Sequence[str] = (),
    *,
    named: Sequence[str | None] | None = None,
    check: bool = True,
) -> list[tuple[EngineSpec, str]]:
    """The engines of a command line, positional ones first, then each ``--engine``,
    with unique names; each with the text the user gave for it.

    ``--each`` settings apply to all of them (an engine's own settings win).
    ``named``: names given to the positional engines (``NAME=engine``), or None.
    ``check``: refuse a program that is not there or not executable
    (:func:`check_runnable`).
    """
    each = EngineArgs()
    for text in each_texts:
        each = parse_engine_args(text, "--each").under(each)
    given = [
        EngineArgs(cmd=arg, name=named[i] if named else None, text=arg)
        for i, arg in enumerate(positional)
    ]
    given += [parse_engine_args(text) for text in engine_texts]
    specs = [engine_from_args(a.under(each)) for a in given]
    if check:
        for spec, a in zip(specs, given, strict=True):
            check_runnable(spec, a.text)
    names = unique_names([s.name for s in specs])
    return [(replace(s, name=n), a.text) for s, n, a in zip(specs, names, given, strict=True)]
