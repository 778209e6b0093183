"""Engines identified by content: their files' sha256, checked, and shipped to workers.

When a tournament is created, each engine's files are hashed (:func:`fingerprint`)
and the digests recorded in the results header. Which files: the program (the
first word of the command, or, when later words name files, those files: the
first word is then their interpreter, looked up where the match runs) and, for an
engine with a folder (``cwd``, e.g. an engine file's folder), every file in it.

A cluster worker checks the digests before each match (:func:`verify`) and
refuses to play another build. With ``--ship-engines`` it gets the files by
digest instead (:class:`EngineCache`): a content-addressed folder per worker,
kept across runs, where each engine is laid out as on the coordinator.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import UsageError
from .model import EngineEntry

MAX_FOLDER_FILES = 2_000
MAX_FOLDER_BYTES = 1 << 30
# Not part of a build: caches, version control, virtual environments (not portable).
SKIP_DIRS = frozenset(
    {"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".venv"}
)
CACHE_ENV = "BIDREF_ENGINE_CACHE"
log = logging.getLogger(__name__)
_CHUNK = 1 << 20


class EngineFilesError(UsageError, ValueError):  # ValueError: as before, for one release
    """An engine whose files cannot be hashed or shipped (the message says the fix)."""


def _is_file(word: str) -> bool:
    return os.path.isabs(word) and os.path.isfile(word)


def program_files(entry: EngineEntry) -> list[str]:
    """The files of an engine's command: its argument files, else its program."""
    args = [w for w in entry.command[1:] if _is_file(w)]
    if args:
        return args
    return [entry.command[0]] if entry.command and _is_file(entry.command[0]) else []


def interpreter(entry: EngineEntry) -> str | None:
    """The first word of a command whose later words name files (``python3 x.py``)."""
    if len(entry.command) > 1 and any(_is_file(w) for w in entry.command[1:]):
        return entry.command[0]
    return None


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def escaping_link(path: str, folder: str) -> str | None:
    """Where ``path`` really leads when it is (or passes through) a symlink out of
    ``folder``; None when it stays inside."""
    real = os.path.realpath(path)
    return None if _inside(real, os.path.realpath(folder)) else real


def _refuse_link(name: str, path: str, target: str) -> EngineFilesError:
    # A link out of the folder would make bidref read (and ship) a file the
    # engine's author chose anywhere on this machine: /etc/shadow, a key.
    return EngineFilesError(
        f"engine {name!r}: {path} is a symlink to {target}, outside the engine's folder; "
        "an engine's files are its own: copy the file into its folder instead"
    )


def _folder_files(folder: Path, name: str) -> list[str] | None:
    """The files in an engine's folder; None when there are too many to be its own.
    Raises :class:`EngineFilesError` for a symlink that leads out of the folder."""
    found: list[str] = []
    size = 0
    for root, dirs, files in os.walk(folder):  # (links to folders are not followed)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for f in sorted(files):
            path = os.path.join(root, f)
            target = escaping_link(path, str(folder)) if os.path.islink(path) else None
            if target is not None:
                raise _refuse_link(name, path, target)
            if not os.path.isfile(path):  # a dangling link, a socket
                continue
            found.append(path)
            size += os.path.getsize(path)
            if len(found) > MAX_FOLDER_FILES or size > MAX_FOLDER_BYTES:
                log.warning(
                    "engine %s: its folder %s holds more than %d files or %d MiB: only its "
                    "program is identified (and shipped); give it a folder of its own",
                    name,
                    folder,
                    MAX_FOLDER_FILES,
                    MAX_FOLDER_BYTES >> 20,
                )
                return None
    return found


def engine_files(entry: EngineEntry) -> list[str]:
    """Every file that makes the engine, absolute paths, sorted."""
    files = set(program_files(entry))
    if entry.cwd and os.path.isdir(entry.cwd):
        files.update(_folder_files(Path(entry.cwd), entry.name) or ())
    return sorted(files)


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def fingerprint(entry: EngineEntry) -> EngineEntry:
    """``entry`` with the sha256 of each of its files recorded."""
    files: dict[str, str] = {}
    for path in engine_files(entry):
        digest = DIGESTS.of(path)  # (remembered: the resume check reads it again)
        if digest is None:
            raise EngineFilesError(
                f"engine {entry.name!r}: cannot read {path!r} to identify it; make it readable"
            )
        files[path] = digest
    return replace(entry, files=files)


