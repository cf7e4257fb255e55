"""workflow.xml (0.5 / 1.0) and the DAG form -> WorkflowApp."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.model.apps import (
    FsAction,
    FsOp,
    FsOpKind,
    NodeType,
    RetryPolicy,
    ShellAction,
    SubWorkflowAction,
    WorkflowApp,
    WorkflowForm,
)
from bundletui.spec import xmlsafe
from bundletui.spec.decode_workflow import decode_workflow
from tests.spec.simple_resolver import SimpleResolver

FIX = Path(__file__).parent / "fixtures"


def decode(
    path: Path | str, data: bytes | None = None, conf: dict[str, str] | None = None, **kw: bool
) -> WorkflowApp:
    return decode_workflow(xmlsafe.load_document(path, data=data), SimpleResolver(conf), **kw)


def error(
    path: Path | str, data: bytes | None = None, conf: dict[str, str] | None = None, **kw: bool
) -> SpecError:
    with pytest.raises(SpecError) as info:
        decode(path, data, conf, **kw)
    return info.value


def test_workflow_0_5() -> None:
    app = decode(FIX / "workflow-0.5.xml", conf={"wfName": "etl"})
    assert (app.name, app.form, app.namespace) == (
        "etl",
        WorkflowForm.OOZIE,
        "uri:oozie:workflow:0.5",
    )
    assert app.start_to == "check"
    assert app.parameters == (("wfName", "etl"),)
    assert app.required_parameters == ("outDir",)
    assert app.global_conf == (("queue", "${queueName}"),)  # evaluated when actions run
    assert [(n.name, n.type) for n in app.nodes] == [
        ("check", NodeType.DECISION),
        ("prep", NodeType.ACTION),
        ("split", NodeType.FORK),
        ("left", NodeType.ACTION),
        ("right", NodeType.ACTION),
        ("merge", NodeType.JOIN),
        ("fail", NodeType.KILL),
        ("done", NodeType.END),
    ]
    check = app.node("check")
    assert check.cases == (
        ("${fs:exists(outDir) eq false}", "prep"),
        ("${wf:conf('skip') eq 'true'}", "done"),
    )
    assert check.default_to == "prep" and check.line == 12
    prep = app.node("prep")
    assert (prep.ok_to, prep.error_to, prep.retry_max, prep.retry_interval) == (
        "split",
        "fail",
        2,
        1,
    )
    assert prep.retry_policy is RetryPolicy.PERIODIC
    assert prep.action == FsAction(
        (
            FsOp(FsOpKind.DELETE, "${outDir}/tmp"),
            FsOp(FsOpKind.MKDIR, "${outDir}"),
            FsOp(FsOpKind.MOVE, "${outDir}/a", target="${outDir}/b"),
            FsOp(FsOpKind.CHMOD, "${outDir}", permissions="755", recursive=True, dir_files=False),
            FsOp(FsOpKind.TOUCHZ, "${outDir}/_STARTED"),
        )
    )
    assert app.node("split").paths == ("left", "right")
    left = app.node("left").action
    assert left == ShellAction(
        exec="python3",
        arguments=("left.py", "${wf:id()}"),
        env_vars=("MODE=left",),
        capture_output=True,
    )
    assert app.node("right").action == ShellAction(exec="echo", arguments=("right",))
    assert app.node("merge").to == "done"
    assert app.node("fail").message == (
        "failed at [${wf:lastErrorNode()}]: ${wf:errorMessage(wf:lastErrorNode())}"
    )
    assert app.node("left").retry_max == 0 and app.node("left").retry_interval == 10


def test_workflow_1_0_shell_prepare_retry_policy_sub_workflow() -> None:
    app = decode(FIX / "workflow-1.0.xml")
    run = app.node("run")
    assert (run.retry_max, run.retry_interval, run.retry_policy) == (3, 5, RetryPolicy.EXPONENTIAL)
    assert run.action == ShellAction(
        exec="bash",
        arguments=("-c", "echo hi"),
        configuration=(("k", "${v}"),),
        prepare=(FsOp(FsOpKind.DELETE, "/tmp/out"), FsOp(FsOpKind.MKDIR, "/tmp/out")),
    )
    assert app.node("sub").action == SubWorkflowAction(
        app_path="${appBase}/other",
        propagate_configuration=True,
        configuration=(("x", "1"),),
    )
    assert [n.name for n in app.nodes] == ["run", "sub", "end"]  # sla:info is not a node


def test_dag_form() -> None:
    app = decode(FIX / "dag.xml")
    assert (app.name, app.form, app.max_parallel) == ("naive-bayes", WorkflowForm.DAG, 4)
    assert app.namespace == "uri:bundletui:dag:1.0"
    assert app.parameters == (("outputDir", "."),)
    assert app.start_to is None
    assert [(n.name, n.depends) for n in app.nodes] == [
        ("extract", ()),
        ("class-prior", ("extract",)),
        ("conditional-probability", ("extract",)),
        ("predict", ("class-prior", "conditional-probability")),  # duplicates dropped
    ]
    assert all(n.type is NodeType.ACTION for n in app.nodes)
    extract = app.node("extract")
    assert extract.action == ShellAction(
        exec="python3",
        arguments=("${wf:appPath()}/extract.py", "${outputDir}"),
        env_vars=("A=B",),
        capture_output=True,
    )
    assert (extract.retry_max, extract.retry_interval, extract.line) == (0, 1, 5)
    assert app.node("conditional-probability").action == FsAction(
        (
            FsOp(FsOpKind.MKDIR, "${outputDir}/cond"),
            FsOp(FsOpKind.TOUCHZ, "${outputDir}/cond/_SUCCESS"),
        )
    )
    predict = app.node("predict")
    assert predict.retry_max == 2
    assert predict.action == SubWorkflowAction("predict/workflow.xml", propagate_configuration=True)


SHELL_EXEC = """<workflow-app xmlns="uri:oozie:workflow:0.5" name="w">
  <start to="a"/>
  <action name="a">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <exec>{exec}</exec>
      <argument>x</argument>
    </shell>
    <ok to="e"/><error to="e"/>
  </action>
  <end name="e"/>
