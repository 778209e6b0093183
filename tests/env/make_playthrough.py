"""Write the committed OpenSpiel playthrough of the game (tests/env/playthroughs/).

    .venv/bin/python tests/env/make_playthrough.py

Run it only when the game's text changes on purpose (the action or chance
names, the observation); tests/env/test_openspiel.py replays the file and
fails on any difference.
"""

from __future__ import annotations

from pathlib import Path

from absl import flags
from open_spiel.python.algorithms import generate_playthrough

import bidref.openspiel  # noqa: F401  (registers the game)

GAME = "python_spectacular_bid(max_rounds=1)"
SEED = 7
PATH = Path(__file__).parent / "playthroughs" / "python_spectacular_bid.txt"


def make() -> str:
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
    return str(generate_playthrough.playthrough(GAME, None, seed=SEED))


if __name__ == "__main__":
    PATH.write_text(make(), encoding="utf-8")