@dataclass(frozen=True)
class Mismatch:
    """An engine file that is not the recorded build (``found`` None: missing)."""

    engine: str
    path: str
    expected: str
    found: str | None

    def text(self, where: str = "here", fix: str | None = None) -> str:
        if self.found is None:
            return f"engine {self.engine!r}: {self.path} is missing {where}; " + (
                fix
                or f"put the recorded build there (sha256 {self.expected[:12]}), "
                "or use --ship-engines"
            )
        return (
            f"engine {self.engine!r}: {self.path} {where} is another build (sha256 "
            f"{self.found[:12]}, recorded {self.expected[:12]}); "
            + (fix or "restore the recorded build, or use --ship-engines")
        )


class _Digests:
    """sha256 of files, remembered while a file's identity and times stay the same,
    so checking a large engine before every match costs one stat per file."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, tuple[tuple[int, ...], str]] = {}

    def of(self, path: str) -> str | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        with self._lock:
            known = self._known.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            digest = sha256_file(path)
        except OSError:
            return None
        with self._lock:
            self._known[path] = (stamp, digest)
        return digest


DIGESTS = _Digests()


def verify(engine: str, files: Mapping[str, str]) -> Mismatch | None:
    """The first file of ``files`` (path: sha256) that differs here, if any."""
    for path, expected in sorted(files.items()):
        found = DIGESTS.of(path)
        if found != expected:
            return Mismatch(engine, path, expected, found)
    return None


def changed(entries: Iterable[EngineEntry]) -> list[Mismatch]:
    """The recorded engine files that differ on this machine now (at a resume)."""
    out = []
    for e in entries:
        m = verify(e.name, e.files)
        if m is not None:
            out.append(m)
    return out


# --- shipping -------------------------------------------------------------------


@dataclass(frozen=True)
class Bundle:
    """One engine as files to lay out on a worker: (coordinator path, path in the
    bundle, sha256, mode) each, paths in the bundle relative to the engine's folder."""

    engine: str
    root: str  # the coordinator's folder the bundle's paths are relative to
    files: tuple[tuple[str, str, str, int], ...]

    @property
    def digest(self) -> str:
        text = "\n".join(f"{rel}\0{sha}\0{mode:o}" for _, rel, sha, mode in self.files)
        return hashlib.sha256(text.encode()).hexdigest()

    def where(self, path: str) -> str:
        """The path in the bundle of a coordinator path."""
        return {src: rel for src, rel, _, _ in self.files}[path]


def bundle_of(entry: EngineEntry) -> Bundle:
    """The shipping list of ``entry`` (its recorded files, with their modes here)."""
    programs = program_files(entry)
    root = entry.cwd or (os.path.dirname(programs[0]) if programs else os.sep)
    files = []
    for path, sha in sorted(entry.files.items()):
        try:
            mode = os.stat(path).st_mode & 0o777
        except OSError as exc:
            raise EngineFilesError(
                f"--ship-engines: engine {entry.name!r}: cannot read {path!r} "
                f"({exc.strerror}); make it readable"
            ) from None
        rel = os.path.relpath(path, root)
        inside = not (rel == os.pardir or rel.startswith(os.pardir + os.sep))
        target = escaping_link(path, root) if inside and os.path.islink(path) else None
        if target is not None:  # planted since the tournament recorded the engine
            raise _refuse_link(entry.name, path, target)
        if not inside:
            # outside the engine's folder: kept apart, by digest (names may clash)
            rel = os.path.join("_outside", sha[:16], os.path.basename(path))
        files.append((path, rel, sha, mode))
    return Bundle(entry.name, root, tuple(files))


