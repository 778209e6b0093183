"""The tournament report: a real tournament of sample engines, its report opened in Chromium."""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
import threading
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from bidref.render.tournament.server import make_server, route
from tests.html.conftest import Page

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
ENGINES = [
    str(REPO / "sample_engines" / "python_greedy" / "engine.py"),
    str(REPO / "sample_engines" / "python_random" / "engine.py"),
    f"mini={REPO / 'sample_engines' / 'python_sdk_minimal' / 'engine.py'}",
]
BIDREF = [sys.executable, "-c", "from bidref.cli import main; main()"]


def bidref(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*BIDREF, *args], capture_output=True, text=True, timeout=600, cwd=REPO, check=False
    )


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Any]]:
    out = tmp_path_factory.mktemp("tournament")
    report = out / "report.html"
    options = shlex.split("--deals 1 --bank 30 --delay 3 --max-rounds 2 --seed 5 -j 2")
    r = bidref("tournament", *ENGINES, *options, "--out", str(out), "--html", str(report))
    assert r.returncode == 0, r.stderr
    assert f"HTML report: {report}" in r.stdout
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()[1:]]
    return out, report, records


def test_standings_cross_table_and_ratings_agree_with_the_results(
    page: Page, tournament: tuple[Path, Path, list[Any]]
) -> None:
    _, report, records = tournament
    rated = [r for r in records if r["rated"]]
    page.open(report)
    names = ["python_greedy", "python_random", "mini"]
    wins: dict[str, int] = defaultdict(int)
    games: dict[str, int] = defaultdict(int)
    points: dict[tuple[str, str], float] = defaultdict(float)
    for r in rated:
        for me, other in ((r["engine_a"], r["engine_b"]), (r["engine_b"], r["engine_a"])):
            games[me] += 1
            wins[me] += r["winner"] == me
            points[(me, other)] += 1.0 if r["winner"] == me else 0.5 if r["winner"] is None else 0
    rows = page.page.eval_on_selector_all(
        "table.standings tbody tr",
        "rows => rows.map(r => [r.dataset.engine, ...[...r.cells].map(c => c.innerText)])",
    )
    assert sorted(r[0] for r in rows) == sorted(names)
    for name, _rank, _shown, matches, wld, *_ in rows:
        w, _l, _d = (int(x) for x in wld.split("-"))
        assert int(matches) == games[name] and w == wins[name], name
    for a in names:
        for b in names:
            if a == b:
                continue
            cell = page.text(f"table.cross td[data-row='{a}'][data-col='{b}']")
            met = [r for r in rated if {a, b} == {r["engine_a"], r["engine_b"]}]
            assert cell == f"{points[(a, b)]:g} / {len(met)}"
    # A dot for every engine with complete pairs, and its interval drawn around it.
    dots = page.page.eval_on_selector_all(
        "svg.ratings circle.elo", "els => els.map(e => e.dataset.engine)"
    )
    bars = page.page.eval_on_selector_all(
        "svg.ratings line.interval",
        "els => els.map(e => [e.dataset.engine, Number(e.getAttribute('x1')),"
        " Number(e.getAttribute('x2'))])",
    )
    assert sorted(dots) == sorted(names)  # every engine played both seats of each deal
    cx = dict(
        page.page.eval_on_selector_all(
            "svg.ratings circle.elo",
            "els => els.map(e => [e.dataset.engine, Number(e.getAttribute('cx'))])",
        )
    )
    for name, x1, x2 in bars:
        assert x1 <= cx[name] <= x2
    assert page.requests == [report.resolve().as_uri()]


def test_the_written_report_links_every_match_to_its_transcript(
    page: Page, tournament: tuple[Path, Path, list[Any]]
) -> None:
    out, report, records = tournament
    page.open(report)
    links = page.page.eval_on_selector_all(
        "a.transcript", "els => els.map(e => e.getAttribute('href'))"
    )
    assert len(links) == len(records)
    assert all(not h.startswith(("/", "http")) for h in links)  # relative: the folder moves
    got = sorted((report.parent / h).resolve() for h in links)
    assert got == sorted((out / r["transcript"]).resolve() for r in records)
    assert "--serve" in page.text("p.hint")
    assert not (out / "report-replays").exists()  # no page per match unless asked


