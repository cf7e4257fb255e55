"""The architecture's rules, read from the source (ARCHITECTURE.md, "Layers").

Imports point downward only: model → spec → store → engine / commands → faces (api, cli,
tui). ``model`` is pure (no I/O, SQLite, asyncio or processes). ``store`` is the only package
that runs SQL. Lazy imports inside functions count too: they are imports all the same.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "bundletui"

RANK = {
    "errors": 0,
    "_procfs": 0,
    "_host": 0,
    "model": 1,
    "spec": 2,
    "store": 3,
    "engine": 4,
    "commands": 4,
    "api": 5,
    "cli": 5,
    "tui": 5,
    "__main__": 6,
}
# Same rank, one way only: the engine runs commands' transactions (commands never start
# processes); the command line starts the console and the HTTP server.
PEERS = {("engine", "commands"), ("cli", "api"), ("cli", "tui")}
IMPURE = {"sqlite3", "asyncio", "subprocess", "os", "pathlib", "threading", "socket", "shutil"}
SQL_CALLS = {"execute", "executemany", "executescript"}


def modules() -> Iterator[tuple[str, str, ast.Module]]:
    """(layer, file relative to the package, tree) of every module but the package's own."""
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        layer = rel.with_suffix("").parts[0]
        if layer == "__init__":
            continue
        yield layer, str(rel), ast.parse(path.read_text(encoding="utf-8"), str(path))


def imported(tree: ast.Module) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module


def test_every_layer_is_known() -> None:
    assert {layer for layer, _f, _t in modules()} == set(RANK)


def test_imports_point_downward_only() -> None:
    wrong = []
    for layer, file, tree in modules():
        for line, name in imported(tree):
            parts = name.split(".")
            if parts[0] != "bundletui" or len(parts) < 2 or parts[1] == layer:
                continue
            target = parts[1]
            if RANK[target] < RANK[layer] or (layer, target) in PEERS:
                continue
            wrong.append(f"{file}:{line}: {layer} imports {name}")
    assert wrong == []


def test_the_model_is_pure() -> None:
    wrong = [
        f"{file}:{line}: {name}"
        for layer, file, tree in modules()
        if layer == "model"
        for line, name in imported(tree)
        if name.split(".")[0] in IMPURE
    ]
    assert wrong == []


def test_only_the_store_runs_sql() -> None:
    wrong = [
        f"{file}:{node.lineno}: .{node.func.attr}()"
        for layer, file, tree in modules()
        if layer != "store"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in SQL_CALLS
    ]
    assert wrong == []
