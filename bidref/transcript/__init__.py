"""Match transcripts (JSONL). The format is documented in ``protocols/transcript.md``.

:mod:`.lines` has one typed model per line type; :mod:`.writer` writes them as
the referee plays; :mod:`.reader` and :mod:`.replay` read and verify them
(``commitment`` is how a verifier checks a revealed deal or seed); :mod:`.files`
reads and writes ``.gz`` and ``.zst`` files transparently.
"""

from .lines import FORMAT, FORMAT_V1, FORMATS
from .writer import (
    SaltSource,
    TranscriptWriter,
    canonical_json,
    commitment,
    counter_salt,
    default_salt,
)

__all__ = [
    "FORMAT",
    "FORMATS",
    "FORMAT_V1",
    "SaltSource",
    "TranscriptWriter",
    "canonical_json",
    "commitment",
    "counter_salt",
    "default_salt",
]
