"""Engine text made safe to show on a terminal (issue 40, item 5).

Everything an engine controls (its hello name, its stderr, its log lines, the
name its engine file or file name gives it) is hostile: an escape sequence in
it would otherwise reach the operator's terminal raw and set the window title
(``ESC ] 0 ; ... BEL``), clear the screen (``ESC [ 2 J``), write the clipboard
(OSC 52) or, with a bidi override, make a line read other than it is. So every
place that shows such text shows :func:`visible` of it: each control character
(C0, DEL, C1), and each bidi control or line separator, becomes a visible
escape, ``\\x1b`` or ``\\u202e``, the form Python's ``repr`` uses.

A backslash is left as it is (a Windows path stays readable): an escape shown
here is told apart from a typed one by the context, never acted on.

This module imports nothing of bidref, so that every layer may use it.

>>> visible("a\\x1b]0;title\\x07b")
'a\\\\x1b]0;title\\\\x07b'
>>> visible("line 1\\nline 2\\tend", lines=True)
'line 1\\nline 2\\tend'
>>> visible("line 1\\nline 2")
'line 1\\\\nline 2'
>>> visible("\\u202eevil")
'\\\\u202eevil'
"""

from __future__ import annotations

from typing import Final

__all__ = ["visible"]

# Bidi embeddings, overrides, isolates and marks, and the Unicode line and
# paragraph separators: each changes how the rest of a line is laid out.
_LAYOUT: Final = (
    0x061C,
    0x200E,
    0x200F,
    0x2028,
    0x2029,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
)


def _escape(code: int) -> str:
    named = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}
    if code in named:
        return named[code]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_ONE_LINE: Final[dict[int, str]] = {
    c: _escape(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0), *_LAYOUT]
}
# A multi-line text (a stderr tail) keeps its line breaks and tabs.
_LINES: Final[dict[int, str]] = {
    c: s for c, s in _ONE_LINE.items() if c not in (ord("\n"), ord("\t"))
}


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character shown as a visible escape; with
    ``lines``, newlines and tabs are kept (a stderr tail shown as lines)."""
    return text.translate(_LINES if lines else _ONE_LINE)
