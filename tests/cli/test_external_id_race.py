"""Twin submits with one external id (two scripts retrying at once), through the real CLI.

QA (concurrent operators): each stored one job and every caller got its id, but a caller that
lost the race to a submit still committing printed the id alone, as if it had made the job:
the note was decided by a look before the submit's transaction. The submit's own transaction
decides it now: every caller but the one that stored the job is told.
"""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.cli import BUNDLETUI, bundletui

TWINS = 6


def test_every_twin_submit_but_the_one_that_stored_the_job_gets_the_note(tmp_path: Path) -> None:
    (tmp_path / "wf.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w">'
        f'<job name="a"><fs><mkdir path="{tmp_path / "out"}"/></fs></job></dag-app>'
    )
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path={tmp_path / 'wf.xml'}\n")
    home = tmp_path / "home"
    assert bundletui("submit", str(props), home=home).returncode == 0  # the store exists
    env = {**os.environ, "BUNDLETUI_HOME": str(home), "NO_COLOR": "1"}

    def submit(key: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [BUNDLETUI, "submit", str(props), "--external-id", key],
            capture_output=True, text=True, env=env, timeout=60, check=False,
        )  # fmt: skip

    with ThreadPoolExecutor(TWINS) as pool:
        for round_ in range(3):
            done = list(pool.map(submit, [f"key-{round_}"] * TWINS))
            assert all(d.returncode == 0 for d in done), done
            ids = {d.stdout.strip() for d in done}
            assert len(ids) == 1, ids  # one job, every caller told its id
            noted = [d for d in done if "nothing new is stored" in d.stderr]
            assert len(noted) == TWINS - 1, [d.stderr for d in done]
    listed = bundletui("jobs", "--json", home=home).stdout
    assert listed.count('"id"') == 4  # the first submit's and one per round
