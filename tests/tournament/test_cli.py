"""`bidref tournament` through the typer app, with the fake play function."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from bidref.cli import app
from bidref.tournament import ResultsStore

FAKE = ["--play-function", "tests.tournament.tournament_fakes:fake_play"]
runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["tournament", *args, *FAKE])
    return result.exit_code, result.output


def test_a_tournament_runs_and_prints_json(tmp_path: Path) -> None:
    out = tmp_path / "t"
    code, output = invoke(
        "a=fake strength=3",
        "b=fake",
        "c=fake strength=0.3",
        "--deals",
        "4",
        "--seed",
        "11",
        "--out",
        str(out),
        "-j",
        "2",
        "--json",
    )
    assert code == 0, output
    data = json.loads(output)
    assert data["total"] == data["done"] == 3 * 4 * 2
    assert data["master_seed"] == 11
    assert data["engines"][0]["name"] == "a"  # the strongest fake ranks first
    assert {(p["first"], p["second"]) for p in data["pairs"]} == {
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
    }
    assert sum(e["matches"] for e in data["engines"]) == 2 * data["total"]
    store = ResultsStore.open(out / "results.jsonl")
    assert store.header.seeds and len(store.records) == data["total"]


def test_tables_exports_and_resume(tmp_path: Path) -> None:
    out = tmp_path / "t"
    csv_path, json_path = tmp_path / "pairs.csv", tmp_path / "pairs.json"
    code, output = invoke(
        "a=fake strength=2",
        "b=fake",
        "--deals",
        "5",
        "--seed",
        "3",
        "--out",
        str(out),
        "-j",
        "1",
        "--export",
        str(csv_path),
        "--export",
        str(json_path),
        "--max-rounds",
        "8",
    )
    assert code == 0, output
    assert "Standings" in output and "Pairings" in output and "master seed 3" in output
    assert "Finished match 10 (10/10 rated" in output  # a line per match when piped
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    assert len(rows) == 1 and rows[0]["first"] == "a" and int(rows[0]["matches"]) == 10
    pairs = json.loads(json_path.read_text(encoding="utf-8"))
    assert pairs[0]["matches"] == 10 and len(pairs[0]["pentanomial"]) == 5
    assert ResultsStore.open(out / "results.jsonl").header.settings.max_rounds == 8
    # resuming a finished tournament plays nothing and reports the same standings
    code, again = invoke("--resume", "--out", str(out), "--json")
    assert code == 0, again
    data = json.loads(again)
    assert data["played"] == 0 and data["done"] == 10
    assert data["pairs"][0]["wins"] == pairs[0]["wins"]


def test_refusals_say_the_fix(tmp_path: Path) -> None:
    out = tmp_path / "t"
    code, output = invoke("a=fake", "b=fake", "--deals", "1", "--out", str(out), "--json")
    assert code == 0, output
    code, output = invoke("a=fake", "b=fake", "--deals", "1", "--out", str(out))
    assert code == 2 and "add --resume" in output
    code, output = invoke("--resume", "--out", str(out), "--bank", "7")
    assert code == 2 and "--bank 7.0 differs from the recorded 120.0" in output
    code, output = invoke("--resume", "--out", str(tmp_path / "none"))
    assert code == 2 and "without --resume first" in output
    code, output = invoke(
        "a=fake",
        "b=fake",
        "c=fake",
        "--sprt",
        "0",
        "10",
        "0.05",
        "0.05",
        "--out",
        str(tmp_path / "s"),
    )
    assert code == 2 and "give exactly two engines" in output
    assert not (tmp_path / "s").exists()  # nothing written for a refused tournament
    code, output = invoke("a=fake", "--out", str(tmp_path / "one"))
    assert code == 2 and "at least two engines" in output
    code, output = invoke("a=fake", "b=fake", "--sprt", "5", "0", "0.05", "0.05")
    assert code == 2 and "must be below" in output
    code, output = invoke("a=fake", "b=fake", "--format", "swiss")
    assert code == 2 and "--format 'swiss': use round-robin or gauntlet" in output


def test_deal_book_and_sprt(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("\n".join(str(1000 + i) for i in range(200)) + "\n", encoding="utf-8")
    out = tmp_path / "t"
    code, output = invoke(
        "strong=fake strength=8 draw=0",
        "weak=fake draw=0",
        "--deal-book",
        str(book),
        "--sprt",
        "0",
        "100",
        "0.05",
        "0.05",
        "--out",
        str(out),
        "-j",
        "2",
        "--json",
    )
    assert code == 0, output
    data = json.loads(output)
    assert data["sprt_stopped"] and data["pairs"][0]["sprt"]["status"] == "H1"
    assert data["done"] < data["total"] == 400
    assert data["deal_book"] == str(book) and data["master_seed"] is None
    header = ResultsStore.open(out / "results.jsonl").header
    assert header.deal_book == str(book) and header.master_seed is None
    assert header.seeds[:2] == [1000, 1001]


def test_an_unusable_output_folder_is_a_clear_error(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n", encoding="utf-8")
    for out in (a_file, a_file / "sub"):
        code, output = invoke("a=fake", "b=fake", "--deals", "1", "--out", str(out))
        assert code == 2, output
        assert "cannot write the results" in output and "another --out" in output
        assert "Traceback" not in output
    # transcripts/ must be a folder too: found out before any match is played
    out = tmp_path / "t"
    out.mkdir()
    (out / "transcripts").write_text("", encoding="utf-8")
    code, output = invoke("a=fake", "b=fake", "--deals", "1", "--out", str(out))
    assert code == 2 and "transcripts" in output and "another --out" in output, output
    assert not (out / "results.jsonl").exists()


def test_an_unknown_engine_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    random_py = Path(__file__).resolve().parents[2] / "sample_engines/python_random/engine.py"
    out = tmp_path / "t"
    for engine in ("no_such_engine_xyz", "no_such_engine_xyz --fast"):
        result = runner.invoke(
            app, ["tournament", engine, str(random_py), "--deals", "1", "--out", str(out)]
        )  # the real play function
        assert result.exit_code == 2, result.output
        assert "there is no program 'no_such_engine_xyz' (not on PATH)" in result.output
        assert not out.exists()  # nothing to clean up before trying again


def test_a_bad_cluster_address_is_a_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "t"
    for address in ("nonsense", "foo://head:8786"):
        code, output = invoke(
            "a=fake", "b=fake", "--deals", "1", "--out", str(out), "--cluster", address
        )
        assert code == 2, output
        assert f"--cluster {address!r}" in output and "tcp://" in output, output
        assert "Traceback" not in output
        assert not out.exists()  # fix the address and run the same command again


def test_help_teaches_with_examples_that_can_be_copied() -> None:
    result = runner.invoke(app, ["tournament", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = result.output
    assert "bidref tournament --resume --out runs/c-vs-greedy" in text
    assert "--sprt 0 10 0.05 0.05" in text and "--format gauntlet" in text
    # a command that goes on to the next line says so (a shell line continuation)
    lines = [line.strip() for line in text.splitlines()]
    starts = [i for i, line in enumerate(lines) if line.startswith("bidref tournament")]
    for i in starts:
        if lines[i + 1].startswith("--"):
            assert lines[i].endswith("\\"), lines[i]


def test_a_bad_export_path_is_refused_before_the_run(tmp_path: Path) -> None:
    out = tmp_path / "t"
    for export, message in (
        (tmp_path / "no-such-folder" / "pairs.csv", "no folder"),
        (tmp_path / "pairs.txt", ".csv or .json"),
    ):
        code, output = invoke(
            "a=fake", "b=fake", "--deals", "1", "--out", str(out), "--export", str(export)
        )
        assert code == 2, output
        assert "--export" in output and message in output, output
        assert "Traceback" not in output
        assert not out.exists()  # refused before anything was played


def test_a_second_run_on_the_same_folder_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    # Two runs on one folder would play the same missing matches twice.
    from bidref.tournament.store import hold

    out = tmp_path / "t"
    code, output = invoke("a=fake", "b=fake", "--deals", "2", "--out", str(out), "--json")
    assert code == 0, output
    with hold(out / "results.jsonl"):  # as a running `bidref tournament` holds it
        code, output = invoke("--resume", "--out", str(out))
        assert code == 2 and "another bidref tournament is running" in output, output
    code, output = invoke("--resume", "--out", str(out), "--json")
    assert code == 0, output
    code, output = invoke("--resume", "--out", str(out), "--bank", "3")
    assert code == 2  # a refusal lets go of the file too:
    with hold(out / "results.jsonl"):
        pass


def test_a_refusal_after_listening_closes_the_listener_and_writes_nothing(tmp_path: Path) -> None:
    # The run's resources are opened in order (listener, backend, results file) and
    # all closed when a later one is refused: the port is free again at once.
    import socket

    from tests.net.test_tournament_e2e import C_FIRST

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "a-file"
    out.write_text("not a folder", encoding="utf-8")
    net = f"net=listen://127.0.0.1:{port}"
    result = runner.invoke(
        app, ["tournament", net, C_FIRST, "--deals", "1", "--out", str(out), "-j", "1"]
    )
    assert result.exit_code == 2, result.output
    assert f"engine net waits for a remote engine: ws://127.0.0.1:{port}" in result.output
    assert "cannot write the results and transcripts in" in result.output
    assert "Traceback" not in result.output
    with socket.socket() as again:
        again.bind(("127.0.0.1", port))  # the listener is closed
    assert out.read_text(encoding="utf-8") == "not a folder"
