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
    topic: Annotated[str | None, typer.Argument(
        help="A section number or a word of its title, e.g. 7 or auction; all if omitted.")]
    = None,
) -> None:
    """Print the rules of Spectacular Bid (RULES.md) that the referee enforces.

    Example: bidref rules 6   (the auction for the opening)
    """
    from ..rules_text import rules_section

    typer.echo(rules_section(topic))
