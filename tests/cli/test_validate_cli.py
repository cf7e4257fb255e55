"""``bundletui validate`` refuses what ``submit`` refuses, through the real console script.

A bundle is valid only if each of its enabled coordinators is (the file is there, start before
end, every variable has a value): ``validate BUNDLE --config job.properties`` resolves them as
``submit`` does and prints the same error, ``[bundle coordinator "NAME" of FILE]`` included.
Also a critical flag that is neither true nor false, and numbers outside Java's int.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli import bundletui

BUNDLE = """<bundle-app name="b" xmlns="uri:oozie:bundle:0.2">
  <coordinator name="first" critical="{critical}">
    <app-path>{app}</app-path>
  </coordinator>
  <coordinator name="off" enabled="false">
    <app-path>missing-too.xml</app-path>
  </coordinator>
</bundle-app>
"""

COORD = """<coordinator-app name="c" frequency="{frequency}" start="${{start}}" end="${{end}}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>/apps/wf</app-path>
    <configuration><property><name>out</name><value>${{outDir}}</value></property>
    </configuration>
  </workflow></action>
</coordinator-app>
"""


def bt(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return bundletui(*args, home=home)


def write(
    root: Path,
    *,
    app: str = "coordinator.xml",
    critical: str = "true",
    frequency: str = "60",
    start: str = "2026-01-01T00:00Z",
    end: str = "2026-01-02T00:00Z",
) -> tuple[Path, Path]:
    """bundle.xml, coordinator.xml and job.properties; (bundle, properties)."""
    (root / "bundle.xml").write_text(BUNDLE.format(critical=critical, app=app))
    (root / "coordinator.xml").write_text(COORD.format(frequency=frequency))
    props = root / "job.properties"
    props.write_text(
        f"oozie.bundle.application.path=bundle.xml\nstart={start}\nend={end}\noutDir=/tmp/out\n"
    )
    return root / "bundle.xml", props


def refused(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The error lines of a refused command (no traceback, nothing on stdout)."""
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("Error: "), done.stderr
    return lines


def validate_and_submit(root: Path, **kw: str) -> tuple[list[str], list[str]]:
    bundle, props = write(root, **kw)
    home = root / "home"
    checked = refused(bt("validate", str(bundle), "--config", str(props), home=home))
    submitted = refused(bt("submit", str(props), home=home))
    return checked, submitted


def test_a_valid_bundle_is_still_valid_and_without_values_only_its_schema_is_checked(
    tmp_path: Path,
) -> None:
    bundle, props = write(tmp_path)
    done = bt("validate", str(bundle), "--config", str(props), home=tmp_path / "home")
    assert done.returncode == 0, done
    first, *notes = done.stdout.splitlines()
    assert first == f"Valid bundle-app: {bundle}"
    assert all("the workflow of coordinator [first] cannot be read now" in n for n in notes)
    # a coordinator with start > end is not looked at without values (schema only)
    write(tmp_path, start="2027-01-01T00:00Z")
    done = bt("validate", str(bundle), home=tmp_path / "home")
    assert done.returncode == 0, done
    assert done.stdout.startswith(f"Valid bundle-app: {bundle}")


@pytest.mark.parametrize(
    ("kw", "code", "words"),
    [
        ({"start": "2027-01-01T00:00Z"}, "E1003", "Start Time must be earlier than End Time"),
        ({"app": "nowhere.xml"}, "E1001", "nowhere.xml does not exist"),
        ({"frequency": "${every}"}, "E1004", "every"),
        ({"frequency": "${coord:hours(35791395)}"}, "E1003", "(= 2147483700) is out of range"),
    ],
)
def test_validate_refuses_a_bundle_whose_coordinator_submit_refuses(
    tmp_path: Path, kw: dict[str, str], code: str, words: str
) -> None:
    checked, submitted = validate_and_submit(tmp_path, **kw)
    assert checked[0].startswith(f"Error: {code}: "), checked
    assert words in checked[0]
    suffix = f'[bundle coordinator "first" of {tmp_path / "bundle.xml"}]'
    assert checked[0].endswith(suffix), checked
    # the same error as submit's, hint included (submit names the files as resolved paths)
    assert checked == submitted


