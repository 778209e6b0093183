"""Seat tokens: one fresh random secret per network seat and match.

A token is what lets a remote engine take (or take back) its seat; whoever
holds it can play the seat, so it is shown only to the person running the
referee (and written to ``--connect-info``) and never to the transcript. It is
compared in constant time, so that the time a refusal takes says nothing about
how much of a guess was right.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any, Final

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


def write_connect_info(path: Path, info: dict[str, Any]) -> None:
    """Write ``info`` (``--connect-info``: it holds tokens) as JSON, readable by
    its owner only, and atomically, so that a script polling for it never reads half."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(info, f)
        f.write("\n")
    os.replace(tmp, path)


def connect_hint(who: str, url: str, token: str) -> str:
    """What the referee prints for a listening seat: its URL and token, and the
    command for the engine's machine with the token in the environment, not on
    the command line, where every user of that machine sees it in ``ps``."""
    return (
        f"{who} waits for a remote engine: {url}  token {token}\n"
        f"  on the engine's machine: BIDREF_TOKEN={token} bidref connect {url} -- ENGINE\n"
        "  (or --token-file FILE with the token in FILE; not --token, which others see in ps)"
    )
