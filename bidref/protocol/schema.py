"""The JSON Schema of protocol ``bidref/1``, generated from the models.

Regenerate the checked-in copy with::

    python -m bidref.protocol.schema > protocols/bidref-1.schema.json

A test fails when the checked-in file differs from :func:`schema_text`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from .messages import PROTOCOL_VERSION, EngineMessage, RefereeMessage, View


def protocol_schema() -> dict[str, Any]:
    """One JSON Schema document: a line is a RefereeMessage or an EngineMessage."""
    ref = "#/$defs/{model}"
    defs: dict[str, Any] = {}
    roots: dict[str, Any] = {}
    tp: Any
    for name, tp in (("RefereeMessage", RefereeMessage), ("EngineMessage", EngineMessage)):
        s = TypeAdapter[Any](tp).json_schema(ref_template=ref)
        defs.update(s.pop("$defs", {}))
        roots[name] = s
    # The request's view is a dict at run time; in the schema it is typed by View.
    view = View.model_json_schema(ref_template=ref)
    defs.update(view.pop("$defs", {}))
    defs["View"] = view
    request_view = defs["Request"]["properties"]["view"]
    defs["Request"]["properties"]["view"] = {
        "$ref": "#/$defs/View",
        "description": request_view.get("description", ""),
    }
    defs.update(roots)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Engine protocol {PROTOCOL_VERSION}",
        "description": "One JSON object per line. Referee → engine lines are "
        "RefereeMessage; engine → referee lines are EngineMessage.",
        "oneOf": [{"$ref": "#/$defs/RefereeMessage"}, {"$ref": "#/$defs/EngineMessage"}],
        "$defs": dict(sorted(defs.items())),
    }


def schema_text() -> str:
    """The schema as the checked-in file holds it (sorted, 2-space indent, final newline)."""
    return json.dumps(protocol_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # pragma: no cover
    import sys

    sys.stdout.write(schema_text())
