"""Spectacular Bid for reinforcement learning: a PettingZoo AEC environment.

``bidref.env.env()`` (also ``aec_env()``; ``raw_env()`` without wrappers) needs
the ``rl`` extra (``pip install 'bidref[rl]'``); the action enumeration
(:mod:`bidref.env.actions`) needs nothing beyond the rules. docs/env.md has the
action and observation tables, the reward and a training loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .aec import AGENTS as AGENTS
    from .aec import SpectacularBidEnv as SpectacularBidEnv
    from .aec import aec_env as aec_env
    from .aec import env as env
    from .aec import raw_env as raw_env
    from .errors import EnvOptionError as EnvOptionError

_NAMES = ("AGENTS", "EnvOptionError", "SpectacularBidEnv", "aec_env", "env", "raw_env")


def __getattr__(name: str) -> Any:
    # Imported on first use, so that bidref.env.actions (which the OpenSpiel game
    # uses) does not pull in PettingZoo.
    if name == "EnvOptionError":
        from .errors import EnvOptionError

        return EnvOptionError
    if name not in _NAMES:
        raise AttributeError(f"module 'bidref.env' has no attribute {name!r}")
    from .errors import MissingExtraError

    try:
        from . import aec
    except ModuleNotFoundError as e:
        raise MissingExtraError(
            f"bidref.env needs {e.name}, from the rl extra: pip install 'bidref[rl]'"
        ) from e
    return getattr(aec, name)


__all__ = list(_NAMES)
