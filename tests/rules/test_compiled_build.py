"""The optional compiled build of bidref.rules behaves exactly as the pure one.

``make test-compiled`` runs the whole rules suite against the compiled build;
the tests marked ``compiled_build`` here run only there (they compare it with
the pure build, which they run in a child process).
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bidref import __version__
from bidref.build.compiled import (
    BUILD_DIR,
    COMPILED_MODULES,
    FILES_NAME,
    STAMP_NAME,
    build,
    files_digest,
    fresh_build,
    quick_fresh_build,
    source_digest,
)
from bidref.rules import Match
from tests.rules import differential
from tests.rules.test_wrong_types import STATE_FIELDS

MATCHES = 10_000
HERE = Path(__file__).resolve().parent


def _pure_digests(start: int, count: int) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, str(HERE / "differential.py"), str(start), str(count)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    lines = proc.stdout.split()
    assert lines[0] == "pure", f"the child imported the {lines[0]} build"
    return lines[1:]


@pytest.mark.compiled_build
def test_every_listed_module_is_compiled() -> None:
    for path in COMPILED_MODULES:
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        assert not (module.__file__ or "").endswith(".py"), module.__file__


@pytest.mark.compiled_build
@pytest.mark.timeout(900)  # about 20 s of CPU in each build; a shared machine is slower
def test_10000_random_matches_agree_state_by_state_with_the_pure_build() -> None:
    half = MATCHES // 2
    with ThreadPoolExecutor(2) as pool:
        # The pure build in two children (two cores), the compiled one here.
        parts = [pool.submit(_pure_digests, 0, half), pool.submit(_pure_digests, half, half)]
        compiled = differential.digests(0, MATCHES)
        pure = parts[0].result() + parts[1].result()
    assert len(pure) == len(compiled) == MATCHES
    differ = [seed for seed, (a, b) in enumerate(zip(pure, compiled, strict=True)) if a != b]
    assert not differ, (
        f"{len(differ)} of {MATCHES} matches differ between the builds, first seed "
        f"{differ[0]}: replay it with tests/rules/differential.py {differ[0]} 1"
    )


def test_a_build_is_fresh_only_while_the_sources_are_unchanged(tmp_path: Path) -> None:
    root = Path(differential.__file__).resolve().parents[2]
    shutil.copytree(root / "bidref", tmp_path / "bidref", ignore=shutil.ignore_patterns("*.so"))
    assert fresh_build(tmp_path) is None  # nothing built
    (tmp_path / BUILD_DIR).mkdir(parents=True)
    (tmp_path / BUILD_DIR / STAMP_NAME).write_text(source_digest(tmp_path) + "\n")
    assert fresh_build(tmp_path) == tmp_path / BUILD_DIR
    rules = tmp_path / "bidref" / "rules" / "layout.py"
    rules.write_text(rules.read_text() + "\n# edited\n")
    assert fresh_build(tmp_path) is None  # stale: the stamp names other sources


def _fake_build(root: Path) -> Path:
    """A checkout under ``root`` with a "build" that is a plain copy of the
    package, stamped fresh: what the launcher picks can be told by path."""
    src = Path(differential.__file__).resolve().parents[2] / "bidref"
    skip = shutil.ignore_patterns("*.so", "__pycache__")
    shutil.copytree(src, root / "bidref", ignore=skip)
    dest = root / BUILD_DIR
    shutil.copytree(src, dest / "bidref", ignore=skip)
    (dest / STAMP_NAME).write_text(source_digest(root) + "\n")
    (dest / FILES_NAME).write_text(files_digest(root) + "\n")
    return dest


def test_the_quick_check_takes_a_build_only_while_no_source_was_touched(tmp_path: Path) -> None:
    dest = _fake_build(tmp_path)
    assert quick_fresh_build(tmp_path) == dest
    layout = tmp_path / "bidref" / "rules" / "layout.py"
    st = layout.stat()
    os.utime(layout, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert quick_fresh_build(tmp_path) is None  # touched: stale until confirmed
    assert build(tmp_path) == dest  # unchanged content: confirmed, nothing compiled
    assert quick_fresh_build(tmp_path) == dest
    layout.write_text(layout.read_text() + "\n# edited\n")
    assert quick_fresh_build(tmp_path) is None
    (dest / FILES_NAME).unlink()
    assert quick_fresh_build(tmp_path) is None


_PROBE = (
    "import sys; sys.path.insert(0, sys.argv[1]); from bidref import launch; "
    "print(launch.select_build()); import bidref.rules.match as m; print(m.__file__)"
)


def _launch(root: Path, **env: str) -> list[str]:
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, str(root)],
        env={**base, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return proc.stdout.split()


def test_the_bidref_program_runs_on_a_fresh_build_unless_told_pure(tmp_path: Path) -> None:
    dest = _fake_build(tmp_path)
    env = {"BIDREF_PURE": ""}
    assert _launch(tmp_path, **env) == [str(dest), str(dest / "bidref" / "rules" / "match.py")]
    pure = str(tmp_path / "bidref" / "rules" / "match.py")
    assert _launch(tmp_path, BIDREF_PURE="1") == ["None", pure]
    layout = tmp_path / "bidref" / "rules" / "layout.py"
    layout.write_text(layout.read_text() + "\n# edited\n")
    assert _launch(tmp_path, **env) == ["None", pure]  # stale: the sources rule


def test_the_version_says_which_build_runs() -> None:
    root = Path(differential.__file__).resolve().parents[2]
    bidref = Path(sys.executable).with_name("bidref")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["BIDREF_PURE"] = ""
    said = subprocess.run(
        [str(bidref), "--version"], env=env, capture_output=True, text=True, check=True
    ).stdout
    compiled = " (compiled build)" if quick_fresh_build(root) is not None else ""
    assert said.strip() == f"bidref {__version__}{compiled}", said
    env["BIDREF_PURE"] = "1"
    said = subprocess.run(
        [str(bidref), "--version"], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert said.strip() == f"bidref {__version__}"


def test_copy_copies_every_field() -> None:
    m = Match.new(3)
    m.apply(m.legal_actions()[0])
    c = m.copy()
    slots = getattr(Match, "__slots__", None)  # a compiled Match has none to list
    if slots is not None:
        assert set(slots) == {*STATE_FIELDS, "layout", "_legal"}
    for name in (*STATE_FIELDS, "_legal"):
        assert getattr(c, name) == getattr(m, name), name
    assert c.layout is not m.layout and c.layout.open_points == m.layout.open_points
    assert c.hands[0] is not m.hands[0] and c.boneyard is not m.boneyard
