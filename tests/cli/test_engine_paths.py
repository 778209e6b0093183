"""Engines given as paths (issue 29 items 3 and 10): `./engine` in its own folder,
an engine folder, and what a missing path is told (what is missing, "did you
mean", the build hint only where a C file builds the program)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from bidref.engines.spec import EngineSpecError, check_runnable, resolve_engine
from tests.cli.test_engine_args import _bidref

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_engines"
RANDOM = SAMPLES / "python_random" / "engine.py"


def _engine_program(folder: Path, name: str = "engine") -> Path:
    """The random sample engine as an executable program ``name`` in ``folder``."""
    program = folder / name
    body = RANDOM.read_text().split("\n", 1)[1]
    program.write_text(f"#!{sys.executable}\n{body}")
    program.chmod(0o755)
    return program


@pytest.mark.e2e
@pytest.mark.parametrize("given", ["./engine", "engine"])
def test_an_engine_in_the_current_folder_plays(tmp_path: Path, given: str) -> None:
    _engine_program(tmp_path)
    res = _bidref("match", given, given, "--max-rounds", "1", "--seed", "3", "--json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["reason"] in ("balance", "round_limit")


def test_dot_slash_is_kept_so_the_program_is_not_looked_up_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _engine_program(tmp_path)
    monkeypatch.chdir(tmp_path)
    for given in ("./engine", "engine"):
        spec = resolve_engine(given)
        assert spec.command == ("./engine",)
        check_runnable(spec)  # no "there is no program 'engine' (not on PATH)"


def test_a_folder_is_the_engine_in_it(tmp_path: Path) -> None:
    assert resolve_engine(str(SAMPLES / "python_random")).command == (sys.executable, str(RANDOM))
    js = resolve_engine(str(SAMPLES / "js_random"))
    assert (js.name, js.command) == ("js_random", (str(SAMPLES / "js_random" / "engine.js"),))
    # an engine file in the folder comes first
    (tmp_path / "engine.toml").write_text('name = "mine"\ncommand = "python3 bot.py"\n')
    _engine_program(tmp_path)
    found = resolve_engine(str(tmp_path))
    assert (found.name, found.command, found.cwd) == ("mine", ("python3", "bot.py"), str(tmp_path))
    # else the only executable file, whatever its name
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "README.md").write_text("not a program\n")
    (lone / "__init__.py").write_text("")
    _engine_program(lone, "mybot")
    assert resolve_engine(str(lone)).command == (str(lone / "mybot"),)


def test_a_folder_with_several_programs_or_none_says_which(tmp_path: Path) -> None:
    _engine_program(tmp_path, "a")
    _engine_program(tmp_path, "b")
    with pytest.raises(EngineSpecError) as e:
        resolve_engine(str(tmp_path))
    assert "holds several programs (a, b)" in str(e.value)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("x")
    with pytest.raises(EngineSpecError) as e:
        resolve_engine(str(empty))
    assert "holds no engine" in str(e.value) and "make" not in str(e.value)


@pytest.mark.e2e
def test_match_takes_engine_folders(tmp_path: Path) -> None:
    res = _bidref(
        "match",
        "sample_engines/python_random",
        "sample_engines/python_greedy/",
        "--max-rounds",
        "1",
        "--json",
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["engines"] == ["python_random", "python_greedy"]


@pytest.mark.parametrize(
    ("given", "says"),
    [
        (
            "sample_engines/python_randon/engine.py",
            "there is no folder 'sample_engines/python_randon'; did you mean "
            "'sample_engines/python_random/engine.py'",
        ),
        ("sample_engines/c_firts/engine", "did you mean 'sample_engines/c_first/engine'?"),
        ("./sample_engines/js_random/engine.jss", "did you mean './sample_engines/js_random/"),
        (
            "sample_engines/python_random/engine.py/x",
            "'sample_engines/python_random/engine.py' is a file, not a folder",
        ),
    ],
)
def test_a_missing_path_says_what_is_missing_and_what_it_may_mean(
    given: str, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    with pytest.raises(EngineSpecError) as e:
        check_runnable(resolve_engine(given))
    text = str(e.value)
    assert f"engine {given!r} does not exist" in text
    assert says in text
    assert "make -C" not in text  # nothing here is built by make


def test_the_build_hint_is_only_for_a_program_built_from_c(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    samples = tmp_path / "sample_engines"
    (samples / "c_new").mkdir(parents=True)
    shutil.copy(SAMPLES / "Makefile", samples / "Makefile")
    (samples / "c_new" / "engine.c").write_text("int main(void) { return 0; }\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(EngineSpecError) as e:
        resolve_engine("sample_engines/c_new/engine")
    assert "it is built from engine.c: run `make -C sample_engines` first" in str(e.value)
    assert "did you mean" not in str(e.value)  # (not engine.c itself)
    with pytest.raises(EngineSpecError) as e:
        resolve_engine("sample_engines/c_new")
    assert "run `make -C sample_engines` first" in str(e.value)
    with pytest.raises(EngineSpecError) as e:
        resolve_engine("sample_engines/c_other/engine")
    assert "make" not in str(e.value)
