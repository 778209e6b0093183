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
    "bidref.match.outcome": "bidref.outcome.reasons",
    "bidref.match.excuse": "bidref.outcome.excuse",
    "bidref.matchspec": "bidref.match.spec",
    "bidref.engine": "bidref.sdk",
    "bidref.transcript.movefile": "bidref.movefile.parse",
    "bidref.transcript.validate": "bidref.movefile.validate",
    "bidref.render.tournament_report": "bidref.render.tournament.report",
    "bidref.render.tournament_views": "bidref.render.tournament.views",
    "bidref.render.report_server": "bidref.render.tournament.server",
    "bidref.tournament.tables": "bidref.render.tournament.tables",
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


# Classes renamed so that each name is one class (issue 39): the old name still
# imports from its old module, as the very same class, with a DeprecationWarning.
RENAMED = {
    ("bidref.match.record", "MatchRecord"): "TranscriptRecorder",
    ("bidref.cli.match_cmd", "LiveView"): "LiveMatchView",
}


@pytest.mark.parametrize(("where", "new"), sorted(RENAMED.items()))
def test_renamed_class_keeps_its_old_name_and_warns(where: tuple[str, str], new: str) -> None:
    module, old = where
    mod = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=new):
        cls = getattr(mod, old)
    assert cls is getattr(mod, new)
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = mod.no_such_name
