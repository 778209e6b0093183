"""`bidref connect`: run a local engine and bridge it to a referee's network seat."""

from __future__ import annotations

import math
import shlex
import ssl
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ..engines import EngineSpec, resolve_engine
from ..rules import SECOND
from ..visible import visible
from . import app
from .common import TransportOption, signals_interrupt
from .exit_codes import ExitCode
from .options import Refused  # bad input: said, exit 2, by the CLI's one handler
from .sandbox_opts import JAIL_DEFAULTS, JailArgs, sandbox_options

# connect's options, declared here so that its signature stays one line each
_Url = Annotated[
    str, typer.Argument(help="The seat's address as the referee printed it (ws:// or wss://).")
]
_EngineArgs = Annotated[
    list[str],
    typer.Argument(
        help="The engine command, after `--`: an executable, a .py file, or a command line.",
        show_default=False,
    ),
]
_Token = Annotated[
    str | None,
    typer.Option(
        metavar="TOKEN",
        envvar="BIDREF_TOKEN",
        help="The seat's token as the referee printed it. On a command line it shows "
        "in the process list (ps) to every user of this machine: prefer "
        "BIDREF_TOKEN=TOKEN or --token-file.",
        show_envvar=False,
    ),
]
_TokenFile = Annotated[
    Path | None,
    typer.Option(
        metavar="FILE",
        help="Read the seat's token from FILE (its first line), e.g. one made with "
        "`umask 077; echo TOKEN > seat.token`.",
        dir_okay=False,
    ),
]
_CaFile = Annotated[
    Path | None,
    typer.Option(
        metavar="FILE",
        help="Trust this certificate (PEM) for wss://, e.g. the referee's self-signed one.",
        exists=True,
        dir_okay=False,
    ),
]
_RetryFor = Annotated[
    float,
    typer.Option(metavar="SECONDS", help="Give up after this many seconds without a connection."),
]
_Once = Annotated[
    bool,
    typer.Option(
        "--once", help="Play one match and exit, even when the referee (a tournament) offers more."
    ),
]


@app.command("connect")
@sandbox_options
def connect(
    url: _Url,
    engine: _EngineArgs,
    token: _Token = None,
    token_file: _TokenFile = None,
    transport: TransportOption = "pipe",
    ca_file: _CaFile = None,
    retry_for: _RetryFor = 120.0,
    once: _Once = False,
    jail: JailArgs = JAIL_DEFAULTS,  # the jail options (cli/sandbox_opts.py)
) -> None:
    """Play in a referee's network seat with a local engine, like lichess-bot.

    The referee runs e.g. `bidref match listen://0.0.0.0:9000 my_engine`
    and prints a URL and a token for the seat; on the engine's machine:

        BIDREF_TOKEN=TOKEN bidref connect ws://referee-host:9000/
        -- python3 my_bot.py --fast

    (or --token-file FILE with the token in FILE: a token given as --token
    TOKEN shows in the process list to every user of the machine).

    When the connection drops it reconnects (with backoff); the engine's clock
    keeps running meanwhile. Run the same command again after a crash or a
    reboot and it takes the seat back with a fresh engine.

    Against a tournament (`bidref tournament ... listen://0.0.0.0:9000`) it keeps
    serving: each match with a fresh engine process, until the tournament is
    over (--once: one match only).

    Exit codes: 0 the match (or tournament) is over, 1 the seat was lost (no connection for
    --retry-for seconds, another client took it with the same token, or the
    engine ended before the match did), 2 bad arguments or a refused token, 3
    the engine failed to start, 130 interrupted.
    """
    from ..net.client import Bridge, serve  # (websockets is imported only when it is used)

    err = Console(stderr=True, soft_wrap=True)  # an error is one line, never cut

    def ended(message: str, code: ExitCode) -> typer.Exit:
        err.print(f"[red]error:[/red] {_shown(message)}", highlight=False, soft_wrap=True)
        return typer.Exit(code=code)

    if not url.startswith(("ws://", "wss://")):
        raise Refused(f"{url!r}: give the seat's ws:// or wss:// URL as the referee printed it")
    if not engine:
        raise Refused("no engine command: give it after `--`, e.g. -- python3 my_bot.py")
    if transport not in ("pipe", "pty"):
        raise Refused(f"--transport {transport!r}: use pipe or pty")
    if not (math.isfinite(retry_for) and retry_for > 0):
        raise Refused(f"--retry-for {retry_for:g}: give a positive number of seconds")
    token = _token(token, token_file)
    spec = _jailed_engine(engine, jail)
    ctx = _ssl_context(url, ca_file)

    def status(text: str) -> None:
        err.print(f"connect: {_shown(text)}", highlight=False)

    def new_bridge() -> Bridge:
        return Bridge(
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
            result, matches = serve(new_bridge, once=once, status=status)
    except KeyboardInterrupt:
        err.print("connect: interrupted; the engine was ended", highlight=False)
        raise typer.Exit(code=ExitCode.INTERRUPTED) from None
    if result.how == "start_failed":
        raise ended(f"the engine did not start: {result.detail}", ExitCode.STARTUP)
    if result.how == "refused":
        raise Refused(f"the referee refused this client: {result.detail}")
    if not result.ok:
        raise ended(f"{result.how.replace('_', ' ')}: {result.detail}", ExitCode.FAILED)
    if result.how == "next_match":
        status("done (--once: one match played; the referee has more)")
    elif matches > 1 or (matches and not result.connections):
        status(f"done ({result.detail}; {matches} match(es) played)")
    else:
        status(f"done ({result.detail}; {result.connections} connection(s))")


def _shown(text: str) -> str:
    """A message as rich markup that shows it as typed, the engine's control
    characters escaped (it may quote the engine's words)."""
    return escape(visible(text, lines=True))


def _jailed_engine(engine: list[str], jail: JailArgs) -> EngineSpec:
    """The engine the command line gives (after `--`), in the jail its options say
    (one that cannot be used: a ``UsageError``, said by the CLI's one handler)."""
    from .sandbox_opts import jail_engines

    spec = resolve_engine(engine[0] if len(engine) == 1 else shlex.join(engine))
    return jail_engines([spec], jail.config())[0]


def _ssl_context(url: str, ca_file: Path | None) -> ssl.SSLContext | None:
    """For a wss:// URL, the TLS context (trusting ``ca_file`` too); None for ws://."""
    if not url.startswith("wss://"):
        return None
    try:
        return ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
    except (OSError, ssl.SSLError) as e:
        raise Refused(
            f"--ca-file {str(ca_file)!r}: cannot load it ({e}); give a PEM file"
        ) from None


def _token(given: str | None, path: Path | None) -> str:
    """The seat's token: from --token-file, else --token or BIDREF_TOKEN."""
    if path is not None and given is not None:
        raise Refused(
            "give the token once: --token-file or --token (or BIDREF_TOKEN), not both; "
            "unset BIDREF_TOKEN to use the file"
        )
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise Refused(f"--token-file {str(path)!r}: cannot read it ({why})") from None
        lines = text.strip().splitlines()
        if not lines or not lines[0].strip():
            raise Refused(
                f"--token-file {str(path)!r} is empty: write the token the referee printed "
                "for this seat in it"
            )
        return lines[0].strip()
    if given is None:
        raise Refused(
            "no token: give the token the referee printed for this seat as "
            "BIDREF_TOKEN=TOKEN bidref connect ..., or --token-file FILE"
        )
    if not given.strip():
        raise Refused("--token is empty: give the token the referee printed for this seat")
    return given


# -- the referee's side: `bidref match listen://...` ---------------------------------------
