"""Test engine for the clock with real processes: first legal action, but at its
second request, with argv[1] ==

- "stall": it waits until 150 ms before its deadline, SIGSTOPs its parent (the
  referee), writes its reply, sleeps 0.4 s and SIGCONTs the parent: a reply in
  time that a stopped referee cannot judge;
- "flood": it sends 12 rules requests instead of a reply and never reads again.
"""

import json
import os
import signal
import sys
import time

mode = sys.argv[1]
requests = 0
for line in sys.stdin:
    received = time.monotonic()
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": mode, "protocol": "bidref/1"}), flush=True)
    elif msg["type"] == "request":
        requests += 1
        reply = json.dumps({"type": "action", "id": msg["id"], "action": msg["legal"][0]})
        if requests == 2 and mode == "flood":
            for i in range(12):
                print(json.dumps({"type": "rules", "id": i}), flush=True)
            time.sleep(60)  # never reads again
        if requests == 2 and mode == "stall":
            time.sleep(
                max(0.0, received + msg["clock"]["deadline_ms"] / 1000 - 0.15 - time.monotonic())
            )
            os.kill(os.getppid(), signal.SIGSTOP)
            print(reply, flush=True)
            time.sleep(0.4)
            os.kill(os.getppid(), signal.SIGCONT)
            continue
        print(reply, flush=True)
    elif msg["type"] == "quit":
        break
