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
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from bidref.render.timeline import build as timeline
from bidref.render.timeline import build_timeline
from bidref.transcript.lines import LINE_TYPES
from tests.transcript.scripted_seats import referee_transcript

KINDS: dict[str, dict[str, Any]] = {
    "busy": {"chatty": True, "illegal_rate": 0.1},
    "time-loss": {"late_at": 7},
    "forfeit": {"illegal": "forfeit", "illegal_rate": 0.3},
}


def test_no_function_of_the_timeline_is_longer_than_80_lines() -> None:
    tree = ast.parse(inspect.getsource(timeline))
    long = [
        (f.name, f.end_lineno - f.lineno + 1)
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef) and f.end_lineno is not None
        if f.end_lineno - f.lineno + 1 > 80
    ]
    assert long == []


def test_every_line_type_the_page_describes_has_its_handler() -> None:
    tags = {t.__struct_config__.tag for t in LINE_TYPES}
    handlers = set(timeline._LINE_HANDLERS)
    assert handlers <= tags
    # A connection line (a network seat's connect or drop) changes nothing on the table:
    # the page shows its type, as it always has.
    assert tags - handlers == {"connection"}
    for kind, handler in timeline._LINE_HANDLERS.items():
        assert handler.__name__ == f"on_{kind}"
    for kind, handler in timeline._EVENT_HANDLERS.items():
        assert handler.__name__ == f"on_{kind}"


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
