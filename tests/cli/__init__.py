"""The command line through its real console script."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))


def bundletui(
    *args: str,
    home: Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str | None] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``bundletui ARGS`` (``home``: as BUNDLETUI_HOME), its exit code and output as text.

    ``env`` is laid over this process's environment; a None value removes the variable.
    """
    environ = {**os.environ, "NO_COLOR": "1"}
    if home is not None:
        environ["BUNDLETUI_HOME"] = str(home)
    for name, value in (env or {}).items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    return subprocess.run(
        [BUNDLETUI, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
        env=environ,
        stdin=subprocess.DEVNULL,
    )


def mkdir_workflow(root: Path, node: str = "a") -> Path:
    """A one-node DAG workflow (an fs mkdir of ``root/out``) and its job.properties, which
    is returned: what a test submits when only the job's life matters."""
    wf = root / "wf.xml"
    wf.write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w">'
        f'<job name="{node}"><fs><mkdir path="{root / "out"}"/></fs></job></dag-app>'
    )
    props = root / "w.properties"
    props.write_text(f"oozie.wf.application.path={wf}\n")
    return props