def test_a_critical_flag_that_is_not_true_or_false_is_refused(tmp_path: Path) -> None:
    checked, submitted = validate_and_submit(tmp_path, critical="ture")
    assert checked == [
        f"Error: E1303: {tmp_path / 'bundle.xml'}:2: Invalid bundle application attributes "
        "[critical], critical [ture] of coordinator [first] is neither true nor false",
        "  hint: critical must be true or false (leave it out for a non-critical coordinator)",
    ]
    assert checked == submitted
    write(tmp_path, critical=" FALSE ")
    done = bt("validate", str(tmp_path / "bundle.xml"), "--config", str(tmp_path / "job.properties"),
              home=tmp_path / "home")  # fmt: skip
    assert done.returncode == 0, done


def test_validate_expands_the_properties_as_submit_does(tmp_path: Path) -> None:
    """A property defined with a dotted one (start=${run.day}T00:00Z): submit expands the file's
    variables before resolving the applications, so validate does too."""
    bundle, props = write(tmp_path, start="${run.day}T00:00Z")
    props.write_text(props.read_text() + "run.day=2026-01-01\n")
    for app in (bundle, tmp_path / "coordinator.xml"):
        done = bt("validate", str(app), "--config", str(props), home=tmp_path / "home")
        assert done.returncode == 0, done
    assert bt("submit", str(props), home=tmp_path / "home").returncode == 0


def test_validate_without_values_says_a_bundles_coordinators_were_not_checked(
    tmp_path: Path,
) -> None:
    """A bundle without --config: its file passes, and the note says its coordinators need the
    submission's values (they were not resolved), instead of a bare "Valid"."""
    bundle, props = write(tmp_path, start="2027-01-01T00:00Z")  # a coordinator submit refuses
    done = bt("validate", str(bundle), home=tmp_path / "home")
    assert (done.returncode, done.stderr) == (0, ""), done
    assert done.stdout == (
        f"Valid bundle-app: {bundle} (not every coordinator can be checked without the "
        "submission's values: add --config job.properties or -D)\n"
        "  note: coordinator [first]: its file and schema checked; its variables need values\n"
    )
    done = bt("validate", str(bundle), "--config", str(props), home=tmp_path / "home")
    assert done.returncode == 1 and "E1003" in done.stderr, done


COORD_EL = """<coordinator-app name="c" frequency="60" start="2026-01-01T00:00Z"
    end="2026-01-01T06:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.5">
  <datasets>
    <dataset name="d" frequency="60" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>/data/${{YEAR}}${{MONTH}}${{DAY}}${{HOUR}}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="in" dataset="d"><instance>{instance}</instance></data-in>
  </input-events>
  <input-logic><or name="either"><data-in dataset="in"/></or></input-logic>
  <action><workflow><app-path>/apps/wf</app-path>
    <configuration><property><name>v</name><value>{value}</value></property>
    </configuration>
  </workflow></action>
</coordinator-app>
"""


@pytest.mark.parametrize(
    ("instance", "value", "line", "message", "hint"),
    [
        ("${coord:curent(0)}", "x", 9, "unknown function [coord:curent]", "coord:current"),
        (
            "${coord:current(0)}",
            "${coord:formatTme(coord:nominalTime(), 'yyyy')}",
            13,
            "unknown function [coord:formatTme]",
            "coord:formatTime",
        ),
        (
            "${coord:current(0)}",
            "${coord:dataIn('nosuch')}",
            13,
            "coord:dataIn: no data-in or input-logic operator named [nosuch] (property v)",
            "defined: either, in",
        ),
        (  # QA: a number passed validate and submit, then failed every action
            "${coord:current(0)}",
            "${coord:dataIn(3)}",
            13,
            "coord:dataIn: no data-in or input-logic operator named [3] (property v)",
            "defined: either, in",
        ),
        (
            "${coord:current(0)}",
            '${coord:dataOut("out")}',
            13,
            "coord:dataOut: no data-out named [out] (property v)",
            "defined: none",
        ),
        (  # a wrong argument count passed submit and failed every action
            "${coord:current(0)}",
            "${coord:dataIn('in', 2)}",
            13,
            "function [coord:dataIn] expects 1 argument, got 2 (property v)",
            "call it as coord:dataIn(string)",
        ),
        (
            "${coord:current(0)}",
            "${coord:formatTime(coord:nominalTime(1), 'yyyy')}",
            13,
            "function [coord:nominalTime] expects 0 arguments, got 1 (property v)",
            "call it as coord:nominalTime()",
        ),
        (
            "${coord:current(0)}",
            "${coord:formatTime(coord:nominalTime())}",
            13,
            "function [coord:formatTime] expects 2 arguments, got 1 (property v)",
            "call it as coord:formatTime(string, string)",
        ),
        (
            "${coord:current(0)}",
            "${coord:formatTime(coord:nominalTime(), 'yyyy-MM-dd QQQ')}",
            13,
            "Illegal pattern character 'Q' in [yyyy-MM-dd QQQ] (property v)",
            "quote literal letters",
        ),
    ],
)
def test_coordinator_el_that_every_action_would_fail_on_is_refused_at_submit(
    tmp_path: Path, instance: str, value: str, line: int, message: str, hint: str
) -> None:
    """An unknown ``coord:`` function, a wrong argument count, or a data-in / data-out name
    that is not defined, made every action FAIL when it started (E1004); ``validate`` and
    ``submit`` refuse it now, with the file and line, and store nothing."""
    coord = tmp_path / "coordinator.xml"
    coord.write_text(COORD_EL.format(instance=instance, value=value))
    props = tmp_path / "job.properties"
    props.write_text("oozie.coord.application.path=coordinator.xml\n")
    home = tmp_path / "home"
    for args in (("validate", str(coord), "--config", str(props)), ("submit", str(props))):
        r = bt(*args, home=home)
        assert r.returncode == 1, r
        first, second = r.stderr.splitlines()[:2]
        assert first.startswith(f"Error: E1004: {coord}:{line}: ") and message in first, r.stderr
        assert hint in second, r.stderr
    assert not home.exists()
    good = COORD_EL.format(instance="${coord:current(0)}", value="${coord:dataIn('either')}")
    coord.write_text(good)
    assert bt("submit", str(props), home=home).returncode == 0


