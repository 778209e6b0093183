"""The worked examples in the rules core's docstrings run as tests."""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path
from types import ModuleType

import pytest

MODULES = ["tiles", "layout", "actions", "deal", "match", "clock", "describe"]


def _compiled_examples(module: ModuleType) -> doctest.TestResults:
    """Run the examples of a mypyc-compiled module, read from its source file
    (a compiled module's functions are builtins, which doctest does not search)
    and run in the compiled module's namespace."""
    source = Path(module.__file__ or "").with_name(module.__name__.rpartition(".")[2] + ".py")
    tree = ast.parse(source.read_text(), str(source))
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner()
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef))]
    for node in nodes:
        text = ast.get_docstring(node, clean=False)
        if text and ">>>" in text:
            name = getattr(node, "name", module.__name__)
            test = parser.get_doctest(text, dict(vars(module)), name, str(source), 0)
            runner.run(test)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"bidref.rules.{name}")
    if (module.__file__ or "").endswith(".py"):
        result = doctest.testmod(module)
    else:
        result = _compiled_examples(module)
    assert result.attempted > 0, f"bidref.rules.{name} has no docstring examples"
    assert result.failed == 0
