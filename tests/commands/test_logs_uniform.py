"""One rule for a job's log on every face, decided in commands/logs.sections: a sub-workflow
node's log is its child's nodes' (headed ``parent-node → child-node``, whether the node or its
workflow is asked), a log is headed when it has more than one section (one attempt of one
node), and a retried node's attempt says ``of up to N`` while it may still be retried.

Real applications run by a real engine: a parent whose sub-workflow's child fails, and a pair
whose first node fails so its second never runs (one section: no heading). The faces' own
tests (tests/cli, tests/api, tests/tui: test_logs_uniform*.py) build the same world with
:func:`build` and expect the texts below.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bundletui.commands import logs
from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.engine.service import Engine, EngineConfig
from bundletui.spec.load import load_job
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import NodeRow, WorkflowRow

CHILD = """<dag-app xmlns="uri:bundletui:dag:1.0" name="child">
  <job name="ok"><shell><exec>echo</exec><argument>child ok</argument></shell></job>
  <job name="boom"><depends>ok</depends>
    <shell><exec>sh</exec><argument>-c</argument>
      <argument>echo "boom out"; echo "boom failed: no input" >&amp;2; exit 3</argument>
    </shell>
  </job>
</dag-app>
"""
PARENT = """<dag-app xmlns="uri:bundletui:dag:1.0" name="parent">
  <job name="prep"><shell><exec>echo</exec><argument>prep ran</argument></shell></job>
  <job name="sub"><depends>prep</depends>
    <sub-workflow><app-path>${childPath}</app-path></sub-workflow></job>
  <job name="post"><depends>sub</depends>
    <shell><exec>echo</exec><argument>post ran</argument></shell></job>
</dag-app>
"""
# two nodes, one of which runs: one section, printed as its bytes alone
PAIR = """<dag-app xmlns="uri:bundletui:dag:1.0" name="pair">
  <job name="a"><shell><exec>sh</exec><argument>-c</argument>
    <argument>echo "a out"; echo "a err" >&amp;2; exit 1</argument></shell></job>
  <job name="b"><depends>a</depends><shell><exec>echo</exec><argument>b ran</argument></shell>
  </job>
