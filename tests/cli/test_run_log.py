"""``bundletui run``'s log as an operator keeps it: ``nohup bundletui run -v > run.log``."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli import bundletui


def test_a_log_into_a_file_has_one_line_per_status_change(tmp_path: Path) -> None:
    """QA (ab): Rich folded each record at 80 columns when stdout was not a terminal, so
    README's ``node ID@name -> SUCCEEDED`` could not be grepped from a log file."""
    name = "make-the-output-directory-for-the-report"  # a long line once prefixed
    wf = tmp_path / "wf.xml"
    wf.write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w">'
        f'<job name="{name}"><fs><mkdir path="{tmp_path / "out"}"/></fs></job></dag-app>'
    )
    props = tmp_path / "w.properties"
    props.write_text(f"oozie.wf.application.path={wf}\n")
    home = tmp_path / "home"
    wf_id = bundletui("submit", str(props), "--start", home=home).stdout.split()[-1]
    done = bundletui("run", "-v", "--exit-when-idle", home=home, timeout=60)
    assert done.returncode == 0, done
    lines = done.stdout.splitlines()
    wanted = re.compile(rf"^\S+ \S+ DEBUG +node {re.escape(wf_id)}@{name} -> SUCCEEDED$")
    assert any(wanted.match(line) for line in lines), done.stdout
