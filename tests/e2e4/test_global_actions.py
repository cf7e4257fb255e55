"""A workflow's ``<global>`` reaches every action type it means something to, as in Oozie.

Shell actions have had it (tests/e2e/test_oozie_wf.py). A sub-workflow action gets it as Oozie
>= 4.3 gives it (OOZIE-2030): the global configuration is merged under the action's own
``<configuration>``, so it reaches the child's job configuration; and with
``<propagate-configuration/>`` the child inherits the parent's ``<global>`` under its own.
(An fs action runs on the local file system, where a Hadoop configuration, name-node or
job-tracker has no use; launcher settings have none locally either.)

The child's shell action writes its arguments (the child's job properties) and copies its
``OOZIE_ACTION_CONF_XML`` (its action configuration) into the directory it is given.
"""

from __future__ import annotations

from pathlib import Path

from bundletui.spec.config import parse_hadoop_xml
from tests.e2e4.conftest import Bt4

PARENT = """<?xml version="1.0" encoding="UTF-8"?>
<workflow-app xmlns="uri:oozie:workflow:1.0" name="parent">
  <parameters><property><name>out</name></property></parameters>
  <global>
    <configuration>
      <property><name>color</name><value>global-red</value></property>
      <property><name>size</name><value>global-size</value></property>
      <property><name>who</name><value>${wf:id()}</value></property>
    </configuration>
  </global>
  <start to="propagated"/>
  <action name="propagated">
    <sub-workflow>
      <app-path>child.xml</app-path>
      <propagate-configuration/>
      <configuration>
        <property><name>out</name><value>${out}/propagated</value></property>
        <property><name>size</name><value>action-size</value></property>
      </configuration>
    </sub-workflow>
    <ok to="plain"/>
    <error to="fail"/>
  </action>
  <action name="plain">
    <sub-workflow>
      <app-path>child.xml</app-path>
      <configuration>
        <property><name>out</name><value>${out}/plain</value></property>
        <property><name>size</name><value>plain-size</value></property>
      </configuration>
    </sub-workflow>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail">
    <message>failed at [${wf:lastErrorNode()}]: ${wf:errorMessage(wf:lastErrorNode())}</message>
  </kill>
  <end name="end"/>
</workflow-app>
"""

CHILD = """<?xml version="1.0" encoding="UTF-8"?>
<workflow-app xmlns="uri:oozie:workflow:1.0" name="child">
  <global>
    <configuration>
      <property><name>color</name><value>child-blue</value></property>
    </configuration>
  </global>
  <start to="show"/>
  <action name="show">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <prepare><mkdir path="${out}"/></prepare>
      <exec>python3</exec>
      <argument>-c</argument>
      <argument>import os, shutil, sys; d = sys.argv[1]; open(os.path.join(d, "job.txt"), "w").write(" ".join(sys.argv[2:])); shutil.copy(os.environ["OOZIE_ACTION_CONF_XML"], os.path.join(d, "conf.xml"))</argument>
      <argument>${out}</argument>
      <argument>${color}</argument>
      <argument>${size}</argument>
      <argument>${who}</argument>
    </shell>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>child failed</message></kill>
  <end name="end"/>
</workflow-app>
"""


def action_conf(path: Path) -> dict[str, str]:
    """The action configuration file as a job reads it (through the safe XML parser)."""
    return parse_hadoop_xml(path.read_bytes(), str(path), keep_empty=True)


def test_global_reaches_sub_workflow_actions_and_their_children(bt: Bt4, tmp_path: Path) -> None:
    bt.apps.write("parent.xml", PARENT)
    bt.apps.write("child.xml", CHILD)
    out = tmp_path / "out"
    props = bt.apps.props(
        "job.properties", {"oozie.wf.application.path": "parent.xml", "out": str(out)}
    )
    bt.engine()
    wf = bt.submit_job(props, start=True)
    info = bt.wait_status(wf, "SUCCEEDED", "FAILED", "KILLED", timeout=30)
    assert info["status"] == "SUCCEEDED", info
    children = {a["name"]: a["externalId"] for a in info["actions"] if a.get("externalId")}
    propagated, plain = children["propagated"], children["plain"]
    assert propagated.endswith("-W") and plain.endswith("-W")

    # the sub-workflow action's configuration: <global> under its own (its size wins), EL
    # rendered in the parent (wf:id() is the parent's) -> the child's job properties
    assert (out / "propagated" / "job.txt").read_text() == f"global-red action-size {wf}"
    assert (out / "plain" / "job.txt").read_text() == f"global-red plain-size {wf}"

    # <propagate-configuration/>: the child's <global> is the parent's under its own (its
    # color wins); the inherited EL is the child's to render (wf:id() is the child's)
    assert action_conf(out / "propagated" / "conf.xml") == {
        "color": "child-blue",
        "size": "global-size",
        "who": propagated,
    }
    # without it, the child has only its own <global>
    assert action_conf(out / "plain" / "conf.xml") == {"color": "child-blue"}
