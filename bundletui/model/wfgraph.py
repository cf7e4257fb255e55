"""How a workflow moves forward, for both forms, as one idempotent pure function.

:func:`advance` looks at the nodes' current statuses (and, for the Oozie form, the transition each
finished node took) and says which nodes become READY, DEPENDENT_FAILED or SKIPPED, which control
nodes are passed, and whether the workflow is over. Calling it twice on the same state gives no
new changes, so the engine can call it after every completion and after a restart alike.

- DAG form (Hadoop JobControl): a node is READY when every dependency SUCCEEDED (or was skipped
  by a rerun); a failed dependency makes it DEPENDENT_FAILED, transitively, while independent
  branches go on; the workflow SUCCEEDED when all nodes did, else FAILED.
- Oozie form: arrival at a node through ``start/@to``, ``ok/@to``, ``error/@to``, a decision's
  case, a fork's paths or a join's ``to``; a join passes when every path of its fork arrived;
  ``end`` succeeds the workflow and ``kill`` kills it (still-running branches are killed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from bundletui.model.apps import Node, NodeType, WorkflowApp, WorkflowForm
from bundletui.model.status import NODE_TERMINAL, NodeStatus, WorkflowStatus

N = NodeStatus
DONE_OK = frozenset({N.SUCCEEDED, N.SKIPPED})
DONE_BAD = frozenset({N.FAILED, N.DEPENDENT_FAILED, N.KILLED})


@dataclass(frozen=True, slots=True)
class NodeState:
    status: NodeStatus
    transition: str | None = None  # Oozie form: where a finished node went


@dataclass(slots=True)
class Step:
    """What :func:`advance` decided. Empty when nothing changes."""

    ready: list[str] = field(default_factory=list)
    dependent_failed: list[str] = field(default_factory=list)
    failed_dependency: dict[str, str] = field(default_factory=dict)  # node -> the one that failed
    passed: list[tuple[str, str | None]] = field(
        default_factory=list
    )  # control node, its transition
    skipped: list[str] = field(default_factory=list)
    outcome: WorkflowStatus | None = None
    kill_running: list[str] = field(default_factory=list)
    kill_message: str | None = None  # the kill node's (unresolved) message
    stall_reason: str | None = None  # FAILED with no failed node: why

    def __bool__(self) -> bool:
        return bool(
            self.ready or self.dependent_failed or self.passed or self.skipped or self.outcome
        )


Predicate = Callable[[str], bool]  # evaluates a decision case's EL predicate


def advance(
    app: WorkflowApp,
    nodes: Mapping[str, NodeState],
    predicate: Predicate | None = None,
) -> Step:
    if app.form is WorkflowForm.DAG:
        return _advance_dag(app, nodes)
    return _advance_oozie(app, nodes, predicate or (lambda _text: False))


# ----------------------------------------------------------------------------- DAG


def topological_order(app: WorkflowApp) -> list[Node]:
    """Nodes ordered so each comes after its dependencies (the spec layer rejects cycles)."""
    by_name = {n.name: n for n in app.nodes}
    seen: set[str] = set()
    order: list[Node] = []

    def visit(name: str) -> None:
        stack = [(name, False)]
        while stack:
            current, expanded = stack.pop()
            if expanded:
                if current not in seen:
                    seen.add(current)
                    order.append(by_name[current])
                continue
            if current in seen:
                continue
            stack.append((current, True))
            stack.extend(
                (dep, False) for dep in reversed(by_name[current].depends) if dep not in seen
            )

    for node in app.nodes:
        visit(node.name)
    return order


def _advance_dag(app: WorkflowApp, nodes: Mapping[str, NodeState]) -> Step:
    step = Step()
    status = {name: st.status for name, st in nodes.items()}
    for node in topological_order(app):
        if status.get(node.name) is not N.WAITING:
            continue
        deps = [status.get(d, N.WAITING) for d in node.depends]
        bad = next((d for d in node.depends if status.get(d, N.WAITING) in DONE_BAD), None)
        if bad is not None:
            status[node.name] = N.DEPENDENT_FAILED
            step.dependent_failed.append(node.name)
            step.failed_dependency[node.name] = bad
        elif all(d in DONE_OK for d in deps):
            status[node.name] = N.READY
            step.ready.append(node.name)
    if all(s in NODE_TERMINAL for s in status.values()):
        ok = all(s in DONE_OK for s in status.values())
        step.outcome = WorkflowStatus.SUCCEEDED if ok else WorkflowStatus.FAILED
    return step


# ----------------------------------------------------------------------------- Oozie


def _advance_oozie(app: WorkflowApp, nodes: Mapping[str, NodeState], predicate: Predicate) -> Step:
    """A walk from ``start`` along the transitions this run took. Only the nodes it reaches
    count: a rerun keeps the transitions of the nodes it skips, and one of those (``ok`` to
    ``end``) must not end the run before the walk gets there."""
    step = Step()
    by_name = {n.name: n for n in app.nodes}
    status = {name: st.status for name, st in nodes.items()}
    transition = {name: st.transition for name, st in nodes.items()}
    fork_of_join = pair_joins(app)

    work: list[str] = [app.start_to] if app.start_to else []
    reached: set[str] = set()
    outcome: WorkflowStatus | None = None
    visited_joins: set[str] = set()
    while work and outcome is None:
        target = work.pop(0)
        node = by_name.get(target)
        if node is None:
            continue
        if node.type is not NodeType.JOIN:
            if target in reached:
                continue
            reached.add(target)
        current = status.get(target, N.WAITING)
        if node.type is NodeType.ACTION:
            if current is N.WAITING:
                status[target] = N.READY
                step.ready.append(target)
            elif current in NODE_TERMINAL:
                went = _went(node, current, transition.get(target))
                transition[target] = went  # as the definition says (a rerun may read a new one)
                if went:
                    work.append(went)
            continue
        if node.type is NodeType.JOIN:
            if target in visited_joins:
                continue
            if current is not N.WAITING:  # passed before: on to where it went
                visited_joins.add(target)
                reached.add(target)  # an arrival at the join it goes to (nested forks)
                if current in DONE_OK and transition.get(target):
                    work.append(transition[target] or "")
                continue
            fork = by_name.get(fork_of_join.get(target, ""))
            if _arrivals(target, fork, reached, status, transition) >= (
                len(fork.paths) if fork is not None else 1
            ):
                visited_joins.add(target)
                reached.add(target)
                _pass(step, status, transition, target, node.to)
                work.append(node.to or "")
            continue
        if current is not N.WAITING:
            # a decision/fork already passed: follow where it went (idempotent replay)
            if current in DONE_OK and node.type is NodeType.FORK:
                work.extend(p for p in node.paths)
            elif current in DONE_OK and transition.get(target):
                work.append(transition[target] or "")
            continue
        if node.type is NodeType.DECISION:
            chosen = next((to for text, to in node.cases if predicate(text)), node.default_to)
            _pass(step, status, transition, target, chosen)
            work.append(chosen or "")
        elif node.type is NodeType.FORK:
            _pass(step, status, transition, target, None)
            work.extend(node.paths)
        elif node.type is NodeType.KILL:
            _pass(step, status, transition, target, None)
            outcome = WorkflowStatus.KILLED
            step.kill_message = node.message
        elif node.type is NodeType.END:
            _pass(step, status, transition, target, None)
            outcome = WorkflowStatus.SUCCEEDED
        elif node.type is NodeType.START:
            _pass(step, status, transition, target, node.to)
            work.append(node.to or "")

    if outcome is None and _stalled(app, status, step):
        # Nothing runs, nothing is ready, and no end was reached: an action failed with no
        # path onward (or a join can never complete). Oozie calls that FAILED.
        outcome = WorkflowStatus.FAILED
        step.stall_reason = _stall_reason(by_name, reached, status, transition)
    if outcome is not None:
        step.outcome = outcome
        for name, st in status.items():
            if st is N.RUNNING:
                step.kill_running.append(name)
            elif st in (N.WAITING, N.READY):
                step.skipped.append(name)
        step.ready = [n for n in step.ready if n not in step.skipped]
    return step


def _went(node: Node, status: NodeStatus, stored: str | None) -> str | None:
    """Where a finished action goes on: ``ok`` when it succeeded, ``error`` when it failed
    and took its error path (a KILLED one, or a failure with no path taken, goes nowhere).
    Read from the definition, not only the stored transition: a rerun reads the workflow
    again, and a kept node follows its new transitions, as Oozie signals them."""
    if stored is None:
        return None
    if status is N.SUCCEEDED and node.ok_to:
        return node.ok_to
    if status is N.FAILED and node.error_to:
        return node.error_to
    return stored


def _arrivals(
    join: str,
    fork: Node | None,
    reached: set[str],
    status: Mapping[str, NodeStatus],
    transition: Mapping[str, str | None],
) -> int:
    """Paths of this run that arrived at ``join``: finished nodes the walk reached whose
    transition is the join, and a passed fork's paths that start at the join itself."""
    arrived = sum(
        1 for n in reached if transition.get(n) == join and status.get(n) in NODE_TERMINAL
    )
    if fork is not None and fork.name in reached and status.get(fork.name) in DONE_OK:
        arrived += sum(1 for p in fork.paths if p == join)
    return arrived


