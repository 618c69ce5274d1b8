"""The product's import structure, read from the code with `ast` (nothing is imported).

Fails on an import circle inside or between the product packages (imports at module level,
inside functions and under ``TYPE_CHECKING`` all count: a circle for types only is still two
modules that cannot be read apart), on the service layer importing web/, and on a room
importing one it may not (docs/ARCHITECTURE.md draws the rooms and their arrows).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "bot", "vision", "hardware", "calibration", "web", "bluffcam")
#: the command line sits above web/; the rest of bluffcam/ is the service layer web/ uses
CLI = ("bluffcam.cli", "bluffcam.__main__", "bluffcam.commands")
#: each room and the rooms it may import (itself included); the CLI may import every room
MAY_IMPORT: dict[str, set[str]] = {
    "engine": {"engine"},
    "bot": {"bot", "engine"},
    "hardware": {"hardware"},
    "vision": {"vision"},
    "calibration": {"calibration", "engine", "vision"},
    "service": {"service", "engine", "bot", "vision", "hardware", "calibration"},
    "web": {"web", "service", "engine", "bot", "vision", "hardware", "calibration"},
    "cli": {"cli", "web", "service", "engine", "bot", "vision", "hardware", "calibration"},
}


def module_name(path: Path, root: Path = REPO) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def product_modules(root: Path = REPO) -> dict[str, Path]:
    """Every module of the product packages, by dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(path, root)] = path
    return found


def room(module: str) -> str:
    """The layer a module belongs to (bluffcam/ is two: the CLI and the service layer)."""
    if module in CLI or module.startswith(tuple(c + "." for c in CLI)):
        return "cli"
    top = module.split(".")[0]
    return "service" if top == "bluffcam" else top


def imported_names(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """The dotted names a module imports, anywhere in it, with their line numbers."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield f"{base}.{alias.name}", node.lineno


def resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The product module an imported name is (``a.b.Thing`` -> ``a.b``), None outside."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def import_graph(modules: dict[str, Path]) -> dict[str, dict[str, int]]:
    """module -> {product module it imports: first line that does}."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        edges = graph.setdefault(module, {})
        for name, line in imported_names(module, path):
            target = resolve(name, modules)
            if target is not None and target != module:
                edges.setdefault(target, line)
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return found


def describe(group: list[str], graph: dict[str, dict[str, int]]) -> str:
    ties = [f"{a} -> {b} (line {graph[a][b]})" for a in group for b in group if b in graph[a]]
    return "; ".join(ties)


@pytest.fixture(scope="module")
def graph() -> dict[str, dict[str, int]]:
    return import_graph(product_modules())


def test_no_import_circles(graph: dict[str, dict[str, int]]) -> None:
    found = circles(graph)
    assert not found, "import circles: " + " | ".join(describe(g, graph) for g in found)


def test_each_room_imports_only_what_it_may(graph: dict[str, dict[str, int]]) -> None:
    wrong = [
        f"{a} ({room(a)}) imports {b} ({room(b)}) at line {line}"
        for a, edges in graph.items() for b, line in edges.items()
        if room(b) not in MAY_IMPORT[room(a)]
    ]
    assert not wrong, "\n".join(wrong)


def test_the_service_layer_never_imports_web(graph: dict[str, dict[str, int]]) -> None:
    wrong = [f"{a} imports {b}" for a, edges in graph.items() if room(a) == "service"
             for b in edges if room(b) == "web"]
    assert not wrong, "\n".join(wrong)


def test_the_engine_uses_only_the_standard_library() -> None:
    wrong = []
    for module, path in product_modules().items():
        if room(module) != "engine":
            continue
        for name, line in imported_names(module, path):
            top = name.split(".")[0]
            if top and top != "engine" and top not in sys.stdlib_module_names \
                    and top != "__future__":
                wrong.append(f"{module} imports {name} at line {line}")
    assert not wrong, "\n".join(wrong)


# ------------------------------------------------------------------ the check checks itself


def product_graph(root: Path, files: dict[str, str]) -> dict[str, dict[str, int]]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return import_graph(product_modules(root))


@pytest.mark.parametrize("files", [
    pytest.param({"engine/__init__.py": "", "engine/a.py": "from engine.b import x\n",
                  "engine/b.py": "def f():\n    from engine import a\n"},
                 id="function-level"),
    pytest.param({"calibration/__init__.py": "", "calibration/a.py": "from . import b\n",
                  "calibration/b.py": "from typing import TYPE_CHECKING\n"
                                      "if TYPE_CHECKING:\n    from calibration.a import A\n"},
                 id="relative-and-types-only"),
    pytest.param({"vision/__init__.py": "", "vision/a.py": "import web.b\n",
                  "web/__init__.py": "", "web/b.py": "from vision.a import thing\n"},
                 id="between-packages"),
])
def test_the_check_sees_a_circle(tmp_path: Path, files: dict[str, str]) -> None:
    assert circles(product_graph(tmp_path, files))


def test_the_check_passes_a_one_way_tree(tmp_path: Path) -> None:
    graph = product_graph(tmp_path, {"engine/__init__.py": "from engine.a import x\n",
                                     "engine/a.py": "from engine.b import y\nx = y\n",
                                     "engine/b.py": "y = 1\n"})
    assert graph["engine"] == {"engine.a": 1} and circles(graph) == []


def test_a_service_module_importing_web_is_wrong() -> None:
    assert room("bluffcam.table") == "service" and room("bluffcam.commands.serve") == "cli"
    assert "web" not in MAY_IMPORT[room("bluffcam.demo_player")]
    assert "web" in MAY_IMPORT[room("bluffcam.cli")]


def test_benches_never_import_each_other() -> None:
    """A bench is run, not a library: what benches share lives in tools/bench/common.py."""
    bench = REPO / "tools" / "bench"
    wrong = []
    for path in sorted(bench.glob("*.py")):
        module = module_name(path)
        for name, line in imported_names(module, path):
            if name.startswith("tools.bench.bench_") and not name.startswith(module):
                wrong.append(f"{module} imports {name} at line {line}")
    assert not wrong, "\n".join(wrong)


def test_the_tables_parts_never_import_the_table(graph: dict[str, dict[str, int]]) -> None:
    """The Table is the lock and the API over its parts; a part that needed the Table back
    would be a Table's job done outside it (the parts take the ledger and small Protocols)."""
    face = {"bluffcam.table", "bluffcam.table.table"}
    opener = "bluffcam.table.opening"  # opens a Table: it stands above it, not under it
    wrong = [f"{a} imports {b}" for a, edges in graph.items()
             if a.startswith("bluffcam.table.") and a not in face | {opener}
             for b in edges if b in face]
    assert not wrong, "\n".join(wrong)