def test_a_device_or_a_pipe_is_refused_not_read_for_ever(tmp_path: Path) -> None:
    """``/dev/zero`` was read until the machine ran out of memory, a named pipe waited for a
    writer for ever: only a regular file is read."""
    fifo = tmp_path / "app.xml"
    os.mkfifo(fifo)
    home = tmp_path / "home"
    for args in (
        ("validate", "/dev/zero"),
        ("validate", str(fifo)),
        ("submit", "/dev/zero"),
        ("validate", str(fifo), "--config", "/dev/zero"),
    ):
        r = bundletui(*args, home=home, timeout=20)
        assert r.returncode == 1, r
        assert "E0702" in r.stderr and "is not a regular file" in r.stderr, r.stderr
    assert not home.exists()


@pytest.mark.parametrize(
    ("sample", "root"), [("naive-bayes", "dag-app"), ("oozie-wf", "workflow-app")]
)
def test_validate_names_the_kind_of_workflow_it_read(
    tmp_path: Path, sample: str, root: str
) -> None:
    """QA: a DAG was reported as a 'Valid workflow-app'; it is named by its root, as the
    bundle and coordinator kinds are."""
    path = Path(__file__).parents[2] / "sample_bundles" / sample / "workflow.xml"
    r = bt("validate", str(path), home=tmp_path / "home")
    assert r.returncode == 0, r
    assert r.stdout.startswith(f"Valid {root}: {path}"), r.stdout


def test_validate_without_values_checks_each_coordinator_it_can(tmp_path: Path) -> None:
    """Left-alone item: one coordinator whose app-path needs a value made validate skip every
    coordinator, so a missing file next to it passed. Each coordinator is checked as far as
    the bundle's own values go, and the notes say how far."""
    bundle, _props = write(tmp_path)
    text = bundle.read_text()
    second = (
        '<coordinator name="second"><app-path>${secondPath}</app-path></coordinator></bundle-app>'
    )
    bundle.write_text(text.replace("</bundle-app>", second))
    done = bt("validate", str(bundle), home=tmp_path / "home")
    assert (done.returncode, done.stderr) == (0, ""), done
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"Valid bundle-app: {bundle} (give values for secondPath"), lines
    assert (
        "  note: coordinator [second] not checked: its app-path ${secondPath} needs values" in lines
    )
    # the first coordinator's file is checked all the same: a wrong path is refused, with
    # the bundle's file and line
    bundle.write_text(
        bundle.read_text().replace("coordinator.xml</app-path>", "nosuch.xml</app-path>")
    )
    done = bt("validate", str(bundle), home=tmp_path / "home")
    assert done.returncode == 1, done
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"Error: E1001: {bundle}:") and "nosuch.xml does not exist" in first, (
        first
    )
    assert "Traceback" not in done.stderr


