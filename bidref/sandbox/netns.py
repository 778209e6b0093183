"""A network namespace with no network at all, loopback included.

bubblewrap's ``--unshare-net`` always brings the loopback of the namespace it
makes up, so an engine could still talk to itself over 127.0.0.1. As root the
referee makes each jail's namespace itself: a new one per engine, which the
engine's starting process enters before bubblewrap runs (``setns``). Its
loopback is never brought up: every connection fails with "Network is
unreachable". Without root bubblewrap makes it (a loopback of its own, which
leads nowhere: docs/match.md "Containment").
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from collections.abc import Callable

CLONE_NEWNET = 0x40000000


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def make() -> int:
    """An open descriptor of a new network namespace (needs CAP_SYS_ADMIN).

    ``unshare`` moves only the calling thread, so it runs on a thread of its
    own that ends at once; the descriptor keeps the namespace until closed.
    Raises :class:`OSError` where the kernel refuses.
    """
    got: dict[str, int] = {}

    def run() -> None:
        if _libc().unshare(CLONE_NEWNET) != 0:
            got["errno"] = ctypes.get_errno()
            return
        got["fd"] = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)

    thread = threading.Thread(target=run, name="bidref-netns", daemon=True)
    thread.start()
    thread.join()
    if "fd" not in got:
        errno = got.get("errno", 0)
        raise OSError(errno, f"cannot make a network namespace: {os.strerror(errno)}")
    return got["fd"]


def entering(fd: int) -> Callable[[], None]:
    """What the starting child calls before exec to move into the namespace
    ``fd`` (libc is looked up now, in the referee). It raises, and the start
    fails, rather than run the engine on the host's network."""
    setns = _libc().setns

    def enter() -> None:
        if setns(fd, CLONE_NEWNET) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"cannot enter the jail's network namespace: {os.strerror(errno)}")

    return enter


def close(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)
