"""The jail's line says what jail this machine gives; only the commands that
start engines close the referee's files to the seats (umask 077), not every
caller that wants the line (issue 39: a function named for a line of text
changed the process umask)."""

from __future__ import annotations

import os

import pytest

from bidref.cli import sandbox_opts
from bidref.engines.spec import resolve_engine
from bidref.sandbox.policy import plan


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_the_jail_line_leaves_the_umask_and_jailing_engines_closes_it() -> None:
    config = sandbox_opts.JailArgs().config()
    if "account" not in plan(config).active:  # (root with setpriv, as in CI)
        pytest.skip("this machine gives no seat an account of its own")
    os.umask(0o022)  # (restored after the test by tests/conftest.py)
    line = sandbox_opts._jail_line(config)
    assert line.startswith("sandbox: ") and _umask() == 0o022
    sandbox_opts.jail_engines([resolve_engine("sample_engines/c_first/engine")], config, quiet=True)
    assert _umask() == 0o077
