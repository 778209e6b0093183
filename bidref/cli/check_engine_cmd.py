"""`bidref check-engine`: does an engine speak protocol bidref/1 correctly?"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ..rules import seconds
from . import app
from .common import clock_args_problem
from .connect_cmd import ConnectInfoOption, TlsCertOption, TlsKeyOption


@app.command("check-engine")
def check_engine_cmd(
    engine: Annotated[
        str,
        typer.Argument(
            help="The engine: a program, a .py file, an engine file (.toml/.json) or a "
            'command line in quotes, e.g. "node my_engine.js".'
        ),
    ],
    bank: Annotated[float, typer.Option(help="Bank in seconds announced and enforced.")] = 2.0,
    delay: Annotated[float, typer.Option(help="Delay per turn in seconds.")] = 0.2,
    startup: Annotated[float, typer.Option(help="Seconds allowed for the hello.")] = 10.0,
    transport: Annotated[str, typer.Option(help="pipe or pty.")] = "pipe",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    connect_info: ConnectInfoOption = None,
    tls_cert: TlsCertOption = None,
    tls_key: TlsKeyOption = None,
) -> None:
    """Check that ENGINE follows protocol bidref/1, item by item.

    It greets the engine, sends decision requests in every phase (forced and
    free opening, the auction as first speaker and as jockey, play, draw, the
    play after a draw, the spinner's branches), a stale-id error, a refused
    answer, and quit, and times every reply. A failed item says why and what
    to do. Exit code 0 only if every item passes, 1 if one fails, 2 for bad
    arguments.

    Example: bidref check-engine sample_engines/js_random/engine.js

    A remote engine (docs/network.md): bidref check-engine listen://0.0.0.0:9000
    --startup 120, then `bidref connect` on the engine's machine.
    """
    from ..check_engine import CheckSettings, check_engine
    from ..engines import EngineSpecError
    from ..net import is_listen
    from ..net.match_seats import engine_spec_for
    from .connect_cmd import listen_for_remote_check

    problem = clock_args_problem(transport, bank, delay, startup)
    if problem is None and bank + delay <= 0:
        problem = f"--bank {bank:g} / --delay {delay:g}: give the engine some time to answer"
    if problem:
        typer.echo(f"check-engine: {problem}", err=True)
        raise typer.Exit(code=2)
    try:
        spec = engine_spec_for(engine)
    except EngineSpecError as e:
        typer.echo(f"check-engine: {e}", err=True)
        raise typer.Exit(code=2) from None
    settings = CheckSettings(
        bank=seconds(bank), delay=seconds(delay), startup=seconds(startup), transport=transport
    )
    starter = None
    if is_listen(engine):
        starter = listen_for_remote_check(
            engine,
            startup=startup,
            connect_info=connect_info,
            tls_cert=tls_cert,
            tls_key=tls_key,
            err=Console(stderr=True),
        )
    report = check_engine(spec, settings, starter=starter)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        console = Console()
        table = Table(
            title=f"check-engine {report.engine_name or spec.name} "
            f"({bank:g} s bank + {delay:g} s delay)"
        )
        table.add_column("item")
        table.add_column("result")
        table.add_column("detail", overflow="fold")
        for r in report.results:
            table.add_row(r.item, "[green]PASS[/]" if r.passed else "[bold red]FAIL[/]", r.detail)
        console.print(table)
        n_ok = sum(r.passed for r in report.results)
        verdict = "[green]all passed[/]" if report.passed else "[bold red]failed[/]"
        console.print(f"{n_ok}/{len(report.results)} items passed: {verdict}")
    raise typer.Exit(code=0 if report.passed else 1)
