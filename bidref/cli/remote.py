"""Network seats for `bidref match` and `bidref check-engine` (docs/network.md):
the options they share and the listening seats, apart from `bidref connect` so
that `bidref match` loads no other command."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

from rich.console import Console

from ..engines import Clock, EngineSpec, Transport
from ..match.referee import MatchSpec
from ..net import is_listen
from ..net.match_seats import MatchSeats, listening_seats, tls_context
from ..net.tokens import connect_hint
from ..players import Seat
from ..rules import SECOND
from .common import TlsKeyOption as TlsKeyOption  # for the commands that import it from here
from .common import connect_info_option, tls_cert_option
from .options import Refused

ConnectInfoOption = Annotated[
    Path | None,
    connect_info_option(
        "With a listen:// engine",
        "the seats' URLs and tokens",
        "the referee",
        '{"seats": [{"seat": 0, "url": ..., "token": ...}]}',
    ),
]
TlsCertOption = Annotated[Path | None, tls_cert_option("With a listen:// engine")]


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

    bad = Refused  # printed, with exit status 2, by the CLI's one handler

    if not any(is_listen(a) for a in args):
        if connect_info or tls_cert or tls_key:
            raise bad(
                "--connect-info, --tls-cert and --tls-key are for network seats: give an "
                "engine as listen://HOST:PORT (e.g. listen://127.0.0.1:0)"
            )
        return None
    # A NetSpecError is a UsageError: the CLI's one handler prints it (exit 2).
    seats = listening_seats(spec, args, tls=tls_context(tls_cert, tls_key))
    assert seats is not None
    for s in seats.network:
        err.print(
            connect_hint(f"seat {'AB'[s.seat]}", s.url, s.token),
            highlight=False,
            soft_wrap=True,
            markup=False,
        )
    _write_connect_info(seats, connect_info)
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

    # A NetSpecError is a UsageError: the CLI's one handler prints it (exit 2).
    seat = NetworkSeat(
        ListenAddress.parse(arg),
        seat=0,
        startup_timeout_ns=round(startup * SECOND),
        tls=tls_context(tls_cert, tls_key),
    )
    seat.listen()
    seats = MatchSeats([seat], [seat])
    err.print(
        connect_hint("check-engine", seat.url, seat.token),
        highlight=False,
        soft_wrap=True,
        markup=False,
    )
    _write_connect_info(seats, connect_info)
    return remote_starter(seat)


def _write_connect_info(seats: MatchSeats, path: Path | None) -> None:
    """``--connect-info``: the seats' URLs and tokens as JSON, once they listen."""
    if path is None:
        return
    try:
        seats.write_connect_info(path)
    except OSError as e:
        seats.close()
        raise Refused(
            f"--connect-info {str(path)!r}: cannot write it ({e.strerror or e}); "
            "give a file in a folder you can write"
        ) from None
