"""Bad input found at ``submit`` / ``validate`` / ``dryrun``, through the real console script:
one error line with the code, the file and the line, a hint, exit 1, no traceback, and no
store made or changed.

* a coordinator's instances that every action would fail on (a start-instance after its
  end-instance, a frequency function in an ``<instance>``) were only found when the engine
  materialized an action (the coordinator FAILED with E1010 and no place);
* a variable cycle in the job configuration, and a bundle ``<app-path>`` naming no file, were
  refused without the file and line;
* a bundle whose coordinators need only the values the bundle itself gives (its
  ``<parameters>`` defaults) was reported as needing values;
* ``dryrun DIR`` said an existing directory "does not exist".
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli import bundletui

COORD = """<coordinator-app name="c" frequency="60" start="${{start}}" end="${{end}}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <datasets>
    <dataset name="d" frequency="60" initial-instance="2026-01-01T00:00Z" timezone="UTC">
      <uri-template>/data/${{YEAR}}${{MONTH}}${{DAY}}${{HOUR}}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="in" dataset="d">
      {events}
    </data-in>
  </input-events>
  <action><workflow><app-path>/apps/wf</app-path></workflow></action>
</coordinator-app>
"""

BUNDLE = """<bundle-app name="b" xmlns="uri:oozie:bundle:0.2">
  <parameters>
    <property><name>start</name><value>2026-01-01T00:00Z</value></property>
    <property><name>end</name><value>2026-01-02T00:00Z</value></property>
  </parameters>
  <coordinator name="first">
    <app-path>{app}</app-path>
  </coordinator>
</bundle-app>
"""

TIMES = "start=2026-01-01T00:00Z\nend=2026-01-02T00:00Z\n"


def submit_one(tmp_path: Path, name: str, text: str, key: str) -> tuple[Path, list[str]]:
    """Write ``name`` and a job.properties naming it by ``key``; submit it: (file, refusal)."""
    app = tmp_path / name
    app.write_text(text)
    props = tmp_path / "job.properties"
    props.write_text(f"{key}={name}\n")
    return app, refused(bundletui("submit", str(props), home=tmp_path / "home"))


def refused(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The lines of a refused command: an error and its hint, nothing on stdout."""
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout == "", done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("Error: "), done.stderr
    assert lines[1].startswith("  hint: "), done.stderr
    return lines


def write_coordinator(root: Path, events: str) -> tuple[Path, Path, Path]:
    """coordinator.xml, its job.properties, and a bundle (with its job.properties) over it."""
    coord = root / "coordinator.xml"
    coord.write_text(COORD.format(events=events))
    props = root / "job.properties"
    props.write_text(f"oozie.coord.application.path=coordinator.xml\n{TIMES}")
    (root / "bundle.xml").write_text(BUNDLE.format(app="coordinator.xml"))
    bundle_props = root / "bundle.properties"
    bundle_props.write_text("oozie.bundle.application.path=bundle.xml\n")
    return coord, props, bundle_props


@pytest.mark.parametrize(
    ("events", "message", "hint"),
    [
        (
            "<start-instance>${coord:current(0)}</start-instance>\n"
            "      <end-instance>${coord:current(-3)}</end-instance>",
            "Invalid data in coordinator xml. [data-in [in]: start-instance should be equal or "
            "earlier than the end-instance: start-instance is current(0) and end-instance is "
            "current(-3)]",
            "swap them: the start-instance is the older instance",
        ),
        (
            "<instance>${coord:hours(1)}</instance>",
            "Invalid data in coordinator xml. [<instance> of data-in [in] is "
            "[${coord:hours(1)}], not one instance function]",
            "write one instance function per element, e.g. ${coord:current(-1)}",
        ),
    ],
)
def test_instances_every_action_would_fail_on_are_refused_at_submit(
    tmp_path: Path, events: str, message: str, hint: str
) -> None:
    """submit (a coordinator, a bundle of it), validate and dryrun all say E1010 with the
    coordinator file and the line of the offending element (line 10), and store nothing."""
    coord, props, bundle_props = write_coordinator(tmp_path, events)
    home = tmp_path / "home"
    of_bundle = ' [bundle coordinator "first" of {}]'
    runs = [  # (arguments, the file named, what follows the message)
        (("submit", str(props)), str(coord), ""),
        (("submit", str(bundle_props)), str(coord), of_bundle.format(tmp_path / "bundle.xml")),
        (("validate", "coordinator.xml", "--config", "job.properties"), "coordinator.xml", ""),
        (("validate", "bundle.xml"), "coordinator.xml", of_bundle.format("bundle.xml")),
        (("dryrun", "coordinator.xml", "-D", "start=2026-01-01T00:00Z",
          "-D", "end=2026-01-02T00:00Z"), "coordinator.xml", ""),
    ]  # fmt: skip
    for args, shown, suffix in runs:
        first, second = refused(bundletui(*args, home=home, cwd=tmp_path))
        assert first == f"Error: E1010: {shown}:10: {message}{suffix}", (args, first)
        assert hint in second, (args, second)
    assert not home.exists()  # no store made by a refused submit


