"""The ``points`` feature: each legal action's points in the request, on request."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bidref.protocol import decode_referee_line
from bidref.protocol.fastview import RequestEncoder, legal_points
from bidref.rules import Match, Open, Play
from bidref.rules.layout import points_earned

ROOT = Path(__file__).resolve().parents[2]
GREEDY = ROOT / "sample_engines" / "python_greedy" / "engine.py"


def _true_points(m: Match) -> list[int]:
    """By placing each tile on a copy of the layout (the rules core's own count)."""
    out = []
    for a in m.legal_actions():
        if isinstance(a, Play):
            out.append(points_earned(m.layout.copy().place(a.tile, a.at)))
        elif isinstance(a, Open):
            out.append(points_earned(m.layout.copy().open_tile(a.tile)))
        else:
            out.append(0)
    return out


def test_legal_points_are_what_each_action_earns_in_many_games() -> None:
    rng = random.Random(17)
    checked = 0
    for seed in range(40):
        m = Match.new(seed)
        while not m.over and checked < 20_000:
            assert legal_points(m) == _true_points(m)
            checked += 1
            m.apply(rng.choice(m.legal_actions()))
    assert checked > 2_000


def test_the_default_request_is_unchanged_and_the_opt_in_adds_legal_points() -> None:
    rng = random.Random(5)
    m = Match.new(11)
    plain, asked = RequestEncoder(), RequestEncoder(points=(True, False))
    clock = {"delay_left_ms": 1, "bank_ms": 2, "opponent_bank_ms": 3, "deadline_ms": 3}
    seen_points = 0
    for rid in range(1, 400):
        if m.over:
            break
        a, b = plain.encode(m, rid, clock), asked.encode(m, rid, clock)
        if m.to_act == 1:
            assert a == b  # byte for byte
            assert "legal_points" not in a
        else:
            head = a[:-1]
            assert b.startswith(head + ',"legal_points":[')
            msg = decode_referee_line(b)
            assert msg.legal_points == legal_points(m)  # type: ignore[union-attr]
            assert len(msg.legal_points) == len(msg.legal)  # type: ignore[union-attr]
            seen_points += sum(msg.legal_points)  # type: ignore[union-attr]
        m.apply(rng.choice(m.legal_actions()))
    assert seen_points > 0
    assert asked.fork(m.layout, m.layout.copy()).points == (True, False)


POINTS_ENGINE = """\
import sys
from bidref.sdk import run

def choose(req):
    assert req.legal_points is not None and len(req.legal_points) == len(req.legal)
    best = max(range(len(req.legal)), key=lambda i: req.legal_points[i])
    return str(req.legal[best])

run(choose, name="pointy", features=("points",))
"""


@pytest.mark.e2e
def test_an_engine_that_asks_gets_the_points_and_the_other_does_not(tmp_path: Path) -> None:
    engine = tmp_path / "pointy.py"
    engine.write_text(POINTS_ENGINE)
    t = tmp_path / "t.jsonl"
    res = subprocess.run(
        [
            sys.executable,
            "-c",
            "from bidref.cli import main; main()",
            "match",
            str(engine),
            str(GREEDY),
            "--seed",
            "8",
            "--bank",
            "30",
            "--delay",
            "1",
            "--max-rounds",
            "2",
            "--debug",
            "--json",
            "--transcript",
            str(t),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["reason"] in ("balance", "round_limit"), res.stdout
    requests = [ln for ln in res.stderr.splitlines() if '"type":"request"' in ln]
    to_a = [ln for ln in requests if ">pointy(A): " in ln]
    to_b = [ln for ln in requests if ">python_greedy(B): " in ln]
    assert to_a and to_b
    assert all('"legal_points":[' in ln for ln in to_a)
    assert not any("legal_points" in ln for ln in to_b)
    hello = next(ln for ln in res.stderr.splitlines() if "<pointy(A): " in ln)
    assert '"features": ["points"]' in hello or '"features":["points"]' in hello
