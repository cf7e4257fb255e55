"""Spec-layer gaps, each closed the way an operator coming from Oozie expects:

* a workflow's ``<global>`` configuration is checked with the sub-workflow actions it is
  merged into (Oozie >= 4.3), not only with shell actions;
* an event feed that would watch everything (``/``, an empty path, the landing directory or a
  directory holding it) is refused at submit;
* the static EL check of a workflow does not refuse a name that lazy evaluation never reaches
  (``${false && x}``), and still refuses one it does;
* a bundle coordinator's ``enabled`` is true or false, nothing else;
* an fs path (``<prepare>`` of a shell action, or an fs action's) that is relative or of
  another file system without any EL is refused at submit, with its line.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.model.apps import ShellAction, overlay
from bundletui.model.clock import SimulatedClock
from bundletui.spec.el import compile_template
from bundletui.spec.el.evaluator import reachable
from bundletui.spec.el.nodes import ExprPart, Variable
from bundletui.spec.el.parser import parse_template
from bundletui.spec.load import load_job, validate_file

CLOCK = SimulatedClock(datetime(2026, 1, 1, tzinfo=UTC))


def submit(tmp_path: Path, app: str, text: str, **props: str) -> object:
    """What ``submit`` loads (``load_job``), with the CLI's default landing directory."""
    (tmp_path / app).write_text(text)
    kind = {
        "workflow.xml": "oozie.wf.application.path",
        "coordinator.xml": "oozie.coord.application.path",
        "bundle.xml": "oozie.bundle.application.path",
    }[app]
    values = {kind: app, **props}
    (tmp_path / "job.properties").write_text("".join(f"{k}={v}\n" for k, v in values.items()))
    defaults = {"landing": str(tmp_path / "home" / "landing")}
    return load_job(tmp_path / "job.properties", [], CLOCK, user="alice", defaults=defaults)


