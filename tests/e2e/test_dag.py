"""DAG form (Hadoop JobControl semantics), end to end through the console script and a real engine."""

from __future__ import annotations

import itertools
import resource
import subprocess
from datetime import timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest

from tests.e2e.conftest import (
    BUNDLETUI,
    FIXTURES,
    SAMPLES,
    Bt,
    pid_alive,
    stamps,
    trace_lines,
    wait_for,
)

# Oozie's workflow-job JSON keys (oozie.md §7.2) and action keys.
WF_KEYS = {
    "appPath", "appName", "id", "externalId", "parentId", "conf", "status", "lastModTime",
    "createdTime", "startTime", "endTime", "user", "group", "acl", "run", "consoleUrl",
    "actions", "toString",
}  # fmt: skip
ACTION_KEYS = {
    "id", "name", "cred", "type", "conf", "status", "retries", "startTime", "endTime",
    "transition", "data", "stats", "externalChildIDs", "externalId", "externalStatus",
    "trackerUri", "consoleUrl", "errorCode", "errorMessage", "toString", "userRetryInterval",
    "userRetryCount", "userRetryMax",
}  # fmt: skip


def test_naive_bayes_sample_trains_and_predicts(bt: Bt, tmp_path: Path) -> None:
    out = tmp_path / "nb"
    out.mkdir()
    bt.engine()
    wf = bt.submit(SAMPLES / "naive-bayes" / "job.properties", {"outputDir": str(out)})
    bt.wait(wf)
    info = bt.info(wf)
    assert info["status"] == "SUCCEEDED", info
    assert info.keys() >= WF_KEYS
    assert info["toString"] == f"Workflow id[{wf}] status[SUCCEEDED]"
    assert info["appName"] == "naive-bayes" and info["run"] == 0
    assert {a["name"] for a in info["actions"]} == {
        "extract",
        "class-prior",
        "cond-prob",
        "predict",
    }
    for action in info["actions"]:
        assert action.keys() >= ACTION_KEYS
        assert action["status"] == "OK" and action["type"] == "shell"
    predict = next(a for a in info["actions"] if a["name"] == "predict")
    assert "accuracy=0.8571" in predict["data"]  # capture-output, as wf:actionData sees it
    lines = (out / "predictions.tsv").read_text().splitlines()
    assert len(lines) >= 14
    for name in ("features.tsv", "priors.tsv", "cond_prob.tsv"):
        assert (out / name).stat().st_size > 0


def test_independent_jobs_run_in_parallel(bt: Bt, tmp_path: Path) -> None:
    """left and right each wait for the other's start marker: both succeed only if concurrent."""
    bt.engine()
    wf = bt.submit(FIXTURES / "pair" / "job.properties", {"dir": str(tmp_path)})
    done = bt.wait(wf)
    assert done["status"] == "SUCCEEDED", bt.nodes(wf)
    s = stamps(tmp_path / "stamps")
    (l0, l1), (r0, r1), (a0, _) = s["left"], s["right"], s["after"]
    assert max(l0, r0) < min(l1, r1), "left and right did not overlap"
    assert a0 >= max(l1, r1), "after started before both its dependencies ended"


def test_a_program_that_resolves_to_nothing_fails_its_node_alone(bt: Bt, tmp_path: Path) -> None:
    """``<exec>${prog}</exec>`` with prog empty cannot be started: that node FAILS with one
    error that says why, and the job launched in the same batch runs (it used to stay RUNNING,
    pid-less, with the whole batch; then it failed with two codes, EB0503 and the spawn's
    EB0501, and the spawn's wording)."""
    bt.engine()
    wf = bt.submit(FIXTURES / "blankexec" / "job.properties", {"dir": str(tmp_path), "prog": ""})
    done = bt.wait(wf)
    assert done["status"] == "FAILED"
    assert bt.nodes(wf) == {"bad": "FAILED", "good": "SUCCEEDED"}
    bad = bt.peek(f"{wf}@bad")
    assert bad["errorCode"] == "EB0501"
    assert bad["errorMessage"] == (
        "Cannot start shell action [bad]: its <exec> [${prog}] is empty once its expressions"
        " are resolved"
    )
    assert "good" in stamps(tmp_path / "stamps")


def test_a_workflow_that_starts_itself_stops_at_depth_50(bt: Bt) -> None:
    """Without a limit it made thousands of workflows and ``kill`` overflowed Python's stack."""
    bt.engine()
    wf = bt.submit(FIXTURES / "recursive" / "job.properties")
    assert bt.wait(wf, timeout=60)["status"] == "FAILED"
    rows = bt.store.conn.execute("SELECT id FROM wf_jobs ORDER BY id").fetchall()
    assert len(rows) == 51  # the top one and 50 below it
    deepest = rows[-1][0]
    node = bt.peek(f"{deepest}@again")
    assert node["errorCode"] == "EB0506" and "depth cannot exceed 50" in node["errorMessage"]


