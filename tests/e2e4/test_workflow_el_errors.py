"""An EL error where no action runs — a decision's predicate, a kill node's message — fails
the workflow (oozie.md §5.4: FAILED = unexpected error, e.g. EL). QA found such a workflow left
RUNNING for ever (its decision WAITING, an error in the engine's log at every pass), which
inside a coordinator holds a concurrency slot for good. Real CLI, real engine, real shell."""

from __future__ import annotations

import pytest

from tests.e2e4.conftest import Bt4

WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="el">
  <start to="x"/>
  <action name="x">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <exec>echo</exec><argument>n=abc</argument><capture-output/>
    </shell>
    <ok to="NEXT"/><error to="fail"/>
  </action>
  <decision name="d">
    <switch><case to="end">${wf:actionData('x')['n'] gt 3}</case><default to="end"/></switch>
  </decision>
  <kill name="k"><message>${wf:actionData('x')['n'] + 1}</message></kill>
  <kill name="fail"><message>x failed</message></kill>
  <end name="end"/>
</workflow-app>
"""


@pytest.mark.parametrize("where", ["d", "k"], ids=["decision predicate", "kill message"])
def test_an_el_error_outside_an_action_fails_the_workflow(bt: Bt4, where: str) -> None:
    bt.apps.write("wf/workflow.xml", WORKFLOW.replace("NEXT", where))
    props = bt.apps.props("job.properties", {"oozie.wf.application.path": "wf"})
    wf = bt.submit_job(props, start=True)
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:05Z")
    info = bt.info_json(wf)
    assert info["status"] == "FAILED", info
    assert info["endTime"] is not None
    assert info["errorCode"] == "E1004", info
    assert "abc" in info["errorMessage"], info  # the value the expression could not use
    if where == "d":  # the node whose expression failed is named, as a failed action's is
        assert info["errorMessage"].startswith("node d: "), info
    nodes = {a["name"]: a["status"] for a in info["actions"]}
    assert nodes["x"] in ("OK", "SUCCEEDED"), nodes
