"""The replay page numbers its steps with the transcript file's own lines (issue 29 item 4).

A ``bidref-transcript/2`` file leaves out the events the rules derive; the page spells
them out, so it has more steps than the file has lines. ``line N`` on the page,
``#line=N`` in its address and the ``FILE:LINE`` of ``bidref replay`` must all mean line N
of the file. The transcripts come from the real referee playing scripted seats on a
fake clock.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bidref.cli import app
from bidref.transcript.lines import FORMAT
from tests.html.conftest import Page
from tests.transcript.scripted_seats import referee_transcript


@pytest.fixture(scope="module")
def v2(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("v2")
    t = folder / "t.jsonl"
    referee_transcript(t, chatty=True, illegal_rate=0.1, format=FORMAT)
    return t, [json.loads(x) for x in t.read_text().splitlines()]


def html_of(t: Path, out: Path, code: int = 0) -> Path:
    r = CliRunner().invoke(app, ["replay", str(t), "--final", "--html", str(out)])
    assert r.exit_code == code, r.output
    return out


def shown_line(page: Page) -> int:
    return int(page.text("#step-text .line-no"))


def test_line_n_of_the_address_is_line_n_of_the_file(
    page: Page, v2: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    t, lines = v2
    out = html_of(t, tmp_path / "r.html")
    page.open(out)
    steps = page.page.evaluate("window.bidrefReplay.steps")
    assert steps > len(lines)  # the derived events are steps too
    replies = [i + 1 for i, x in enumerate(lines) if x["type"] == "reply"]
    logs = [i + 1 for i, x in enumerate(lines) if x["type"] == "log"]
    assert len(replies) > 20 and logs
    for n in [*replies[::7], replies[-1], logs[0], logs[-1], len(lines)]:
        page.open(out, f"#line={n}")
        x = lines[n - 1]
        assert shown_line(page) == n, (n, x)
        assert f"line {n} " in page.text("#pos")
        assert page.page.get_attribute("#step-text", "data-type") == x["type"]
        if x["type"] == "reply" and x.get("action"):
            assert str(x["action"]) in page.text("#step-text")
    # The panel lists each line of the file once, in order; the steps a line spells
    # out (its events) follow it, marked ↳ with the line's number as their title.
    rows = page.page.eval_on_selector_all(
        "#lines li",
        "els => els.map(e => [e.querySelector('.n').textContent, Number(e.dataset.line),"
        " e.classList.contains('more')])",
    )
    numbered = [int(shown) for shown, _, more in rows if not more]
    assert numbered == list(range(1, len(lines) + 1))
    assert [line for _, line, _ in rows] == sorted(line for _, line, _ in rows)
    assert all(shown == "↳" for shown, _, more in rows if more)
    assert sum(more for _, _, more in rows) == steps - len(lines)


def test_stepping_keeps_the_address_on_the_file_line(
    page: Page, v2: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    """The page writes ``#line=N`` of the step it shows; N is the file's line, and
    opening that address again shows the same line."""
    t, lines = v2
    out = html_of(t, tmp_path / "r.html")
    page.open(out)
    page.page.keyboard.press("End")
    url = page.page.url
    m = re.search(r"#line=(\d+)$", url)
    assert m and int(m.group(1)) == len(lines)
    assert lines[-1]["type"] == "result"
    assert page.page.get_attribute("#step-text", "data-type") == "result"


def test_a_cut_file_stops_the_page_at_the_last_whole_line(
    page: Page, v2: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    """The banner names the cut line K; the page's last step is line K - 1 of the file
    (not an ordinary move numbered K), and ``#line=K - 1`` shows that line."""
    t, lines = v2
    raw = t.read_bytes().splitlines(keepends=True)
    k = len(raw) * 2 // 3
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(raw[: k - 1]) + raw[k - 1][:20])
    out = html_of(cut, tmp_path / "cut.html", code=3)
    page.open(out)
    banner = page.text(".warning")
    assert f"line {k} is cut short" in banner
    page.page.keyboard.press("End")
    assert shown_line(page) == k - 1
    assert page.page.get_attribute("#step-text", "data-type") in (
        lines[k - 2]["type"],
        "placed",
        "drew",
        "transfer",
        "passed",
        "round_ended",
        "auction",
    )
    page.open(out, f"#line={k}")
    assert shown_line(page) == k - 1  # past the end: the last line there is


def test_the_cli_file_line_and_the_page_name_the_same_line(
    page: Page, v2: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    """A v2 file whose reply lies about its time: ``bidref replay`` says ``FILE:N``, the
    page's banner says line N, and ``#line=N`` shows that reply."""
    _, lines = v2
    bad = [dict(x) for x in lines]
    n = next(i + 1 for i, x in enumerate(bad) if x["type"] == "reply" and i > len(bad) // 3)
    bad[n - 1]["elapsed_ns"] = 5
    t = tmp_path / "bad.jsonl"
    t.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in bad))
    r = CliRunner().invoke(app, ["replay", str(t), "--final", "--html", str(tmp_path / "b.html")])
    assert r.exit_code == 1
    assert f"{t}:{n}: mismatch" in r.output
    page.open(tmp_path / "b.html", f"#line={n}")
    assert f"bidref replay: line {n}:" in page.text(".warning")
    assert shown_line(page) == n
    assert page.page.get_attribute("#step-text", "data-type") == "reply"
