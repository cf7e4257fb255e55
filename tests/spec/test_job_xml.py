"""``<job-xml>``: decoded in ``<global>``, shell and fs actions (both forms), checked at submit.

The files are read when the action starts (tests/e2e4/test_job_xml.py); here, what the spec
layer keeps (the paths as written, EL and all) and what it refuses now: a literal path whose
file is not there (JA008, the code the action would fail with at every run) or that is on
another file system (FS002), with the file and the line of the ``<job-xml>``. Real files in
``tmp_path``, read through the real loader.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.model import codec
from bundletui.model.apps import FsAction, ShellAction, WorkflowApp
from bundletui.model.clock import SimulatedClock
from bundletui.model.paths import PathProblem
from bundletui.spec import xmlsafe
from bundletui.spec.config import job_xml_path, read_hadoop_xml_file
from bundletui.spec.decode_workflow import decode_workflow
from bundletui.spec.load import validate_file
from tests.spec.simple_resolver import SimpleResolver

CLOCK = SimulatedClock(datetime(2026, 1, 1, tzinfo=UTC))

CONF_XML = """<configuration>
  <property><name>{name}</name><value>{value}</value></property>
</configuration>
"""

# line numbers matter: the errors point at them
WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="w">
  <global>
    <job-xml>{global_a}</job-xml>
    <job-xml>{global_b}</job-xml>
    <configuration><property><name>g</name><value>1</value></property></configuration>
  </global>
  <start to="sh"/>
  <action name="sh">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <job-xml>{shell_a}</job-xml>
      <job-xml>{shell_b}</job-xml>
      <exec>/bin/true</exec>
    </shell>
    <ok to="files"/>
    <error to="end"/>
  </action>
  <action name="files">
    <fs>
      <job-xml>{fs_a}</job-xml>
      <mkdir path="/tmp/x"/>
    </fs>
    <ok to="end"/>
    <error to="end"/>
  </action>
  <end name="end"/>
</workflow-app>
"""

DAG = """<dag-app xmlns="uri:bundletui:dag:1.0" name="d">
  <job name="a">
    <shell>
      <job-xml>{shell_a}</job-xml>
      <exec>/bin/true</exec>
    </shell>
  </job>
</dag-app>
"""

PATHS = {
    "global_a": "conf/global-a.xml",
    "global_b": "/ABS/shared.xml",
    "shell_a": "${confDir}/action.xml",
    "shell_b": "file:///ABS/shared.xml",
    "fs_a": "conf/fs.xml",
}


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    """An application directory with every file :data:`PATHS` names (but the EL one), and a
    shared file outside it, named by an absolute path."""
    app = tmp_path / "app"
    (app / "conf").mkdir(parents=True)
    for name in ("global-a.xml", "fs.xml"):
        (app / "conf" / name).write_text(CONF_XML.format(name="n", value=name))
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "shared.xml").write_text(CONF_XML.format(name="n", value="shared"))
    return app


def write(app: Path, template: str = WORKFLOW, **paths: str) -> Path:
    given = {k: v.replace("/ABS", str(app.parent / "shared")) for k, v in PATHS.items()}
    given.update(paths)
    path = app / "workflow.xml"
    path.write_text(template.format(**given))
    return path


def decode(path: Path) -> WorkflowApp:
    return decode_workflow(xmlsafe.load_document(path), SimpleResolver({}))


def refused(path: Path) -> SpecError:
    with pytest.raises(SpecError) as info:
        decode(path)
    return info.value


def test_paths_are_kept_as_written_in_order(app_dir: Path) -> None:
    shared = str(app_dir.parent / "shared" / "shared.xml")
    app = decode(write(app_dir))
    assert app.global_job_xml == ("conf/global-a.xml", shared)
    shell = app.node("sh").action
    assert isinstance(shell, ShellAction)
    # EL stays for the action's start, as every other action field
    assert shell.job_xml == ("${confDir}/action.xml", f"file://{shared}")
    fs = app.node("files").action
    assert isinstance(fs, FsAction)
    assert fs.job_xml == ("conf/fs.xml",)


def test_paths_survive_the_store_encoding(app_dir: Path) -> None:
    """The engine runs the definition the store keeps (JSON), not the XML."""
    app = decode(write(app_dir))
    again = codec.loads(codec.dumps(app), WorkflowApp)
    assert again == app
    assert again.global_job_xml and again.node("sh").action.job_xml  # type: ignore[union-attr]


def test_dag_form_shell_job_xml(app_dir: Path) -> None:
    app = decode(write(app_dir, DAG, shell_a="conf/fs.xml"))
    shell = app.node("a").action
    assert isinstance(shell, ShellAction) and shell.job_xml == ("conf/fs.xml",)


@pytest.mark.parametrize(
    ("field", "line", "owner"),
    [
        ("global_a", 3, "<global>"),
        ("shell_b", 11, "action node [sh]"),
        ("fs_a", 19, "action node [files]"),
    ],
)
def test_a_literal_path_without_a_file_is_refused_with_its_line(
    app_dir: Path, field: str, line: int, owner: str
) -> None:
    path = write(app_dir, **{field: "conf/missing.xml"})
    err = refused(path)
    assert (err.code, err.file, err.line) == ("JA008", str(path), line)
    assert err.message == (
        f"job-xml [conf/missing.xml] of {owner}: {app_dir / 'conf' / 'missing.xml'} does not exist"
    )
    assert str(app_dir) in (err.hint or "")


