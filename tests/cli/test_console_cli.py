"""Engine and console options checked before anything starts: a clear error, nothing taken."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))


def test_read_only_on_a_missing_store_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    home = tmp_path / "typo"
    done = subprocess.run(
        [BUNDLETUI, "console", "--read-only", "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"Error: EB001: no store at {home / 'bundletui.db'}")
    assert not home.exists()


def test_run_on_a_simulated_clock_without_a_start_time_says_so_before_taking_the_lease(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [BUNDLETUI, "run", "--clock", "simulated", "--home", str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("Error: EB201: a simulated clock needs --start-time"), done
    assert "engine active" not in done.stdout + done.stderr
