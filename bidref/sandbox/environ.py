"""The environment of a jailed engine: an allow-list, never the referee's own.

A jailed engine sees only:

- ``PATH`` (the system's folders, and the folder of the interpreter that runs
  bidref, so that ``python3`` in a command finds the same Python), ``HOME`` and
  ``TMPDIR`` (its private ``/tmp``; in a jail without namespaces, the referee's
  ``TMPDIR``, else ``/tmp``);
- from the referee's environment, only ``LANG``, ``LC_ALL``, ``LC_CTYPE``,
  ``TZ`` and ``TERM``, when their values are plain (letters, digits, ``._-@:/+``);
- the containment mark ``BIDREF_CONTAIN`` (:mod:`bidref.engines.contain`);
- the variables its engine entry names (``env`` in an engine file, ``env.K=V``
  on ``--engine``). Those a program's loader or C library reads before the
  program runs (``LD_*``, ``GCONV_PATH``, ...) are refused in an engine file
  (:func:`refused`); the operator may give them on ``--engine``, and they reach
  the engine alone.

Secrets in the referee's environment (``BIDREF_TOKEN``, a CI's keys) therefore
never reach an engine. The jail's own helpers (bubblewrap, setpriv, env) start
with :data:`HELPER_ENV` alone; the engine's variables are handed over inside
the jail, by ``env -i`` as the last step before the engine.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Final

SYSTEM_PATH: Final = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
HELPER_ENV: Final = {"PATH": SYSTEM_PATH, "LANG": "C.UTF-8"}
PASSED: Final = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM")
_PLAIN = re.compile(r"^[A-Za-z0-9._\-@:/+]{0,200}$")

# Read by the dynamic loader, the C library or a shell before the program's own
# code runs: set by an entrant, each runs its code in a helper or changes what
# the jail runs.
_REFUSED_PREFIXES: Final = ("LD_", "DYLD_", "MALLOC_", "GLIBC_", "BASH_FUNC_")
_REFUSED: Final = frozenset(
    {
        "GCONV_PATH",
        "GETCONF_DIR",
        "HOSTALIASES",
        "LOCALDOMAIN",
        "LOCPATH",
        "NIS_PATH",
        "NLSPATH",
        "RESOLV_HOST_CONF",
        "RES_OPTIONS",
        "TMPDIR",
        "HOME",
        "TZDIR",
        "BASH_ENV",
        "ENV",
        "SHELLOPTS",
        "PS4",
        "IFS",
        "BIDREF_CONTAIN",
    }
)
_JAIL_SETS: Final = frozenset({"HOME", "TMPDIR", "BIDREF_CONTAIN"})
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def refused(name: str) -> str | None:
    """Why an engine entry may not set ``name``, or None when it may.

    >>> refused("LD_PRELOAD") is not None, refused("BOT_DEPTH")
    (True, None)
    """
    if not _NAME.match(name):
        return "not a variable name (letters, digits and _, not starting with a digit)"
    if name in _REFUSED or name.startswith(_REFUSED_PREFIXES):
        if name in _JAIL_SETS:
            return "the jail sets it"
        return "the loader or C library reads it before the engine runs"
    return None


def check(names: Iterable[str], where: str) -> None:
    """Raise ValueError naming the first refused variable of ``names``."""
    for name in names:
        why = refused(name)
        if why is not None:
            raise ValueError(
                f"{where}: the variable {name!r} cannot be set for an engine ({why}); "
                "remove it (docs/match.md, Containment: the engine's environment)"
            )


def engine_env(
    own: Mapping[str, str],
    mark: tuple[str, str],
    outer: Mapping[str, str] | None = None,
    interpreter_bin: str | None = None,
    private_tmp: bool = True,
) -> dict[str, str]:
    """The whole environment of a jailed engine (see the module docstring).

    >>> e = engine_env({"BOT": "1"}, ("BIDREF_CONTAIN", "t"), {"SECRET": "x", "LANG": "C"})
    >>> sorted(e), e["HOME"]
    (['BIDREF_CONTAIN', 'BOT', 'HOME', 'LANG', 'PATH', 'TMPDIR'], '/tmp')
    """
    outer = os.environ if outer is None else outer
    path = SYSTEM_PATH if not interpreter_bin else f"{interpreter_bin}:{SYSTEM_PATH}"
    # a jail without namespaces shares the host's /tmp: there the referee's TMPDIR
    tmp = "/tmp"
    if not private_tmp and _PLAIN.match(outer.get("TMPDIR", "")) and outer.get("TMPDIR"):
        tmp = outer["TMPDIR"]
    env = {"PATH": path, "HOME": tmp, "TMPDIR": tmp}
    for name in PASSED:
        value = outer.get(name)
        if value is not None and _PLAIN.match(value):
            env[name] = value
    # (an operator's ``env.K=V`` may name a loader variable: it reaches the engine only)
    env.update({k: v for k, v in own.items() if k not in _JAIL_SETS})
    env[mark[0]] = mark[1]
    return env
