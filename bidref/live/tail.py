"""A transcript read as it grows: each call returns the whole lines written since.

The referee flushes every step, compressed or not (a sync flush of gzip or
Zstandard), so the bytes on disk always decompress up to the last step. A tail
keeps its offset and its decompressor and reads only what is new; a file that
was replaced (a new inode, or shorter than what was read: a cluster's transcript
brought home over a partial copy) is read again from its start.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Any

MAX_PENDING = 4 << 20  # bytes of an unfinished line kept: more is not a transcript line
READ_CHUNK = 1 << 20  # bytes read per call at most (a long match is caught up over calls)


class _Identity:
    def decompress(self, data: bytes) -> bytes:
        return data


def _decompressor(path: Path) -> Any:
    name = path.name
    if name.endswith(".gz"):
        return zlib.decompressobj(47)  # gzip or zlib header
    if name.endswith(".zst"):
        try:
            import zstandard
        except ImportError:
            return None
        return zstandard.ZstdDecompressor().decompressobj()
    return _Identity()


class Tail:
    """The new whole lines of one transcript file, call after call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.inode: int | None = None
        self.mtime_ns = 0
        self.broken: str | None = None  # why the file cannot be read on
        self._z = _decompressor(path)
        self._pending = b""

    def _restart(self) -> None:
        self.offset = 0
        self._pending = b""
        self._z = _decompressor(self.path)
        self.broken = None

    def poll(self) -> tuple[list[bytes], bool]:
        """(the new whole lines, whether the file started over: forget what it said)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return [], False
        restarted = False
        if self.inode is not None and (st.st_ino != self.inode or st.st_size < self.offset):
            self._restart()
            restarted = True
        self.inode = st.st_ino
        if st.st_size == self.offset or self.broken is not None:
            return [], restarted
        if self._z is None:
            self.broken = "a .zst transcript needs the zstandard package"
            return [], restarted
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read(min(READ_CHUNK, st.st_size - self.offset))
        except OSError:
            return [], restarted
        self.offset += len(data)
        self.mtime_ns = st.st_mtime_ns
        try:
            text = self._z.decompress(data)
        except Exception as e:  # zlib.error, zstandard.ZstdError: not what the referee writes
            self.broken = f"cannot decompress: {e}"
            return [], restarted
        buf = self._pending + text
        *lines, self._pending = buf.split(b"\n")
        if len(self._pending) > MAX_PENDING:
            self.broken = f"a line longer than {MAX_PENDING} bytes"
            self._pending = b""
        return lines, restarted