def _stall_reason(
    by_name: Mapping[str, Node],
    reached: set[str],
    status: Mapping[str, NodeStatus],
    transition: Mapping[str, str | None],
) -> str:
    """Why a run that stalled failed, for its error message (it had none)."""
    dead = sorted(
        n
        for n in reached
        if by_name[n].type is NodeType.ACTION
        and status.get(n) in NODE_TERMINAL
        and not transition.get(n)
    )
    if dead:
        return f"node [{dead[0]}] ended {status[dead[0]]} with no transition onward"
    joins = sorted(
        n
        for n, node in by_name.items()
        if node.type is NodeType.JOIN and status.get(n) is N.WAITING
    )
    waiting = f" (join [{joins[0]}] can never complete)" if joins else ""
    return f"no path of this run reaches an end or a kill node{waiting}"


def _pass(
    step: Step,
    status: dict[str, NodeStatus],
    transition: dict[str, str | None],
    name: str,
    to: str | None,
) -> None:
    status[name] = N.SUCCEEDED
    transition[name] = to
    step.passed.append((name, to))


def _stalled(app: WorkflowApp, status: Mapping[str, NodeStatus], step: Step) -> bool:
    if step.ready:
        return False
    live = {N.READY, N.RUNNING}
    if any(s in live for s in status.values()):
        return False
    # Started at all? (a brand-new workflow with start_to pending is not stalled)
    return any(s in NODE_TERMINAL for s in status.values())


