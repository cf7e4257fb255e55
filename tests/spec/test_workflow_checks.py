"""Graph validation: names, transitions, loops, fork/join pairing, DAG dependencies."""

from __future__ import annotations

from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.model.apps import FsAction, Node, NodeType, WorkflowApp, WorkflowForm
from bundletui.spec import xmlsafe
from bundletui.spec.decode_workflow import decode_workflow
from bundletui.spec.workflow_checks import check_workflow
from tests.spec.simple_resolver import SimpleResolver

FIX = Path(__file__).parent / "fixtures"
BAD = FIX / "bad"


def load(path: Path | str, data: bytes | None = None, **kw: bool) -> WorkflowApp:
    return decode_workflow(xmlsafe.load_document(path, data=data), SimpleResolver(), **kw)


def error(path: Path | str, data: bytes | None = None, **kw: bool) -> SpecError:
    with pytest.raises(SpecError) as info:
        load(path, data, **kw)
    return info.value


def wf(body: str) -> bytes:
    """A workflow 1.0 document; ``A(name, ok, error)`` style actions are spelled out."""
    return (
        '<workflow-app xmlns="uri:oozie:workflow:1.0" name="t">\n'
        + body
        + '\n  <kill name="fail"><message>m</message></kill>\n  <end name="end"/>\n</workflow-app>'
    ).encode()


def act(name: str, ok: str, err: str = "fail") -> str:
    return (
        f'  <action name="{name}"><fs><mkdir path="/tmp/{name}"/></fs>'
        f'<ok to="{ok}"/><error to="{err}"/></action>\n'
    )


def fork(name: str, *paths: str) -> str:
    return f'  <fork name="{name}">' + "".join(f'<path start="{p}"/>' for p in paths) + "</fork>\n"


def join(name: str, to: str) -> str:
    return f'  <join name="{name}" to="{to}"/>\n'


# --------------------------------------------------------------------------- fixtures


def test_cycle_reports_the_loop_path() -> None:
    err = error(BAD / "workflow-cycle.xml")
    assert err.code == "E0707"
    assert err.message == "Loop detected at parsing, node [a], path [a->b->c->a]"
    assert err.file == str(BAD / "workflow-cycle.xml")
    assert err.line == 3
    assert "a -> b -> c -> a" in (err.hint or "")


def test_unknown_transition() -> None:
    err = error(BAD / "workflow-unknown-transition.xml")
    assert err.code == "E0708"
    assert err.message == "Invalid transition, node [a] transition [ende]"
    assert err.line == 3
    assert "defined: a, end, fail" in (err.hint or "")


def test_fork_path_that_escapes_to_the_end() -> None:
    err = error(BAD / "workflow-fork-without-join.xml")
    assert err.code == "E0737"
    assert err.message.startswith("Invalid transition from node [b] to node [end]")
    assert err.line == 12  # the action that jumps out of the fork
    assert "fork 'f'" in (err.hint or "")


def test_dag_cycle_reports_the_dependency_path() -> None:
    err = error(BAD / "dag-cycle.xml")
    assert err.code == "E0707"
    assert "path [a->c->b->a]" in err.message
    assert err.line == 2
    assert "a depends on c depends on b depends on a" in (err.hint or "")


def test_good_fixtures_pass() -> None:
    for name in ("workflow-0.5.xml", "workflow-1.0.xml", "dag.xml"):
        doc = xmlsafe.load_document(FIX / name)
        decode_workflow(doc, SimpleResolver({"wfName": "etl"}))


# --------------------------------------------------------------------------- Oozie form


def test_duplicate_node_names() -> None:
    err = error("w.xml", wf('  <start to="a"/>\n' + act("a", "end") + act("a", "end")))
    assert err.code == "E0705"
    assert err.message == "Node already defined, node [a]"
    assert err.line == 4
    assert "line 3" in (err.hint or "")


def test_self_transition() -> None:
    err = error("w.xml", wf('  <start to="a"/>\n' + act("a", "a")))
    assert err.code == "E0706"
    assert err.line == 3


def test_start_to_unknown_node() -> None:
    err = error("w.xml", wf('  <start to="nowhere"/>\n' + act("a", "end")))
    assert err.code == "E0708"
    assert "[:start:] transition [nowhere]" in err.message


def test_forks_and_joins_must_balance() -> None:
    body = '  <start to="f"/>\n' + fork("f", "a", "b") + act("a", "fail") + act("b", "fail")
    err = error("w.xml", wf(body))
    assert err.code == "E0730"
    assert "1 fork(s), 0 join(s)" in err.message
    assert err.line == 3  # QA (r): the unpaired fork's line (it named the file only)
    load("w.xml", wf(body), validate_fork_join=False)  # oozie.wf.validate.ForkJoin=false
    lone_join = '  <start to="a"/>\n' + act("a", "j") + join("j", "end")
    err = error("w.xml", wf(lone_join))
    assert (err.code, err.line) == ("E0730", 4)  # a join no fork reaches
    two_joins = (
        '  <start to="f"/>\n'
        + fork("f", "a", "b")
        + act("a", "j1")
        + act("b", "j2")
        + join("j1", "end")
        + join("j2", "end")
    )
    err = error("w.xml", wf(two_joins))
    assert "1 fork(s), 2 join(s)" in err.message
    assert err.line is not None  # QA: a fork's paths ending at two joins named no line
    assert wf(two_joins).decode().splitlines()[err.line - 1].lstrip().startswith('<join name="j2"')


def test_join_reached_outside_its_fork() -> None:
    body = (
        '  <start to="d"/>\n'
        '  <decision name="d"><switch><case to="x">${p}</case><default to="f"/></switch></decision>\n'
        + fork("f", "x", "y")
        + act("x", "j")
        + act("y", "j")
        + join("j", "end")
    )
    err = error("w.xml", wf(body))
    assert err.code == "E0742"
    assert err.message == "No Fork for Join [j] to pair with"


