"""Running matches on an existing dask.distributed cluster, with nothing shared.

Each match is one task (:func:`play_task`). The worker needs bidref and, unless
the engines are shipped, the engines at the recorded paths; it writes nothing
the coordinator needs: it plays into a folder of its own and returns the report
with the transcript's (compressed) bytes, and the runner here writes the
transcript, then the record, as for a local match.

Before each match the worker checks the sha256 of every engine file against
the results header (:mod:`.shipping`) and refuses another build: the match is
not played, it comes back aborted with the worker and the file named, is played
again elsewhere, and that worker gets no further matches in this run.

With ``ship`` the engines' files go to the workers by digest: a task names the
files; a worker missing some says so (:class:`NeedFiles`) and the task is sent
again to it with those files, which it keeps in its cache for later runs.

Nothing a worker sends is counted unproven (:mod:`.verify`): each rated
match's transcript is replayed here, in a pool of verifier threads off the
runner's loop, and checked to be the match asked for with the result reported.
One that fails is recorded unrated (cause ``transcript rejected``, the worker
named), played again on another worker, and its worker gets no more matches.
Each counted record names the worker and the jail it gave each seat
(``played_on``); per-worker rates are kept (:mod:`.workers_stats`), and with
``exclude_bad_workers`` a flagged worker gets no more matches either.

A worker lost mid-match (killed, its machine gone) loses nothing: dask plays
its task again on another worker, and only the one report that comes back is
recorded. On Ctrl-C the tasks not yet started are cancelled; a match already
running on a worker plays to its end there and its result is discarded
(``--resume`` plays it again).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import uuid
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from bidref import __version__
from bidref.errors import BidrefError

from ..outcome import EndDetail, EndReason
from ..outcome.details import (
    EngineRefusedDetail,
    EngineRefusedFileDetail,
    TranscriptRejectedDetail,
)
from ..protocol.messages import PROTOCOL_VERSION
from ..rules import RULES_VERSION
from .live_mirror import TOPIC, CoordinatorMirror, WorkerMirror, worker_send
from .model import EngineEntry, MatchJob, MatchReport, PlayFn
from .runner import Handle, run_job
from .security import ClusterTrust, address_problem, dask_security, jail_lines
from .shipping import (
    CACHE_ENV,
    Bundle,
    EngineCache,
    EngineFilesError,
    Mismatch,
    bundle_of,
    default_cache_dir,
    interpreter_problem,
    localise,
    verify,
)
from .verify import Proof, Rejection, prove
from .workers_stats import WorkerTally

log = logging.getLogger(__name__)

MAX_SENDS = 4  # tasks per match attempt: the first, then with files (a worker may die)


class ClusterError(BidrefError, RuntimeError):
    """The cluster cannot be reached or used (the message says the fix)."""


# Address schemes of dask.distributed's communication back-ends.
_SCHEMES = ("tcp", "tls", "ucx", "ws", "wss", "inproc")


@dataclass(frozen=True)
class Shipment:
    """What a task carries besides its job: the coordinator's Python (which runs
    ``.py`` engines; a worker uses its own) and, when shipping, the engines' files."""

    python: str
    bundles: dict[str, Bundle] | None = None  # by engine name
    bidref_version: str = __version__  # the coordinator's: a worker must run the same
    rules_version: str = RULES_VERSION  # ... and the same rules and protocol
    protocol_version: str = PROTOCOL_VERSION


@dataclass(frozen=True)
class NeedFiles:
    """A worker's answer instead of a report: send the task again with these files."""

    worker: str
    shas: tuple[str, ...]


def _this_worker() -> tuple[str, str, str | None]:
    """(this worker's address, how to name it, its local folder); outside a worker
    ("here", "here", None)."""
    try:
        from distributed import get_worker

        w = get_worker()
    except (ImportError, ValueError):
        return "here", "here", None
    name = str(w.name)
    named = str(w.address) if name == str(w.address) else f"{name} ({w.address})"
    return str(w.address), named, str(w.local_directory)


def _refusal(
    worker: str, engine: str, problem: str, mismatch: Mismatch | None = None
) -> MatchReport:
    detail: EndDetail = (
        EngineRefusedDetail(worker=worker, engine=engine, problem=problem)
        if mismatch is None
        else EngineRefusedFileDetail(
            worker=worker,
            engine=engine,
            file=mismatch.path,
            expected=mismatch.expected,
            found=mismatch.found,
            problem=problem,
        )
    )
    return MatchReport(winner=None, reason=EndReason.ABORTED, rated=False, detail=detail.to_dict())


