"""Misbehaving test engine: starts a grandchild, ignores SIGTERM and quit, never answers
a request. Writes the pids of itself and its grandchild to the file given as argv[1]."""

import json
import signal
import subprocess
import sys

signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen(["sleep", "300"])
with open(sys.argv[1], "w") as f:
    f.write(f"{child.pid}\n")
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(
            json.dumps({"type": "hello", "name": "grandchild", "protocol": "bidref/1"}), flush=True
        )
# stdin closed or quit ignored: keep running until killed
signal.pause()
