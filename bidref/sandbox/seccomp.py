"""The jail's system-call filter: a policy as data, and the classic BPF program
bubblewrap loads for it (``bwrap --seccomp FD``).

The policy follows Docker's default profile in spirit: what an engine never
needs and a breakout or a covert channel would (kernel keys, mounts, new user
namespaces, namespaces entered, tracing the kernel, BPF, modules, kexec, the
clock, swap, io_uring, file handles, userfaultfd) fails with ``EPERM``;
``clone3`` fails with ``ENOSYS`` so that the C library falls back to ``clone``,
whose flags the filter can read (``CLONE_NEWUSER`` refused); and advisory file
locks (``flock``, ``fcntl`` ``F_SETLK``/``F_SETLKW``/``F_OFD_SETLK(W)``) succeed
at once and do nothing, so that a lock on a file both jails can see (the
read-only system, ``/etc/hostname``) carries no signal from one to the other.
Everything else is allowed.

Why our own builder (some 80 lines) rather than libseccomp: the program is a
pure function of the policy, tested without root, with no C library to find at
run time (the Python binding of libseccomp is not installable into a venv from
the package index in a maintained form), and the filter is small enough to read.
Only x86_64 and aarch64 are known; elsewhere :func:`program` returns None and
the jail has no filter (said on the start line; ``strict`` refuses).
"""

from __future__ import annotations

import errno
import os
import platform
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

# Actions (linux/seccomp.h)
RET_KILL_PROCESS: Final = 0x80000000
RET_ERRNO: Final = 0x00050000
RET_ALLOW: Final = 0x7FFF0000

# BPF opcodes (linux/filter.h)
_LD_W_ABS: Final = 0x20
_JEQ_K: Final = 0x15
_JGE_K: Final = 0x35
_JSET_K: Final = 0x45
_RET_K: Final = 0x06

# struct seccomp_data: nr (0), arch (4), instruction_pointer (8), args[6] (16...)
_NR: Final = 0
_ARCH: Final = 4


def _arg_low(i: int) -> int:
    return 16 + 8 * i  # the low 32 bits of args[i] (little-endian machines only)


CLONE_NEWUSER: Final = 0x10000000
X32_BIT: Final = 0x40000000
LOCK_COMMANDS: Final = (6, 7, 37, 38)  # F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW

# Refused with EPERM: never needed by an engine.
DENIED: Final = (
    # kernel keys: the referee's keyring, a channel that outlives the match
    "keyctl",
    "add_key",
    "request_key",
    # mounts and namespaces
    "mount",
    "umount2",
    "pivot_root",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "unshare",
    "setns",
    # the kernel itself
    "perf_event_open",
    "bpf",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "syslog",
    "acct",
    "reboot",
    "swapon",
    "swapoff",
    "quotactl",
    "quotactl_fd",
    "lookup_dcookie",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "vhangup",
    "iopl",
    "ioperm",
    "uselib",
    # file handles reach files outside the jail's mounts
    "open_by_handle_at",
    "name_to_handle_at",
    # userfaultfd and io_uring: the usual ways past other filters and into kernel bugs
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    # watching a shared system file's reads is a channel between jails
    "fanotify_init",
    "inotify_add_watch",
)

SYSCALLS: Final[Mapping[str, Mapping[str, int]]] = {
    "x86_64": {
        "keyctl": 250,
        "add_key": 248,
        "request_key": 249,
        "mount": 165,
        "umount2": 166,
        "pivot_root": 155,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "move_mount": 429,
        "open_tree": 428,
        "mount_setattr": 442,
        "unshare": 272,
        "setns": 308,
        "perf_event_open": 298,
        "bpf": 321,
        "init_module": 175,
        "finit_module": 313,
        "delete_module": 176,
        "kexec_load": 246,
        "kexec_file_load": 320,
        "syslog": 103,
        "acct": 163,
        "reboot": 169,
        "swapon": 167,
        "swapoff": 168,
        "quotactl": 179,
        "quotactl_fd": 443,
        "lookup_dcookie": 212,
        "settimeofday": 164,
        "clock_settime": 227,
        "clock_adjtime": 305,
        "adjtimex": 159,
        "vhangup": 153,
        "iopl": 172,
        "ioperm": 173,
        "uselib": 134,
        "open_by_handle_at": 304,
        "name_to_handle_at": 303,
        "userfaultfd": 323,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "fanotify_init": 300,
        "inotify_add_watch": 254,
        "clone": 56,
        "clone3": 435,
        "flock": 73,
        "fcntl": 72,
    },
    "aarch64": {
        "keyctl": 219,
        "add_key": 217,
        "request_key": 218,
        "mount": 40,
        "umount2": 39,
        "pivot_root": 41,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "move_mount": 429,
        "open_tree": 428,
        "mount_setattr": 442,
        "unshare": 97,
        "setns": 268,
        "perf_event_open": 241,
        "bpf": 280,
        "init_module": 105,
        "finit_module": 273,
        "delete_module": 106,
        "kexec_load": 104,
        "kexec_file_load": 294,
        "syslog": 116,
        "acct": 89,
        "reboot": 142,
        "swapon": 224,
        "swapoff": 225,
        "quotactl": 60,
        "quotactl_fd": 443,
        "lookup_dcookie": 18,
        "settimeofday": 170,
        "clock_settime": 112,
        "clock_adjtime": 266,
        "adjtimex": 171,
        "vhangup": 58,
        "open_by_handle_at": 265,
        "name_to_handle_at": 264,
        "userfaultfd": 282,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "fanotify_init": 262,
        "inotify_add_watch": 27,
        "clone": 220,
        "clone3": 435,
        "flock": 32,
        "fcntl": 25,
    },
}
AUDIT_ARCH: Final = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}


