"""A shell action's ``<env-var>`` may refer to the environment with ``$NAME``, as Oozie's
ShellMain expands it: ``PATH=/opt/tools/bin:$PATH`` is the usual way to add a tool. QA found
the value passed as written, so a bare ``<exec>sh</exec>`` was not found (exit 127). Real CLI,
real engine on the simulated clock, a real process."""

from __future__ import annotations

from tests.e2e4.conftest import Bt4

WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="env">
  <start to="show"/>
  <action name="show">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <exec>sh</exec>
      <argument>-c</argument>
      <argument>echo "PATH=$PATH"; echo "B=$B"; echo "C=$C"</argument>
      <env-var>PATH=/opt/none/bin:$PATH</env-var>
      <env-var>A=first</env-var>
      <env-var>B=$A-then</env-var>
      <env-var>C=$NOT_SET_ANYWHERE/x</env-var>
    </shell>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>
"""


def test_env_var_values_expand_dollar_names_from_the_jobs_environment(bt: Bt4) -> None:
    bt.apps.write("wf/workflow.xml", WORKFLOW)
    props = bt.apps.props("job.properties", {"oozie.wf.application.path": "wf"})
    wf = bt.submit_job(props, start=True)
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:05Z")
    info = bt.info_json(wf)
    assert info["status"] == "SUCCEEDED", info  # `sh` found through the expanded PATH
    lines = dict(
        line.split("=", 1)
        for line in bt.cli("log", f"{wf}@show").stdout.splitlines()
        if "=" in line
    )
    assert lines["PATH"].startswith("/opt/none/bin:") and "/bin" in lines["PATH"][14:], lines
    assert lines["B"] == "first-then"  # an earlier env-var
    assert lines["C"] == "$NOT_SET_ANYWHERE/x"  # not set: as written


def test_an_env_var_that_resolves_to_no_name_value_pair_fails_its_node(bt: Bt4) -> None:
    """``<env-var>${pair}</env-var>`` passes submit (its EL may give ``NAME=VALUE``); with
    ``pair=JUSTANAME`` it fails the node with EB0720, rather than setting nothing."""
    bt.apps.write(
        "wf/workflow.xml",
        WORKFLOW.replace("<env-var>A=first</env-var>", "<env-var>${pair}</env-var>"),
    )
    errors = {}
    for pair, status in (("JUSTANAME", "KILLED"), ("A=first", "SUCCEEDED")):
        props = bt.apps.props("job.properties", {"oozie.wf.application.path": "wf", "pair": pair})
        wf = bt.submit_job(props, start=True)
        bt.sim("2026-01-01T00:00Z", "2026-01-01T00:05Z")
        info = bt.info_json(wf)
        assert info["status"] == status, info
        (show,) = [a for a in info["actions"] if a["name"] == "show"]
        errors[pair] = (show["errorCode"], show["errorMessage"])
    assert errors["A=first"] == (None, None)
    code, message = errors["JUSTANAME"]
    assert code == "EB0720" and "env-var [JUSTANAME] is not NAME=VALUE" in message
