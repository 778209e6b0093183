from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_RULES = REPO.parent / "shared" / "rules"


@pytest.fixture(scope="session")
def shared_rules() -> Path:
    if not (SHARED_RULES / "RULES.md").exists():
        raise RuntimeError(
            f"the shared rules are missing at {SHARED_RULES}: bidref's tests expect a copy of "
            "shared/ beside the repository"
        )
    return SHARED_RULES
