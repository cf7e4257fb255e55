"""``bundletui run``'s log as an operator keeps it: ``nohup bundletui run -v > run.log``."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli import bundletui, mkdir_workflow


def test_a_log_into_a_file_has_one_line_per_status_change(tmp_path: Path) -> None:
    """QA (ab): Rich folded each record at 80 columns when stdout was not a terminal, so
    README's ``node ID@name -> SUCCEEDED`` could not be grepped from a log file."""
    name = "make-the-output-directory-for-the-report"  # a long line once prefixed
    props = mkdir_workflow(tmp_path, name)
    home = tmp_path / "home"
    wf_id = bundletui("submit", str(props), "--start", home=home).stdout.split()[-1]
    done = bundletui("run", "-v", "--exit-when-idle", home=home, timeout=60)
    assert done.returncode == 0, done
    lines = done.stdout.splitlines()
    wanted = re.compile(rf"^\S+ \S+ DEBUG +node {re.escape(wf_id)}@{name} -> SUCCEEDED$")
    assert any(wanted.match(line) for line in lines), done.stdout
