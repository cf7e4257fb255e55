"""An action's archives are unpacked after its launch commits, not inside the engine's write
transaction (QA, security: a 6 GB archive held the store's write lock while it unpacked, and
a `submit` beside it waited 20 s; past 30 s every command gets EB006). Real engine, real
clock; the archive is a FIFO, so the unpacking waits, for as long as the test likes, at the
point where it would be slow."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from tests.e2e.conftest import Bt, wait_for

WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="z">
  <start to="a"/>
  <action name="a">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <exec>true</exec><archive>${wf:appPath()}/big.zip#b</archive>
    </shell>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>${wf:errorMessage(wf:lastErrorNode())}</message></kill>
  <end name="end"/>
</workflow-app>
"""


def test_a_slow_archive_does_not_hold_the_store(bt: Bt, tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    os.mkfifo(app / "big.zip")
    (app / "workflow.xml").write_text(WORKFLOW)
    props = app / "job.properties"
    props.write_text("oozie.wf.application.path=workflow.xml\n")
    bt.engine()
    wf = bt.submit(props)
    wait_for(lambda: bt.nodes(wf).get("a") == "RUNNING", 10, "the launch committed")
    time.sleep(0.5)  # the engine is inside the unpacking now, waiting on the FIFO
    started = time.monotonic()
    other = bt.cli("submit", str(props), timeout=60)  # left PREP: it would unpack too
    assert other.code == 0 and time.monotonic() - started < 10, other
    # the archive comes, and is no zip; the reader may give up (a pipe cannot seek) before
    # the bytes are written, which breaks the pipe: either way it cannot be unpacked
    with contextlib.suppress(BrokenPipeError), open(app / "big.zip", "w") as fifo:
        fifo.write("not a zip")
    info = bt.wait(wf)
    assert info["status"] == "KILLED", info
    assert "cannot unpack" in info["errorMessage"], info["errorMessage"]
