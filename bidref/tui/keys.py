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


EditEvent = Submit | Interrupt

CTRL_C = "\x03"


class LineEditor:
    """One input line: printable characters, Backspace, Ctrl-U (clear), Ctrl-W
    (delete a word), Tab (``completer``), Enter (submit), Ctrl-C (interrupt).
    Escape sequences (arrow keys) are ignored."""

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
                # CSI sequences end with a letter or ~; a lone ESC + char ends at once.
                if (len(self._escape) >= 2 and self._escape[1] != "[") or ch.isalpha() or ch == "~":
                    self._escape = ""
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
