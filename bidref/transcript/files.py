"""Transcript files, plain or compressed by their name: ``.gz`` (gzip, standard library)
or ``.zst`` (Zstandard, the optional ``zstandard`` package: ``pip install bidref[zstd]``).

A compressed transcript is flushed at every step like a plain one (a sync flush of
the compressor), so a killed referee leaves a file whose every whole line can be
read back: :func:`read_bytes` returns what decompresses, and a cut stream is not
an error here (the reader then sees an unfinished last line, as with a plain file).
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import IO, Any, Protocol

from bidref.errors import UsageError


class TranscriptFileError(UsageError, ValueError):  # ValueError: as before, for one release
    """A transcript file that cannot be read or written as its name says."""


class Sink(Protocol):
    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


def _zstd() -> Any:
    try:
        import zstandard
    except ImportError:
        raise TranscriptFileError(
            "a .zst transcript needs the zstandard package: pip install 'bidref[zstd]' "
            "(or name the file .jsonl.gz for gzip)"
        ) from None
    return zstandard


class _Plain:
    def __init__(self, f: IO[bytes]) -> None:
        self.f = f

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:  # a regular file takes it all at once; a pipe may not
            n = self.f.write(view)
            view = view[n or 0 :]

    def close(self) -> None:
        self.f.close()


class _Gzip(_Plain):
    def __init__(self, f: IO[bytes]) -> None:
        super().__init__(f)
        self.z = zlib.compressobj(6, zlib.DEFLATED, 31)  # wbits 31: a gzip stream

    def write(self, data: bytes) -> None:
        super().write(self.z.compress(data) + self.z.flush(zlib.Z_SYNC_FLUSH))

    def close(self) -> None:
        super().write(self.z.flush(zlib.Z_FINISH))
        super().close()


class _Zstd(_Plain):
    def __init__(self, f: IO[bytes]) -> None:
        super().__init__(f)
        self.zstd = _zstd()
        self.z = self.zstd.ZstdCompressor(level=3).compressobj()

    def write(self, data: bytes) -> None:
        out = self.z.compress(data) + self.z.flush(self.zstd.COMPRESSOBJ_FLUSH_BLOCK)
        super().write(out)

    def close(self) -> None:
        super().write(self.z.flush())
        super().close()


def compression_of(path: Path | str) -> str | None:
    name = str(path)
    return "gzip" if name.endswith(".gz") else "zstd" if name.endswith(".zst") else None


def open_sink(path: Path) -> Sink:
    """An unbuffered writer of ``path``: every ``write`` reaches the file at once."""
    kind = compression_of(path)
    if kind == "zstd":
        _zstd()  # fail before the file is made
    f = path.open("wb", buffering=0)
    if kind == "gzip":
        return _Gzip(f)
    if kind == "zstd":
        return _Zstd(f)
    return _Plain(f)


def decompress(data: bytes, name: str) -> bytes:
    """The bytes of a transcript read from a file called ``name`` (decompressed by
    its name, or by its magic number: gzip 1f 8b, Zstandard 28 b5 2f fd)."""
    if data[:2] == b"\x1f\x8b" or (name.endswith(".gz") and data):
        try:
            out = zlib.decompressobj(47).decompress(data)  # gzip or zlib header
        except zlib.error as e:
            raise TranscriptFileError(f"not a readable gzip file: {e}") from None
        if not out and len(data) > 20:
            raise TranscriptFileError("not a readable gzip file: nothing in it decompresses")
        return out
    if data[:4] == b"\x28\xb5\x2f\xfd" or (name.endswith(".zst") and data):
        try:
            return bytes(_zstd().ZstdDecompressor().decompressobj().decompress(data))
        except TranscriptFileError:
            raise
        except Exception as e:  # zstandard.ZstdError
            raise TranscriptFileError(f"not a readable Zstandard file: {e}") from None
    return data


def looks_like_transcript(data: bytes) -> bool:
    """``data`` is a transcript (compressed, or a first line that is a header
    object), not a move file: for commands that are given the wrong one."""
    if data[:2] == b"\x1f\x8b" or data[:4] == b"\x28\xb5\x2f\xfd":
        return True
    first = data.lstrip()[:4096].split(b"\n", 1)[0]
    if not first.startswith(b"{"):
        return False
    try:
        obj = json.loads(first)
    except ValueError:
        return False
    return isinstance(obj, dict) and obj.get("type") == "header"


def read_bytes(path: Path) -> bytes:
    """A transcript's bytes, decompressed (raises OSError, TranscriptFileError)."""
    return decompress(path.read_bytes(), str(path))
