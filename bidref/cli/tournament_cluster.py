"""`bidref tournament --cluster`: the options that say how far the cluster is
trusted (TLS, --insecure, --exclude-bad-workers), apart from the command itself.
Light to import: `bidref tournament --help` reads these."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from .grouped_options import grouped

if TYPE_CHECKING:
    from bidref.tournament.security import ClusterTrust

    from .tournament_options import Running

TlsCaFileOption = Annotated[
    Path | None,
    typer.Option(
        "--tls-ca-file",
        metavar="FILE",
        help="With --cluster tls://...: the CA (PEM) that signed the scheduler's and "
        "workers' certificates; with --tls-cert and --tls-key (this coordinator's). "
        "See docs/tournament.md, 'Trust model'.",
    ),
]
InsecureOption = Annotated[
    bool,
    typer.Option(
        "--insecure",
        help="With --cluster tcp://...: allow a scheduler that is not on this machine. "
        "tcp:// is neither encrypted nor authenticated; use tls:// on any network you "
        "do not fully trust.",
    ),
]
ExcludeBadWorkersOption = Annotated[
    bool,
    typer.Option(
        "--exclude-bad-workers",
        help="With --cluster: a worker whose crash, time-loss, protocol-loss or abort "
        "rate stands out from the other workers' gets no more matches (it is flagged "
        "either way).",
    ),
]


@dataclass(frozen=True)
class ClusterArgs:
    """The options above, as the command receives them (``cluster_args``)."""

    tls_ca_file: TlsCaFileOption = None
    insecure: InsecureOption = False
    exclude_bad_workers: ExcludeBadWorkersOption = False


CLUSTER_DEFAULTS = ClusterArgs()
F = TypeVar("F", bound="Any")


def cluster_options(fn: F) -> F:
    """Give the command ``fn`` the options of :class:`ClusterArgs`, reaching it as
    ``cluster_args`` (as :func:`.sandbox_opts.sandbox_options` does the jail's)."""
    decorated: F = grouped(ClusterArgs, "cluster_args")(fn)
    return decorated


def cluster_trust(running: Running, args: ClusterArgs) -> ClusterTrust | None:
    """The trust settings of a --cluster run (None: no cluster; then these options
    are refused, except --tls-cert/--tls-key, which serve network engines too)."""
    from bidref.tournament.security import ClusterTrust, address_problem

    from .options import Refused

    cluster, tls_cert, tls_key = running.cluster, running.tls_cert, running.tls_key
    tls_ca_file, insecure, exclude_bad_workers = (
        args.tls_ca_file,
        args.insecure,
        args.exclude_bad_workers,
    )
    if cluster is None:
        if tls_ca_file or insecure or exclude_bad_workers:
            raise Refused(
                "--tls-ca-file, --insecure and --exclude-bad-workers are for --cluster: "
                "add --cluster ADDRESS"
            )
        return None
    for flag, path in (
        ("--tls-ca-file", tls_ca_file),
        ("--tls-cert", tls_cert),
        ("--tls-key", tls_key),
    ):
        if path is not None and not path.is_file():
            raise Refused(f"{flag} {str(path)!r}: no such file; give a PEM file")
    trust = ClusterTrust(
        tls_ca_file=tls_ca_file,
        tls_cert=tls_cert,
        tls_key=tls_key,
        insecure=insecure,
        exclude_bad_workers=exclude_bad_workers,
        verify=running.real_engines,  # (another --play-function writes no real transcripts)
    )
    problem = address_problem(cluster, trust)
    if problem is not None:
        raise Refused(problem)
    return trust
