"""Workflow graph semantics: JobControl DAGs and Oozie transitions, driven step by step."""

from __future__ import annotations

from bundletui.model.apps import FsAction, Node, NodeType, WorkflowApp, WorkflowForm
from bundletui.model.status import NodeStatus, WorkflowStatus
from bundletui.model.wfgraph import NodeState, Step, advance

N = NodeStatus
ACT = FsAction(ops=())


def dag(**deps: tuple[str, ...]) -> WorkflowApp:
    nodes = tuple(Node(name, NodeType.ACTION, action=ACT, depends=d) for name, d in deps.items())
    return WorkflowApp("d", WorkflowForm.DAG, nodes)


def run(app: WorkflowApp, state: dict[str, NodeState], predicate=None) -> Step:  # type: ignore[no-untyped-def]
    step = advance(app, state, predicate)
    for name in step.ready:
        state[name] = NodeState(N.READY)
    for name in step.dependent_failed:
        state[name] = NodeState(N.DEPENDENT_FAILED)
    for name, to in step.passed:
        state[name] = NodeState(N.SUCCEEDED, to)
    for name in step.skipped:
        state[name] = NodeState(N.SKIPPED)
    return step


def finish(app: WorkflowApp, state: dict[str, NodeState], name: str, ok: bool = True) -> None:
    node = app.node(name)
    to = node.ok_to if ok else node.error_to
    state[name] = NodeState(N.SUCCEEDED if ok else N.FAILED, to)


NAIVE_BAYES = dag(extract=(), prior=("extract",), cond=("extract",), predict=("prior", "cond"))


def test_dag_runs_independent_jobs_in_parallel() -> None:
    state = {n.name: NodeState(N.WAITING) for n in NAIVE_BAYES.nodes}
    assert run(NAIVE_BAYES, state).ready == ["extract"]
    finish(NAIVE_BAYES, state, "extract")
    assert sorted(run(NAIVE_BAYES, state).ready) == ["cond", "prior"]
    finish(NAIVE_BAYES, state, "prior")
    assert run(NAIVE_BAYES, state).ready == []  # predict still waits for cond
    finish(NAIVE_BAYES, state, "cond")
    assert run(NAIVE_BAYES, state).ready == ["predict"]
    finish(NAIVE_BAYES, state, "predict")
    assert run(NAIVE_BAYES, state).outcome is WorkflowStatus.SUCCEEDED


def test_dag_failure_dominoes_but_independent_branch_goes_on() -> None:
    app = dag(a=(), b=("a",), c=("b",), x=(), y=("x",))
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    assert sorted(run(app, state).ready) == ["a", "x"]
    finish(app, state, "a", ok=False)
    step = run(app, state)
    assert sorted(step.dependent_failed) == ["b", "c"]  # transitively, in one step
    assert step.outcome is None  # x is still going
    finish(app, state, "x")
    assert run(app, state).ready == ["y"]
    finish(app, state, "y")
    assert run(app, state).outcome is WorkflowStatus.FAILED


def test_dag_advance_is_idempotent() -> None:
    state = {n.name: NodeState(N.WAITING) for n in NAIVE_BAYES.nodes}
    run(NAIVE_BAYES, state)
    assert not advance(NAIVE_BAYES, state)


def test_dag_rerun_skipped_nodes_count_as_done() -> None:
    state = {n.name: NodeState(N.WAITING) for n in NAIVE_BAYES.nodes}
    state["extract"] = NodeState(N.SKIPPED)
    assert sorted(run(NAIVE_BAYES, state).ready) == ["cond", "prior"]


def oozie_app() -> WorkflowApp:
    A = NodeType.ACTION
    nodes = (
        Node("check", A, action=ACT, ok_to="route", error_to="fail"),
        Node(
            "route",
            NodeType.DECISION,
            cases=(("${big}", "split"),),
            default_to="end",
        ),
        Node("split", NodeType.FORK, paths=("words", "lines")),
        Node("words", A, action=ACT, ok_to="merge", error_to="fail"),
        Node("lines", A, action=ACT, ok_to="merge", error_to="fail"),
        Node("merge", NodeType.JOIN, to="report"),
        Node("report", A, action=ACT, ok_to="end", error_to="fail"),
        Node("fail", NodeType.KILL, message="failed at ${wf:lastErrorNode()}"),
        Node("end", NodeType.END),
    )
    return WorkflowApp("o", WorkflowForm.OOZIE, nodes, start_to="check")


