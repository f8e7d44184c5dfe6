"""The import graph of ordauc's rooms (subpackages and top modules), checked against the layers.

Every ``import`` and ``from ... import`` in the package counts, those inside functions too (a
deferred import is still a dependency). A module maps to its room: ``ordauc/report/page.py`` to
``report``, ``ordauc/config.py`` to ``config``; ``from ordauc import solvers`` to ``solvers``.
An arrow must go down the layers below (a room may import its own layer's rooms only where
listed as peers that may); the report and the claims are peers that import neither each other.

    python scripts/import_graph.py          # the arrows with their counts; exit 1 on a violation
    python scripts/import_graph.py --dot    # the graph in Graphviz's DOT language
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ordauc"

# Bottom to top: a room may import the rooms of the layers below its own.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),                      # UserError: the one-sentence errors
    ("metrics", "stats", "splits", "config_values"),  # foundations
    ("solvers",),                     # the estimators: know nothing of configs or files
    ("data",),                        # datasets: fetch, prepare, load
    ("config",),                      # a study's config (checks solver and dataset names)
    ("results",),                     # the study folder: schema, reader, writer
    ("cost",),                        # the dry run's cost model
    ("experiment",),                  # plan, cells, tuners, backends, the runner
    ("published_tables",),            # the papers' published tables, read by report and claims
    ("report", "claims"),             # peers: statistics and figures; the papers' claims
    ("publish",),                     # pages combining report and claims
    ("cli",),                         # the command line
    ("__main__", "__init__"),         # `python -m ordauc`, the package's own names
)
LAYER_OF = {room: i for i, rooms in enumerate(LAYERS) for room in rooms}


def room_of(module: str) -> str | None:
    """The room of a dotted module name inside the package, None outside it."""
    parts = module.split(".")
    if parts[0] != "ordauc":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module.split(".")
        base = base if is_package else base[:-1]
        base = base[: len(base) - (node.level - 1)]
        stem = ".".join([*base, node.module] if node.module else base)
    else:
        stem = node.module or ""
    # `from ordauc import solvers` names a room: each alias may be a submodule.
    return [stem] + [f"{stem}.{alias.name}" for alias in node.names if stem == "ordauc"]


def edges() -> Counter[tuple[str, str]]:
    """(importing room, imported room) -> number of import statements."""
    found: Counter[tuple[str, str]] = Counter()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        source = room_of(module if path.name != "__init__.py" or module != "ordauc"
                         else "ordauc")
        if path.parent == PACKAGE:
            source = path.stem
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _imported(node, module, path.name == "__init__.py"):
                target = room_of(name)
                if name == "ordauc" or target is None or target == source:
                    continue
                if target == "__init__":
                    continue
                found[(str(source), target)] += 1
    return found


def violations(graph: Counter[tuple[str, str]]) -> list[str]:
    """Arrows that go up or sideways, and rooms the layers do not place."""
    out = []
    for (a, b), n in sorted(graph.items()):
        if a not in LAYER_OF or b not in LAYER_OF:
            out.append(f"{a} -> {b}: a room the layers do not place")
        elif LAYER_OF[b] >= LAYER_OF[a]:
            way = "sideways" if LAYER_OF[a] == LAYER_OF[b] else "up"
            out.append(f"{a} -> {b} ({n} imports): {way}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dot", action="store_true", help="print the graph as Graphviz DOT")
    args = parser.parse_args(argv)
    graph = edges()
    if args.dot:
        print("digraph ordauc {\n  rankdir=BT;")
        for (a, b), n in sorted(graph.items()):
            print(f'  "{a}" -> "{b}" [label={n}];')
        print("}")
    else:
        for (a, b), n in sorted(graph.items(), key=lambda e: (-LAYER_OF.get(e[0][0], 99), e[0])):
            print(f"{a} -> {b}: {n}")
    bad = violations(graph)
    for line in bad:
        print(f"violation: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
