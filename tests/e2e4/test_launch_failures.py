"""A launch that throws fails what it launched, once, instead of leaving it READY.

Before, an exception that was not one of bundletui's own errors at a coordinator action's
launch was logged and undone, and the action stayed READY: the engine tried it again at every
tick, for ever, and ``--until`` / ``--exit-when-idle`` runs ended with work still READY. A
workflow node whose launch threw left the launchable queue and sat READY until the next engine
start, its workflow RUNNING. Oozie fails both: the coordinator action with E1005
(CoordActionStartXCommand), the node with the exception's class name as its error code
(ActionExecutor.convertException), so the workflow takes the node's error transition.

The causes here are real, not injected: a week-year (``YYYY``) of a nominal time in the last
week of 9999 is past Python's calendar, and a workflow's log directory that cannot be made.
Through the real CLI and a real ``bundletui run``.
"""

from __future__ import annotations

from tests.e2e4.conftest import Bt4, coordinator_xml

WEEK_YEAR = "${coord:formatTime(coord:nominalTime(), 'YYYY')}"

TWO_MKDIRS = """<workflow-app name="w" xmlns="uri:oozie:workflow:1.0">
  <start to="mk"/>
  <action name="mk"><fs><mkdir path="{out}/a"/><mkdir path="{out}/b"/></fs>
    <ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>mk: ${{wf:errorCode('mk')}}</message></kill>
  <end name="end"/>
</workflow-app>
"""


def test_a_coordinator_action_whose_launch_throws_fails_once_with_e1005(bt: Bt4) -> None:
    wf = bt.apps.write("wf.xml", TWO_MKDIRS.format(out=bt.tmp / "out"))
    bt.apps.write(
        "c.xml",
        coordinator_xml(
            "c",
            start="9999-12-31T21:00Z",
            end="9999-12-31T23:00Z",
            workflow=wf,
            conf={"weekyear": WEEK_YEAR},
        ),
    )
    cid = bt.submit_job(bt.apps.props("job.properties", {"oozie.coord.application.path": "c.xml"}))
    e = bt.sim("9999-12-31T21:00Z", "9999-12-31T23:30Z")

    assert bt.actions(cid) == {1: "FAILED", 2: "FAILED"}
    errors = bt.sql("SELECT error_code, error_message FROM coord_actions WHERE coord_id = ?", cid)
    assert errors == [("E1005", "ValueError: year 10000 is out of range")] * 2
    assert bt.sql("SELECT count(*) FROM wf_jobs") == [(0,)]  # no workflow was left behind
    # tried once each, not once per tick: one report (with its traceback) per action
    assert e.log().count("failed") == 2, e.log()
    assert bt.status(cid) in ("FAILED", "DONEWITHERROR")
    shown = bt.cli("info", cid).stdout
    assert "E1005 ValueError: year 10000 is out of range" in shown


def test_a_node_whose_launch_throws_takes_its_error_transition(bt: Bt4) -> None:
    bt.apps.write("wf.xml", TWO_MKDIRS.format(out=bt.tmp / "out"))
    wf_id = bt.submit_job(
        bt.apps.props("job.properties", {"oozie.wf.application.path": "wf.xml"}), start=True
    )
    # the fs action journals its operations under the workflow's log directory; a file where
    # that directory's parent should be makes the launch throw (NotADirectoryError)
    logs = bt.home / "logs"
    assert not logs.exists()
    logs.write_text("not a directory\n")

    e = bt.engine("--exit-when-idle", wait=False)
    assert e.wait(30) == 0, e.log()

    info = bt.info_json(wf_id)
    assert info["status"] == "KILLED", info
    node = next(a for a in info["actions"] if a["name"] == "mk")
    assert (node["status"], node["errorCode"]) == ("ERROR", "NotADirectoryError"), node
    assert "Not a directory" in node["errorMessage"]
    assert info["errorMessage"] == "mk: NotADirectoryError"
    assert not (bt.tmp / "out").exists()  # the launch was undone before anything ran
    assert e.log().count("failed") == 1, e.log()
