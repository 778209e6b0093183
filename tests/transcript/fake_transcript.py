"""A small transcript writer for tests, following protocols/transcript.md.

It simulates a match between two seeded random players on a fake clock (think
times drawn from a seeded RNG), so replay tests do not depend on the referee's
writer or on real processes. It is deliberately independent of the referee
code: if both agree with the replay, both follow the documented format.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

from bidref.protocol.codec import encode_request
from bidref.rules import (
    SECOND,
    Drew,
    IllegalActionError,
    Match,
    MatchClock,
    MatchConfig,
    MatchEnded,
    RoundEnded,
    RoundStarted,
    TimeControl,
    parse_action,
    player_view,
    public_event,
)

MS = 1_000_000


def _commit(value: object, salt: str) -> str:
    canon = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(f"{salt}:{canon}".encode()).hexdigest()


def write_transcript(
    seed: int = 7,
    *,
    bank_s: float = 120,
    delay_s: float = 10,
    max_rounds: int | None = 2,
    think: Callable[[random.Random], int] | None = None,
    illegal_rate: float = 0.0,
    policy_seed: int = 1,
    time_out_at: int | None = None,
) -> list[str]:
    """The transcript lines (each a JSON text without newline) of a simulated match.

    ``time_out_at``: the decision number at which the player thinks past the
    deadline (the referee then ends the match by time).
    """
    rng = random.Random(policy_seed)
    think = think or (lambda r: r.randrange(1, 13_000) * MS)
    tc = TimeControl(int(bank_s * SECOND), int(delay_s * SECOND))
    lines: list[dict[str, Any]] = []
    t = 0
    salt_n = 0

    def salt() -> str:
        nonlocal salt_n
        salt_n += 1
        return hashlib.sha256(f"salt{salt_n}".encode()).hexdigest()

    def put(kind: str, **fields: Any) -> int:
        seq = len(lines)
        lines.append({"type": kind, "seq": seq, "t_ns": t, **fields})
        return seq

    seed_salt = salt()
    put(
        "header",
        format="bidref-transcript/1",
        bidref="0.1.0",
        protocol="bidref/1",
        rules="spectacular-bid/1",
        started_at="2026-12-02T13:00:00Z",
        time_control={"bank_ns": tc.bank, "delay_ns": tc.delay},
        max_rounds=max_rounds,
        illegal="reject",
        transport="pipe",
        seeded=True,
        seed_commitment=_commit({"seed": seed}, seed_salt),
        engines=[{"seat": s, "name": f"random{s}", "command": ["x"], "cwd": None} for s in (0, 1)],
    )
    for s in (0, 1):
        t += 2 * MS
        sent = {
            "type": "hello",
            "protocol": "bidref/1",
            "seat": s,
            "settings": {
                "bank_ms": tc.bank // MS,
                "delay_ms": tc.delay // MS,
                "max_rounds": max_rounds,
                "illegal": "reject",
            },
        }
        put(
            "hello",
            seat=s,
            sent=json.dumps(sent),
            received="{}",
            engine={"name": f"random{s}", "author": "t", "version": "1", "protocol": "bidref/1"},
            elapsed_ns=MS,
        )
    m = Match.new(seed, MatchConfig(max_rounds=max_rounds))
    clock = MatchClock.start(tc)
    private: list[dict[str, Any]] = []
    round_salt = ""
    current: list[RoundStarted] = []

    def start_round(ev: RoundStarted) -> None:
        nonlocal round_salt, private
        round_salt = salt()
        private = []
        current[:] = [ev]
        put(
            "round_start",
            round=ev.round,
            opening=ev.opening,
            jockey=ev.jockey,
            deal_commitment=_commit(ev.deal.to_dict(), round_salt),
            balances=list(m.balances),
        )

    def reveal() -> None:
        put(
            "round_reveal",
            round=current[0].round,
            salt=round_salt,
            deal=current[0].deal.to_dict(),
            private=private,
        )

    for ev in m.start_events:
        assert isinstance(ev, RoundStarted)
        start_round(ev)
    decisions = 0
    result: dict[str, Any] | None = None
    req_id = 0
    while not m.over:
        seat = m.to_act
        clock = clock.begin(seat, m.turn)
        req_id += 1
        t += 100_000  # the referee's own work
        start = t
        deadline = clock.deadline(start)
        seq = put(
            "request",
            seat=seat,
            id=req_id,
            round=m.round_number,
            turn=m.turn,
            phase=m.phase.value,
            clock={
                "delay_left_ns": clock.delay_left,
                "bank_ns": clock.banks[seat],
                "opponent_bank_ns": clock.banks[1 - seat],
            },
            deadline_ns=deadline,
        )
        ms = MS
        sent = encode_request(
            req_id,
            player_view(m, seat).to_dict(),
            {
                "delay_left_ms": clock.delay_left // ms,
                "bank_ms": clock.banks[seat] // ms,
                "opponent_bank_ms": clock.banks[1 - seat] // ms,
                "deadline_ms": (clock.delay_left + clock.banks[seat]) // ms,
            },
            [str(a) for a in m.legal_actions()],
        )
        private.append({"seq": seq, "kind": "request_raw", "seat": seat, "raw": sent})
        decisions += 1
        if illegal_rate and rng.random() < illegal_rate and m.phase.value == "play":
            t = start + 300 * MS
            clock, ch = clock.charge(t - start)
            seq = put(
                "reply",
                seat=seat,
                id=req_id,
                status="illegal",
                action=None,
                rule="§3",
                elapsed_ns=t - start,
                charge={
                    "delay_used_ns": ch.delay_used,
                    "bank_used_ns": ch.bank_used,
                    "timed_out": ch.timed_out,
                    "overrun_ns": ch.overrun,
                },
                banks_ns=list(clock.banks),
            )
            bad = "play 6-6 0-0:branch_a"
            private.append(
                {
                    "seq": seq,
                    "kind": "reply_raw",
                    "seat": seat,
                    "raw": json.dumps({"type": "action", "id": req_id, "action": bad}),
                }
            )
            try:
                m.copy().apply(parse_action(bad), seat)
            except IllegalActionError as e:
                private.append({"seq": seq, "kind": "error_raw", "seat": seat, "message": str(e)})
            t += 50_000  # the error line is written
            start = t
            put(
                "retry",
                seat=seat,
                id=req_id,
                deadline_ns=clock.deadline(start),
                delay_left_ns=clock.delay_left,
                bank_ns=clock.banks[seat],
            )
        if time_out_at is not None and decisions == time_out_at:
            t = deadline + 5 * MS
            put("timeout", seat=seat, overrun_ns=5 * MS)
            reveal()
            result = {
                "winner": 1 - seat,
                "reason": "time",
                "detail": {"seat": seat, "overrun_ms": 5, "overrun_ns": 5 * MS},
            }
            break
        t = start + think(rng)
        action = rng.choice(m.legal_actions())
        clock, ch = clock.charge(t - start)
        assert not ch.timed_out, "think times in tests stay inside the bank"
        seq = put(
            "reply",
            seat=seat,
            id=req_id,
            status="accepted",
            action=str(action),
            rule=None,
            elapsed_ns=t - start,
            charge={
                "delay_used_ns": ch.delay_used,
                "bank_used_ns": ch.bank_used,
                "timed_out": ch.timed_out,
                "overrun_ns": ch.overrun,
            },
            banks_ns=list(clock.banks),
        )
        private.append(
            {
                "seq": seq,
                "kind": "reply_raw",
                "seat": seat,
                "raw": json.dumps({"type": "action", "id": req_id, "action": str(action)}),
            }
        )
        for ev in m.apply(action):
            if isinstance(ev, RoundStarted):
                start_round(ev)
                continue
            pub = public_event(ev, None)
            assert pub is not None
            seq = put("event", event=pub.to_dict())
            if isinstance(ev, Drew):
                assert ev.tile is not None
                private.append(
                    {"seq": seq, "kind": "drew", "seat": ev.player, "tile": ev.tile.as_list()}
                )
            if isinstance(ev, RoundEnded):
                reveal()
            if isinstance(ev, MatchEnded):
                result = {
                    "winner": ev.winner,
                    "reason": ev.reason,
                    "detail": {} if ev.reason == "balance" else {"max_rounds": max_rounds},
                }
    assert result is not None
    put("seed_reveal", seed=seed, salt=seed_salt)
    for s in (0, 1):
        put(
            "engine_exit",
            seat=s,
            exit_code=0,
            signal=None,
            how="quit",
            stderr_bytes=0,
            stderr_log=None,
        )
    put(
        "result",
        **result,
        balances=list(m.balances),
        rounds=m.round_number,
        rated=True,
        engines=["random0", "random1"],
    )
    return [json.dumps(line, separators=(",", ":")) for line in lines]


def as_bytes(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()
