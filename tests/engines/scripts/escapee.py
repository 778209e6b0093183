"""Misbehaving test engine: starts a grandchild in a session (and process group) of
its own, then answers nothing. Writes the grandchild's pid to the file given as argv[1]."""

import subprocess
import sys
import time

child = subprocess.Popen(["sleep", "60"], start_new_session=True)
with open(sys.argv[1], "w") as f:
    f.write(f"{child.pid}\n")
time.sleep(60)