def test_the_served_report_makes_each_replay_from_its_transcript(
    page: Page, tournament: tuple[Path, Path, list[Any]]
) -> None:
    """``--serve``: the report at /, a match's page made on demand from its transcript,
    with the one shared script and style sheet; nothing is written into the folder."""
    out, _, records = tournament
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    server = make_server(out, 0)
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{port}/"
        page.page.route(f"{base}**", lambda route: route.continue_())
        page.page.goto(base)
        links = page.page.eval_on_selector_all(
            "a.replay", "els => els.map(e => e.getAttribute('href'))"
        )
        assert len(links) == len(records)
        row = page.page.locator("table.matches tbody tr").last
        _seed, _seat, a, b, _winner, reason, *_ = row.locator("td").all_inner_texts()
        row.locator("a.replay").click()
        page.page.wait_for_selector("#match-data", state="attached")
        assert page.text("#name-0") == a
        assert page.text("#name-1") == b
        page.page.keyboard.press("End")
        assert page.page.get_attribute("#end-reason", "data-reason") == reason
        assert f"{base}assets/replay.js" in page.requests
        assert all(u.startswith(base) for u in page.requests), page.requests
        page.page.click("header a.back")
        page.page.wait_for_selector("table.standings")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_the_report_of_a_finished_folder(
    tournament: tuple[Path, Path, list[Any]], tmp_path: Path
) -> None:
    out, _, records = tournament
    again = tmp_path / "site" / "index.html"
    r = bidref("tournament-report", str(out), "--html", str(again), "--replays")
    assert r.returncode == 0, r.stderr
    pages = sorted((tmp_path / "site" / "index-replays").rglob("*.html"))
    assert len(pages) == len(records)
    assert 'class="replay"' in again.read_text()
    r = bidref("tournament-report", str(tmp_path / "nothing"), "--html", str(again))
    assert r.returncode == 2 and "holds no results.jsonl" in r.stderr
    r = bidref("tournament-report", str(out))
    assert r.returncode == 2 and "--serve" in r.stderr and "--html" in r.stderr


def test_an_sprt_run_and_missing_or_broken_transcripts(tmp_path: Path) -> None:
    """Fake matches (tests/tournament/tournament_fakes.py) write transcripts that are not
    transcripts: their replay pages say so; a deleted transcript gets no link, and the
    report says which."""
    out = tmp_path / "t"
    options = shlex.split("--deals 30 --seed 1 --sprt 0 10 0.05 0.05")
    play = "tests.tournament.tournament_fakes:fake_play"
    r = bidref(
        "tournament",
        "a=fake strength=3",
        "b=fake",
        *options,
        "--out",
        str(out),
        "--play-function",
        play,
    )
    assert r.returncode == 0, r.stderr
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()[1:]]
    gone = out / records[0]["transcript"]  # relative to the folder, or absolute
    gone.unlink()
    report = tmp_path / "site" / "r.html"
    r = bidref("tournament-report", str(out), "--html", str(report), "--replays")
    assert r.returncode == 0, r.stderr
    assert "1 transcripts are missing" in r.stderr
    html = report.read_text()
    assert "SPRT [0, 10] α=0.05 β=0.05" in html and "LLR" in html
    assert html.count('class="replay"') == len(records) - 1
    assert "1 transcripts could not be found" in html
    page = next((tmp_path / "site" / "r-replays").rglob("*.html")).read_text()
    assert 'class="warning">line 1: not a transcript line' in page


def test_the_server_serves_only_its_pages(tournament: tuple[Path, Path, list[Any]]) -> None:
    """No file is served by its name: only /, /replay/I.html of a match and the assets."""
    out, _, records = tournament
    assert route(out, "/").status == 200
    assert route(out, "/assets/replay.js").status == 200
    assert route(out, f"/replay/{len(records) - 1}.html").status == 200
    for path in (
        f"/replay/{len(records)}.html",
        "/results.jsonl",
        "/../results.jsonl",
        "/transcripts/",
        "/replay/0.html/../../results.jsonl",
    ):
        r = route(out, path)
        assert r.status == 404, path
        assert b"no such" in r.body


def test_serve_from_the_command_line_until_ctrl_c(
    tournament: tuple[Path, Path, list[Any]],
) -> None:
    """``bidref tournament-report DIR --serve`` prints its address, serves the report
    and a match's page there, and stops on Ctrl-C with exit 0."""
    out, _, _ = tournament
    p = subprocess.Popen(
        [*BIDREF, "tournament-report", str(out), "--serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert p.stdout is not None
        first = p.stdout.readline()
        m = re.search(r"at (http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)", first)
        assert m, first
        with urllib.request.urlopen(m.group(1), timeout=30) as r:
            assert "Standings" in r.read().decode()
        with urllib.request.urlopen(m.group(1) + "replay/0.html", timeout=60) as r:
            page = r.read().decode()
        assert 'id="match-data"' in page and 'src="../assets/replay.js"' in page
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=30) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(timeout=10)


def test_a_transcript_gone_since_is_a_404_not_a_traceback(tmp_path: Path) -> None:
    out = tmp_path / "t"
    r = bidref(
        "tournament",
        "a=fake",
        "b=fake",
        *("--deals", "1", "--seed", "1", "--out", str(out)),
        *("--play-function", "tests.tournament.tournament_fakes:fake_play"),
    )
    assert r.returncode == 0, r.stderr
    assert route(out, "/replay/0.html").status == 200  # not a transcript: shown, with why
    assert "not a transcript line" in route(out, "/replay/0.html").body.decode()
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()[1:]]
    gone = out / records[0]["transcript"]
    gone.unlink()
    gone.mkdir()  # there, but not a file it can read: as if removed while serving
    resp = route(out, "/replay/0.html")
    assert resp.status == 404 and b"match 0" in resp.body
