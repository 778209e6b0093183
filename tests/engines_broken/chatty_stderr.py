"""A correct engine that writes a lot to stderr (far more than a pipe holds)."""

import sys

from _base import play


def chatter(req: dict) -> None:  # type: ignore[type-arg]
    for i in range(3000):
        sys.stderr.write(f"debug {req['id']}.{i}: considering {req['legal']}\n")
    sys.stderr.flush()


play(name="chatty_stderr", on_request=chatter)
