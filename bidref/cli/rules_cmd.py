"""`bidref notation` / `bidref rules`: small helpers around the rules core."""

from __future__ import annotations

from typing import Annotated

import typer

from ..rules import NotationError, parse_action
from . import app


@app.command("notation")
def notation(
    actions: Annotated[
        list[str], typer.Argument(help="Actions to check, e.g. 'play 1-3 at [1|1] bb'.")
    ],
) -> None:
    """Check actions in bidref notation and print their canonical form.

    Example: bidref notation "raise 25" "play [1|3] at [1|1] branch B"
    """
    bad = 0
    for text in actions:
        try:
            typer.echo(f"{text!r} -> {parse_action(text)}")
        except NotationError as e:
            typer.echo(f"{text!r}: {e}", err=True)
            bad += 1
    raise typer.Exit(code=2 if bad else 0)


@app.command("rules")
def rules(
    topic: Annotated[
        str | None,
        typer.Argument(
            help="A section number or a word of its title, e.g. 7 or auction; all if omitted."
        ),
    ] = None,
) -> None:
    """Print the rules of Spectacular Bid (RULES.md) that the referee enforces.

    Example: bidref rules 6   (the auction for the opening)
    """
    from ..rules_text import find_section, rules_text, section_titles

    if topic is None:
        typer.echo(rules_text())
        return
    section = find_section(topic)
    if section is None:
        typer.echo(
            f"no section of the rules is about {topic!r}; the sections are:\n  "
            + "\n  ".join(section_titles())
            + "\ngive a number or a word of a title, e.g. 'bidref rules 7' or "
            "'bidref rules auction'",
            err=True,
        )
        raise typer.Exit(code=2)
    typer.echo(section)
