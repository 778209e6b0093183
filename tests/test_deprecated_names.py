"""The names the match layer had before it became a package still import, for one
release, as the very same modules, with a DeprecationWarning (CHANGELOG)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

MOVED = {
    "bidref.referee": "bidref.match.referee",
    "bidref.session": "bidref.match.session",
    "bidref.outcome": "bidref.match.outcome",
    "bidref.matchspec": "bidref.match.spec",
    "bidref.engine": "bidref.sdk",
    "bidref.transcript.movefile": "bidref.movefile.parse",
    "bidref.transcript.validate": "bidref.movefile.validate",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_name_is_the_new_module_and_warns(old: str, new: str) -> None:
    # A fresh interpreter: the alias warns when it is first imported.
    code = (
        "import importlib, warnings\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        "assert old is new, (old, new)\n"
        "msgs = [str(x.message) for x in w if x.category is DeprecationWarning]\n"
        f"assert any({new!r} in m for m in msgs), msgs\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_documented_entry_points_keep_working() -> None:
    with pytest.warns(DeprecationWarning):
        sys.modules.pop("bidref.referee", None)
        referee = importlib.import_module("bidref.referee")
    from bidref.match.referee import run_match

    assert referee.run_match is run_match