def pair_joins(app: WorkflowApp) -> dict[str, str]:
    """Pair each join with the fork whose paths reach it (validated at submit, unless the job
    set ``oozie.wf.validate.ForkJoin=false``: a join no fork pairs passes at one arrival)."""
    by_name = {n.name: n for n in app.nodes}
    result: dict[str, str] = {}
    for fork in (n for n in app.nodes if n.type is NodeType.FORK):
        for path in fork.paths:
            join = _first_join(by_name, path, set())
            if join:
                result.setdefault(join, fork.name)
    return result


def _first_join(by_name: Mapping[str, Node], start: str, seen: set[str]) -> str | None:
    """Follow ok transitions (and nested fork/join pairs) from ``start`` to the next join."""
    name: str | None = start
    while name and name not in seen:
        seen.add(name)
        node = by_name.get(name)
        if node is None:
            return None
        if node.type is NodeType.JOIN:
            return name
        if node.type is NodeType.FORK:
            inner = _first_join(by_name, node.paths[0], seen) if node.paths else None
            name = by_name[inner].to if inner else None
        elif node.type is NodeType.DECISION:
            name = node.default_to
        elif node.type is NodeType.ACTION:
            name = node.ok_to
        else:
            name = node.to
    return None


# ----------------------------------------------------------------------------- indexes & incremental DAG


@dataclass(frozen=True, slots=True)
class AppIndex:
    """Lookups over one workflow definition, built once per definition object."""

    by_name: Mapping[str, Node]
    dependents: Mapping[str, tuple[str, ...]]  # DAG form: who depends on a node


_INDEXES: dict[int, tuple[WorkflowApp, AppIndex]] = {}


def index_of(app: WorkflowApp) -> AppIndex:
    """The app's index, cached per definition object (the runner keeps one object per
    workflow, so lookups are O(1) instead of a scan of the nodes)."""
    hit = _INDEXES.get(id(app))
    if hit is not None and hit[0] is app:
        return hit[1]
    dependents: dict[str, list[str]] = {n.name: [] for n in app.nodes}
    for n in app.nodes:
        for dep in n.depends:
            dependents.setdefault(dep, []).append(n.name)
    index = AppIndex({n.name: n for n in app.nodes}, {k: tuple(v) for k, v in dependents.items()})
    if len(_INDEXES) > 10_000:
        _INDEXES.clear()
    _INDEXES[id(app)] = (app, index)
    return index


Lookup = Callable[[set[str]], Mapping[str, NodeStatus]]


def advance_dag_after(app: WorkflowApp, finished: Mapping[str, NodeStatus], lookup: Lookup) -> Step:
    """JobControl's step after some nodes finished, looking only at what they can affect: their
    dependents (READY when every dependency is done well) and, for a failed node, everything
    downstream of it (DEPENDENT_FAILED). Equal to :func:`advance` restricted to those nodes; the
    caller decides the workflow's outcome from its node counts."""
    index = index_of(app)
    step = Step()
    doomed: dict[str, str] = {}  # node -> the dependency that dooms it
    stack = [name for name, st in finished.items() if st in DONE_BAD]
    while stack:
        parent = stack.pop()
        for child in index.dependents.get(parent, ()):
            if child not in doomed:
                doomed[child] = parent
                stack.append(child)
    candidates = {c for name in finished for c in index.dependents.get(name, ())} - doomed.keys()
    needed = set(doomed) | candidates
    for c in candidates:
        needed.update(index.by_name[c].depends)
    status = dict(lookup(needed))
    status.update(finished)
    for name in sorted(doomed):
        if status.get(name) in (N.WAITING, N.READY):
            step.dependent_failed.append(name)
            step.failed_dependency[name] = doomed[name]
    for name in sorted(candidates):
        if status.get(name) is N.WAITING and all(
            status.get(d) in DONE_OK for d in index.by_name[name].depends
        ):
            step.ready.append(name)
    return step


SUSPEND_ON_NODES = "oozie.suspend.on.nodes"


def suspend_point(conf: Mapping[str, str], names: Iterable[str]) -> str | None:
    """The first of ``names`` (nodes just reached) the job is to be suspended before: Oozie's
    ``oozie.suspend.on.nodes``, node names separated by commas, or ``*`` alone for every
    node. A debugging aid: the node waits, READY, until the job is resumed."""
    value = conf.get(SUSPEND_ON_NODES, "")
    points = {p.strip() for p in value.split(",")} - {""}
    if not points:
        return None
    every = points == {"*"}
    return next((n for n in names if every or n in points), None)
