"""A tournament keeps each engine's own jail settings (``--engine "... sandbox=
dir_writable="``): recorded in the results file, given to every match of the
engine (also after --resume), whatever the run's --sandbox. Real engines (the
spy, jail_spy.py, tells from inside what it sees), real bubblewrap."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bidref.cli import app
from bidref.sandbox.policy import SandboxConfig, machine
from bidref.tournament import ResultsStore
from bidref.tournament.engines import resolve_entries
from bidref.tournament.loopback import LoopbackCluster
from bidref.tournament.model import EngineEntry, EngineModel, Header, MatchJob, MatchSettings
from bidref.tournament.plans import Wanted
from bidref.tournament.play import _engine_spec
from bidref.tournament.resume import header_conflicts, reopen
from bidref.tournament.runner import RESULTS_FILE, new_header
from bidref.tournament.schedule import MatchKey, Pairing, seeds_from_master
from bidref.tournament.shipping import localise
from tests.sandbox.conftest import root_with_jail, unprivileged

HERE = Path(__file__).parent
REPO = HERE.parent.parent
SPY = HERE / "jail_spy.py"
BIDREF = [sys.executable, "-c", "from bidref.cli import main; main()"]
FAKE = ["--play-function", "tests.tournament.tournament_fakes:fake_play"]

needs_bwrap = pytest.mark.skipif(
    machine().bwrap is None,
    reason="needs bubblewrap that runs here (`make sandbox-tools`; user namespaces, or root)",
)
needs_root = pytest.mark.skipif(root_with_jail() is not None, reason=str(root_with_jail()))


@dataclass
class Ring:
    """Two spy engines in folders of their own, and where the tournament writes."""

    root: Path

    def engine(self, name: str) -> Path:
        return self.root / name / "engine.py"

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def tournament(
        self, *args: str, user: Sequence[str] = (), python: Sequence[str] = BIDREF[:1]
    ) -> subprocess.CompletedProcess[str]:
        return self.python([*BIDREF[1:], "tournament", *args], user=user, python=python)

    def python(
        self, args: Sequence[str], *, user: Sequence[str] = (), python: Sequence[str]
    ) -> subprocess.CompletedProcess[str]:
        """``python args`` here (another interpreter, e.g. an unprivileged user's:
        with this one's packages)."""
        env = {**os.environ, "PYTHONPATH": f"{REPO}:{sysconfig.get_paths()['purelib']}"}
        return subprocess.run(
            [*user, *python, *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=self.root,
            env=env,
            check=False,
        )

    def spied(self, logs: Path | None = None) -> dict[str, list[dict[str, Any]]]:
        """What each engine told from inside, by name (one probe per match it played)."""
        found: dict[str, list[dict[str, Any]]] = {}
        for log in sorted((logs or self.logs).rglob("*.stderr.log")):
            name = log.name.removesuffix(".stderr.log").rsplit("-", 1)[1]
            for line in log.read_text(errors="replace").splitlines():
                if line.startswith("SPY "):
                    found.setdefault(name, []).append(json.loads(line[4:]))
        return found


@pytest.fixture
def ring() -> Iterator[Ring]:
    # not under pytest's tmp_path: its folders are closed to the seats' own accounts
    top = Path(tempfile.mkdtemp(prefix="bidref-tourjail-"))
    top.chmod(0o755)
    for name in ("spy", "other"):
        (top / name).mkdir(mode=0o777)
        (top / name).chmod(0o777)  # (the umask): the seats' own accounts may write here
        shutil.copy(SPY, top / name / "engine.py")
        (top / name / "engine.py").chmod(0o755)
    try:
        yield Ring(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _short(ring: Ring, *extra: str) -> list[str]:
    """One deal (two matches) of one round: a tournament of about a second."""
    return [
        *("--deals", "1", "--seed", "1", "--max-rounds", "1", "--bank", "20", "--delay", "1"),
        *("-j", "1", "--out", str(ring.out), "--json", *extra),
    ]


def _spy_and_other(ring: Ring, own: str) -> list[str]:
    """The spy with its own settings ``own``, peeking at the other engine and the
    tournament's outputs; the other, plain, peeking at the spy."""
    spy_peeks = f"{ring.engine('other').parent},{ring.out},{ring.logs}"
    return [
        *("--engine", f"cmd={ring.engine('spy')} name=spy {own} option.peek={spy_peeks}"),
        *("--engine", f"cmd={ring.engine('other')} name=other option.peek={ring.root / 'spy'}"),
    ]


def _jailed(probe: dict[str, Any]) -> bool:
    # bubblewrap's own init is pid 1 in the engine's PID namespace
    return bool(probe["pid"] < 10 and not any(probe["sees"].values()))


def _without_root() -> dict[str, list[str]]:
    """How to run a referee that cannot give ``strict`` (no own accounts, no
    cgroups): as root, as a uid with no privileges (the system's Python, with
    this one's packages); else as we are."""
    if os.geteuid() != 0:
        return {"user": [], "python": [sys.executable]}
    return {"user": unprivileged(), "python": ["/usr/bin/python3"]}


@needs_bwrap
@pytest.mark.parametrize(
    "level",
    ["auto", pytest.param("strict", marks=needs_root)],
)
def test_an_engines_own_sandbox_jails_it_in_a_tournament_run_unjailed(
    ring: Ring, level: str
) -> None:
    run = ring.tournament(
        *_spy_and_other(ring, f"sandbox={level}"),
        *_short(ring, "--sandbox", "off", "--stderr-dir", str(ring.logs)),
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["done"] == 2
    assert "sandbox: off (engines run as this account" in run.stderr
    assert f"sandbox of engine 'spy' (its own sandbox={level}): namespaces" in run.stderr
    seen = ring.spied()
    assert len(seen["spy"]) == len(seen["other"]) == 2, seen  # one per match, both seats
    # the spy cannot see the other engine, the results nor the logs ...
    assert all(_jailed(p) for p in seen["spy"]), seen["spy"]
    # ... while the other, unjailed as the run says, sees the spy's folder
    assert all(p["pid"] >= 10 and all(p["sees"].values()) for p in seen["other"]), seen
    if level == "strict":  # a jail's own account (a leased uid), never the referee's
        assert all(61400 <= p["uid"] <= 61499 for p in seen["spy"]), seen["spy"]
        assert "(cpuset" in run.stderr
    header = ResultsStore.open(ring.out / RESULTS_FILE).header
    assert [(e.name, e.sandbox_level) for e in header.engines] == [
        ("spy", level),
        ("other", None),
    ]


@needs_bwrap
def test_a_resumed_tournament_keeps_the_recorded_jail_of_an_engine(ring: Ring) -> None:
    run = ring.tournament(
        *_spy_and_other(ring, "sandbox=auto"),
        *_short(ring, "--sandbox", "off", "--stderr-dir", str(ring.logs)),
    )
    assert run.returncode == 0, run.stderr
    # the last match unplayed, as after a crash; resumed without any engine argument
    results = ring.out / RESULTS_FILE
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:-1]))
    again = ring.out.parent / "logs-again"
    resumed = ring.tournament(
        "--resume", "--out", str(ring.out), "--sandbox", "off", "--stderr-dir", str(again), "--json"
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["played"] == 1
    assert "sandbox of engine 'spy' (its own sandbox=auto)" in resumed.stderr
    seen = ring.spied(again)
    assert len(seen["spy"]) == 1 and _jailed(seen["spy"][0]), seen
    assert not _jailed(seen["other"][0]), seen


@needs_bwrap
@pytest.mark.e2e
def test_a_cluster_worker_jails_the_engine_by_its_own_sandbox(ring: Ring) -> None:
    # a dask worker process: the engine travels pickled in the job, shipped to the
    # worker's own engine cache; its logs come home with the report
    with LoopbackCluster(1, start_timeout_s=60) as cluster:
        run = ring.tournament(
            *_spy_and_other(ring, "sandbox=auto"),
            *_short(ring, "--sandbox", "off", "--stderr-dir", str(ring.logs)),
            *("--cluster", cluster.address, "--ship-engines"),
        )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["done"] == 2
    seen = ring.spied()
    assert len(seen["spy"]) == 2 and all(_jailed(p) for p in seen["spy"]), seen
    assert all(p["pid"] >= 10 and all(p["sees"].values()) for p in seen["other"]), seen


@needs_bwrap
def test_dir_writable_lets_an_engine_write_in_its_own_folder_inside_its_jail(ring: Ring) -> None:
    run = ring.tournament(
        *("--engine", f"cmd={ring.engine('spy')} name=spy dir_writable=yes option.write=w.txt"),
        *("--engine", f"cmd={ring.engine('other')} name=other option.write=w.txt"),
        *_short(ring, "--sandbox", "auto", "--stderr-dir", str(ring.logs)),
    )
    assert run.returncode == 0, run.stderr
    seen = ring.spied()
    assert [p["wrote"] for p in seen["spy"]] == ["ok", "ok"], seen
    assert all(p["pid"] < 10 for p in [*seen["spy"], *seen["other"]]), seen  # both jailed
    # read-only by default: the other's write is refused by its jail, not by modes (0777)
    assert all(str(p["wrote"]).startswith("OSError: Read-only") for p in seen["other"]), seen
    written = sorted((ring.root / "spy").glob("w.txt.*"))
    assert written and {p.read_text() for p in written} == {"written from inside\n"}
    assert sorted((ring.root / "other").glob("w.txt*")) == []
    header = ResultsStore.open(ring.out / RESULTS_FILE).header
    assert [e.dir_writable for e in header.engines] == [True, None]


def test_strict_that_this_machine_cannot_give_is_refused_before_anything_is_played(
    ring: Ring,
) -> None:
    # an unprivileged referee cannot give own accounts nor cgroups: as `match`, exit 2
    ring.root.chmod(0o777)  # it writes its results here
    run = ring.tournament(
        *_spy_and_other(ring, "sandbox=strict"),
        *_short(ring, "--sandbox", "off"),
        **_without_root(),
    )
    assert run.returncode == 2, run.stderr
    # (the engine's own level: the engine named)
    assert (
        "error: engine 'spy' asks for sandbox=strict: --sandbox strict: this machine cannot give "
        in (run.stderr)
    )
    assert "account (needs" in run.stderr
    assert not ring.out.exists()


_UNJAILABLE_RUN = """
import json, sys
from pathlib import Path
from bidref.sandbox.policy import SandboxConfig
from bidref.tournament import ResultsStore, run
from bidref.tournament.engines import resolve_entries
from bidref.tournament.local import LocalBackend
from bidref.tournament.model import MatchSettings
from bidref.tournament.play import play_match
from bidref.tournament.runner import RESULTS_FILE, Plan, new_header
from bidref.tournament.schedule import seeds_from_master

out, texts = Path(sys.argv[1]), sys.argv[2:]
entries = resolve_entries([], engine_texts=texts, check=True)
header = new_header("round-robin", entries, seeds_from_master(1, 1),
    MatchSettings(bank_ms=20_000, delay_ms=1_000, max_rounds=1), master_seed=1, deal_book=None)
plan = Plan(header, out, sandbox=SandboxConfig(level="off", hide=(str(out),)))
store = ResultsStore.create(out / RESULTS_FILE, header)
with LocalBackend(play_match, 1) as backend:
    summary = run(plan, store, backend)
print(json.dumps({"stopped": summary.stopped, "records": [r.model_dump() for r in store.records]}))
"""


def test_on_a_worker_that_cannot_jail_the_engine_its_matches_fail_to_start(ring: Ring) -> None:
    # the runner without the command's check (a cluster worker on another machine):
    # the strict engine's matches end at start with the jail's reason, unrated; the
    # matches played before it are kept, and the run stops instead of hanging
    ring.root.chmod(0o777)
    (ring.root / "third").mkdir(mode=0o755)
    shutil.copy(SPY, ring.root / "third" / "engine.py")
    done = ring.python(
        [
            "-c",
            _UNJAILABLE_RUN,
            str(ring.out),
            f"cmd={ring.engine('other')} name=a",
            f"cmd={ring.root / 'third' / 'engine.py'} name=b",
            f"cmd={ring.engine('spy')} name=spy sandbox=strict",
        ],
        **_without_root(),
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    records = result["records"]
    assert [(r["first"], r["second"], r["rated"]) for r in records] == [
        ("a", "b", True),
        ("a", "b", True),
        ("a", "spy", False),
    ]
    failed = records[-1]
    assert failed["reason"] == "startup" and failed["at_fault"] == "spy"
    assert "cannot jail engine 'spy': --sandbox strict: this machine cannot give" in str(
        failed["detail"]
    )
    assert "engine 'spy' failed (startup)" in result["stopped"]


def _entry(**own: Any) -> EngineEntry:
    return EngineEntry("e", "cmd=./e", (sys.executable, "e.py"), "/x", **own)


@pytest.mark.parametrize(
    "own",
    [
        {},
        {"sandbox_level": "strict", "dir_writable": True},
        {"sandbox_level": "off", "dir_writable": False},
        {"sandbox_level": "auto"},
    ],
)
def test_an_engines_own_jail_settings_round_trip_through_the_results_file(
    own: dict[str, Any],
) -> None:
    entry = _entry(**own)
    header = new_header(
        "round-robin",
        [entry, EngineEntry("f", "f")],
        [1],
        MatchSettings(),
        master_seed=1,
        deal_book=None,
    )
    again = Header.model_validate_json(header.model_dump_json())
    assert again == header and again.engines[0].entry() == entry
    assert (again.engines[0].sandbox_level, again.engines[0].dir_writable) == (
        own.get("sandbox_level"),
        own.get("dir_writable"),
    )
    # a cluster worker gets them with the job (pickled) and keeps them when it
    # places the engine's files (shipping.localise)
    job = MatchJob(MatchKey(Pairing("e", "f"), 1, 0), entry, entry, MatchSettings(), "/t")
    travelled = pickle.loads(pickle.dumps(job)).engine_a
    assert localise(travelled, None, None, sys.executable) == entry


def test_a_results_file_from_before_keeps_loading_without_them() -> None:
    old = {"name": "e", "spec": "./e", "command": ["./e"], "files": {}}  # no such keys
    model = EngineModel.model_validate(old)
    assert (model.sandbox_level, model.dir_writable) == (None, None)
    with pytest.raises(ValueError, match="sandbox_level"):
        EngineModel.model_validate({**old, "sandbox_level": "tight"})


def test_the_resolved_engine_keeps_them_and_every_match_gets_them(tmp_path: Path) -> None:
    engine_file = tmp_path / "bot" / "engine.toml"
    engine_file.parent.mkdir()
    (engine_file.parent / "bot.py").write_text("print()\n")
    engine_file.write_text(
        'name = "bot"\ncommand = "bot.py"\nsandbox = "strict"\ndir_writable = false\n'
    )
    entries = resolve_entries(
        [str(engine_file), "plain=python3 x.py"],
        engine_texts=["cmd=python3 name=own sandbox=auto dir_writable=no"],
        each_texts=["dir_writable=yes"],
    )
    own = {e.name: (e.sandbox_level, e.dir_writable) for e in entries}
    # (from the engine file, from --each, and the engine's own --engine text over --each)
    assert own == {"bot": ("strict", True), "plain": (None, True), "own": ("auto", False)}
    spec = _engine_spec(entries[0])
    assert (spec.sandbox_level, spec.dir_writable) == ("strict", True)
    # the run's --sandbox off still gives it the strict jail, with the run's hidden folders
    run_config = SandboxConfig(level="off", hide=("/results",))
    config = replace(spec, sandbox=run_config).jail_config()
    assert config is not None and (config.level, config.dir_writable) == ("strict", True)
    assert config.hide == ("/results",)


def _recorded(out: Path, engine_texts: list[str]) -> Path:
    entries = resolve_entries([], engine_texts=engine_texts)
    header = new_header(
        "round-robin",
        entries,
        seeds_from_master(3, 2),
        MatchSettings(),
        master_seed=3,
        deal_book=None,
    )
    ResultsStore.create(out / RESULTS_FILE, header).close()
    return out


def test_resume_refuses_an_each_that_would_change_an_engines_jail(tmp_path: Path) -> None:
    out = _recorded(tmp_path, ["cmd=fake name=a sandbox=strict", "cmd=fake name=b"])
    with ExitStack() as resources:
        plan, _ = reopen(out, Wanted(), resources)
    same = Wanted(each_texts=["option.x=1"])
    assert header_conflicts(plan, same) == []
    # a's own sandbox=strict wins over --each: only b's level would change
    assert header_conflicts(plan, Wanted(each_texts=["sandbox=auto dir_writable=yes"])) == [
        "--each dir_writable=yes would change engine 'a', recorded with no dir_writable= of "
        "its own",
        "--each sandbox=auto would change engine 'b', recorded with no sandbox= of its own",
        "--each dir_writable=yes would change engine 'b', recorded with no dir_writable= of "
        "its own",
    ]
    assert header_conflicts(plan, Wanted(each_texts=["sandbox=off"])) == [
        "--each sandbox=off would change engine 'b', recorded with no sandbox= of its own"
    ]
    # --engine texts that differ are refused as before (their text is recorded)
    changed = Wanted(engine_texts=["cmd=fake name=a", "cmd=fake name=b"])
    assert header_conflicts(plan, changed)[0].startswith("engines ['cmd=fake name=a'")


def test_a_results_file_without_them_is_written_as_before_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "t"
    made = ["tournament", "a=fake", "b=fake", "--deals", "2", "--seed", "3", "--out", str(out)]
    result = CliRunner().invoke(app, [*made, "--json", *FAKE])
    assert result.exit_code == 0, result.output
    results = out / RESULTS_FILE
    lines = results.read_text().splitlines(keepends=True)
    # no per-engine jail settings: the engines' lines as an older bidref wrote (and reads) them
    engines = json.loads(lines[0])["engines"]
    before = {"name", "spec", "command", "cwd", "env", "options", "time_control_ms", "transport"}
    assert [set(e) for e in engines] == [{*before, "files"}] * 2
    results.write_text("".join(lines[:3]))  # two matches of four played, as after a crash
    result = CliRunner().invoke(app, ["tournament", "--resume", "--out", str(out), "--json", *FAKE])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["played"], summary["done"]) == (2, 4)
    store = ResultsStore.open(results)
    assert [e.sandbox_level for e in store.header.engines] == [None, None]


@needs_bwrap
def test_the_deal_book_is_hidden_from_the_engines_like_the_outputs(ring: Ring) -> None:
    """A deal book where the jail binds a system folder (here /opt, bound read-only
    for the engines' libraries) is covered: an engine that read it would know the
    deals to come (issue 40, item 6)."""
    if not os.access("/opt", os.W_OK):
        pytest.skip("needs a writable /opt (root) to place the deal book in a bound folder")
    books = Path(tempfile.mkdtemp(prefix="bidref-book-", dir="/opt"))
    try:
        books.chmod(0o755)
        book = books / "deals.txt"
        book.write_text("11\n12\n")
        book.chmod(0o644)
        run = ring.tournament(
            *("--engine", f"cmd={ring.engine('spy')} name=spy option.peek={book},{books}"),
            *("--engine", f"cmd={ring.engine('other')} name=other"),
            *("--deal-book", str(book), "--deals", "1", "--max-rounds", "1", "--bank", "20"),
            *("--delay", "1", "-j", "1", "--out", str(ring.out), "--json"),
            *("--sandbox", "auto", "--stderr-dir", str(ring.logs)),
        )
        assert run.returncode == 0, run.stderr
        probes = ring.spied()["spy"]
        assert len(probes) == 2
        for probe in probes:
            assert probe["pid"] < 10  # jailed
            assert probe["sees"] == {str(book): False, str(books): True}  # covered, empty
    finally:
        shutil.rmtree(books, ignore_errors=True)
