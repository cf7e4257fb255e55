"""A workflow's node EL, checked when it is loaded with its configuration (spec/workflow_el.py).

An expression the engine renders when a node runs fails the load (submit, ``validate --config``,
a coordinator's launch, a sub-workflow's start) when it can never work: it does not parse, calls
a function a workflow does not have, or names a variable nothing defines. Each error is E1004 and
names the file, the node's line, the field and how to fix it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.model.clock import SimulatedClock
from bundletui.model.timeutil import parse_oozie_time
from bundletui.spec.load import load_app, validate_file
from bundletui.spec.workflow_el import runtime_variables, template_problem

CLOCK = SimulatedClock(parse_oozie_time("2026-01-01T00:00Z"))
FIX = Path(__file__).parent / "fixtures"
DAG = 'xmlns="uri:bundletui:dag:1.0"'
OOZIE = 'xmlns="uri:oozie:workflow:0.5"'


def dag(tmp_path: Path, *jobs: str, parameters: str = "") -> Path:
    body = "\n".join(jobs)
    path = tmp_path / "workflow.xml"
    path.write_text(f'<dag-app {DAG} name="t">\n{parameters}{body}\n</dag-app>\n')
    return path


def shell(name: str, *arguments: str) -> str:
    args = "".join(f"<argument>{a}</argument>" for a in arguments)
    return f'  <job name="{name}"><shell><exec>echo</exec>{args}</shell></job>'


def refused(path: Path, conf: dict[str, str] | None = None) -> SpecError:
    with pytest.raises(SpecError) as info:
        load_app(path, conf or {}, CLOCK)
    return info.value


# ----------------------------------------------------------------------------- the three errors


def test_a_syntax_error_names_file_line_node_and_column(tmp_path: Path) -> None:
    path = dag(tmp_path, shell("a", "x"), shell("c", "-n", "${1 +}"))
    err = refused(path)
    assert (err.code, err.file, err.line) == ("E1004", str(path), 3)
    assert err.message == (
        "Expression language evaluation error, syntax error: expected a value, found '}' in "
        "${1 +} at column 6, in <argument> 2 of job [c]"
    )
    assert err.hint == "the expression is incomplete"


def test_an_unknown_function_names_the_closest_one(tmp_path: Path) -> None:
    path = dag(tmp_path, shell("a", "x"), shell("b", "${wf:lastErrorNod()}"))
    err = refused(path)
    assert (err.code, err.file, err.line) == ("E1004", str(path), 3)
    assert err.message == (
        "Expression language evaluation error, unknown function [wf:lastErrorNod] in "
        "${wf:lastErrorNod()} at column 3, in <argument> 1 of job [b]"
    )
    assert err.hint == "did you mean wf:lastErrorNode?"


@pytest.mark.parametrize(
    ("call", "hint"),
    [
        ("wf:nothingLikeIt()", "a workflow has no wf:nothingLikeIt; its wf: functions are "),
        ("coord:nominalTime()", "a workflow has no coord: functions (only the basic, wf: and"),
        ("hadoop:counters('a')", "a workflow has no hadoop: functions, only the basic, wf: and"),
        ("zzz()", "a workflow has the basic functions appendAll, concat"),
    ],
)
def test_an_unknown_function_without_a_close_name_says_what_there_is(
    tmp_path: Path, call: str, hint: str
) -> None:
    err = refused(dag(tmp_path, shell("a", f"${{{call}}}")))
    assert "unknown function" in err.message
    assert err.hint is not None and err.hint.startswith(hint), err.hint


@pytest.mark.parametrize(
    ("call", "message", "hint"),
    [
        ("fs:exists('/a', '/b')", "[fs:exists] expects 1 argument, got 2", "fs:exists(string)"),
        ("concat('a')", "[concat] expects 2 arguments, got 1", "concat(string, string)"),
        ("wf:id(1)", "[wf:id] expects 0 arguments, got 1", "wf:id()"),
        ("wf:conf()", "[wf:conf] expects 1 argument, got 0", "wf:conf(string)"),
    ],
)
def test_a_wrong_argument_count_is_refused_at_load(
    tmp_path: Path, call: str, message: str, hint: str
) -> None:
    """Left alone earlier: it passed submit and failed the node at every run."""
    path = dag(tmp_path, shell("a", "x"), shell("b", f"x-${{{call}}}"))
    err = refused(path)
    assert (err.code, err.file, err.line) == ("E1004", str(path), 3)
    assert f"function {message} in ${{{call}}} at column 5, in <argument> 1 of job [b]" in (
        err.message
    )
    assert err.hint == f"call it as {hint}"


def test_an_undefined_variable_says_where_to_define_it(tmp_path: Path) -> None:
    path = dag(tmp_path, shell("a", "${undefinedvar}"))
    err = refused(path, {"undefinedvr": "1"})
    assert (err.code, err.file, err.line) == ("E1004", str(path), 2)
    assert err.message == (
        "Expression language evaluation error, unresolved variable [undefinedvar] in "
        "${undefinedvar} at column 3, in <argument> 1 of job [a]"
    )
    assert err.hint == (
        "define it in the job's properties (job.properties or -D undefinedvar=...) or give it a "
        "default in the workflow's <parameters> (did you mean undefinedvr?)"
    )


def test_a_dotted_variable_points_at_wf_conf(tmp_path: Path) -> None:
    err = refused(dag(tmp_path, shell("a", "${oozie.wf.application.path}")))
    assert "unresolved variable [oozie]" in err.message
    assert err.hint is not None and "wf:conf('oozie.wf.application.path')" in err.hint


def test_the_first_problem_in_document_order_is_reported(tmp_path: Path) -> None:
    path = dag(
        tmp_path,
        shell("a", "${undefinedvar}"),
        shell("b", "${wf:bogus()}"),
        shell("c", "${1 +}"),
    )
    assert "unresolved variable [undefinedvar]" in refused(path).message


# ----------------------------------------------------------------------------- every rendered field

OOZIE_WF = """<workflow-app {ns} name="w"><global><configuration><property><name>g</name><value>{global_conf}</value></property></configuration></global>
  <start to="d"/>
  <decision name="d">
    <switch>
      <case to="s">{case}</case>
      <default to="s"/>
    </switch>
  </decision>
  <action name="s">
    <shell xmlns="uri:oozie:shell-action:0.3"><prepare><delete path="{prepare}"/></prepare>
      <configuration><property><name>k</name><value>{conf}</value></property></configuration>
      <exec>{exec}</exec>
      <argument>{argument}</argument>
      <env-var>{env}</env-var>
    </shell>
    <ok to="f"/>
    <error to="kill"/>
  </action>
  <action name="f">
    <fs>
      <move source="{path}" target="{target}"/>
      <chmod path="/tmp/x" permissions="{permissions}"/>
    </fs>
    <ok to="sub"/>
    <error to="kill"/>
  </action>
  <action name="sub">
    <sub-workflow>
      <app-path>{app_path}</app-path>
      <configuration><property><name>p</name><value>{sub_conf}</value></property></configuration>
    </sub-workflow>
    <ok to="end"/>
    <error to="kill"/>
  </action>
  <kill name="kill"><message>{message}</message></kill>
  <end name="end"/>
