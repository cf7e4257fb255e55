"""``bundletui log`` and ``bundletui oozie job -log/-errorlog`` print a job's log by the one
rule of commands/logs (see tests/commands/test_logs_uniform.py), through the real console
script: a sub-workflow node's log is its child's nodes', headed ``sub → boom``, in the node's
log and in its workflow's; a log of one section is its bytes alone.

They disagreed: the Oozie front printed the sub-workflow node's own files (none), and
``bundletui log`` headed a workflow's log whenever it had several nodes, even when one ran.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from pathlib import Path

import pytest

from bundletui.engine.service import Engine, EngineConfig
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import WorkflowRow
from tests.cli import BUNDLETUI, bundletui
from tests.commands.test_logs_uniform import (
    PAIR_LOG,
    PARENT_LOG,
    SUB_ERRORLOG,
    SUB_LOG,
    Uniform,
    build,
    submit,
    wait_for,
)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Uniform:
    return build(tmp_path_factory.mktemp("cli-logs-uniform"))


def run(home: Path, *args: str) -> tuple[str, str]:
    proc = bundletui(*args, home=home, env={"TERM": "dumb"})
    assert proc.returncode == 0, proc
    return proc.stdout, proc.stderr


def test_log_of_a_sub_workflow_node_is_its_childs_headed_through_it(world: Uniform) -> None:
    out, err = run(world.home, "log", f"{world.parent}@sub")
    assert out == SUB_LOG
    assert err == f"{world.parent}@sub is sub-workflow {world.child}: its jobs' logs\n"
    out, _ = run(world.home, "log", f"{world.parent}@sub", "--stderr")
    assert out == SUB_ERRORLOG


def test_log_of_the_parent_shows_why_its_child_failed(world: Uniform) -> None:
    out, err = run(world.home, "log", world.parent)
    assert out == PARENT_LOG
    assert err == f"{world.parent}@sub is sub-workflow {world.child}: its jobs' logs\n"
    # followed once it has ended: all there is, as without --follow
    assert run(world.home, "log", "--follow", world.parent) == (out, err)
    assert run(world.home, "log", "--follow", world.pair) == (PAIR_LOG, "")


def test_oozie_log_of_a_sub_workflow_node_is_its_childs(world: Uniform) -> None:
    assert run(world.home, "oozie", "job", "-log", f"{world.parent}@sub") == (SUB_LOG, "")
    assert run(world.home, "oozie", "job", "-errorlog", f"{world.parent}@sub") == (
        SUB_ERRORLOG,
        "",
    )


def test_oozie_log_of_the_parent_shows_why_its_child_failed(world: Uniform) -> None:
    assert run(world.home, "oozie", "job", "-log", world.parent) == (PARENT_LOG, "")


def test_one_section_is_its_bytes_alone_on_both_fronts(world: Uniform) -> None:
    """``a`` failed and ``b`` never ran: one section, though the workflow has two nodes."""
    assert run(world.home, "log", world.pair) == (PAIR_LOG, "")
    assert run(world.home, "oozie", "job", "-log", world.pair) == (PAIR_LOG, "")
    assert run(world.home, "log", f"{world.pair}@a")[0] == PAIR_LOG


GATED_CHILD = """<dag-app xmlns="uri:bundletui:dag:1.0" name="gated-child">
  <job name="wait"><shell><exec>sh</exec><argument>-c</argument>
    <argument>echo "waiting"; i=0; while [ ! -e "$1" ] &amp;&amp; [ $i -lt 300 ]; do
      sleep 0.1; i=`expr $i + 1`; done; echo "released"</argument>
    <argument>wait</argument><argument>${gate}</argument></shell></job>
  <job name="after"><depends>wait</depends>
    <shell><exec>echo</exec><argument>after ran</argument></shell></job>
</dag-app>
"""
GATED_PARENT = """<dag-app xmlns="uri:bundletui:dag:1.0" name="gated-parent">
  <job name="sub"><sub-workflow><app-path>${childPath}</app-path><propagate-configuration/>
  </sub-workflow></job>
</dag-app>
"""


def test_following_a_running_sub_workflow_node_heads_its_childs_nodes_through_it(
    tmp_path: Path,
) -> None:
    """``log -f W@sub`` while the child runs: its nodes as they come, headed ``sub → wait``
    as without ``--follow`` (it headed them ``wait``)."""
    for name, xml in (("child", GATED_CHILD), ("parent", GATED_PARENT)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "workflow.xml").write_text(xml)
    gate = tmp_path / "gate"
    home = tmp_path / "home"
    with Store(home) as store:
        wf = submit(store, tmp_path / "parent", childPath=str(tmp_path / "child"), gate=str(gate))
        engine = Engine(EngineConfig(home=home, watch=False, poll_interval=0.02, lease_ttl=2.0))
        thread = threading.Thread(target=lambda: asyncio.run(engine.run()), daemon=True)
        thread.start()
        follow = None
        try:
            environ = {**os.environ, "NO_COLOR": "1", "BUNDLETUI_HOME": str(home)}
            follow = subprocess.Popen(
                [BUNDLETUI, "log", "--follow", f"{wf}@sub"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=environ,
            )
            assert follow.stdout is not None
            first = [follow.stdout.readline(), follow.stdout.readline()]
            assert first == ["── sub → wait (RUNNING, attempt 1)\n", "waiting\n"], first
            gate.touch()
            rest, err = follow.communicate(timeout=30)
            assert follow.returncode == 0, err
            lines = rest.splitlines()
            assert lines[0] == "released" and lines[1].startswith("── sub → after ("), rest
            assert lines[2:] == ["after ran"], rest
            assert err.startswith(f"{wf}@sub is sub-workflow "), err
            wait_for(
                lambda: jobs.must_get(store.conn, WorkflowRow, wf).status == "SUCCEEDED",
                "the parent to succeed",
            )
        finally:
            if follow is not None and follow.poll() is None:
                follow.kill()
            engine.request_stop()
            thread.join(10)
