"""Digests of seeded random matches, to compare two builds of ``bidref.rules``.

Match ``i`` of a run is seeded by ``i``: its configuration (round limit,
starting balances, first jockey) and every random choice come from the seed.
After every action the whole state (balances, hands, boneyard order, layout,
phase, turn, auction, passes, draws, result, legal actions) and the events the
action returned go into the match's digest. Two builds that agree on every
digest agreed on every state and every event of every match.

Run as a script, it prints which build it imported, then one digest per line::

    python tests/rules/differential.py START COUNT
"""

from __future__ import annotations

import hashlib
import random
import sys

from bidref.build.compiled import is_compiled
from bidref.rules import Event, Match, MatchConfig

BALANCES = ((150, 150), (40, 260), (280, 20), (15, 285), (100, 200))
JOCKEYS = (None, 0, 1)


def config_of(seed: int) -> MatchConfig:
    return MatchConfig(
        start_balances=BALANCES[seed % len(BALANCES)],
        max_rounds=1 + seed % 4,
        first_jockey=JOCKEYS[(seed // 7) % len(JOCKEYS)],
    )


def state_text(m: Match) -> str:
    lay = m.layout
    return repr(
        (
            m.balances,
            [t.index for t in m.hands[0]],
            [t.index for t in m.hands[1]],
            [t.index for t in m.boneyard],
            [t.index for t in lay.placed],
            [(a.index, b.index) for a, b in lay.connections],
            [p.index for p in lay.open_points],
            None if lay.spinner is None else lay.spinner.index,
            m.phase.value,
            m.over,
            m.to_act,
            m.turn,
            m.round_number,
            m.jockey,
            m.next_jockey,
            None if m.forced_tile is None else m.forced_tile.index,
            m.bid,
            m.bidder,
            m.passes,
            m.drawn_this_turn,
            m.round_actions,
            None if m.result is None else m.result.to_dict(),
            [str(a) for a in m.legal_actions()],
        )
    )


def events_text(events: list[Event]) -> str:
    return repr([e.to_dict() for e in events])


def match_digest(seed: int) -> str:
    rng = random.Random(seed)
    m = Match.new(seed, config_of(seed))
    h = hashlib.blake2b(digest_size=16)
    h.update(events_text(m.start_events).encode())
    h.update(state_text(m).encode())
    while not m.over:
        legal = m.legal_actions()
        events = m.apply(legal[rng.randrange(len(legal))])
        h.update(events_text(events).encode())
        h.update(state_text(m).encode())
    return h.hexdigest()


def digests(start: int, count: int) -> list[str]:
    return [match_digest(seed) for seed in range(start, start + count)]


def main(argv: list[str]) -> int:
    start, count = int(argv[1]), int(argv[2])
    lines = ["compiled" if is_compiled() else "pure", *digests(start, count)]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
