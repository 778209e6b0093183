"""The checked-in JSON Schema must equal what the models generate."""

from __future__ import annotations

import json
from pathlib import Path

from bidref.protocol.schema import protocol_schema, schema_text

SCHEMA = Path(__file__).resolve().parents[2] / "protocols" / "bidref-1.schema.json"


def test_checked_in_schema_is_current() -> None:
    assert SCHEMA.read_text(encoding="utf-8") == schema_text(), (
        "protocols/bidref-1.schema.json is stale: run "
        "`python -m bidref.protocol.schema > protocols/bidref-1.schema.json`"
    )


def test_schema_names_every_message_type() -> None:
    defs = protocol_schema()["$defs"]
    referee = {
        v["properties"]["type"]["const"]
        for k, v in defs.items()
        if k in {"RefereeHello", "Request", "ErrorMsg", "EventMsg", "RulesAnswer", "Ping", "Quit"}
    }
    assert referee == {"hello", "request", "error", "event", "rules", "ping", "quit"}
    assert json.loads(schema_text())["oneOf"]
