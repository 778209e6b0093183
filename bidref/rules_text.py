"""The rules text shipped with bidref (a copy of RULES.md), for rules help."""

from __future__ import annotations

from importlib import resources


def rules_text() -> str:
    """The full English rules the referee enforces."""
    return resources.files("bidref").joinpath("data/RULES.md").read_text(encoding="utf-8")


def rules_section(topic: str | None) -> str:
    """The section of the rules about ``topic`` (a number like "7" or a word), or all."""
    text = rules_text()
    if not topic:
        return text
    sections = text.split("\n## ")
    key = topic.strip().lower().lstrip("§")
    for sec in sections[1:]:
        title = sec.splitlines()[0].lower()
        if title.startswith(key + ".") or key in title:
            return "## " + sec.strip()
    return text