def max_overlap(spans: list[tuple[float, float]]) -> int:
    events = sorted(itertools.chain(((s, 1) for s, _ in spans), ((e, -1) for _, e in spans)))
    level = best = 0
    for _, delta in events:
        level += delta
        best = max(best, level)
    return best


def test_max_parallel_is_honoured(bt: Bt, tmp_path: Path) -> None:
    """Two fans of five jobs side by side: one at most 1 at a time, one at most 2."""
    bt.engine()
    runs = {}
    for limit in (1, 2):
        d = tmp_path / f"limit-{limit}"
        d.mkdir()
        config = FIXTURES / "fan" / "job.properties"
        # long enough with 2 that both surely overlap, even on a loaded machine
        sleep = "0.2" if limit == 1 else "0.6"
        runs[limit] = (
            bt.submit(config, {"dir": str(d), "maxParallel": str(limit), "sleep": sleep}),
            d,
        )
    for limit, (wf, d) in runs.items():
        assert bt.wait(wf, timeout=30)["status"] == "SUCCEEDED"
        spans = list(stamps(d / "stamps").values())
        assert len(spans) == 5
        # A job's own start/end stamps lie inside its RUNNING span: overlaps can only be fewer.
        assert max_overlap(spans) == limit, limit


def test_engine_max_workers_limits_jobs_across_workflows(bt: Bt, tmp_path: Path) -> None:
    bt.engine("--max-workers", "3")
    runs = []
    for name in ("a", "b"):
        d = tmp_path / name
        d.mkdir()
        config = FIXTURES / "fan" / "job.properties"
        runs.append((bt.submit(config, {"dir": str(d), "maxParallel": "0", "sleep": "1.0"}), d))
    spans = []
    for wf, d in runs:
        assert bt.wait(wf, timeout=30)["status"] == "SUCCEEDED"
        spans += list(stamps(d / "stamps").values())
    assert len(spans) == 10
    # never more than 3 (the limit), and more than one at once: jobs of both workflows ran in
    # parallel. Exactly 3 is not asserted: on a loaded machine the third spawn can come after
    # the first job has ended (a CI flake)
    assert 2 <= max_overlap(spans) <= 3, spans


def test_failure_makes_dependents_dependent_failed_and_other_branch_goes_on(
    bt: Bt, tmp_path: Path
) -> None:
    flag = tmp_path / "fail-now"
    flag.touch()
    bt.engine()
    wf = bt.submit(
        FIXTURES / "branches" / "job.properties", {"dir": str(tmp_path), "failFlag": str(flag)}
    )
    info = bt.wait(wf)
    assert info["status"] == "FAILED"
    nodes = {a["name"]: a for a in info["actions"]}
    assert {n: a["nodeStatus"] for n, a in nodes.items()} == {
        "root": "SUCCEEDED",
        "bad": "FAILED",
        "bad-child": "DEPENDENT_FAILED",
        "bad-grandchild": "DEPENDENT_FAILED",
        "good": "SUCCEEDED",
        "good-child": "SUCCEEDED",
        "join": "DEPENDENT_FAILED",
    }
    # each says which dependency did not succeed (QA (p): the console could not tell)
    assert nodes["bad-child"]["errorMessage"] == "dependency [bad] did not succeed"
    assert nodes["bad-grandchild"]["errorMessage"] == "dependency [bad-child] did not succeed"
    assert nodes["bad"]["status"] == "ERROR" and nodes["bad"]["errorCode"] == "3"
    assert nodes["bad"]["exitCode"] == 3
    assert info["errorCode"] == "3" and "bad" in info["errorMessage"]
    # good and good-child really ran (0.3 s each, after bad had failed); nothing else did.
    assert sorted(trace_lines(tmp_path / "trace")) == ["bad", "good", "good-child", "root"]


