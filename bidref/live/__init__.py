"""Watching a tournament live: its folder read as it grows, served to a browser.

- :mod:`.tail` reads a transcript (plain or compressed) as the referee writes it;
- :mod:`.board` folds a transcript's *public* lines into what a spectator sees;
- :mod:`.watch` reads a tournament's folder (results and running transcripts) into
  one snapshot;
- :mod:`.server` serves the page and its updates (server-sent events) on 127.0.0.1.

Nothing here writes into the tournament's folder or talks to the runner: the
referee already flushes every transcript line at once and the runner appends
every record at once, so the folder *is* the live state (see docs/tournament.md,
"Watching live").
"""
