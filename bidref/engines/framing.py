"""Line framing: bytes in, complete UTF-8 lines out, with a maximum line length.

>>> f = LineFramer(max_line=16)
>>> f.feed(b'{"a":1}\\n{"b"')
['{"a":1}']
>>> f.feed(b':2}\\r\\n')
['{"b":2}']
>>> f.feed(b'x' * 20)
[LineTooLong('a line of more than 16 bytes (starts ...)')]
"""

from __future__ import annotations

from typing import Final

MAX_LINE: Final = 1 << 20  # 1 MiB


class LineTooLong(Exception):
    """A line longer than the framer's limit. ``prefix`` is its start (decoded)."""

    def __init__(self, prefix: str, length: int, limit: int) -> None:
        self.prefix = prefix
        self.length = length
        self.limit = limit
        super().__init__(f"a line of more than {limit} bytes (starts ...)")


class LineFramer:
    """Split a byte stream into lines. A trailing ``\\r`` is dropped (pty output).

    Invalid UTF-8 is replaced (U+FFFD), so the codec then reports the line as bad
    JSON while quoting what it can. A line over ``max_line`` bytes is reported
    once as a :class:`LineTooLong` item and the rest of it is discarded.
    """

    __slots__ = ("_buf", "_discarding", "max_line")

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._buf = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> list[str | LineTooLong]:
        """The lines (and over-long line reports) completed by ``data``."""
        buf = self._buf
        buf += data
        out: list[str | LineTooLong] = []
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            if self._discarding:
                self._discarding = False
            elif nl - start > self.max_line:
                out.append(self._too_long(bytes(buf[start : start + 200]), nl - start))
            else:
                raw = bytes(buf[start:nl])
                if raw.endswith(b"\r"):
                    raw = raw[:-1]
                out.append(raw.decode("utf-8", "replace"))
            start = nl + 1
        del buf[:start]
        if len(buf) > self.max_line:
            if not self._discarding:
                out.append(self._too_long(bytes(buf[:200]), len(buf)))
                self._discarding = True
            buf.clear()
        elif self._discarding:
            buf.clear()
        return out

    def _too_long(self, head: bytes, length: int) -> LineTooLong:
        return LineTooLong(head.decode("utf-8", "replace"), length, self.max_line)

    def rest(self) -> str:
        """What is left after the last newline (at end of stream)."""
        return bytes(self._buf).decode("utf-8", "replace")
