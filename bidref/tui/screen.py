"""The play screen composed with rich, from one immutable :class:`ScreenModel`.

:func:`compose` is pure: the model plus the clock time ``now`` give the
renderable, so a snapshot test renders it with a fixed width and a fixed
``now``. :class:`LiveScreen` reads the clock each time rich redraws it, which
is how both clocks count live on the terminal.

A model whose ``hand`` is None shows no hand at all: that is what the screen
looks like during a hot-seat hand-over and while waiting for the other side.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from rich.columns import Columns
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

from ..render.layout import LayoutPicture
from ..rules import Action, Layout, Tile
from ..rules.clock import SECOND

NAMES = ("A", "B")
STYLE_FRESH = Style(color="black", bgcolor="green", bold=True)
READ_WIDTH = 100  # the widest a text to read (the rules, the help) is set


def player_name(p: int) -> str:
    return NAMES[p]


@dataclass(frozen=True, slots=True)
class Running:
    """A clock running for ``player`` since clock time ``since`` with ``delay_left`` ns
    of delay (then the bank) at that moment."""

    player: int
    since: int
    delay_left: int


@dataclass(frozen=True, slots=True)
class Clocks:
    """What the screen knows of the match clock (the referee keeps the real one)."""

    banks: tuple[int, int]
    delay: int
    running: Running | None = None

    def shown(self, player: int, now: int) -> tuple[int, int | None]:
        """(bank left, delay left or None when this player's clock is not running)."""
        r = self.running
        if r is None or r.player != player:
            return self.banks[player], None
        elapsed = max(0, now - r.since)
        delay_left = max(0, r.delay_left - elapsed)
        bank = max(0, self.banks[player] - max(0, elapsed - r.delay_left))
        return bank, delay_left

    def stopped(self, now: int) -> Clocks:
        """The clocks with the running one charged up to ``now`` and stopped."""
        r = self.running
        if r is None:
            return self
        bank, _ = self.shown(r.player, now)
        banks = (bank, self.banks[1]) if r.player == 0 else (self.banks[0], bank)
        return Clocks(banks, self.delay, None)


def fmt_time(ns: int) -> str:
    """Time left as m:ss.t, e.g. ``1:58.3``; under a minute ``42.0 s``."""
    tenths = max(0, ns) * 10 // SECOND
    minutes, rest = divmod(tenths, 600)
    if minutes:
        return f"{minutes}:{rest // 10:02d}.{rest % 10}"
    return f"{rest // 10}.{rest % 10} s"


@dataclass(frozen=True, slots=True)
class TableView:
    """The match's public state, as the screen shows it."""

    balances: tuple[int, int] = (150, 150)
    round: int = 0
    turn: int = 0
    drawn: int = 0  # tiles the player to act has drawn in this turn
    phase: str = ""
    layout: Layout = field(default_factory=Layout)
    last: Tile | None = None
    hand_sizes: tuple[int, int] | None = None
    boneyard: int | None = None
    auction: str = ""
    to_act: int | None = None
    log: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class OwnView:
    """Whose screen this is and the hand it may show (None: hands hidden)."""

    viewer: int | None = None
    hand: tuple[Tile, ...] | None = None
    fresh: tuple[Tile, ...] = ()  # tiles of ``hand`` just drawn (highlighted)


@dataclass(frozen=True, slots=True)
class AskView:
    """What the screen says and asks now."""

    legal: tuple[Action, ...] = ()
    message: str = ""
    message_style: str = "bold red"
    prompt: str | None = None  # the input line; None: no input wanted now
    overlay: RenderableType | None = None  # replaces the layout (rules help, hand-over)
    footer: str = ""
    notice: RenderableType | None = None  # shown above the layout (the round's count)


_PARTS: dict[str, str] = {
    **{f.name: "table" for f in fields(TableView)},
    **{f.name: "own" for f in fields(OwnView)},
    **{f.name: "ask" for f in fields(AskView)},
}


@dataclass(frozen=True, slots=True)
class ScreenModel:
    """Everything one drawing of the play screen shows, besides the time."""

    names: tuple[str, str]
    clocks: Clocks
    table: TableView = field(default_factory=TableView)
    own: OwnView = field(default_factory=OwnView)
    ask: AskView = field(default_factory=AskView)

    def but(self, **changes: Any) -> ScreenModel:
        """This model with some fields changed, each named as itself (``hand=``,
        ``legal=``, ``clocks=``), whichever part holds it."""
        top: dict[str, Any] = {}
        parts: dict[str, dict[str, Any]] = {}
        for k, v in changes.items():
            part = _PARTS.get(k)
            if part is None:
                top[k] = v
            else:
                parts.setdefault(part, {})[k] = v
        for part, ch in parts.items():
            top[part] = replace(getattr(self, part), **ch)
        return replace(self, **top)


def _clock_table(m: ScreenModel, now: int) -> Table:
    t = Table.grid(padding=(0, 2))
    for _ in range(5):
        t.add_column()
    for p in (0, 1):
        bank, delay_left = m.clocks.shown(p, now)
        who = Text(f"{player_name(p)} {m.names[p]}", style="bold")
        if m.own.viewer == p:
            who.append(" (you)", style="bold cyan")
        bal = Text(f"{m.table.balances[p]:>3} points")
        clock = Text(f"bank {fmt_time(bank)}")
        if delay_left is not None:
            clock = Text(
                f"delay {fmt_time(delay_left)} + bank {fmt_time(bank)}",
                style="bold green" if delay_left or bank > 10 * SECOND else "bold red",
            )
        state = Text("")
        if delay_left is not None:
            state = Text("◀ clock running", style="bold yellow")
        elif m.table.to_act == p:
            state = Text("◀ to act", style="yellow")
        sizes = ""
        if m.table.hand_sizes is not None:
            n = m.table.hand_sizes[p]
            sizes = f"{n} tile{'s' if n != 1 else ''}"
        t.add_row(who, bal, clock, Text(sizes, style="dim"), state)
    if m.clocks.running is None:
        t.add_row(Text("clocks stopped", style="dim"), "", "", "", "")
    return t


def _hand(m: ScreenModel) -> Text:
    if m.own.hand is None or m.own.viewer is None:
        return Text("(hands hidden)", style="dim")
    line = Text(f"{player_name(m.own.viewer)}'s hand: ", style="bold")
    for t in m.own.hand:
        line.append(f"[{t.low}|{t.high}]", style=STYLE_FRESH if t in m.own.fresh else "bold cyan")
        line.append(" ")
    if not m.own.hand:
        line.append("(empty)", style="dim")
    fresh = [t for t in m.own.fresh if t in m.own.hand]
    if fresh:
        drawn = " ".join(f"[{t.low}|{t.high}]" for t in fresh)
        line.append(f" ← you drew {drawn}", style="bold green")
    return line


def _legal(m: ScreenModel) -> RenderableType:
    items = [
        Text.assemble((f"{i:>2}", "bold magenta"), " ", str(a))
        for i, a in enumerate(m.ask.legal, 1)
    ]
    return Columns(items, padding=(0, 3), column_first=True)


def _parts(
    m: ScreenModel, now: int, level: int = 0
) -> tuple[list[RenderableType], RenderableType, list[RenderableType]]:
    """The screen as (top, picture, bottom). ``level`` 0 is the full screen; higher
    levels drop what a short terminal can spare (log lines, the layout's frame and
    legend, the caption of the legal actions)."""
    head = Text(f"Spectacular Bid · round {m.table.round}", style="bold")
    if m.table.turn:
        head.append(
            f" · turn {m.table.turn}" + (f" (drew {m.table.drawn})" if m.table.drawn else "")
        )
    if m.table.phase:
        head.append(f" · {m.table.phase}")
    if m.table.boneyard is not None:
        head.append(f" · boneyard {m.table.boneyard}", style="dim")
    if m.table.auction:
        head.append(f" · {m.table.auction}", style="dim")
    top: list[RenderableType] = [head, _clock_table(m, now)]
    if m.ask.notice is not None:
        top.append(m.ask.notice)
    picture: RenderableType
    if m.ask.overlay is not None:
        picture = m.ask.overlay
    elif level == 0:
        picture = Panel(
            LayoutPicture(m.table.layout, last=m.table.last),
            title="layout",
            title_align="left",
            border_style="dim",
        )
    else:
        picture = LayoutPicture(m.table.layout, last=m.table.last, legend=level < 2)
    bottom: list[RenderableType] = [_hand(m)]
    if m.ask.legal and m.ask.overlay is None:
        if level == 0:
            bottom.append(
                Text(
                    "Legal actions (type the number, the action, or a unique "
                    "start; Tab completes):",
                    style="dim",
                )
            )
        bottom.append(_legal(m))
    log_lines = (4, 2, 0)[min(level, 2)]
    if m.table.log and log_lines:
        bottom.append(Text("\n".join(m.table.log[-log_lines:]), style="dim"))
    if m.ask.message:
        bottom.append(Text(m.ask.message, style=m.ask.message_style))
    if m.ask.prompt is not None:
        bottom.append(Text.assemble(("> ", "bold"), m.ask.prompt, ("█", "blink")))
    if m.ask.footer:
        bottom.append(Text(m.ask.footer, style="dim"))
    return top, picture, bottom


def compose(m: ScreenModel, now: int, level: int = 0) -> RenderableType:
    """The whole screen for model ``m`` at clock time ``now``."""
    top, picture, bottom = _parts(m, now, level)
    return Group(*top, picture, *bottom)


class _Lines:
    """Already rendered lines, as a renderable."""

    def __init__(self, lines: list[list[Segment]]) -> None:
        self.lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines:
            yield from line
            yield Segment.line()


class Scroll:
    """A long text shown in a window of the screen that the person scrolls (the
    rules, the help), as a pager does.

    The session moves :attr:`top`; the screen, which alone knows how many rows
    are free, shows the window from there and writes back what it could show
    (:attr:`page`, :attr:`total`) so that PgDn moves by one window of this
    terminal. ``anchor``: text of a line to start at (a section's title), found
    at the first drawing. The rendered lines are kept per width: a redraw four
    times a second does not render Markdown again.
    """

    def __init__(self, body: RenderableType, plain: str, anchor: str | None = None) -> None:
        self.body = body
        self.plain = plain  # the text itself (for tests and logs)
        self.anchor = anchor
        self.top = 0
        self.page = 10
        self.total = 0
        self._cache: tuple[int, list[list[Segment]]] | None = None

    def scroll(self, key: str) -> None:
        """Move for a navigation key (``up``, ``down``, ``pgup``, ``pgdn``, ``home``,
        ``end``); the window is kept inside the text at the next drawing."""
        step = {"up": -1, "down": 1, "pgup": -self.page, "pgdn": self.page}
        if key == "home":
            self.top = 0
        elif key == "end":
            self.top = self.total
        elif key in step:
            self.top = max(0, min(self.top + step[key], max(0, self.total - self.page)))

    def window(self, console: Console, options: ConsoleOptions, rows: int) -> list[list[Segment]]:
        """The lines to show in ``rows`` rows: a window of the text and a status line."""
        width = options.max_width
        if self._cache is None or self._cache[0] != width:
            # (lines longer than about 100 columns are hard to read: a wide terminal
            # leaves the rest of the row empty)
            text_options = options.update(height=None, width=min(width, READ_WIDTH))
            lines = console.render_lines(self.body, text_options, pad=False)
            self._cache = (width, lines)
        lines = self._cache[1]
        if self.anchor is not None:
            for i, line in enumerate(lines):
                if self.anchor in "".join(seg.text for seg in line):
                    self.top = i
                    break
            self.anchor = None
        page = max(1, rows - 1)
        self.page, self.total = page, len(lines)
        if len(lines) <= rows:
            self.top = 0
            return lines
        self.top = max(0, min(self.top, len(lines) - page))
        shown = lines[self.top : self.top + page]
        status = (
            f"lines {self.top + 1}–{self.top + len(shown)} of {len(lines)} · "
            "↑ ↓ PgUp PgDn Home End scroll · q or Esc closes"
        )
        return [*shown, [Segment(status[:width], Style(color="magenta", bold=True))]]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """Without a height to fit (e.g. a snapshot): the whole text."""
        yield self.body


def fit(m: ScreenModel, now: int, console: Console, options: ConsoleOptions) -> RenderableType:
    """The screen for ``m`` made to fit the terminal's height: the prompt and the
    hand always show; the layout (or the text shown instead of it) gives way. A
    :class:`Scroll` shown instead of the layout gets the rows that are free."""
    height = options.height or console.size.height
    free = options.update(height=None)

    def rows(*parts: RenderableType) -> list[list[Segment]]:
        return console.render_lines(Group(*parts), free, pad=False)

    if isinstance(m.ask.overlay, Scroll):
        top, _, bottom = _parts(m, now, 2)  # no log lines: the text gets the room
        room = max(3, height - len(rows(*top, *bottom)))
        return Group(*top, _Lines(m.ask.overlay.window(console, free, room)), *bottom)
    for level in (0, 1, 2):
        top, picture, bottom = _parts(m, now, level)
        lines = rows(*top, picture, *bottom)
        if len(lines) <= height:
            return _Lines(lines)  # rendered once: measured and shown
    room = max(1, height - len(rows(*top, *bottom)))
    lines = rows(picture)
    if len(lines) > room:
        lines = [
            *lines[: room - 1],
            [Segment("… (a taller terminal shows all of this)", Style(dim=True))],
        ]
    return Group(*top, _Lines(lines), *bottom)


class LiveScreen:
    """A renderable that composes ``model`` at the clock time of each redraw,
    fitted to the terminal's height."""

    def __init__(self, model: ScreenModel, clock: Callable[[], int]) -> None:
        self.model = model
        self.clock = clock

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield fit(self.model, self.clock(), console, options)
