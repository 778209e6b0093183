"""Never answers again after an illegal error (the request stays pending)."""

from _base import play

play(name="ignores_errors", answer_errors=False)
