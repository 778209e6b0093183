"""Test engine: first legal action. With argv[1] == "noflush" it never flushes stdout
(like C stdio on a pipe), so it only works under a pty. With "crash" it exits with
code 3 at its second request; with "crash_gc" too, after starting a grandchild that
keeps its stdout open; with "crash_loud" too, after 1 MB on stderr and its last words
(the crash report must end with them). With "flood" it writes 2 MB to stderr before its hello."""

import json
import subprocess
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else ""
flush = mode != "noflush"
requests = 0
if mode == "flood":
    sys.stderr.write(("x" * 999 + "\n") * 2100)
    sys.stderr.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        if mode == "crash_gc":
            subprocess.Popen(["sleep", "60"])  # inherits stdout and stderr
        out = {"type": "hello", "name": "first_legal", "protocol": "bidref/1"}
    elif msg["type"] == "request":
        requests += 1
        if mode in ("crash", "crash_gc", "crash_loud") and requests == 2:
            if mode == "crash_loud":
                sys.stderr.write(("y" * 999 + "\n") * 1050 + "last words: out of memory\n")
                sys.stderr.flush()
            sys.exit(3)
        out = {"type": "action", "id": msg["id"], "action": msg["legal"][0]}
    elif msg["type"] == "quit":
        break
    else:
        continue
    print(json.dumps(out), flush=flush)