@pytest.mark.parametrize(
    "events",
    [
        "<start-instance>${coord:current(-3)}</start-instance>"
        "<end-instance>${coord:current(0)}</end-instance>",
        "<start-instance>${coord:latest(-2)}</start-instance>"
        "<end-instance>${coord:latest(0)}</end-instance>",
        "<start-instance>${coord:future(0, 3)}</start-instance>"
        "<end-instance>${coord:future(1, 3)}</end-instance>",
        '<start-instance>${coord:offset(-120, "MINUTE")}</start-instance>'
        '<end-instance>${coord:offset(-1, "HOUR")}</end-instance>',
        '<start-instance>${coord:offset(-1, "DAY")}</start-instance>'
        '<end-instance>${coord:offset(-30, "MINUTE")}</end-instance>',
        "<start-instance>${coord:endOfDays(-1)}</start-instance>"
        "<end-instance>${coord:current(0)}</end-instance>",
        "<instance>${coord:current(-1 - 1)}</instance><instance>${coord:latest(0)}</instance>",
        # depends on the action: checked when it is made, not refused now
        "<instance>${coord:current(coord:conf('n'))}</instance>",
    ],
)
def test_instances_oozie_accepts_still_submit(tmp_path: Path, events: str) -> None:
    _coord, props, _bundle = write_coordinator(tmp_path, events)
    done = bundletui("submit", str(props), "-D", "n=-1", home=tmp_path / "home")
    assert done.returncode == 0, done
    assert done.stdout.strip().endswith("-C")


@pytest.mark.parametrize(
    ("config", "line", "detail", "hint"),
    [
        (
            "job.properties",
            4,
            "(properties a, b refer to each other: ${a} -> ${b} -> ${a})",
            "give one of a, b a value that does not refer back to it",
        ),
        (
            "job.xml",
            4,
            "(property [a] refers to itself: ${a})",
            "give a a value that does not refer to ${a}",
        ),
    ],
)
def test_a_variable_cycle_names_the_config_file_and_line(
    tmp_path: Path, config: str, line: int, detail: str, hint: str
) -> None:
    write_coordinator(tmp_path, "<instance>${coord:current(0)}</instance>")
    (tmp_path / "job.properties").write_text(
        f"oozie.coord.application.path=coordinator.xml\n{TIMES}a=${{b}}\nb=${{a}}\n"
    )
    (tmp_path / "job.xml").write_text(
        "<configuration>\n"
        "  <property><name>oozie.coord.application.path</name>"
        "<value>coordinator.xml</value></property>\n"
        "  <property>\n"
        "    <name>a</name><value>x${a}</value>\n"
        "  </property>\n"
        "</configuration>\n"
    )
    home = tmp_path / "home"
    for args in (
        ("submit", config),
        ("validate", "coordinator.xml", "--config", config),
        ("dryrun", config),
    ):
        first, second = refused(bundletui(*args, home=home, cwd=tmp_path))
        assert first.startswith(
            f"Error: E0302: {config}:{line}: Variable substitution depth too large: 20 "
        ), (args, first)
        assert first.endswith(detail), first
        assert second == f"  hint: {hint}"
    assert not home.exists()


def test_a_bundle_app_path_naming_no_file_names_the_bundle_file_and_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    bundle, (first, second) = submit_one(
        tmp_path, "bundle.xml", BUNDLE.format(app="nowhere.xml"), "oozie.bundle.application.path"
    )
    assert first == (
        f"Error: E1001: {bundle}:7: Could not read the coordinator job definition, "
        f'{tmp_path / "nowhere.xml"} does not exist [bundle coordinator "first" of {bundle}]'
    )
    assert "<app-path> of coordinator [first]" in second
    assert "bundle file's directory" in second
    assert not home.exists()  # the store is made by the first valid submit only
    for args in (
        ("validate", "bundle.xml", "--config", "job.properties"),
        ("dryrun", "bundle.xml"),
    ):
        first, _ = refused(bundletui(*args, home=home, cwd=tmp_path))
        assert first.startswith("Error: E1001: bundle.xml:7: "), first


