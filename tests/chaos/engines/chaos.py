"""A misbehaving engine for the chaos battery: ``chaos.py MODE TOKEN [ARG]``.

TOKEN marks the process (and what it starts) in /proc so that the tests can
find leftovers; it is also the path prefix of the files it writes
(TOKEN.started at once, TOKEN.peek.PID.json). Unless MODE says otherwise the
engine plays the first legal action. Modes: crash_start, crash_mid (exit 3 at
request 3), hang (request 2, ignoring SIGTERM), silent (no hello), slow_hello
(ARG seconds first), no_stdin (a hello, then never reads), garbage, non_utf8,
surrogate, deep (200,000 nested brackets), huge (an 8 MiB line), stderr_flood,
stale_flood, double (six replies each time), illegal_flood, rules_flood (from 300 ms before its
deadline), daemon and daemon_scrub (a double-forked daemon, keeping or clearing
its environment), stubborn (a daemon, and ignores quit, SIGTERM and EOF), peek
(reads its ancestors' command lines and environments, and the files in the
folder ARG, at request 2), play.
"""

import json
import os
import signal
import sys
import time

MODE = sys.argv[1]
TOKEN = sys.argv[2]
ARG = sys.argv[3] if len(sys.argv) > 3 else ""
out = sys.stdout.buffer


def send(obj: object) -> None:
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()


def raw(data: bytes) -> None:
    out.write(data)
    out.flush()


def sleep_forever() -> None:
    while True:
        time.sleep(3600)


def hello() -> None:
    send({"type": "hello", "name": f"chaos-{MODE}", "protocol": "bidref/1"})


# The daemon's program: it says it runs (a byte on the fd in argv[3]), then sleeps.
DAEMON = "import os, sys, time; os.write(int(sys.argv[3]), b'up'); time.sleep(3600)"


def daemon(scrub_env: bool = False) -> None:
    """Double fork: a daemon in a session of its own, ignoring SIGTERM and
    SIGHUP, whose parent has exited (an orphan no process tree leads to).
    Returns once the daemon runs its own program (it says so on a pipe), so
    that a test that has this engine's hello knows the daemon is there: no
    test waits on time for it (issue 35, item 8)."""
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.close(r)
            os.set_inheritable(w, True)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            argv = [sys.executable, "-c", DAEMON, TOKEN, "daemon", str(w)]
            if scrub_env:  # a careful daemon: no stdio of its engine, no environment
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                os.execve(sys.executable, argv, {})
            # a careless one keeps the engine's stdin, stdout and stderr open
            os.execv(sys.executable, argv)
        os._exit(0)
    os.close(w)
    os.wait()
    os.read(r, 2)  # (b"": the daemon died first; the test then finds it missing)
    os.close(r)


def peek() -> dict[str, object]:
    """What an engine can read about its ancestors and the other seat."""
    found: dict[str, object] = {"cmdline": [], "environ": [], "errors": []}
    pid = os.getppid()
    with open(f"/proc/{pid}/status") as f:
        found["parent_threads"] = next(
            int(line.split()[1]) for line in f if line.startswith("Threads:")
        )
    while pid > 1:
        for what in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as f:
                    found[what].append(f.read().decode("utf-8", "replace"))  # type: ignore[attr-defined]
            except OSError as e:
                found["errors"].append(f"{pid}/{what}: {e}")  # type: ignore[attr-defined]
        with open(f"/proc/{pid}/stat", "rb") as f:
            pid = int(f.read().rsplit(b")", 1)[1].split()[1])
    if ARG:  # a folder of stderr logs: try to read the other seat's
        logs = {}
        for name in os.listdir(ARG):
            try:
                with open(os.path.join(ARG, name), errors="replace") as f:
                    logs[name] = f.read()
            except OSError as e:
                logs[name] = f"unreadable: {e}"
        found["logs"] = logs
    return found


open(TOKEN + ".started", "w").close()  # (the tests wait for it)
if MODE == "crash_start":
    sys.exit(3)
if MODE == "silent":
    sleep_forever()
if MODE == "slow_hello":
    time.sleep(float(ARG or "5"))
if MODE == "no_stdin":
    hello()
    sleep_forever()
if MODE in ("daemon", "daemon_scrub", "stubborn"):
    daemon(scrub_env=MODE == "daemon_scrub")
if MODE == "stubborn":  # ignores SIGTERM, quit and the end of its stdin
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if MODE == "stderr_flood":
    os.write(2, b"e" * 999 + b"\n")

requests = 0
for line in sys.stdin.buffer:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        if MODE == "peek":
            sys.stderr.write(f"secret of {TOKEN}\n")
            sys.stderr.flush()
        hello()
        continue
    if kind == "quit":
        if MODE == "stubborn":
            sleep_forever()
        break
    if kind != "request":
        continue
    requests += 1
    rid = msg["id"]
    first = {"type": "action", "id": rid, "action": msg["legal"][0]}
    if MODE == "peek" and requests == 2:  # (both engines have said hello by now)
        with open(f"{TOKEN}.peek.{os.getpid()}.json", "w") as f:
            json.dump(peek(), f)
    if MODE == "crash_mid" and requests == 3:
        sys.exit(3)
    if MODE == "hang" and requests == 2:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sleep_forever()
    if MODE == "garbage" and requests == 2:
        raw(b"this is not json at all\n")
        continue
    if MODE == "non_utf8" and requests == 2:
        raw(b'{"type":"action","id":' + str(rid).encode() + b',"action":"\xff\xfe"}\n')
        continue
    if MODE == "surrogate" and requests == 2:
        raw(b'{"type":"log","message":"\\ud800 lone"}\n')
        # a rules question whose id and topic the referee echoes back
        raw(b'{"type":"rules","id":"q\\ud800","topic":"7\\udfff"}\n')
    if MODE == "deep" and requests == 2:
        raw(b"[" * 200_000 + b"]" * 200_000 + b"\n")
        continue
    if MODE == "huge" and requests == 2:
        raw(b'{"type":"log","message":"' + b"x" * (8 << 20) + b'"}\n')
    if MODE == "stderr_flood":
        os.write(2, (b"e" * 999 + b"\n") * 200)
    if MODE == "stale_flood":
        for old in range(max(1, rid - 50), rid):
            send({"type": "action", "id": old, "action": msg["legal"][0]})
    if MODE == "double":  # six replies to each request
        for _ in range(5):
            send(first)
    if MODE == "illegal_flood" and 2 <= requests <= 6:
        for _ in range(600):
            send({"type": "action", "id": rid, "action": "play 9-9 0-0:line_a"})
    if MODE == "rules_flood" and requests == 2:
        # About to lose on time: flood rules requests from 300 ms before the deadline.
        left = msg["clock"]["deadline_ms"] * 1_000_000  # what is left of delay and bank
        time.sleep(max(0.0, left / 1e9 - 0.3))
        end = time.monotonic() + 3
        while time.monotonic() < end:
            send({"type": "rules", "id": rid})
        sleep_forever()
    send(first)
