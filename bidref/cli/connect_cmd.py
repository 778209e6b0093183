"""`bidref connect`: run a local engine and bridge it to a referee's network seat."""

from __future__ import annotations

import math
import shlex
import ssl
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ..engines import Clock, EngineSpec, EngineSpecError, Transport, resolve_engine
from ..net import NetSpecError, is_listen
from ..net.match_seats import MatchSeats, listening_seats, tls_context
from ..players import Seat
from ..referee import MatchSpec
from ..rules import SECOND
from . import app
from .common import EXIT_BAD_ARGS, EXIT_STARTUP, TransportOption, signals_interrupt

EXIT_LOST = 1  # the seat was lost: no connection for too long, or another client took it


@app.command("connect")
def connect(
    url: Annotated[
        str, typer.Argument(help="The seat's address as the referee printed it (ws:// or wss://).")
    ],
    engine: Annotated[
        list[str],
        typer.Argument(
            help="The engine command, after `--`: an executable, a .py file, or a command line.",
            show_default=False,
        ),
    ],
    token: Annotated[
        str,
        typer.Option(
            envvar="BIDREF_TOKEN",
            help="The seat's token as the referee printed it (or set BIDREF_TOKEN, which "
            "other users of this machine cannot read in the process list).",
        ),
    ],
    transport: TransportOption = "pipe",
    ca_file: Annotated[
        Path | None,
        typer.Option(
            help="Trust this certificate (PEM) for wss://, e.g. the referee's self-signed one.",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    retry_for: Annotated[
        float,
        typer.Option(help="Give up after this many seconds without a connection, in s."),
    ] = 120.0,
) -> None:
    """Play in a referee's network seat with a local engine, like lichess-bot.

    The referee runs e.g. `bidref match listen://0.0.0.0:9000 my_engine`
    and prints a URL and a token for the seat; on the engine's machine:

        bidref connect ws://referee-host:9000/ --token TOKEN
        -- python3 my_bot.py --fast

    When the connection drops it reconnects (with backoff); the engine's clock
    keeps running meanwhile. Run the same command again after a crash or a
    reboot and it takes the seat back with a fresh engine.

    Exit codes: 0 the match is over, 1 the seat was lost (no connection for
    --retry-for seconds, another client took it with the same token, or the
    engine ended before the match did), 2 bad arguments or a refused token, 3
    the engine failed to start, 130 interrupted.
    """
    from ..net.client import Bridge  # (websockets is imported only when it is used)

    err = Console(stderr=True)

    def bad(message: str, code: int = EXIT_BAD_ARGS) -> typer.Exit:
        err.print(f"[red]error:[/red] {escape(message)}", highlight=False)
        return typer.Exit(code=code)

    if not url.startswith(("ws://", "wss://")):
        raise bad(f"{url!r}: give the seat's ws:// or wss:// URL as the referee printed it")
    if not engine:
        raise bad("no engine command: give it after `--`, e.g. -- python3 my_bot.py")
    if transport not in ("pipe", "pty"):
        raise bad(f"--transport {transport!r}: use pipe or pty")
    if not (math.isfinite(retry_for) and retry_for > 0):
        raise bad(f"--retry-for {retry_for:g}: give a positive number of seconds")
    if not token.strip():
        raise bad("--token is empty: give the token the referee printed for this seat")
    try:
        spec = resolve_engine(engine[0] if len(engine) == 1 else shlex.join(engine))
    except EngineSpecError as e:
        raise bad(str(e)) from None
    ctx: ssl.SSLContext | None = None
    if url.startswith("wss://"):
        try:
            ctx = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
        except (OSError, ssl.SSLError) as e:
            raise bad(
                f"--ca-file {str(ca_file)!r}: cannot load it ({e}); give a PEM file"
            ) from None

    def status(text: str) -> None:
        err.print(f"connect: {escape(text)}", highlight=False)

    bridge = Bridge(
        url,
        token,
        spec,
        transport=transport,
        ssl_context=ctx,
        retry_for_ns=round(retry_for * SECOND),
        status=status,
    )
    try:
        with signals_interrupt():
            result = bridge.run()
    except KeyboardInterrupt:
        err.print("connect: interrupted; the engine was ended", highlight=False)
        raise typer.Exit(code=130) from None
    if result.how == "start_failed":
        raise bad(f"the engine did not start: {result.detail}", EXIT_STARTUP)
    if result.how == "refused":
        raise bad(f"the referee refused this client: {result.detail}")
    if not result.ok:
        raise bad(f"{result.how.replace('_', ' ')}: {result.detail}", EXIT_LOST)
    status(f"done ({result.detail}; {result.connections} connection(s))")


# -- the referee's side: `bidref match listen://...` ---------------------------------------

ConnectInfoOption = Annotated[
    Path | None,
    typer.Option(
        help="With a listen:// engine: write the seats' URLs and tokens here as JSON as soon "
        'as the referee listens ({"seats": [{"seat": 0, "url": ..., "token": ...}]}).',
        dir_okay=False,
    ),
]
TlsCertOption = Annotated[
    Path | None,
    typer.Option(help="With a listen:// engine: serve wss:// with this certificate (PEM)."),
]
TlsKeyOption = Annotated[Path | None, typer.Option(help="The private key (PEM) of --tls-cert.")]


def listen_for_remote_engines(
    spec: MatchSpec,
    args: tuple[str, str],
    *,
    connect_info: Path | None,
    tls_cert: Path | None,
    tls_key: Path | None,
    err: Console,
) -> list[Seat] | None:
    """The seats for a match with ``listen://`` engines, listening already (their
    URLs and tokens printed on stderr and written to ``connect_info``); None when
    no engine is remote. Bad options exit with status 2."""

    def bad(message: str) -> typer.Exit:
        err.print(f"[red]error:[/red] {escape(message)}", highlight=False)
        return typer.Exit(code=EXIT_BAD_ARGS)

    if not any(is_listen(a) for a in args):
        if connect_info or tls_cert or tls_key:
            raise bad(
                "--connect-info, --tls-cert and --tls-key are for network seats: give an "
                "engine as listen://HOST:PORT (e.g. listen://127.0.0.1:0)"
            )
        return None
    try:
        seats = listening_seats(spec, args, tls=tls_context(tls_cert, tls_key))
    except NetSpecError as e:
        raise bad(str(e)) from None
    assert seats is not None
    for s in seats.network:
        err.print(
            f"seat {'AB'[s.seat]} waits for a remote engine: {s.url}  token {s.token}\n"
            f"  on the engine's machine: bidref connect {s.url} --token {s.token} -- ENGINE",
            highlight=False,
            soft_wrap=True,
        )
    if connect_info is not None:
        try:
            seats.write_connect_info(connect_info)
        except OSError as e:
            seats.close()
            raise bad(
                f"--connect-info {str(connect_info)!r}: cannot write it ({e.strerror or e}); "
                "give a file in a folder you can write"
            ) from None
    return seats.seats


def listen_for_remote_check(
    arg: str,
    *,
    startup: float,
    connect_info: Path | None,
    tls_cert: Path | None,
    tls_key: Path | None,
    err: Console,
) -> Callable[[EngineSpec, str, Clock], Transport]:
    """For `bidref check-engine listen://…`: a listening seat (URL and token
    printed and written to ``connect_info``) as the checker's engine starter."""
    from ..net import ListenAddress
    from ..net.seat import NetworkSeat
    from ..net.transport import remote_starter

    def bad(message: str) -> typer.Exit:
        err.print(f"[red]error:[/red] {escape(message)}", highlight=False)
        return typer.Exit(code=EXIT_BAD_ARGS)

    try:
        seat = NetworkSeat(
            ListenAddress.parse(arg),
            seat=0,
            startup_timeout_ns=round(startup * SECOND),
            tls=tls_context(tls_cert, tls_key),
        )
        seat.listen()
    except NetSpecError as e:
        raise bad(str(e)) from None
    seats = MatchSeats([seat], [seat])
    err.print(
        f"check-engine waits for a remote engine: {seat.url}  token {seat.token}\n"
        f"  on the engine's machine: bidref connect {seat.url} --token {seat.token} -- ENGINE",
        highlight=False,
        soft_wrap=True,
    )
    if connect_info is not None:
        try:
            seats.write_connect_info(connect_info)
        except OSError as e:
            seats.close()
            raise bad(
                f"--connect-info {str(connect_info)!r}: cannot write it ({e.strerror or e}); "
                "give a file in a folder you can write"
            ) from None
    return remote_starter(seat)
