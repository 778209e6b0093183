"""Network engines in `bidref tournament` (docs/network.md, "Tournaments"): their
options, listeners and backend, apart from the tournament command itself."""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .common import TlsKeyOption as TlsKeyOption  # for tournament_cmd
from .common import connect_info_option

if TYPE_CHECKING:
    from rich.console import Console

    from bidref.tournament import Plan, PlayFn
    from bidref.tournament.remote import RemoteEngines
    from bidref.tournament.runner import Backend

DEFAULT_STARTUP_S = 10.0

ConnectInfoOption = Annotated[
    Path | None,
    connect_info_option(
        "With listen:// engines",
        "their URLs and tokens",
        "the tournament",
        '{"engines": [{"name": ..., "url": ..., "token": ...}]}',
    ),
]
TlsCertOption = Annotated[
    Path | None,
    typer.Option(
        metavar="FILE",
        help="With listen:// engines: serve wss:// with this certificate (PEM). With "
        "--cluster tls://...: this coordinator's certificate (see --tls-ca-file).",
    ),
]
StartupOption = Annotated[
    float | None,
    typer.Option(
        metavar="SECONDS",
        help="With listen:// engines: how long a network engine's client has to connect "
        f"and say hello, in each of its matches. \\[default: {DEFAULT_STARTUP_S:g}]",
        show_default=False,
    ),
]


def listen_for_network_engines(
    plan: Plan,
    *,
    default_play: bool,
    cluster: str | None,
    connect_info: Path | None,
    tls_cert: Path | None,
    tls_key: Path | None,
    startup: float | None,
    err: Console,
) -> RemoteEngines | None:
    """The listeners of the tournament's ``listen://`` engines, listening (their
    URLs and tokens printed on ``err`` and written to ``connect_info``); None
    when every engine is local."""
    from bidref.net.match_seats import tls_context
    from bidref.rules import SECOND
    from bidref.tournament.engines import is_remote
    from bidref.tournament.remote import RemoteEngines

    from .options import Refused

    remote = [e for e in plan.engines if is_remote(e)]
    if not remote:
        tls_for_cluster = cluster is not None and not (connect_info or startup is not None)
        if connect_info or startup is not None or ((tls_cert or tls_key) and not tls_for_cluster):
            raise Refused(
                "--connect-info, --tls-cert, --tls-key and --startup are for network "
                "engines: give an engine as listen://HOST:PORT (e.g. remote=listen://0.0.0.0:9000)"
            )
        return None
    names = ", ".join(e.name for e in remote)
    if cluster is not None:
        raise Refused(
            f"network engines ({names}) cannot play on a --cluster: their listener lives "
            "in this process; drop --cluster, or run `bidref connect` clients against a "
            "tournament on this machine"
        )
    if not default_play:
        raise Refused("network engines need the default --play-function")
    if startup is not None and not (math.isfinite(startup) and startup > 0):
        raise Refused(f"--startup {startup:g}: give a positive number of seconds")
    engines = RemoteEngines(  # (a bad TLS file: a NetSpecError, said by the one handler)
        plan.engines,
        tls=tls_context(tls_cert, tls_key),
        startup_timeout_ns=round((startup or DEFAULT_STARTUP_S) * SECOND),
    )
    from bidref.net.tokens import connect_hint

    for name, lst in engines.listeners.items():
        err.print(
            connect_hint(f"engine {name}", lst.url, lst.token),
            highlight=False,
            soft_wrap=True,
            markup=False,
        )
    if connect_info is not None:
        try:
            engines.write_connect_info(connect_info)
        except OSError as e:
            engines.close(final_word_s=0)
            raise Refused(
                f"--connect-info {str(connect_info)!r}: cannot write it ({e.strerror or e}); "
                "give a file in a folder you can write"
            ) from None
    return engines


def remote_backend(local: Backend, engines: RemoteEngines, play: PlayFn) -> Backend:
    """``local`` for matches between local engines; the others in threads here."""
    from bidref.tournament.play import play_match
    from bidref.tournament.remote import RemoteBackend

    assert play is play_match  # (listen_for_network_engines refuses another)
    return RemoteBackend(local, engines, functools.partial(play_match, remote=engines))
