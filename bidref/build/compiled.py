"""The optional mypyc-compiled build of the rules core (issue 16; docs/perf.md).

``import bidref.rules`` is always pure Python. Where a C compiler exists,
``make compiled`` (``python -m bidref.build.compiled``) builds a second copy of
the ``bidref`` package into ``build/compiled/`` in which the hot modules of
``bidref.rules`` and ``bidref.engines_ai`` (:data:`COMPILED_MODULES`) are C
extensions made by mypyc from the very same sources. Putting that directory
first on ``PYTHONPATH`` selects it; nothing else changes, and the compiled
modules behave identically (the rules and search test suites, and a
differential test of 10,000 matches, run against both builds).

The copy carries a stamp: a digest of the sources it was built from. A build
whose stamp does not match the sources any more is stale, and
:func:`fresh_build` does not offer it.

This module uses only the standard library and no other part of ``bidref``, so
that a launcher (``sample_engines/python_strong``) can load it by file path to
decide which build to import before importing any of ``bidref``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Final

COMPILED_MODULES: Final = (
    "bidref/rules/tiles.py",
    "bidref/rules/layout.py",
    "bidref/rules/_shuffle.py",
    "bidref/rules/opening.py",
    "bidref/rules/events.py",
    "bidref/rules/phase.py",
    "bidref/rules/match.py",
    "bidref/rules/explain.py",
    "bidref/rules/scoring.py",
    "bidref/rules/determinize.py",
    # The search engine's playout policy and search loop, which run on top.
    "bidref/engines_ai/greedy.py",
    "bidref/engines_ai/inference.py",
    "bidref/engines_ai/search.py",
    # What `bidref replay` does for every decision (issue 15): regenerate the
    # request line the engine was sent and check it, apply the reply, check the
    # clock. The referee writes its requests with the same encoder.
    "bidref/protocol/fastview.py",
    "bidref/transcript/replay/seats.py",
    "bidref/transcript/replay/decisions.py",
    "bidref/transcript/replay/game.py",
    "bidref/transcript/replay/clock.py",
    "bidref/transcript/replay/fold.py",
    "bidref/transcript/replay/report.py",
    "bidref/rules/clock.py",
)
"""The modules mypyc compiles: the rules core's playout path and the strong
engine's search (``bidref.engines_ai``) that drives it, the request encoder,
and the per-decision part of replay. Two on the playout path stay interpreted,
so that they behave identically for every input: ``actions.py`` (mypyc refuses a
``ClassVar`` on a slotted dataclass, ``Bid.kind``; ``apply`` tests actions by
identity on its fast path) and ``deal.py`` (a compiled dataclass would refuse
hands given as lists, which ``Deal`` accepts; its shuffle, ``_shuffle.py``, is
compiled). ``view.py`` and ``describe.py`` are not on the path. The ``bidref``
program runs on this build wherever it is fresh (``bidref.launch.select_build``);
``make test-compiled`` runs the rules, search, protocol and replay tests on it."""

BUILD_DIR: Final = Path("build") / "compiled"
STAMP_NAME: Final = "bidref-compiled.stamp"
FILES_NAME: Final = "bidref-compiled.files"
"""Beside the stamp: a digest of the sources' names, sizes and modification times
when the build was last found fresh (see :func:`quick_fresh_build`)."""
PACKAGE_ROOT: Final = Path(__file__).resolve().parents[2]  # holds the bidref package


class CompileError(RuntimeError):
    """The compiled build could not be made (no mypyc, no C compiler, a type error)."""


def source_digest(root: Path = PACKAGE_ROOT) -> str:
    """A digest of every file of the ``bidref`` package under ``root``, and of
    the Python that will import the build (an extension is made for one ABI)."""
    h = hashlib.sha256(f"{sys.implementation.cache_tag}\n".encode())
    pkg = root / "bidref"
    for path in sorted(pkg.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".so":
            h.update(str(path.relative_to(root)).encode() + b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()


def fresh_build(root: Path = PACKAGE_ROOT) -> Path | None:
    """The compiled build under ``root`` if it exists and matches the sources, else None."""
    dest = root / BUILD_DIR
    try:
        stamp = (dest / STAMP_NAME).read_text().strip()
    except OSError:
        return None
    return dest if stamp == source_digest(root) else None


def files_digest(root: Path = PACKAGE_ROOT) -> str:
    """A digest of the name, size and modification time of every file that
    :func:`source_digest` reads: a few stat calls instead of reading them all."""
    h = hashlib.sha256(f"{sys.implementation.cache_tag}\n".encode())
    pkg = root / "bidref"
    for path in sorted(pkg.rglob("*")):
        if "__pycache__" in path.parts or path.suffix == ".so":
            continue
        st = path.stat()
        if not path.is_dir():
            h.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def quick_fresh_build(root: Path = PACKAGE_ROOT) -> Path | None:
    """:func:`fresh_build`, for the start of every ``bidref`` command (about 1 ms,
    where reading every source takes about 60 ms): the build is taken if no
    source's size or modification time changed since it was last found fresh.
    A source touched but not changed makes it look stale until ``make compiled``
    (which then only confirms the build) is run again: the safe side."""
    dest = root / BUILD_DIR
    try:
        recorded = (dest / FILES_NAME).read_text().strip()
        (dest / STAMP_NAME).stat()
    except OSError:
        return None
    try:
        return dest if recorded == files_digest(root) else None
    except OSError:  # a file vanished while we looked
        return None


def is_compiled() -> bool:
    """True if the ``bidref.rules`` imported in this process is the compiled build."""
    from bidref.rules import match

    return is_compiled_module(match)


def is_compiled_module(module: ModuleType) -> bool:
    """True if ``module``, as imported in this process, is a compiled extension."""
    return not (module.__file__ or "").endswith(".py")


def build(root: Path = PACKAGE_ROOT, *, force: bool = False) -> Path:
    """Build (or keep, if fresh) ``root/build/compiled``; return its path.

    Copies the package, runs mypyc over :data:`COMPILED_MODULES` inside the
    copy (mypyc writes its C and object files under the copy's own ``build/``),
    then writes the stamp last, so an interrupted build is never taken for a
    fresh one. Raises :class:`CompileError` with mypyc's output on failure.
    """
    dest = root / BUILD_DIR
    # The stat digest first: a source edited while we read or build makes the
    # build look stale, never fresh.
    files = files_digest(root)
    digest = source_digest(root)
    if not force and fresh_build(root) is not None:
        (dest / FILES_NAME).write_text(files + "\n")
        return dest
    work = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copytree(
        root / "bidref",
        work / "bidref",
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
    )
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.setdefault("MYPYC_OPT_LEVEL", "3")
    proc = subprocess.run(
        [sys.executable, "-m", "mypyc", *COMPILED_MODULES],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-30:])
        raise CompileError(
            f"mypyc failed (exit {proc.returncode}) building {work}; it needs mypy "
            f"(pip install -e '.[test]') and a C compiler:\n{tail}"
        )
    shutil.rmtree(work / "build", ignore_errors=True)  # C sources and object files
    (work / STAMP_NAME).write_text(digest + "\n")
    (work / FILES_NAME).write_text(files + "\n")
    shutil.rmtree(dest, ignore_errors=True)
    work.rename(dest)
    return dest


def main(argv: list[str] | None = None) -> int:
    """``python -m bidref.build.compiled [--force]``: build, then print the path."""
    args = sys.argv[1:] if argv is None else argv
    try:
        path = build(force="--force" in args)
    except CompileError as e:
        sys.stderr.write(f"error: {e}\n")
        return 1
    sys.stdout.write(f"compiled rules build: {path} (use it with PYTHONPATH={path})\n")
    return 0


if __name__ == "__main__":  # the build's command line: only this block writes output
    sys.exit(main())
