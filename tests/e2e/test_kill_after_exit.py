"""QA (crash): a node whose job exited 0 while no engine ran, then ``kill W`` before the
restart: the engine recorded the node KILLED (E0726), ended at the restart, though its work
was done and its exit record said so. A kill that reaches a job which has already ended now
records how it ended, and when (its exit record's time); what had not started stays killed."""

from __future__ import annotations

import os
from pathlib import Path

from tests.e2e.conftest import Bt, wait_for

WORKFLOW = """<dag-app xmlns="uri:bundletui:dag:1.0" name="long">
  <job name="a"><shell><exec>/bin/sh</exec><argument>-c</argument>
    <argument>echo a-start >> "$0"; sleep 1; echo a-done >> "$0"</argument><argument>${side}</argument></shell></job>
  <job name="c"><depends>a</depends><shell><exec>/bin/sh</exec><argument>-c</argument>
    <argument>echo c-done >> "$0"</argument><argument>${side}</argument></shell></job>
</dag-app>
"""


def test_a_kill_after_the_job_exited_records_its_real_end(bt: Bt, tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "workflow.xml").write_text(WORKFLOW)
    side = tmp_path / "side"
    props = app / "job.properties"
    props.write_text(f"oozie.wf.application.path={app}\nside={side}\n")
    wf = bt.submit(props)
    engine = bt.engine()
    bt.wait_node(wf, "a", "RUNNING")
    wait_for(lambda: side.exists(), 10, "a's process to start")
    engine.kill9()
    exit_file = bt.home / "logs" / wf / "a.0.1.exit"
    wait_for(exit_file.exists, 10, "a's exit record")
    assert side.read_text() == "a-start\na-done\n"
    exited_ms = os.stat(exit_file).st_mtime_ns // 1_000_000
    bt.cli("kill", wf)  # no engine running
    bt.engine()
    bt.wait(wf, "KILLED")
    wait_for(lambda: bt.nodes(wf)["a"] == "SUCCEEDED", 10, "a's end")
    a = next(n for n in bt.peek(wf)["actions"] if n["name"] == "a")
    assert a["errorCode"] is None and a["exitCode"] == 0, a
    row = bt.store.conn.execute("SELECT ended FROM wf_nodes WHERE id = ?", (f"{wf}@a",)).fetchone()
    assert abs(row[0] - exited_ms) < 1000, (row[0], exited_ms)
    assert bt.nodes(wf)["c"] != "SUCCEEDED" and side.read_text() == "a-start\na-done\n"
