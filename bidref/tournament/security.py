"""What a tournament trusts, and how it checks it: the cluster's address and TLS,
the jail each seat got on a worker, and the engine builds before each local match.

A cluster's scheduler and workers speak dask's protocol, which carries the jobs,
the engines (``--ship-engines``) and the transcripts. Over ``tcp://`` that is in
the clear and unauthenticated: anybody on the path reads the deals and can pose
as a worker. So a ``tcp://`` (or ``ws://``, ``ucx://``) address is accepted only
on this machine's loopback, unless the operator says ``--insecure``; elsewhere
``tls://`` with dask's security settings (a CA, and this client's certificate
and key: ``--tls-ca-file``, ``--tls-cert``, ``--tls-key``, or dask's own
configuration, ``distributed.comm.tls.*``).
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..outcome import AbortCause, EndReason
from ..outcome.details import EngineChangedDetail
from .model import EngineEntry, MatchJob, MatchReport, PlayFn
from .shipping import verify

# causes of an aborted match that playing again cannot fix
NOT_RETRIED = frozenset({AbortCause.ENGINE_CHANGED})
_CLEAR = ("tcp", "ws", "ucx")  # dask back-ends that neither encrypt nor authenticate


def default_verifiers(cores: int | None = None) -> int:
    """How many processes prove transcripts: the coordinator's cores but one (the
    runner's), at least 2, at most 8. One proved the C vs C matches of 2.5 to 7
    worker threads (benchmarks/cluster_throughput.py, docs/perf.md); 8 worker
    threads need 2 to 4."""
    cores = cores if cores is not None else (os.cpu_count() or 2)
    return max(2, min(8, cores - 1))


@dataclass(frozen=True)
class ClusterTrust:
    """How the coordinator talks to a cluster and what it accepts from it."""

    tls_ca_file: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    insecure: bool = False  # a tcp:// scheduler that is not on loopback is allowed
    verify: bool = True  # replay each transcript before counting it (verify.py)
    exclude_bad_workers: bool = False  # a flagged worker gets no more matches
    # processes replaying transcripts on the coordinator (0: one thread); see
    # default_verifiers
    verifiers: int = field(default_factory=default_verifiers)


def _host(rest: str) -> str:
    if rest.startswith("["):
        return rest[1:].partition("]")[0]
    host, sep, _port = rest.rpartition(":")
    return host if sep else rest


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name: not known to be this machine without asking DNS
        return False


def address_problem(address: str, trust: ClusterTrust) -> str | None:
    """Why ``address`` may not be used as given, if it may not."""
    scheme, _, rest = address.partition("://")
    has_files = trust.tls_ca_file or trust.tls_cert or trust.tls_key
    if has_files and scheme not in ("tls", "wss"):
        return (
            f"--tls-ca-file, --tls-cert and --tls-key are for a tls:// scheduler, "
            f"not {address!r}; give its tls:// address"
        )
    if has_files and not (trust.tls_ca_file and trust.tls_cert and trust.tls_key):
        return (
            "--cluster tls:// needs all three of --tls-ca-file (the CA that signed the "
            "scheduler's and workers' certificates), --tls-cert and --tls-key (this "
            "coordinator's), or none (dask's configuration, distributed.comm.tls.*)"
        )
    if scheme in _CLEAR and not trust.insecure and not is_loopback(_host(rest)):
        return (
            f"--cluster {address!r} is not on this machine, and {scheme}:// is neither "
            "encrypted nor authenticated: anybody on the way could read the deals and "
            "pose as a worker. Use tls:// with --tls-ca-file/--tls-cert/--tls-key "
            "(docs/tournament.md, 'Trust model'), or --insecure on a network you trust"
        )
    return None


def dask_security(trust: ClusterTrust) -> Any:
    """dask's ``Security`` for the coordinator's client (None: dask's configuration)."""
    if not (trust.tls_ca_file and trust.tls_cert and trust.tls_key):
        return None
    from distributed import Security

    return Security(  # type: ignore[no-untyped-call]
        tls_ca_file=str(trust.tls_ca_file),
        tls_client_cert=str(trust.tls_cert),
        tls_client_key=str(trust.tls_key),
        require_encryption=True,
    )


def jail_lines(job: MatchJob, engines: list[EngineEntry]) -> list[str]:
    """The jail each seat gets here, as its start line says it (``sandbox: ...``)."""
    from ..sandbox.policy import SandboxError, plan
    from .play import _engine_spec, _jailed

    lines = []
    for e in engines:
        if job.sandbox is None and e.sandbox_level in (None, "off"):
            lines.append("sandbox: off")
            continue
        try:
            config = _jailed(_engine_spec(e), job).jail_config()
            lines.append("sandbox: off" if config is None else plan(config).describe(config))
        except SandboxError as exc:  # strict, and this machine lacks a part: said
            lines.append(f"sandbox: refused here: {exc}")
        except ValueError as exc:  # not an engine this machine can describe
            lines.append(f"sandbox: unknown ({exc})")
    return lines


def checked_play(play: PlayFn, job: MatchJob) -> MatchReport:
    """Play ``job`` only if both engines are still the recorded builds.

    An engine whose files changed since the tournament recorded them (rebuilt,
    or rewritten by the engine itself) is not played: the match comes back
    aborted, with the file named, and is not played again in this run."""
    for e in (job.engine_a, job.engine_b):
        mismatch = verify(e.name, e.files)
        if mismatch is not None:
            return MatchReport(
                winner=None,
                reason=EndReason.ABORTED,
                rated=False,
                detail=EngineChangedDetail(
                    engine=e.name,
                    file=mismatch.path,
                    expected=mismatch.expected,
                    found=mismatch.found,
                    problem=mismatch.text(
                        "here",
                        "its matches are not played; restore the recorded build and "
                        "--resume, or start a new tournament for the new build",
                    ),
                ).to_dict(),
            )
    return play(job)
