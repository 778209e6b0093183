"""The rules tests run against either build of ``bidref.rules`` (docs/perf.md).

``make test-compiled`` runs them with ``BIDREF_RULES_BUILD=compiled`` and the
compiled build first on ``PYTHONPATH``; this file makes sure that the build
imported is the one asked for, so that a mistake in the path cannot quietly
test the pure build twice.
"""

from __future__ import annotations

import os

import pytest

from bidref.rules.compiled import is_compiled

WANTED = os.environ.get("BIDREF_RULES_BUILD", "pure")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "compiled_build: a test of the compiled build itself (make test-compiled)"
    )
    if WANTED not in ("pure", "compiled"):
        raise pytest.UsageError(f"BIDREF_RULES_BUILD={WANTED!r}: give pure or compiled")
    if is_compiled() != (WANTED == "compiled"):
        import bidref.rules.match

        raise pytest.UsageError(
            f"BIDREF_RULES_BUILD={WANTED} but bidref.rules.match comes from "
            f"{bidref.rules.match.__file__}: put build/compiled first on PYTHONPATH and run "
            "pytest with --import-mode=append (see the Makefile's test-compiled)"
        )


def pytest_report_header(config: pytest.Config) -> str:
    import bidref.rules.match

    return f"bidref.rules build: {WANTED} ({bidref.rules.match.__file__})"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if WANTED == "compiled":
        return
    skip = pytest.mark.skip(reason="a test of the compiled build: make test-compiled runs it")
    for item in items:
        if item.get_closest_marker("compiled_build"):
            item.add_marker(skip)