def test_two_fork_paths_continue_to_the_same_node() -> None:
    body = (
        '  <start to="f"/>\n'
        + fork("f", "a", "b")
        + act("a", "c")
        + act("b", "c")
        + act("c", "j")
        + join("j", "end")
    )
    err = error("w.xml", wf(body))
    assert err.code == "E0743"
    assert "[c]" in err.message
    assert err.line == 6


def test_decisions_may_share_targets() -> None:
    body = (
        '  <start to="d1"/>\n'
        '  <decision name="d1"><switch><case to="a">${x}</case><default to="d2"/></switch></decision>\n'
        '  <decision name="d2"><switch><case to="a">${y}</case><default to="a"/></switch></decision>\n'
        + act("a", "end")
    )
    load("w.xml", wf(body))


def test_fork_lists_a_path_twice() -> None:
    body = '  <start to="f"/>\n' + fork("f", "a", "a") + act("a", "j") + join("j", "end")
    err = error("w.xml", wf(body))
    assert err.code == "E0744"
    assert err.message == (
        "A fork, [f], is not allowed to have multiple transitions to the same node, [a]"
    )


def test_fork_with_two_joins() -> None:
    body = (
        '  <start to="f1"/>\n'
        + fork("f1", "a", "b")
        + act("a", "j1")
        + act("b", "j2")
        + join("j1", "f2")
        + fork("f2", "c", "d")
        + act("c", "j2")
        + act("d", "j2")
        + join("j2", "end")
    )
    err = error("w.xml", wf(body))
    assert err.code == "E0757"
    assert "[j1,j2]" in err.message


def test_join_shared_by_two_forks() -> None:
    body = (
        '  <start to="f1"/>\n'
        + fork("f1", "a", "b")
        + act("a", "j")
        + fork("b", "c", "d")
        + act("c", "j")
        + act("d", "j")
        + join("j", "j2")
        + join("j2", "end")
    )
    err = error("w.xml", wf(body))
    assert err.code == "E0758"
    assert err.message == "Join node [j] has multiple forks: [f1,b]"


def test_nested_forks_and_error_paths_are_fine() -> None:
    body = (
        '  <start to="outer"/>\n'
        + fork("outer", "a", "inner")
        + act("a", "jo")
        + fork("inner", "b", "c")
        + act("b", "ji", "fail")
        + act("c", "ji", "fail")
        + join("ji", "jo")
        + join("jo", "last")
        + act("last", "end")
    )
    app = load("w.xml", wf(body))
    assert app.node("jo").to == "last"


def test_long_chain_does_not_hit_the_recursion_limit() -> None:
    n = 3000
    body = '  <start to="a0"/>\n' + "".join(
        act(f"a{i}", f"a{i + 1}" if i + 1 < n else "end") for i in range(n)
    )
    assert len(load("w.xml", wf(body)).nodes) == n + 2


def node(name: str, **kw: object) -> Node:
    return Node(name, NodeType.ACTION, action=FsAction(()), **kw)  # type: ignore[arg-type]


def test_fork_with_a_single_path_and_bad_names_on_model_objects() -> None:
    app = WorkflowApp(
        "m",
        WorkflowForm.OOZIE,
        (
            Node("f", NodeType.FORK, paths=("a",), line=7),
            node("a", ok_to="end", error_to="end"),
            Node("end", NodeType.END),
        ),
        start_to="f",
        source="m.xml",
    )
    with pytest.raises(SpecError) as info:
        check_workflow(app)
    assert (info.value.code, info.value.line, info.value.file) == ("E0731", 7, "m.xml")
    for bad in ("bad name", "9start", "x" * 129, ""):
        app = WorkflowApp("m", WorkflowForm.OOZIE, (node(bad, line=3),), start_to=bad)
        with pytest.raises(SpecError) as info:
            check_workflow(app)
        assert info.value.code == "E0724", bad


# --------------------------------------------------------------------------- DAG form


def dag(*jobs: tuple[str, tuple[str, ...]]) -> WorkflowApp:
    nodes = tuple(node(n, depends=d, line=i + 2) for i, (n, d) in enumerate(jobs))
    return WorkflowApp("d", WorkflowForm.DAG, nodes, source="d.xml")


def test_dag_unknown_dependency() -> None:
    with pytest.raises(SpecError) as info:
        check_workflow(dag(("a", ()), ("b", ("a", "typo"))))
    err = info.value
    assert err.code == "E0708"
    assert "job [b] depends on [typo], which is not defined" in err.message
    assert err.line == 3


def test_dag_duplicate_names() -> None:
    with pytest.raises(SpecError) as info:
        check_workflow(dag(("a", ()), ("a", ())))
    assert info.value.code == "E0705" and info.value.line == 3


def test_dag_self_dependency() -> None:
    with pytest.raises(SpecError) as info:
        check_workflow(dag(("a", ("a",))))
    assert "path [a->a]" in info.value.message


def test_dag_diamond_and_long_chain_pass() -> None:
    check_workflow(dag(("a", ()), ("b", ("a",)), ("c", ("a",)), ("d", ("b", "c"))))
    n = 20000
    check_workflow(dag(*((f"j{i}", (f"j{i - 1}",) if i else ()) for i in range(n))))


def test_dag_cycle_in_a_later_component() -> None:
    with pytest.raises(SpecError) as info:
        check_workflow(dag(("a", ()), ("b", ("a",)), ("x", ("y",)), ("y", ("x",))))
    assert info.value.code == "E0707"
    assert "x->y->x" in info.value.message