def play_task(
    play: PlayFn,
    job: MatchJob,
    shipment: Shipment,
    blobs: dict[str, bytes] | None = None,
    cache_dir: str | None = None,
) -> MatchReport | NeedFiles:
    """One match on a worker: engines checked (or laid out from the cache), played
    in a private folder, its files returned in the report's ``outputs``."""
    worker, named, local = _this_worker()
    mine = (__version__, RULES_VERSION, PROTOCOL_VERSION)
    theirs = (shipment.bidref_version, shipment.rules_version, shipment.protocol_version)
    if mine != theirs:
        return _refusal(
            worker,
            job.engine_a.name,
            f"worker {named} runs bidref {__version__} (rules {RULES_VERSION}, protocol "
            f"{PROTOCOL_VERSION}), this tournament bidref {shipment.bidref_version} "
            f"(rules {shipment.rules_version}, protocol {shipment.protocol_version}); "
            "install that version there",
        )
    engines: list[EngineEntry] = []
    cache = EngineCache(Path(cache_dir) if cache_dir else default_cache_dir())
    if shipment.bundles is not None:
        bundles = [shipment.bundles[e.name] for e in (job.engine_a, job.engine_b)]
        need = cache.missing(bundles, have=blobs or {})
        if need:
            return NeedFiles(worker, tuple(need))
        try:
            for sha, data in (blobs or {}).items():
                cache.put(sha, data)
            folders = [cache.lay_out(b) for b in bundles]
        except (OSError, EngineFilesError) as exc:
            return _refusal(
                worker,
                job.engine_a.name,
                f"worker {named}: cannot keep the engines in {cache.root}: {exc}; give "
                f"it a writable cache folder (${CACHE_ENV})",
            )
        for entry, b, folder in zip((job.engine_a, job.engine_b), bundles, folders, strict=True):
            engines.append(localise(entry, b, folder, shipment.python))
    else:
        engines = [localise(e, None, None, shipment.python) for e in (job.engine_a, job.engine_b)]
    for e in engines:
        mismatch = verify(e.name, e.files)
        if mismatch is not None:
            return _refusal(
                worker,
                e.name,
                mismatch.text(
                    f"on worker {named}",
                    None
                    if shipment.bundles is None
                    else f"its cached copy was changed: delete {cache.root} there, and "
                    "the engines are shipped again",
                ),
                mismatch,
            )
        problem = interpreter_problem(e)
        if problem is not None:
            return _refusal(
                worker, e.name, f"worker {named}: {problem}; install it there or drop the worker"
            )
    report = _play_privately(play, job, engines, local)
    played_on = {"worker": worker, "jails": jail_lines(job, engines)}
    return replace(report, extra={**report.extra, "played_on": played_on})


