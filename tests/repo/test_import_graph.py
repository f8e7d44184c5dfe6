"""The package's rooms import only down the layers (scripts/import_graph.py): no arrow up, no
arrow between the peers report and claims, and so no circle."""

from __future__ import annotations

import importlib.util
from collections import Counter

from conftest import REPO


def _graph_module():  # noqa: ANN202 - a script, loaded by path
    spec = importlib.util.spec_from_file_location("import_graph", REPO / "scripts" /
                                                  "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_arrow_goes_down_the_layers() -> None:
    graph = _graph_module()
    edges = graph.edges()
    assert ("experiment", "solvers") in edges and ("publish", "claims") in edges  # it sees them
    assert graph.violations(edges) == []
    rooms = {room for edge in edges for room in edge}
    assert rooms <= set(graph.LAYER_OF), rooms - set(graph.LAYER_OF)


def test_an_arrow_up_or_between_peers_is_a_violation() -> None:
    graph = _graph_module()
    found = graph.violations(Counter({("solvers", "report"): 1, ("claims", "report"): 2,
                                      ("report", "claims"): 1, ("cli", "experiment"): 3}))
    assert found == ["claims -> report (2 imports): sideways",
                     "report -> claims (1 imports): sideways",
                     "solvers -> report (1 imports): up"]


def test_deferred_and_package_level_imports_count(tmp_path) -> None:
    graph = _graph_module()
    # `from ordauc import solvers` inside a function is an arrow to solvers
    names = graph._imported(__import__("ast").parse("def f():\n    from ordauc import solvers\n"
                                                     ).body[0].body[0], "ordauc.report.x", False)
    assert "ordauc.solvers" in names
