"""QA5: a workflow failed by its sub-workflow says which nodes failed once, as a chain, not
each level's ``node <name>: `` again (a workflow starting itself read ``node a: node a: …``
51 times before its EB0506 message)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.engine.service import Engine, EngineConfig
from bundletui.model.timeutil import parse_oozie_time
from bundletui.spec.load import load_job
from bundletui.store.db import Store
from tests.cli import bundletui

RECURSIVE = """<dag-app xmlns="uri:bundletui:dag:1.0" name="recursive">
  <job name="again"><sub-workflow><app-path>${wf:appPath()}</app-path></sub-workflow></job>
</dag-app>
"""
PARENT = """<dag-app xmlns="uri:bundletui:dag:1.0" name="parent">
  <job name="outer"><sub-workflow><app-path>middle.xml</app-path></sub-workflow></job>
</dag-app>
"""
MIDDLE = """<dag-app xmlns="uri:bundletui:dag:1.0" name="middle">
  <job name="inner"><sub-workflow><app-path>leaf.xml</app-path></sub-workflow></job>
</dag-app>
"""
LEAF = """<dag-app xmlns="uri:bundletui:dag:1.0" name="leaf">
  <job name="load"><shell><exec>false</exec></shell></job>
</dag-app>
"""


def run(tmp_path: Path, app: str) -> tuple[Path, str]:
    """Submits and starts ``app`` (a file of ``tmp_path``) and runs an engine until it ends."""
    home = tmp_path / "home"
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path={app}\n")
    with Store(home) as store:
        loaded = load_job(props, [], store.clock, user="alice")
        wf_id = submit_loaded(Ctx(store), loaded, start=True)
    engine = Engine(
        EngineConfig(
            home=home,
            clock="simulated",
            start_time=parse_oozie_time("2024-01-01T00:00Z"),
            until=parse_oozie_time("2024-01-01T00:30Z"),
            watch=False,
        )
    )
    asyncio.run(engine.run())
    return home, wf_id


def query(home: Path, sql: str, *args: str) -> tuple[Any, ...]:
    """The first row ``sql`` selects from the store in ``home``."""
    with Store(home, create=False) as store:
        return tuple(store.conn.execute(sql, args).fetchone())


def test_a_workflow_that_starts_itself_says_its_depth_error_once(tmp_path: Path) -> None:
    (tmp_path / "workflow.xml").write_text(RECURSIVE)
    home, wf_id = run(tmp_path, "workflow.xml")
    top = query(home, "SELECT status, error_code, error_message FROM wf_jobs WHERE id = ?", wf_id)
    node = query(home, "SELECT error_code, error_message FROM wf_nodes WHERE wf_id = ?", wf_id)
    (count,) = query(home, "SELECT COUNT(*) FROM wf_jobs")
    assert (top[0], top[1], count) == ("FAILED", "EB0506", 51)
    said = (
        "node again → again → … → again (51 levels): sub-workflow depth cannot exceed 50"
        " (oozie.action.subworkflow.max.depth): does ["
    )
    assert top[2].startswith(said), top[2]
    assert top[2].count("node ") == 1 and top[2].endswith("start itself?"), top[2]
    # the top node's Error: its child's text (50 levels below it), also said once
    assert node[0] == "EB0506" and node[1].startswith("node again → again → … → again (50 lev")
    # as the command line shows it
    r = bundletui("info", wf_id, home=home)
    assert r.returncode == 0, r
    assert "node again: node again" not in r.stdout, r.stdout
    assert "EB0506" in r.stdout and "(51 levels): sub-workflow depth" in r.stdout, r.stdout


def test_a_nested_failure_names_each_level_once(tmp_path: Path) -> None:
    """Three levels with different node names: the chain names each of them, in order."""
    (tmp_path / "parent.xml").write_text(PARENT)
    (tmp_path / "middle.xml").write_text(MIDDLE)
    (tmp_path / "leaf.xml").write_text(LEAF)
    home, wf_id = run(tmp_path, "parent.xml")
    top = query(home, "SELECT status, error_message FROM wf_jobs WHERE id = ?", wf_id)
    (leaf,) = query(home, "SELECT error_message FROM wf_nodes WHERE name = 'load'")
    assert top[0] == "FAILED"
    assert top[1] == f"node outer → inner → load: {leaf}", top[1]