</workflow-app>"""


@pytest.mark.parametrize(
    ("exec_", "message", "hinted"),
    [
        (
            "   ",
            "node [a] has an empty <exec>: there is no program to run",
            "<exec>/bin/echo</exec>",
        ),
        ("-a", "node [a] has <exec>-a</exec>: a program name cannot start with '-'", "<argument>"),
    ],
    ids=["empty", "dash"],
)
def test_an_exec_that_names_no_program_is_refused_where_it_is_written(
    exec_: str, message: str, hinted: str
) -> None:
    err = error("w.xml", SHELL_EXEC.format(exec=exec_).encode())
    assert err.message == message
    assert err.line == 5 and hinted in (err.hint or "")


def test_unsupported_action_types_are_named() -> None:
    data = b"""<workflow-app xmlns="uri:oozie:workflow:1.0" name="w">
  <start to="mr"/>
  <action name="mr">
    <map-reduce><job-tracker>jt</job-tracker></map-reduce>
    <ok to="e"/><error to="e"/>
  </action>
  <end name="e"/>
</workflow-app>"""
    err = error("w.xml", data)
    assert err.code == "E0723"
    assert err.message == "Unsupported action type, node [mr] type [map-reduce]"
    assert err.line == 4
    assert "shell" in (err.hint or "")
    hive = data.replace(
        b"<map-reduce><job-tracker>jt</job-tracker></map-reduce>",
        b'<hive xmlns="uri:oozie:hive-action:0.5"><script>x.q</script></hive>',
    )
    assert "hive (uri:oozie:hive-action:0.5)" in error("w.xml", hive).message
    old_shell = data.replace(
        b"<map-reduce><job-tracker>jt</job-tracker></map-reduce>",
        b'<shell xmlns="uri:oozie:shell-action:0.1"><exec>x</exec></shell>',
    )
    assert error("w.xml", old_shell).code == "E0723"
    chgrp = data.replace(
        b"<map-reduce><job-tracker>jt</job-tracker></map-reduce>",
        b'<fs><chgrp path="/x" group="g"/></fs>',
    )
    assert "fs:chgrp" in error("w.xml", chgrp).message


def test_shell_body_is_checked_against_its_own_schema() -> None:
    data = (FIX / "workflow-0.5.xml").read_bytes().replace(b"<exec>echo</exec>", b"")
    err = error("w.xml", data)
    assert err.code == "E0701"
    assert "exec" in err.message


def test_bad_attribute_values() -> None:
    wf = (FIX / "workflow-1.0.xml").read_bytes()
    err = error("w.xml", wf.replace(b'retry-policy="EXPONENTIAL"', b'retry-policy="fibonacci"'))
    assert err.code == "EB0720" and "fibonacci" in err.message and err.line == 3
    err = error("w.xml", wf.replace(b'retry-max="3"', b'retry-max="-1"'))
    assert err.code == "EB0720"
    assert error(
        "w.xml", wf.replace(b'retry-max="3"', b'retry-max="${n}"'), conf={"n": "x"}
    ).code == ("E1003")
    assert (
        decode("w.xml", wf.replace(b'retry-max="3"', b'retry-max="${n}"'), conf={"n": "1"})
        .node("run")
        .retry_max
        == 1
    )
    dag = (FIX / "dag.xml").read_bytes()
    assert error("d.xml", dag.replace(b'max-parallel="4"', b'max-parallel="-2"')).code == "EB0720"
    err = error("d.xml", dag.replace(b"<env-var>A=B</env-var>", b"<env-var>AB</env-var>"))
    assert err.code == "EB0720" and "NAME=VALUE" in err.message


def test_graph_checks_run_unless_disabled() -> None:
    path = FIX / "bad" / "workflow-cycle.xml"
    assert error(path).code == "E0707"
    app = decode(path, check=False)
    assert app.node("c").cases == (("${again}", "a"),)


def test_wrong_kind_is_refused() -> None:
    err = error(FIX / "bundle-0.1.xml")
    assert "expected a workflow application" in err.message


def test_large_dag_decodes_quickly() -> None:
    jobs = "".join(
        f'<job name="j{i}">'
        + (f"<depends>j{i - 1}</depends>" if i else "")
        + '<fs><touchz path="/tmp/x"/></fs></job>'
        for i in range(2000)
    )
    data = f'<dag-app xmlns="uri:bundletui:dag:1.0" name="chain">{jobs}</dag-app>'.encode()
    started = time.perf_counter()
    app = decode("chain.xml", data)
    assert len(app.nodes) == 2000
    assert time.perf_counter() - started < 3.0


@pytest.mark.parametrize(
    ("attr", "value"),
    [("retry-max", "2147483648"), ("retry-interval", "99999999999999999999")],
)
def test_retry_numbers_outside_java_int_are_refused(attr: str, value: str) -> None:
    wf = (FIX / "workflow-1.0.xml").read_bytes()
    old = {"retry-max": b'retry-max="3"', "retry-interval": b'retry-interval="5"'}[attr]
    err = error("w.xml", wf.replace(old, f'{attr}="{value}"'.encode()))
    assert (err.file, err.line) == ("w.xml", 3)
    assert err.message.endswith(f"{attr} [{value}] is out of range")
    assert "from -2147483648 to 2147483647" in (err.hint or "")
    ok = decode("w.xml", wf.replace(old, f'{attr}="2147483647"'.encode())).node("run")
    assert getattr(ok, attr.replace("-", "_")) == 2147483647