def test_a_syntax_error_in_a_coordinators_workflow_configuration_names_file_and_line(
    tmp_path: Path,
) -> None:
    """Left-alone item ("some dryrun errors lack file:line"): an EL syntax error in a
    coordinator's text (here its action's workflow configuration) was refused without where
    it is, by validate, dryrun and submit alike."""
    coordinator = tmp_path / "coordinator.xml"
    coordinator.write_text(
        '<coordinator-app name="c" frequency="60" start="2026-01-01T00:00Z"\n'
        '    end="2026-01-01T06:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.5">\n'
        "  <action><workflow><app-path>/tmp/wf</app-path><configuration>\n"
        "    <property><name>x</name>\n"
        "      <value>${coord:formatTime(coord:nominalTime(), 'yyyy'}</value></property>\n"
        "  </configuration></workflow></action>\n"
        "</coordinator-app>\n"
    )
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.coord.application.path={coordinator}\n")
    home = tmp_path / "home"
    for args in (
        ["validate", str(coordinator)],
        ["dryrun", str(coordinator)],
        ["submit", str(props)],
    ):
        lines = refused(bt(*args, home=home))
        assert lines[0].startswith(f"Error: E1004: {coordinator}:5: "), (args, lines)
        assert "syntax error" in lines[0]
    assert not (home / "bundletui.db").exists()  # the first valid submit makes the store


def test_a_control_written_out_of_range_is_refused_even_without_values(tmp_path: Path) -> None:
    """QA (n): with ``${start}`` unset, validate checked the schema only and passed
    ``<concurrency>2147483648</concurrency>``, which no value could fix (the README says such
    numbers are refused by validate). A control given by a variable is left for the values."""
    coordinator = tmp_path / "coordinator.xml"
    text = COORD.format(frequency="60").replace(
        "<action>", "<controls><concurrency>NUMBER</concurrency></controls>\n  <action>"
    )
    coordinator.write_text(text.replace("NUMBER", "2147483648"))
    lines = refused(bt("validate", str(coordinator), home=tmp_path / "home"))
    assert lines[0] == (
        f"Error: E1003: {coordinator}:3: Invalid coordinator application attributes, "
        "controls/concurrency [2147483648] is out of range"
    ), lines
    coordinator.write_text(text.replace("NUMBER", "${conc}"))
    done = bt("validate", str(coordinator), home=tmp_path / "home")
    assert done.returncode == 0, done
    assert "schema only: give values for conc, end, outDir, start" in done.stdout, done.stdout


@pytest.mark.parametrize(
    ("trigger", "constraints", "var"),
    [
        ('<partitions feed="f" count="2"/>', "<delay>${d}</delay>", "d"),
        ('<partitions feed="f" count="2"/>', '<time-window start="${s}" end="06:00"/>', "s"),
        ('<partitions feed="f" count="2"/>', '<timeout on-timeout="${o}">PT1H</timeout>', "o"),
        ('<cron expression="${c}"/>', "", "c"),
        ('<bytes feed="f" at-least="${b}"/>', "", "b"),
    ],
)
def test_a_variable_in_an_event_schedule_needs_a_value_not_a_fix(
    tmp_path: Path, trigger: str, constraints: str, var: str
) -> None:
    """QA (x): ``<delay>${d}</delay>`` alone was refused (E1003 "not an ISO-8601 duration:
    '${d}'"); it is valid once d has a value, so validate without values says what it needs;
    a bad value given is still refused."""
    app = tmp_path / "e.xml"
    app.write_text(
        '<coordinator-app name="e" xmlns="uri:bundletui:coordinator:1.0"'
        ' start="2026-01-01T00:00Z" end="2026-02-01T00:00Z" timezone="UTC">'
        '<feeds><feed name="f" path="${landing}/f"/></feeds>'
        f"<trigger>{trigger}</trigger>"
        + (f"<constraints>{constraints}</constraints>" if constraints else "")
        + "<action><workflow><app-path>w</app-path></workflow></action></coordinator-app>"
    )
    done = bt("validate", str(app), home=tmp_path / "h")
    assert done.returncode == 0, done.stderr
    assert f"schema only: give values for {var} " in done.stdout, done.stdout
    bad = bt("validate", str(app), "-D", f"{var}=garbage", home=tmp_path / "h")
    assert bad.returncode == 1 and "E1003" in bad.stderr and "e.xml:" in bad.stderr, bad


