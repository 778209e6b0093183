"""An engine's files are untrusted input (issue 40, item 6): a changed engine is
refused before its next match, a symlink out of its folder is neither hashed nor
shipped, and shipped engines run in the strict jail as at home."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bidref.outcome import AbortCause
from bidref.sandbox.policy import SandboxConfig
from bidref.tournament import MatchReport, ResultsStore, run
from bidref.tournament.cluster import NeedFiles, Shipment, play_task
from bidref.tournament.local import LocalBackend
from bidref.tournament.model import EngineEntry, MatchSettings
from bidref.tournament.play import play_match
from bidref.tournament.runner import RESULTS_FILE, Plan, new_header
from bidref.tournament.security import checked_play
from bidref.tournament.shipping import (
    EngineCache,
    EngineFilesError,
    bundle_of,
    fingerprint,
)
from tests.sample_build import build_c_engines
from tests.sandbox.conftest import root_with_jail

from .tournament_fakes import fake_play

REPO = Path(__file__).resolve().parents[2]
C_FIRST = REPO / "sample_engines" / "c_first" / "engine"
RANDOM = REPO / "sample_engines" / "python_random" / "engine.py"
BIDREF = [sys.executable, "-c", "from bidref.cli import main; main()"]
needs_root = pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))


def _engine_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "entrant"
    folder.mkdir()
    (folder / "engine.py").write_text(RANDOM.read_text())
    return folder


def test_a_symlink_out_of_the_engine_folder_is_refused_not_hashed(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"  # standing in for /etc/shadow
    secret.write_text("root:$6$secret-hash:19000:0:99999:7:::\n")
    folder = _engine_folder(tmp_path)
    (folder / "book.txt").symlink_to(secret)
    entry = EngineEntry("x", str(folder), (sys.executable, str(folder / "engine.py")), str(folder))
    with pytest.raises(EngineFilesError) as refused:
        fingerprint(entry)
    text = str(refused.value)
    assert str(folder / "book.txt") in text and "outside" in text and str(secret) in text


def test_a_symlink_planted_after_the_fingerprint_is_not_shipped(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$secret-hash\n")
    folder = _engine_folder(tmp_path)
    (folder / "book.txt").write_text("an opening book")
    entry = fingerprint(
        EngineEntry("x", str(folder), (sys.executable, str(folder / "engine.py")), str(folder))
    )
    (folder / "book.txt").unlink()
    (folder / "book.txt").symlink_to(secret)  # the engine rewrote its folder
    with pytest.raises(EngineFilesError) as refused:
        bundle_of(entry)
    assert "outside" in str(refused.value)


def test_a_symlink_inside_the_folder_is_fine(tmp_path: Path) -> None:
    folder = _engine_folder(tmp_path)
    (folder / "data.txt").write_text("weights")
    (folder / "link.txt").symlink_to(folder / "data.txt")
    entry = EngineEntry("x", str(folder), (sys.executable, str(folder / "engine.py")), str(folder))
    assert str(folder / "link.txt") in fingerprint(entry).files


def test_a_local_match_refuses_an_engine_changed_since_it_was_recorded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = _engine_folder(tmp_path)
    a = fingerprint(
        EngineEntry("a", "fake", ("fake",), str(folder))  # (fake_play reads the command)
    )
    header = new_header(
        "round-robin", [a, EngineEntry("b", "fake", ("fake",))], [1, 2], MatchSettings(),
        master_seed=1, deal_book=None,
    )  # fmt: skip
    plan = Plan(header, tmp_path / "out")
    store = ResultsStore.create(plan.out_dir / RESULTS_FILE, header)
    (folder / "engine.py").write_text("# rewritten by the engine itself\n")
    with LocalBackend(lambda job: checked_play(fake_play, job), 1, mode="thread") as backend:
        summary = run(plan, store, backend)
    assert summary.done == 0 and len(summary.refused) == 4 and not summary.unresolved
    assert len(store.records) == 4  # each tried once: not played again
    for r in store.records:
        assert not r.rated and r.detail["cause"] == AbortCause.ENGINE_CHANGED
        assert r.detail["file"] == str(folder / "engine.py") and r.transcript is not None
        assert not (plan.out_dir / r.transcript).exists()  # never played
    assert "another build" in caplog.text and "not played" in caplog.text


def test_an_engine_that_rewrites_its_own_program_is_refused_from_its_next_match(
    tmp_path: Path,
) -> None:
    """End to end: the engine appends to its program while it plays its first match."""
    if not C_FIRST.exists():
        build_c_engines()
    folder = tmp_path / "rewriter"
    folder.mkdir()
    program = folder / "engine.py"
    main = 'if __name__ == "__main__":\n'
    rewrite = "    open(__import__('sys').argv[0], 'a').write('# changed\\n')\n"
    assert main in RANDOM.read_text()
    program.write_text(RANDOM.read_text().replace(main, main + rewrite))
    out = tmp_path / "out"
    done = subprocess.run(
        [*BIDREF, "tournament", f"rw={program}", f"c={C_FIRST}", "--deals", "2", "--seed", "5",
         "--bank", "30", "--delay", "3", "-j", "1", "--sandbox", "off", "--out", str(out),
         "--json"],
        capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr.decode()
    summary = json.loads(done.stdout)
    assert summary["done"] == 1 and len(summary["refused"]) == 3 and not summary["unresolved"]
    err = done.stderr.decode()
    assert "not played" in err and str(program) in err and "another build" in err
    assert "3 matches were not played: an engine changed" in err
    store = ResultsStore.open(out / RESULTS_FILE)
    assert [r.detail.get("cause") for r in store.records[1:]] == [AbortCause.ENGINE_CHANGED] * 3


@needs_root
def test_shipped_engines_run_in_the_strict_jail_on_a_worker(tmp_path: Path) -> None:
    if not C_FIRST.exists():
        build_c_engines()
    home = tmp_path / "coordinator"
    home.mkdir()
    for name, source in (("c", C_FIRST), ("r", RANDOM)):
        (home / name).mkdir()
        shutil.copy2(source, home / name / source.name)
        (home / name).chmod(0o755)
    entries = [
        fingerprint(EngineEntry("c", "c", (str(home / "c" / "engine"),))),
        fingerprint(EngineEntry("r", "r", (sys.executable, str(home / "r" / "engine.py")))),
    ]
    header = new_header("round-robin", entries, [9], MatchSettings(bank_ms=30_000, delay_ms=3_000),
                        master_seed=1, deal_book=None)  # fmt: skip
    plan = Plan(header, tmp_path / "out", sandbox=SandboxConfig(level="strict"))
    job = plan.job(plan.keys[0], 1)
    shipment = Shipment(sys.executable, {e.name: bundle_of(e) for e in entries})
    cache = tmp_path / "worker" / "cache"
    old = os.umask(0o077)  # a worker run by an operator with a private umask
    try:
        need = play_task(play_match, job, shipment, None, str(cache))
        assert isinstance(need, NeedFiles)
        blobs = {sha: Path(p).read_bytes() for e in entries for p, sha in e.files.items()}
        report = play_task(play_match, job, shipment, blobs, str(cache))
    finally:
        os.umask(old)
    assert isinstance(report, MatchReport)
    assert report.rated, report.detail
    jails = report.extra["played_on"]["jails"]  # type: ignore[index]
    assert all("account" in j for j in jails), jails
    # the cache: closed to everybody but its owner; the laid-out engines open to the seats
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    for folder in (cache / "engines").iterdir():
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755
        assert all(stat.S_IMODE(f.stat().st_mode) & 0o004 for f in folder.rglob("*"))
    assert set(EngineCache(cache).missing([bundle_of(e) for e in entries])) == set()
