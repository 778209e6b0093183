"""Seats for ``bidref match`` when an engine argument is ``listen://HOST:PORT``.

The CLI calls :func:`engine_spec_for` for each engine argument (a listen
address becomes a stand-in :class:`EngineSpec`: no process is started for it),
then :func:`listening_seats`, which starts every network seat's server at once —
before the match, so that the addresses and tokens can be shown and written to
``--connect-info`` while the referee waits — and returns the seats to pass to
``run_match(spec, seats=...)``. The referee's start-up timeout then covers the
first connection: a remote engine that has not said hello by then loses the
match at start-up, like a local one.
"""

from __future__ import annotations

import re
import ssl
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engines import Clock, EngineSpec, resolve_engine
from ..match.referee import MatchSpec
from ..players import EngineSeat, Seat
from .framing import ListenAddress, NetSpecError, is_listen
from .seat import NetworkSeat
from .tokens import write_connect_info


def engine_spec_for(arg: str) -> EngineSpec:
    """``resolve_engine(arg)``, or a stand-in spec for ``listen://HOST:PORT``."""
    if is_listen(arg):
        ListenAddress.parse(arg)  # a bad address is an error now, not at the match
        return EngineSpec("remote", (arg,))
    return resolve_engine(arg)


def tls_context(cert: Path | None, key: Path | None) -> ssl.SSLContext | None:
    """A server TLS context for wss://, or None without a certificate."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise NetSpecError("give both --tls-cert and --tls-key (PEM files) for wss://")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(str(cert), str(key))
    except (OSError, ssl.SSLError) as e:
        raise NetSpecError(
            f"cannot load the TLS certificate {str(cert)!r} and key {str(key)!r}: {e}; "
            "give PEM files (see docs/network.md)"
        ) from None
    return ctx


def _file_name(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name)  # as the referee names them


@dataclass
class MatchSeats:
    """The two seats of a match, some of them listening for remote engines."""

    seats: list[Seat]
    network: list[NetworkSeat]

    def connect_info(self) -> dict[str, Any]:
        return {"seats": [{"seat": s.seat, "url": s.url, "token": s.token} for s in self.network]}

    def write_connect_info(self, path: Path) -> None:
        """:meth:`connect_info` as JSON, for its owner only (see
        :func:`bidref.net.tokens.write_connect_info`)."""
        write_connect_info(path, self.connect_info())

    def close(self) -> None:
        """Stop listening (for a match that will not run)."""
        for s in self.network:
            s.close(None, 0)


def listening_seats(
    spec: MatchSpec,
    args: Sequence[str],
    *,
    tls: ssl.SSLContext | None = None,
    clock: Clock = time.monotonic_ns,
) -> MatchSeats | None:
    """The seats for ``args`` (the engine arguments), with every network seat
    listening; None when no argument is a listen address (the referee makes its
    own engine seats)."""
    if not any(is_listen(a) for a in args):
        return None
    stderr_dir = Path(spec.stderr_dir) if spec.stderr_dir else None
    seats: list[Seat] = []
    network: list[NetworkSeat] = []
    try:
        for i, (arg, engine) in enumerate(zip(args, spec.engines, strict=True)):
            if is_listen(arg):
                ns = NetworkSeat(
                    ListenAddress.parse(arg),
                    seat=i,
                    clock=clock,
                    startup_timeout_ns=spec.startup_timeout_ns,
                    max_line=spec.max_line,
                    tls=tls,
                )
                ns.listen()
                network.append(ns)
                seats.append(ns)
            else:
                seats.append(
                    EngineSeat(
                        engine.at_seat(i),
                        transport=spec.transport,
                        clock=clock,
                        max_line=spec.max_line,
                        stderr_log=None
                        if stderr_dir is None
                        else stderr_dir / f"{'AB'[i]}-{_file_name(engine.name)}.stderr.log",
                    )
                )
    except BaseException:
        for s in network:
            s.close(None, 0)
        raise
    return MatchSeats(seats, network)