def test_validate_takes_the_home_its_landing_is_under(tmp_path: Path) -> None:
    """QA (ad): only BUNDLETUI_HOME set validate's ${landing}: a feed at the home's landing
    directory itself (it would watch every feed) was not seen as one."""
    home = tmp_path / "h"
    app = tmp_path / "ev.xml"
    app.write_text(
        '<coordinator-app name="ev" xmlns="uri:bundletui:coordinator:1.0"'
        ' start="2026-01-01T00:00Z" end="2026-01-02T00:00Z" timezone="UTC">'
        f'<feeds><feed name="all" path="{home / "landing"}"/></feeds>'
        '<trigger><partitions feed="all" count="1"/></trigger>'
        "<action><workflow><app-path>/apps/wf</app-path></workflow></action>"
        "</coordinator-app>"
    )
    done = bundletui("validate", str(app), "--home", str(home), "-D", "x=1")
    assert done.returncode == 1 and "is the landing directory" in done.stderr, done
    assert not home.exists()


def test_validate_and_submit_refuse_a_dataset_function_in_the_configuration(
    tmp_path: Path,
) -> None:
    """QA (al): ``${coord:current(0)}`` in the workflow's configuration passed validate and
    submit, then failed every action; both refuse it now, at the property's line."""
    from tests.spec.test_load import PHASED

    app = tmp_path / "coordinator.xml"
    app.write_text(PHASED.format(instance="${coord:current(0)}", value="${coord:current(0)}"))
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.coord.application.path={app}\n")
    home = tmp_path / "home"
    for r in (bt("validate", str(app), home=home), bt("submit", str(props), home=home)):
        assert r.returncode == 1, r
        assert f"E1004: {app}:9: " in r.stderr and "coord:current() reads the dataset" in r.stderr
    assert not (home / "bundletui.db").exists()  # refused before a store was made


@pytest.mark.parametrize(
    ("frequency", "timeout", "words"),
    [
        ("${coord:current(0)}", "10", "frequency [${coord:current(0)}] is not an integer"),
        ("60", "${coord:current(0)}", "timeout [${coord:current(0)}] is not an integer"),
    ],
)
def test_validate_without_values_checks_an_app_that_has_no_variables(
    tmp_path: Path, frequency: str, timeout: str, words: str
) -> None:
    """QA (al): with no --config, such a file was "Valid … (schema only: give values for its
    variables …)" though it has none to give; submit then refused it (E1003)."""
    app = tmp_path / "coordinator.xml"
    app.write_text(
        f'<coordinator-app name="c" frequency="{frequency}" start="2009-01-02T00:00Z"'
        ' end="2009-01-04T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">'
        f"<controls><timeout>{timeout}</timeout></controls>"
        "<action><workflow><app-path>/apps/wf</app-path></workflow></action></coordinator-app>"
    )
    r = bt("validate", str(app), home=tmp_path / "home")
    assert r.returncode == 1, r
    assert r.stderr.startswith(f"Error: E1003: {app}:1: ") and words in r.stderr, r.stderr


def test_a_workflow_that_cannot_be_read_now_is_noted_by_validate_and_dryrun(
    tmp_path: Path,
) -> None:
    """QA: a coordinator whose workflow is not there validated without a word, and every
    action then failed with E0710. Oozie reads it only at action start (it may be deployed
    later): not an error, but ``validate`` and ``dryrun`` say so; submit still takes it."""
    bundle, props = write(tmp_path)
    coordinator = tmp_path / "coordinator.xml"
    home = tmp_path / "home"
    noted = "cannot be read now (E0710: Could not read the workflow definition, /apps/wf"
    for path, name in ((coordinator, "c"), (bundle, "first")):  # as the bundle names it
        done = bt("validate", str(path), "--config", str(props), home=home)
        assert done.returncode == 0, done
        note = f"  note: {coordinator}:3: the workflow of coordinator [{name}] {noted}"
        assert note in done.stdout, done.stdout
        assert "/apps/wf does not exist): its actions fail unless it is there" in done.stdout
    done = bt("dryrun", str(props), "--limit", "1", home=home)
    said = " ".join(done.stdout.split())  # the note is wrapped to the width
    assert done.returncode == 0 and "  note: /" in done.stdout and f"[first] {noted}" in said
    done = bt("dryrun", str(props), "--limit", "1", "--json", home=home)
    assert '"notes": [' in done.stdout and "/apps/wf does not exist" in done.stdout, done
    assert bt("submit", str(props), home=home).returncode == 0  # as Oozie: read at action start

    # there (a directory holding workflow.xml), as written or through a variable: no note
    wf = tmp_path / "wf"
    wf.mkdir()
    (wf / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w">'
        f'<job name="a"><fs><mkdir path="{tmp_path / "out"}"/></fs></job></dag-app>'
    )
    for app_path in (str(wf), "${wfDir}"):
        coordinator.write_text(COORD.format(frequency="60").replace("/apps/wf", app_path))
        done = bt("validate", str(bundle), "--config", str(props), "-D", f"wfDir={wf}", home=home)
        assert done.returncode == 0 and done.stdout.strip() == f"Valid bundle-app: {bundle}", done


