"""The rules set the package ships: complete, unchanged, and all RULES.md refers to."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "bidref" / "data"


def _listed() -> dict[str, str]:
    text = (DATA / "SOURCES.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| `([^`]+)` \|[^|]*\| `([0-9a-f]{64})` \|$", text, re.M))


def test_every_file_is_the_copy_sources_md_names() -> None:
    listed = _listed()
    assert set(listed) == {"RULES.md", "spectacular-bid-original-fi.txt", "layout-examples.json"}
    for name, digest in listed.items():
        got = hashlib.sha256((DATA / name).read_bytes()).hexdigest()
        assert got == digest, f"bidref/data/{name} changed: update SOURCES.md if on purpose"


def test_rules_md_refers_only_to_files_that_are_shipped() -> None:
    rules = (DATA / "RULES.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w.-]+\.(?:txt|json|md))`", rules))
    assert named, "RULES.md names its companion files"
    for name in named:
        assert (DATA / name).is_file(), f"RULES.md refers to {name}, which bidref/data lacks"


def test_nothing_in_the_repository_reads_outside_it() -> None:
    repo = DATA.parents[1]
    pattern = re.compile(r"\.\./shared|parents\[\d\]\s*/\s*\"shared\"|parent\s*/\s*\"shared\"")
    offenders = []
    for folder in ("bidref", "tests", "benchmarks", "sample_engines", ".ci"):
        for path in (repo / folder).rglob("*"):
            if path.is_file() and path.suffix in {".py", ".sh", ".js", ".c", ""}:
                if path.name == Path(__file__).name:
                    continue
                text = path.read_text(encoding="utf-8", errors="replace")
                if pattern.search(text):
                    offenders.append(str(path.relative_to(repo)))
    text = (repo / "Makefile").read_text(encoding="utf-8")
    if pattern.search(text):
        offenders.append("Makefile")
    assert offenders == []