def test_a_directory_is_not_a_job_xml(app_dir: Path) -> None:
    err = refused(write(app_dir, global_b="conf"))
    assert (err.code, err.line) == ("JA008", 4)
    assert err.message.endswith(f"{app_dir / 'conf'} is a directory")


def test_a_fifo_is_not_a_job_xml_and_is_not_said_to_be_missing(app_dir: Path) -> None:
    """QA: a FIFO (or /dev/zero) was said to "not exist"; it is there, and not read."""
    import os

    os.mkfifo(app_dir / "pipe.xml")
    err = refused(write(app_dir, global_b="pipe.xml"))
    assert (err.code, err.line) == ("JA009", 4)
    assert err.message.endswith("is not a regular file (a FIFO, a device), which is not read")


def test_another_file_system_is_refused_with_its_line(app_dir: Path) -> None:
    err = refused(write(app_dir, shell_a="hdfs://nn:8020/conf/a.xml"))
    assert (err.code, err.line) == ("FS002", 10)
    assert "Scheme [hdfs] not supported" in err.message
    assert "action node [sh]" in err.message


def test_a_path_with_el_is_left_for_the_action_start(app_dir: Path) -> None:
    # no conf/nothere.xml: the variable may lead anywhere, so nothing is said now
    app = decode(write(app_dir, fs_a="${dir}/nothere.xml"))
    assert app.node("files").action.job_xml == ("${dir}/nothere.xml",)  # type: ignore[union-attr]


def test_validate_and_submit_checks_refuse_it(app_dir: Path) -> None:
    """What ``bundletui validate`` runs, with and without values."""
    path = write(app_dir, fs_a="conf/missing.xml")
    for conf in (None, {"confDir": "conf"}):
        with pytest.raises(SpecError) as info:
            validate_file(path, CLOCK, conf)
        assert (info.value.code, info.value.line) == ("JA008", 19)
    (app_dir / "conf" / "missing.xml").write_text(CONF_XML.format(name="n", value="v"))
    assert validate_file(path, CLOCK, {"confDir": "conf"}).checked_semantics


@pytest.mark.parametrize(
    ("field", "where"), [("shell_a", "action node [sh]"), ("global_a", "action node [sh]")]
)
def test_an_expression_in_a_path_is_checked_at_submit_as_the_action_would_render_it(
    app_dir: Path, field: str, where: str
) -> None:
    """A job-xml path is rendered when the action starts: an unknown function in it (in the
    action's or in ``<global>``) is refused by validate/submit, not found at the first run."""
    path = write(app_dir, **{field: "${wf:nosuch()}/a.xml"})
    with pytest.raises(SpecError) as info:
        validate_file(path, CLOCK, {"confDir": "conf"})
    assert info.value.code == "E1004"
    assert "unknown function [wf:nosuch]" in info.value.message
    assert f"<job-xml> of {where}" in info.value.message


def test_job_xml_path_resolution(tmp_path: Path) -> None:
    app = tmp_path / "app"
    assert job_xml_path("conf/a.xml", app) == app / "conf" / "a.xml"
    assert job_xml_path(" ../shared/./a.xml ", app) == tmp_path / "shared" / "a.xml"
    assert job_xml_path("/etc/a.xml", app) == Path("/etc/a.xml")
    assert job_xml_path("file:///etc//a.xml", app) == Path("/etc/a.xml")
    assert job_xml_path("file://localhost/etc/a.xml", app) == Path("/etc/a.xml")
    for other in ("hdfs://nn/a.xml", "file://elsewhere/a.xml", "s3a://b/a.xml"):
        problem = job_xml_path(other, app)
        assert isinstance(problem, PathProblem) and problem.code == "FS002", other


def test_reading_a_job_xml_file(tmp_path: Path) -> None:
    path = tmp_path / "a.xml"
    path.write_text(
        "<configuration>"
        "<property><name>x</name><value>1</value></property>"
        "<property><name>y</name><value> ${kept} </value></property>"
        "<property><name>x</name><value>2</value></property>"
        "</configuration>"
    )
    assert read_hadoop_xml_file(path) == {"x": "2", "y": " ${kept} "}


def test_reading_refuses_entities_and_what_is_not_a_configuration(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("TOP-SECRET")
    xxe = tmp_path / "xxe.xml"
    xxe.write_text(
        f'<!DOCTYPE c [<!ENTITY s SYSTEM "file://{secret}">]>'
        "<configuration><property><name>a</name><value>&s;</value></property></configuration>"
    )
    props = tmp_path / "job.properties"
    props.write_text("a=1\n")  # read_conf_file would take it: a job-xml is XML only
    other = tmp_path / "other.xml"
    other.write_text("<workflow-app/>")
    for path, words in (
        (xxe, "entity declarations are not allowed"),
        (props, "malformed XML"),
        (other, "is not <configuration>"),
    ):
        with pytest.raises(SpecError) as info:
            read_hadoop_xml_file(path)
        assert info.value.code == "E0701" and words in info.value.message, path
        assert "TOP-SECRET" not in info.value.message
    with pytest.raises(SpecError) as missing:
        read_hadoop_xml_file(tmp_path / "nothere.xml")
    assert missing.value.code == "E0702"
