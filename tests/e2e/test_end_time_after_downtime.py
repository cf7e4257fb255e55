"""A workflow whose last job ended while no engine ran ended then, not at the restart (QA,
soak: a 2-second job showed the whole 2.5-minute downtime as its run, in `jobs`, `info` and
the API; its node already had the exit record's time). Real engine, real clock."""

from __future__ import annotations

import time
from pathlib import Path

from bundletui.store import jobs
from bundletui.store.rows import NodeRow
from tests.e2e.conftest import Bt, wait_for

WORKFLOW = """<dag-app xmlns="uri:bundletui:dag:1.0" name="w">
  <job name="a"><shell><exec>sleep</exec><argument>1</argument></shell></job>
</dag-app>
"""


def test_a_workflow_that_ended_while_no_engine_ran_ends_with_its_last_job(
    bt: Bt, tmp_path: Path
) -> None:
    (tmp_path / "workflow.xml").write_text(WORKFLOW)
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path={tmp_path}/workflow.xml\n")
    wf = bt.submit(props)
    engine = bt.engine()
    wait_for(lambda: bt.nodes(wf).get("a") == "RUNNING", 10, "the job started")
    assert engine.stop() == 0  # the job runs on, and ends while no engine runs
    time.sleep(3)
    restarted = int(time.time() * 1000)
    bt.engine("--exit-when-idle").proc.wait(20)
    row = bt.row(wf)
    node = jobs.must_get(bt.store.conn, NodeRow, f"{wf}@a")
    assert row.status == "SUCCEEDED" and node.ended is not None and row.end_time is not None
    assert row.end_time == node.ended < restarted  # was: the restart's time
