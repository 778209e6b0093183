"""Engines over the network: a seat that waits for a remote engine, and the bridge.

- :mod:`.framing`: the link (one ``bidref/1`` line per WebSocket message, plus
  auth/welcome), ``listen://`` addresses, close codes, the re-sent request's clock;
- :mod:`.tokens`: per-seat tokens, compared in constant time;
- :mod:`.seat`: :class:`NetworkSeat`, the referee's ``Seat`` for a remote engine;
- :mod:`.inbox`: what a seat received and has not handed to the referee yet, and its
  :class:`ConnectionNote` of each connect, disconnect, resume and refusal;
- :mod:`.remote_side`: what a seat knows of its client and the engine behind it
  (the pending request, the lines the client missed, its engine's exit);
- :mod:`.server`: the WebSocket server of a seat (authentication, caps);
- :mod:`.client`: :class:`Bridge`, behind ``bidref connect``;
- :mod:`.match_seats`: seats for ``bidref match`` with ``listen://`` engines;
- :mod:`.listener`: :class:`EngineListener`, a tournament engine's one address
  and token, handing each of its matches' seats to its client in turn.

See docs/network.md.
"""

from __future__ import annotations

from .framing import ListenAddress, NetSpecError, is_listen
from .inbox import ConnectionNote
from .seat import NetworkSeat

__all__ = ["ConnectionNote", "ListenAddress", "NetSpecError", "NetworkSeat", "is_listen"]
