"""Misbehaving test engine: starts a grandchild in a session (and process group) of
its own, then answers nothing. Writes the grandchild's pid to the file given as argv[1].
With argv[2] == "plays": it answers the referee's hello, never a request, and
exits at once when told the match is over (so the grandchild is an orphan by the
time it is ended)."""

import json
import os
import subprocess
import sys
import time

child = subprocess.Popen(["sleep", "60"], start_new_session=True)
with open(sys.argv[1], "w") as f:
    f.write(f"{child.pid}\n")
if sys.argv[2:] != ["plays"]:
    time.sleep(60)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "escapee", "protocol": "bidref/1"}), flush=True)
    elif msg["type"] == "quit" or msg.get("event", {}).get("kind") == "match_ended":
        os._exit(0)
