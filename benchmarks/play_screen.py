#!/usr/bin/env python3
"""How long one redraw of the play screen takes (composition, fitting, rendering).

The live display redraws 4 times a second and after every key, so a redraw must
stay far below the 250 ms between redraws. Positions are taken from random
playouts; each is drawn on a large (140x60) and a small (80x24) terminal, where
the screen first tries the full picture and then gives up parts of it. Then the
rules in their scrollable window, with the rendered text kept and rendered anew.

    python benchmarks/play_screen.py [--frames 300]
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time

from rich.console import Console
from rich.markdown import Markdown

from bidref.rules import Match
from bidref.rules_text import rules_text
from bidref.tui.screen import Clocks, Running, ScreenModel, Scroll, fit


def models(n: int, seed: int = 0) -> list[ScreenModel]:
    rng = random.Random(seed)
    out: list[ScreenModel] = []
    while len(out) < n:
        m = Match.new(rng.getrandbits(32))
        while not m.over and len(out) < n:
            p = m.to_act
            out.append(
                ScreenModel(
                    names=("human", "engine"),
                    clocks=Clocks((100 * 10**9, 90 * 10**9), 10 * 10**9, Running(p, 0, 10 * 10**9)),
                ).but(
                    balances=(m.balances[0], m.balances[1]),
                    round=m.round_number,
                    turn=m.turn,
                    phase=m.phase.value,
                    layout=m.layout.copy(),
                    viewer=p,
                    hand=tuple(m.hands[p]),
                    hand_sizes=(len(m.hands[0]), len(m.hands[1])),
                    boneyard=len(m.boneyard),
                    to_act=p,
                    legal=tuple(m.legal_actions()),
                    log=("B: play 1-3 1-1:line_a — count 10, earns 10",) * 4,
                    prompt="pl",
                    footer="number / action / Tab to complete",
                )
            )
            m.apply(rng.choice(m.legal_actions()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=300)
    args = ap.parse_args()
    frames = models(args.frames)
    for width, height in ((140, 60), (80, 24)):
        console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True)
        times = []
        for model in frames:
            t = time.perf_counter()
            console.print(fit(model, 5 * 10**9, console, console.options))
            times.append(time.perf_counter() - t)
        times.sort()
        print(
            f"{width}x{height}: {len(times)} redraws, median "
            f"{statistics.median(times) * 1000:.1f} ms, 95th percentile "
            f"{times[int(len(times) * 0.95)] * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms"
        )

    # The rules in their scrollable window: the screen redraws it 4 times a second, so
    # it keeps the rendered Markdown per width. Side by side: a window that keeps it
    # (each redraw after the first) and one that renders the text again every time.
    rules = rules_text()
    base = frames[0].but(legal=())
    for width, height in ((140, 60), (80, 24)):
        console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True)
        kept = Scroll(Markdown(rules), rules)
        figures: dict[str, float] = {}
        for label in ("kept", "rendered each time"):
            times = []
            for i in range(60):
                sc = kept if label == "kept" else Scroll(Markdown(rules), rules)
                sc.top = i
                t = time.perf_counter()
                console.print(fit(base.but(overlay=sc), 5 * 10**9, console, console.options))
                times.append(time.perf_counter() - t)
            figures[label] = statistics.median(times[1:]) * 1000
        print(
            f"{width}x{height} rules window: median redraw {figures['kept']:.1f} ms with the "
            f"rendered text kept, {figures['rendered each time']:.1f} ms rendering it each "
            f"time ({figures['rendered each time'] / figures['kept']:.1f}x)"
        )


if __name__ == "__main__":
    main()
