#!/usr/bin/env python3
"""A hostile engine (tests/sandbox): it plays legally, and at its first request
tries the attacks of issue 28 named in its hello option ``attacks``, reporting
each on stderr as ``ATTACK {"name": ..., "ok": true|false, "detail": ...}``
(``ok``: the attack worked). Then it ``resign``s, ``play``s on or ``exit``s
(option ``then``). The attacks of ``LETHAL`` end it instead: it runs into a
limit and dies of it (:func:`die`).

Every attack is bounded: at most 3 GiB, 300 children, 10,000 files, 200 MiB
written, and only 127.0.0.1. Options: ``victim`` (the victim's program),
``secret`` (a folder of the referee's to read), ``drop`` (a host folder to
write to), ``port`` (a TCP port on 127.0.0.1), ``abstract`` (an abstract unix
socket name), ``lethal`` (SIGKILL the victim rather than SIGSTOP+SIGCONT).
Standard library only.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import resource
import signal
import socket
import sys
import time
from typing import Any

MIB = 1 << 20


def report(name: str, ok: bool, detail: object = "") -> None:
    sys.stderr.write("ATTACK " + json.dumps({"name": name, "ok": ok, "detail": str(detail)}) + "\n")
    sys.stderr.flush()


def find_victim(program: str) -> int | None:
    """The process running ``program`` (this match's victim: the test's own copy),
    never a referee whose command line names it, nor another test's victim."""
    me = os.getpid()
    want = program.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        # its interpreter and then its program, or the program itself
        if args[:1] == [want] or args[1:2] == [want]:
            return int(name)
    return None


def attack(name: str, opts: dict[str, Any], hand: object) -> tuple[bool, object]:
    if name in ("signal", "mem", "ptrace", "autogroup"):
        pid = find_victim(opts["victim"])
        if pid is None:
            return False, "no victim in /proc"
        if name == "signal":
            if opts.get("lethal"):
                os.kill(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGSTOP)
                os.kill(pid, signal.SIGCONT)
            return True, pid
        if name == "mem":
            with open(f"/proc/{pid}/maps") as f:
                start = int(next(ln for ln in f if " rw-p " in ln).split("-")[0], 16)
            with open(f"/proc/{pid}/mem", "rb") as f:
                f.seek(start)
                return len(f.read(64)) == 64, hex(start)
        if name == "ptrace":
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.ptrace(16, pid, 0, 0) != 0:  # PTRACE_ATTACH
                return False, os.strerror(ctypes.get_errno())
            time.sleep(0.05)
            libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
            return True, pid
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write("19")
        return True, pid
    if name == "cpuset":
        n = os.cpu_count() or 1
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, range(n))
        burners = []
        for _ in range(4):  # 4 busy processes, 0.2 s each, in their own sessions
            pid = os.fork()
            if pid == 0:
                os.setsid()
                end = time.monotonic() + 0.2
                while time.monotonic() < end:
                    pass
                os._exit(0)
            burners.append(pid)
        for pid in burners:
            os.waitpid(pid, 0)
        cores = sorted(os.sched_getaffinity(0))
        return n > 1 and len(cores) == n, cores
    if name == "tamper":
        with open(opts["victim"], "ab"):
            return True, opts["victim"]
    if name == "plant":
        path = os.path.join(os.path.dirname(opts["victim"]), "planted-by-hostile")
        with open(path, "w") as f:
            f.write("x")
        return True, path
    if name == "secret":
        names = os.listdir(opts["secret"])
        for n in names:
            p = os.path.join(opts["secret"], n)
            if os.path.isfile(p):
                with open(p, "rb") as f:
                    return True, f"{n}: {f.read(40)!r}"
        return bool(names), names
    if name == "nofile":
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (10_000, 10_000))
        fds = []
        try:
            while len(fds) < 10_000:
                fds.append(os.open("/dev/null", os.O_RDONLY))
        except OSError as e:
            detail: object = f"{len(fds)} then {e.strerror}"
        else:
            detail = len(fds)
        for fd in fds:
            os.close(fd)
        return len(fds) >= 10_000 - 20, detail
    if name == "disk":
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        path = os.path.join(opts["drop"], "hostile-200M")
        written = 0
        chunk = b"\0" * MIB
        try:
            with open(path, "wb") as f:
                while written < 200 * MIB:
                    f.write(chunk)
                    written += MIB
                f.flush()
        except OSError as e:
            return False, f"{written // MIB} MiB then {e.strerror}"
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)
        return True, f"{written // MIB} MiB"
    if name == "tcp":
        with socket.create_connection(("127.0.0.1", int(opts["port"])), timeout=1):
            return True, opts["port"]
    if name == "collude":
        got = []
        with contextlib.suppress(OSError):
            with open(os.path.join(opts["drop"], "collude.txt"), "w") as f:
                f.write(json.dumps(hand))
            got.append("file")
        with contextlib.suppress(OSError):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(1)
            s.connect("\0" + opts["abstract"])
            s.sendall(json.dumps(hand).encode())
            s.close()
            got.append("abstract socket")
        return bool(got), got
    if name == "memory":
        held = []
        try:
            while len(held) < 48:  # 48 x 64 MiB = 3 GiB, every page touched
                held.append(b"\1" * (64 * MIB))
        except MemoryError:
            pass
        size = len(held) * 64
        del held
        return size >= 3072, f"{size} MiB"
    if name == "fork":
        kids = []
        try:
            while len(kids) < 300:
                pid = os.fork()
                if pid == 0:
                    time.sleep(3)
                    os._exit(0)
                kids.append(pid)
        except OSError as e:
            detail = f"{len(kids)} then {e.strerror}"
        else:
            detail = len(kids)
        for pid in kids:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        return len(kids) >= 300, detail
    return jail_attack(name, opts, hand)


