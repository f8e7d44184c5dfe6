"""The modules of ``ordauc.data`` import one another without a circle.

The graph is read from the source with ``ast``: every import counts, also one inside a function
(a deferred import hides a circle from Python at load time, not from a reader). Run this file
as a script to print the graph: ``python tests/data/test_data_imports.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "ordauc.data"
# Not conftest's REPO: this file also runs as a script, without tests/ on the path.
FOLDER = Path(__file__).resolve().parents[2] / "ordauc" / "data"


def _imported(tree: ast.AST) -> set[str]:
    """Every module name an ``import`` or ``from ... import`` of ``tree`` names, with the
    names of ``from PACKAGE import a, b`` taken as the modules ``PACKAGE.a``, ``PACKAGE.b``."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def import_graph(folder: Path = FOLDER, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (short names, no package)."""
    modules = {p.stem: p for p in sorted(folder.glob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imported = _imported(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        graph[name] = {m[len(package) + 1:] for m in imported
                       if m.startswith(package + ".") and m[len(package) + 1:] in modules
                       and m[len(package) + 1:] != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles of ``graph``, each once, as the list of its modules from its smallest."""
    found: set[tuple[str, ...]] = set()

    def walk(path: list[str]) -> None:
        for nxt in sorted(graph.get(path[-1], ())):
            if nxt == path[0]:
                found.add(tuple(path))
            elif nxt not in path and nxt > path[0]:  # each circle found from its smallest
                walk(path + [nxt])

    for start in sorted(graph):
        walk([start])
    return [list(c) for c in sorted(found)]


def test_the_graph_sees_a_circle_and_a_deferred_import(tmp_path: Path) -> None:
    """The reader can fail: a circle closed by an import inside a function is found."""
    (tmp_path / "a.py").write_text("from pkg.b import f\n")
    (tmp_path / "b.py").write_text("def f():\n    from pkg import a\n    return a\n")
    (tmp_path / "c.py").write_text("import pkg.a\n")
    graph = import_graph(tmp_path, "pkg")
    assert graph == {"a": {"b"}, "b": {"a"}, "c": {"a"}}
    assert cycles(graph) == [["a", "b"]]


def test_ordauc_data_has_no_import_circle() -> None:
    graph = import_graph()
    assert {"fetch", "prepare", "recipe_tables"} <= set(graph)
    assert "prepare" in graph["recipe_tables"]  # the graph does hold the package's edges
    assert cycles(graph) == []



def test_every_catalogue_recipe_is_registered() -> None:
    """The table of recipes (kept by fetch, not by prepare) names every catalogue recipe."""
    from ordauc.data.catalog import CATALOG
    from ordauc.data.fetch import recipes

    table = recipes()
    assert {e.recipe for e in CATALOG.values() if not e.builtin} <= set(table)
    assert all(callable(f) for f in table.values())


if __name__ == "__main__":
    for module, targets in import_graph().items():
        print(f"{module:18} -> {', '.join(sorted(targets)) or '-'}")
    print("circles:", cycles(import_graph()) or "none")
