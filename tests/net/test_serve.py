"""`bidref connect`'s loop over matches (serve), with stand-in bridges."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from bidref.net.client import Bridge, BridgeResult, serve


class _Stub:
    """A bridge that ends as told (what a real one returns, see test_tournament_e2e)."""

    def __init__(self, result: BridgeResult, log: list[BridgeResult]) -> None:
        self.result = result
        self.log = log

    def run(self) -> BridgeResult:
        self.log.append(self.result)
        return self.result


def bridges(*results: BridgeResult) -> tuple[list[BridgeResult], Callable[[], Bridge]]:
    ran: list[BridgeResult] = []
    queue = list(results)

    def new() -> Bridge:
        return cast(Bridge, _Stub(queue.pop(0), ran))

    return ran, new


NEXT = BridgeResult("next_match", "the match is over", 1)
OVER_IN_LOBBY = BridgeResult("match_over", "the tournament is over", 0)


def test_it_plays_match_after_match_until_the_tournament_is_over() -> None:
    ran, new = bridges(NEXT, NEXT, NEXT, OVER_IN_LOBBY)
    said: list[str] = []
    result, matches = serve(new, status=said.append)
    assert (result, matches) == (OVER_IN_LOBBY, 3) and len(ran) == 4
    assert said[0] == "match 1 over; a fresh engine waits for the next one"


def test_a_single_match_ends_it_as_before() -> None:
    one = BridgeResult("match_over", "the match is over", 1)  # bidref match's 4000
    ran, new = bridges(one, NEXT)
    assert serve(new) == (one, 1) and len(ran) == 1


def test_once_stops_after_the_first_match_and_a_loss_stops_at_once() -> None:
    ran, new = bridges(NEXT, NEXT)
    assert serve(new, once=True) == (NEXT, 1) and len(ran) == 1
    lost = BridgeResult("replaced", "another client took the seat", 1)
    ran, new = bridges(NEXT, lost, NEXT)
    assert serve(new) == (lost, 1) and len(ran) == 2