def test_retry_max_with_simulated_clock(bt: Bt, tmp_path: Path) -> None:
    """retry-interval is in minutes (Oozie); a simulated engine jumps to the retry's due time.

    Two workflows: one whose job fails twice and succeeds on its last retry, one whose job
    fails more often than retry-max allows.
    """
    bt.engine("--clock", "simulated", "--start-time", "2026-01-01T00:00Z")
    config = FIXTURES / "retry" / "job.properties"
    ok_dir, bad_dir = tmp_path / "ok", tmp_path / "bad"
    ok_dir.mkdir()
    bad_dir.mkdir()
    ok = bt.submit(config, {"dir": str(ok_dir), "failTimes": "2"})
    bad = bt.submit(config, {"dir": str(bad_dir), "failTimes": "9"})

    info = bt.wait(ok, timeout=20)
    assert info["status"] == "SUCCEEDED"
    flaky = next(a for a in info["actions"] if a["name"] == "flaky")
    assert flaky["attempt"] == 3 and flaky["retries"] == 2 and flaky["status"] == "OK"
    assert trace_lines(ok_dir / "trace") == ["flaky", "flaky", "flaky", "after-flaky"]
    # two retries, each one (simulated) minute after the failure before it
    started = parsedate_to_datetime(flaky["startTime"])
    assert started - parsedate_to_datetime(info["createdTime"]) >= timedelta(minutes=2)
    assert (ok_dir / "attempts").read_text() == "3"

    info = bt.wait(bad, timeout=20)
    assert info["status"] == "FAILED"
    assert bt.nodes(bad) == {"flaky": "FAILED", "after-flaky": "DEPENDENT_FAILED"}
    assert trace_lines(bad_dir / "trace") == ["flaky"] * 3  # 1 + retry-max 2
    flaky = info["actions"][0]
    assert flaky["errorCode"] == "75" and flaky["attempt"] == 3


def test_bad_dags_are_refused_at_submit_and_nothing_is_stored(bt: Bt) -> None:
    config = FIXTURES / "invalid" / "job.properties"
    bt.submit(FIXTURES / "pair" / "job.properties", {"dir": "/nowhere"}, start=False)
    for name, code, words in [
        ("cycle", "E0707", "a->c->b->a"),
        ("unknown-dep", "E0708", "[ghost]"),
        ("duplicate", "E0705", "node [a]"),
    ]:
        app = f"oozie.wf.application.path={name}.xml"
        r = bt.cli("submit", str(config), "-D", app, "--start", check=False)
        assert r.code == 1, (name, r)
        assert r.stdout == ""
        errors = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
        assert len(errors) == 1, r.stderr
        assert errors[0].startswith(f"Error: {code}: ") and words in errors[0], errors
        assert "Traceback" not in r.stderr
    assert bt.jobs()["total"] == 1  # only the valid job: nothing else was stored


PARENT = FIXTURES / "parent" / "job.properties"


def test_sub_workflow_runs_as_a_child_job(bt: Bt, tmp_path: Path) -> None:
    bt.engine()
    wf = bt.submit(PARENT, {"dir": str(tmp_path)})
    info = bt.wait(wf)
    assert info["status"] == "SUCCEEDED", bt.nodes(wf)
    assert trace_lines(tmp_path / "trace") == ["prep", "first", "second", "third", "post"]
    child_id = next(a for a in info["actions"] if a["name"] == "child")["externalId"]
    child = bt.peek(child_id)
    assert child["status"] == "SUCCEEDED" and child["parentId"] == wf
    assert child["appName"] == "chain"


def test_log_of_a_sub_workflow_node_prints_the_child_workflows_logs(bt: Bt, tmp_path: Path) -> None:
    """Left alone earlier: ``log W@child`` printed nothing (the node has no files of its own).
    Its sections are the child's nodes', headed ``child → first`` (whose they are), on every
    face and in the whole workflow's log too."""
    bt.engine()
    wf = bt.submit(PARENT, {"dir": str(tmp_path)})
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    child_id = bt.peek(f"{wf}@child")["externalId"]
    r = bt.cli("log", f"{wf}@child")
    child_log = bt.cli("log", child_id).stdout
    assert r.stdout == child_log.replace("── ", "── child → ")
    assert [line for line in r.stdout.splitlines() if line.startswith("──")] == [
        f"── child → {name} (SUCCEEDED, attempt 1)" for name in ("first", "second", "third")
    ]
    assert r.stderr == f"{wf}@child is sub-workflow {child_id}: its jobs' logs\n"
    # the whole workflow's log: the child's nodes in the node's place
    whole = bt.cli("log", wf)
    assert [line for line in whole.stdout.splitlines() if line.startswith("──")] == [
        "── prep (SUCCEEDED, attempt 1)",
        *(f"── child → {name} (SUCCEEDED, attempt 1)" for name in ("first", "second", "third")),
        "── post (SUCCEEDED, attempt 1)",
    ]
    assert whole.stderr == r.stderr
    assert bt.cli("oozie", "job", "-log", f"{wf}@child").stdout == r.stdout
    assert bt.cli("oozie", "job", "-log", wf).stdout == whole.stdout
    refused = bt.cli("log", f"{wf}@child", "--run", "0", check=False)
    assert refused.code == 1 and f"bundletui log {child_id} --run N" in refused.stderr