def refused(tmp_path: Path, app: str, text: str, **props: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        submit(tmp_path, app, text, **props)
    err = info.value
    assert err.file == str(tmp_path / app)
    return err


# ----------------------------------------------------------------------------- <global>

GLOBAL_SUB = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="g">
  <global>
    <configuration>
      <property><name>color</name><value>${{{value}}}</value></property>
      <property><name>size</name><value>${{undefinedEverywhere}}</value></property>
    </configuration>
  </global>
  <start to="sub"/>
  <action name="sub">
    <sub-workflow>
      <app-path>/apps/child</app-path>
      <configuration><property><name>size</name><value>own</value></property></configuration>
    </sub-workflow>
    <ok to="end"/><error to="end"/>
  </action>
  <end name="end"/>
</workflow-app>
"""


def test_a_global_property_a_sub_workflow_action_gets_is_checked_at_submit(
    tmp_path: Path,
) -> None:
    # the sub-workflow action gets color from <global>: its undefined variable is refused now
    err = refused(tmp_path, "workflow.xml", GLOBAL_SUB.format(value="nope"))
    assert err.code == "E1004" and err.line == 9
    assert "unresolved variable [nope]" in err.message
    assert "in <global> property [color] of action node [sub]" in err.message
    # size is overridden by the action's own value: its global value is never rendered
    assert submit(tmp_path, "workflow.xml", GLOBAL_SUB.format(value="defined"), defined="x")


def test_overlay_is_oozies_global_merge() -> None:
    merged = overlay((("a", "g"), ("b", "g"), ("a", "g2")), (("b", "own"), ("c", "own")))
    assert dict(merged) == {"a": "g2", "b": "own", "c": "own"}


# ----------------------------------------------------------------------------- feeds

EVENTS = """<coordinator-app name="ev" xmlns="uri:bundletui:coordinator:1.0"
    start="2026-01-01T00:00Z" end="2026-02-01T00:00Z" timezone="UTC">
  <feeds>
    <feed name="ok" path="${{landing}}/ok"/>
    <feed name="all" path="{path}" done-flag="_SUCCESS"/>
  </feeds>
  <trigger><partitions feed="all" count="1"/></trigger>
  <action><workflow><app-path>/apps/wf</app-path></workflow></action>
</coordinator-app>
"""


@pytest.mark.parametrize(
    ("path", "props", "says"),
    [
        ("/", {}, "path [/] is the root of the file system"),
        ("file:///", {}, "path [file:///] (= /) is the root of the file system"),
        ("/tmp/../", {}, "is the root of the file system"),
        ("", {}, "feed [all] has an empty path"),
        ("${dir}", {"dir": " "}, "feed [all] has an empty path [${dir}]"),
        ("${landing}", {}, "is the landing directory"),
        ("${landing}/", {}, "is the landing directory"),
        ("${landing}/..", {}, "holds the landing directory"),
    ],
)
def test_a_feed_that_would_watch_everything_is_refused_at_submit(
    tmp_path: Path, path: str, props: dict[str, str], says: str
) -> None:
    err = refused(tmp_path, "coordinator.xml", EVENTS.format(path=path), **props)
    assert err.code == "E1003" and err.line == 5, err
    assert says in err.message, err.message
    assert 'path="${landing}/clicks"' in (err.hint or "")


def test_a_feed_of_its_own_is_still_accepted(tmp_path: Path) -> None:
    loaded = submit(tmp_path, "coordinator.xml", EVENTS.format(path="${landing}/clicks"))
    feeds = loaded.app.events.feeds  # type: ignore[attr-defined]
    assert feeds[1].path == str(tmp_path / "home" / "landing" / "clicks")
    # elsewhere (a warning at submit, not an error), or next to the coordinator
    assert submit(tmp_path, "coordinator.xml", EVENTS.format(path="/srv/exports"))
    assert submit(tmp_path, "coordinator.xml", EVENTS.format(path="incoming"))


DATASET = """<coordinator-app name="c" frequency="60" start="2026-01-01T00:00Z"
    end="2026-01-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.5">
  <datasets>
    <dataset name="m" frequency="60" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>{template}</uri-template>{flag}
    </dataset>
  </datasets>
  <input-events><data-in name="in" dataset="m"><instance>${{coord:current(0)}}</instance>
  </data-in></input-events>
  <action><workflow><app-path>/apps/wf</app-path></workflow></action>
</coordinator-app>
"""


@pytest.mark.parametrize(
    ("app", "text", "call", "line"),
    [
        (
            "coordinator.xml",
            DATASET.format(
                template="${landing}/m/${YEAR}/${coord:formatTime(coord:nominalTime(), 'mm')}",
                flag="",
            ),
            "coord:formatTime] in dataset 'm' uri-template",
            5,  # the <uri-template>'s own line (QA (al): it was the <dataset>'s)
        ),
        (
            "coordinator.xml",
            DATASET.format(template="${landing}/m/${coord:current(0)}", flag=""),
            "coord:current] in dataset 'm' uri-template",
            5,  # the <uri-template>'s own line (QA (al): it was the <dataset>'s)
        ),
        (
            "coordinator.xml",
            DATASET.format(
                template="${landing}/m/${YEAR}", flag="<done-flag>${wf:id()}</done-flag>"
            ),
            "wf:id] in dataset 'm' done-flag",
            5,  # the <done-flag>'s own line
        ),
        (
            "coordinator.xml",
            EVENTS.format(path="${landing}/all/${coord:nominalTime()}"),
            "coord:nominalTime] in feed [all] path",
            5,
        ),
    ],
)
def test_a_function_left_in_a_path_is_refused_at_submit(
    tmp_path: Path, app: str, text: str, call: str, line: int
) -> None:
    """QA (ab): a coord: call in a uri-template, a done-flag or a feed path was kept as
    literal text, and the action waited on a path no file can have. Oozie resolves them with
    its no-functions context at submit."""
    err = refused(tmp_path, app, text)
    assert err.code == "E1004" and err.line == line, err
    assert f"No function is mapped to the name [{call}" in err.message, err.message
    # job properties and the date variables are still fine
    assert submit(tmp_path, app, DATASET.format(template="${landing}/m/${YEAR}/${MINUTE}", flag=""))


@pytest.mark.parametrize(
    ("text", "where", "line"),
    [
        (
            DATASET.format(
                template="${landing}/m/${YEAR}", flag="<done-flag>${YEAR}.done</done-flag>"
            ),
            "dataset 'm' done-flag",
            5,
        ),
        (EVENTS.format(path="${landing}/all/${YEAR}"), "feed [all] path", 5),
    ],
)
def test_a_date_variable_where_it_is_not_replaced_is_refused(
    tmp_path: Path, text: str, where: str, line: int
) -> None:
    """QA (ad): ``${YEAR}`` in a done-flag or a feed's path stayed literal text, and the
    action (or the feed) waited on a path no file can have."""
    err = refused(tmp_path, "coordinator.xml", text)
    assert err.code == "E1004" and err.line == line, err
    assert f"${{YEAR}} is not replaced in {where}" in err.message, err.message


ABSOLUTE = """<coordinator-app name="c" frequency="60" start="2026-05-01T07:00Z"
    end="2026-05-01T09:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.5">
  <datasets>
    <dataset name="m" frequency="60" initial-instance="2026-05-01T05:00Z" timezone="UTC">
      <uri-template>/data/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}</uri-template>
    </dataset>
  </datasets>
  <input-events><data-in name="in" dataset="m">
    {instances}
  </data-in></input-events>
  <action><workflow><app-path>/apps/wf</app-path></workflow></action>
