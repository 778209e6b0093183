"""The tests run against either build of ``bidref`` (docs/perf.md).

``make test-compiled`` runs the rules, search, protocol and replay tests with
``BIDREF_RULES_BUILD=compiled`` and the compiled build first on ``PYTHONPATH``;
these hooks (tests/conftest.py) make sure that the build imported is the one
asked for, so that a mistake in the path cannot quietly test the pure build twice.
"""

from __future__ import annotations

import os

import pytest

from bidref.build.compiled import is_compiled_module

WANTED = os.environ.get("BIDREF_RULES_BUILD", "pure")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "compiled_build: a test of the compiled build itself (make test-compiled)"
    )
    if WANTED not in ("pure", "compiled"):
        raise pytest.UsageError(f"BIDREF_RULES_BUILD={WANTED!r}: give pure or compiled")
    import bidref.protocol.fastview
    import bidref.rules.match

    for module in (bidref.rules.match, bidref.protocol.fastview):
        if is_compiled_module(module) != (WANTED == "compiled"):
            raise pytest.UsageError(
                f"BIDREF_RULES_BUILD={WANTED} but {module.__name__} comes from "
                f"{module.__file__}: put build/compiled first on PYTHONPATH and run "
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
