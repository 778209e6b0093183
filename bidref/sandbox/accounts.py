"""The jails' own accounts: a pool of uids, one per running jail, used when the
referee is root.

The uids come from a high range that no login uses (61400-61499, below
Debian's 65534 ``nobody`` and above its dynamic-user range); uids with an entry
in the password database, and the referee's own, are never taken. A jail
*leases* a uid for its lifetime: the lease is an exclusive ``flock`` on
``/run/bidref-accounts/UID`` (a root-only folder), so no two running jails share
an account, whether they belong to one match, one tournament with ``-j`` or
several referees on the machine; the kernel drops the lock when the lease is
closed or its holder dies. No supplementary groups; the gid is the uid.

When a lease is returned, the account's kernel keys are cleared (its user and
user-session keyrings, which outlive its processes), so nothing an engine left
there reaches the next jail of that uid (the jail's system-call filter refuses
the key calls in the first place: :mod:`.seccomp`).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import itertools
import os
import platform
import pwd
import stat
from pathlib import Path
from typing import Final

FIRST: Final = 61400
LAST: Final = 61499
LOCKS: Final = Path("/run/bidref-accounts")

_KEYCTL: Final = {"x86_64": 250, "aarch64": 219}.get(platform.machine())
_KEYCTL_JOIN_SESSION_KEYRING: Final = 1
_KEYCTL_CLEAR: Final = 7
_KEY_SPEC_USER_KEYRING: Final = -4
_KEY_SPEC_USER_SESSION_KEYRING: Final = -5
_start = itertools.count(os.getpid() * 7)


class Lease:
    """One uid, held until :meth:`close`."""

    def __init__(self, uid: int, fd: int) -> None:
        self.uid = uid
        self._fd: int | None = fd

    def close(self) -> None:
        """Clear the account's kernel keys, then give the uid back."""
        if self._fd is None:
            return
        clear_keys(self.uid)
        os.close(self._fd)
        self._fd = None


def _candidates() -> list[int]:
    own = os.getuid()
    out = []
    for uid in range(FIRST, LAST + 1):
        if uid == own:
            continue
        try:
            pwd.getpwuid(uid)
        except KeyError:
            out.append(uid)
    return out


def lease() -> Lease:
    """A uid no other running jail has (see the module docstring); raises
    OSError when all are taken."""
    LOCKS.mkdir(mode=0o700, exist_ok=True)
    if LOCKS.stat().st_uid != 0 or stat.S_IMODE(LOCKS.stat().st_mode) & 0o077:
        raise OSError(f"{LOCKS} must be a folder of root's, closed to others (mode 0700)")
    uids = _candidates()
    if not uids:
        raise OSError(f"no free uid in {FIRST}-{LAST} for the jails' own accounts")
    first = next(_start) % len(uids)  # spread: the next jail takes another uid
    for uid in uids[first:] + uids[:first]:
        fd = os.open(LOCKS / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return Lease(uid, fd)
    raise OSError(
        f"all {len(uids)} accounts of {FIRST}-{LAST} are in use by running jails; "
        "run fewer matches at once"
    )


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - no C library
        return None


_LIBC = _libc()


def new_session_keyring() -> None:
    """In a starting jail's process (before exec): a new, empty session keyring,
    so that the jail holds none of the referee's keys."""
    if _LIBC is not None and _KEYCTL is not None:
        _LIBC.syscall(_KEYCTL, _KEYCTL_JOIN_SESSION_KEYRING, None)


def clear_keys(uid: int) -> None:
    """Clear ``uid``'s user and user-session keyrings (as root): in a forked
    child that becomes ``uid`` (a keyring is reached as its owner)."""
    if _LIBC is None or _KEYCTL is None or os.geteuid() != 0:
        return
    libc, nr = _LIBC, _KEYCTL
    pid = os.fork()
    if pid == 0:  # the child: plain system calls only, then _exit
        code = 1
        with contextlib.suppress(BaseException):
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for ring in (_KEY_SPEC_USER_KEYRING, _KEY_SPEC_USER_SESSION_KEYRING):
                libc.syscall(nr, _KEYCTL_CLEAR, ring)
            code = 0
        os._exit(code)
    os.waitpid(pid, 0)


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
