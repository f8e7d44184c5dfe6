"""Cross-references in docstrings name things that exist.

A role such as ``:mod:`ordauc.solvers.dsg.unlabeled``` or ``:meth:`FeatureBlocks.evaluate``` is
resolved as a reader would: a dotted name from ``ordauc`` absolutely, a name with a leading dot
as a sibling in the module's package (``.engine`` beside ``trig``), any other name in the
module's own namespace (what it defines or imports), each dotted part an attribute of the last.
Checked here for the modules whose references were found stale.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest

ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc):`~?([^`<>]+?)`")
MODULES = ["ordauc.solvers.dsg.trig", "ordauc.cli.report", "ordauc.claims.evidence",
           "ordauc.data.prepare", "ordauc.data.fetch", "ordauc.data.spec",
           "ordauc.data.arrays", "ordauc.data.archive", "ordauc.results",
           "ordauc.results.schema", "ordauc.results.read", "ordauc.results.write",
           "ordauc.results.atomic", "ordauc.results.folder", "ordauc.results.frame",
           "ordauc.results.outcome", "ordauc.results.record", "ordauc.experiment.runner",
           "ordauc.experiment.cell", "ordauc.experiment.study"]


def docstrings(module: ModuleType) -> list[tuple[list[str], str]]:
    """(the enclosing classes' names, docstring) of the module, its functions and classes."""
    tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
    found: list[tuple[list[str], str]] = []

    def visit(node: ast.AST, classes: list[str]) -> None:
        inner = classes + [node.name] if isinstance(node, ast.ClassDef) else classes
        if (doc := ast.get_docstring(node, clean=False)) is not None:  # type: ignore[arg-type]
            found.append((inner, doc))  # a class's docstring speaks from inside the class
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(child, inner)

    visit(tree, [])
    return found


def _walk(obj: object, parts: list[str]) -> bool:
    for part in parts:
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def resolves(module: ModuleType, target: str, classes: tuple[str, ...] = ()) -> bool:
    """Whether ``target`` (a role's text) names something, by the rules of this file's doc;
    ``classes``: the classes the docstring stands in, whose own names count as well."""
    if target.startswith("."):
        package = module.__name__.rsplit(".", 1)[0]
        target = f"{package}.{target.lstrip('.')}"
    elif not target.startswith("ordauc."):
        scopes = [module]
        for name in classes:
            scopes.append(getattr(scopes[-1], name))
        return any(_walk(scope, target.split(".")) for scope in scopes)
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):  # the longest importable prefix, then attributes
        try:
            base = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return _walk(base, parts[cut:])
    return False


def unresolved(name: str) -> list[str]:
    module = importlib.import_module(name)
    return [t for classes, doc in docstrings(module) for t in ROLE.findall(doc)
            if not resolves(module, t, tuple(classes))]


def test_the_resolver_fails_on_names_that_do_not_exist() -> None:
    trig = importlib.import_module("ordauc.solvers.dsg.trig")
    assert resolves(trig, ".engine") and resolves(trig, "compiled_wins")
    assert resolves(trig, "ordauc.solvers.dsg.random_features.FeatureBlocks.evaluate")
    assert not resolves(trig, ".no_such_module")
    assert not resolves(trig, "ordauc.solvers.dsg.no_such_module")
    assert not resolves(trig, "FeatureBlocks.evaluate")  # not defined nor imported in trig
    assert not resolves(trig, "ordauc.solvers.dsg.random_features.FeatureBlocks.no_such")
    arrays = importlib.import_module("ordauc.data.arrays")
    assert resolves(arrays, "close", ("NpyWriter",)) and not resolves(arrays, "close")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_references_resolve(name: str) -> None:
    assert unresolved(name) == []