def _play_privately(
    play: PlayFn, job: MatchJob, engines: list[EngineEntry], local: str | None
) -> MatchReport:
    """Play with every output path in a folder of the worker's own, then bring the
    files back as ``outputs`` under the coordinator's paths."""
    tmp = Path(tempfile.mkdtemp(prefix="bidref-match-", dir=local))
    try:
        suffix = "".join(Path(job.transcript).suffixes)
        here = replace(
            job,
            engine_a=engines[0],
            engine_b=engines[1],
            transcript=str(tmp / f"transcript{suffix}"),
            stderr_dir=None if job.stderr_dir is None else str(tmp / "stderr"),
            debug_log=None if job.debug_log is None else str(tmp / "debug.log"),
        )
        send = worker_send()  # the transcript mirrored home as it grows (live_mirror.py)
        mirror = WorkerMirror(Path(here.transcript), job.transcript, send) if send else None
        with mirror if mirror is not None else contextlib.nullcontext():
            report = run_job(play, here)
        outputs: list[tuple[str, bytes]] = []
        if job.debug_log is not None and os.path.isfile(str(here.debug_log)):
            outputs.append((job.debug_log, Path(str(here.debug_log)).read_bytes()))
        if job.stderr_dir is not None and os.path.isdir(str(here.stderr_dir)):
            for f in sorted(Path(str(here.stderr_dir)).iterdir()):
                outputs.append((os.path.join(job.stderr_dir, f.name), f.read_bytes()))
        if os.path.isfile(here.transcript):
            outputs.append((job.transcript, Path(here.transcript).read_bytes()))
        return replace(report, transcript=job.transcript, outputs=tuple(outputs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class _Match:
    """One submitted match: its tasks one after another, and the future the runner holds."""

    def __init__(self, job: MatchJob) -> None:
        self.job = job
        self.done: Future[MatchReport] = Future()
        self.task: Any = None
        self.sends = 0


def _verifier_started() -> None:
    """In a verifier process: Ctrl-C is the coordinator's to handle (it ends the
    pool), not a traceback from each verifier on the operator's terminal."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Checks:
    """The coordinator's side of trust: the verifier processes, what they proved,
    and the per-worker rates (with the workers flagged so far).

    The proofs run in processes of their own (``trust.verifiers``, started at the
    first proof): a replay is pure Python, and in threads it would hold the
    runner's loop and the dask client's thread; in processes, the coordinator
    proves as many matches at once as it has cores for. ``verifiers=0``: in
    threads here (tests)."""

    def __init__(self, trust: ClusterTrust) -> None:
        self.trust = trust
        self._pool: Executor | None = None
        self.tally = WorkerTally()  # per worker, as matches come back
        self.flagged: set[str] = set()
        self.addresses: dict[str, str] = {}  # a worker's address, by its name in the tally
        self.proven = 0  # matches proven by replaying their transcripts, in this run
        self.decisions = 0  # ... and the decisions in them

    @property
    def pool(self) -> Executor:
        if self._pool is None:
            if self.trust.verifiers > 0:
                # spawned, not forked: this process runs threads (dask's, the runner's)
                context = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(
                    self.trust.verifiers, mp_context=context, initializer=_verifier_started
                )
            else:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="bidref-verify")
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


class ClusterBackend:
    """Matches as tasks on a dask.distributed scheduler (``address`` or a ``Client``).

    ``ship``: send the engines' files to the workers (see :func:`play_task`).
    ``cache_dir``: the workers' cache folder (default: each worker's own,
    :func:`bidref.tournament.shipping.default_cache_dir`).
    ``trust``: TLS, the address check, verification and worker exclusion
    (:class:`bidref.tournament.security.ClusterTrust`; default: verify, loopback tcp only).
    """

    def __init__(
        self,
        play: PlayFn,
        address: str | None = None,
        *,
        client: Any = None,
        concurrency: int | None = None,
        connect_timeout_s: float = 10.0,
        engines: list[EngineEntry] | None = None,
        ship: bool = False,
        cache_dir: str | None = None,
        trust: ClusterTrust | None = None,
    ) -> None:
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ClusterError(
                "--cluster needs dask.distributed: pip install 'bidref[cluster]'"
            ) from exc
        bundles = None
        if ship:
            try:
                bundles = {e.name: bundle_of(e) for e in engines or []}
            except EngineFilesError as exc:
                raise ClusterError(str(exc)) from None
        self._shipment = Shipment(sys.executable, bundles)
        self._cache_dir = cache_dir
        self.checks = _Checks(trust or ClusterTrust())
        self._own_client = client is None
        if client is None:
            client = _connect(Client, address, connect_timeout_s, self.checks.trust)
        self._client = client
        self._play = play
        self._lock = threading.Lock()
        self._matches: list[_Match] = []
        self._refusing: dict[str, str] = {}  # worker: why
        self._cancelled = False
        self._mirror = CoordinatorMirror(self._running)
        client.subscribe_topic(TOPIC, self._mirror.on_event)
        self.files_sent = 0  # files shipped to workers that lacked them, in this run
        threads = sum(client.nthreads().values())
        if threads < 1 and concurrency is None:
            raise ClusterError("the dask cluster has no workers: start some with `dask worker`")
        # a match being proven no longer holds its worker: one more in flight per verifier
        proving = self.checks.trust.verifiers if self.checks.trust.verify else 0
        self.slots = concurrency if concurrency is not None else threads + proving

    def _running(self, transcript: str) -> bool:
        """Whether a running match writes ``transcript`` (read without the lock: the
        client's thread asks, and a copy of a list is made at once)."""
        matches = list(self._matches)
        return any(m.job.transcript == transcript and not m.done.done() for m in matches)

    def submit(self, job: MatchJob) -> Handle:
        match = _Match(job)
        with self._lock:
            self._matches = [m for m in self._matches if not m.done.done()]
            self._matches.append(match)
        self._send(match, None, None)
        return match.done

    def _send(self, match: _Match, blobs: dict[str, bytes] | None, worker: str | None) -> None:
        job = match.job
        match.sends += 1
        # a fresh key each time: a cancelled task of an earlier run may still hold the old one
        key = f"bidref-match-{job.key.id}-{job.attempt}-{uuid.uuid4().hex[:8]}"
        where: dict[str, Any] = {}
        if worker is not None:  # the files are for it; another takes them if it is gone
            where = {"workers": [worker], "allow_other_workers": True}
        elif self._refusing:
            known = self._client.scheduler_info()["workers"]
            allowed = [w for w in known if w not in self._refusing]
            if allowed:
                where = {"workers": allowed}
        with self._lock:
            if self._cancelled:
                match.done.cancel()
                return
            match.task = self._client.submit(
                play_task,
                self._play,
                job,
                self._shipment,
                blobs,
                self._cache_dir,
                pure=False,
                key=key,
                **where,
            )
        match.task.add_done_callback(lambda task: self._step(match, task))

    def _step(self, match: _Match, task: Any) -> None:
        """A task of ``match`` ended (in the client's thread): finish, or send again."""
        try:
            answer = task.result()
        except BaseException as exc:  # cancelled, or a worker error: the runner reports it
            if not match.done.done():
                match.done.set_exception(exc if isinstance(exc, Exception) else RuntimeError(exc))
            return
        if isinstance(answer, NeedFiles):
            if match.sends >= MAX_SENDS:
                match.done.set_exception(
                    ClusterError(f"the engines did not reach a worker in {MAX_SENDS} tries")
                )
                return
            try:
                blobs = self._read_files(answer.shas)
                self._send(match, blobs, answer.worker)
            except Exception as exc:
                if not match.done.done():
                    match.done.set_exception(exc)
            return
        if not isinstance(answer, MatchReport):
            match.done.set_exception(
                ClusterError(f"a worker returned {type(answer).__name__}, not a match report")
            )
            return
        refused = answer.end
        if isinstance(refused, EngineRefusedDetail | EngineRefusedFileDetail):
            self._exclude(refused.worker, refused.problem)
            self._finish(match, answer)
            return
        address, named = self._worker_of(task, answer)
        if self.checks.trust.verify and answer.rated:
            # off the client's thread and the runner's loop: the replay takes time
            proving = self.checks.pool.submit(prove, match.job, answer)
            proving.add_done_callback(
                lambda done: self._proven(match, answer, address, named, done)
            )
        else:
            self._count(match, answer, address, named, None)

    def _worker_of(self, task: Any, answer: MatchReport) -> tuple[str, str]:
        """(address, name) of the worker that played ``task``, as the scheduler
        knows it (a worker's own word about itself is a fallback only)."""
        said = answer.extra.get("played_on")
        address = str(said.get("worker")) if isinstance(said, dict) else "unknown"
        try:
            held = self._client.who_has([task]).get(task.key) or []
            if held:
                address = str(held[0])
            info = self._client.scheduler_info()["workers"].get(address, {})
            name = str(info.get("name", address))
        except Exception:  # the scheduler went away: keep what we have
            name = address
        return address, address if name == address else f"{name} ({address})"

    def _proven(
        self,
        match: _Match,
        answer: MatchReport,
        address: str,
        named: str,
        done: Future[Proof | Rejection],
    ) -> None:
        """A proof ended (in the pool's thread): count the match, or reject it."""
        try:
            proof = done.result()
        except BaseException as exc:  # a bug of ours, or the pool ended: not counted
            if not match.done.done():
                match.done.set_exception(exc if isinstance(exc, Exception) else RuntimeError(exc))
            return
        try:
            self._judge(match, answer, address, named, proof)
        except Exception as exc:
            if not match.done.done():
                match.done.set_exception(exc)

    def _judge(
        self, match: _Match, answer: MatchReport, address: str, named: str, proof: Proof | Rejection
    ) -> None:
        """Count a proven match; reject one that is not, and exclude its worker."""
        if isinstance(proof, Proof):
            with self._lock:
                self.checks.proven += 1
                self.checks.decisions += proof.decisions
            self._count(match, answer, address, named, proof)
            return
        problem = f"worker {named}: {proof.problem}"
        self._exclude(address, problem)
        rejected = MatchReport(
            winner=None,
            reason=EndReason.ABORTED,
            rated=False,
            detail=TranscriptRejectedDetail(worker=named, problem=problem).to_dict(),
            elapsed_s=answer.elapsed_s,
            extra={"played_on": {"worker": named, "jails": _jails(answer)}},
        )
        with self._lock:
            self.checks.tally.add(named, EndReason.ABORTED, rejected=True)
        self._finish(match, rejected)

    def _count(
        self,
        match: _Match,
        answer: MatchReport,
        address: str,
        named: str,
        proof: Proof | None,
    ) -> None:
        """A match to record: its worker and jails named, the worker's rates updated."""
        job = match.job
        decision_ns = None if proof is None else [list(t) for t in proof.decision_ns]
        played_on: dict[str, object] = {
            "worker": named,
            "jails": _jails(answer),
            "decision_ns": decision_ns,
        }
        if proof is not None and proof.jails != (None, None):
            played_on["seat_jails"] = list(proof.jails)
        with self._lock:
            self.checks.addresses[named] = address
            self.checks.tally.add(
                named,
                answer.reason,
                engines=(job.engine_a.name, job.engine_b.name),
                decision_ns=decision_ns or (),
            )
            flags = [f for f in self.checks.tally.flags() if f.worker not in self.checks.flagged]
            self.checks.flagged.update(f.worker for f in flags)
        for f in flags:  # (another match's worker may be the one that now stands out)
            log.warning("worker %s stands out: %s", f.worker, f.why)
            bad = self.checks.addresses.get(f.worker)
            if self.checks.trust.exclude_bad_workers and bad is not None:
                self._exclude(bad, f"worker {f.worker} stands out: {f.why}")
        self._finish(match, replace(answer, extra={**answer.extra, "played_on": played_on}))

    def _exclude(self, address: str, why: str) -> None:
        with self._lock:
            first = address not in self._refusing
            self._refusing[address] = why
        if first:
            log.warning("%s; no further matches go to that worker", why)

    @staticmethod
    def _finish(match: _Match, report: MatchReport) -> None:
        if not match.done.done():
            match.done.set_result(report)

    def _read_files(self, shas: tuple[str, ...]) -> dict[str, bytes]:
        assert self._shipment.bundles is not None
        paths = {sha: src for b in self._shipment.bundles.values() for src, _, sha, _ in b.files}
        files = {sha: Path(paths[sha]).read_bytes() for sha in shas}
        for sha, data in files.items():
            if hashlib.sha256(data).hexdigest() != sha:
                raise ClusterError(
                    f"{paths[sha]} changed on this machine during the tournament; restore "
                    "the recorded build and --resume"
                )
        with self._lock:
            self.files_sent += len(files)
        return files

    @property
    def refusing(self) -> dict[str, str]:
        """The workers that refused a match in this run, and why."""
        with self._lock:
            return dict(self._refusing)

    def result(self, handle: Handle) -> MatchReport:
        return cast(Future[MatchReport], handle).result()

    def interrupt(self) -> None:
        with self._lock:
            self._cancelled = True
            pending = [m.task for m in self._matches if m.task is not None and not m.task.done()]
        if pending:
            log.info("cancelling %d match tasks on the cluster", len(pending))
            self._client.cancel(pending)

    def close(self) -> None:
        self.checks.close()
        if self._own_client:
            self._client.close()

    def flags(self) -> dict[str, str]:
        """The workers flagged in this run, and why."""
        with self._lock:
            return {f.worker: f.why for f in self.checks.tally.flags()}


def _jails(answer: MatchReport) -> list[str]:
    said = answer.extra.get("played_on")
    jails = said.get("jails") if isinstance(said, dict) else None
    return [str(j) for j in jails] if isinstance(jails, list) else []


def _connect(client_type: Any, address: str | None, timeout_s: float, trust: ClusterTrust) -> Any:
    if not address:
        raise ClusterError("give a scheduler address, e.g. --cluster tcp://10.0.0.5:8786")
    scheme, sep, rest = address.partition("://")
    if not sep or scheme not in _SCHEMES or not rest:
        # said before dask is asked (its own errors vary, and take time under load)
        raise ClusterError(
            f"--cluster {address!r} is not a scheduler address; give one like tcp://10.0.0.5:8786"
        )
    problem = address_problem(address, trust)
    if problem is not None:
        raise ClusterError(problem)
    security = dask_security(trust)
    try:
        if security is None:
            return client_type(address, timeout=timeout_s)
        return client_type(address, timeout=timeout_s, security=security)
    except TypeError as exc:  # dask's word for tls:// without a TLS context
        raise ClusterError(
            f"--cluster {address!r} needs TLS settings: give --tls-ca-file, --tls-cert and "
            "--tls-key (or dask's distributed.comm.tls configuration); dask says: "
            f"{exc}"
        ) from None
    except ValueError as exc:  # not an address at all
        raise ClusterError(
            f"--cluster {address!r}: {exc}; give the scheduler's address, e.g. tcp://10.0.0.5:8786"
        ) from None
    except (OSError, TimeoutError) as exc:
        raise ClusterError(
            f"cannot reach the dask scheduler at {address!r}: {exc}; check the address "
            "and that `dask scheduler` is running there"
        ) from exc
