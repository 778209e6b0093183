from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.build_guard import (  # noqa: F401  (pytest hooks)
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_report_header,
)

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _keep_umask() -> Iterator[None]:
    """Each test starts with this process's umask: a command run in-process with
    the seats' own accounts (root) sets 077 for the rest of its process (the
    referee's files closed to the seats), which would close the next test's
    engine files to them."""
    mask = os.umask(0o022)
    os.umask(mask)
    yield
    os.umask(mask)
