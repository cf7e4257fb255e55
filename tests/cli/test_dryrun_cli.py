"""``bundletui dryrun``: coordinator XML, bundle XML and properties files, through the CLI.

Done flags, latest() and future() are real directories under tmp_path; the JSON shape is the
issue's: {"coordinators": [{"name", "actions": [{"number", "nominal_time", "data_in",
"data_out", "missing_dependencies", "ready", "conf"}]}]}.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from bundletui.cli import _register, app
from bundletui.model.timeutil import parse_oozie_time
from bundletui.spec.dryrun import dryrun
from tests.cli import bundletui

_register()
RUNNER = CliRunner()
ACTION_KEYS = [
    "number",
    "nominal_time",
    "data_in",
    "data_out",
    "missing_dependencies",
    "ready",
    "conf",
]

COORD = """<coordinator-app name="{name}" frequency="{frequency}" start="{start}" end="{end}"
    timezone="{timezone}" xmlns="uri:oozie:coordinator:0.4">
  <datasets>
    <dataset name="hourly" frequency="${{coord:hours(1)}}" initial-instance="2009-01-01T00:00Z"
             timezone="UTC">
      <uri-template>${{root}}/hourly/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}</uri-template>
    </dataset>
    <dataset name="daily" frequency="${{coord:days(1)}}" initial-instance="2009-01-01T00:00Z"
             timezone="{timezone}">
      <uri-template>${{root}}/daily/${{YEAR}}${{MONTH}}${{DAY}}</uri-template>
      <done-flag></done-flag>
    </dataset>
  </datasets>
  <input-events>{inputs}</input-events>
  <output-events>
    <data-out name="out" dataset="daily"><instance>${{coord:current(0)}}</instance></data-out>
  </output-events>
  <action>
    <workflow>
      <app-path>${{root}}/wf</app-path>
      <configuration>
        <property><name>input</name><value>${{coord:dataIn('in')}}</value></property>
        <property><name>output</name><value>${{coord:dataOut('out')}}</value></property>
        <property><name>day</name>
          <value>${{coord:formatTime(coord:nominalTime(), 'yyyy-MM-dd')}}</value></property>
        <property><name>region</name><value>${{region}}</value></property>
      </configuration>
    </workflow>
  </action>
