"""``bundletui jobs`` prints names and users as they are: square brackets are not markup."""

from __future__ import annotations

from pathlib import Path

from tests.cli import bundletui


def one_workflow(tmp_path: Path, name: str) -> Path:
    """A one-job DAG workflow named ``name`` and its job.properties."""
    (tmp_path / "workflow.xml").write_text(
        f'<dag-app xmlns="uri:bundletui:dag:1.0" name="{name}">'
        '<job name="a"><fs><mkdir path="${out}"/></fs></job></dag-app>'
    )
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path=workflow.xml\nout={tmp_path / 'out'}\n")
    return props


def test_a_name_with_square_brackets_is_listed_as_written(tmp_path: Path) -> None:
    props = one_workflow(tmp_path, "quick-[daily] job")
    home = tmp_path / "home"
    assert bundletui("submit", str(props), home=home).returncode == 0
    listed = bundletui("jobs", home=home, env={"COLUMNS": "200"})
    assert listed.returncode == 0, listed
    assert "quick-[daily] job" in listed.stdout, listed.stdout


def test_relative_created_times_count_from_the_stores_clock(tmp_path: Path) -> None:
    """``startcreatedtime=-2d`` on a simulated store: two days before its simulated now, for
    every job type and every face (workflows were measured from the wall clock)."""
    props = one_workflow(tmp_path, "w")
    home = tmp_path / "home"
    at = ("--start-time", "2020-03-01T00:00Z", "--until", "2020-03-01T00:00Z")
    assert bundletui("run", "--clock", "simulated", *at, home=home).returncode == 0
    assert bundletui("submit", str(props), home=home).returncode == 0
    for when, found in (("startcreatedtime=-2d", True), ("endcreatedtime=-2d", False)):
        native = bundletui("jobs", "--type", "workflow", "--filter", when, "--json", home=home)
        assert (native.stdout.count('"w"') == 1) is found, (when, native)
        front = bundletui("oozie", "jobs", "-jobtype", "wf", "-filter", when, home=home)
        assert ("-W " in front.stdout) is found, (when, front)
