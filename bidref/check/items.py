"""The items of ``bidref check-engine``, in the order they are reported."""

from __future__ import annotations

import statistics
import time

from bidref.engines import EngineSpec, EngineStartError, start_engine
from bidref.engines.transport import Clock, Transport
from bidref.match.session import SessionEnd
from bidref.protocol import ErrorMsg, Quit, encode
from bidref.rules import MILLISECOND, SECOND

from .positions import POSITIONS, find_position, judge_action
from .probe import QUIT_GRACE, Probe, Starter
from .report import CheckReport, CheckResult, CheckSettings


def _decision_item(probe: Probe, name: str) -> CheckResult:
    m = find_position(name)
    try:
        req_id, start, deadline = probe.request(m)
        answer, why = probe.await_action(req_id, start, deadline, name)
    except SessionEnd as e:
        return CheckResult(name, False, probe.ended(e, 0))
    if answer is None:
        return CheckResult(name, False, why)
    complaint = judge_action(m, answer.action)
    if complaint:
        return CheckResult(name, False, complaint)
    return CheckResult(name, True, f"{answer.action!r} ({POSITIONS[name][0]})")


def _stale_item(probe: Probe) -> CheckResult:
    name = "stale id"
    m1, m2 = find_position("play"), find_position("spinner branches")
    try:
        req_id, start, deadline = probe.request(m1)
        answer, why = probe.await_action(req_id, start, deadline, name)
        if answer is None:
            return CheckResult(name, False, f"first request: {why}")
        probe.tell(
            ErrorMsg(
                id=req_id - 1,
                code="stale_id",
                message=f"a reply to request {req_id - 1}, which is no longer pending, was ignored",
            )
        )
        req2, start2, deadline2 = probe.request(m2)
        answer2, why2 = probe.await_action(req2, start2, deadline2, name)
    except SessionEnd as e:
        return CheckResult(name, False, probe.ended(e, 0))
    if answer2 is None:
        return CheckResult(name, False, f"after a stale_id error: {why2}")
    complaint = judge_action(m2, answer2.action)
    if complaint:
        return CheckResult(name, False, f"after a stale_id error: {complaint}")
    return CheckResult(
        name, True, f"kept going after a stale_id error and answered request {req2} with its id"
    )


def _error_item(probe: Probe) -> CheckResult:
    name = "error reply"
    m = find_position("play")
    try:
        req_id, start, deadline = probe.request(m)
        answer, why = probe.await_action(req_id, start, deadline, name)
        if answer is None:
            return CheckResult(name, False, f"first answer: {why}")
        refused = answer.action
        probe.refuse(
            answer,
            ErrorMsg(
                id=req_id,
                code="illegal",
                rule="§8",
                message=f"illegal action {refused!r} (check-engine refuses it on purpose): the "
                "same request stays pending; answer it again",
            ),
        )
        again, why = probe.await_action(req_id, start, deadline, name, timed=False)
    except SessionEnd as e:
        return CheckResult(name, False, probe.ended(e, 0))
    if again is None:
        return CheckResult(
            name,
            False,
            f"after an illegal error on {refused!r}: {why}; the "
            "same request stays pending and needs another answer",
        )
    if again.action.strip() == refused.strip():
        return CheckResult(name, False, f"sent the refused action {refused!r} again")
    complaint = judge_action(m, again.action)
    if complaint:
        return CheckResult(name, False, f"second answer: {complaint}")
    return CheckResult(name, True, f"answered {again.action!r} after {refused!r} was refused")


def _timing_item(probe: Probe) -> CheckResult:
    name = "reply time"
    limit = (probe.settings.bank + probe.settings.delay) / MILLISECOND
    if probe.late:
        return CheckResult(
            name, False, f"no reply within {limit:.0f} ms in: " + ", ".join(probe.late)
        )
    lat = probe.latencies
    if not lat:
        return CheckResult.skip(name, "no request was answered, so there is no reply to time")
    return CheckResult(
        name,
        True,
        f"{len(lat)} replies: median "
        f"{statistics.median(lat) / MILLISECOND:.1f} ms, max "
        f"{max(lat) / MILLISECOND:.1f} ms (limit {limit:.0f} ms)",
    )


def _output_item(probe: Probe) -> CheckResult:
    name = "clean stdout"
    if probe.bad_lines:
        return CheckResult(
            name,
            False,
            f"{len(probe.bad_lines)} line(s) that are not "
            f"protocol messages, first: {probe.bad_lines[0]}; the referee "
            "ends a match at such a line as your loss (protocol error): write "
            "diagnostics to stderr or send log messages",
        )
    return CheckResult(name, True, "every line was a protocol message")


def _quit_item(probe: Probe) -> CheckResult:
    name = "quit"
    if not probe.alive():
        return CheckResult(name, False, "the engine was no longer running when told to quit")
    info = probe.close(encode(Quit()))
    if info is not None and info.how == "quit":
        return CheckResult(name, True, f"exited by itself after quit ({info.describe()})")
    how = info.how.upper() if info is not None else "?"
    return CheckResult(
        name,
        False,
        f"still running {QUIT_GRACE / SECOND:g} s after quit; "
        f"ended with {how}: exit when you read quit",
    )


def _default_starter(spec: EngineSpec, transport: str, clock: Clock) -> Transport:
    return start_engine(spec, transport, clock=clock)


def check_engine(
    spec: EngineSpec,
    settings: CheckSettings | None = None,
    *,
    clock: Clock | None = None,
    starter: Starter | None = None,
) -> CheckReport:
    """Run every check against ``spec``; never raises for a misbehaving engine."""
    settings = settings or CheckSettings()
    probe = Probe(spec, settings, clock or time.monotonic_ns, starter or _default_starter)
    report = CheckReport(spec.name, list(spec.command))
    add = report.results.append
    not_checked = (
        "ping",
        *POSITIONS,
        "stale id",
        "error reply",
        "reply time",
        "clean stdout",
        "quit",
    )
    try:
        probe.start()
    except EngineStartError as e:
        add(CheckResult("hello", False, str(e)))
        for item in not_checked:
            add(CheckResult.skip(item, "the engine could not be started"))
        return report
    try:
        add(probe.do_hello())
        report.engine_name = probe.hello.name if probe.hello else None
        if probe.hello is None:
            # Nothing came back: every other item would just wait and fail the same way.
            for item in not_checked:
                add(CheckResult.skip(item, "the engine never said hello"))
            return report
        add(probe.ping())
        for name in POSITIONS:
            problem = probe.ensure_running()
            add(CheckResult.skip(name, problem) if problem else _decision_item(probe, name))
        for label, check in (("stale id", _stale_item), ("error reply", _error_item)):
            problem = probe.ensure_running()
            add(CheckResult.skip(label, problem) if problem else check(probe))
        add(_timing_item(probe))
        add(_output_item(probe))
        problem = probe.ensure_running()
        add(CheckResult.skip("quit", problem) if problem else _quit_item(probe))
        return report
    finally:
        probe.close()
