from __future__ import annotations

from pathlib import Path

from tests.build_guard import (  # noqa: F401  (pytest hooks)
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_report_header,
)

REPO = Path(__file__).resolve().parent.parent