def _syscall(*args: object) -> tuple[int, int]:
    libc = ctypes.CDLL(None, use_errno=True)
    r = int(libc.syscall(*args))
    return r, ctypes.get_errno()


_KEYCTL = {"x86_64": 250, "aarch64": 219}[os.uname().machine]
_ADD_KEY = {"x86_64": 248, "aarch64": 217}[os.uname().machine]
_UNSHARE = {"x86_64": 272, "aarch64": 97}[os.uname().machine]


def jail_attack(name: str, opts: dict[str, Any], hand: object) -> tuple[bool, object]:
    """The attacks of issue 40 (the jail's boundary)."""
    if name == "root":  # uid 0, or any capability
        caps = {}
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(("CapEff", "CapPrm")):
                    key, _, value = line.partition(":")
                    caps[key] = int(value.strip(), 16)
        return os.getuid() == 0 or any(caps.values()), f"uid {os.getuid()} {caps}"
    if name == "environ":  # the referee's secrets
        found = sorted(k for k in os.environ if k in ("BIDREF_TOKEN", "BIDREF_TEST_SECRET"))
        return bool(found), found
    if name == "keyring":  # the referee's session keyring
        r, e = _syscall(_KEYCTL, 10, -3, b"user", b"bidref-test-secret", 0)  # KEYCTL_SEARCH
        if r < 0:
            return False, os.strerror(e)
        buf = ctypes.create_string_buffer(256)
        n, e = _syscall(_KEYCTL, 11, r, buf, 256)  # KEYCTL_READ
        return n > 0, buf.raw[: max(n, 0)]
    if name == "keyplant":  # a key that outlives the match, for a later engine of this uid
        payload = json.dumps(hand).encode()
        r, e = _syscall(_ADD_KEY, b"user", b"bidref-collude", payload, len(payload), -4)
        return r >= 0, r if r >= 0 else os.strerror(e)
    if name == "userns":
        r, e = _syscall(_UNSHARE, 0x10000000)  # CLONE_NEWUSER
        return r == 0, "unshared" if r == 0 else os.strerror(e)
    if name == "lock":  # an advisory lock on a file both jails see: a channel
        import fcntl

        f = open("/etc/hostname")  # noqa: SIM115 - held across the fork below
        fcntl.flock(f, fcntl.LOCK_EX)
        pid = os.fork()
        if pid == 0:
            g = open("/etc/hostname")  # noqa: SIM115
            try:
                fcntl.flock(g, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os._exit(1)  # the lock was seen: one bit carried
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        f.close()
        return os.waitstatus_to_exitcode(status) == 1, "lock seen by another process"
    if name == "shm":  # an unsized /dev/shm takes the host's memory
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        written = 0
        paths = []
        try:
            for i in range(4):  # 4 files of 50 MiB, each under the file size limit
                path = f"/dev/shm/hostile-{os.getpid()}-{i}"
                paths.append(path)
                with open(path, "wb") as f:
                    for _ in range(50):
                        f.write(b"\1" * MIB)
                        written += MIB
        except OSError as e:
            return False, f"{written // MIB} MiB then {e.strerror}"
        finally:
            for path in paths:
                with contextlib.suppress(OSError):
                    os.unlink(path)
        return True, f"{written // MIB} MiB"
    if name == "devwrite":
        path = f"/dev/hostile-{os.getpid()}"
        try:
            with open(path, "w") as f:
                f.write("x")
        except OSError as e:
            return False, e.strerror
        os.unlink(path)
        return True, path
    if name == "mapshared":  # shared memory past the memory limit (2 GiB, touched)
        import mmap

        size = 2048 * MIB
        try:
            m = mmap.mmap(-1, size, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
        except OSError as e:
            return False, e.strerror
        for off in range(0, size, 4096):
            m[off] = 1
        m.close()
        return True, "2048 MiB touched"
    if name == "argfile":  # a file named in its own command line, outside its folder
        path = sys.argv[1] if len(sys.argv) > 1 else ""
        try:
            with open(path, "rb") as f:
                return True, f.read(40)
        except OSError as e:
            return False, f"{path}: {e.strerror}"
    if name == "rewrite":  # its own program, between matches of a tournament
        try:
            with open(__file__, "a") as f:
                f.write("\n# rewritten\n")
        except OSError as e:
            return False, e.strerror
        return True, __file__
    raise ValueError(f"unknown attack {name!r}")


# Attacks that end the engine: it runs into a limit and dies of it, as a careless
# engine would (an uncaught error, or the kernel's default action).
LETHAL = ("fsize", "efbig", "emfile", "oom")


def die(name: str) -> None:
    """Run into a limit and end of it (the lethal attacks): ``fsize`` writes 8 MiB
    into $TMPDIR (a jail's private /tmp) with SIGXFSZ at its default action
    (killed past RLIMIT_FSIZE);
    ``efbig`` the same with SIGXFSZ ignored, as Python has it (the write fails:
    "File too large"); ``emfile`` opens up to 10,000 files and raises the
    error ("Too many open files"), or raises it anyway where no limit stopped it;
    ``oom`` allocates and touches up to 3 GiB, letting a MemoryError end it."""
    if name in ("fsize", "efbig"):
        if name == "fsize":
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"hostile-{os.getpid()}")
        try:
            with open(path, "wb") as f:
                for _ in range(8):
                    f.write(b"\0" * MIB)
                    f.flush()
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)
        report(name, True, "8 MiB written")
        sys.exit(3)
    if name == "emfile":
        fds: list[int] = []
        while len(fds) < 10_000:
            fds.append(os.open("/dev/null", os.O_RDONLY))  # EMFILE ends it here
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))
    held: list[bytes] = []
    while len(held) < 48:  # 48 x 64 MiB = 3 GiB, every page touched
        held.append(b"\1" * (64 * MIB))
    report(name, True, "3072 MiB")
    sys.exit(3)


def main() -> None:
    opts: dict[str, Any] = {}
    attacked = False

    def send(obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            opts = msg.get("options", {})
            send({"type": "hello", "name": "hostile", "protocol": "bidref/1"})
        elif kind == "request":
            if not attacked:
                attacked = True
                hand = msg["view"].get("hand")
                for name in filter(None, str(opts.get("attacks", "")).split(",")):
                    if name in LETHAL:
                        die(name)
                    try:
                        ok, detail = attack(name, opts, hand)
                    except Exception as e:  # the attack failed: say how
                        ok, detail = False, f"{type(e).__name__}: {e}"
                    report(name, ok, detail)
                then = opts.get("then", "play")
                if then == "resign":
                    send({"type": "resign", "message": "attacks done"})
                    continue
                if then == "exit":
                    sys.exit(3)
            send({"type": "action", "id": msg["id"], "action": msg["legal"][0]})
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
