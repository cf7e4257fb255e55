"""commands/logs: which files hold a job's log, for every face. Real applications are
submitted through the real commands and run by a real engine (real processes writing real
files): a node retried twice, a workflow rerun after its node failed every attempt, a node that
never ran, a sub-workflow node, and coordinator actions with and without a workflow."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from bundletui.commands import dispatch, logs
from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.engine.service import Engine, EngineConfig
from bundletui.errors import BundletuiError
from bundletui.model.ids import action_id
from bundletui.spec.load import load_job
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import ActionRow, NodeRow, WorkflowRow

# fails its first ``failTimes`` attempts (the count kept in a file), each attempt saying which
FLAKY = """<dag-app xmlns="uri:bundletui:dag:1.0" name="flaky">
  <job name="flaky" retry-max="2" retry-interval="0">
    <shell><exec>sh</exec><argument>-c</argument>
      <argument>n=`cat "$1" 2>/dev/null || echo 0`; n=`expr $n + 1`; echo $n > "$1";
        echo "flaky attempt $n"; if [ $n -le $2 ]; then echo "attempt $n fails" >&amp;2; exit 1; fi
      </argument>
      <argument>flaky</argument><argument>${dir}/count</argument><argument>${failTimes}</argument>
    </shell>
  </job>
  <job name="after"><depends>flaky</depends>
    <shell><exec>echo</exec><argument>after ran</argument></shell></job>
</dag-app>
"""
CHILD = """<dag-app xmlns="uri:bundletui:dag:1.0" name="child">
  <job name="hello"><shell><exec>echo</exec><argument>child says hi</argument></shell></job>
  <job name="bye"><depends>hello</depends><shell><exec>echo</exec><argument>bye</argument>
  </shell></job>
</dag-app>
"""
PARENT = """<dag-app xmlns="uri:bundletui:dag:1.0" name="parent">
  <job name="child"><sub-workflow><app-path>${childPath}</app-path></sub-workflow></job>
</dag-app>
"""
DAILY = """<coordinator-app name="daily" frequency="${coord:days(1)}" start="2024-01-01T00:00Z"
    end="2024-01-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.2">
  <action><workflow><app-path>${childPath}</app-path></workflow></action>
</coordinator-app>
"""
# its input never lands: its one action waits, with no workflow
HOURLY = """<coordinator-app name="hourly" frequency="${coord:hours(1)}" start="2024-01-01T00:00Z"
    end="2024-01-01T01:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <controls><timeout>-1</timeout></controls>
  <datasets>
    <dataset name="clicks" frequency="${coord:hours(1)}" initial-instance="2024-01-01T00:00Z"
             timezone="UTC"><uri-template>${landing}/clicks/${YEAR}${MONTH}${DAY}${HOUR}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="input" dataset="clicks"><instance>${coord:current(0)}</instance></data-in>
  </input-events>
  <action><workflow><app-path>${childPath}</app-path></workflow></action>