</coordinator-app>
"""

RANGE = (
    '<data-in name="in" dataset="hourly"><start-instance>${coord:current(-2)}</start-instance>'
    "<end-instance>${coord:current(0)}</end-instance></data-in>"
)


def write_coord(
    root: Path,
    *,
    name: str = "hourly-job",
    frequency: str = "${coord:hours(1)}",
    start: str = "2009-01-01T00:00Z",
    end: str = "2009-01-02T00:00Z",
    timezone: str = "UTC",
    inputs: str = RANGE,
    file: str = "coordinator.xml",
) -> Path:
    path = root / file
    path.write_text(
        COORD.format(
            name=name, frequency=frequency, start=start, end=end, timezone=timezone, inputs=inputs
        )
    )
    return path


def run(*args: str) -> tuple[int, str, str]:
    result = RUNNER.invoke(app, ["dryrun", *args])
    return result.exit_code, result.stdout, result.stderr


def run_json(*args: str) -> dict[str, Any]:
    code, out, err = run(*args, "--json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def fails(*args: str) -> str:
    code, _out, err = run(*args)
    assert code == (2 if err.startswith("Error: E0302") else 1), (code, err)
    assert err.startswith("Error: E"), err
    assert "Traceback" not in err
    return err.splitlines()[0]


def touch(root: Path, *dirs: str, flag: str = "_SUCCESS") -> None:
    for d in dirs:
        (root / d).mkdir(parents=True, exist_ok=True)
        if flag:
            (root / d / flag).touch()


# --------------------------------------------------------------------------- coordinator XML


def test_coordinator_xml_json_shape(tmp_path: Path) -> None:
    path = write_coord(tmp_path)
    touch(tmp_path, "hourly/2009/01/01/02", "hourly/2009/01/01/01")
    data = run_json(str(path), "-D", f"root={tmp_path}", "-D", "region=eu", "--limit", "3")
    assert list(data) == ["coordinators"]
    (coord,) = data["coordinators"]
    assert list(coord) == ["name", "actions", "notes"]
    assert coord["name"] == "hourly-job"
    actions = coord["actions"]
    assert [list(a) for a in actions] == [ACTION_KEYS] * 3
    assert [a["number"] for a in actions] == [1, 2, 3]
    assert [a["nominal_time"] for a in actions] == [
        "2009-01-01T00:00Z",
        "2009-01-01T01:00Z",
        "2009-01-01T02:00Z",
    ]
    r = str(tmp_path)
    third = actions[2]
    assert third["data_in"] == {
        "in": [
            f"{r}/hourly/2009/01/01/02",
            f"{r}/hourly/2009/01/01/01",
            f"{r}/hourly/2009/01/01/00",
        ]
    }
    assert third["data_out"] == {"out": [f"{r}/daily/20090101"]}
    assert third["missing_dependencies"] == [f"{r}/hourly/2009/01/01/00/_SUCCESS"]
    assert third["conf"] == {
        "input": f"{r}/hourly/2009/01/01/02,{r}/hourly/2009/01/01/01,{r}/hourly/2009/01/01/00",
        "output": f"{r}/daily/20090101",
        "day": "2009-01-01",
        "region": "eu",
    }
    # the first action: instances before the dataset's initial instance are dropped
    assert actions[0]["data_in"] == {"in": [f"{r}/hourly/2009/01/01/00"]}
    touch(tmp_path, "hourly/2009/01/01/00")
    again = run_json(str(path), "-D", f"root={tmp_path}", "-D", "region=eu", "--limit", "3")
    assert all(a["missing_dependencies"] == [] for a in again["coordinators"][0]["actions"])


def test_start_end_and_limit_keep_action_numbers(tmp_path: Path) -> None:
    path = write_coord(tmp_path)
    args = [str(path), "-D", f"root={tmp_path}", "-D", "region=eu"]
    data = run_json(*args, "--start", "2009-01-01T05:00Z", "--end", "2009-01-01T08:00Z")
    actions = data["coordinators"][0]["actions"]
    assert [(a["number"], a["nominal_time"]) for a in actions] == [
        (6, "2009-01-01T05:00Z"),
        (7, "2009-01-01T06:00Z"),
        (8, "2009-01-01T07:00Z"),
    ]
    data = run_json(*args, "--start", "2009-01-01T22:00Z", "--limit", "5")
    assert [a["number"] for a in data["coordinators"][0]["actions"]] == [23, 24]
    assert len(run_json(*args)["coordinators"][0]["actions"]) == 24  # end is exclusive
    assert len(run_json(*args, "--limit", "1")["coordinators"][0]["actions"]) == 1


def test_latest_and_future_against_the_file_system(tmp_path: Path) -> None:
    inputs = (
        '<data-in name="in" dataset="hourly"><instance>${coord:latest(0)}</instance>'
        "<instance>${coord:current(0)}</instance></data-in>"
        '<data-in name="next" dataset="daily"><instance>${coord:future(0, 3)}</instance></data-in>'
    )
    path = write_coord(tmp_path, inputs=inputs, start="2009-01-05T00:00Z", end="2009-01-05T02:00Z")
    args = [str(path), "-D", f"root={tmp_path}", "-D", "region=eu"]
    first = run_json(*args)["coordinators"][0]["actions"][0]
    r = str(tmp_path)
    assert first["data_in"] == {
        "in": ["${coord:latest(0)}", f"{r}/hourly/2009/01/05/00"],
        "next": ["${coord:future(0, 3)}"],
    }
    assert first["missing_dependencies"] == [
        f"{r}/hourly/2009/01/05/00/_SUCCESS",
        "${coord:latest(0)}",
        "${coord:future(0, 3)}",
    ]
    assert first["conf"]["input"] == "${coord:dataIn('in')}"
    # latest: the newest existing instance before the actual time (now) -> 2009-01-05 01:00;
    # future: the first existing day from the nominal time (empty done flag: the directory)
    touch(tmp_path, "hourly/2009/01/04/10", "hourly/2009/01/05/01", "hourly/2009/01/05/00")
    touch(tmp_path, "daily/20090107", flag="")
    first = run_json(*args)["coordinators"][0]["actions"][0]
    assert first["data_in"] == {
        "in": [f"{r}/hourly/2009/01/05/01", f"{r}/hourly/2009/01/05/00"],
        "next": [f"{r}/daily/20090107"],
    }
    assert first["missing_dependencies"] == []
    assert first["conf"]["input"] == f"{r}/hourly/2009/01/05/01,{r}/hourly/2009/01/05/00"


def test_oozie_action_input_check_vector(tmp_path: Path) -> None:
    """TestCoordActionInputCheckXCommand.testActionInputCheck through dryrun."""
    (tmp_path / "coord.xml").write_text(
        """<coordinator-app name="NAME" frequency="${coord:days(1)}" start="2009-02-01T23:59Z"
            end="2009-02-02T23:59Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.2">
          <controls><timeout>10</timeout><concurrency>2</concurrency>
            <execution>LIFO</execution></controls>
          <datasets>
            <dataset name="a" frequency="${coord:days(7)}" initial-instance="2009-01-01T01:00Z"
                     timezone="UTC"><uri-template>file://${dir}/${YEAR}/${DAY}</uri-template>
            </dataset>
          </datasets>
          <input-events><data-in name="A" dataset="a">
            <start-instance>${coord:current(-3)}</start-instance>
            <end-instance>${coord:current(0)}</end-instance></data-in></input-events>
          <action><workflow><app-path>hdfs:///tmp/workflows/</app-path><configuration>
            <property><name>inputA</name><value>${coord:dataIn('A')}</value></property>
          </configuration></workflow></action>
        </coordinator-app>"""
    )
    for d in ("2009/29/_SUCCESS", "2009/15/_SUCCESS"):  # Oozie's createDir: mkdir -p
        (tmp_path / d).mkdir(parents=True)
    (action,) = run_json(str(tmp_path / "coord.xml"), "-D", f"dir={tmp_path}")["coordinators"][0][
        "actions"
    ]
    missing = action["missing_dependencies"]
    assert not any("/2009/29/" in m for m in missing)
    assert any("/2009/15/" in m for m in missing)
    r = f"file://{tmp_path}"
    assert action["data_in"]["A"] == [f"{r}/2009/{d}" for d in ("29", "22", "15", "08")]
    assert action["conf"]["inputA"] == ",".join(action["data_in"]["A"])


def test_dst_week_in_los_angeles(tmp_path: Path) -> None:
    inputs = (
        '<data-in name="in" dataset="daily"><start-instance>${coord:current(-1)}</start-instance>'
        "<end-instance>${coord:current(0)}</end-instance></data-in>"
    )
    path = write_coord(
        tmp_path,
        frequency="${coord:days(1)}",
        start="2009-03-06T08:00Z",
        end="2009-03-12T07:00Z",  # exclusive: the 7th action would be 2009-03-12T07:00Z
        timezone="America/Los_Angeles",
        inputs=inputs,
    )
    actions = run_json(str(path), "-D", f"root={tmp_path}", "-D", "region=eu")["coordinators"][0][
        "actions"
    ]
    # midnight local every day: 08:00Z in PST, 07:00Z once daylight time starts (03-08)
    assert [a["nominal_time"] for a in actions] == [
        "2009-03-06T08:00Z", "2009-03-07T08:00Z", "2009-03-08T08:00Z",
        "2009-03-09T07:00Z", "2009-03-10T07:00Z", "2009-03-11T07:00Z",
    ]  # fmt: skip
    # the daily dataset (initial 2009-01-01T00:00Z = 2008-12-31 16:00 PST) keeps 16:00 local:
    # 03-08 16:00 PDT is 23:00Z and 03-07 16:00 PST is 03-08 00:00Z, and URI fields are UTC
    # (oozie.md §9.9), so both instances of action 4 write 20090308
    r = str(tmp_path)
    assert actions[3]["data_in"]["in"] == [f"{r}/daily/20090308", f"{r}/daily/20090308"]
    assert actions[2]["data_in"]["in"] == [f"{r}/daily/20090308", f"{r}/daily/20090307"]
    assert actions[3]["data_out"]["out"] == [f"{r}/daily/20090308"]


@pytest.mark.parametrize(
    ("frequency", "start", "end", "expected"),
    [
        ("${coord:endOfDays(1)}", "2009-01-01T10:00Z", "2009-01-04T00:00Z",
         ["2009-01-02T00:00Z", "2009-01-03T00:00Z"]),
        ("${coord:endOfWeeks(1)}", "2009-01-07T10:00Z", "2009-01-20T00:00Z",
         ["2009-01-11T00:00Z", "2009-01-18T00:00Z"]),
        ("${coord:endOfMonths(1)}", "2009-01-15T00:00Z", "2009-04-02T00:00Z",
         ["2009-02-01T00:00Z", "2009-03-01T00:00Z", "2009-04-01T00:00Z"]),
        ("${coord:months(1)}", "2012-01-31T00:00Z", "2012-05-01T00:00Z",
         ["2012-01-31T00:00Z", "2012-02-29T00:00Z", "2012-03-31T00:00Z", "2012-04-30T00:00Z"]),
        ("0 10 * * 2-6", "2013-07-18T00:00Z", "2013-07-24T00:00Z",  # Quartz: 2-6 = MON-FRI
         ["2013-07-18T10:00Z", "2013-07-19T10:00Z", "2013-07-22T10:00Z", "2013-07-23T10:00Z"]),
        ("0/20 * * * 5", "2013-07-18T00:00Z", "2013-07-18T01:00Z",  # 5 = Thursday
         ["2013-07-18T00:00Z", "2013-07-18T00:20Z", "2013-07-18T00:40Z"]),
        ("10,20 * * * *", "2013-07-18T00:00Z", "2013-07-18T01:00Z",
         ["2013-07-18T00:10Z", "2013-07-18T00:20Z"]),
        ("20", "2013-07-18T00:00Z", "2013-07-18T01:00Z",
         ["2013-07-18T00:00Z", "2013-07-18T00:20Z", "2013-07-18T00:40Z"]),
        # Java ints whose next time is past year 9999: the times end there, as at the end
        ("2147483647", "2009-01-01T00:00Z", "9999-12-31T00:00Z",
         ["2009-01-01T00:00Z", "6092-01-24T02:07Z"]),
        ("${coord:months(2147483647)}", "2009-01-01T00:00Z", "9999-12-31T00:00Z",
         ["2009-01-01T00:00Z"]),
        ("${coord:days(2147483647)}", "2009-01-01T00:00Z", "9999-12-31T00:00Z",
         ["2009-01-01T00:00Z"]),
    ],
)  # fmt: skip
def test_frequencies(
    tmp_path: Path, frequency: str, start: str, end: str, expected: list[str]
) -> None:
    path = write_coord(tmp_path, frequency=frequency, start=start, end=end)
    actions = run_json(str(path), "-D", f"root={tmp_path}", "-D", "region=eu")["coordinators"][0][
        "actions"
    ]
    assert [a["nominal_time"] for a in actions] == expected


# --------------------------------------------------------------------------- properties / bundle


def write_bundle(root: Path) -> Path:
    write_coord(root, name="a", file="a.xml")
    write_coord(root, name="b", file="b.xml", frequency="${coord:days(1)}",
                end="2009-01-03T00:00Z")  # fmt: skip
    (root / "bundle.xml").write_text(
        """<bundle-app name="both" xmlns="uri:oozie:bundle:0.2">
          <coordinator name="first"><app-path>a.xml</app-path>
            <configuration><property><name>region</name><value>us</value></property>
            </configuration></coordinator>
          <coordinator name="second"><app-path>b.xml</app-path></coordinator>
        </bundle-app>"""
    )
    props = root / "job.properties"
    props.write_text(f"oozie.bundle.application.path=bundle.xml\nroot={root}\nregion=eu\n")
    return props


def test_bundle_through_a_properties_file(tmp_path: Path) -> None:
    props = write_bundle(tmp_path)
    data = run_json(str(props), "--limit", "2")
    assert [c["name"] for c in data["coordinators"]] == ["first", "second"]
    first, second = (c["actions"] for c in data["coordinators"])
    assert [a["nominal_time"] for a in first] == ["2009-01-01T00:00Z", "2009-01-01T01:00Z"]
    assert [a["nominal_time"] for a in second] == ["2009-01-01T00:00Z", "2009-01-02T00:00Z"]
    # the bundle's <configuration> overrides the job conf for its coordinator
    assert first[0]["conf"]["region"] == "us"
    assert second[0]["conf"]["region"] == "eu"
    # -D overrides the properties file
    data = run_json(str(props), "--limit", "1", "-D", "region=apac")
    assert [c["actions"][0]["conf"]["region"] for c in data["coordinators"]] == ["us", "apac"]


def test_bundle_xml_directly(tmp_path: Path) -> None:
    write_bundle(tmp_path)
    data = run_json(str(tmp_path / "bundle.xml"), "-D", f"root={tmp_path}", "-D", "region=eu",
                    "--limit", "1")  # fmt: skip
    assert [c["name"] for c in data["coordinators"]] == ["first", "second"]


def test_coordinator_through_a_properties_file(tmp_path: Path) -> None:
    write_coord(tmp_path, name="via-props")
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.coord.application.path=coordinator.xml\nroot={tmp_path}\nregion=eu\n")
    data = run_json(str(props), "--limit", "1")
    assert data["coordinators"][0]["name"] == "via-props"


def test_landing_defaults_to_the_home_directory(tmp_path: Path) -> None:
    inputs = (
        '<data-in name="in" dataset="hourly"><instance>${coord:current(0)}</instance></data-in>'
    )
    path = write_coord(tmp_path, inputs=inputs)
    text = path.read_text().replace("${root}/hourly", "${landing}/hourly")
    path.write_text(text)
    code, out, err = run(str(path), "-D", f"root={tmp_path}", "-D", "region=eu", "--limit", "1",
                         "--json", "--home", str(tmp_path / "home"))  # fmt: skip
    assert code == 0, err
    uri = json.loads(out)["coordinators"][0]["actions"][0]["data_in"]["in"][0]
    assert uri == f"{tmp_path}/home/landing/hourly/2009/01/01/00"


# --------------------------------------------------------------------------- human output


def test_human_output_fits_80_columns(tmp_path: Path) -> None:
    path = write_coord(tmp_path)
    code, out, err = run(str(path), "-D", f"root={tmp_path}", "-D", "region=eu")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Coordinator hourly-job: 24 actions 2009-01-01T00:00Z")
    assert max(len(line) for line in lines) <= 80
    assert any(line.split()[:3] == ["1", "2009-01-01T00:00Z", "in"] for line in lines)
    assert "1 missing" in out and "3 missing" in out
    assert "Workflow configuration (action 1):" in out
    assert "region = eu" in out


def test_long_runs_print_a_listing(tmp_path: Path) -> None:
    path = write_coord(tmp_path, end="2009-02-01T00:00Z")  # 744 actions
    code, out, err = run(str(path), "-D", f"root={tmp_path}", "-D", "region=eu")
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert sum(1 for line in lines if "2009-01-" in line and "missing" in line) == 744


class TickingClock:
    """A clock whose monotonic time runs fast, so the progress bar appears at once."""

    simulated = True

    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> Any:
        return parse_oozie_time("2026-01-01T00:00Z")

    def monotonic(self) -> float:
        self.t += 1.0
        return self.t


def test_progress_bar_on_long_runs(tmp_path: Path) -> None:
    path = write_coord(tmp_path, end="2009-03-01T00:00Z")
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=80)
    result = dryrun(path, [f"root={tmp_path}", "region=eu"], TickingClock(), progress=console)
    assert len(result["coordinators"][0]["actions"]) == 59 * 24
    assert "dryrun hourly-job" in buffer.getvalue()


# --------------------------------------------------------------------------- errors


def test_errors(tmp_path: Path) -> None:
    path = write_coord(tmp_path)
    root = f"root={tmp_path}"
    # a variable without a value
    assert "region" in fails(str(path), "-D", root)
    assert fails(str(path), "-D", root).startswith("Error: E1004: ")
    # bad datetimes
    assert "E0302" in fails(str(path), "-D", root, "-D", "region=x", "--start", "2009-13-01T00:00Z")
    assert "--end" in fails(str(path), "-D", root, "-D", "region=x", "--end", "tomorrow")
    # no such file, malformed XML, a workflow
    assert "E1001" in fails(str(tmp_path / "missing.xml"))
    bad = tmp_path / "bad.xml"
    bad.write_text(
        "<coordinator-app xmlns='uri:oozie:coordinator:0.4'><unclosed></coordinator-app>"
    )
    assert "bad.xml" in fails(str(bad))
    wf = tmp_path / "wf.xml"
    wf.write_text(
        '<workflow-app name="w" xmlns="uri:oozie:workflow:0.5"><start to="end"/><end name="end"/>'
        "</workflow-app>"
    )
    assert "workflow" in fails(str(wf))
    # start >= end, a bad -D
    late = write_coord(
        tmp_path, file="late.xml", start="2009-01-02T00:00Z", end="2009-01-01T00:00Z"
    )
    assert "E1003" in fails(str(late), "-D", root, "-D", "region=x")
    code, _out, err = run(str(path), "-D", "oops")  # a usage mistake: exit 2, before reading
    assert code == 2 and "'oops' is not name=value" in err, err  # E0302 by the real binary
    # an instance that is not an instance function; latest() in an output
    odd = write_coord(tmp_path, file="odd.xml", inputs=RANGE.replace(
        "${coord:current(-2)}", '${coord:absolute("2009-01-01T00:30Z")}'))  # fmt: skip
    assert "E1010" in fails(str(odd), "-D", root, "-D", "region=x")
    lat = tmp_path / "lat.xml"
    lat.write_text(path.read_text().replace(
        "<data-out name=\"out\" dataset=\"daily\"><instance>${coord:current(0)}",
        "<data-out name=\"out\" dataset=\"daily\"><instance>${coord:latest(0)}"))  # fmt: skip
    assert "not permitted in output-event" in fails(str(lat), "-D", root, "-D", "region=x")


def test_real_binary_json(tmp_path: Path) -> None:
    path = write_coord(tmp_path)
    done = bundletui("dryrun", str(path), "-D", f"root={tmp_path}", "-D", "region=eu",
                     "--limit", "2", "--json", timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [a["number"] for a in data["coordinators"][0]["actions"]] == [1, 2]
    bad = bundletui("dryrun", str(path), timeout=120)
    assert bad.returncode == 1
    assert bad.stderr.startswith("Error: ")
    assert "Traceback" not in bad.stderr


def test_make_demo_command(tmp_path: Path) -> None:
    """What `make demo` runs: the feeds sample bundle."""
    repo = Path(__file__).resolve().parents[2]
    props = repo / "sample_bundles" / "feeds" / "job.properties"
    if not props.exists():
        pytest.skip("feeds sample not present")
    code, out, err = run(str(props), "--limit", "6", "--home", str(tmp_path))
    assert code == 0, err
    assert out.count("Coordinator ") >= 1
    assert max(len(line) for line in out.splitlines()) <= 80


def test_validate_with_properties_gets_the_landing_default_as_submit_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BUNDLETUI_HOME", str(tmp_path / "home"))
    coord = Path(__file__).resolve().parents[2] / "sample_bundles/feeds/ingest/coordinator.xml"
    args = ["validate", str(coord), "-D", "start=2026-01-01T00:00Z", "-D", "end=2026-01-02T00:00Z"]
    _register()
    result = RUNNER.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Valid coordinator-app" in result.output
