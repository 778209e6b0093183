"""What an engine's stderr says about why it did not start (issue 35, item 3).

An engine that never answers its hello is most often one whose stdout is not
flushed on a pipe; but when its stderr shows a Python traceback, a missing
module, a missing file or a permission error, that is the cause, and the hint
about flushing only sends its author the wrong way. :func:`evidence_hint`
reads the stderr (or any text that quotes it: a start-up problem, a result
line) and gives the hint that fits, or None when it shows nothing known.

Pure: no I/O; the referee, the match and tournament commands use it.

>>> evidence_hint("ModuleNotFoundError: No module named 'numpy'")[:47]
"hint: the engine's Python cannot import 'numpy'"
>>> evidence_hint("bash: ./engine: Permission denied")[:40]
'hint: permission denied: make the progra'
>>> evidence_hint("hello there") is None
True
"""

from __future__ import annotations

import re
from typing import Final

_CHECK: Final = "Then try it alone with: bidref check-engine ENGINE"
_NO_MODULE: Final = (
    "hint: the engine's Python cannot import {what}: install it for the interpreter "
    "that runs the engine (an engine runs from its own folder, in the jail: a "
    "package found only through your shell's PYTHONPATH or current folder is not "
    "there). " + _CHECK
)

# (pattern, hint) in order: the first that matches names the cause. A pattern may
# capture the name it is about (a module, a file, a library) as "what".
_EVIDENCE: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (re.compile(r"No module named \\?'?(?P<what>[\w.]+)"), _NO_MODULE),
    (re.compile(r"ModuleNotFoundError|ImportError"), _NO_MODULE),
    (
        re.compile(r"Cannot find module \\?'(?P<what>[\w./@-]+)"),
        "hint: the engine's Node.js cannot find the module {what}: install it in the "
        "engine's folder (npm install there). " + _CHECK,
    ),
    (
        re.compile(r"error while loading shared libraries: (?P<what>[\w.+-]+)"),
        "hint: a library the program is linked with is missing ({what}): install it, or "
        "link the engine statically. " + _CHECK,
    ),
    (
        re.compile(r"Permission denied|PermissionError|EACCES|Operation not permitted"),
        "hint: permission denied: make the program executable (chmod +x) and its folder "
        "and files readable by the account the jail runs it as (docs/match.md, "
        "Containment). " + _CHECK,
    ),
    (
        re.compile(r"(?:No such file or directory|FileNotFoundError|ENOENT)(?P<what>)"),
        "hint: the engine asked for a file that is not there (its stderr says which): "
        "an engine runs from its own folder, so a relative path is taken from there; "
        "and in a jail only the engine's folder and the system's are visible. " + _CHECK,
    ),
    (
        re.compile(
            r"Traceback \(most recent call last\)|panicked at|"
            r"^\s*(?:\w+\.)*\w*(?:Error|Exception)\b.*:|Segmentation fault|core dumped",
            re.MULTILINE,
        ),
        "hint: the engine failed with an error before its hello (its stderr above says "
        "where): fix it. " + _CHECK,
    ),
)


def evidence_hint(stderr: str) -> str | None:
    """The hint for a start-up failure that ``stderr`` (or a text quoting it)
    explains; None when it shows no known cause."""
    for pattern, hint in _EVIDENCE:
        m = pattern.search(stderr)
        if m is not None:
            what = m.groupdict().get("what") or ""
            return hint.format(what=repr(what) if what else "a module")
    return None
