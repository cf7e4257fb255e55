"""Graph validation of a decoded workflow, in either form.

Oozie form: the rules of Oozie's workflow validator — unique names (E0705), valid names
(E0724), existing transition targets (E0708), no loops (E0706/E0707), and fork/join pairing
(E0730, E0731, E0733, E0737, E0742-E0744, E0757, E0758) walked from the start node the way
Oozie walks it. DAG form (JobControl): unique names, dependencies on defined jobs, no cycles.
Every error names the file, the node's line and how to fix it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from bundletui.errors import SpecError
from bundletui.model.apps import Node, NodeType, WorkflowApp, WorkflowForm

MAX_NODE_NAME_LENGTH = 128
_NAME = re.compile(r"[a-zA-Z_][\-_a-zA-Z0-9]*")


def check_workflow(app: WorkflowApp, *, validate_fork_join: bool = True) -> None:
    """Raise the first :class:`SpecError` found in ``app``'s graph."""
    _check_names(app)
    if app.form is WorkflowForm.DAG:
        _check_dag(app)
    else:
        _OozieChecker(app).run(validate_fork_join)


def _error(app: WorkflowApp, node: Node | None, code: str, message: str, hint: str) -> SpecError:
    return SpecError(
        code, message, hint=hint, file=app.source or None, line=node.line if node else None
    )


def _check_names(app: WorkflowApp) -> None:
    what = "job" if app.form is WorkflowForm.DAG else "node"
    seen: dict[str, Node] = {}
    for node in app.nodes:
        name = node.name
        if not name or len(name) > MAX_NODE_NAME_LENGTH or not _NAME.fullmatch(name):
            reason = (
                f"name [{name}] must be {MAX_NODE_NAME_LENGTH} chars or less"
                if len(name) > MAX_NODE_NAME_LENGTH
                else f"name [{name}] must start with [A-Za-z_] and contain only [A-Za-z0-9_-]"
            )
            raise _error(
                app,
                node,
                "E0724",
                f"Invalid node name, {reason}",
                f"rename the {what}, e.g. '{re.sub(r'[^A-Za-z0-9_-]', '_', name) or 'step1'}'",
            )
        if name in seen:
            raise _error(
                app,
                node,
                "E0705",
                f"Node already defined, node [{name}]",
                f"{what} names must be unique; '{name}' is already used at line {seen[name].line}",
            )
        seen[name] = node


# --------------------------------------------------------------------------- DAG form


def _check_dag(app: WorkflowApp) -> None:
    by_name = {n.name: n for n in app.nodes}
    for node in app.nodes:
        for dep in node.depends:
            if dep not in by_name:
                raise _error(
                    app,
                    node,
                    "E0708",
                    f"Invalid transition, node [{node.name}] transition [{dep}]: job "
                    f"[{node.name}] depends on [{dep}], which is not defined",
                    f"define <job name=\"{dep}\"> or fix the <depends> of '{node.name}'",
                )
    # Iterative three-colour DFS along depends; a grey hit is a cycle.
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(by_name, white)
    for root in app.nodes:
        if colour[root.name] != white:
            continue
        stack: list[tuple[str, int]] = [(root.name, 0)]
        colour[root.name] = grey
        while stack:
            name, idx = stack[-1]
            deps = by_name[name].depends
            if idx == len(deps):
                colour[name] = black
                stack.pop()
                continue
            stack[-1] = (name, idx + 1)
            dep = deps[idx]
            if colour[dep] == grey:
                chain = [n for n, _ in stack]
                cycle = [*chain[chain.index(dep) :], dep]
                raise _error(
                    app,
                    by_name[dep],
                    "E0707",
                    f"Loop detected at parsing, node [{dep}], path [{'->'.join(cycle)}]",
                    "jobs may not depend on themselves, directly or through others ("
                    + " depends on ".join(cycle)
                    + "); remove one <depends> on that path",
                )
            if colour[dep] == white:
                colour[dep] = grey
                stack.append((dep, 0))


# --------------------------------------------------------------------------- Oozie form


def transitions(node: Node) -> tuple[str, ...]:
    """Where a node may go next, in Oozie's order (ok before error, cases before default)."""
    t = node.type
    if t is NodeType.ACTION:
        return tuple(x for x in (node.ok_to, node.error_to) if x is not None)
    if t is NodeType.DECISION:
        default = (node.default_to,) if node.default_to is not None else ()
        return (*(to for _, to in node.cases), *default)
    if t is NodeType.FORK:
        return node.paths
    if t in (NodeType.JOIN, NodeType.START):
        return (node.to,) if node.to is not None else ()
    return ()


