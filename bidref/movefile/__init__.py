"""Move files: a game typed by hand (a score sheet) and its check.

:mod:`.parse` reads the file format (docs/replay.md, "Move files");
:mod:`.validate` plays it through the rules and gives the verdict behind
``bidref validate``.
"""
