"""Typed entries resolved against the legal actions (numbers, notation variants,
unique starts, tiles alone, commands) and Tab completion."""

from __future__ import annotations

import pytest

from bidref.rules import Action, parse_action, parse_tile
from bidref.tui.entry import Chosen, Command, Problem, complete, resolve


def acts(*texts: str) -> list[Action]:
    return [parse_action(t) for t in texts]


AUCTION = acts("decline", "bid 15", "bid 20", "bid 25")
PLAY = acts("play 1-3 1-1:branch_a", "play 1-3 1-1:branch_b", "play 2-6 6-6:line_b")
HAND = tuple(parse_tile(t) for t in ("1-3", "2-6", "5-5"))


@pytest.mark.parametrize(
    ("text", "legal", "expected"),
    [
        ("1", AUCTION, "decline"),
        ("4", AUCTION, "bid 25"),
        (" 2 ", AUCTION, "bid 15"),
        ("de", AUCTION, "decline"),
        ("raise 20", AUCTION, "bid 20"),
        ("BID 25", AUCTION, "bid 25"),
        ("play [1|3] at [1|1] branch B", PLAY, "play 1-3 1-1:branch_b"),
        ("31 at 11 ba", PLAY, "play 1-3 1-1:branch_a"),
        ("2-6", PLAY, "play 2-6 6-6:line_b"),
        ("62", PLAY, "play 2-6 6-6:line_b"),  # two digits beyond the list: a tile
        ("play 2-6", PLAY, "play 2-6 6-6:line_b"),
        ("play 2", PLAY, "play 2-6 6-6:line_b"),  # a unique start
        ("3", PLAY, "play 2-6 6-6:line_b"),
        # a tile and the tile it joins, without the side, when one side takes it
        # (issue 35, item 7)
        ("26 at 66", PLAY, "play 2-6 6-6:line_b"),
        ("play 2-6 at 6-6", PLAY, "play 2-6 6-6:line_b"),
        ("[2|6] at [6|6]", PLAY, "play 2-6 6-6:line_b"),
    ],
)
def test_entries_that_name_one_legal_action(text: str, legal: list[Action], expected: str) -> None:
    assert resolve(text, legal, HAND) == Chosen(parse_action(expected))


@pytest.mark.parametrize(
    ("text", "legal", "says"),
    [
        ("", AUCTION, "type an action"),
        ("9", AUCTION, "no action number 9; the list goes from 1 to 4"),
        ("bid", AUCTION, "'bid' could be: bid 15, bid 20, bid 25"),
        ("bid 30", AUCTION, "bids now go from 15 to 25"),
        ("bid 17", AUCTION, "bids now go from 15 to 25"),
        ("accept", AUCTION, "the auction is on"),
        ("draw", PLAY, "you may play 1-3"),
        ("1-3", PLAY, "1-3 can go to more than one place"),
        ("play 1", PLAY, "could be: play 1-3 1-1:branch_a, play 1-3 1-1:branch_b"),
        ("5-5", PLAY, "5-5 cannot be placed now"),
        ("4-4", PLAY, "you do not hold 4-4"),
        ("play 4-4 1-1:line_a", PLAY, "you do not hold 4-4"),
        ("play 1-3 6-6:line_a", PLAY, "1-3 can go to: play 1-3 1-1:branch_a"),
        ("zz", PLAY, "'zz' is not an action"),
        ("bid 20", PLAY, "the auction is over"),
        ("13 at 11", PLAY, "1-3 fits 1-1 on more than one side: play 1-3 1-1:branch_a"),
        ("55 at 66", PLAY, "5-5 cannot be placed at 6-6 now"),
    ],
)
def test_entries_that_do_not_resolve_say_why(text: str, legal: list[Action], says: str) -> None:
    r = resolve(text, legal, HAND)
    assert isinstance(r, Problem)
    assert says in r.message


def test_commands() -> None:
    assert resolve("rules 7", AUCTION) == Command("rules", "7")
    assert resolve("Rules clock", AUCTION) == Command("rules", "clock")
    assert resolve("help", AUCTION) == Command("help")
    assert resolve("?", AUCTION) == Command("help")
    assert resolve("resign", AUCTION) == Command("resign")
    assert resolve("ru", AUCTION) == Command("rules")  # a unique start of a command


def test_tab_completion() -> None:
    assert complete("d", AUCTION) == "decline"
    assert complete("b", AUCTION) == "bid "
    assert complete("bid 2", AUCTION) == "bid 2"  # 20 or 25: nothing more is sure
    assert complete("play 1", PLAY) == "play 1-3 1-1:branch_"
    assert complete("play 2", PLAY) == "play 2-6 6-6:line_b"
    assert complete("x", PLAY) == "x"
    assert complete("ru", PLAY) == "rules"
