"""Typed transcript lines: msgspec structs against pydantic v2 models, side by side.

Decodes every line of the same transcript (a c_first vs python_greedy match, or
the file given) three ways in one run: ``json.loads`` into dicts (no types, the
floor), msgspec straight into the structs of ``bidref/transcript/lines.py``,
and pydantic v2 into models built field for field from the same structs (a
discriminated union on ``type``). Prints lines per second of each.

    .venv/bin/python benchmarks/transcript_models.py [TRANSCRIPT]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import typing
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import msgspec
import pydantic

from bidref.transcript.files import read_bytes
from bidref.transcript.lines import LINE_TYPES, decoder


def play() -> bytes:
    """The issue's match: c_first against python_greedy, seed 7, 30 rounds at most."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "t.jsonl"
        subprocess.run(
            [
                str(Path(sys.executable).parent / "bidref"),
                "match",
                str(root / "sample_engines" / "c_first" / "engine"),
                str(root / "sample_engines" / "python_greedy" / "engine.py"),
                *("--seed", "7", "--max-rounds", "30", "--bank", "60", "--delay", "1"),
                *("--transcript", str(out)),
            ],
            check=True,
            capture_output=True,
        )
        return out.read_bytes()


_models: dict[type, Any] = {}


def _pyd(tp: Any) -> Any:
    """The pydantic form of a msgspec field type."""
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _model(tp)
    origin = typing.get_origin(tp)
    if origin is None:
        return tp
    args = tuple(_pyd(a) for a in typing.get_args(tp))
    if origin is list:
        return list[args[0]]  # type: ignore[valid-type]
    if origin is dict:
        return dict[args[0], args[1]]  # type: ignore[valid-type]
    if origin is Literal:
        return tp
    return Union[args]  # noqa: UP007


def _model(cls: type[msgspec.Struct]) -> Any:
    if cls in _models:
        return _models[cls]
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    tag = cls.__struct_config__.tag
    if isinstance(tag, str):
        fields["type"] = (Literal[tag], ...)
    for f in msgspec.structs.fields(cls):
        default: Any = (
            ...
            if f.required
            else (f.default if f.default is not msgspec.NODEFAULT else f.default_factory())
        )
        fields[f.name] = (_pyd(hints[f.name]), default)
    model = pydantic.create_model(f"P{cls.__name__}", **fields)
    _models[cls] = model
    return model


def _rate(label: str, fn: Any, lines: list[bytes], runs: int = 5) -> float:
    best = 1e9
    for _ in range(runs):
        t0 = time.process_time()
        fn(lines)
        best = min(best, time.process_time() - t0)
    rate = len(lines) / best
    print(f"  {label:<34} {best * 1000:8.1f} ms  {rate:12,.0f} lines/s")
    return rate


def main() -> None:
    data = read_bytes(Path(sys.argv[1])) if len(sys.argv) > 1 else play()
    lines = data.splitlines()
    members: Any = Union[tuple(_model(c) for c in LINE_TYPES)]  # noqa: UP007
    adapter: Any = pydantic.TypeAdapter(Annotated[members, pydantic.Field(discriminator="type")])
    for raw in lines:  # both read each line as the same line type
        assert type(adapter.validate_json(raw)).__name__ == "P" + type(decoder.decode(raw)).__name__
    print(f"{len(lines)} lines, {len(data)} bytes")
    floor = _rate("json.loads (dicts, no types)", lambda ls: [json.loads(x) for x in ls], lines)
    fast = _rate("msgspec structs (chosen)", lambda ls: [decoder.decode(x) for x in ls], lines)
    slow = _rate("pydantic v2 models", lambda ls: [adapter.validate_json(x) for x in ls], lines)
    print(f"msgspec: {fast / floor:.1f}x json.loads, {fast / slow:.1f}x pydantic")


if __name__ == "__main__":
    main()
