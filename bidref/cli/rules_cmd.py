"""`bidref notation` / `bidref rules`: small helpers around the rules core."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Annotated

import typer

from . import app
from .exit_codes import ExitCode
from .options import Refused

READ_WIDTH = 100


def _is_tile(text: str) -> bool:
    from ..rules import NotationError, parse_tile

    try:
        parse_tile(text)
    except NotationError:
        return False
    return True  # rendered rules are set no wider than this: long lines read badly


@app.command("notation")
def notation(
    actions: Annotated[
        list[str],
        typer.Argument(
            help="Actions (or attachment points) to check, e.g. 'play 1-3 at [1|1] bb' or '34lo'."
        ),
    ],
) -> None:
    """Check actions in bidref notation and print their canonical form.

    An attachment point alone ('[1|1] line A', '1-1 la', '34lo') is read too and
    printed as TILE:SIDE. The forms are in protocols/PROTOCOL.md ("Actions").

    Example: bidref notation "raise 25" "play [1|3] at [1|1] branch B" 34lo
    """
    from ..rules import NotationError, parse_action  # (imported when used: a quick --help)
    from ..rules.layout import parse_point

    bad = 0
    for text in actions:
        try:
            typer.echo(f"{text!r} -> {parse_action(text)}")
            continue
        except NotationError as e:
            error = e
        try:
            typer.echo(f"{text!r} -> {parse_point(text)} (an attachment point)")
        except NotationError as e:
            # Say what is wrong with it as what it looks like: one or two words
            # that start with a tile ('1-1 a', '34xx') are meant as a point.
            words = text.split()
            point_like = (0 < len(words) <= 2 and words[0][:2].isdigit()) or (
                len(words) == 2 and _is_tile(words[0])
            )
            typer.echo(f"{text!r}: {e if point_like else error}", err=True)
            bad += 1
    raise typer.Exit(code=ExitCode.USAGE if bad else ExitCode.OK)


@app.command("rules")
def rules(
    topic: Annotated[
        str | None,
        typer.Argument(
            help="A section number or a word of its title, e.g. 7 or auction; all if omitted."
        ),
    ] = None,
    no_pager: Annotated[
        bool,
        typer.Option("--no-pager", help="In a terminal, print the rules instead of paging them."),
    ] = False,
) -> None:
    """Show the rules of Spectacular Bid (RULES.md) that the referee enforces.

    In a terminal the rules are rendered (headings, tables, bold) and, when
    longer than the screen, shown in your pager ($PAGER, else `less`).
    Piped or redirected, the Markdown is written as it is: `bidref rules >
    RULES.md` is the shipped file, byte for byte.

    Examples:

        bidref rules 6          (the auction for the opening)

        bidref rules clock | less
    """
    from ..rules_text import find_section, rules_text, section_titles

    if topic is None:
        text = rules_text()
    else:
        found = find_section(topic)
        if found is None:
            raise Refused(
                f"no section of the rules is about {topic!r}; the sections are:\n  "
                + "\n  ".join(section_titles())
                + "\ngive a number or a word of a title, e.g. 'bidref rules 7' or "
                "'bidref rules auction'"
            )
        text = found + "\n"
    if not sys.stdout.isatty():
        # Scripts get the Markdown itself, exactly (no added newline, no styles).
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    _show_rendered(text, page=not no_pager)


def _show_rendered(markdown: str, *, page: bool) -> None:
    """Render ``markdown`` for this terminal; page it when it is taller than the screen.

    The pager follows git's habits: ``$PAGER`` (run by the shell, so it may carry
    options), else ``less``; ``LESS`` defaults to ``FRX`` (quit if one screen, keep
    colours, leave the text on the screen). A pager that cannot start, or ``PAGER=cat``,
    just prints.
    """
    import io
    import shutil

    from rich.console import Console
    from rich.markdown import Markdown

    size = shutil.get_terminal_size()
    buf = io.StringIO()
    Console(file=buf, width=min(size.columns, READ_WIDTH), force_terminal=True).print(
        Markdown(markdown)
    )
    rendered = buf.getvalue()
    if not page or rendered.count("\n") < size.lines:
        sys.stdout.write(rendered)
        return
    command = os.environ.get("PAGER") or "less"
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    try:
        pager = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        sys.stdout.write(rendered)
        return
    assert pager.stdin is not None
    try:
        pager.stdin.write(rendered.encode("utf-8"))
        pager.stdin.close()
    except BrokenPipeError:
        pass  # the person quit the pager before the end: fine
    if pager.wait() == 127:  # the shell could not find the pager
        sys.stdout.write(rendered)
