"""Which jail limit an engine that ended ran into, and how the referee knows.

Pure (no I/O): :class:`~bidref.sandbox.jail.Jail` gathers the facts (its
cgroup's counters, the limits it set, how the engine ended, its stderr tail)
and this module judges them.

The evidence, strongest first:

- ``kernel``: a counter of the engine's cgroup (an OOM kill, a refused fork), or
  the engine's process killed by ``SIGXFSZ`` (the kernel's signal for a write
  past ``RLIMIT_FSIZE``);
- ``exit status``: under bubblewrap, which reports its child's death by signal
  ``n`` as exit code ``128 + n`` (as a shell does), exit code 153 (SIGXFSZ);
- ``stderr``: the kernel keeps no count of refused opens, allocations under
  ``RLIMIT_DATA`` or writes that failed with EFBIG, so the referee reads the
  engine's last words (the stderr tail it keeps) for the system's own message
  for a limit the jail actually set ("Too many open files", "File too large",
  "Cannot allocate memory", ...).

An engine can print those words, or exit with 153, without meeting any limit:
it gains nothing, as only an engine that ended mid-match (a crash, a rated
loss) is judged here, and ``resources`` is the same rated loss, counted in the
same standings column ("crashes"). The label only says better why it lost.
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from typing import Final, Literal

Evidence = Literal["kernel", "exit status", "stderr"]

SIZES: Final = frozenset({"memory", "file size"})  # limits in bytes (the others count)

# The system's own words for each limit an engine meets without being killed:
# strerror() in glibc and musl (Python "[Errno 24] ...", Rust "(os error 24)", Go
# and Java print the same words), and the languages' own out-of-memory errors.
MESSAGES: Final[dict[str, tuple[str, ...]]] = {
    "open files": ("Too many open files",),  # EMFILE
    "file size": ("File too large",),  # EFBIG (an engine that ignores SIGXFSZ)
    "memory": (
        "Cannot allocate memory",  # ENOMEM
        "MemoryError",  # Python
        "std::bad_alloc",  # C++
        "memory allocation of",  # Rust: "memory allocation of N bytes failed"
        "OutOfMemoryError",  # Java
        "out of memory",  # Go ("runtime: out of memory"), C libraries, ...
    ),
}
_PATTERN: Final = re.compile(
    "|".join(
        f"(?P<{name.replace(' ', '_')}_{i}>{re.escape(words)})"
        for name, all_words in MESSAGES.items()
        for i, words in enumerate(all_words)
    ),
    re.IGNORECASE,
)
_XFSZ_STATUS: Final = 128 + signal.SIGXFSZ  # bubblewrap's (and a shell's) exit code for it


@dataclass(frozen=True)
class Breach:
    """A limit the engine ran into: ``limit`` (its name: "memory", "processes",
    "open files", "file size"), ``value`` (the jail's setting: bytes or a
    count), ``evidence``, and for ``stderr`` evidence ``said``: the words found."""

    limit: str
    value: int
    evidence: Evidence
    said: str = ""

    def value_text(self) -> str:
        """``2 MiB``, ``256``."""
        return size_text(self.value) if self.limit in SIZES else str(self.value)

    def sentence(self, how_it_ended: str) -> str:
        """What the engine did, for the end of a match: ``exceeded its file size
        limit (2 MiB; killed by SIGXFSZ)``, ``ran out of open files (its limit is
        256; it said: Too many open files)``."""
        if self.evidence == "stderr":
            verb = (
                "ran into its file size limit"
                if self.limit == "file size"
                else f"ran out of {self.limit}"
            )
            return (
                f"{verb} (its limit is {self.value_text()}; it said: {self.said}; {how_it_ended})"
            )
        return f"exceeded its {self.limit} limit ({self.value_text()}; {how_it_ended})"


def size_text(n: int) -> str:
    """``1 GiB``, ``2 MiB``, ``1536 KiB``, ``1000 bytes``.

    >>> size_text(2 << 20), size_text(3 << 29), size_text(1000)
    ('2 MiB', '1536 MiB', '1000 bytes')
    """
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"


def said(stderr: str, limits: frozenset[str]) -> tuple[str, str] | None:
    """The last words in ``stderr`` that are the system's message for one of
    ``limits`` (case-insensitive), as (limit, the words as written), or None.

    >>> said("OSError: [Errno 24] Too many open files: '/dev/null'", frozenset({"open files"}))
    ('open files', 'Too many open files')
    >>> said("MemoryError", frozenset({"open files"})) is None
    True
    """
    found = None
    for m in _PATTERN.finditer(stderr):
        name = (m.lastgroup or "").rsplit("_", 1)[0].replace("_", " ")
        if name in limits:
            found = (name, m.group())
    return found


def judge(
    *,
    counted: str | None,
    signal_name: str | None,
    exit_code: int | None,
    wrapped: bool,
    stderr: str,
    set_by_rlimit: dict[str, int],
    values: dict[str, int],
) -> Breach | None:
    """The limit an ended engine ran into, or None.

    ``counted``: what the engine's cgroup counted ("memory", "processes");
    ``signal_name``/``exit_code``: how its process ended; ``wrapped``: that
    process is bubblewrap (which reports a death by signal ``n`` as ``128 + n``);
    ``set_by_rlimit``: the limits the jail set as rlimits, with their values,
    those the kernel only enforces by a failed call; ``values``: every limit's value.
    """
    if counted is not None:
        return Breach(counted, values[counted], "kernel")
    if "file size" in set_by_rlimit:
        if signal_name == "SIGXFSZ":
            return Breach("file size", set_by_rlimit["file size"], "kernel")
        if wrapped and exit_code == _XFSZ_STATUS:
            return Breach("file size", set_by_rlimit["file size"], "exit status")
    found = said(stderr, frozenset(set_by_rlimit))
    if found is not None:
        return Breach(found[0], set_by_rlimit[found[0]], "stderr", found[1])
    return None


__all__ = ["MESSAGES", "Breach", "Evidence", "judge", "said", "size_text"]
