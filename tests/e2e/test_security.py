"""Values given with -D reach a job as literal argv elements: nothing is ever run by a shell."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.e2e.conftest import FIXTURES, Bt


def test_shell_metacharacters_in_defines_stay_literal(bt: Bt, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious").write_text("keep me")
    pwned = tmp_path / "pwned"
    arg1 = f"$(touch {pwned})"
    arg2 = f"; rm -rf {victim} `touch {pwned}` && echo owned > {pwned} | cat"
    out = tmp_path / "argv.json"
    bt.engine()
    wf = bt.submit(
        FIXTURES / "argv" / "job.properties", {"out": str(out), "arg1": arg1, "arg2": arg2}
    )
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert json.loads(out.read_text()) == [arg1, arg2, "two words"]
    assert not pwned.exists()
    assert (victim / "precious").read_text() == "keep me"
    work = Path(bt.row(wf).work_dir or "")
    assert not (work / "pwned").exists() and not (work / ")").exists()
    # nothing appeared next to the job either (a shell would have created files there)
    assert sorted(os.listdir(tmp_path)) == sorted(["argv.json", "victim", "home", "engine-0.log"])