</coordinator-app>
"""


@dataclass
class World:
    store: Store
    retried: str  # flaky failed twice, then succeeded: three attempts
    rerun: str  # run 0: flaky failed all three attempts; run 1 (failed nodes): one attempt
    broken: str  # flaky failed every attempt: ``after`` never ran
    parent: str  # runs CHILD as a sub-workflow
    daily: str  # its action launched CHILD
    hourly: str  # its action waits for input


def wait_for(predicate: Callable[[], Any], what: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


def workflow(store: Store, wf_id: str) -> WorkflowRow:
    return jobs.must_get(store.conn, WorkflowRow, wf_id)


def node(store: Store, node_id: str) -> NodeRow:
    found = jobs.get(store.conn, NodeRow, node_id)
    assert found is not None, node_id
    return found


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("logs")
    for name, xml in (("flaky", FLAKY), ("child", CHILD), ("parent", PARENT)):
        (root / name).mkdir()
        (root / name / "workflow.xml").write_text(xml)
    (root / "daily.xml").write_text(DAILY)
    (root / "hourly.xml").write_text(HOURLY)
    home = root / "home"
    store = Store(home)

    def submit(app: str, **conf: str) -> str:
        key = "coord" if app.endswith(".xml") else "wf"
        props = {f"oozie.{key}.application.path": str(root / app), "childPath": str(root / "child")}
        props["landing"] = str(root / "landing")
        loaded = load_job(None, {**props, **conf}, store.clock, user="alice")
        return submit_loaded(Ctx(store), loaded, start=key == "wf")

    dirs = {name: root / name / "state" for name in ("retried", "rerun", "broken")}
    for d in dirs.values():
        d.mkdir(parents=True)
    w = World(
        store,
        retried=submit("flaky", dir=str(dirs["retried"]), failTimes="2"),
        rerun=submit("flaky", dir=str(dirs["rerun"]), failTimes="3"),
        broken=submit("flaky", dir=str(dirs["broken"]), failTimes="9"),
        parent=submit("parent"),
        daily=submit("daily.xml"),
        hourly=submit("hourly.xml"),
    )
    engine = Engine(EngineConfig(home=home, watch=False, poll_interval=0.02, lease_ttl=2.0))
    thread = threading.Thread(target=lambda: asyncio.run(engine.run()), daemon=True)
    thread.start()
    try:
        ended = ("SUCCEEDED", "FAILED", "KILLED")
        wait_for(lambda: workflow(store, w.rerun).status == "FAILED", "run 0 of the rerun")
        dispatch.rerun(Ctx(store), w.rerun, failed_nodes=True)
        wait_for(
            lambda: (
                workflow(store, w.rerun).run == 1
                and workflow(store, w.rerun).status == "SUCCEEDED"
                and all(workflow(store, x).status in ended for x in (w.retried, w.broken))
                and workflow(store, w.parent).status == "SUCCEEDED"
                and (daily := jobs.get(store.conn, ActionRow, action_id(w.daily, 1))) is not None
                and daily.status == "SUCCEEDED"
                and jobs.get(store.conn, ActionRow, action_id(w.hourly, 1)) is not None
            ),
            "every job",
        )
    finally:
        engine.request_stop()
        thread.join(10)
    yield w
    store.close()


def names(nodes: Any) -> list[str]:
    return [n.name for n in nodes]


def test_a_workflow_gives_its_nodes_in_definition_order(world: World) -> None:
    found = logs.log_nodes(world.store.conn, world.retried)
    assert names(found.nodes) == names(found.ran) == ["flaky", "after"]
    assert found.sub_workflow is None and found.no_workflow is None


def test_a_node_that_never_ran_is_not_among_those_that_ran(world: World) -> None:
    found = logs.log_nodes(world.store.conn, world.broken)
    assert names(found.nodes) == ["flaky", "after"]
    assert names(found.ran) == ["flaky"]
    after = node(world.store, f"{world.broken}@after")
    assert after.attempt == 0
    assert [f.attempt for f in logs.attempts(world.store, after)] == [1]  # about to start
    assert not logs.attempts(world.store, after)[0].out.exists()


def test_a_retried_node_gives_every_attempt_in_order(world: World) -> None:
    node_id = f"{world.retried}@flaky"
    found = logs.log_nodes(world.store.conn, node_id)
    assert [n.id for n in found.nodes] == [node_id]
    files = logs.attempts(world.store, found.nodes[0])
    assert [(f.run, f.attempt, f.last) for f in files] == [
        (0, 1, False),
        (0, 2, False),
        (0, 3, True),
    ]
    assert [f.out.read_text() for f in files] == [f"flaky attempt {n}\n" for n in (1, 2, 3)]
    assert [f.err.read_text() for f in files] == ["attempt 1 fails\n", "attempt 2 fails\n", ""]
    assert all(f.node.id == node_id for f in files)


def test_an_earlier_run_gives_the_attempts_whose_files_are_there(world: World) -> None:
    flaky = node(world.store, f"{world.rerun}@flaky")
    assert (flaky.run, flaky.attempt) == (1, 1)
    current = logs.attempts(world.store, flaky)
    assert [(f.run, f.attempt, f.last) for f in current] == [(1, 1, True)]
    assert current[0].out.read_text() == "flaky attempt 4\n"
    earlier = logs.attempts(world.store, flaky, run=0)
    assert [(f.run, f.attempt, f.last) for f in earlier] == [
        (0, 1, False),
        (0, 2, False),
        (0, 3, True),
    ]
    assert [f.err.read_text() for f in earlier] == [f"attempt {n} fails\n" for n in (1, 2, 3)]
    after = node(world.store, f"{world.rerun}@after")
    assert logs.attempts(world.store, after, run=0) == []  # it did not run then
    assert logs.attempts(world.store, flaky, run=2) == []  # no such run


def test_a_sub_workflow_node_gives_its_childs_nodes_when_asked(world: World) -> None:
    node_id = f"{world.parent}@child"
    own = logs.log_nodes(world.store.conn, node_id)
    assert [n.id for n in own.nodes] == [node_id] and own.sub_workflow is None
    child = logs.sub_workflow_of(own.nodes[0])
    assert child is not None and child != world.parent
    found = logs.log_nodes(world.store.conn, node_id, sub_workflow=True)
    assert found.sub_workflow == child
    assert [(n.wf_id, n.name) for n in found.nodes] == [(child, "hello"), (child, "bye")]
    hello = logs.attempts(world.store, found.nodes[0])
    assert [f.out.read_text() for f in hello] == ["child says hi\n"]
    # a node of the child itself runs no sub-workflow: itself
    assert logs.sub_workflow_of(found.nodes[0]) is None


def test_a_coordinator_action_gives_its_workflows_nodes(world: World) -> None:
    action = jobs.get(world.store.conn, ActionRow, action_id(world.daily, 1))
    assert action is not None and action.external_id
    found = logs.log_nodes(world.store.conn, action.id)
    assert names(found.nodes) == ["hello", "bye"]
    assert {n.wf_id for n in found.nodes} == {action.external_id}


def test_an_action_with_no_workflow_yet_has_no_nodes_and_says_why(world: World) -> None:
    waiting = action_id(world.hourly, 1)
    found = logs.log_nodes(world.store.conn, waiting)
    assert found.nodes == () and found.ran == []
    assert found.no_workflow is not None
    assert found.no_workflow.startswith(f"{waiting} is WAITING and has launched no workflow")


@pytest.mark.parametrize(
    ("job_id", "code", "hinted"),
    [
        ("{retried}@nope", "E0605", True),
        ("0000099-000000000000000-bundletui-W", "E0604", True),
        ("{daily}@99", "E0605", True),
        ("nope", "E0604", True),
        ("{daily}", "E0302", True),  # a coordinator runs no process: no nodes of its own
    ],
)
def test_unknown_ids_keep_their_errors(world: World, job_id: str, code: str, hinted: bool) -> None:
    job_id = job_id.format(retried=world.retried, daily=world.daily)
    with pytest.raises(BundletuiError) as caught:
        logs.log_nodes(world.store.conn, job_id)
    assert caught.value.code == code
    assert bool(caught.value.hint) is hinted


def test_a_missing_nodes_hint_names_its_workflow_unless_left_out(world: World) -> None:
    missing = f"{world.retried}@nope"
    with pytest.raises(BundletuiError) as caught:
        logs.log_nodes(world.store.conn, missing)
    assert caught.value.message == f"Action does not exist [{missing}]"
    assert caught.value.hint == f"see the workflow's nodes with: bundletui info {world.retried}"
    with pytest.raises(BundletuiError) as bare:
        logs.log_nodes(world.store.conn, missing, node_hint=False)
    assert (bare.value.code, bare.value.hint) == ("E0605", None)
