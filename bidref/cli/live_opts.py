"""``bidref tournament --live [--port N]``: the options, and the server a run holds.

The server (:mod:`bidref.live.server`) runs in a thread of the tournament's
process, reads the output folder as the runner and the referees write it, and
is closed with the run's other resources. Light to import: the options are read
by ``--help``; the server is imported only when asked for.
"""

from __future__ import annotations

import threading
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console

LiveOption = Annotated[
    bool,
    typer.Option(
        "--live",
        help="Serve a page on 127.0.0.1 that shows the tournament as it runs: standings, "
        "SPRT, cross-table, the boards and clocks of the matches being played, the "
        "last results and every crash or time loss (nothing loaded from the network).",
    ),
]
PortOption = Annotated[
    int,
    typer.Option("--port", help="With --live: the port (0: any free one).", min=0, max=65535),
]


def check_live(live: bool, port: int) -> None:
    """Refuse --port without --live (raising ``options.Refused``)."""
    if port and not live:
        from .options import Refused

        raise Refused(f"--port {port} is the port of the --live page: add --live")


def start_live(out: Path, port: int, resources: ExitStack, err: Console) -> str:
    """Bind the live page's server for the tournament in ``out`` and serve it in a
    thread until ``resources`` close; its address. Raises ``options.Refused`` when
    the port cannot be bound (before any match is played)."""
    from bidref.live.server import LiveServer

    from .options import Refused

    try:
        server = LiveServer(out, port)
    except OSError as exc:
        raise Refused(
            f"--port {port}: cannot listen on 127.0.0.1 ({exc.strerror or exc}); choose "
            "another port, or 0 for any free one"
        ) from None
    thread = threading.Thread(target=server.serve_forever, name="bidref-live", daemon=True)
    thread.start()

    def stop() -> None:
        server.finish()  # (open pages get the last results before the server goes)
        server.shutdown()
        server.server_close()

    resources.callback(stop)
    url = server.url + "live"
    err.print(f"Watch it live at {url}", highlight=False, soft_wrap=True)
    return url