def test_log_of_a_workflow_whose_only_started_node_is_a_sub_workflow_names_the_child(
    bt: Bt, tmp_path: Path
) -> None:
    """QA (r): ``log W`` printed nothing while the sub-workflow node was the only one that had
    run (one node: no heading, and the node has no files of its own). It prints the child's
    nodes that ran (one: its bytes alone) and says whose they are."""
    gate = tmp_path / "gate"
    gate.mkdir()
    bt.engine()
    wf = bt.submit(
        FIXTURES / "sub-first" / "job.properties", {"dir": str(tmp_path), "gate": str(gate)}
    )
    wait_for(lambda: bt.peek(f"{wf}@child")["externalId"], 10, "the child started")
    child_id = bt.peek(f"{wf}@child")["externalId"]
    r = bt.cli("log", wf)
    assert r.stderr == f"{wf}@child is sub-workflow {child_id}: its jobs' logs\n", r
    assert not any(line.startswith("──") for line in r.stdout.splitlines()), r
    for name in ("first", "second", "third"):
        (gate / name).touch()
    assert bt.wait(wf)["status"] == "SUCCEEDED"


def test_kill_of_the_parent_kills_the_running_sub_workflow(bt: Bt, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    gate.mkdir()
    bt.engine()
    wf = bt.submit(PARENT, {"dir": str(tmp_path), "gate": str(gate)})
    wait_for(lambda: trace_lines(tmp_path / "trace") == ["prep", "first"], 10, "child's first")
    child_id = bt.peek(f"{wf}@child")["externalId"]
    job_pid = int(bt.peek(f"{child_id}@first")["externalId"])
    # the node's own view names the child workflow, and the child's node its pid (QA)
    assert f"  External Id : {child_id}" in bt.cli("info", f"{wf}@child").stdout
    assert f"  External Id : {job_pid}" in bt.cli("info", f"{child_id}@first").stdout
    bt.cli("kill", wf)
    assert bt.wait(child_id, "KILLED")["status"] == "KILLED"
    assert bt.wait(wf)["status"] == "KILLED"
    wait_for(lambda: not pid_alive(job_pid), 5, "the child's job killed")
    assert set(bt.nodes(child_id).values()) == {"KILLED"}
    assert set(bt.nodes(wf).values()) == {"SUCCEEDED", "KILLED"}
    assert bt.nodes(wf)["child"] == "KILLED"


def test_a_relative_sub_workflow_path_is_next_to_its_parent(bt: Bt, tmp_path: Path) -> None:
    """``<app-path>child</app-path>`` names the parent's neighbour, not a path under the
    directory the engine was started in."""
    app = tmp_path / "app"
    (app / "child").mkdir(parents=True)
    (app / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="parent">\n'
        '  <job name="child"><sub-workflow><app-path>child</app-path>'
        "<propagate-configuration/></sub-workflow></job>\n"
        "</dag-app>\n"
    )
    (app / "child" / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="child">\n'
        '  <job name="touch"><fs><touchz path="${out}"/></fs></job>\n'
        "</dag-app>\n"
    )
    (app / "job.properties").write_text("oozie.wf.application.path=workflow.xml\n")
    out = tmp_path / "touched"
    bt.engine()
    wf = bt.submit(app / "job.properties", {"out": str(out)})
    info = bt.wait(wf)
    assert info["status"] == "SUCCEEDED", bt.nodes(wf)
    assert out.exists()
    child = bt.peek(f"{wf}@child")["externalId"]
    assert bt.peek(child)["appPath"] == str(app / "child" / "workflow.xml")


@pytest.mark.parametrize(
    ("child", "code", "line"),
    [
        (
            '<dag-app xmlns="uri:bundletui:dag:1.0" name="child">\n  <job name="a">\n</dag-app>\n',
            "E0701",
            3,
        ),
        (
            '<dag-app xmlns="uri:bundletui:dag:1.0" name="child">\n'
            '  <job name="a"><fs><touchz path="${nosuch:fn()}"/></fs></job>\n</dag-app>\n',
            "E1004",
            2,
        ),
    ],
)
def test_a_child_workflow_that_cannot_be_loaded_fails_its_node_naming_file_and_line(
    bt: Bt, tmp_path: Path, child: str, code: str, line: int
) -> None:
    """Left-alone item: the sub-workflow node's error had the child's message without where
    in the child's definition it is; it names the file and line now, as ``validate`` does."""
    app = tmp_path / "app"
    (app / "child").mkdir(parents=True)
    (app / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="parent">\n'
        '  <job name="child"><sub-workflow><app-path>child</app-path></sub-workflow></job>\n'
        "</dag-app>\n"
    )
    (app / "child" / "workflow.xml").write_text(child)
    (app / "job.properties").write_text("oozie.wf.application.path=workflow.xml\n")
    bt.engine()
    wf = bt.submit(app / "job.properties")
    assert bt.wait(wf)["status"] == "FAILED"
    node = bt.peek(f"{wf}@child")
    assert node["errorCode"] == code, node
    message = node["errorMessage"]
    assert str(app / "child" / "workflow.xml") in message, message
    assert f":{line}: " in message or f"(line {line}," in message, message


def test_a_retry_attempt_does_not_show_the_error_of_the_one_before(bt: Bt, tmp_path: Path) -> None:
    """QA (ae): while attempt 2 ran, info showed it RUNNING beside attempt 1's error; Oozie's
    ActionStart clears it when an attempt starts."""
    app = tmp_path / "app"
    app.mkdir()
    script = (
        'if [ -e "$1/failed-once" ]; then while [ ! -e "$1/go" ]; do sleep 0.02; done; exit 0;'
        ' else touch "$1/failed-once"; exit 3; fi'
    )
    (app / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="retry-error">'
        '<job name="flaky" retry-max="1" retry-interval="0"><shell><exec>sh</exec>'
        f"<argument>-c</argument><argument>{script}</argument><argument>sh</argument>"
        f"<argument>{tmp_path}</argument></shell></job></dag-app>"
    )
    (app / "job.properties").write_text("oozie.wf.application.path=.\n")
    bt.engine()
    wf = bt.submit(app / "job.properties")
    wait_for(lambda: bt.peek(f"{wf}@flaky")["attempt"] == 2, 20, "the second attempt")
    node = bt.peek(f"{wf}@flaky")
    assert node["nodeStatus"] == "RUNNING", node
    assert (node["errorCode"], node["errorMessage"]) == (None, None), node
    (tmp_path / "go").touch()
    assert bt.wait(wf)["status"] == "SUCCEEDED"


def _peak_rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(ln for ln in status.splitlines() if ln.startswith("VmHWM:")).split()[1])


