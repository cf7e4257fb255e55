"""An action waiting out its ``retry-interval`` shows as Oozie's ``USER_RETRY``, with the count
of failed attempts so far and when it runs again; QA found it shown as ``PREP`` with a count
of 0. Real CLI, real engine on the simulated clock, a real failing process."""

from __future__ import annotations

from tests.e2e4.conftest import Bt4

WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="flaky">
  <start to="try"/>
  <action name="try" retry-max="2" retry-interval="10">
    <shell xmlns="uri:oozie:shell-action:1.0"><exec>false</exec></shell>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>
"""


def _try(bt: Bt4, wf: str) -> dict:
    (node,) = [a for a in bt.info_json(wf)["actions"] if a["name"] == "try"]
    return node


def test_an_action_between_attempts_is_user_retry_with_its_count(bt: Bt4) -> None:
    bt.apps.write("wf/workflow.xml", WORKFLOW)
    props = bt.apps.props("job.properties", {"oozie.wf.application.path": "wf"})
    wf = bt.submit_job(props, start=True)
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:05Z")  # attempt 1 failed; next at 00:10
    node = _try(bt, wf)
    assert (node["status"], node["retries"], node["userRetryCount"]) == ("USER_RETRY", 1, 1)
    assert node["retryAt"] == "Thu, 01 Jan 2026 00:10:00 GMT"
    assert node["userRetryMax"] == 2 and node["nodeStatus"] == "READY"
    text = bt.cli("oozie", "job", "-info", wf).stdout
    assert "USER_RETRY" in text
    # the console's pages, from the same JSON
    from bundletui.tui.details import node_page, workflow_page

    assert (
        "attempt 1 of 3 failed (error 1: Main Class [org.apache.oozie.action.hadoop.ShellMain],"
        " exit code [1]); retried at 2026-01-01 00:10Z" in (node_page(node).plain)
    ), node_page(node).plain
    assert "retried at 2026-01-01 00:10Z" in workflow_page(bt.info_json(wf)).plain

    bt.sim("2026-01-01T00:05Z", "2026-01-01T00:15Z")  # attempt 2 failed; next at 00:20
    node = _try(bt, wf)
    assert (node["status"], node["retries"]) == ("USER_RETRY", 2)

    bt.sim("2026-01-01T00:15Z", "2026-01-01T00:30Z")  # attempt 3 failed: no retry left
    node = _try(bt, wf)
    assert (node["status"], node["retries"], node["retryAt"]) == ("ERROR", 2, None)
    assert bt.info_json(wf)["status"] == "KILLED"
