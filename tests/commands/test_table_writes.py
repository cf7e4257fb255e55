"""The workflow and coordinator commands write the statuses their tables give: a workflow's kill
ends the nodes no process runs for in one write (those that had run get an end time), its rerun
starts every node over — one left RUNNING by a kill no engine has carried out yet, one the
definition read again added — and a coordinator action follows its workflow only where its
table has a row for that."""

from __future__ import annotations

from pathlib import Path

from bundletui.commands import coordinators as coordcmd
from bundletui.commands import workflows as wfcmd
from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.model.clock import SimulatedClock
from bundletui.model.ids import node_id
from bundletui.model.timeutil import parse_oozie_time
from bundletui.spec.load import load_job
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import ActionRow, NodeRow, WorkflowRow
from tests.commands.sample_apps import ActionSpec, add_actions, write_apps

DAG = """<dag-app xmlns="uri:bundletui:dag:1.0" name="four">
  <job name="a"><shell><exec>true</exec></shell></job>
  <job name="b"><depends>a</depends><shell><exec>true</exec></shell></job>
  <job name="c"><depends>b</depends><shell><exec>true</exec></shell></job>
  <job name="d"><depends>a</depends><shell><exec>true</exec></shell></job>
{more}</dag-app>
"""


def started(tmp_path: Path) -> tuple[Store, Ctx, str, Path]:
    app = tmp_path / "app"
    app.mkdir()
    (app / "workflow.xml").write_text(DAG.format(more=""))
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path={app}\n")
    store = Store(tmp_path / "home", clock=SimulatedClock(parse_oozie_time("2026-01-01T00:00Z")))
    ctx = Ctx(store)
    wf_id = submit_loaded(ctx, load_job(props, [], store.clock, user="u"), start=True)
    return store, ctx, wf_id, app


def nodes(store: Store, wf_id: str) -> dict[str, NodeRow]:
    return {n.name: n for n in jobs.workflow_nodes(store.conn, wf_id)}


def test_kill_ends_the_idle_nodes_and_leaves_running_ones_to_the_engine(tmp_path: Path) -> None:
    store, ctx, wf_id, _app = started(tmp_path)
    with store.write() as tx:  # a RUNNING, b waiting out its retry, c WAITING, d READY
        jobs.update(tx, NodeRow, node_id(wf_id, "a"), status="RUNNING", attempt=1, pid=4242)
        jobs.update(tx, NodeRow, node_id(wf_id, "b"), status="READY", attempt=1, due_time=9)
        jobs.update(tx, NodeRow, node_id(wf_id, "d"), status="READY")
    wfcmd.kill(ctx, wf_id)
    after = nodes(store, wf_id)
    assert {k: n.status for k, n in after.items()} == {
        "a": "RUNNING",  # the engine's signal kills it
        "b": "KILLED",
        "c": "KILLED",
        "d": "KILLED",
    }
    assert after["b"].ended is not None and after["b"].due_time is None  # it had run
    assert after["c"].ended is None and after["d"].ended is None  # they never started
    assert jobs.must_get(store.conn, WorkflowRow, wf_id).status == "KILLED"
    signals = store.conn.execute(
        "SELECT count(*) FROM outbox WHERE kind = 'wf.signal' AND target = ?", (wf_id,)
    ).fetchone()[0]
    assert signals == 1


def test_rerun_starts_over_a_node_whose_kill_is_queued_and_a_node_added(tmp_path: Path) -> None:
    store, ctx, wf_id, app = started(tmp_path)
    with store.write() as tx:
        jobs.update(tx, NodeRow, node_id(wf_id, "a"), status="RUNNING", attempt=1, pid=4242)
    wfcmd.kill(ctx, wf_id)  # no engine: a stays RUNNING, its kill queued
    (app / "workflow.xml").write_text(
        DAG.format(more='  <job name="e"><shell><exec>true</exec></shell></job>\n')
    )
    wfcmd.rerun(ctx, wf_id)
    after = nodes(store, wf_id)
    assert {k: (n.status, n.run, n.attempt) for k, n in after.items()} == {
        name: ("WAITING", 1, 0) for name in "abcde"
    }
    assert after["a"].pid is None
    assert (4242, wf_id, "a") in jobs.watched_kills(store.conn)  # the kill still reaches it
    assert jobs.must_get(store.conn, WorkflowRow, wf_id).status == "RUNNING"


def test_an_action_follows_its_workflow_only_where_its_table_has_a_row(tmp_path: Path) -> None:
    apps = write_apps(tmp_path / "apps")
    store = Store(tmp_path / "home", clock=SimulatedClock(parse_oozie_time("2024-01-01T00:30Z")))
    ctx = Ctx(store)
    coord_id = submit_loaded(ctx, load_job(apps.hourly_props, [], store.clock, user="u"))
    wf_id = submit_loaded(ctx, load_job(apps.workflow_props, [], store.clock, user="u"))
    waiting, running = add_actions(
        store,
        coord_id,
        [
            # put back to WAITING by ``rerun -failed``, which keeps its workflow for the relaunch
            ActionSpec("2024-01-01T00:00Z", "WAITING", external_id=wf_id),
            ActionSpec("2024-01-01T01:00Z", "RUNNING", external_id=wf_id),
        ],
    )
    with store.write() as tx:
        wf = jobs.updated(tx, jobs.must_get(tx.conn, WorkflowRow, wf_id), status="SUCCEEDED")
        # the workflow, rerun by hand meanwhile, succeeds: a WAITING action has no SUCCEED row
        coordcmd.action_workflow_changed(tx, ctx.effects, waiting, wf)
        coordcmd.action_workflow_changed(tx, ctx.effects, running, wf)
        # a suspend reaches a RUNNING action only, a resume a SUSPENDED one only
        suspended = jobs.updated(tx, wf, status="SUSPENDED")
        coordcmd.action_workflow_changed(tx, ctx.effects, waiting, suspended)
    status = {
        a.id: a.status for a in jobs.select(store.conn, ActionRow, "coord_id = ?", (coord_id,))
    }
    assert status == {waiting: "WAITING", running: "SUCCEEDED"}
