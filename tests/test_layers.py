"""The architecture's rules, read from the source (ARCHITECTURE.md, "Layers").

Imports point downward only: model → spec → store → engine / commands → faces (api, cli,
tui). ``model`` is pure (no I/O, SQLite, asyncio or processes). ``store`` is the only package
that runs SQL, and the only one that writes it: the others call its named queries, never hand
it SQL text. Lazy imports inside functions count too: they are imports all the same.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
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


# ----------------------------------------------------------------------------- SQL text

# store.jobs' building blocks that take a raw WHERE clause: the store's own, never called
# (nor handed on) elsewhere: outside store/ a query is a named, typed store function
RAW_SQL_HELPERS = {"select", "count", "update_where"}
# what only SQL says: a clause keyword, a column compared with a placeholder, a quoted value
# or a number, an IN list, a sort, the rowid
SQL_TEXT = re.compile(
    r"\b(?:SELECT|WHERE|ORDER BY|GROUP BY|INSERT INTO|DELETE FROM|BETWEEN|LIKE"
    r"|IS NULL|IS NOT NULL)\b|\b[a-z_]+ (?:=|<>|!=|[<>]=?) (?:\?|'[^']*'|\d)"
    r"|\bIN \(|\w (?:ASC|DESC)\b|\browid\b"
)


def _strings(node: ast.AST) -> Iterator[str]:
    """The literal text in an expression (f-strings' literal parts too)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.value


def _is_sql(node: ast.AST) -> bool:
    return any(SQL_TEXT.search(text) for text in _strings(node))


def _store_names(tree: ast.Module) -> tuple[dict[str, str], dict[str, str]]:
    """(name -> store module it is bound to, name -> store module its function comes from)."""
    modules: dict[str, str] = {}
    functions: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if node.module == "bundletui.store":
                    modules[alias.asname or alias.name] = f"bundletui.store.{alias.name}"
                elif node.module.startswith("bundletui.store."):
                    functions[alias.asname or alias.name] = node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("bundletui.store") and alias.asname:
                    modules[alias.asname] = alias.name
    return modules, functions


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _in_scope(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of one scope (a module's, a function's), those of the scopes inside it not."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def _assigned(
    nodes: list[ast.AST], is_store_call: Callable[[ast.AST], bool]
) -> tuple[set[str], set[str]]:
    """(names assigned in these nodes, those of them assigned SQL text: not the rows a store
    function returned for some)."""
    every: set[str] = set()
    sql: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            every |= names
            if not is_store_call(node.value) and _is_sql(node.value):
                sql |= names
    return every, sql


def sql_passed_to_the_store(source: str) -> list[str]:
    """Where a module calls a store function with SQL text (a literal, or a name its scope or
    the module assigns one), or reaches for a raw-WHERE helper of store.jobs."""
    tree = ast.parse(source)
    modules, functions = _store_names(tree)

    def store_function(func: ast.expr) -> tuple[str, str] | None:
        """(store module, function) that ``func`` names, if it names one."""
        dotted = _dotted(func) or ""
        head, _, rest = dotted.partition(".")
        if head in modules and rest and "." not in rest:
            return modules[head], rest
        if head in functions and not rest:
            return functions[head], head
        module, _, name = dotted.rpartition(".")
        if module.startswith("bundletui.store."):
            return module, name
        return None

    def is_store_call(node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and store_function(node.func) is not None

    _, module_sql = _assigned(list(_in_scope(tree)), is_store_call)
    wrong = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, SCOPES))]:
        nodes = list(_in_scope(scope))
        local, local_sql = _assigned(nodes, is_store_call)
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            local |= {a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)}
        sql_names = local_sql | (module_sql - local)
        for node in nodes:
            if isinstance(node, ast.Name | ast.Attribute):
                module, name = store_function(node) or ("", "")
                if module == "bundletui.store.jobs" and name in RAW_SQL_HELPERS:
                    wrong.append(f"{node.lineno}: store.jobs.{name} (raw WHERE)")
            if not isinstance(node, ast.Call) or store_function(node.func) is None:
                continue
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                named = any(isinstance(n, ast.Name) and n.id in sql_names for n in ast.walk(arg))
                if _is_sql(arg) or named:
                    wrong.append(f"{arg.lineno}: SQL text passed to {_dotted(node.func)}")
    return sorted(wrong, key=lambda w: int(w.split(":")[0]))


def test_no_layer_hands_sql_text_to_the_store() -> None:
    wrong = [
        f"{file}:{line}"
        for layer, file, _tree in modules()
        if layer != "store"
        for line in sql_passed_to_the_store((PACKAGE / file).read_text(encoding="utf-8"))
    ]
    assert wrong == []


def test_the_sql_scan_sees_sql_text_and_only_that() -> None:
    bad = (
        "from bundletui.store import jobs as js\n"
        "from bundletui.store.jobs import select, update_where\n"
        "from bundletui.store import events\n"
        "WHERE_ACTIVE = f\"status IN ({','.join('?' * 3)})\"\n"
        "js.select(conn, NodeRow, \"status = 'RUNNING'\")\n"  # 5: the helper
        "rows = select(conn, NodeRow, 'wf_id = ?', (w,))\n"  # 6: the helper
        "events.jobs_in(conn, f'coord_id = ? AND {WHERE_ACTIVE}')\n"  # 7: SQL text
        "js.actions_of(conn, c, order='nominal_time DESC')\n"  # 8: a sort
        "js.coord_children(conn, WHERE_ACTIVE)\n"  # 9: a name holding SQL text
        "fn = js.update_where\n"  # 10: handed on
    )
    assert [int(w.split(":")[0]) for w in sql_passed_to_the_store(bad)] == [5, 5, 6, 6, 7, 8, 9, 10]
    good = (
        "from bundletui.store import jobs\n"
        "from bundletui.store import events as event_store\n"
        "WHERE = 'status = ?'\n"
        "log.warning('SELECT * FROM coord_actions WHERE id = ? failed: %s', err)\n"
        "raise CommandError('E0302', 'give --order ASC or DESC, not ORDER BY x')\n"
        "jobs.audit(tx, user=u, face='cli', command='kill', target=i, args={}, result='ok')\n"
        "jobs.actions_by_numbers(conn, coord.id, [1, 2])\n"
        "event_store.move_job(tx, job, 'DISCARDED', held_by='action KILLED')  # status = ?\n"
        "def f(status, WHERE):\n"  # parameters: not the module's WHERE
        "    '''Reads WHERE status = 'READY' ORDER BY nominal_time.'''\n"
        "    jobs.running_nodes(conn, WHERE)\n"
        "    jobs.update(tx, CoordRow, i, status=status)\n"
        "def g():\n"
        "    status = \"status = 'READY'\"\n"  # SQL text, but handed to no store function
        "    log.info(status)\n"
    )
    assert sql_passed_to_the_store(good) == []
