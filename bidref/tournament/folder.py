"""The tournament's output folder: what is refused, replaced and made before a run.

OUT/results.jsonl (the store), OUT/transcripts/ and OUT/debug/ (--debug);
the --export files beside them are checked here too, so that a run never
ends unable to write what it was asked for.
"""

from __future__ import annotations

import os
import shutil
from contextlib import ExitStack
from pathlib import Path

from .runner import DEBUG_DIR, RESULTS_FILE, TRANSCRIPTS_DIR, Plan, TournamentError
from .store import ResultsStore, hold


def refuse_old_results(out: Path) -> None:
    """A new tournament does not write over one in ``out`` (without --force)."""
    results = out / RESULTS_FILE
    if results.is_file() and results.stat().st_size > 0:
        raise TournamentError(
            f"results file {str(results)!r} already exists: add --resume to continue "
            "that tournament, --force to replace it, or choose another --out folder"
        )


def check_export_paths(paths: list[Path], *, force: bool) -> None:
    """Export files that could not be written at the end (or would overwrite a
    file, without --force) are refused now."""
    for path in paths:
        if path.suffix.lower() not in (".csv", ".json"):
            raise TournamentError(f"--export {str(path)!r}: give a file ending in .csv or .json")
        if path.is_file() and not force:
            raise TournamentError(
                f"--export {str(path)!r} already exists: add --force to overwrite it, or "
                "give another file"
            )
        why = _why_unwritable(path)
        if why is not None:
            raise TournamentError(f"--export {str(path)!r}: cannot write it there ({why})")


def _why_unwritable(path: Path) -> str | None:
    folder = path.parent
    if path.is_dir():
        return "it is a folder"
    if not folder.is_dir():
        return f"there is no folder {str(folder)!r}"
    if not os.access(folder, os.W_OK):
        return f"the folder {str(folder)!r} is not writable"
    return None


def clear(out: Path) -> None:
    """--force: remove the tournament in ``out`` (results, transcripts, debug logs)."""
    try:
        (out / RESULTS_FILE).unlink(missing_ok=True)
        for sub in (TRANSCRIPTS_DIR, DEBUG_DIR):
            if (out / sub).is_dir():
                shutil.rmtree(out / sub)
    except OSError as exc:
        raise TournamentError(
            f"--force: cannot remove the old tournament in {str(out)!r} ({exc.strerror}); "
            "remove it yourself or choose another --out folder"
        ) from None


def make_transcripts_dir(out: Path) -> None:
    """The transcripts folder, made before any match (workers only add files to it)."""
    folder = out / TRANSCRIPTS_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TournamentError(
            f"cannot write the results and transcripts in {str(out)!r}: cannot "
            f"make {str(folder)!r} ({exc.strerror}); choose another --out "
            "folder"
        ) from None


def start_results(plan: Plan, resources: ExitStack, *, force: bool) -> ResultsStore:
    """A new tournament's results file in ``plan.out_dir``, written with its header,
    held for this run (``resources`` closes the store, then lets go of the file);
    with ``force``, the old tournament there is removed first."""
    out = plan.out_dir
    if force:
        clear(out)
    make_transcripts_dir(out)
    store = ResultsStore.create(out / RESULTS_FILE, plan.header)
    try:
        handle = hold(out / RESULTS_FILE)
    except BaseException:
        store.close()
        raise
    resources.enter_context(handle)
    resources.enter_context(store)
    return store
