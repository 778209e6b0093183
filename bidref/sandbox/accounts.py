"""The seats' own accounts: two reserved uids, used when the referee is root.

The uids come from a high range that no login uses (61400-61499, below
Debian's 65534 ``nobody`` and above its dynamic-user range). The first two
with no entry in the password database are taken, never the referee's; seat A
gets the first, seat B the second, so the two engines of a match never share
an account (they cannot signal, trace or read each other, nor the referee's
files that others may not read). No supplementary groups; the gid is the uid.
"""

from __future__ import annotations

import functools
import os
import pwd
import stat
from pathlib import Path
from typing import Final

FIRST: Final = 61400
LAST: Final = 61499


@functools.cache
def reserved() -> tuple[int, int]:
    """The two uids of the seats (A, B)."""
    free: list[int] = []
    for uid in range(FIRST, LAST + 1):
        if uid == os.getuid():
            continue
        try:
            pwd.getpwuid(uid)
        except KeyError:
            free.append(uid)
            if len(free) == 2:
                return free[0], free[1]
    raise OSError(f"no two free uids in {FIRST}-{LAST} for the seats' own accounts")


def uid_of(seat: int) -> int:
    return reserved()[seat % 2]


def can(uid: int, path: Path, write: bool) -> bool:
    """Whether ``uid`` (no groups) may read (and write) ``path`` by its mode bits:
    the folder itself only (bubblewrap binds it; its parents are not walked)."""
    try:
        st = path.stat()
    except OSError:
        return False
    want = (stat.S_IRUSR | (stat.S_IWUSR if write else 0)) if st.st_uid == uid else 0
    if st.st_uid != uid:
        want = stat.S_IROTH | (stat.S_IWOTH if write else 0)
        if path.is_dir():
            want |= stat.S_IXOTH
    elif path.is_dir():
        want |= stat.S_IXUSR
    return st.st_mode & want == want
