"""One round rebuilt from the public lines: a :class:`~bidref.rules.Match` when its
deal is revealed (both hands, every drawn tile, the legal actions), else a bare
:class:`~bidref.rules.Layout` with the hands face down."""

from __future__ import annotations

from ...rules import (
    Action,
    Deal,
    Drew,
    Layout,
    Match,
    MatchConfig,
    Open,
    Point,
    RulesError,
    Tile,
    play,
)


class Round:
    """One round being rebuilt: a Match when its deal is known, else a bare Layout."""

    def __init__(
        self, number: int, deal: Deal | None, balances: tuple[int, int], jockey: int | None
    ) -> None:
        self.number = number
        self.match: Match | None = None
        if deal is not None:
            try:
                config = MatchConfig(start_balances=balances, first_jockey=jockey, max_rounds=1)
                self.match = Match.from_deal(deal, config)
            except RulesError:
                self.match = None
        self.layout = Layout()  # the public layout, rebuilt from the placements
        self.sizes = [7, 7]
        self.boneyard = 14
        self.auction: list[tuple[int, str]] = []
        self.bid: int | None = None
        self.bidder: int | None = None
        self.payment: str | None = None
        self.jockey = jockey
        self.last: Tile | None = None

    def hands(self) -> tuple[list[Tile] | None, list[Tile] | None]:
        if self.match is None:
            return (None, None)
        return (list(self.match.hands[0]), list(self.match.hands[1]))

    def apply(self, player: int, action: Action) -> tuple[str | None, Tile | None]:
        """Apply ``action`` to the known hands; (a note if the rules disagree, a drawn tile)."""
        if self.match is None:
            return None, None
        try:
            events = self.match.apply(action, player)
        except RulesError as e:
            self.match = None  # go on from the public facts alone
            return f"the rules do not allow this here ({e}); hands are no longer shown", None
        for ev in events:
            if isinstance(ev, Drew):
                return None, ev.tile
        return None, None

    def place(self, player: int, t: Tile, p: Point | None) -> str | None:
        """Put ``t`` on the public layout at ``p`` (None: the opening)."""
        note = None
        if p is None:
            if self.layout.placed:
                note = f"[{t.low}|{t.high}] opens a round that is already open: left off the table"
            else:
                self.layout.open_tile(t)
            n2, _ = self.apply(player, Open(t))
            note = note or n2
        else:
            if p in self.layout.open_points and t.has(p.value) and t not in self.layout.placed:
                self.layout.place(t, p)
            else:
                note = (
                    f"[{t.low}|{t.high}] cannot go at {p.words} (not an open point of this "
                    "layout): it is left off the table"
                )
            n2, _ = self.apply(player, play(t, p))  # the rules judge it all the same
            note = note or n2
        self.sizes[player] -= 1
        self.last = t
        return note
