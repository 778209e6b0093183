"""Drive `bidref play` in a pseudo-terminal and read its screens.

The play screen is a rich ``Live`` on the alternate screen: every redraw starts
with the cursor-home sequence. :class:`Screens` splits the output at it, strips
the escape codes, and hands out every complete screen in order, so a test can
wait for a screen that asks something new and check every screen shown.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
BIDREF = str(Path(sys.executable).with_name("bidref"))
HOME = "\x1b[H"
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


def clean(raw: str) -> str:
    text = ANSI.sub("", raw).replace("\r", "")
    return "\n".join(line.rstrip() for line in text.split("\n") if line.strip())


def spawn(*args: str, rows: int = 60, cols: int = 140) -> pexpect.spawn:
    return pexpect.spawn(
        BIDREF,
        ["play", *args],
        cwd=str(ROOT),
        encoding="utf-8",
        dimensions=(rows, cols),
        timeout=30,
        env={
            "PATH": "/usr/bin:/bin",
            "TERM": "xterm-256color",
            "COLUMNS": str(cols),
            "LINES": str(rows),
        },
    )


def kind(screen: str) -> str | None:
    """What a screen asks: reveal (hot-seat hand-over), pause (Start/Continue), ask."""
    if "press Enter to reveal your hand" in screen:
        return "reveal"
    if "Press Enter to continue" in screen or "Press Enter to start" in screen:
        return "pause"
    if "Tab to complete" in screen:
        return "ask"
    return None


def header(screen: str) -> str:
    return next((line for line in screen.splitlines() if "Spectacular Bid" in line), "")


def key(screen: str) -> tuple[str, str] | None:
    k = kind(screen)
    return None if k is None else (k, header(screen))


class Screens:
    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self.raw = ""  # all output so far
        self.tail = ""  # output after the last cursor-home
        self.screens: list[str] = []  # every complete screen, cleaned
        self.eof = False
        self.seen = 0  # screens already handed out by next()

    def pump(self, timeout: float = 0.03) -> None:
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            # Quiet for a moment: the last redraw is complete (rich writes a frame
            # at once), no need to wait for the next redraw to know.
            if self.tail.strip():
                self.screens.append(clean(self.tail))
            self.tail = ""
            return
        except pexpect.EOF:
            self.eof = True
            if self.tail:
                self.screens.append(clean(self.tail))
                self.tail = ""
            return
        self.raw += data
        parts = (self.tail + data).split(HOME)
        self.tail = parts.pop()
        self.screens.extend(clean(p) for p in parts if p.strip())

    def wait(self, pred: Callable[[str], bool], timeout: float = 20) -> str:
        """The first screen after the ones already handed out that satisfies ``pred``."""
        end = time.monotonic() + timeout
        while True:
            while self.seen < len(self.screens):
                s = self.screens[self.seen]
                self.seen += 1
                if pred(s):
                    return s
            if self.eof:
                raise AssertionError("the program ended; last output:\n" + clean(self.raw)[-3000:])
            if time.monotonic() > end:
                last = self.screens[-1] if self.screens else clean(self.raw)
                raise AssertionError(f"no such screen within {timeout} s; last:\n{last}")
            self.pump()

    def next_question(self, done: set[tuple[str, str]], timeout: float = 20) -> tuple[str, str]:
        """Wait for a screen that asks something not answered yet; (kind, screen)."""
        s = self.wait(
            lambda s: ((k := key(s)) is not None and k not in done) or self._ended(s), timeout
        )
        k = key(s)
        if k is None:
            return "end", s
        done.add(k)
        return k[0], s

    def _ended(self, s: str) -> bool:
        return "result:" in s

    def finish(self, timeout: float = 20) -> str:
        """Read to the end; the whole output after the alternate screen, cleaned."""
        end = time.monotonic() + timeout
        while not self.eof:
            if time.monotonic() > end:
                raise AssertionError("the program did not end")
            self.pump()
        self.child.close()
        return clean(self.raw.rsplit("\x1b[?1049l", 1)[-1])

    def send(self, text: str) -> None:
        self.child.send(text)
