"""Without the rl extra, bidref works and the environments say what to install."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A child Python in which the rl extra's packages cannot be imported.
BLOCK = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"pettingzoo", "gymnasium", "pyspiel", "open_spiel", "numpy"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Block())
"""


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCK + textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_core_and_action_enumeration_work_without_the_extra() -> None:
    out = _run(
        """
        import bidref, bidref.rules, bidref.sdk, bidref.cli
        from bidref.env.actions import NUM_ACTIONS, action_id
        from bidref.rules import DRAW
        assert NUM_ACTIONS == 512 and action_id(DRAW) == 2
        assert "pettingzoo" not in sys.modules and "pyspiel" not in sys.modules
        print("ok")
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_the_environments_say_which_extra_to_install() -> None:
    out = _run(
        """
        from bidref.env.errors import MissingExtraError
        import bidref.env
        for load in (lambda: bidref.env.env, lambda: __import__("bidref.openspiel")):
            try:
                load()
            except MissingExtraError as e:
                print(e)
        """
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 2
    assert all("pip install 'bidref[rl]'" in line for line in lines)
