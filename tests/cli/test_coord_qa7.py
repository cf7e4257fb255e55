"""Coordinator QA (twenty-second session), through the real command line: ``dryrun`` follows
``<input-logic>`` as the engine does; a control that comes out empty from a variable gets its
default as an empty one written so; a cron of the wrong field count says so; a date scope's
empty item is refused as an action scope's is."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli import bundletui

OR_COORD = """<coordinator-app name="or" frequency="${coord:hours(1)}" start="2026-01-01T00:00Z"
    end="2026-01-01T01:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.5">
  <datasets>
    <dataset name="a" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z"
             timezone="UTC"><uri-template>${landing}/a/${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
    </dataset>
    <dataset name="b" frequency="${coord:hours(1)}" initial-instance="2026-01-01T00:00Z"
             timezone="UTC"><uri-template>${landing}/b/${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="A" dataset="a"><instance>${coord:current(0)}</instance></data-in>
    <data-in name="B" dataset="b"><instance>${coord:current(0)}</instance></data-in>
  </input-events>
  <input-logic><or name="AorB"><data-in dataset="A"/><data-in dataset="B"/></or></input-logic>
  <action><workflow><app-path>wf.xml</app-path>
    <configuration><property><name>inputDir</name><value>${coord:dataIn('AorB')}</value>
    </property></configuration>
  </workflow></action>
</coordinator-app>
"""

CONTROLS = """<coordinator-app name="ctl" frequency="{frequency}" start="2026-06-01T00:00Z"
    end="2026-06-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls><timeout>${{to}}</timeout><concurrency>${{conc}}</concurrency>
    <throttle>${{thr}}</throttle></controls>
  <action><workflow><app-path>wf.xml</app-path></workflow></action>
</coordinator-app>
"""


def test_dryrun_of_an_or_met_by_its_first_branch_reads_ready(tmp_path: Path) -> None:
    (tmp_path / "or.xml").write_text(OR_COORD)
    (tmp_path / "land/a/2026010100").mkdir(parents=True)
    (tmp_path / "land/a/2026010100/_SUCCESS").touch()
    args = ("dryrun", str(tmp_path / "or.xml"), "-D", f"landing={tmp_path / 'land'}")
    shown = bundletui(*args, home=tmp_path / "h")
    assert shown.returncode == 0, shown.stderr
    assert "ready" in shown.stdout and "1 missing" not in shown.stdout
    assert "Absent for action 1, not needed by its input logic" in shown.stdout
    (action,) = json.loads(bundletui(*args, "--json", home=tmp_path / "h").stdout)["coordinators"][
        0
    ]["actions"]
    assert action["ready"] is True
    assert action["missing_dependencies"] == [f"{tmp_path}/land/b/2026010100/_SUCCESS"]
    assert action["conf"]["inputDir"] == f"{tmp_path}/land/a/2026010100"
    # neither branch: not ready, and the list is what is missing
    (tmp_path / "land/a/2026010100/_SUCCESS").unlink()
    shown = bundletui(*args, home=tmp_path / "h")
    assert "2 missing" in shown.stdout and "Missing for action 1" in shown.stdout


def _controls(tmp_path: Path, frequency: str = "60") -> str:
    """The job configuration of a coordinator whose controls are all variables."""
    (tmp_path / "c.xml").write_text(CONTROLS.format(frequency=frequency))
    (tmp_path / "job.properties").write_text(
        "oozie.coord.application.path=c.xml\nto=120\nconc=1\nthr=12\n"
    )
    return str(tmp_path / "job.properties")


def test_a_control_empty_from_a_variable_gets_its_default(tmp_path: Path) -> None:
    home = tmp_path / "h"
    config = _controls(tmp_path)
    for name, written in (("to", "5"), ("conc", "3"), ("thr", "7")):
        done = bundletui("submit", config, "-D", f"{name}=", home=home)
        assert done.returncode == 0, done.stderr
        info = json.loads(bundletui("info", done.stdout.strip(), "--json", home=home).stdout)
        assert (info["timeOut"], info["concurrency"], info["mat_throttling"]) == (120, 1, 12)
        # and a value given is taken (so the defaults above are not the only answer)
        done = bundletui("submit", config, "-D", f"{name}={written}", home=home)
        info = json.loads(bundletui("info", done.stdout.strip(), "--json", home=home).stdout)
        key = {"to": "timeOut", "conc": "concurrency", "thr": "mat_throttling"}[name]
        assert info[key] == int(written)
    # a value that is no number is still refused
    bad = bundletui("submit", config, "-D", "conc=x", home=home)
    assert bad.returncode == 1 and "controls/concurrency [${conc}] (= x)" in bad.stderr


def test_a_cron_of_four_fields_is_named_a_cron(tmp_path: Path) -> None:
    config = _controls(tmp_path, "0 10 * *")
    shown = bundletui("validate", str(tmp_path / "c.xml"), "--config", config, home=tmp_path / "h")
    assert shown.returncode == 1
    assert "frequency [0 10 * *] is a cron of 4 fields: Oozie's has 5" in shown.stderr
    assert "hint: write minute hour day-of-month month day-of-week (e.g." in shown.stderr
    assert "Traceback" not in shown.stderr


def test_an_empty_item_in_a_date_scope_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "h"
    coord_id = bundletui("submit", _controls(tmp_path), home=home).stdout.strip()
    for scope in ("2026-06-01T01:00Z,,2026-06-01T02:00Z", ",2026-06-01T01:00Z"):
        refused = bundletui("kill", coord_id, "--date", scope, home=home)
        assert refused.returncode == 2, refused.stderr
        assert "E0302" in refused.stderr and "date scope" in refused.stderr
        assert "an empty item" in refused.stderr
    # a trailing comma is dropped, as Java's split drops it; nothing was killed before
    assert json.loads(bundletui("info", coord_id, "--json", home=home).stdout)["status"] == "PREP"
    done = bundletui("kill", coord_id, "--date", "2026-06-01T01:00Z,", home=home)
    assert "E0302" not in done.stderr


def test_a_concurrency_past_a_java_int_is_out_of_range_not_no_integer(tmp_path: Path) -> None:
    home = tmp_path / "h"
    coord_id = bundletui("submit", _controls(tmp_path), home=home).stdout.strip()
    big = bundletui("change", coord_id, "--value", "concurrency=99999999999", home=home)
    assert big.returncode == 2 and "concurrency is out of range" in big.stderr, big.stderr
    word = bundletui("change", coord_id, "--value", "concurrency=x", home=home)
    assert word.returncode == 2 and "concurrency must be an integer" in word.stderr


def test_dryrun_of_an_empty_window_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "or.xml").write_text(OR_COORD)
    args = ("dryrun", str(tmp_path / "or.xml"), "-D", f"landing={tmp_path}")
    for start, end in (("2026-01-05T00:00Z", "2026-01-02T00:00Z"), ("2026-01-01T00:00Z",) * 2):
        shown = bundletui(*args, "--start", start, "--end", end, home=tmp_path / "h")
        assert shown.returncode == 2, shown
        assert "E0302" in shown.stderr and "the window is empty" in shown.stderr
    shown = bundletui(*args, "--start", "2026-01-01T00:00Z", "--end", "2026-01-01T00:01Z")
    assert shown.returncode == 0 and "1 action " in shown.stdout, shown