def default_cache_dir() -> Path:
    """``$BIDREF_ENGINE_CACHE``, else ``$XDG_CACHE_HOME/bidref/engines`` (~/.cache)."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bidref" / "engines"


class EngineCache:
    """A content-addressed folder: ``blobs/SHA256`` and ``engines/DIGEST/`` layouts.

    Everything is written to a temporary name and renamed into place, so two
    workers sharing the folder, or a worker killed mid-write, leave nothing torn.

    Who may read it: the cache folder, made by bidref, is its owner's alone
    (0700: no other account on the worker can even look in); each laid-out
    engine folder is open to read (0755, its files with their shipped modes),
    because the jail binds that folder itself into the engine's view, where the
    seat's own account must read it (``--sandbox strict``; without it, ``auto``
    would run the engine without its account). A cache folder the operator made
    keeps the mode the operator gave it.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def _made(self, folder: Path) -> None:
        """``folder`` (in the cache) made if missing; the cache folder itself 0700."""
        if not self.root.is_dir():
            self.root.mkdir(parents=True, exist_ok=True)
            os.chmod(self.root, 0o700)
        folder.mkdir(parents=True, exist_ok=True)

    def blob(self, sha: str) -> Path:
        return self.root / "blobs" / sha

    def missing(self, bundles: Iterable[Bundle], have: Iterable[str] = ()) -> list[str]:
        """Digests of files neither laid out already nor stored (nor in ``have``)."""
        given = set(have)
        out: list[str] = []
        for b in bundles:
            if (self.root / "engines" / b.digest).is_dir():
                continue
            out += [
                sha
                for _, _, sha, _ in b.files
                if sha not in given and sha not in out and not self.blob(sha).is_file()
            ]
        return out

    def put(self, sha: str, data: bytes) -> None:
        if hashlib.sha256(data).hexdigest() != sha:
            raise EngineFilesError(f"shipped file {sha[:12]} arrived damaged; run again")
        target = self.blob(sha)
        if target.is_file():
            return
        self._made(target.parent)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)

    def lay_out(self, bundle: Bundle) -> Path:
        """The engine's folder in the cache, made from the stored files if new."""
        folder = self.root / "engines" / bundle.digest
        if folder.is_dir():
            _open_to_seats(folder)  # (laid out by an older bidref: 0700)
            return folder
        self._made(folder.parent)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".part-"))
        try:
            for _, rel, sha, mode in bundle.files:
                dest = tmp / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(self.blob(sha), dest)
                os.chmod(dest, mode)
            _open_to_seats(tmp)
            os.rename(tmp, folder)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
            if not folder.is_dir():  # (else another worker laid it out first)
                raise
        return folder


def _open_to_seats(layout: Path) -> None:
    """The folders of a layout bidref made, readable by the seats' accounts (0755)."""
    if os.stat(layout).st_uid != os.geteuid() or (os.stat(layout).st_mode & 0o777) == 0o755:
        return
    for root, dirs, _files in os.walk(layout):
        os.chmod(root, 0o755)
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)


def localise(
    entry: EngineEntry, bundle: Bundle | None, folder: Path | None, python: str
) -> EngineEntry:
    """``entry`` as this worker runs it: its files in ``folder`` (shipped), its
    ``files`` the paths to check here, the coordinator's Python (``python``,
    which runs ``.py`` engines) this process's own."""
    command = list(entry.command)
    files = dict(entry.files)
    cwd = entry.cwd
    if bundle is not None and folder is not None:
        moved = {src: str(folder / bundle.where(src)) for src in entry.files}
        command = [moved.get(w, w) for w in command]
        files = {moved[p]: sha for p, sha in entry.files.items()}
        if cwd is not None:
            cwd = str(folder / os.path.relpath(cwd, bundle.root))
    if command and command[0] == python:
        command[0] = sys.executable
    return replace(entry, command=tuple(command), cwd=cwd, files=files)


def interpreter_problem(entry: EngineEntry) -> str | None:
    """Why this machine cannot run ``entry``'s interpreter, if it cannot."""
    word = interpreter(entry)
    if word is None:
        return None
    if os.path.isabs(word):
        if os.access(word, os.X_OK):
            return None
        return f"engine {entry.name!r} needs the interpreter {word}, which is not here"
    if shutil.which(word, path=entry.env.get("PATH", os.environ.get("PATH"))) is not None:
        return None
    return f"engine {entry.name!r} needs the interpreter {word!r}, which is not on the PATH here"
