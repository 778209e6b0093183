"""Spectacular Bid in OpenSpiel: importing this module registers the game
``python_spectacular_bid`` (needs the ``rl`` extra: ``pip install 'bidref[rl]'``).

>>> import pyspiel, bidref.openspiel
>>> game = pyspiel.load_game("python_spectacular_bid")
"""

from __future__ import annotations

from bidref.env.errors import MissingExtraError

try:
    import pyspiel
except ModuleNotFoundError as e:  # pragma: no cover (the rl extra is installed for the tests)
    raise MissingExtraError(
        f"bidref.openspiel needs {e.name}, from the rl extra: pip install 'bidref[rl]'"
    ) from e

from .game import GAME_TYPE, SHORT_NAME, SpectacularBidGame, SpectacularBidState

if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, SpectacularBidGame)

__all__ = ["SHORT_NAME", "SpectacularBidGame", "SpectacularBidState"]
