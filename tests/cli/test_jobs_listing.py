"""``bundletui jobs`` prints names and users as they are: square brackets are not markup."""

from __future__ import annotations

from pathlib import Path

from tests.cli import bundletui


def test_a_name_with_square_brackets_is_listed_as_written(tmp_path: Path) -> None:
    (tmp_path / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="quick-[daily] job">'
        '<job name="a"><fs><mkdir path="${out}"/></fs></job></dag-app>'
    )
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path=workflow.xml\nout={tmp_path / 'out'}\n")
    home = tmp_path / "home"
    assert bundletui("submit", str(props), home=home).returncode == 0
    listed = bundletui("jobs", home=home, env={"COLUMNS": "200"})
    assert listed.returncode == 0, listed
    assert "quick-[daily] job" in listed.stdout, listed.stdout
