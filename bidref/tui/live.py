"""The real display: a rich ``Live`` on the terminal's alternate screen.

The alternate screen matters for hot-seat play: when a hand is hidden it is
gone from the terminal, not merely scrolled up. The display redraws a few
times a second on its own, so the clocks count while nobody types.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.live import Live

from .screen import Clocks, LiveScreen, ScreenModel


class LiveDisplay:
    """Use as a context manager around the match."""

    def __init__(
        self,
        console: Console,
        clock: Callable[[], int],
        names: tuple[str, str],
        refresh_per_second: float = 4,
    ) -> None:
        self.screen = LiveScreen(ScreenModel(names=names, clocks=Clocks((0, 0), 0)), clock)
        self.live = Live(
            self.screen,
            console=console,
            screen=True,
            auto_refresh=True,
            refresh_per_second=refresh_per_second,
            redirect_stdout=False,
            redirect_stderr=False,
            transient=True,
        )
        self.last: ScreenModel = self.screen.model

    def __enter__(self) -> LiveDisplay:
        self.live.start(refresh=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.stop()

    def show(self, model: ScreenModel) -> None:
        self.screen.model = self.last = model
        self.live.refresh()
