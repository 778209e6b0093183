"""Typed keys handed to line editors one event at a time, and the keys typed
while an engine thinks.

A read feeds the editor only up to its first event (Enter, Ctrl-C); the keys
typed after it wait for the next question, so type-ahead is neither lost nor
reordered. Before a hand-over or a pause everything typed ahead is dropped —
except a Ctrl-C, which must still ask whether to resign.
"""

from __future__ import annotations

from .keys import CTRL_C, EditEvent, Keys, LineEditor


class KeyReader:
    """The session's keyboard: ``keys`` plus what was read and not yet used."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys
        self._typed = ""  # keys read from the terminal and not yet fed to an editor
        # Keys typed while an engine thinks (the session's watch): a Ctrl-C asks at once.
        self.watch = LineEditor()
        self.watch_confirming = False

    def read(self, editor: LineEditor, until: int) -> list[EditEvent]:
        """Feed typed keys to ``editor`` up to its first event, waiting until clock
        time ``until`` at most for keys."""
        if not self._typed:
            self._typed = self.keys.read(until)
        while self._typed:
            ch, self._typed = self._typed[0], self._typed[1:]
            events = editor.feed(ch)
            if events:
                return events
        return editor.end_of_input()

    def drain(self) -> None:
        """Forget everything typed ahead (before a hand-over or a pause), except a
        Ctrl-C: that is kept and asks for confirmation at the next question."""
        ahead = self._typed + self.keys.drain()
        self._typed = CTRL_C if CTRL_C in ahead or self.watch_confirming else ""
        self.watch.clear()
        self.watch_confirming = False
