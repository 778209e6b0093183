"""The wheel is the whole product: built from the checkout, installed into an
empty virtual environment, its commands work with nothing but the package."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from bidref import __version__

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = tmp_path_factory.mktemp("build")
    # No build isolation: the test venv has setuptools, and CI may not reach
    # anything but the package registries (this needs none of them).
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(out),
            str(ROOT),
        ],
        check=True,
        cwd=build,
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(build), "PIP_NO_INDEX": "1"},
    )
    (found,) = out.glob("bidref-*.whl")
    return found


def test_the_wheel_holds_the_package_its_data_and_no_tests(wheel: Path) -> None:
    assert wheel.name.startswith(f"bidref-{__version__}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    for data in ("RULES.md", "spectacular-bid-original-fi.txt", "layout-examples.json"):
        assert f"bidref/data/{data}" in names
    assert "bidref/py.typed" in names
    assert "bidref/render/assets/replay.js" in names  # the HTML replay's script and style
    for live in ("live.html", "live.js", "live.css"):  # the live page (bidref/live)
        assert f"bidref/live/assets/{live}" in names
    assert "bidref/cli/__init__.py" in names and "bidref/rules/match.py" in names
    assert not any(n.startswith(("tests/", "benchmarks/", "sample_engines/")) for n in names)
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert "License-Expression: MIT" in text
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def test_an_installed_wheel_runs_its_commands(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # Install the wheel alone (no network); its dependencies come from the test
    # venv's site-packages, added as a plain path (its .pth hooks, among them
    # the editable checkout, are not run).
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    Path(purelib, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp_path / "work"  # not the checkout: nothing may come from it
    work.mkdir()
    bidref = env_dir / "bin" / "bidref"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [bidref, *args],
            cwd=work,
            capture_output=True,
            text=True,
            env={"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin", "HOME": str(work), "COLUMNS": "100"},
        )

    where = subprocess.run(
        [py, "-c", "import bidref; print(bidref.__file__)"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(env_dir)), where
    res = run("--version")
    assert res.returncode == 0 and res.stdout.strip() == f"bidref {__version__}"
    res = run("rules", "7")
    assert res.returncode == 0 and "The match clock" in res.stdout, res.stderr
    res = run("notation", "play 3-1 1-1:line_b")
    assert res.returncode == 0 and "play 1-3 1-1:line_b" in res.stdout, res.stderr
    sheet = work / "sheet.txt"
    sheet.write_text((ROOT / "examples" / "score-sheet.txt").read_text())
    res = run("validate", str(sheet))
    assert res.returncode == 0, res.stdout + res.stderr
    engine = str(ROOT / "sample_engines" / "sh_random" / "engine.sh")
    t = work / "t.jsonl"
    res = run(
        "match",
        engine,
        engine,
        "--seed",
        "5",
        "--max-rounds",
        "1",
        "--bank",
        "20",
        "--delay",
        "1",
        "--transcript",
        str(t),
    )
    assert res.returncode == 0 and t.exists(), res.stdout + res.stderr
    res = run("replay", str(t), "--final")
    assert res.returncode == 0, res.stdout + res.stderr