</coordinator-app>
"""
RANGE = '<start-instance>${{coord:absolute("{t}")}}</start-instance>' + (
    "<end-instance>${{coord:current(0)}}</end-instance>"
)


@pytest.mark.parametrize(
    ("instances", "says"),
    [
        (RANGE.format(t="2026-05-01T04:00Z"), "should be equal or earlier than the start"),
        (RANGE.format(t="2026-05-01T05:30Z"), "is not in phase with start-instance"),
    ],
)
def test_a_constant_absolute_instance_that_is_not_one_is_refused_at_submit(
    tmp_path: Path, instances: str, says: str
) -> None:
    """QA (ab): it failed the coordinator at its first materialization, whatever the data
    (README: such a mistake is refused at submit, E1010, with file and line)."""
    err = refused(tmp_path, "coordinator.xml", ABSOLUTE.format(instances=instances))
    assert err.code == "E1010" and err.line == 9, err
    assert "data-in [in]: initial-instance " + says in err.message, err.message
    assert submit(
        tmp_path, "coordinator.xml", ABSOLUTE.format(instances=RANGE.format(t="2026-05-01T06:00Z"))
    )


def test_a_bad_input_logic_wait_is_named_as_such(tmp_path: Path) -> None:
    """QA (ab): ``wait="abc"`` was said to be a bad *timeout*."""
    logic = '<input-logic><and wait="abc"><data-in dataset="in"/></and></input-logic>'
    text = ABSOLUTE.format(instances="<instance>${coord:current(0)}</instance>").replace(
        "</input-events>", "</input-events>" + logic
    )
    err = refused(tmp_path, "coordinator.xml", text)
    assert err.code == "E1003" and err.line == 10, err
    assert "input-logic and wait= [abc] is not an integer" in err.message, err.message


def test_a_quartz_cron_and_an_empty_file_say_what_they_are(tmp_path: Path) -> None:
    """QA (ac): a 6-field cron was "not an integer", an empty file "not XML: a job.properties
    goes with --config"."""
    text = ABSOLUTE.format(instances="<instance>${coord:current(0)}</instance>")
    err = refused(
        tmp_path,
        "coordinator.xml",
        text.replace('frequency="60" start', 'frequency="0 0 * * * *" start'),
    )
    assert err.code == "E1003" and "is a cron of 6 fields: Oozie's has 5" in err.message, err
    assert "without seconds" in (err.hint or "")
    # from a property, the usual way (QA (ad): still "not an integer")
    by_property = text.replace('frequency="60" start', 'frequency="${f}" start')
    err = refused(tmp_path, "coordinator.xml", by_property, f="0 0 * * * ?")
    assert "frequency [0 0 * * * ?] is a cron of 6 fields" in err.message, err
    # a dataset's frequency is no cron at all: the hint does not offer a 5-field one
    on_dataset = text.replace(
        '<dataset name="m" frequency="60"', '<dataset name="m" frequency="0 * * * * *"'
    )
    err = refused(tmp_path, "coordinator.xml", on_dataset)
    assert "cron of 6 fields" in err.message and "is not a cron" in (err.hint or ""), err
    err = refused(tmp_path, "coordinator.xml", "")
    assert err.hint == "the file is empty: write the application's XML into it", err


def test_validate_refuses_a_root_feed_too(tmp_path: Path) -> None:
    path = tmp_path / "coordinator.xml"
    path.write_text(EVENTS.format(path="/"))
    with pytest.raises(SpecError) as info:
        validate_file(path, CLOCK, defaults={"landing": str(tmp_path / "landing")})
    assert info.value.code == "E1003" and info.value.line == 5


# ----------------------------------------------------------------------------- lazy EL

EL_WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="el">
  <start to="a"/>
  <action name="a">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <exec>echo</exec>
      <argument>{arg}</argument>
    </shell>
    <ok to="end"/><error to="end"/>
  </action>
  <end name="end"/>