</dag-app>
"""

# what every face prints (the console: in its own shape, see tests/tui)
PARENT_LOG = (
    "── prep (SUCCEEDED, attempt 1)\nprep ran\n"
    "── sub → ok (SUCCEEDED, attempt 1)\nchild ok\n"
    "── sub → boom (FAILED, attempt 1)\nboom out\nboom failed: no input\n"
)
SUB_LOG = PARENT_LOG.split("prep ran\n", 1)[1]
SUB_ERRORLOG = (
    "── sub → ok (SUCCEEDED, attempt 1)\n── sub → boom (FAILED, attempt 1)\nboom failed: no input\n"
)
PAIR_LOG = "a out\na err\n"


@dataclass
class Uniform:
    home: Path
    parent: str  # FAILED: its sub-workflow's child failed
    child: str  # the child workflow node ``sub`` ran
    pair: str  # FAILED at ``a``; ``b`` never ran


def wait_for(predicate: Callable[[], Any], what: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


def write_apps(root: Path) -> dict[str, Path]:
    apps = {}
    for name, xml in (("child", CHILD), ("parent", PARENT), ("pair", PAIR)):
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "workflow.xml").write_text(xml)
        apps[name] = root / name
    return apps


def submit(store: Store, app: Path, **conf: str) -> str:
    props = {"oozie.wf.application.path": str(app), **conf}
    loaded = load_job(None, props, store.clock, user="alice")
    return submit_loaded(Ctx(store), loaded, start=True)


def build(root: Path) -> Uniform:
    """The parent and the pair, run to their end by a real engine, in ``root/home``."""
    apps = write_apps(root / "apps")
    home = root / "home"
    with Store(home) as store:
        parent = submit(store, apps["parent"], childPath=str(apps["child"]))
        pair = submit(store, apps["pair"])
        engine = Engine(EngineConfig(home=home, watch=False, poll_interval=0.02, lease_ttl=2.0))
        thread = threading.Thread(target=lambda: asyncio.run(engine.run()), daemon=True)
        thread.start()
        try:
            wait_for(
                lambda: all(
                    jobs.must_get(store.conn, WorkflowRow, w).status == "FAILED"
                    for w in (parent, pair)
                ),
                "both workflows to fail",
            )
        finally:
            engine.request_stop()
            thread.join(10)
        sub = jobs.get(store.conn, NodeRow, f"{parent}@sub")
        assert sub is not None and sub.external_id
        return Uniform(home, parent, sub.external_id, pair)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Uniform, Store]]:
    u = build(tmp_path_factory.mktemp("logs-uniform"))
    with Store(u.home) as store:
        yield u, store


def text(store: Store, found: logs.Sections, *, stderr_only: bool = False) -> str:
    """The sections as the CLI and the API print them (files whole, headed by the rule)."""
    out = []
    for s in found.sections:
        if found.headed:
            out.append(f"── {s.heading}\n")
        for path in [s.files.err] if stderr_only else [s.files.out, s.files.err]:
            out.append(path.read_text() if path.exists() else "")
    return "".join(out)


def test_a_sub_workflow_nodes_sections_are_its_childs_named_through_it(
    world: tuple[Uniform, Store],
) -> None:
    u, store = world
    found = logs.sections(store, f"{u.parent}@sub")
    assert [s.name for s in found.sections] == ["sub → ok", "sub → boom"]
    assert {s.node.wf_id for s in found.sections} == {u.child}
    assert found.subs == ((f"{u.parent}@sub", u.child),)
    assert found.headed
    assert text(store, found) == SUB_LOG
    assert text(store, found, stderr_only=True) == SUB_ERRORLOG


def test_a_workflows_sections_follow_its_sub_workflow_node_into_the_child(
    world: tuple[Uniform, Store],
) -> None:
    u, store = world
    found = logs.sections(store, u.parent)
    assert [s.name for s in found.sections] == ["prep", "sub → ok", "sub → boom"]
    assert [s.heading for s in found.sections] == [
        "prep (SUCCEEDED, attempt 1)",
        "sub → ok (SUCCEEDED, attempt 1)",
        "sub → boom (FAILED, attempt 1)",
    ]
    assert text(store, found) == PARENT_LOG
    by_start = logs.sections(store, u.parent, by_start=True)  # the API's order: the same here
    assert [s.name for s in by_start.sections] == ["prep", "sub → ok", "sub → boom"]
    # the child itself, asked for: its own nodes, named as its own
    child = logs.sections(store, u.child)
    assert [s.name for s in child.sections] == ["ok", "boom"] and child.subs == ()


def test_one_section_is_not_headed_though_the_workflow_has_more_nodes(
    world: tuple[Uniform, Store],
) -> None:
    u, store = world
    found = logs.sections(store, u.pair)
    assert [s.name for s in found.sections] == ["a"]
    assert not found.headed
    assert text(store, found) == PAIR_LOG
    assert [s.attempt_text for s in found.sections] == [None]  # its only attempt


# a node that may be retried twice fails its first attempt; its second waits for the gate
GATED = """<dag-app xmlns="uri:bundletui:dag:1.0" name="gated">
  <job name="flaky" retry-max="2" retry-interval="0">
    <shell><exec>sh</exec><argument>-c</argument>
      <argument>n=`cat "$1" 2>/dev/null || echo 0`; n=`expr $n + 1`; echo $n > "$1";
        if [ $n -le 1 ]; then exit 1; fi
        i=0; while [ ! -e "$2" ] &amp;&amp; [ $i -lt 300 ]; do sleep 0.1; i=`expr $i + 1`; done
      </argument>
      <argument>flaky</argument><argument>${dir}/count</argument><argument>${dir}/gate</argument>
    </shell>
  </job>
</dag-app>
"""


def test_a_retried_nodes_attempt_says_of_up_to_while_it_may_be_retried(tmp_path: Path) -> None:
    app = tmp_path / "gated"
    app.mkdir()
    (app / "workflow.xml").write_text(GATED)
    home = tmp_path / "home"
    with Store(home) as store:
        wf = submit(store, app, dir=str(app))
        engine = Engine(EngineConfig(home=home, watch=False, poll_interval=0.02, lease_ttl=2.0))
        thread = threading.Thread(target=lambda: asyncio.run(engine.run()), daemon=True)
        thread.start()
        try:

            def node() -> NodeRow:
                found = jobs.get(store.conn, NodeRow, f"{wf}@flaky")
                assert found is not None
                return found

            wait_for(
                lambda: node().attempt == 2 and node().status == "RUNNING", "the second attempt"
            )
            running = logs.sections(store, wf)
            assert [s.attempt_text for s in running.sections] == [
                "attempt 1 of up to 3",
                "attempt 2 of up to 3",
            ]
            (app / "gate").touch()
            wait_for(lambda: node().status == "SUCCEEDED", "the node to end")
        finally:
            engine.request_stop()
            thread.join(10)
        ended = logs.sections(store, wf)
        assert [s.attempt_text for s in ended.sections] == ["attempt 1 of 2", "attempt 2 of 2"]
        assert [s.heading for s in ended.sections] == [
            "flaky (retried, attempt 1)",
            "flaky (SUCCEEDED, attempt 2)",
        ]
