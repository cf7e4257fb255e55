"""Workflows the engine loads itself go through the same EL check as a submit: a coordinator
action whose workflow holds EL that can never work fails at launch with E1004 (and no workflow
is made), a sub-workflow node whose child does fails with it; the names the check knows are
those of the engine's own table."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import cast

from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.engine.service import Engine, EngineConfig
from bundletui.engine.wfel import workflow_context
from bundletui.model.clock import SimulatedClock
from bundletui.model.timeutil import parse_oozie_time
from bundletui.spec.load import load_job
from bundletui.spec.workflow_el import RUNTIME_FUNCTIONS, runtime_variables
from bundletui.store.db import Store
from bundletui.store.rows import WorkflowRow

BAD_WORKFLOW = """<dag-app xmlns="uri:bundletui:dag:1.0" name="bad">
  <job name="a"><shell><exec>echo</exec><argument>${out}</argument></shell></job>
  <job name="b"><shell><exec>echo</exec><argument>${undefinedvar}</argument></shell></job>
</dag-app>
"""
COORDINATOR = """<coordinator-app name="c" frequency="${coord:hours(1)}" start="${start}"
    end="${end}" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action>
    <workflow>
      <app-path>${wfPath}</app-path>
      <configuration><property><name>out</name><value>/tmp/out</value></property></configuration>
    </workflow>
  </action>
</coordinator-app>
"""
PARENT = """<dag-app xmlns="uri:bundletui:dag:1.0" name="parent">
  <job name="child"><sub-workflow><app-path>${childPath}</app-path>
    <propagate-configuration/></sub-workflow></job>
</dag-app>
"""


def run_engine(home: Path, start: str, until: str) -> None:
    engine = Engine(
        EngineConfig(
            home=home,
            clock="simulated",
            start_time=parse_oozie_time(start),
            until=parse_oozie_time(until),
            watch=False,
        )
    )
    asyncio.run(engine.run())


def submit(home: Path, props: Path, *, start: bool = False) -> str:
    with Store(home) as store:
        loaded = load_job(props, [], store.clock, user="alice")
        return submit_loaded(Ctx(store), loaded, start=start)


def test_a_coordinator_action_whose_workflow_cannot_work_fails_at_launch(tmp_path: Path) -> None:
    (tmp_path / "workflow.xml").write_text(BAD_WORKFLOW)
    (tmp_path / "coordinator.xml").write_text(COORDINATOR)
    props = tmp_path / "job.properties"
    props.write_text(
        "oozie.coord.application.path=coordinator.xml\nstart=2024-01-01T00:00Z\n"
        f"end=2024-01-01T02:00Z\nwfPath={tmp_path / 'workflow.xml'}\n"
    )
    home = tmp_path / "home"
    coord_id = submit(home, props)  # the coordinator itself is fine
    run_engine(home, "2024-01-01T00:00Z", "2024-01-01T03:00Z")
    with Store(home, create=False) as store:
        rows = store.conn.execute(
            "SELECT action_number, status, error_code, error_message, external_id "
            "FROM coord_actions WHERE coord_id = ? ORDER BY action_number",
            (coord_id,),
        ).fetchall()
        assert store.conn.execute("SELECT COUNT(*) FROM wf_jobs").fetchone()[0] == 0
    assert [(n, s, c, x) for n, s, c, _m, x in rows] == [
        (1, "FAILED", "E1004", None),
        (2, "FAILED", "E1004", None),
    ]
    assert rows[0][3] == (  # where in the workflow's file, then Oozie's message
        f"{tmp_path / 'workflow.xml'}:3: "
        "Expression language evaluation error, unresolved variable [undefinedvar] in "
        "${undefinedvar} at column 3, in <argument> 1 of job [b]"
    )


def test_a_sub_workflow_whose_child_cannot_work_fails_its_node(tmp_path: Path) -> None:
    (tmp_path / "child.xml").write_text(BAD_WORKFLOW)
    (tmp_path / "parent.xml").write_text(PARENT)
    props = tmp_path / "job.properties"
    props.write_text(
        f"oozie.wf.application.path=parent.xml\nchildPath={tmp_path / 'child.xml'}\nout=/tmp\n"
    )
    home = tmp_path / "home"
    wf_id = submit(home, props, start=True)
    run_engine(home, "2024-01-01T00:00Z", "2024-01-01T00:10Z")
    with Store(home, create=False) as store:
        parent = store.conn.execute(
            "SELECT status, error_code, error_message FROM wf_jobs WHERE id = ?", (wf_id,)
        ).fetchone()
        children = store.conn.execute("SELECT COUNT(*) FROM wf_jobs").fetchone()[0]
    assert (parent[0], parent[1], children) == ("FAILED", "E1004", 1)
    assert parent[2].startswith(
        f"node child: {tmp_path / 'child.xml'}:3: Expression language evaluation error, unresolved"
    )
    assert "[undefinedvar]" in parent[2]


def test_the_checked_names_are_the_engines_workflow_context() -> None:
    conf = {"out": "/tmp", "a.b": "1"}
    wf = cast(WorkflowRow, None)  # never read: the table is built, its functions not called
    clock = SimulatedClock(parse_oozie_time("2024-01-01T00:00Z"))
    ctx = workflow_context(clock, wf, conf, lambda _n: None, list)
    assert set(ctx.functions) == RUNTIME_FUNCTIONS
    assert set(ctx.variables) == runtime_variables(conf)