@contextmanager
def _deep_recursion(limit: int) -> Iterator[None]:
    old = sys.getrecursionlimit()
    if limit > old:
        sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


class _OozieChecker:
    START = ":start:"

    def __init__(self, app: WorkflowApp) -> None:
        self.app = app
        self.nodes: dict[str, Node] = {n.name: n for n in app.nodes}
        self.start = Node(self.START, NodeType.START, to=app.start_to, line=app.start_line)
        self.fork_joins: dict[str, str] = {}  # join -> its fork
        self.decision_parents: dict[str, str | None] = {}  # node -> eldest decision above it
        self.visited: set[str] = set()
        self.path: list[str] = []

    def node(self, name: str) -> Node:
        return self.start if name == self.START else self.nodes[name]

    def err(self, node: Node | None, code: str, message: str, hint: str) -> SpecError:
        return _error(self.app, node, code, message, hint)

    def run(self, validate_fork_join: bool) -> None:
        self.check_targets()
        forks, joins = self.basic_walk()
        if not validate_fork_join:
            return
        if len(forks) != len(joins):
            raise self.err(
                self._unpaired(forks, joins),
                "E0730",
                f"Fork/Join not in pair ({len(forks)} fork(s), {len(joins)} join(s) reachable"
                " from start)",
                "every <fork> needs exactly one <join> that all of its paths reach",
            )
        with _deep_recursion(4 * len(self.nodes) + 200):
            self.walk(self.start, None, None, True)

    # ---- every transition names a node (all nodes, reachable or not)
    def check_targets(self) -> None:
        if self.app.start_to is None or self.app.start_to not in self.nodes:
            raise self.err(
                self.start,
                "E0708",
                f"Invalid transition, node [{self.START}] transition [{self.app.start_to}]",
                "<start to=…> must name a node of this workflow",
            )
        for node in self.app.nodes:
            if node.type is NodeType.FORK and len(node.paths) < 2:
                raise self.err(
                    node,
                    "E0731",
                    f"Fork node [{node.name}] cannot have less than two paths",
                    "a fork starts two or more paths; for one path, transition directly",
                )
            for t in transitions(node):
                if t not in self.nodes:
                    raise self.err(
                        node,
                        "E0708",
                        f"Invalid transition, node [{node.name}] transition [{t}]",
                        f"'{t}' is not a node of this workflow; defined: "
                        + ", ".join(sorted(self.nodes)),
                    )

    # ---- loops, counted forks and joins (reachable part, as Oozie)
    def _unpaired(self, forks: list[str], joins: list[str]) -> Node | None:
        """The first fork no join pairs, or join no fork reaches: the line the error names."""
        from bundletui.model.wfgraph import pair_joins

        pairs = pair_joins(self.app)
        alone = [f for f in forks if f not in pairs.values()] or [
            j for j in joins if j not in pairs
        ]
        if not alone:  # each pairs with something: a second join of one fork is the extra
            seen: set[str] = set()
            for j in joins:
                if pairs[j] in seen:
                    alone = [j]
                    break
                seen.add(pairs[j])
        alone = alone or forks or joins  # at worst, the first of them: a line to look at
        return self.nodes[alone[0]] if alone else None

    def basic_walk(self) -> tuple[list[str], list[str]]:
        """The forks and joins reachable from start, in walk order (and the loop checks)."""
        forks: list[str] = []
        joins: list[str] = []
        done: set[str] = set()
        on_path: dict[str, int] = {}
        path: list[str] = []
        stack: list[tuple[str, int]] = [(self.START, 0)]
        on_path[self.START] = 0
        path.append(self.START)
        while stack:
            name, idx = stack[-1]
            node = self.node(name)
            if idx == 0:
                if node.type is NodeType.FORK:
                    forks.append(name)
                elif node.type is NodeType.JOIN:
                    joins.append(name)
            outs = transitions(node)
            if idx == len(outs):
                stack.pop()
                path.pop()
                del on_path[name]
                done.add(name)
                continue
            stack[-1] = (name, idx + 1)
            nxt = outs[idx]
            if nxt == name:
                raise self.err(
                    node,
                    "E0706",
                    f"Node cannot transition to itself node [{name}]",
                    "use retry-max / retry-interval to repeat an action",
                )
            if nxt in on_path:
                cycle = [*path[on_path[nxt] :], nxt]
                raise self.err(
                    self.node(nxt),
                    "E0707",
                    f"Loop detected at parsing, node [{nxt}], path [{'->'.join(cycle)}]",
                    "workflows are acyclic: no transition may lead back to an earlier node "
                    f"({' -> '.join(cycle)})",
                )
            if nxt not in done:
                on_path[nxt] = len(path)
                path.append(nxt)
                stack.append((nxt, 0))
        return forks, joins

    # ---- fork/join pairing and single "ok" paths, after Oozie's validateForkJoin
    def walk(self, node: Node, fork: Node | None, decision: str | None, ok_path: bool) -> None:
        name = node.name
        self.path.append(name)
        t = node.type
        if ok_path and t not in (NodeType.KILL, NodeType.JOIN, NodeType.END):
            if name not in self.decision_parents:
                self.decision_parents[name] = decision
            else:
                parent = self.decision_parents[name]
                if (parent is None and decision is None) or parent != decision:
                    raise self.err(
                        node,
                        "E0743",
                        f'Multiple "ok to" transitions to the same node, [{name}], are not allowed',
                        "two paths that can run together (fork branches) must not both "
                        f"continue to '{name}'; give each branch its own node or join first",
                    )
        if name in self.visited:
            self.path.pop()
            return
        if t not in (NodeType.JOIN, NodeType.END):
            self.visited.add(name)

        if t is NodeType.FORK:
            self.check_fork_targets(node)
            for p in node.paths:
                self.walk(self.nodes[p], node, decision, ok_path)
            joins = sorted(j for j, f in self.fork_joins.items() if f == name)
            if not joins:
                raise self.err(
                    node,
                    "E0733",
                    f"Fork [{name}] without a join",
                    "every path of the fork must end at the same <join>",
                )
            if len(joins) > 1:
                raise self.err(
                    node,
                    "E0757",
                    f"Fork node [{name}] has multiple joins: [{','.join(joins)}]",
                    "all paths of a fork must meet at one <join>",
                )
            join = self.nodes[joins[0]]
            assert join.to is not None
            self.walk(self.nodes[join.to], fork, decision, ok_path)
        elif t is NodeType.JOIN:
            if fork is None:
                raise self.err(
                    node,
                    "E0742",
                    f"No Fork for Join [{name}] to pair with",
                    "a <join> is reached only from the paths of a <fork>",
                )
            paired = self.fork_joins.setdefault(name, fork.name)
            if paired != fork.name:
                raise self.err(
                    node,
                    "E0758",
                    f"Join node [{name}] has multiple forks: [{paired},{fork.name}]",
                    "give each fork its own join",
                )
        elif t is NodeType.DECISION:
            parent = decision if decision is not None else name
            for to in transitions(node):
                self.walk(self.nodes[to], fork, parent, ok_path)
        elif t is NodeType.END:
            if fork is not None:
                previous = self.path[-2] if len(self.path) > 1 else name
                raise self.err(
                    self.nodes.get(previous, node),
                    "E0737",
                    f"Invalid transition from node [{previous}] to node [{name}] -- nodes of "
                    "type 'end' are not allowed within Fork/Join",
                    f"inside fork '{fork.name}' go to its join (or a kill node), not to the end",
                )
        elif t is NodeType.ACTION:
            assert node.ok_to is not None and node.error_to is not None
            self.walk(self.nodes[node.ok_to], fork, decision, ok_path)
            self.walk(self.nodes[node.error_to], fork, decision, False)
        elif t is NodeType.START:
            assert node.to is not None
            self.walk(self.nodes[node.to], fork, decision, ok_path)
        self.path.pop()

    def check_fork_targets(self, node: Node) -> None:
        for p in node.paths:
            target = self.nodes[p]
            if target.type in (NodeType.JOIN, NodeType.KILL):
                continue
            if node.paths.count(p) > 1:
                raise self.err(
                    node,
                    "E0744",
                    f"A fork, [{node.name}], is not allowed to have multiple transitions to "
                    f"the same node, [{p}]",
                    "list each fork path once",
                )
