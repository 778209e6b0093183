"""A tournament's pictures: the report, the live and final views, the report server.

They draw a tournament's results, so they sit on the tournament's layer
(docs/ARCHITECTURE.md, "Layers"), above the match; the pictures the play screen
and the replay pages use are :mod:`bidref.render`'s, below it.

- :mod:`.report`: a tournament as one HTML report, a replay page per match;
- :mod:`.views`: what `bidref tournament` shows on a terminal (rich renderables);
- :mod:`.tables`: the standings, pairs and workers as rich tables and plain
  exports (CSV, JSON);
- :mod:`.server`: the report served on 127.0.0.1, each replay made on demand.
"""