def test_oozie_decision_fork_join_end() -> None:
    app = oozie_app()
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    assert run(app, state).ready == ["check"]
    finish(app, state, "check")
    step = run(app, state, lambda text: text == "${big}")
    assert ("route", "split") in step.passed and ("split", None) in step.passed
    assert sorted(step.ready) == ["lines", "words"]
    finish(app, state, "words")
    assert run(app, state, lambda t: True).ready == []  # join waits for both paths
    finish(app, state, "lines")
    step = run(app, state, lambda t: True)
    assert ("merge", "report") in step.passed and step.ready == ["report"]
    finish(app, state, "report")
    step = run(app, state, lambda t: True)
    assert step.outcome is WorkflowStatus.SUCCEEDED
    assert sorted(step.skipped) == ["fail"]


def test_oozie_decision_default_skips_branch() -> None:
    app = oozie_app()
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    run(app, state)
    finish(app, state, "check")
    step = run(app, state, lambda text: False)
    assert ("route", "end") in step.passed
    assert step.outcome is WorkflowStatus.SUCCEEDED
    assert set(step.skipped) == {"split", "words", "lines", "merge", "report", "fail"}


def test_oozie_error_transition_to_kill_kills_running_branch() -> None:
    app = oozie_app()
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    run(app, state)
    finish(app, state, "check")
    run(app, state, lambda t: True)
    state["lines"] = NodeState(N.RUNNING)
    finish(app, state, "words", ok=False)
    step = run(app, state, lambda t: True)
    assert step.outcome is WorkflowStatus.KILLED
    assert step.kill_running == ["lines"]
    assert step.kill_message == "failed at ${wf:lastErrorNode()}"


def test_oozie_replay_after_restart_is_idempotent() -> None:
    app = oozie_app()
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    run(app, state)
    finish(app, state, "check")
    run(app, state, lambda t: True)
    assert not advance(app, state, lambda t: True)


def test_oozie_failure_without_path_fails_workflow() -> None:
    app = oozie_app()
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    run(app, state)
    state["check"] = NodeState(N.FAILED, None)  # e.g. could not even start (EL error)
    assert run(app, state).outcome is WorkflowStatus.FAILED


# ----------------------------------------------------------------------------- incremental == full

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bundletui.model.wfgraph import advance_dag_after  # noqa: E402


@st.composite
def dags_and_runs(draw: st.DrawFn) -> tuple[WorkflowApp, list[tuple[str, bool]]]:
    n = draw(st.integers(1, 12))
    deps = {}
    for i in range(n):
        parents = draw(st.lists(st.integers(0, i - 1), unique=True, max_size=3)) if i else []
        deps[f"j{i}"] = tuple(f"j{p}" for p in parents)
    app = dag(**deps)
    outcomes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return app, [(f"j{i}", outcomes[i]) for i in range(n)]


@settings(max_examples=200, deadline=None)
@given(dags_and_runs())
def test_incremental_dag_step_equals_the_full_pass(
    case: tuple[WorkflowApp, list[tuple[str, bool]]],
) -> None:
    app, outcomes = case
    ok = dict(outcomes)
    full = {n.name: NodeState(N.WAITING) for n in app.nodes}
    inc = dict(full)
    run(app, full)
    first = advance(app, inc)  # the start is a full pass in the runner too
    for name in first.ready:
        inc[name] = NodeState(N.READY)
    for _ in range(len(outcomes) + 1):
        ready = [n for n, s in full.items() if s.status is N.READY]
        assert ready == [n for n, s in inc.items() if s.status is N.READY]
        if not ready:
            break
        name = ready[0]
        done = N.SUCCEEDED if ok[name] else N.FAILED
        full[name] = inc[name] = NodeState(done)
        run(app, full)
        step = advance_dag_after(app, {name: done}, lambda names: {k: inc[k].status for k in names})
        for r in step.ready:
            inc[r] = NodeState(N.READY)
        for d in step.dependent_failed:
            inc[d] = NodeState(N.DEPENDENT_FAILED)
        assert {k: v.status for k, v in inc.items()} == {k: v.status for k, v in full.items()}


def cleanup_app() -> WorkflowApp:
    """a fails to cleanup (ok to end); a succeeds to b (ok to end)."""
    A = NodeType.ACTION
    nodes = (
        Node("a", A, action=ACT, ok_to="b", error_to="cleanup"),
        Node("b", A, action=ACT, ok_to="end", error_to="end"),
        Node("cleanup", A, action=ACT, ok_to="end", error_to="end"),
        Node("end", NodeType.END),
    )
    return WorkflowApp("c", WorkflowForm.OOZIE, nodes, start_to="a")


def test_a_rerun_walks_from_start_not_from_a_kept_node_s_old_transition() -> None:
    """QA: a rerun keeps the nodes it skips with the transition they took. ``cleanup`` (kept,
    ok to end) ended the run at once: ``a`` was never run again and the job SUCCEEDED."""
    app = cleanup_app()
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    state["cleanup"] = NodeState(N.SUCCEEDED, "end")  # kept from the first run; a was reset
    step = run(app, state)
    assert step.ready == ["a"] and step.outcome is None
    finish(app, state, "a")
    assert run(app, state).ready == ["b"]
    finish(app, state, "b")
    step = run(app, state)
    assert step.outcome is WorkflowStatus.SUCCEEDED