def test_a_workflow_that_is_not_valid_now_is_noted_by_validate_and_dryrun(
    tmp_path: Path,
) -> None:
    """QA: a coordinator whose workflow has a cycle validated as ``Valid`` and dryrun said
    ``ready``, and then every action failed with E0707; a missing one was noted already."""
    wf = tmp_path / "wf.xml"
    wf.write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w">\n'
        ' <job name="a"><depends>b</depends><shell><exec>true</exec></shell></job>\n'
        ' <job name="b"><depends>a</depends><shell><exec>true</exec></shell></job>\n'
        "</dag-app>\n"
    )
    coord = tmp_path / "coord.xml"
    coord.write_text(
        '<coordinator-app name="c" frequency="60" start="2026-01-01T00:00Z"'
        ' end="2026-01-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">\n'
        "  <action><workflow><app-path>wf.xml</app-path></workflow></action>\n"
        "</coordinator-app>\n"
    )
    home = tmp_path / "home"
    note = (
        f"  note: {coord}:2: the workflow of coordinator [c] is not valid now (E0707: {wf}:2:"
        " Loop detected at parsing, node [a], path [a->b->a]): its actions fail unless it is"
        " fixed before they start"
    )
    done = bt("validate", str(coord), home=home)
    assert done.returncode == 0 and note in done.stdout, done.stdout
    done = bt("dryrun", str(coord), "--limit", "1", home=home)
    said = "".join(done.stdout.split())  # wrapped to the width, a long path too
    assert done.returncode == 0 and "".join(note.split()) in said, done.stdout


def test_credentials_are_noted_as_ignored_and_an_undefined_one_is_named(tmp_path: Path) -> None:
    """QA: ``<credentials>`` and ``cred="nosuch"`` validated and ran without a word."""
    wf = tmp_path / "workflow.xml"
    wf.write_text(
        '<workflow-app xmlns="uri:oozie:workflow:0.5" name="c">\n'
        "  <credentials>\n"
        '    <credential name="hcat" type="hcat"><property><name>u</name><value>v</value>'
        "</property></credential>\n"
        "  </credentials>\n"
        '  <start to="a"/>\n'
        '  <action name="a" cred="hcat,nosuch">\n'
        f'    <fs><mkdir path="{tmp_path}/out"/></fs><ok to="end"/><error to="end"/>\n'
        "  </action>\n"
        '  <end name="end"/>\n'
        "</workflow-app>\n"
    )
    done = bt("validate", str(wf), home=tmp_path / "home")
    assert done.returncode == 0, done
    said = " ".join(done.stdout.split())
    assert f"note: {wf}:2: <credentials> are ignored" in said, said
    assert f"note: {wf}:6: action [a] names credential [nosuch], which" in said, said
    assert "credential [hcat]" not in said


def test_a_coordinator_whose_workflow_path_names_a_coordinator_is_noted(tmp_path: Path) -> None:
    """Review: a coordinator whose <app-path> named itself made validate and dryrun recurse
    to a RecursionError traceback."""
    coord = tmp_path / "coordinator.xml"
    coord.write_text(
        '<coordinator-app name="c" frequency="60" start="2026-01-01T00:00Z"'
        ' end="2026-01-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">\n'
        "  <action><workflow><app-path>coordinator.xml</app-path></workflow></action>\n"
        "</coordinator-app>\n"
    )
    for args in (("validate", str(coord)), ("dryrun", str(coord), "--limit", "1")):
        done = bt(*args, home=tmp_path / "home")
        assert done.returncode == 0 and "Traceback" not in done.stderr, done
        said = " ".join(done.stdout.split())
        assert "is a coordinator definition, not a workflow's" in said, said
