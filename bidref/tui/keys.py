"""Keys from the terminal, read against an absolute deadline, and a line editor.

:class:`TerminalKeys` puts the terminal in a character mode (no line
buffering, no echo, Ctrl-C arrives as a key instead of a signal) and reads
with ``select`` so that a read never waits past the deadline it is given.
:class:`LineEditor` is the pure editing logic (typing, Backspace, Ctrl-U, Tab
completion, Enter, Ctrl-C); tests feed it strings.

>>> ed = LineEditor()
>>> ed.feed("pl\\x7fx")
[]
>>> ed.text
'px'
>>> ed.feed("\\r")
[Submit(text='px')]
"""

from __future__ import annotations

import os
import select
import termios
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..rules.clock import MILLISECOND

Clock = Callable[[], int]


class Keys(Protocol):
    """A source of typed characters."""

    def read(self, until: int) -> str:
        """The characters typed so far, waiting until clock time ``until`` at most
        for the first one; "" if none came. Never waits past ``until``."""
        ...

    def drain(self) -> str:
        """Everything typed ahead and not read yet (without waiting)."""
        ...


class TerminalKeys:
    """Keys from a terminal file descriptor (usually stdin), in character mode.

    Use as a context manager: the terminal's mode is restored on exit.
    """

    def __init__(self, fd: int, clock: Clock) -> None:
        self.fd = fd
        self.clock = clock
        self._saved: list[Any] | None = None
        self._pending = b""

    def __enter__(self) -> TerminalKeys:
        if os.isatty(self.fd):
            self._saved = termios.tcgetattr(self.fd)
            mode = termios.tcgetattr(self.fd)
            mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
            mode[0] &= ~termios.IXON
            mode[6][termios.VMIN] = 1
            mode[6][termios.VTIME] = 0
            termios.tcsetattr(self.fd, termios.TCSANOW, mode)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSANOW, self._saved)
            self._saved = None

    def read(self, until: int) -> str:
        wait = max(0, until - self.clock())
        ready, _, _ = select.select([self.fd], [], [], wait / (1000 * MILLISECOND))
        if not ready:
            return ""
        return self._decode(os.read(self.fd, 4096))

    def drain(self) -> str:
        out = ""
        while select.select([self.fd], [], [], 0)[0]:
            data = os.read(self.fd, 4096)
            if not data:
                break
            out += self._decode(data)
        return out

    def _decode(self, data: bytes) -> str:
        data = self._pending + data
        try:
            text = data.decode("utf-8")
            self._pending = b""
        except UnicodeDecodeError as e:
            # A multi-byte character split across reads: keep its start for later.
            text = data[: e.start].decode("utf-8", "replace")
            self._pending = data[e.start :] if len(data) - e.start < 4 else b""
        return text


@dataclass(frozen=True, slots=True)
class Submit:
    """Enter was pressed on this line."""

    text: str


@dataclass(frozen=True, slots=True)
class Interrupt:
    """Ctrl-C was pressed."""


@dataclass(frozen=True, slots=True)
class Key:
    """A navigation key: ``up``, ``down``, ``pgup``, ``pgdn``, ``home``, ``end`` or
    ``esc`` (a lone Escape, see :meth:`LineEditor.end_of_input`)."""

    name: str


EditEvent = Submit | Interrupt | Key

# The escape sequences of navigation keys (xterm, VT220 and application cursor mode).
NAV_KEYS = {
    "\x1b[A": "up",
    "\x1bOA": "up",
    "\x1b[B": "down",
    "\x1bOB": "down",
    "\x1b[5~": "pgup",
    "\x1b[6~": "pgdn",
    "\x1b[H": "home",
    "\x1bOH": "home",
    "\x1b[1~": "home",
    "\x1b[7~": "home",
    "\x1b[F": "end",
    "\x1bOF": "end",
    "\x1b[4~": "end",
    "\x1b[8~": "end",
}

CTRL_C = "\x03"


class LineEditor:
    """One input line: printable characters, Backspace, Ctrl-U (clear), Ctrl-W
    (delete a word), Tab (``completer``), Enter (submit), Ctrl-C (interrupt).
    Navigation keys (arrows, PgUp/PgDn, Home/End) come out as :class:`Key` events
    (a screen that scrolls uses them; the line ignores them); other escape
    sequences are ignored.

    >>> LineEditor().feed("\x1b[6~\x1b[A")
    [Key(name='pgdn'), Key(name='up')]
    """

    def __init__(self, completer: Callable[[str], str] | None = None) -> None:
        self.text = ""
        self.completer = completer
        self._escape = ""

    def clear(self) -> None:
        self.text = ""

    def feed(self, chars: str) -> list[EditEvent]:
        events: list[EditEvent] = []
        for ch in chars:
            if self._escape:
                self._escape += ch
                # CSI sequences (ESC [) end with a letter or ~, SS3 ones (ESC O) after one
                # more character; ESC and any other character ends at once.
                seq = self._escape
                intro = seq[1]
                if (
                    (intro == "[" and len(seq) > 2 and (ch.isalpha() or ch == "~"))
                    or (intro == "O" and len(seq) == 3)
                    or intro not in "[O"
                ):
                    self._escape = ""
                    if seq in NAV_KEYS:
                        events.append(Key(NAV_KEYS[seq]))
                continue
            if ch == "\x1b":
                self._escape = ch
            elif ch in "\r\n":
                events.append(Submit(self.text))
                self.text = ""
            elif ch == CTRL_C:
                events.append(Interrupt())
            elif ch in "\x7f\x08":
                self.text = self.text[:-1]
            elif ch == "\x15":  # Ctrl-U
                self.text = ""
            elif ch == "\x17":  # Ctrl-W
                self.text = self.text.rstrip()
                self.text = self.text[: self.text.rfind(" ") + 1]
            elif ch == "\t":
                if self.completer is not None:
                    self.text = self.completer(self.text)
            elif ch.isprintable() and len(self.text) < 200:
                self.text += ch
        return events

    def end_of_input(self) -> list[EditEvent]:
        """Nothing more was typed: an Escape still waiting for the rest of a sequence
        was the Escape key itself (a terminal sends a key's sequence in one piece).

        >>> ed = LineEditor()
        >>> ed.feed("\x1b"), ed.end_of_input()
        ([], [Key(name='esc')])
        """
        if self._escape == "\x1b":
            self._escape = ""
            return [Key("esc")]
        return []
