"""The command line through its real console script."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))


def bundletui(
    *args: str, home: Path | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``bundletui ARGS`` (``home``: as BUNDLETUI_HOME), its exit code and output as text."""
    env = {**os.environ, "NO_COLOR": "1"}
    if home is not None:
        env["BUNDLETUI_HOME"] = str(home)
    return subprocess.run(
        [BUNDLETUI, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
    )