</workflow-app>
"""


@pytest.mark.parametrize(
    "arg",
    [
        "${false &amp;&amp; nope}",
        "${true || nope}",
        "${false and nope}",
        "${true or wf:noSuchFunction()}",
        "${false ? nope : 'x'}",
        "${true ? 'x' : nope}",
        "${!true &amp;&amp; nope}",
        "${1 == 2 &amp;&amp; nope}",
        "${(1 &lt; 2 || nope) ? 'a' : nope2}",
        "${empty '' || nope}",
        "${'false' &amp;&amp; nope}",
        "${defined &amp;&amp; (false &amp;&amp; nope)}",
    ],
)
def test_a_name_lazy_evaluation_never_reaches_is_accepted_at_submit(
    tmp_path: Path, arg: str
) -> None:
    loaded = submit(tmp_path, "workflow.xml", EL_WORKFLOW.format(arg=arg), defined="true")
    action = loaded.app.node("a").action  # type: ignore[attr-defined]
    assert isinstance(action, ShellAction)


@pytest.mark.parametrize(
    ("arg", "name"),
    [
        ("${true &amp;&amp; nope}", "nope"),  # reached
        ("${false || nope}", "nope"),
        ("${defined &amp;&amp; nope}", "nope"),  # a variable is no constant
        ("${wf:id() == 'x' || nope}", "nope"),  # nor a function
        ("${true ? nope : 'x'}", "nope"),
        ("${(false &amp;&amp; skipped) || nope}", "nope"),  # the reached one is named
        ("${1 + 'a' &amp;&amp; nope}", "nope"),  # a condition that cannot fold: both count
    ],
)
def test_a_name_evaluation_reaches_is_still_refused(tmp_path: Path, arg: str, name: str) -> None:
    err = refused(tmp_path, "workflow.xml", EL_WORKFLOW.format(arg=arg), defined="true")
    assert err.code == "E1004" and err.line == 3
    assert f"unresolved variable [{name}]" in err.message


def test_the_unreached_branch_is_never_evaluated_and_syntax_is_still_checked(
    tmp_path: Path,
) -> None:
    from bundletui.spec.el import ELContext, evaluate

    assert evaluate("${false && nope}", ELContext()) is False
    assert evaluate("${true ? 'x' : nope}", ELContext()) == "x"
    err = refused(tmp_path, "workflow.xml", EL_WORKFLOW.format(arg="${false &amp;&amp; (}"))
    assert err.code == "E1004" and "syntax error" in err.message


def test_reachable_skips_only_dead_operands() -> None:
    (part,) = parse_template("${(a || true) && (false ? b : c) && (true || d)}")
    assert isinstance(part, ExprPart)
    names = {n.name for n in reachable(part.node) if isinstance(n, Variable)}
    assert names == {"a", "c"}
    template = compile_template("${x} ${false && y} ${z ? 1 : 2}")
    assert template.variables == {"x", "z"}


def test_validate_without_values_does_not_ask_for_an_unreached_variable(tmp_path: Path) -> None:
    path = tmp_path / "coordinator.xml"
    path.write_text(
        '<coordinator-app name="c" frequency="60" start="2026-01-01T00:00Z" '
        "end=\"${false &amp;&amp; nope ? '' : '2026-01-02T00:00Z'}\" timezone=\"UTC\" "
        'xmlns="uri:oozie:coordinator:0.4">'
        "<action><workflow><app-path>/apps/wf</app-path></workflow></action>"
        "</coordinator-app>"
    )
    result = validate_file(path, CLOCK)
    assert result.checked_semantics and not result.needs, result


# ----------------------------------------------------------------------------- enabled

BUNDLE = """<bundle-app name="b" xmlns="uri:oozie:bundle:0.2">
  <coordinator name="off" enabled="{enabled}"><app-path>not-there.xml</app-path></coordinator>
  <coordinator name="on"><app-path>coordinator.xml</app-path></coordinator>
</bundle-app>
"""
COORD = """<coordinator-app name="c" frequency="60" start="2026-01-01T00:00Z"
    end="2026-01-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>/apps/wf</app-path></workflow></action>
