"""Match transcripts (JSONL). The format is documented in ``protocols/transcript.md``.

:mod:`.writer` writes them as the referee plays; readers and replay build on the
same format (``commitment`` is how a verifier checks a revealed deal or seed).
"""

from .writer import (
    FORMAT,
    SaltSource,
    TranscriptWriter,
    canonical_json,
    commitment,
    counter_salt,
    default_salt,
)

__all__ = [
    "FORMAT",
    "SaltSource",
    "TranscriptWriter",
    "canonical_json",
    "commitment",
    "counter_salt",
    "default_salt",
]
