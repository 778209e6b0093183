"""A dask cluster of real processes on 127.0.0.1, for tests, benchmarks and trying
``--cluster`` on one machine.

One ``dask scheduler`` and ``dask worker`` processes (one thread each, no nanny:
the process started is the one that plays), each worker in a temporary folder
of its own with its own engine cache (``$BIDREF_ENGINE_CACHE``). ``prefix`` runs
the workers under a wrapper (e.g. bubblewrap hiding a folder from them);
``worker_args`` adds options to some workers (e.g. ``--preload`` a plugin);
``tls`` (CA, certificate, key: PEM files) runs everything over ``tls://``, each
party with that certificate. Every process is ended by the pid it was started
with, and the folders removed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple

from ..engines.procfs import all_processes
from .shipping import CACHE_ENV

DASK = (sys.executable, "-m", "dask")


class TlsFiles(NamedTuple):
    """PEM files: the CA that signed ``cert``, and ``cert``'s private key."""

    ca: Path
    cert: Path
    key: Path

    def options(self) -> list[str]:
        return [
            "--tls-ca-file",
            str(self.ca),
            "--tls-cert",
            str(self.cert),
            "--tls-key",
            str(self.key),
        ]

    def security(self) -> Any:
        from distributed import Security

        return Security(  # type: ignore[no-untyped-call]
            tls_ca_file=str(self.ca),
            tls_client_cert=str(self.cert),
            tls_client_key=str(self.key),
            require_encryption=True,
        )


class LoopbackCluster:
    """``with LoopbackCluster(workers=2) as c: ... c.address``."""

    def __init__(
        self,
        workers: int = 0,
        *,
        prefix: Sequence[str] = (),
        start_timeout_s: float = 60.0,
        tls: TlsFiles | None = None,
        worker_args: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.prefix = list(prefix)
        self.tls = tls
        self.worker_args = {k: list(v) for k, v in (worker_args or {}).items()}
        self.timeout_s = start_timeout_s
        self.folder = Path(tempfile.mkdtemp(prefix="bidref-loopback-"))
        self.scheduler_file = self.folder / "scheduler.json"
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.folders: dict[str, Path] = {}
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.address = ""
        self._initial = workers

    def __enter__(self) -> LoopbackCluster:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def start(self) -> None:
        self.scheduler = subprocess.Popen(
            [
                *DASK,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(self.scheduler_file),
                *([] if self.tls is None else ["--protocol", "tls", *self.tls.options()]),
            ],
            cwd=self.folder,
            stdout=subprocess.DEVNULL,
            stderr=(self.folder / "scheduler.log").open("wb"),
        )
        deadline = time.monotonic() + self.timeout_s
        while not self.scheduler_file.exists():
            if time.monotonic() > deadline or self.scheduler.poll() is not None:
                raise RuntimeError(f"no dask scheduler: see {self.folder / 'scheduler.log'}")
            time.sleep(0.05)
        for i in range(self._initial):
            self.add_worker(f"w{i + 1}", wait=False)
        self.address = str(json.loads(self.scheduler_file.read_text())["address"])
        if self.workers:
            self.wait_for_workers(len(self.workers))

    def add_worker(self, name: str, *, wait: bool = True) -> None:
        folder = Path(tempfile.mkdtemp(prefix=f"bidref-{name}-"))
        self.folders[name] = folder
        self.workers[name] = subprocess.Popen(
            [
                *self.prefix,
                *DASK,
                "worker",
                "--scheduler-file",
                str(self.scheduler_file),
                "--name",
                name,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
                "--local-directory",
                str(folder / "dask"),
                *([] if self.tls is None else self.tls.options()),
                *self.worker_args.get(name, []),
            ],
            cwd=folder,
            env={**os.environ, "HOME": str(folder), CACHE_ENV: str(folder / "cache")},
            stdout=subprocess.DEVNULL,
            stderr=(folder / "worker.log").open("wb"),
        )
        if wait:
            self.wait_for_workers(len(self.workers))

    def wait_for_workers(self, n: int) -> None:
        from distributed import Client

        security = None if self.tls is None else self.tls.security()
        with Client(self.address, timeout=self.timeout_s, security=security) as client:  # type: ignore[no-untyped-call]
            client.wait_for_workers(n, timeout=self.timeout_s)

    def worker_pid(self, name: str) -> int:
        """The pid of the worker process itself (under a ``prefix``, a descendant)."""
        todo = [self.workers[name].pid]
        for _ in range(4):
            found: list[int] = []
            for pid in todo:
                try:
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if [os.fsdecode(w) for w in cmdline[:4]] == [*DASK, "worker"]:
                    return pid
                found += children(pid)
            todo = found
        raise RuntimeError(f"no worker process {name} found")

    def close(self) -> None:
        procs = [*self.workers.values(), *([self.scheduler] if self.scheduler else [])]
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=15)
        for folder in [*self.folders.values(), self.folder]:
            shutil.rmtree(folder, ignore_errors=True)


def children(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` (Linux /proc)."""
    return [child for child, st in all_processes().items() if st.ppid == pid]
