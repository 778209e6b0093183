"""The end's detail is typed (bidref/outcome/details.py) and encoded to the same
JSON as before: for a real match of each end reason (the real referee, fake seats
on a fake clock), the record the referee built is the one the transcript's
``result`` line decodes to, and decoding then encoding that line gives its bytes
back; the committed transcripts and today's dicts of the tournament's own aborts
do too; a detail from a newer writer (a key, a cause this bidref does not know)
reads as the dict's readers read it and is written back as it was."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from bidref.engines import EngineSpec, ExitInfo
from bidref.match.referee import MatchOutcome, MatchSpec, run_match
from bidref.outcome import AbortCause, EndReason, decode_detail, end_sentence
from bidref.outcome.details import (
    BalanceDetail,
    CrashDetail,
    EndDetail,
    EngineChangedDetail,
    EngineRefusedDetail,
    EngineRefusedFileDetail,
    IllegalDetail,
    InterruptedDetail,
    JailSetupDetail,
    MachineWaitDetail,
    ProtocolDetail,
    ResignDetail,
    ResourcesDetail,
    RoundLimitDetail,
    RunnerErrorDetail,
    StartupDetail,
    TimeDetail,
    TimingFaultDetail,
    TranscriptRejectedDetail,
    UnreadDetail,
)
from bidref.players import SeatSetupError
from bidref.rules import MILLISECOND, SECOND, TimeControl
from bidref.sandbox.breach import Breach
from bidref.tournament.play import _json_detail
from bidref.transcript import counter_salt
from bidref.transcript.lines import Result
from bidref.transcript.replay import replay
from tests.match.fakes import (
    EOF_MARK,
    INTERRUPT_MARK,
    FakeClock,
    FakeSeat,
    PipeSeat,
    Script,
    action_line,
    first_legal,
    on_nth_request,
)
from tests.match.test_machine_wait import NoWait, WaitingSeat
from tests.transcript.scripted_seats import referee_transcript

MS = MILLISECOND
DATA = Path(__file__).resolve().parents[1] / "transcript" / "data"
SPEC = MatchSpec(
    engines=(EngineSpec("a", ("fake",)), EngineSpec("b", ("fake",))),
    seed=5,
    time_control=TimeControl(bank=2 * SECOND, delay=100 * MS),
)


class Breached(FakeSeat):
    """Seat A ends at its jail's memory limit (as an engine seat's jail reports it)."""

    def breach(self, info: ExitInfo | None) -> Breach | None:
        return Breach("memory", 64 << 20, "kernel")


class NoJail(FakeSeat):
    def open(self) -> None:
        raise SeatSetupError("cannot build the jail: no cgroup v2 here")


def _late_look(msg: dict[str, Any], seat: FakeSeat) -> list[tuple[int, str]]:
    """The first request answered 1 ms before its deadline (a referee that wakes
    300 ms late finds it: it cannot judge)."""
    if msg["type"] == "request" and msg["id"] == 1:
        return [(2 * SECOND + 100 * MS - MS, action_line(msg["id"], msg["legal"][0]))]
    return first_legal()(msg, seat)


def _play(
    tmp_path: Path,
    script: Script,
    *,
    seat: type[FakeSeat] = FakeSeat,
    spec: MatchSpec = SPEC,
    **kw: Any,
) -> tuple[MatchOutcome, bytes]:
    clock = FakeClock()
    path = tmp_path / "t.jsonl"
    out = run_match(
        spec,
        seats=[seat("a", clock, script, **kw), FakeSeat("b", clock, first_legal())],
        clock=clock,
        transcript_path=path,
        salt=counter_salt(),
        started_at="2026-01-01T00:00:00Z",
    )
    return out, path.read_bytes()


def _spec(**kw: Any) -> MatchSpec:
    return MatchSpec(engines=SPEC.engines, seed=5, time_control=SPEC.time_control, **kw)


RESIGN = json.dumps({"type": "resign", "message": "no"})
ENDS: dict[str, tuple[type[EndDetail], Any]] = {
    "balance": (BalanceDetail, lambda p: _play(p, first_legal())),
    "round_limit": (RoundLimitDetail, lambda p: _play(p, first_legal(), spec=_spec(max_rounds=1))),
    "resign": (ResignDetail, lambda p: _play(p, on_nth_request(2, [(MS, RESIGN)]))),
    "time": (TimeDetail, lambda p: _play(p, on_nth_request(2, []))),
    "illegal": (
        IllegalDetail,
        lambda p: _play(
            p,
            on_nth_request(1, [(MS, action_line(0, "draw").replace("0", "{ID}", 1))]),
            spec=_spec(illegal="forfeit"),
        ),
    ),
    "crash": (
        CrashDetail,
        lambda p: _play(
            p, on_nth_request(2, [(5 * MS, EOF_MARK)]), exit=ExitInfo(None, "SIGSEGV", "exited")
        ),
    ),
    "protocol": (ProtocolDetail, lambda p: _play(p, on_nth_request(3, [(MS, "play 1-3!")]))),
    "resources": (
        ResourcesDetail,
        lambda p: _play(
            p,
            on_nth_request(2, [(5 * MS, EOF_MARK)]),
            seat=Breached,
            exit=ExitInfo(None, "SIGKILL", "exited"),
        ),
    ),
    "startup": (StartupDetail, lambda p: _play(p, lambda m, s: [])),
    "aborted interrupted": (
        InterruptedDetail,
        lambda p: _play(p, on_nth_request(3, [(MS, INTERRUPT_MARK)])),
    ),
    "aborted jail_setup": (JailSetupDetail, lambda p: _play(p, first_legal(), seat=NoJail)),
    "aborted timing_fault": (
        TimingFaultDetail,
        lambda p: _play(p, _late_look, seat=PipeSeat, wake_late_ns=300 * MS),
    ),
}


def _round_trip(line: bytes) -> tuple[Result, EndDetail, bytes]:
    """The result line decoded, its detail typed, and the line written again from them."""
    r = msgspec.json.decode(line, type=Result)
    detail = decode_detail(r.reason, r.detail)
    again = msgspec.structs.replace(r, detail=detail.to_dict()).full_json()
    return r, detail, again


@pytest.mark.parametrize("end", list(ENDS))
def test_each_end_reason_is_its_record_and_its_bytes(end: str, tmp_path: Path) -> None:
    kind, play = ENDS[end]
    out, data = play(tmp_path)
    assert type(out.end) is kind, out.end
    assert str(out.reason) == end.split()[0]
    last = data.splitlines()[-1]
    _, detail, again = _round_trip(last)
    assert again == last  # decode -> encode: the line's own bytes
    assert detail == out.end and type(detail) is kind  # the record the referee built
    with pytest.deprecated_call(match="read MatchOutcome.end"):
        alias = out.detail  # the dict, for one release
    assert json.loads(last)["detail"] == alias == out.end.to_dict()
    whole = out.to_dict()  # (the match command's --json)
    assert whole["detail"] == out.end.to_dict() and list(whole)[:3] == [
        "winner",
        "reason",
        "detail",
    ]
    replayed = replay(data)
    assert replayed.exit_code == 0 and replayed.result is not None
    assert replayed.result.detail == out.end


@pytest.mark.parametrize("seat", [WaitingSeat, NoWait], ids=["machine_wait", "time_why_not"])
def test_the_machine_wait_evidence_is_the_figures_typed(seat: Any, tmp_path: Path) -> None:
    data = referee_transcript(tmp_path / "t.jsonl", bank_s=30, delay_s=0.5, seat_class=seat)
    last = data.splitlines()[-1]
    _, detail, again = _round_trip(last)
    assert again == last
    if seat is WaitingSeat:
        assert isinstance(detail, MachineWaitDetail) and detail.cause is AbortCause.MACHINE_WAIT
        evidence = detail.machine
    else:
        assert isinstance(detail, TimeDetail) and detail.machine is not None
        evidence = detail.machine
        assert evidence.why_not == "none of its tasks waited for a CPU"
    assert evidence.excused_ns == evidence.wait.excused_ns
    # written before a figure was added (unseen_ns): read as absent, not written back
    older = json.loads(last)
    machine = older["detail"]["machine"]
    machine.pop("unseen_ns")
    old_line = json.dumps(older, separators=(",", ":"), ensure_ascii=False).encode()
    _, old_detail, old_again = _round_trip(old_line)
    assert old_again == old_line and not isinstance(old_detail, UnreadDetail)
    lines = data.splitlines()
    assert replay(b"\n".join([*lines[:-1], old_line]) + b"\n").exit_code == 0


@pytest.mark.parametrize("name", ["v1-sample.jsonl", "v1-timeout.jsonl"])
def test_the_committed_transcripts_round_trip(name: str) -> None:
    data = (DATA / name).read_bytes()
    last = data.splitlines()[-1]
    _, detail, again = _round_trip(last)
    assert again == last and not isinstance(detail, UnreadDetail)
    assert replay(data).exit_code == 0


class _Mismatch:
    path, expected, found = "engine.py", "sha256:aa", None


# The tournament's own aborts, and the dicts its code wrote before the records.
TOURNAMENT: list[tuple[EndDetail, dict[str, Any]]] = [
    (InterruptedDetail(), {"cause": "interrupted"}),
    (RunnerErrorDetail(error="OSError()"), {"cause": "runner error", "error": "OSError()"}),
    (
        TranscriptRejectedDetail(worker="w (tcp://h:1)", problem="bad"),
        {"cause": "transcript rejected", "worker": "w (tcp://h:1)", "problem": "bad"},
    ),
    (
        EngineChangedDetail(
            engine="x", file="engine.py", expected="sha256:aa", found=None, problem="p"
        ),
        {
            "cause": "engine changed",
            "engine": "x",
            "file": "engine.py",
            "expected": "sha256:aa",
            "found": None,
            "problem": "p",
        },
    ),
    (
        EngineRefusedDetail(worker="tcp://h:1", engine="x", problem="p"),
        {"cause": "engine refused", "worker": "tcp://h:1", "engine": "x", "problem": "p"},
    ),
    (
        EngineRefusedFileDetail(
            worker="tcp://h:1", engine="x", file="e", expected="s", found="t", problem="p"
        ),
        {
            "cause": "engine refused",
            "worker": "tcp://h:1",
            "engine": "x",
            "file": "e",
            "expected": "s",
            "found": "t",
            "problem": "p",
        },
    ),
]


@pytest.mark.parametrize(("record", "before"), TOURNAMENT, ids=lambda x: type(x).__name__)
def test_the_tournaments_aborts_are_todays_json(record: EndDetail, before: dict[str, Any]) -> None:
    made = record.to_dict()
    assert json.dumps(made) == json.dumps(before)  # the same keys, order and values
    stored = _json_detail(made)  # as the results file keeps it: keys sorted
    read = decode_detail("aborted", stored)
    assert read == record and json.dumps(read.to_dict()) == json.dumps(stored)


def test_a_newer_writers_key_is_kept_in_place_and_ignored() -> None:
    said = {"seat": 0, "exit_code": 1, "core_dumped": True, "signal": None, "problem": "x"}
    d = decode_detail("crash", said)
    assert isinstance(d, CrashDetail) and d.seat == 0 and d.extra == {"core_dumped": True}
    assert d.stderr_tail is None  # an older writer's missing key: None, not written back
    assert json.dumps(d.to_dict()) == json.dumps(said)
    assert (
        end_sentence(EndReason.CRASH, None, d, ("a", "b"))
        == "B (b) wins by crash: A (a) crashed (x)"
    )


def test_a_detail_that_is_no_record_is_kept_whole_and_read_as_before() -> None:
    said = {"cause": "worker lost", "seat": 1, "problem": "the worker went away"}
    d = decode_detail("aborted", said)
    assert isinstance(d, UnreadDetail) and d.cause is None and d.cause_word == "worker lost"
    assert (d.at_seat, d.problem_text) == (1, "the worker went away")
    assert d.to_dict() == said and "worker lost" in d.why
    assert end_sentence(EndReason.ABORTED, None, d, ("a", "b")) == "aborted: the worker went away"
    bad = decode_detail("time", {"seat": "A", "overrun_ns": 0, "overrun_ms": 0.0})
    assert isinstance(bad, UnreadDetail) and bad.at_seat is None and "seat is 'A'" in bad.why
    assert isinstance(decode_detail("exploded", {"seat": 0}), UnreadDetail)


def test_a_transcript_with_a_newer_writers_key_still_replays(tmp_path: Path) -> None:
    _, data = ENDS["crash"][1](tmp_path)
    lines = data.splitlines()
    last = json.loads(lines[-1])
    last["detail"] = {"seat": 0, "core": "dumped", **last["detail"]}
    lines[-1] = json.dumps(last, separators=(",", ":"), ensure_ascii=False).encode()
    newer = b"\n".join(lines) + b"\n"
    report = replay(newer)
    assert report.exit_code == 0, report.problem
    assert report.result is not None and report.result.detail.extra == {"core": "dumped"}
    assert list(report.verdict()["result"]["detail"]) == list(last["detail"])


# -- nobody reads the detail by its keys but the codec ------------------------------------------

BIDREF = Path(__file__).resolve().parents[2] / "bidref"
KEY_READS_ALLOWED = {
    "bidref/outcome/details.py",  # the codec
    "bidref/outcome/reasons.py",  # AbortCause.of: the cause a file's dict names
}


def _is_detail(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name == "detail"


def key_reads(source: str) -> list[int]:
    """The lines of ``source`` that read a detail by a key: ``detail.get(...)``,
    ``x.detail[...]``, ``"k" in detail``."""
    return [node.lineno for node in ast.walk(ast.parse(source)) if _reads_a_key(node)]


def _reads_a_key(node: ast.AST) -> bool:
    if isinstance(node, ast.Subscript):
        return _is_detail(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "get" and _is_detail(node.func.value)
    if isinstance(node, ast.Compare):
        pairs = zip(node.ops, node.comparators, strict=True)
        return any(isinstance(op, ast.In | ast.NotIn) and _is_detail(c) for op, c in pairs)
    return False


def test_the_scan_finds_each_way_of_reading_a_key() -> None:
    assert key_reads('s = outcome.detail.get("seat")') == [1]
    assert key_reads('s = detail["seat"]') == [1]
    assert key_reads('s = e.detail["problem"]') == [1]
    assert key_reads('ok = "machine" in detail') == [1]
    assert key_reads("s = outcome.end.at_seat") == []
    assert key_reads('d = {"detail": 1}["detail"]') == []


def test_no_module_reads_the_detail_by_its_keys() -> None:
    found = [
        f"{rel}:{line}"
        for path in sorted(BIDREF.rglob("*.py"))
        if (rel := path.relative_to(BIDREF.parent).as_posix()) not in KEY_READS_ALLOWED
        for line in key_reads(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "read the typed detail (bidref/outcome/details.py):\n" + "\n".join(found)


def test_the_sentences_and_the_loser_still_take_a_files_dict() -> None:
    said = {"seat": 0, "action": "draw", "rule": "§4", "code": "illegal", "message": "no"}
    typed = decode_detail("illegal", said)
    assert isinstance(typed, IllegalDetail)
    names = ("a", "b")
    assert end_sentence(EndReason.ILLEGAL, 1, said, names) == end_sentence(
        EndReason.ILLEGAL, 1, typed, names
    )
    assert end_sentence(EndReason.ILLEGAL, 1, typed, names) == (
        "B (b) wins by illegal: A (a) forfeits with the illegal action 'draw': no"
    )
    assert EndReason.ILLEGAL.loser(said) == EndReason.ILLEGAL.loser(typed) == 0
