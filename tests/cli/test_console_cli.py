"""``bundletui console`` options checked before the screen opens."""

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
