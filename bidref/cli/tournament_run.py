"""Running a ``bidref tournament`` once it is checked and opened (see
:mod:`.tournament_cmd`): the network engines' listeners, the backend the matches
run on, SIGTERM taken as Ctrl-C, and the progress (live on a terminal, one line
per match in CI logs)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from types import FrameType
from typing import TYPE_CHECKING

from .tournament_remote import listen_for_network_engines, remote_backend

if TYPE_CHECKING:
    from rich.console import Console

    from bidref.tournament import Plan, PlayFn, Progress, ResultsStore, RunSummary
    from bidref.tournament.remote import RemoteEngines
    from bidref.tournament.runner import Backend

    from .tournament_options import Running


class Listeners:
    """The network engines' listeners, closed with the run's other resources: at
    once if the run never started (no client has played: none to wait for), else
    giving a client that played the time to come back and hear that it is over."""

    def __init__(self, engines: RemoteEngines) -> None:
        self.engines = engines
        self.started = False

    def close(self) -> None:
        if self.started:
            self.engines.close()
        else:
            self.engines.close(final_word_s=0)


def listen(plan: Plan, running: Running, resources: ExitStack, err: Console) -> Listeners | None:
    """The listeners of the tournament's network engines (None: every engine is local)."""
    engines = listen_for_network_engines(
        plan,
        default_play=running.real_engines,
        cluster=running.cluster,
        connect_info=running.connect_info,
        tls_cert=running.tls_cert,
        tls_key=running.tls_key,
        startup=running.startup,
        err=err,
    )
    if engines is None:
        return None
    listeners = Listeners(engines)
    resources.callback(listeners.close)
    return listeners


def backend_for(
    play: PlayFn,
    running: Running,
    todo: int,
    listeners: Listeners | None,
    err: Console,
    plan: Plan,
) -> Backend:
    """Where the matches run (matches with a network engine: in threads here)."""
    from bidref.tournament.backends import make_backend, overload_warning

    backend = make_backend(
        play,
        running.cluster,
        running.concurrency,
        todo,
        engines=plan.engines,
        ship=running.ship_engines,
        trust=running.trust,
    )
    warning = None if running.cluster is not None else overload_warning(running.concurrency)
    if warning is not None:
        err.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    if listeners is not None:
        backend = remote_backend(backend, listeners.engines, play)
    return backend


@contextmanager
def term_as_interrupt() -> Iterator[None]:
    """SIGTERM ends the run like Ctrl-C: running matches end cleanly, results kept."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_with_progress(
    plan: Plan,
    store: ResultsStore,
    backend: Backend,
    max_attempts: int,
    console: Console,
    *,
    lines: bool,
    rating_interval: int,
    remote: frozenset[str] = frozenset(),
) -> RunSummary:
    """Run, showing live progress on a terminal; else (``lines``, for CI logs) one
    line per finished match and the standings every ``rating_interval`` of them."""
    from rich.live import Live

    from bidref.render.tournament.tables import standings_table
    from bidref.render.tournament.views import LiveView, finished_line
    from bidref.tournament import run

    live = (
        Live(console=console, refresh_per_second=4, transient=True) if console.is_terminal else None
    )

    def on_progress(p: Progress) -> None:
        if live is not None:
            live.update(LiveView(p, plan))
            return
        if not lines or p.last is None:
            return
        console.print(finished_line(p), highlight=False, soft_wrap=True)
        if rating_interval and p.played % rating_interval == 0 and p.done < p.total:
            title = f"Standings after {p.done} rated matches"
            console.print(standings_table(p.standings, title=title, hero=plan.hero))

    with live if live is not None else nullcontext():
        return run(
            plan,
            store,
            backend,
            on_progress=on_progress,
            max_attempts=max_attempts,
            remote=remote,
        )
