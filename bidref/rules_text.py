"""The rules text shipped with bidref (a copy of RULES.md), for rules help."""

from __future__ import annotations

from importlib import resources


def rules_text() -> str:
    """The full English rules the referee enforces."""
    return resources.files("bidref").joinpath("data/RULES.md").read_text(encoding="utf-8")


def find_section(topic: str) -> str | None:
    """The section of the rules about ``topic`` (a number like "7" or "§7", or a
    word of its title), or None if no section is about it."""
    key = topic.strip().lower().lstrip("§")
    if not key:
        return None
    for sec in rules_text().split("\n## ")[1:]:
        title = sec.splitlines()[0].lower()
        if title.startswith(key + ".") or key in title:
            return "## " + sec.strip()
    return None


def section_titles() -> list[str]:
    """The titles of the rules' sections, e.g. "7. The match clock"."""
    return [sec.splitlines()[0] for sec in rules_text().split("\n## ")[1:]]


def rules_section(topic: str | None) -> str:
    """The section of the rules about ``topic``; all of the rules if there is no
    topic or no section about it (an engine asking gets everything rather than
    nothing)."""
    return (find_section(topic) if topic else None) or rules_text()
