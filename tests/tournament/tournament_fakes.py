"""A deterministic fake play function for tournament tests (no engines, no referee).

An engine spec ``"fake strength=3 sleep=0.01 abort=0.3"`` sets a strength (the
chance of beating an opponent is strength / (sum of strengths)), a pause per
match (to let tests interrupt a run) and the chance that a first attempt is
aborted as a referee timing fault, and ``nostart`` the chance that the engine
fails to start (a start-up failure: unrated, not retried), and ``die`` the
chance that the worker process dies during a first attempt. The outcome depends
only on the deal seed, the seats and the engines, never on the attempt or the order of play, so any
two runs of the same tournament give the same rated results.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from bidref.tournament import (
    EngineEntry,
    MatchJob,
    MatchReport,
    MatchSettings,
    Plan,
    new_header,
    seeds_from_master,
)


def _params(spec: str) -> dict[str, float]:
    out = {"strength": 1.0, "sleep": 0.0, "abort": 0.0, "draw": 0.05, "nostart": 0.0, "die": 0.0}
    for token in spec.split()[1:]:
        name, _, value = token.partition("=")
        out[name] = float(value)
    return out


def _spec(e: EngineEntry) -> str:
    """The fake's settings: its command (also for an --engine "cmd='fake x=1' ..."),
    or the spec of an entry made by hand without one."""
    return " ".join(e.command) if e.command else e.spec


def _unit(*parts: object) -> float:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def fake_play(job: MatchJob) -> MatchReport:
    a, b = _params(_spec(job.engine_a)), _params(_spec(job.engine_b))
    if job.attempt == 1 and _unit("die", job.key.id) < max(a["die"], b["die"]):
        os._exit(9)  # the worker process dies mid-match (as if killed)
    time.sleep(max(a["sleep"], b["sleep"]))
    Path(job.transcript).write_text(f'{{"fake": "{job.key.id}"}}\n', encoding="utf-8")
    for seat, params in enumerate((a, b)):
        if params["nostart"] and _unit("nostart", job.key.id) < params["nostart"]:
            return MatchReport(
                winner=None,
                reason="startup",
                rated=False,
                fault_seat=seat,
                detail={"seat": seat, "problem": "the engine ended before its hello (fake)"},
            )
    abort = max(a["abort"], b["abort"])
    if job.attempt == 1 and _unit("abort", job.key.id) < abort:
        return MatchReport(
            winner=None,
            reason="aborted",
            rated=False,
            detail={"cause": "referee timing fault (fake)"},
        )
    u = _unit(job.key.seed, job.engine_a.name, job.engine_b.name)
    draw = max(a["draw"], b["draw"])
    if u < draw:
        return MatchReport(
            winner=None, reason="round_limit", rated=True, balances=(50, 50), rounds=3
        )
    p_a = a["strength"] / (a["strength"] + b["strength"])
    winner = 0 if _unit("win", u) < p_a else 1
    reasons = ("balance", "balance", "balance", "time", "crash", "illegal", "protocol")
    reason = reasons[int(_unit("reason", u) * len(reasons))]
    balances = (100, 0) if winner == 0 else (0, 100)
    return MatchReport(winner=winner, reason=reason, rated=True, balances=balances, rounds=4)


def killable_plan(out: Path) -> Plan:
    """A tournament of 60 fake matches (~30 ms each) for kill-and-resume tests."""
    engines = [EngineEntry("a", "fake strength=2 sleep=0.03"), EngineEntry("b", "fake abort=0.2")]
    header = new_header(
        "round-robin",
        engines,
        seeds_from_master(7, 30),
        MatchSettings(),
        master_seed=7,
        deal_book=None,
        created="2026-01-01T00:00:00+00:00",
    )
    return Plan(header, out)