</coordinator-app>
"""


@pytest.mark.parametrize("enabled", ["flase", "yes", "1", "", " no ", "${onOff}"])
def test_enabled_other_than_true_or_false_is_refused(tmp_path: Path, enabled: str) -> None:
    (tmp_path / "coordinator.xml").write_text(COORD)
    err = refused(tmp_path, "bundle.xml", BUNDLE.format(enabled=enabled), onOff="maybe")
    assert err.code == "E1303" and err.line == 2
    assert "Invalid bundle application attributes [enabled]" in err.message
    assert "of coordinator [off] is neither true nor false" in err.message
    assert "true or false" in (err.hint or "")


@pytest.mark.parametrize(
    ("enabled", "expected"),
    [("false", False), ("FALSE", False), (" False ", False), ("true", True), ("${onOff}", False)],
)
def test_enabled_true_or_false_in_any_case(tmp_path: Path, enabled: str, expected: bool) -> None:
    (tmp_path / "coordinator.xml").write_text(COORD)
    text = BUNDLE.format(enabled=enabled).replace("not-there.xml", "coordinator.xml")
    loaded = submit(tmp_path, "bundle.xml", text, onOff="False")
    off = loaded.app.coordinators[0]  # type: ignore[attr-defined]
    assert off.enabled is expected


def test_validate_refuses_a_bad_enabled_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "coordinator.xml").write_text(COORD)
    path = tmp_path / "bundle.xml"
    path.write_text(BUNDLE.format(enabled="ture"))
    with pytest.raises(SpecError) as info:
        validate_file(path, CLOCK)
    assert (info.value.code, info.value.line, info.value.file) == ("E1303", 2, str(path))


# ----------------------------------------------------------------------------- fs paths

PREPARE = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="p">
  <start to="a"/>
  <action name="a">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <prepare>
        <delete path="{delete}"/>
        <mkdir path="{mkdir}"/>
      </prepare>
      <exec>echo</exec>
    </shell>
    <ok to="f"/><error to="f"/>
  </action>
  <action name="f">
    <fs>
      <mkdir path="{fs}"/>
      <move source="/tmp/a" target="{target}"/>
    </fs>
    <ok to="end"/><error to="end"/>
  </action>
  <end name="end"/>
</workflow-app>
"""
GOOD = {"delete": "/tmp/out", "mkdir": "file:///tmp/x", "fs": "/tmp/y", "target": "/tmp/b"}


@pytest.mark.parametrize(
    ("field", "value", "code", "line", "says"),
    [
        ("delete", "out", "FS011", 6, "Path [out] cannot be relative, in <prepare> <delete>"),
        ("mkdir", "x", "FS011", 7, "Path [x] cannot be relative, in <prepare> <mkdir> @path"),
        ("mkdir", "", "FS011", 7, "Path [] cannot be relative"),
        ("mkdir", "./x", "FS011", 7, "Path [./x] cannot be relative"),
        ("mkdir", "file:x", "FS011", 7, "Path [file:x] cannot be relative"),
        ("delete", "hdfs://nn:8020/out", "FS002", 6, "Scheme [hdfs] not supported"),
        ("delete", "file://data/out", "FS002", 6, "Host [data] not supported"),
        (
            "fs",
            "rel/dir",
            "FS011",
            15,
            "cannot be relative, in <fs> <mkdir> @path of action node [f]",
        ),
        ("target", "b", "FS011", 16, "Path [b] cannot be relative, in <fs> <move> @target"),
        ("target", "", "FS008", 16, "move, no target given for source [/tmp/a]"),
        ("delete", "/tmp/..", "FS005", 6, "refusing to delete the root, in <prepare> <delete>"),
        ("delete", "file:///srv/", "FS005", 6, "refusing to delete a top-level directory"),
    ],
)
def test_a_literal_fs_path_that_cannot_work_is_refused_at_submit(
    tmp_path: Path, field: str, value: str, code: str, line: int, says: str
) -> None:
    paths = {**GOOD, field: value}
    err = refused(tmp_path, "workflow.xml", PREPARE.format(**paths))
    assert (err.code, err.line) == (code, line), err
    assert says in err.message, err.message
    if code not in ("FS008", "FS005"):
        assert "absolute path" in (err.hint or "")


def test_fs_paths_with_el_are_left_to_the_run(tmp_path: Path) -> None:
    paths = {**GOOD, "delete": "${out}/x", "mkdir": "${out}", "fs": "${out}", "target": "${out}"}
    # "rel" makes them relative, but only the run knows: Oozie checks them then (FS011)
    loaded = submit(tmp_path, "workflow.xml", PREPARE.format(**paths), out="rel")
    action = loaded.app.node("a").action  # type: ignore[attr-defined]
    assert isinstance(action, ShellAction)
    assert [op.path for op in action.prepare] == ["${out}/x", "${out}"]
    assert submit(tmp_path, "workflow.xml", PREPARE.format(**GOOD))


def test_validate_refuses_a_relative_prepare_path_without_values(tmp_path: Path) -> None:
    path = tmp_path / "workflow.xml"
    path.write_text(PREPARE.format(**{**GOOD, "delete": "out"}))
    with pytest.raises(SpecError) as info:
        validate_file(path, CLOCK)
    assert (info.value.code, info.value.line) == ("FS011", 6)