</workflow-app>
"""
GOOD = {
    "case": "${wf:conf('x') eq 'y'}",
    "exec": "echo",
    "argument": "${out}",
    "env": "OUT=${out}",
    "conf": "${out}",
    "path": "/tmp/a",
    "target": "/tmp/b",
    "permissions": "755",
    "app_path": "${wf:appPath()}/child",
    "sub_conf": "${out}",
    "message": "failed at [${wf:lastErrorNode()}]",
    "global_conf": "${out}",
    "prepare": "/tmp/p",
}


@pytest.mark.parametrize(
    ("field", "line", "where"),
    [
        ("case", 3, 'in <case to="s"> of decision node [d]'),
        ("prepare", 9, "in <prepare> <delete> path of action node [s]"),
        ("exec", 9, "in <exec> of action node [s]"),
        ("global_conf", 9, "in <global> property [g] of action node [s]"),
        ("argument", 9, "in <argument> 1 of action node [s]"),
        ("env", 9, "in <env-var> of action node [s]"),
        ("conf", 9, "in property [k] of action node [s]"),
        ("path", 19, "in <move> path of action node [f]"),
        ("target", 19, "in <move> target of action node [f]"),
        ("permissions", 19, "in <chmod> permissions of action node [f]"),
        ("app_path", 27, "in <app-path> of action node [sub]"),
        ("sub_conf", 27, "in property [p] of action node [sub]"),
        ("message", 35, "in <message> of kill node [kill]"),
    ],
)
def test_every_field_the_engine_renders_is_checked(
    tmp_path: Path, field: str, line: int, where: str
) -> None:
    path = tmp_path / "workflow.xml"
    path.write_text(OOZIE_WF.format(ns=OOZIE, **GOOD))
    load_app(path, {"out": "/tmp/o"}, CLOCK)  # the good one loads
    path.write_text(OOZIE_WF.format(ns=OOZIE, **{**GOOD, field: "${nope}"}))
    err = refused(path, {"out": "/tmp/o"})
    assert (err.code, err.file, err.line) == ("E1004", str(path), line)
    assert err.message.endswith(where), err.message
    assert "unresolved variable [nope]" in err.message


def test_fields_the_engine_never_renders_are_not_checked() -> None:
    # name-node, resource-manager and the sla (unused at run time)
    loaded = load_app(FIX / "workflow-1.0.xml", {"v": "1", "appBase": "/apps"}, CLOCK)
    assert loaded.app.name == "child"


# ----------------------------------------------------------------------------- what stays fine

VALID = [
    "${wf:actionData('a')['k']}",
    "${wf:actionData('a').k}",
    "${wf:conf('x')}",
    "${wf:conf('a.dotted.name')}",
    "${wf:lastErrorNode() eq ''}",
    "${wf:errorMessage(wf:lastErrorNode())}",
    "${wf:appPath()}/script.py",
    "${wf:id()}-${wf:run()}",
    "${'a string'}",
    "${fs:exists('/tmp')}",
    "${fs:fileSize(out) gt 10 * KB}",
    "${concat(out, 'x')}",
    "${firstNotNull(wf:conf('a'), 'b')}",
    "${timestamp()}",
    "${RECORDS}",
    "${empty out ? 'none' : out}",
    "${fromParameters}",
    "plain text, \\${escaped} and $notel",
    "${out}${out}",
]


@pytest.mark.parametrize("text", VALID)
def test_valid_expressions_load(tmp_path: Path, text: str) -> None:
    params = (
        "<parameters><property><name>fromParameters</name><value>d</value></property>"
        "</parameters>\n"
    )
    path = dag(tmp_path, shell("a", "x"), shell("b", text), parameters=params)
    loaded = load_app(path, {"out": "/tmp/o"}, CLOCK)
    assert [n.name for n in loaded.app.nodes] == ["a", "b"]


def test_the_spec_fixture_workflow_loads_with_its_values() -> None:
    load_app(FIX / "workflow-0.5.xml", {"outDir": "/tmp/out", "queueName": "q"}, CLOCK)
    # its <global> configuration is merged into each shell action: its variables are needed
    err = refused(FIX / "workflow-0.5.xml", {"outDir": "/tmp/out"})
    assert "unresolved variable [queueName]" in err.message
    assert err.message.endswith("in <global> property [queue] of action node [left]")
    load_app(FIX / "dag.xml", {"outputDir": "/tmp/out"}, CLOCK)


# ----------------------------------------------------------------------------- validate


def test_validate_with_values_checks_the_el_and_without_values_only_the_schema(
    tmp_path: Path,
) -> None:
    path = dag(tmp_path, shell("a", "${undefinedvar}"))
    with pytest.raises(SpecError) as info:
        validate_file(path, CLOCK, {"other": "1"})
    assert (info.value.code, info.value.line) == ("E1004", 2)
    # without --config / -D the conf is unknown: the check is not made (as before)
    assert validate_file(path, CLOCK, None).kind_name == "dag-app"
    assert validate_file(path, CLOCK, {"undefinedvar": "1"}).checked_semantics


# ----------------------------------------------------------------------------- the helpers


def test_template_problem_is_none_for_plain_text() -> None:
    assert template_problem("no expression here", runtime_variables({})) is None
    assert template_problem("${KB}", runtime_variables({"a.b": "1"})) is None
