"""`bidref tournament`: engines on the command line, files, resume, CI output, stats."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from bidref.cli import app
from bidref.tournament import ResultsStore

FAKE = ["--play-function", "tests.tournament.tournament_fakes:fake_play"]
REPO = Path(__file__).resolve().parents[2]
RANDOM = REPO / "sample_engines" / "python_random" / "engine.py"
GREEDY = REPO / "sample_engines" / "python_greedy" / "engine.py"
runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["tournament", *args, *FAKE])
    return result.exit_code, result.output


def flat(text: str) -> str:
    return " ".join(re.sub("[│╭╮╰╯─]", " ", text).split())


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--bank", "inf"], "--bank inf: give a finite number of seconds"),
        (["--bank", "nan"], "--bank nan: give a finite number of seconds"),
        (["--delay", "-1"], "--delay -1: give a finite number of seconds"),
        (["--bank", "0", "--delay", "0"], "a clock with neither bank nor delay"),
        (["--illegal", "maybe"], "--illegal 'maybe': use reject or forfeit"),
        (["--transport", "ssh"], "--transport 'ssh': use pipe or pty"),
        (["--engine", "cmd=fake tc=inf"], "tc= inf"),
        (["--each", "speed=3"], "unknown key 'speed'"),
    ],
)
def test_bad_values_are_refused_before_anything_is_written(
    tmp_path: Path, args: list[str], says: str
) -> None:
    out = tmp_path / "t"
    code, output = invoke("a=fake", "b=fake", "--out", str(out), *args)
    assert code == 2, output
    assert says in flat(output)
    assert "Traceback" not in output and not out.exists()


def test_engines_from_engine_options_with_a_handicap_are_recorded(tmp_path: Path) -> None:
    out = tmp_path / "t"
    code, output = invoke(
        "--engine",
        "cmd='fake strength=2' name=strong tc=5+0.5",
        "--engine",
        "cmd=fake name=weak",
        "--each",
        "option.depth=3 transport=pty",
        "--deals",
        "2",
        "--seed",
        "1",
        "--out",
        str(out),
        "--json",
    )
    assert code == 0, output
    header = ResultsStore.open(out / "results.jsonl").header
    strong, weak = header.engines
    assert (strong.name, weak.name) == ("strong", "weak")
    assert strong.time_control_ms == (5000, 500) and weak.time_control_ms is None
    assert strong.options == weak.options == {"depth": 3}
    assert strong.transport == weak.transport == "pty"
    assert strong.spec == "cmd='fake strength=2' name=strong tc=5+0.5"


def test_same_named_engines_are_numbered_alike(tmp_path: Path) -> None:
    code, output = invoke("fake", "fake", "--deals", "1", "--out", str(tmp_path / "t"), "--json")
    assert code == 0, output
    assert sorted(e["name"] for e in json.loads(output)["engines"]) == ["fake-1", "fake-2"]


def test_resume_says_so_and_force_starts_afresh(tmp_path: Path) -> None:
    out = tmp_path / "t"
    code, output = invoke("a=fake", "b=fake", "--deals", "2", "--out", str(out))
    assert code == 0, output
    assert "4 matches in" in output
    code, output = invoke("--resume", "--out", str(out))
    assert code == 0, output
    assert f"resuming the tournament in {out}: 4 of 4 matches already rated, 0 to play" in flat(
        output
    )
    code, output = invoke("a=fake", "b=fake", "--deals", "2", "--out", str(out))
    assert code == 2 and "--force to replace it" in flat(output)
    old = ResultsStore.open(out / "results.jsonl").header.created
    (out / "transcripts" / "stale.jsonl").write_text("old\n")
    code, output = invoke(
        "a=fake", "b=fake", "c=fake", "--deals", "1", "--out", str(out), "--force"
    )
    assert code == 0, output
    store = ResultsStore.open(out / "results.jsonl")
    assert [e.name for e in store.header.engines] == ["a", "b", "c"]
    assert len(store.records) == 6 and not (out / "transcripts" / "stale.jsonl").exists()
    assert store.header.created >= old


def test_an_existing_export_needs_force(tmp_path: Path) -> None:
    export = tmp_path / "pairs.csv"
    export.write_text("keep\n")
    code, output = invoke(
        "a=fake", "b=fake", "--deals", "1", "--out", str(tmp_path / "t"), "--export", str(export)
    )
    assert code == 2 and "already exists: add --force" in flat(output)
    assert export.read_text() == "keep\n"


def test_piped_output_has_a_line_per_match_and_standings_every_n(tmp_path: Path) -> None:
    code, output = invoke(
        "a=fake strength=3",
        "b=fake",
        "c=fake",
        "--deals",
        "2",
        "--seed",
        "4",
        "-j",
        "1",
        "--out",
        str(tmp_path / "t"),
        "--rating-interval",
        "4",
    )
    assert code == 0, output
    finished = [ln for ln in output.splitlines() if ln.startswith("Finished match ")]
    assert len(finished) == 12
    assert re.match(
        r"Finished match 1 \(1/12 rated, left ~\S+\): (\w) vs (\w) \(seed \d+, \1 is A\): "
        r"(1-0|0-1|1/2-1/2) \{",
        finished[0],
    ), finished[0]
    # standings after 4 and 8 matches (not after the last: the final tables follow)
    assert output.count("Standings after ") == 2
    assert "Standings after 4 rated matches" in output
    assert "Cross-table" in output and "Results by seat" in output


def test_tables_fit_80_columns_with_many_long_named_engines(tmp_path: Path) -> None:
    names = [f"engine_with_a_rather_long_name_{i}=fake strength={i + 1}" for i in range(5)]
    code, output = invoke(*names, "--deals", "2", "--seed", "2", "--out", str(tmp_path / "t"))
    assert code == 0, output
    # (a match's line is one line however long, for grep; the tables fit)
    tables = [
        ln
        for ln in output.splitlines()
        if not ln.startswith("Finished match") and str(tmp_path) not in ln
    ]
    assert max(len(line) for line in tables) <= 80, output
    assert "engine_with_a_rather_long_name_4" in output


def test_gauntlet_lists_its_engine_first_and_json_has_no_inf(tmp_path: Path) -> None:
    code, output = invoke(
        "hero=fake strength=0.01",
        "b=fake strength=5",
        "c=fake strength=5",
        "--format",
        "gauntlet",
        "--deals",
        "4",
        "--seed",
        "3",
        "--out",
        str(tmp_path / "t"),
        "--json",
    )
    assert code == 0, output
    assert "inf" not in output.replace("information", "")
    data = json.loads(output)
    assert data["engines"][0]["name"] == "hero"  # first although it ranks last
    hero = data["engines"][0]
    assert hero["wins"] == 0  # lost every pair: its Elo is a bound, not -inf
    assert hero["elo_bound"] == "upper" and isinstance(hero["elo"], float)
    assert hero["elo_high"] is None
    assert isinstance(hero["joint_elo"], float) and hero["joint_elo"] < 0
    assert hero["by_seat"]["A"]["matches"] + hero["by_seat"]["B"]["matches"] == 16
    assert data["cross_table"]["hero"]["b"] == {"points": 0.0, "matches": 8}


def test_intervals_are_na_below_3_pairs(tmp_path: Path) -> None:
    code, output = invoke(
        "a=fake", "b=fake", "--deals", "2", "--out", str(tmp_path / "t"), "--json"
    )
    assert code == 0, output
    for e in json.loads(output)["engines"]:
        assert e["pairs"] == 2 and e["elo_low"] is None and e["elo_high"] is None
        assert e["joint_elo_low"] is None
    code, output = invoke("a=fake", "b=fake", "--deals", "2", "--out", str(tmp_path / "u"))
    assert "± n/a" in output


def test_a_match_s_detail_is_a_json_object(tmp_path: Path) -> None:
    out = tmp_path / "t"
    code, output = invoke("a=fake abort=1", "b=fake", "--deals", "1", "--out", str(out))
    assert code == 0, output
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()[1:]]
    aborted = [x for x in lines if x["reason"] == "aborted"]
    assert aborted and aborted[0]["detail"] == {"cause": "referee timing fault (fake)"}


def test_an_old_results_file_with_a_string_detail_is_still_read() -> None:
    from bidref.tournament.model import MatchRecord

    base = {
        "first": "a",
        "second": "b",
        "seed": 1,
        "seat": 0,
        "engine_a": "a",
        "engine_b": "b",
        "attempt": 1,
        "rated": False,
        "winner": None,
        "reason": "startup",
        "balances": [0, 0],
        "rounds": 0,
        "transcript": None,
        "elapsed_s": 0.1,
    }
    old = MatchRecord.model_validate({**base, "detail": '{"seat": 0, "problem": "x"}'})
    assert old.detail == {"seat": 0, "problem": "x"}
    text = MatchRecord.model_validate({**base, "detail": "interrupted"})
    assert text.detail == {"text": "interrupted"}
    assert MatchRecord.model_validate({**base, "detail": ""}).detail == {}


@pytest.mark.e2e
def test_real_engines_debug_logs_and_stderr_dir_per_match(tmp_path: Path) -> None:
    out, logs = tmp_path / "t", tmp_path / "logs"
    res = subprocess.run(
        [
            sys.executable,
            "-c",
            "from bidref.cli import main; main()",
            "tournament",
            "--engine",
            f"cmd={RANDOM} name=rnd",
            "--engine",
            f"cmd={GREEDY} name=grd tc=30+2",
            "--deals",
            "1",
            "--seed",
            "9",
            "--bank",
            "20",
            "--delay",
            "1",
            "--max-rounds",
            "1",
            "-j",
            "1",
            "--out",
            str(out),
            "--debug",
            "--stderr-dir",
            str(logs),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["done"] == 2
    debug = sorted((out / "debug" / "grd--rnd").glob("*.log")) or sorted(
        (out / "debug" / "rnd--grd").glob("*.log")
    )
    assert len(debug) == 2
    text = debug[0].read_text()
    assert re.search(r"^\s+\d+\.\d{3} >rnd\([AB]\): \{\"type\":\"hello\"", text, re.M)
    assert re.search(r"^\s+\d+\.\d{3} <grd\([AB]\): ", text, re.M)
    stderr_logs = sorted(p.name for p in logs.rglob("*.stderr.log"))
    assert len(stderr_logs) == 4 and any(n.endswith("-A-rnd.stderr.log") for n in stderr_logs)
    header = ResultsStore.open(out / "results.jsonl").header
    assert header.engines[1].time_control_ms == (30_000, 2_000)


def test_fitted_tables_drop_columns_to_fit() -> None:
    from bidref.render.tournament.tables import Column, Fitted

    table = Fitted(
        [Column("name", "left"), Column("must"), Column("nice", drop=1), Column("extra", drop=2)],
        [["x" * 10, "1" * 20, "2" * 20, "3" * 20]],
        title="t",
    )
    for width, shown in ((120, ["must", "nice", "extra"]), (60, ["must", "nice"]), (40, ["must"])):
        console = Console(width=width, record=True, color_system=None)
        console.print(table)
        text = console.export_text()
        header = next(line for line in text.splitlines() if "must" in line).split()
        assert header[1:] == shown, (width, text)
        assert max(len(line.rstrip()) for line in text.splitlines()) <= width


@pytest.mark.e2e
def test_on_a_terminal_the_live_view_shows_progress_and_the_time_left(tmp_path: Path) -> None:
    import os

    import pexpect

    child = pexpect.spawn(
        sys.executable,
        [
            "-c",
            "from bidref.cli import main; main()",
            "tournament",
            "a=fake strength=2 sleep=0.05",
            "b=fake sleep=0.05",
            "--deals",
            "10",
            "-j",
            "1",
            "--out",
            str(tmp_path / "t"),
            *FAKE,
        ],
        cwd=str(REPO),
        env={**os.environ, "COLUMNS": "100", "LINES": "40", "PYTHONPATH": str(REPO)},
        encoding="utf-8",
        timeout=120,
        dimensions=(40, 100),
    )
    try:
        child.expect(r"matches \d+/20")
        child.expect(r"left ~\d+s")
        child.expect("Current standings")
        child.expect("Standings")  # the final tables
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_an_engine_that_never_starts_stops_the_run_with_the_hint(tmp_path: Path) -> None:
    code, output = invoke(
        "a=fake nostart=1", "b=fake", "--deals", "2", "-j", "1", "--out", str(tmp_path / "t")
    )
    assert code == 1, output
    text = flat(output)
    assert "engine 'a' failed (startup)" in text and "--resume --out" in text
    assert "flush after every line, or run it with --transport pty" in text


def test_freeze_idle_reaches_every_match_of_a_tournament(tmp_path: Path) -> None:
    """Two engines that spin while idle: with --freeze-idle neither gets CPU time
    while the other is on move (the transcripts' idle_cpu_ns)."""
    from bidref.transcript.expand import expanded_lines
    from bidref.transcript.files import read_bytes

    burner = f"{sys.executable} {REPO / 'tests' / 'engines_broken' / 'burns_while_idle.py'}"
    out = tmp_path / "t"
    args = ["--engine", f"cmd='{burner}' name=b1", "--engine", f"cmd='{burner}' name=b2"]
    args += ["--deals", "1", "--seed", "9", "--bank", "60", "--delay", "2", "--max-rounds", "1"]
    args += ["-j", "1", "--out", str(out), "--freeze-idle", "--json"]
    res = subprocess.run(
        [sys.executable, "-c", "from bidref.cli import main; main()", "tournament", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert res.returncode == 0, res.stderr
    files = sorted((out / "transcripts").rglob("*.jsonl.gz"))
    assert len(files) == 2
    for f in files:
        replies = [x for x in expanded_lines(read_bytes(f)) if x["type"] == "reply"]
        assert replies and all(x["cpu_ns"] >= 30_000_000 for x in replies)  # 40 ms each
        assert max(x["idle_cpu_ns"] for x in replies) < 10_000_000, f
