"""Oozie workflow.xml end to end: the oozie-wf sample's decision, fork/join, fs, kill and retry."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import FIXTURES, SAMPLES, Bt, trace_lines

CONFIG = SAMPLES / "oozie-wf" / "job.properties"
CHAIN = FIXTURES / "chain" / "job.properties"


def actions(info: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["name"]: a for a in info["actions"]}


def test_success_path_decision_fork_join_fs_capture_output(bt: Bt, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "report").mkdir()
    (out / "report" / "stale.txt").write_text("from an earlier run")  # prepare deletes it
    refused = bt.cli("submit", str(CONFIG), "--start", check=False)  # QA (n): "." ran, KILLED
    assert refused.code == 1 and "E0738" in refused.stderr and "outputDir" in refused.stderr
    bt.engine()
    wf = bt.submit(CONFIG, {"outputDir": str(out)})
    bt.wait(wf)
    info = bt.info(wf)
    assert info["status"] == "SUCCEEDED", info
    a = actions(info)
    # the decision took its case (rows gt 0), recorded as the node's transition
    assert a["has-rows"]["transition"] == "prepare"
    assert a["has-rows"]["type"] == "switch"  # Oozie's decision type
    # external status as Oozie's executors set it: the decision's choice, OK for control
    # nodes and fs actions (scripts grep it)
    assert a["has-rows"]["externalStatus"] == "prepare"
    assert a["prepare"]["externalStatus"] == a["fork-counts"]["externalStatus"] == "OK"
    assert a["end"]["externalStatus"] == "OK"
    assert a["count-words"]["externalStatus"] == "SUCCEEDED"
    assert a["check"]["transition"] == "has-rows"
    assert "rows=5" in a["check"]["data"]
    # both forked branches ran and met at the join
    assert a["count-words"]["status"] == a["count-lines"]["status"] == "OK"
    assert a["fork-counts"]["nodeStatus"] == a["join-counts"]["nodeStatus"] == "SUCCEEDED"
    assert a["join-counts"]["transition"] == "report"
    # the kill nodes were never reached
    assert a["empty-input"]["nodeStatus"] == a["fail"]["nodeStatus"] == "SKIPPED"
    # fs: prepare deleted the old report dir, mark-done touched _SUCCESS
    assert not (out / "report" / "stale.txt").exists()
    assert (out / "report" / "_SUCCESS").exists()
    # wf:actionData of both counters became report.py's arguments; wf:id() its env-var
    report = (out / "report" / "report.txt").read_text()
    assert report == f"workflow: {wf}\ninput: input.txt\nlines: 5\nwords: 52\n"
    # the human view, in an 80-column terminal: one line per node, nothing cut short
    text = bt.cli("info", wf, columns=80).stdout
    assert "Status      : SUCCEEDED" in text
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("Node "))
    rows = {line.split()[0]: line.split() for line in lines[header + 1 :]}
    assert len(rows) == 12
    assert rows["end"][:3] == ["end", ":END:", "SUCCEEDED"]
    assert rows["has-rows"][:3] == ["has-rows", "switch", "SUCCEEDED"]
    assert rows["count-words"][5] == "join-counts"
    assert rows["fail"][:3] == ["fail", ":KILL:", "SKIPPED"]


@pytest.mark.parametrize("value", ["<value></value>", "<value/>", ""])
def test_an_empty_value_in_a_configuration_file_sets_nothing(
    bt: Bt, tmp_path: Path, value: str
) -> None:
    """QA (ac), high: ``<value></value>`` counted as outputDir="": the required parameter
    passed, and the sample's prepare node deleted and made /report. Hadoop's Configuration
    (and Oozie's XConfiguration) set a property only when its <value> has content."""
    conf = tmp_path / "conf.xml"
    conf.write_text(
        "<configuration><property><name>oozie.wf.application.path</name>"
        f"<value>{CONFIG.parent}</value></property>"
        f"<property><name>outputDir</name>{value}</property></configuration>"
    )
    bt.cli("submit", str(CHAIN), "-D", f"dir={tmp_path}")  # a store to keep unchanged
    before = (bt.home / "bundletui.db").read_bytes()
    for argv in (("submit", str(conf), "--start"), ("oozie", "job", "-config", str(conf), "-run")):
        refused = bt.cli(*argv, check=False)
        assert refused.code in (1, 255), refused
        assert "E0738" in refused.stderr and "outputDir" in refused.stderr, refused.stderr
    assert (bt.home / "bundletui.db").read_bytes() == before
    assert (
        bt.cli(
            "validate", str(CONFIG.parent / "workflow.xml"), "--config", str(conf), check=False
        ).code
        == 1
    )


def test_decision_default_reaches_kill_node_with_message(bt: Bt, tmp_path: Path) -> None:
    bt.engine()
    wf = bt.submit(CONFIG, {"outputDir": str(tmp_path), "inputName": "empty.txt"})
    bt.wait(wf)
    info = bt.info(wf)
    assert info["status"] == "KILLED"
    assert info["errorMessage"] == "Input empty.txt has no rows; nothing to report"
    a = actions(info)
    assert a["has-rows"]["transition"] == "empty-input"
    assert a["empty-input"]["nodeStatus"] == "SUCCEEDED"  # the kill node was reached
    for name in ("prepare", "count-words", "count-lines", "report", "mark-done"):
        assert a[name]["nodeStatus"] == "SKIPPED", name
        assert a[name]["startTime"] is None
    assert not (tmp_path / "report").exists()
    # Oozie's own view lists only the nodes the run entered (OozieCLI's -info, the REST info):
    # the path not taken is not there, rather than shown as OK
    text = bt.cli("oozie", "job", "-info", wf).stdout
    lines = text.splitlines()
    header = f"{'ID':<78}{'Status':<10}{'Ext ID':<23}{'Ext Status':<11}{'Err Code':<10}"
    assert lines[lines.index("Actions") + 2] == header
    # Oozie's first row is the start node's (QA (n)): OK, no external id, as its CLI prints it
    start = lines[lines.index("Actions") + 4]
    assert start == f"{f'{wf}@:start:':<78}{'OK':<10}{'-':<23}{'OK':<11}{'-':<10}", text
    row = lines[lines.index("Actions") + 6].split()
    assert (row[0], row[1], row[3:]) == (f"{wf}@check", "OK", ["SUCCEEDED", "-"])  # 2: its pid
    listed = [line.split()[0].split("@")[1] for line in text.splitlines() if f"{wf}@" in line]
    assert listed == [":start:", "check", "has-rows", "empty-input"], text
    one = bt.cli("oozie", "job", "-info", f"{wf}@:start:").stdout  # and it can be looked up
    assert f"ID : {wf}@:start:" in one and "Status            : OK" in one, one
    assert "SKIPPED" not in text and "prepare" not in text


def test_a_killed_oozie_workflow_lists_the_nodes_its_run_entered(bt: Bt, tmp_path: Path) -> None:
    """Killed while report waits out its retry: Oozie's view lists the nodes the run reached,
    not those the kill ended before (they are KILLED in our own view)."""
    bt.engine()
    wf = bt.submit(CONFIG, {"outputDir": str(tmp_path), "reportFailures": "1"})
    deadline = time.monotonic() + 20
    while actions(bt.peek(wf))["report"]["status"] != "USER_RETRY":
        assert time.monotonic() < deadline, bt.peek(wf)
        time.sleep(0.05)
    bt.cli("kill", wf)
    info = bt.wait(wf, "KILLED")
    assert actions(info)["mark-done"]["nodeStatus"] == "KILLED"
    text = bt.cli("oozie", "job", "-info", wf).stdout
    listed = [line.split()[0].split("@")[1] for line in text.splitlines() if f"{wf}@" in line]
    assert set(listed) == {
        ":start:",
        "check",
        "has-rows",
        "prepare",
        "fork-counts",
        "count-words",
        "count-lines",
        "join-counts",
        "report",
    }, text


def test_action_error_goes_to_kill_node_naming_last_error_node(bt: Bt, tmp_path: Path) -> None:
    bt.engine()
    wf = bt.submit(CONFIG, {"outputDir": str(tmp_path), "inputName": "missing.txt"})
    info = bt.wait(wf)
    assert info["status"] == "KILLED"
    a = actions(info)
    assert a["check"]["status"] == "ERROR" and a["check"]["errorCode"] == "1"
    assert a["check"]["externalStatus"] == "FAILED/KILLED"  # a launcher's failure, in Oozie
    assert a["check"]["transition"] == "fail"
    assert info["errorMessage"].startswith("Word count failed at [check]: ")
    # the shell action's error message in Oozie's words (oozie.md §5.5), as the kill node saw it
    assert a["check"]["errorMessage"] == (
        "Main Class [org.apache.oozie.action.hadoop.ShellMain], exit code [1]"
    )
    assert info["errorMessage"].endswith(a["check"]["errorMessage"])


def test_report_retry_succeeds_on_second_attempt(bt: Bt, tmp_path: Path) -> None:
    """retry-max=2, retry-interval=1 (minute): run on a simulated clock so it takes no minute."""
    bt.engine("--clock", "simulated", "--start-time", "2026-01-01T00:00Z")
    wf = bt.submit(CONFIG, {"outputDir": str(tmp_path), "reportFailures": "1"})
    info = bt.wait(wf)
    assert info["status"] == "SUCCEEDED", info
    report = actions(info)["report"]
    assert report["attempt"] == 2 and report["retries"] == 1
    assert (report["errorCode"], report["errorMessage"]) == (None, None)  # not attempt 1's
    assert (tmp_path / "report" / ".attempts").read_text() == "2"
    assert (tmp_path / "report" / "_SUCCESS").exists()


FORK = FIXTURES / "oozie-fork" / "job.properties"


def test_rerun_failed_nodes_of_an_oozie_workflow(bt: Bt, tmp_path: Path) -> None:
    """left fails -> kill node; rerun --failed-nodes runs left again (not right), then on."""
    flag = tmp_path / "fail-now"
    flag.touch()
    bt.engine()
    wf = bt.submit(FORK, {"dir": str(tmp_path), "failFlag": str(flag)})
    info = bt.wait(wf)
    assert info["status"] == "KILLED"
    assert info["errorMessage"] == "failed at [left] with code 3"
    # right runs beside left: it either finished first (kept by --failed-nodes) or was killed
    # with the workflow at the kill node (then it runs again) — which one depends on timing.
    right_ok = actions(info)["right"]["nodeStatus"] == "SUCCEEDED"
    right_runs = Counter(trace_lines(tmp_path / "trace"))["right"]
    flag.unlink()
    bt.cli("rerun", wf, "--failed-nodes")
    info = bt.wait(wf)
    assert info["status"] == "SUCCEEDED", bt.nodes(wf)
    assert info["run"] == 1 and info["errorMessage"] is None
    expected_right = right_runs + (0 if right_ok else 1)
    assert Counter(trace_lines(tmp_path / "trace")) == {
        "left": 2,
        "right": expected_right,
        "after": 1,
    }

    after = actions(info)["after"]
    assert after["data"] == "run=1\n"  # wf:run() is the run number
    assert actions(info)["boom"]["nodeStatus"] == "SKIPPED"


CLEANUP = FIXTURES / "oozie-cleanup" / "job.properties"


def test_a_rerun_runs_the_failed_node_again_though_a_kept_node_went_to_end(
    bt: Bt, tmp_path: Path
) -> None:
    """QA: a fails to cleanup, cleanup goes ok to end: the workflow SUCCEEDED. A rerun of the
    failed nodes kept cleanup with its old transition to end, which ended the rerun at once
    (SUCCEEDED, a SKIPPED, never run again). Oozie walks from start: a runs, then b."""
    flag = tmp_path / "fail-now"
    flag.touch()
    bt.engine()
    wf = bt.submit(CLEANUP, {"dir": str(tmp_path), "failFlag": str(flag)})
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert trace_lines(tmp_path / "trace") == ["a", "cleanup"]
    flag.unlink()
    bt.cli("rerun", wf, "--failed-nodes")
    info = bt.wait(wf)
    assert info["status"] == "SUCCEEDED" and info["run"] == 1
    assert trace_lines(tmp_path / "trace") == ["a", "cleanup", "a", "b"]
    assert actions(info)["a"]["nodeStatus"] == "SUCCEEDED"


def test_suspend_and_resume_across_a_fork(bt: Bt, tmp_path: Path) -> None:
    bt.cli("submit", str(FORK), "-D", f"dir={tmp_path}", "-D", "failFlag=/nonexistent")
    wf = bt.jobs()["workflows"][0]["id"]
    assert bt.peek(wf)["status"] == "PREP"
    bt.cli("start", wf)
    bt.cli("suspend", wf)  # before any engine: nothing has run
    bt.engine()
    time.sleep(0.5)
    assert bt.peek(wf)["status"] == "SUSPENDED"
    assert not (tmp_path / "trace").exists()
    bt.cli("resume", wf)
    assert bt.wait(wf)["status"] == "SUCCEEDED", bt.nodes(wf)
    assert sorted(trace_lines(tmp_path / "trace")) == ["after", "left", "right"]


def test_suspend_on_nodes_holds_the_job_before_a_named_node(bt: Bt, tmp_path: Path) -> None:
    """``oozie.suspend.on.nodes=after``: the fork's branches run, then the job is SUSPENDED
    with ``after`` READY and not started; a resume launches it without holding it again."""
    bt.engine()
    wf = bt.submit(
        FORK,
        {"dir": str(tmp_path), "failFlag": "/nonexistent", "oozie.suspend.on.nodes": "x, after"},
    )
    bt.wait(wf, "SUSPENDED")
    bt.wait_node(wf, "after", "READY")
    time.sleep(0.3)  # a held node is not launched meanwhile
    assert bt.nodes(wf)["after"] == "READY"
    assert sorted(trace_lines(tmp_path / "trace")) == ["left", "right"]
    bt.cli("resume", wf)
    assert bt.wait(wf)["status"] == "SUCCEEDED", bt.nodes(wf)
    assert sorted(trace_lines(tmp_path / "trace")) == ["after", "left", "right"]


def test_suspend_on_every_node_holds_a_dag_before_its_roots_too(bt: Bt, tmp_path: Path) -> None:
    """``*`` holds the job before each node it reaches, a DAG's roots included (the engine's
    first pass readies them and suspends it); each resume lets the held nodes run, up to the
    next ones."""
    wf = bt.submit(CHAIN, {"dir": str(tmp_path), "oozie.suspend.on.nodes": "*"})
    bt.engine()
    bt.wait(wf, "SUSPENDED")
    assert bt.nodes(wf)["first"] == "READY" and trace_lines(tmp_path / "trace") == []
    for ran in (["first"], ["first", "second"], ["first", "second", "third"]):
        bt.cli("resume", wf)
        bt.wait(wf, "SUCCEEDED" if len(ran) == 3 else "SUSPENDED")
        assert trace_lines(tmp_path / "trace") == ran


def test_a_decision_case_that_cannot_be_evaluated_fails_there_and_skips_the_rest(
    bt: Bt, tmp_path: Path
) -> None:
    """QA: the workflow FAILED with the EL error, but the decision and every node after it
    stayed WAITING (PREP in Oozie's view), with the error on no node."""
    bt.engine()
    wf = bt.submit(
        FIXTURES / "oozie-bad-case" / "job.properties", {"dir": str(tmp_path), "n": "abc"}
    )
    info = bt.wait(wf)
    assert info["status"] == "FAILED"
    assert info["errorCode"] == "E1004"
    assert bt.nodes(wf) == {
        "a": "SUCCEEDED",
        "d": "FAILED",
        "b": "SKIPPED",
        "k": "SKIPPED",
        "end": "SKIPPED",
    }
    d = actions(info)["d"]
    # the workflow's text names the node, as a failed action's does; the node's is the error
    assert d["errorCode"] == "E1004" and info["errorMessage"] == f"node d: {d['errorMessage']}"
    assert d["status"] == "ERROR"
    # in Oozie's status words a node never started is not OK, which would say it ran (QA)
    assert {actions(info)[n]["status"] for n in ("b", "k", "end")} == {"PREP"}
    # Oozie's view lists the nodes the run entered: a, and the decision that failed
    text = bt.cli("oozie", "job", "-info", wf).stdout
    assert f"{wf}@d " in text and f"{wf}@b " not in text and f"{wf}@end " not in text


@pytest.mark.parametrize(("n", "taken"), [("true", "b"), ("1", "end"), ("True", "end")])
def test_a_decision_case_is_taken_only_when_it_renders_as_true(
    bt: Bt, tmp_path: Path, n: str, taken: str
) -> None:
    """QA (al): Oozie's DecisionActionExecutor compares the rendered, trimmed case with
    ``"true"``; ``True`` took the case here (Java's Boolean.valueOf) and ``1`` failed the
    workflow (E1004), where in Oozie both fall through to the default."""
    bt.engine()
    wf = bt.submit(
        FIXTURES / "oozie-number-case" / "job.properties", {"dir": str(tmp_path), "n": n}
    )
    info = bt.wait(wf)
    assert info["status"] == "SUCCEEDED", info
    assert bt.nodes(wf)["b"] == ("SUCCEEDED" if taken == "b" else "SKIPPED")
    assert actions(info)["d"]["transition"] == taken


def test_an_action_whose_expression_fails_fails_the_workflow(bt: Bt, tmp_path: Path) -> None:
    """QA (al): an EL error in an action's body took its ``<error>`` path, so a handler ran
    and the workflow could end SUCCEEDED; Oozie's ActionStartXCommand fails the job."""
    bt.engine()
    wf = bt.submit(
        FIXTURES / "oozie-el-action" / "job.properties", {"dir": str(tmp_path), "n": "abc"}
    )
    info = bt.wait(wf)
    assert (info["status"], info["errorCode"]) == ("FAILED", "E1004"), info
    assert "cannot coerce" in info["errorMessage"]
    assert bt.nodes(wf) == {"a": "FAILED", "handler": "SKIPPED", "end": "SKIPPED"}
    assert actions(info)["a"]["errorCode"] == "E1004"
    assert not (tmp_path / "handled").exists()
    good = bt.submit(
        FIXTURES / "oozie-el-action" / "job.properties", {"dir": str(tmp_path), "n": "1"}
    )
    assert bt.wait(good)["status"] == "SUCCEEDED" and (tmp_path / "a2").exists()


def test_a_fork_siblings_process_never_starts_when_the_workflow_fails_on_an_el_error(
    bt: Bt, tmp_path: Path
) -> None:
    """QA (an): the sibling launched in the same tick was recorded KILLED, and its process
    was started after the commit all the same, untracked and out of any kill's reach."""
    engine = bt.engine()
    wf = bt.submit(
        FIXTURES / "oozie-el-fork" / "job.properties", {"dir": str(tmp_path), "n": "abc"}
    )
    info = bt.wait(wf)
    assert (info["status"], info["errorCode"]) == ("FAILED", "E1004"), info
    assert bt.nodes(wf)["slow"] in ("KILLED", "SKIPPED")
    time.sleep(3)  # past slow's sleep: had it started, it would have touched its file
    assert not (tmp_path / "slow-ran").exists(), engine.log()


def test_action_external_status_is_what_info_shows(bt: Bt, tmp_path: Path) -> None:
    """QA (al): ``wf:actionExternalStatus`` gave the node's own status (``FAILED``) where
    ``oozie job -info`` shows ``FAILED/KILLED``, so a decision on Oozie's value never matched."""
    bt.engine()
    wf = bt.submit(FIXTURES / "oozie-external-status" / "job.properties", {"dir": str(tmp_path)})
    info = bt.wait(wf)
    assert info["status"] == "SUCCEEDED", info
    assert (actions(info)["a"]["externalStatus"], actions(info)["f"]["externalStatus"]) == (
        "OK",
        "FAILED/KILLED",
    )
    assert (tmp_path / "yes").exists() and not (tmp_path / "no").exists()


@pytest.mark.parametrize(
    ("marker", "error"),
    [("", "got an empty string"), ("README.md", "Path [README.md] cannot be relative")],
)
def test_fs_exists_of_a_relative_or_empty_path_fails_the_workflow(
    bt: Bt, tmp_path: Path, marker: str, error: str
) -> None:
    """Left alone earlier: ``fs:exists('')`` was true and ``fs:exists('a')`` read the engine's
    working directory (the repository's here, where README.md is)."""
    bt.engine()
    wf = bt.submit(
        FIXTURES / "oozie-fs-case" / "job.properties", {"dir": str(tmp_path), "marker": marker}
    )
    info = bt.wait(wf)
    assert (info["status"], info["errorCode"]) == ("FAILED", "E1004"), info
    assert error in info["errorMessage"]
    assert bt.nodes(wf)["d"] == "FAILED" and bt.nodes(wf)["b"] == "SKIPPED"


def test_fs_exists_of_an_absolute_path_decides(bt: Bt, tmp_path: Path) -> None:
    bt.engine()
    wf = bt.submit(
        FIXTURES / "oozie-fs-case" / "job.properties",
        {"dir": str(tmp_path), "marker": f"file://{tmp_path}/a"},  # made by node a
    )
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert bt.nodes(wf)["b"] == "SUCCEEDED" and (tmp_path / "b").exists()


UNPAIRED = FIXTURES / "oozie-unpaired-fork" / "job.properties"


def test_fork_join_validation_can_be_turned_off_per_job(bt: Bt, tmp_path: Path) -> None:
    """``oozie.wf.validate.ForkJoin=false`` (oozie.md §5.1) was read by nothing: a path that
    leaves its fork for ``end`` was refused whatever the job said."""
    refused = bt.cli("submit", str(UNPAIRED), "-D", f"dir={tmp_path}", check=False)
    assert refused.code == 1 and "E0737" in refused.stderr, refused
    assert not bt.home.exists()  # nothing stored
    bt.engine()
    wf = bt.submit(UNPAIRED, {"dir": str(tmp_path), "oozie.wf.validate.ForkJoin": "FALSE"})
    assert bt.wait(wf)["status"] == "SUCCEEDED"  # b reached end; the join never passes
    nodes = bt.nodes(wf)
    assert nodes["b"] == "SUCCEEDED" and nodes["j"] == "SKIPPED", nodes
    assert (tmp_path / "b").exists()


PREPARE = FIXTURES / "oozie-prepare" / "job.properties"


def test_shell_prepare_runs_before_the_program_with_the_global_configuration(
    bt: Bt, tmp_path: Path
) -> None:
    result = tmp_path / "result"
    result.mkdir()
    (result / "stale.txt").write_text("from an earlier run")  # <prepare> deletes it
    bt.engine()
    wf = bt.submit(PREPARE, {"out": str(tmp_path)})
    assert bt.wait(wf)["status"] == "SUCCEEDED", bt.nodes(wf)
    # the program started in the directory <prepare> emptied and made again
    assert (result / "listing").read_text() == ""
    assert not (result / "stale.txt").exists()
    # OOZIE_ACTION_CONF_XML: <global> merged in, the action's own value overriding it
    conf = (result / "conf.xml").read_text()
    assert f"<value>global-{wf}</value>" in conf
    assert "<value>from-action</value>" in conf and "from-global" not in conf


def test_a_failing_prepare_fails_the_action_before_the_program_runs(bt: Bt, tmp_path: Path) -> None:
    bt.engine()
    wf = bt.submit(PREPARE, {"out": "relative/dir"})  # prepare paths must be absolute
    info = bt.wait(wf)
    assert info["status"] == "KILLED"
    assert info["errorMessage"] == "failed at [build]: FS011"
    build = actions(info)["build"]
    assert build["status"] == "ERROR" and build["errorCode"] == "FS011"
    assert not Path("relative").exists()


def test_a_node_waiting_to_retry_when_a_decision_fails_the_workflow_is_killed(
    bt: Bt, tmp_path: Path
) -> None:
    """Left-alone item: a decision that cannot be evaluated SKIPPED a node waiting out its
    retry interval (it had run: its attempt failed), where ``kill`` KILLs such a node and ends
    it. Both kill it now: a node that ran is not "skipped"."""
    app = tmp_path / "app"
    app.mkdir()
    job = FIXTURES / "bin" / "job.py"
    (app / "workflow.xml").write_text(
        f"""<workflow-app xmlns="uri:oozie:workflow:1.0" name="retry-and-bad-case">
  <start to="f"/>
  <fork name="f"><path start="flaky"/><path start="wait"/></fork>
  <action name="flaky" retry-max="2" retry-interval="1">
    <shell xmlns="uri:oozie:shell-action:1.0"><exec>python3</exec>
      <argument>{job}</argument><argument>flaky</argument><argument>--exit=3</argument>
    </shell>
    <ok to="j"/><error to="k"/>
  </action>
  <action name="wait">
    <shell xmlns="uri:oozie:shell-action:1.0"><exec>python3</exec>
      <argument>{job}</argument><argument>wait</argument>
      <argument>--wait-for={tmp_path / "go"}</argument>
    </shell>
    <ok to="d"/><error to="k"/>
  </action>
  <decision name="d"><switch><case to="j">${{n gt 5}}</case><default to="j"/></switch></decision>
  <join name="j" to="end"/>
  <kill name="k"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>
"""
    )
    (app / "job.properties").write_text("oozie.wf.application.path=workflow.xml\nn=abc\n")
    bt.engine()
    wf = bt.submit(app / "job.properties")
    bt.wait_node(wf, "flaky", "READY")  # its first attempt failed; the next is a minute away
    (tmp_path / "go").touch()
    assert bt.wait(wf)["status"] == "FAILED"
    assert bt.nodes(wf)["d"] == "FAILED"
    flaky = bt.peek(f"{wf}@flaky")
    assert flaky["nodeStatus"] == "KILLED" and flaky["endTime"] is not None, flaky
    assert bt.nodes(wf)["end"] == "SKIPPED"  # never reached