def test_a_huge_capture_output_fails_without_being_read(bt: Bt, tmp_path: Path) -> None:
    """QA (am): the engine read a job's whole stdout to find it over the 2 KB limit of
    capture-output (oozie.action.max.output.data): 300 MB of output, 290 MB more RSS and the
    loop blocked meanwhile. It reads the limit and one byte."""
    (tmp_path / "wf.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="o"><job name="big"><shell>'
        "<exec>head</exec><argument>-c</argument><argument>120000000</argument>"
        "<argument>/dev/zero</argument><capture-output/></shell></job></dag-app>"
    )
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path={tmp_path / 'wf.xml'}\n")
    engine = bt.engine()
    engine.wait_active()
    before = _peak_rss_kb(engine.pid)
    wf = bt.submit(props)
    assert bt.wait(wf)["status"] == "FAILED"
    node = bt.peek(f"{wf}@big")
    assert node["errorCode"] == "EB0504"
    assert "capture-output is 120000000 bytes, more than the 2048 allowed" in node["errorMessage"]
    assert _peak_rss_kb(engine.pid) - before < 60_000  # kB; reading it whole was 117,000 more


def test_more_jobs_than_the_fd_limit_run_to_their_end(bt: Bt, tmp_path: Path) -> None:
    """QA (am): one pidfd per running job; past the open-file limit (a hard 1024 is common)
    every other open in the engine failed and it died with a traceback, again at each restart
    while the jobs ran. Pidfds stop short of the limit and the rest are polled; where the hard
    limit allows, the soft one is raised to it."""
    jobs = "".join(
        f'<job name="j{i:03d}"><shell><exec>sleep</exec><argument>1</argument></shell></job>'
        for i in range(150)
    )
    (tmp_path / "wf.xml").write_text(
        f'<dag-app xmlns="uri:bundletui:dag:1.0" name="p">{jobs}</dag-app>'
    )
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path={tmp_path / 'wf.xml'}\n")
    wf = bt.submit(props)

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    run = subprocess.run(
        [BUNDLETUI, "run", "--home", str(bt.home), "--max-workers", "150", "--exit-when-idle"],
        env=bt.env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=low_limit,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert set(bt.nodes(wf).values()) == {"SUCCEEDED"}
