"""A private copy of an engine's folder, for a jail whose account may not read
the folder itself (a folder made under ``umask 077``, a tournament worker's
cache): the copy belongs to the jail's account, is bound read-only at the
folder's own path, and is removed when the jail closes. bidref never changes
the mode or owner of a folder it did not make.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from .policy import SandboxError


def make(folder: str, uid: int, limit: int) -> str:
    """Copy ``folder`` (regular files, folders and symbolic links as links; no
    devices, sockets or pipes) for ``uid``; refuse one larger than ``limit``."""
    total = 0
    for top, _dirs, files in os.walk(folder):
        for name in files:
            st = os.lstat(os.path.join(top, name))
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
        if total > limit:
            raise SandboxError(
                f"the engine's folder {folder!r} is closed to the jails' own accounts and "
                f"larger than {limit >> 20} MiB to copy: `chmod o+rx {folder}` (and its "
                "files o+r)"
            )
    base = tempfile.mkdtemp(prefix="bidref-copy-")  # 0700, root's: the way in
    os.chmod(base, 0o711)
    dest = os.path.join(base, "folder")

    def only_plain(src: str, names: list[str]) -> set[str]:
        out = set()
        for n in names:
            mode = os.lstat(os.path.join(src, n)).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                out.add(n)
        return out

    try:
        shutil.copytree(folder, dest, symlinks=True, ignore=only_plain)
        for top, dirs, files in os.walk(dest):
            for name in [*dirs, *files]:
                p = os.path.join(top, name)
                os.lchown(p, uid, uid)
                if not os.path.islink(p):
                    mode = os.lstat(p).st_mode
                    os.chmod(p, (stat.S_IMODE(mode) & 0o700) | 0o400 | (mode & 0o100))
                    if os.path.isdir(p):
                        os.chmod(p, 0o700)
        os.chown(dest, uid, uid)
        os.chmod(dest, 0o711)  # (bubblewrap, with no capabilities left, enters it)
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise
    return dest


def remove(path: str) -> None:
    shutil.rmtree(Path(path).parent, ignore_errors=True)
