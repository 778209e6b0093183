"""What an engine is: a command line, or a small engine file.

An engine argument on the command line is resolved by :func:`resolve_engine`:

- a ``.toml`` or ``.json`` file: an engine file (below);
- a ``.py`` file: run by the same Python that runs bidref (``sys.executable``);
- any other existing file: run as a program (it must be executable);
- otherwise: a command line, split like a shell would (``"python3 my_bot.py --fast"``).

An engine file (TOML shown; JSON has the same keys)::

    name = "greedy"                       # shown in results (default: from the file name)
    command = ["python3", "engine.py"]    # or one string, split like a shell would
    cwd = "."                             # relative to the engine file (default: its folder)
    env = { BOT_DEPTH = "3" }             # added to the environment
    options = { depth = 3 }               # sent to the engine in the referee's hello

A relative program path in ``command`` is taken relative to ``cwd``.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class EngineSpecError(ValueError):
    """An engine argument or engine file that cannot be used; the message says why."""


@dataclass(frozen=True)
class EngineSpec:
    """How to start one engine. Picklable (for tournament workers)."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.command:
            raise EngineSpecError(f"engine {self.name!r} has an empty command")

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "command": list(self.command), "cwd": self.cwd}


def _name_from_path(p: Path) -> str:
    if p.stem.startswith("engine") and p.parent.name:
        return p.parent.name
    return p.stem


def _python_or_program(p: Path) -> tuple[str, ...]:
    if p.suffix == ".py":
        return (sys.executable, str(p))
    if not os.access(p, os.X_OK):
        raise EngineSpecError(
            f"{str(p)!r} is a file but not executable: run `chmod +x {p}`, or give the "
            f'interpreter, e.g. "python3 {p}"'
        )
    return (str(p),)


def load_engine_file(path: Path) -> EngineSpec:
    """Read an engine file (``.toml`` or ``.json``)."""
    try:
        text = path.read_text(encoding="utf-8")
        data: Any = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (OSError, ValueError) as e:
        raise EngineSpecError(f"cannot read engine file {str(path)!r}: {e}") from None
    if not isinstance(data, dict):
        raise EngineSpecError(f"engine file {str(path)!r} must hold a table/object")
    unknown = set(data) - {"name", "command", "cwd", "env", "options"}
    if unknown:
        raise EngineSpecError(
            f"engine file {str(path)!r}: unknown keys {sorted(unknown)}; "
            "use name, command, cwd, env, options"
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
    prog = cmd[0]
    if os.sep in prog or prog.endswith(".py"):
        p = (cwd / prog) if not os.path.isabs(prog) else Path(prog)
        if p.exists():
            cmd = [*_python_or_program(p), *cmd[1:]]
    env = data.get("env", {})
    options = data.get("options", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise EngineSpecError(f"engine file {str(path)!r}: 'env' must map names to strings")
    if not isinstance(options, dict):
        raise EngineSpecError(f"engine file {str(path)!r}: 'options' must be a table/object")
    name = data.get("name") or path.stem
    return EngineSpec(str(name), tuple(cmd), str(cwd), dict(env), dict(options))


def resolve_engine(arg: str) -> EngineSpec:
    """Turn a command-line engine argument into an :class:`EngineSpec`."""
    if not arg.strip():
        raise EngineSpecError("an engine argument is empty: give a command or a file")
    p = Path(arg)
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
        raise EngineSpecError(
            f"engine {arg!r} does not exist; for a compiled sample engine run "
            "`make -C sample_engines` first"
        )
    name = _name_from_path(first) if first.is_file() else first.name
    return EngineSpec(name, tuple(parts))


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