def test_validate_without_values_takes_the_bundles_parameter_defaults(tmp_path: Path) -> None:
    """start and end have defaults in the bundle's <parameters>: validate without a config
    checks its coordinators with them instead of asking for values."""
    write_coordinator(tmp_path, "<instance>${coord:current(0)}</instance>")
    done = bundletui("validate", "bundle.xml", home=tmp_path / "home", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, ""), done
    first, *notes = done.stdout.splitlines()  # and a note: its workflow (/apps/wf) is not there
    assert first == "Valid bundle-app: bundle.xml" and all("cannot be read now" in n for n in notes)
    # a value nothing gives is still asked for, never one with a default
    (tmp_path / "bundle.xml").write_text(
        BUNDLE.format(app="coordinator.xml").replace(
            '<coordinator name="first">', '<coordinator name="${region}">'
        )
    )
    done = bundletui("validate", "bundle.xml", home=tmp_path / "home", cwd=tmp_path)
    assert done.returncode == 0, done
    assert done.stdout == (
        "Valid bundle-app: bundle.xml (give values for region with --config or -D to check the "
        "rest)\n  note: coordinator [${region}]: checked\n"
    )


def test_dryrun_of_a_directory_says_it_is_one_as_submit_does(tmp_path: Path) -> None:
    write_coordinator(tmp_path, "<instance>${coord:current(0)}</instance>")
    home = tmp_path / "home"
    first, second = refused(bundletui("dryrun", str(tmp_path), home=home))
    assert first == f"Error: E0702: {tmp_path}: IO error, {tmp_path} is a directory"
    assert second == (
        f"  hint: name the file itself: {tmp_path / 'coordinator.xml'} or "
        f"{tmp_path / 'bundle.xml'} or {tmp_path / 'job.properties'}"
    )
    submitted = refused(bundletui("submit", str(tmp_path), home=home))
    assert submitted[0] == first  # the same error as submit's
    assert submitted[1] == (  # submit takes a configuration: the directory's .properties
        f"  hint: name the file itself: {tmp_path / 'job.properties'} or "
        f"{tmp_path / 'bundle.properties'}"
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    _first, second = refused(bundletui("dryrun", str(empty), home=home))
    assert "holds none of them" in second and "coordinator.xml" in second
    assert not home.exists()


def test_errors_about_start_a_cron_and_an_action_property_name_the_line(tmp_path: Path) -> None:
    """QA: ``<start to="nowhere"/>``, a cron that never fires and a ``<configuration>`` value
    that fails at dryrun said the file without the line (and not which property)."""
    wf = tmp_path / "workflow.xml"
    wf.write_text(
        '<workflow-app xmlns="uri:oozie:workflow:1.0" name="x">\n'
        '  <start to="nowhere"/>\n'
        '  <end name="end"/>\n'
        "</workflow-app>\n"
    )
    r = bundletui("validate", str(wf))
    assert r.returncode == 1 and f"E0708: {wf}:2: " in r.stderr, r.stderr
    coord = tmp_path / "coordinator.xml"

    def coordinator(frequency: str, value: str) -> str:
        return (
            "\n"
            '<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c"\n'
            f'  frequency="{frequency}" start="2026-01-01T00:00Z" end="2026-01-02T00:00Z"'
            ' timezone="UTC">\n'
            "  <action><workflow><app-path>.</app-path><configuration>\n"
            f"    <property><name>p</name><value>{value}</value></property>\n"
            "  </configuration></workflow></action>\n"
            "</coordinator-app>\n"
        )

    coord.write_text(coordinator("0 0 30 2 *", "v"))
    r = bundletui("validate", str(coord))
    assert r.returncode == 1 and f"E1003: {coord}:2: " in r.stderr, r.stderr
    assert "never fires" in r.stderr
    coord.write_text(coordinator("60", "${coord:formatTime(coord:nominalTime(), 'yyyy') + 'a'}"))
    r = bundletui("dryrun", str(coord))
    assert r.returncode == 1, r
    assert f"E1004: {coord}:5: <configuration> property [p]: " in r.stderr, r.stderr


def test_a_coordinator_named_as_a_workflow_says_which_key_names_it(tmp_path: Path) -> None:
    """QA (r): a coordinator file under ``oozie.wf.application.path`` got the hint "declare
    … xmlns=uri:oozie:workflow:1.0", as if its namespace were the mistake."""
    coord, (first, second) = submit_one(
        tmp_path,
        "coordinator.xml",
        COORD.format(events="<instance>${coord:current(0)}</instance>"),
        "oozie.wf.application.path",
    )
    assert first.startswith(f"Error: E0701: {coord}:1: "), first
    assert second == (
        "  hint: this file is a coordinator application, not a workflow: a job names a"
        " coordinator with oozie.coord.application.path"
    )
    assert not (tmp_path / "home").exists()
