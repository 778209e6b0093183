"""`bidref replay T --moves FILE`: the move file `bidref validate` accepts and agrees with.

1,000 random seeded transcripts, written by the real referee with in-process
seats on a fake clock (some with illegal tries, time losses, explicit deals,
forfeits), are exported and validated: the same rounds (reason, winner, pips,
payout, balances), the same final balances and, for an ending by the rules, the
same result.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bidref.cli import app
from bidref.movefile.validate import validate_text
from bidref.transcript import FORMAT, FORMAT_V1
from bidref.transcript.export import move_file_text
from bidref.transcript.replay import replay
from tests.transcript.scripted_seats import referee_transcript

runner = CliRunner()


def _random_kwargs(rng: random.Random) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "seed": rng.randrange(1 << 31),
        "max_rounds": rng.choice([1, 1, 2, 2, 3, None]),
        "format": FORMAT if rng.random() < 0.8 else FORMAT_V1,
    }
    roll = rng.random()
    if roll < 0.15:
        kw["illegal_rate"] = 0.2
    elif roll < 0.22:
        kw["late_at"] = rng.randrange(2, 30)
    elif roll < 0.27:
        kw |= {"illegal": "forfeit", "illegal_rate": 0.1}
    elif roll < 0.35:
        kw["explicit_deals"] = 1
    if kw["max_rounds"] is None:
        kw["max_rounds"] = 4  # a whole match is long: the limit keeps 1,000 of them fast
    return kw


def _agree(data: bytes, where: str) -> None:
    r = replay(data, steps=False)
    assert r.exit_code == 0, (where, r.problem)
    v = validate_text(move_file_text(r, where))
    assert v.ok, (where, v.problem)
    assert r.result is not None
    assert list(v.balances or ()) == r.result.balances, where
    said = [(e.round, e.reason, e.winner, e.pips, e.payout) for e in r.game.round_ends]
    got = [(x.round, x.reason, x.winner, x.pips, x.payout) for x in v.rounds]
    assert got == said, where
    if r.result.reason in ("balance", "round_limit"):
        assert v.result is not None, where
        assert (v.result.reason, v.result.winner) == (r.result.reason, r.result.winner)
        assert v.result.rounds == r.result.rounds
    else:  # an ending outside the rules: the game was not over
        assert v.result is None, where


@pytest.mark.timeout(900)  # about 15 s of CPU; a loaded machine stretches it
@pytest.mark.parametrize("part", range(4))
def test_a_thousand_transcripts_round_trip_through_validate(part: int) -> None:
    rng = random.Random(20261203 + part)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "t.jsonl"
        for i in range(250):  # 4 parts of 250: 1,000 transcripts
            kw = _random_kwargs(rng)
            _agree(referee_transcript(path, **kw), f"transcript {part}/{i}: {kw}")


def test_the_cli_writes_the_move_file(tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl.gz"
    referee_transcript(t, format=FORMAT, max_rounds=2, explicit_deals=1, illegal_rate=0.1)
    moves = tmp_path / "game.txt"
    res = runner.invoke(app, ["replay", str(t), "--moves", str(moves), "--final"])
    assert res.exit_code == 0, res.output
    text = moves.read_text(encoding="utf-8")
    assert "hand A:" in text and "seed:" in text and "max rounds: 2" in text
    res = runner.invoke(app, ["validate", str(moves)])
    assert res.exit_code == 0, res.output


def test_an_unwritable_move_file_is_a_clear_error(tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl"
    referee_transcript(t, format=FORMAT, max_rounds=1)
    res = runner.invoke(app, ["replay", str(t), "--moves", str(tmp_path / "no" / "m.txt")])
    assert res.exit_code == 2
    assert "cannot write the move file" in res.output
