"""Seat tokens: one fresh random secret per network seat and match.

A token is what lets a remote engine take (or take back) its seat; whoever
holds it can play the seat, so it is shown only to the person running the
referee (and written to ``--connect-info``) and never to the transcript. It is
compared in constant time, so that the time a refusal takes says nothing about
how much of a guess was right.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Final

TOKEN_BYTES: Final = 24  # 192 random bits: 32 URL-safe characters


def new_token() -> str:
    """A fresh token (URL-safe text), e.g. ``'kq3…'`` (32 characters)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_matches(given: object, expected: str) -> bool:
    """True when ``given`` is exactly ``expected``; constant time in its content.

    >>> token_matches("abc", "abc"), token_matches("abd", "abc"), token_matches(3, "abc")
    (True, False, False)
    """
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode())
