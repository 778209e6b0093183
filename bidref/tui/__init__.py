"""The terminal face of `bidref play`.

- :mod:`.screen`: the play screen as a pure composition of rich renderables
  (:func:`~.screen.compose`, :func:`~.screen.fit` for the terminal's height).
- :mod:`.keys`: keys read against an absolute deadline, and the line editor.
- :mod:`.state`: what the screen knows — the public table, each human's hand,
  the clocks and message — composed into one :class:`~.screen.ScreenModel`.
- :mod:`.reader`: typed keys fed to line editors one event at a time.
- :mod:`.session`: the terminal shared by the human seats of one match — what
  may be shown to whom, the hot-seat hand-over, Start/Continue pauses, input.
- :mod:`.live`: the real display (rich ``Live`` on the alternate screen).
"""