@dataclass(frozen=True)
class Policy:
    """What the filter does, as data (part of the jail's spec)."""

    denied: tuple[str, ...] = DENIED
    no_new_user_namespaces: bool = True  # clone with CLONE_NEWUSER; clone3 -> ENOSYS
    locks_do_nothing: bool = True  # flock and fcntl's lock commands succeed, doing nothing

    def describe(self) -> str:
        return f"seccomp ({len(self.denied)} calls refused, no new user namespaces, locks inert)"


DEFAULT: Final = Policy()


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def program(policy: Policy, arch: str | None = None) -> bytes | None:
    """The BPF program of ``policy`` for ``arch`` (default: this machine's), as
    the bytes of its ``struct sock_filter`` array; None on an unknown machine.

    >>> len(program(DEFAULT, "x86_64")) % 8, program(DEFAULT, "mips") is None
    (0, True)
    """
    arch = arch or platform.machine()
    table = SYSCALLS.get(arch)
    if table is None:
        return None
    eperm = RET_ERRNO | errno.EPERM
    out = [
        _insn(_LD_W_ABS, _ARCH),
        _insn(_JEQ_K, AUDIT_ARCH[arch], jt=1),
        _insn(_RET_K, RET_KILL_PROCESS),  # another ABI (i386 on x86_64): other numbers
        _insn(_LD_W_ABS, _NR),
    ]
    if arch == "x86_64":  # the x32 ABI: the same numbers with a high bit
        out += [_insn(_JGE_K, X32_BIT, jf=1), _insn(_RET_K, eperm)]
    for name in policy.denied:
        if name not in table:  # (no such call on this machine: iopl on aarch64)
            continue
        out += [_insn(_JEQ_K, table[name], jf=1), _insn(_RET_K, eperm)]
    if policy.no_new_user_namespaces:
        out += [_insn(_JEQ_K, table["clone3"], jf=1), _insn(_RET_K, RET_ERRNO | errno.ENOSYS)]
        out += [
            _insn(_JEQ_K, table["clone"], jf=4),
            _insn(_LD_W_ABS, _arg_low(0)),
            _insn(_JSET_K, CLONE_NEWUSER, jf=1),
            _insn(_RET_K, eperm),
            _insn(_RET_K, RET_ALLOW),
        ]
    if policy.locks_do_nothing:
        out += [_insn(_JEQ_K, table["flock"], jf=1), _insn(_RET_K, RET_ERRNO | 0)]
        n = len(LOCK_COMMANDS)
        out += [_insn(_JEQ_K, table["fcntl"], jf=n + 1), _insn(_LD_W_ABS, _arg_low(1))]
        out += [_insn(_JEQ_K, cmd, jt=n - i) for i, cmd in enumerate(LOCK_COMMANDS)]
        out += [_insn(_RET_K, RET_ALLOW), _insn(_RET_K, RET_ERRNO | 0)]
    out.append(_insn(_RET_K, RET_ALLOW))
    return b"".join(out)


def memfd(code: bytes) -> int:
    """A descriptor bubblewrap reads the program from (``--seccomp FD``), at offset 0;
    not inherited across exec unless passed on (the transports do)."""
    fd = os.memfd_create("bidref-seccomp", os.MFD_CLOEXEC)
    os.write(fd, code)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
