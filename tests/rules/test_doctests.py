"""The worked examples in the rules core's docstrings run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["tiles", "layout", "actions", "deal", "match", "clock", "text"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"bidref.rules.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0, f"bidref.rules.{name} has no docstring examples"
    assert result.failed == 0
