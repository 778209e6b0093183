"""The timeline's shape (issue 30 item 6): one handler per transcript line type and per
event kind, small functions, and the same steps as before the handlers were split out.

The snapshot was recorded with the former 210-line ``if kind ==`` chain, on
``bidref-transcript/1`` files (one step per line, so their line numbers were already
the file's): the handlers must give the same step for every line.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
from pathlib import Path
from typing import Any, cast, get_args

import pytest
from syrupy.assertion import SnapshotAssertion

from bidref.render.timeline import Timeline, build_timeline, events, rebuild
from bidref.render.timeline import build as timeline
from bidref.render.timeline import model as timeline_model
from bidref.render.timeline import text as timeline_text
from bidref.rules import Event, RoundStarted
from bidref.transcript.expand import Expanded, expanded_items
from bidref.transcript.lines import FORMAT, FORMAT_V1, LINE_TYPES, EventLine, Line, tag_of
from tests.transcript.scripted_seats import referee_transcript

KINDS: dict[str, dict[str, Any]] = {
    "busy": {"chatty": True, "illegal_rate": 0.1},
    "time-loss": {"late_at": 7},
    "forfeit": {"illegal": "forfeit", "illegal_rate": 0.3},
}


def test_no_function_of_the_timeline_is_longer_than_80_lines() -> None:
    modules = [timeline_model, timeline_text, events, rebuild, timeline]
    long = [
        (m.__name__, f.name, f.end_lineno - f.lineno + 1)
        for m in modules
        for f in ast.walk(ast.parse(inspect.getsource(m)))
        if isinstance(f, ast.FunctionDef) and f.end_lineno is not None
        if f.end_lineno - f.lineno + 1 > 80
    ]
    assert long == []


def test_every_line_model_has_its_handler_by_class() -> None:
    """A line type added to the transcript (bidref.transcript.lines) without a handler
    here fails this test: the page dispatches on the model's class, as the replay's fold
    does, never on its ``type`` string."""
    assert set(timeline._LINE_HANDLERS) == set(LINE_TYPES)
    for cls, handler in timeline._LINE_HANDLERS.items():
        assert handler.__name__ == f"on_{tag_of(cls)}"


def test_every_public_rules_event_has_its_handler_by_class() -> None:
    """Every class of rules event (bidref.rules.Event) but the referee's own
    ``RoundStarted`` (never in a transcript): a new event class fails this test until
    the page handles it, and reads it back from a /1 event line."""
    assert set(timeline._EVENT_HANDLERS) == set(get_args(Event)) - {RoundStarted}
    assert {h.__name__ for h in timeline._EVENT_HANDLERS.values()} == {
        f"on_{kind}" for kind in events._READERS
    }


def test_a_line_is_dispatched_on_its_class(tmp_path: Path) -> None:
    data = referee_transcript(tmp_path / "t.jsonl", format=FORMAT)
    items = expanded_items(data)
    assert any(isinstance(x.item, Event) for x in items)  # v2: the replay's typed events
    assert not any(isinstance(x.item, EventLine) for x in items)

    class Foreign(Line, tag="foreign"):  # a line model the page has no handler for
        pass

    foreign = Expanded(len(items) + 1, cast(Any, Foreign(seq=len(items), t_ns=0)), len(items), 0)
    stranger = Expanded(len(items) + 2, cast(Any, {"type": "reply"}), len(items) + 1, 0)
    tl = timeline._Builder([*items, foreign, stranger]).build()
    *_, last, shown, unread = tl.steps
    # a line model without a handler is shown by its type, the state unchanged
    assert (shown.type, shown.text, shown.note) == ("foreign", "foreign", None)
    assert shown.balances == last.balances and shown.table == last.table
    # what is neither a line model nor a rules event cannot be read, even with a "type"
    assert unread.type == "dict" and unread.note is not None
    assert "dict line that cannot be read (TypeError: dict is not a transcript line" in unread.note


def test_a_v2_file_shows_the_steps_of_its_v1_twin(tmp_path: Path) -> None:
    """The same match written in each format: /2's events derived by the replay (rules
    events), /1's read back from its event lines, the same steps but for the line
    numbers (a derived event carries its reply's)."""

    def shown(tl: Timeline) -> list[tuple[str, str, str | None]]:
        return [(s.type, s.text, s.note) for s in tl.steps]

    kw: dict[str, Any] = {"chatty": True, "illegal_rate": 0.1}
    v1 = build_timeline(referee_transcript(tmp_path / "1.jsonl", format=FORMAT_V1, **kw))
    v2 = build_timeline(referee_transcript(tmp_path / "2.jsonl", format=FORMAT, **kw))
    assert len(shown(v1)) > 100 and shown(v1) == shown(v2)
    assert [s.balances for s in v1.steps] == [s.balances for s in v2.steps]
    assert [s.table.hands for s in v1.steps] == [s.table.hands for s in v2.steps]


def test_a_file_that_does_not_replay_clean_still_shows_each_accepted_action(
    tmp_path: Path,
) -> None:
    """Read line by line as it is (not spelled out), a reply that leaves ``status`` at
    its default is an accepted one: the page once read the line's dict with the
    defaults left out, and showed every accepted reply as a ``None action``."""
    data = referee_transcript(tmp_path / "t.jsonl", format=FORMAT_V1)
    lines = [json.loads(x) for x in data.splitlines()]
    lines[-1]["balances"] = [1, 299]  # the result disagrees: the replay stops there
    tl = build_timeline(("\n".join(json.dumps(x) for x in lines) + "\n").encode())
    replies = [(x, s) for x, s in zip(lines, tl.steps, strict=True) if x["type"] == "reply"]
    assert len(replies) > 10
    for x, s in replies:
        assert x["status"] == "accepted"
        assert s.text.startswith(f"{'AB'[x['seat']]} ") and f": {x['action']} · took" in s.text
        assert s.turn.to_act is None  # settled
    assert tl.result is not None and tl.result["balances"] == [1, 299]


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_steps_are_those_of_the_former_chain(
    kind: str, tmp_path: Path, snapshot: SnapshotAssertion
) -> None:
    """Each step's line, type, text and note as written, and a digest of all the rest
    (state, clocks, hands, layouts) to keep the snapshot small."""
    data = referee_transcript(tmp_path / "t.jsonl", **KINDS[kind])
    tl = build_timeline(data)
    steps = [s.to_dict() for s in tl.steps]
    texts = [
        f"{s['line']} {s['type']}: {s['text']}" + (f" [{s['note']}]" if s["note"] else "")
        for s in steps
    ]
    everything = json.dumps(steps, sort_keys=True, ensure_ascii=False).encode()
    assert {"texts": texts, "sha256": hashlib.sha256(everything).hexdigest()} == snapshot


# -- the result's line reads the typed detail ------------------------------------------------


@pytest.mark.parametrize(
    ("end", "says"),
    [
        (
            {
                "winner": 0,
                "reason": "time",
                "balances": [160, 140],
                "detail": {"seat": 1, "overrun_ns": 50_000_000, "overrun_ms": 50.0},
            },
            "a (A) wins: time: the clock ran out (B, 50 ms late) · balances 160–140",
        ),
        (
            {
                "winner": 1,
                "reason": "crash",
                "rated": True,
                "detail": {
                    "seat": 0,
                    "exit_code": None,
                    "signal": "SIGSEGV",
                    "problem": "killed by SIGSEGV",
                    "stderr_tail": "",
                },
            },
            "b (B) wins: a crash (A, problem killed by SIGSEGV, signal SIGSEGV)",
        ),
        (
            {
                "winner": None,
                "reason": "aborted",
                "rated": False,
                "detail": {"cause": "interrupted"},
            },
            "No winner: aborted by the referee (cause interrupted) · not rated",
        ),
        (  # a reason a newer writer may add: its words as they are
            {"winner": 1, "reason": "exploded", "detail": {"seat": 0, "problem": "boom"}},
            "b (B) wins: exploded (A, problem boom)",
        ),
    ],
)
def test_the_result_line_names_the_details_facts(end: dict[str, object], says: str) -> None:
    from bidref.render.timeline.text import result_text

    assert result_text(end, ("a", "b")) == says