def test_a_decision_after_a_rerun_is_taken_again() -> None:
    """QA: pre → decision d → b | c. A rerun skipping b (ok to end) ended at once; now pre
    runs, d decides again and c runs."""
    A = NodeType.ACTION
    app = WorkflowApp(
        "d",
        WorkflowForm.OOZIE,
        (
            Node("pre", A, action=ACT, ok_to="d", error_to="end"),
            Node("d", NodeType.DECISION, cases=(("${x eq '1'}", "b"),), default_to="c"),
            Node("b", A, action=ACT, ok_to="end", error_to="end"),
            Node("c", A, action=ACT, ok_to="end", error_to="end"),
            Node("end", NodeType.END),
        ),
        start_to="pre",
    )
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    state["b"] = NodeState(N.SUCCEEDED, "end")
    assert run(app, state).ready == ["pre"]
    finish(app, state, "pre")
    step = run(app, state, lambda _text: False)
    assert ("d", "c") in step.passed and step.ready == ["c"] and step.outcome is None


def test_a_fork_path_that_starts_at_its_join_arrives_there() -> None:
    """QA: ``<path start="j"/>`` beside ``a`` (ok to j): the join never counted that path and
    the run ended FAILED with no error; Oozie's join gets both arrivals."""
    A = NodeType.ACTION
    app = WorkflowApp(
        "f",
        WorkflowForm.OOZIE,
        (
            Node("f", NodeType.FORK, paths=("a", "j")),
            Node("a", A, action=ACT, ok_to="j", error_to="end"),
            Node("j", NodeType.JOIN, to="end"),
            Node("end", NodeType.END),
        ),
        start_to="f",
    )
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    assert run(app, state).ready == ["a"]
    assert not run(app, state)  # the join waits for a
    finish(app, state, "a")
    step = run(app, state)
    assert ("j", "end") in step.passed and step.outcome is WorkflowStatus.SUCCEEDED


def test_a_stalled_run_says_why() -> None:
    """A run that stops with no failed node and no end said nothing: FAILED, error ``-``."""
    app = cleanup_app()
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    state["a"] = NodeState(N.KILLED, None)
    step = run(app, state)
    assert step.outcome is WorkflowStatus.FAILED
    assert step.stall_reason == "node [a] ended KILLED with no transition onward"


def test_a_join_that_goes_to_the_outer_join_arrives_there() -> None:
    """QA (t): f1(p1, f2), f2(q1, q2) → j2 → j1: the inner join's pass was no arrival at the
    outer one, and the run failed EB0508 (a regression of the walk from start)."""
    A = NodeType.ACTION
    app = WorkflowApp(
        "n",
        WorkflowForm.OOZIE,
        (
            Node("f1", NodeType.FORK, paths=("p1", "f2")),
            Node("f2", NodeType.FORK, paths=("q1", "q2")),
            Node("p1", A, action=ACT, ok_to="j1", error_to="end"),
            Node("q1", A, action=ACT, ok_to="j2", error_to="end"),
            Node("q2", A, action=ACT, ok_to="j2", error_to="end"),
            Node("j2", NodeType.JOIN, to="j1"),
            Node("j1", NodeType.JOIN, to="end"),
            Node("end", NodeType.END),
        ),
        start_to="f1",
    )
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    assert sorted(run(app, state).ready) == ["p1", "q1", "q2"]
    for name in ("q1", "q2"):
        finish(app, state, name)
    step = run(app, state)
    assert ("j2", "j1") in step.passed and step.outcome is None  # p1 still runs
    finish(app, state, "p1")
    step = run(app, state)
    assert ("j1", "end") in step.passed and step.outcome is WorkflowStatus.SUCCEEDED


def test_a_kept_node_follows_the_definition_a_rerun_read_again() -> None:
    """QA (t): bx went ok to c; the definition read again by the rerun sends it to c2 (c is
    gone). The walk followed the stored c, found nothing, and failed EB0508."""
    A = NodeType.ACTION
    app = WorkflowApp(
        "r",
        WorkflowForm.OOZIE,
        (
            Node("bx", A, action=ACT, ok_to="c2", error_to="end"),
            Node("c2", A, action=ACT, ok_to="end", error_to="end"),
            Node("end", NodeType.END),
        ),
        start_to="bx",
    )
    state = {n.name: NodeState(N.WAITING) for n in app.nodes}
    state["bx"] = NodeState(N.SUCCEEDED, "c")  # kept, with the first run's transition
    assert run(app, state).ready == ["c2"]
