"""`bidref check-engine`: does an engine speak protocol bidref/1 correctly?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from . import app
from .common import (
    EachOption,
    EngineOption,
    FreezeIdleOption,
    StartupOption,
    TransportOption,
    freeze_idle_of,
)
from .exit_codes import ExitCode
from .remote import ConnectInfoOption, TlsCertOption, TlsKeyOption
from .sandbox_opts import JAIL_DEFAULTS, JailArgs, sandbox_options

if TYPE_CHECKING:
    from ..check import CheckReport
    from ..engines import EngineSpec
    from ..rules import TimeControl

# check-engine's own options, declared here so that its signature stays one line each
_EngineArg = Annotated[
    str | None,
    typer.Argument(
        metavar="ENGINE",
        help="The engine: a program, a .py file, an engine file (.toml/.json) or a "
        'command line in quotes, e.g. "node my_engine.js" (or give it with --engine).',
        show_default=False,
    ),
]
_Bank = Annotated[
    float, typer.Option(metavar="SECONDS", help="Bank in seconds announced and enforced.")
]
_Delay = Annotated[float, typer.Option(metavar="SECONDS", help="Delay per turn in seconds.")]
_Json = Annotated[bool, typer.Option("--json", metavar="", help="Print the report as JSON.")]


@app.command("check-engine")
@sandbox_options
def check_engine_cmd(
    engine: _EngineArg = None,
    engine_opt: EngineOption = None,
    each: EachOption = None,
    bank: _Bank = 2.0,
    delay: _Delay = 0.2,
    startup: StartupOption = 10.0,
    transport: TransportOption = "pipe",
    as_json: _Json = False,
    connect_info: ConnectInfoOption = None,
    tls_cert: TlsCertOption = None,
    tls_key: TlsKeyOption = None,
    freeze_idle: FreezeIdleOption = None,
    jail: JailArgs = JAIL_DEFAULTS,  # the jail options (cli/sandbox_opts.py)
) -> None:
    """Check that ENGINE follows protocol bidref/1, item by item.

    It greets the engine, sends decision requests in every phase (forced and
    free opening, the auction as first speaker and as jockey, play, draw, the
    play after a draw, the spinner's branches), a stale-id error, a refused
    answer, and quit, and times every reply. A failed item says why and what
    to do. Exit code 0 only if every item passes, 1 if one fails, 2 for bad
    arguments.

    Examples:

        bidref check-engine sample_engines/js_random/engine.js

        bidref check-engine --engine "cmd=./my_engine option.depth=2 transport=pty"

    A remote engine (docs/network.md): bidref check-engine listen://0.0.0.0:9000
    --startup 120, then `bidref connect` on the engine's machine.
    """
    import json

    from rich.console import Console

    from ..check import CheckSettings, check_engine
    from . import options as opt
    from .remote import listen_for_remote_check

    tc = opt.clock(bank, delay)
    startup_ns = opt.startup_ns(startup)
    tr = opt.transport(transport)
    spec, remote = _engine_to_check(engine, engine_opt or [], each or [], jail)
    if spec.time_control is not None:
        tc = spec.time_control
    settings = CheckSettings(
        bank=tc.bank,
        delay=tc.delay,
        startup=startup_ns,
        transport=spec.transport or tr,
        freeze_idle=freeze_idle_of(freeze_idle, jail.sandbox),
    )
    starter = None
    if remote:
        starter = listen_for_remote_check(
            engine or "",
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
        _print_report(report, spec, tc)
    raise typer.Exit(code=ExitCode.OK if report.passed else ExitCode.FAILED)


def _engine_to_check(
    engine: str | None, engine_opts: list[str], each: list[str], jail: JailArgs
) -> tuple[EngineSpec, bool]:
    """The one engine to check, in its jail, and whether it is a remote one (a
    listen:// address: it connects, and the jail is its own machine's)."""
    from ..net import is_listen
    from ..net.match_seats import engine_spec_for
    from . import options as opt
    from .sandbox_opts import jail_engines

    if engine is not None and is_listen(engine):
        spec = engine_spec_for(engine)  # an EngineSpecError is a UsageError
        jail.config()  # (bad jail options are refused all the same)
        return spec, True
    choices = opt.engines([engine] if engine else [], engine_opts, each)
    if len(choices) != 1:
        raise opt.Refused(
            f"check-engine checks one engine, got {len(choices)}: give one, e.g. "
            "bidref check-engine ./engine"
        )
    return jail_engines([choices[0].spec], jail.config())[0], False


def _named(name: str, hello: str | None) -> str:
    """The engine as every command names it (docs/match.md, "Names"), with the name
    its hello gave when that differs: ``c_first (its hello says: First)``."""
    return name if not hello or hello == name else f"{name} (its hello says: {hello})"


def _print_report(report: CheckReport, spec: EngineSpec, tc: TimeControl) -> None:
    """The report as a table of items, then how many passed."""
    from rich.markup import escape
    from rich.table import Table

    from ..rules import SECOND
    from ..visible import visible
    from .piped import output_console

    console = output_console(tables=True)
    table = Table(
        title=f"check-engine {escape(visible(_named(spec.name, report.engine_name)))} "
        f"({tc.bank / SECOND:g} s bank + {tc.delay / SECOND:g} s delay)"
    )
    table.add_column("item")
    table.add_column("result")
    table.add_column("detail", overflow="fold")
    marks = {
        "pass": "[green]PASS[/]",
        "fail": "[bold red]FAIL[/]",
        "skipped": "[yellow]skipped[/]",
    }
    for r in report.results:
        # (a skipped item's detail, "skipped (because ...)", says skipped once)
        detail = r.detail.removeprefix("skipped ") if r.skipped else r.detail
        table.add_row(r.item, marks[r.status], escape(visible(detail, lines=True)))
    console.print(table)
    n_ok = sum(r.passed for r in report.results)
    failed, skipped = len(report.failed_items()), len(report.skipped_items())
    verdict = "[green]all passed[/]" if report.passed else "[bold red]failed[/]"
    console.print(
        f"{n_ok}/{len(report.results)} items passed, {failed} failed"
        + (f", {skipped} skipped (not run)" if skipped else "")
        + f": {verdict}"
    )
