"""User commands on workflows, through the console script, with and without a running engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from bundletui._procfs import proc_stat
from bundletui.commands.workflows import attempt_paths
from bundletui.engine.processes import ExitStatus, read_exit
from bundletui.engine.wf_signals import KILL_GRACE
from tests.e2e.conftest import (
    BUNDLETUI,
    FIXTURES,
    Bt,
    EngineProc,
    pid_alive,
    trace_lines,
    wait_for,
)

CHAIN = FIXTURES / "chain" / "job.properties"
BRANCHES = FIXTURES / "branches" / "job.properties"


def release(gate: Path, *names: str) -> None:
    """Let the named jobs (waiting with ``--gate``) go on."""
    gate.mkdir(exist_ok=True)
    for name in names:
        (gate / name).touch()


def stopped(pid: int) -> bool:
    st = proc_stat(pid)
    return st is not None and st.state == "T"


def job_pids(path: Path) -> dict[str, tuple[int, int]]:
    """``job.py --pid-file`` -> name -> (job pid, grandchild pid)."""
    out = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        name, pid, child = line.split()
        out[name] = (int(pid), int(child))
    return out


def test_suspend_drains_then_resume_continues(bt: Bt, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    gate.mkdir()
    bt.engine()
    wf = bt.submit(CHAIN, {"dir": str(tmp_path), "gate": str(gate)})
    bt.wait_node(wf, "first", "RUNNING")
    bt.cli("suspend", wf)
    assert bt.peek(wf)["status"] == "SUSPENDED"
    release(gate, "first", "second", "third")
    # the running node finishes; nothing new starts
    bt.wait_node(wf, "first", "SUCCEEDED", timeout=10)
    time.sleep(0.5)
    assert bt.nodes(wf)["second"] in ("WAITING", "READY")
    assert trace_lines(tmp_path / "trace") == ["first"]
    assert bt.info(wf)["status"] == "SUSPENDED"
    bt.cli("resume", wf)
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert trace_lines(tmp_path / "trace") == ["first", "second", "third"]


def test_resume_starts_nodes_that_were_ready_when_suspended(bt: Bt, tmp_path: Path) -> None:
    """With max-parallel 1, four jobs wait READY for a slot; suspend, then resume: they run."""
    gate = tmp_path / "gate"
    gate.mkdir()
    bt.engine()
    wf = bt.submit(
        FIXTURES / "fan" / "job.properties",
        {"dir": str(tmp_path), "maxParallel": "1", "gate": str(gate)},
    )
    wait_for(lambda: "RUNNING" in bt.nodes(wf).values(), 10, "a job running")
    bt.cli("suspend", wf)
    release(gate, *(f"j{i}" for i in range(1, 6)))
    wait_for(lambda: "RUNNING" not in bt.nodes(wf).values(), 10, "the running job finished")
    drained = bt.nodes(wf)
    assert sorted(drained.values()) == ["READY"] * 4 + ["SUCCEEDED"]
    time.sleep(0.4)
    assert bt.nodes(wf) == drained  # nothing new started while suspended
    bt.cli("resume", wf)
    assert bt.wait(wf, timeout=15)["status"] == "SUCCEEDED"
    assert len((tmp_path / "stamps").read_text().splitlines()) == 10  # 5 jobs x start/end


def test_suspend_freeze_stops_the_process_and_resume_continues_it(bt: Bt, tmp_path: Path) -> None:
    ticks = tmp_path / "ticks"

    def count() -> int:
        return int(ticks.read_text())

    bt.engine()
    wf = bt.submit(FIXTURES / "ticker" / "job.properties", {"dir": str(tmp_path)})
    wait_for(lambda: ticks.exists() and count() >= 5, 10, "ticks")
    bt.cli("suspend", wf, "--freeze")
    pid = int(bt.peek(f"{wf}@tick")["externalId"])
    wait_for(lambda: stopped(pid), 2, "SIGSTOP")
    time.sleep(0.1)  # the job (not only its wrapper) has stopped too
    before = count()
    time.sleep(0.4)  # 20 ticks' worth
    assert count() == before, "a frozen job made progress"
    assert bt.nodes(wf)["tick"] == "RUNNING"
    assert "SUSPENDED (frozen: its running jobs are stopped" in bt.cli("info", wf).stdout
    assert bt.peek(wf)["suspendMode"] == "freeze"  # the console's why reads it
    bt.cli("resume", wf)
    assert bt.peek(wf)["suspendMode"] is None
    wait_for(lambda: count() > before, 2, "progress after resume")
    (tmp_path / "stop").touch()
    assert bt.wait(wf)["status"] == "SUCCEEDED"


def test_an_engine_that_stops_when_idle_does_not_wait_for_a_frozen_job(
    bt: Bt, tmp_path: Path
) -> None:
    """QA: ``run --exit-when-idle`` never stopped while a workflow was frozen, whose job can
    go on only after a ``resume``; it stops, saying what it leaves frozen."""
    ticks = tmp_path / "ticks"
    engine = bt.engine()
    wf = bt.submit(FIXTURES / "ticker" / "job.properties", {"dir": str(tmp_path)})
    wait_for(ticks.exists, 10, "ticks")
    bt.cli("suspend", wf, "--freeze")
    pid = int(bt.peek(f"{wf}@tick")["externalId"])
    wait_for(lambda: stopped(pid), 2, "SIGSTOP")
    assert engine.stop() == 0
    idle = bt.engine("--exit-when-idle", wait=False)
    assert idle.proc.wait(20) == 0, idle.log()
    assert f"left frozen (suspend --freeze): {wf}" in " ".join(idle.log().split())
    assert stopped(pid) and bt.nodes(wf)["tick"] == "RUNNING"  # left as it was
    bt.cli("resume", wf)
    bt.engine()
    (tmp_path / "stop").touch()
    assert bt.wait(wf)["status"] == "SUCCEEDED"


def test_a_freeze_while_the_engine_runs_lets_an_idle_engine_stop(bt: Bt, tmp_path: Path) -> None:
    """The frozen job is known once the freeze is committed, not only at a restart (review)."""
    ticks = tmp_path / "ticks"
    wf = bt.submit(FIXTURES / "ticker" / "job.properties", {"dir": str(tmp_path)})
    idle = bt.engine("--exit-when-idle")
    wait_for(ticks.exists, 10, "ticks")
    assert idle.alive()  # its job runs
    bt.cli("suspend", wf, "--freeze")
    assert idle.proc.wait(20) == 0, idle.log()
    assert f"left frozen (suspend --freeze): {wf}" in " ".join(idle.log().split())
    bt.cli("resume", wf)
    bt.engine()
    (tmp_path / "stop").touch()
    assert bt.wait(wf)["status"] == "SUCCEEDED"


def chain_job_left_running(bt: Bt, tmp_path: Path) -> tuple[str, int, int]:
    """A chain workflow whose first job runs (waiting at its gate) and an engine stopped
    with SIGTERM, which leaves the job running: the workflow id, the job's and its child's
    pids."""
    gate = tmp_path / "gate"
    gate.mkdir()
    engine = bt.engine()
    wf = bt.submit(CHAIN, {"dir": str(tmp_path), "gate": str(gate)})
    wait_for(lambda: "first" in job_pids(tmp_path / "pids"), 10, "first job started")
    job, grandchild = job_pids(tmp_path / "pids")["first"]
    assert engine.stop() == 0
    # QA: the log ended at "engine active", saying nothing of the stop or of the jobs left
    assert "stopping, as asked: running jobs keep running" in engine.log()
    return wf, job, grandchild


def test_a_verbose_engine_logs_its_own_lines_and_its_stop(bt: Bt) -> None:
    """QA: ``run -v`` opened with asyncio's "Using selector: EpollSelector"; a standby
    stopped with nothing in its log after "waiting as standby"."""
    engine = bt.engine("-v")
    engine.wait_active()
    standby = bt.engine(wait=False)
    standby.wait_log("waiting as standby")
    assert standby.stop() == 0
    assert "standby stopping, as asked" in standby.log(), standby.log()
    assert engine.stop() == 0
    said = engine.log()
    assert "Using selector" not in said and "stopping, as asked" in said, said


def test_freeze_and_resume_without_an_engine_say_when_they_reach_the_jobs(
    bt: Bt, tmp_path: Path
) -> None:
    """QA: ``resume`` of a frozen workflow with no engine said nothing while its jobs stayed
    stopped; as ``kill`` does, both say that an engine carries them out."""
    wf, job, _grandchild = chain_job_left_running(bt, tmp_path)
    r = bt.cli("suspend", wf, "--freeze")
    assert (
        "note: no engine is running; the suspend is recorded, and running jobs are frozen"
        in r.stderr
    )
    assert not stopped(job)  # nobody froze it yet
    r = bt.cli("resume", wf)
    assert (
        "note: no engine is running; the resume is recorded; what it holds goes on (new"
        " launches, and any job a suspend --freeze stopped continues) when one starts" in r.stderr
    ), r
    r = bt.cli("suspend", wf)  # a workflow's suspend is done by the command: nothing to say
    assert "note:" not in r.stderr, r
    bt.cli("kill", wf)
    bt.engine()
    wait_for(lambda: not pid_alive(job), KILL_GRACE + 5, "the kill")


def test_kill_of_a_frozen_workflow_kills_its_stopped_processes(bt: Bt, tmp_path: Path) -> None:
    ticks = tmp_path / "ticks"
    bt.engine()
    wf = bt.submit(FIXTURES / "ticker" / "job.properties", {"dir": str(tmp_path)})
    wait_for(ticks.exists, 10, "ticks")
    pid = int(bt.peek(f"{wf}@tick")["externalId"])
    bt.cli("suspend", wf, "--freeze")
    wait_for(lambda: stopped(pid), 2, "SIGSTOP")
    bt.cli("kill", wf)
    wait_for(lambda: not pid_alive(pid), 3, "the frozen job to die")
    assert bt.wait(wf, "KILLED")["status"] == "KILLED"
    assert bt.nodes(wf) == {"tick": "KILLED"}


def test_kill_without_engine_kills_the_running_job_when_an_engine_starts(
    bt: Bt, tmp_path: Path
) -> None:
    wf, job, grandchild = chain_job_left_running(bt, tmp_path)
    r = bt.cli("kill", wf)
    # said, so that nobody takes the KILLED for processes already gone (QA)
    # and that what runs under it is killed then too (QA (ae): a bundle read KILLED while its
    # coordinators stayed PREPPAUSED until an engine came)
    assert r.stderr == (
        "note: no engine is running; the kill is recorded (its status is KILLED now); what runs"
        " under it (a bundle's coordinators, their actions and workflows) is killed, and its"
        " processes stopped, when one starts (bundletui run)\n"
    )
    assert bt.peek(wf)["status"] == "KILLED"
    assert bt.nodes(wf) == {"first": "RUNNING", "second": "KILLED", "third": "KILLED"}
    assert pid_alive(job), "no engine runs: nobody may have touched the job yet"
    bt.engine()
    wait_for(lambda: not pid_alive(job) and not pid_alive(grandchild), 5, "job killed")
    wait_for(lambda: bt.nodes(wf)["first"] == "KILLED", 5, "node KILLED")
    assert trace_lines(tmp_path / "trace") == ["first"]


def test_a_failure_while_suspended_still_gets_its_retries(bt: Bt, tmp_path: Path) -> None:
    """Oozie ends an action of a suspended workflow only after resume, user retry included:
    suspending must not change the outcome."""
    gate = tmp_path / "gate"
    gate.mkdir()
    bt.engine()
    wf = bt.submit(
        FIXTURES / "retry" / "job.properties",
        {"dir": str(tmp_path), "failTimes": "1", "gate": str(gate), "retryInterval": "0"},
    )
    bt.wait_node(wf, "flaky", "RUNNING")
    bt.cli("suspend", wf)
    release(gate, "flaky", "after-flaky")
    wait_for(lambda: (tmp_path / "attempts").exists(), 10, "first attempt ended")
    time.sleep(0.3)
    assert bt.nodes(wf)["flaky"] != "FAILED"
    bt.cli("resume", wf)
    assert bt.wait(wf)["status"] == "SUCCEEDED", bt.nodes(wf)
    assert trace_lines(tmp_path / "trace") == ["flaky", "flaky", "after-flaky"]


def test_kill_kills_the_process_group_and_marks_the_rest_killed(bt: Bt, tmp_path: Path) -> None:
    bt.engine()
    wf = bt.submit(CHAIN, {"dir": str(tmp_path), "sleep": "30"})
    wait_for(lambda: "first" in job_pids(tmp_path / "pids"), what="first job started")
    job, grandchild = job_pids(tmp_path / "pids")["first"]
    assert pid_alive(job) and pid_alive(grandchild)
    assert bt.cli("kill", wf).stderr == ""  # an engine runs: nothing to say
    wait_for(lambda: not pid_alive(job) and not pid_alive(grandchild), 5, "group killed")
    # from the kill's commit (the workflow's end time) to both processes seen gone
    took = time.time() - (bt.row(wf).end_time or 0) / 1000
    assert took < 2.0
    info = bt.wait(wf, "KILLED")
    nodes = {a["name"]: a for a in info["actions"]}
    assert {n: a["nodeStatus"] for n, a in nodes.items()} == {
        "first": "KILLED",
        "second": "KILLED",
        "third": "KILLED",
    }
    assert nodes["first"]["endTime"] is not None
    time.sleep(0.3)
    assert trace_lines(tmp_path / "trace") == ["first"]
    print(f"kill: job and grandchild gone {took * 1000:.0f} ms after the kill committed")


def test_kill_escalates_to_sigkill_for_a_job_that_ignores_sigterm(bt: Bt, tmp_path: Path) -> None:
    bt.engine()
    wf = bt.submit(FIXTURES / "stubborn" / "job.properties", {"dir": str(tmp_path)})
    wait_for(lambda: "stubborn" in job_pids(tmp_path / "pids"), 10, "job started")
    job, grandchild = job_pids(tmp_path / "pids")["stubborn"]
    bt.cli("kill", wf)
    assert bt.wait(wf, "KILLED")["status"] == "KILLED"
    time.sleep(1.0)
    assert pid_alive(job), "SIGTERM is ignored: the job lives through the grace period"
    wait_for(lambda: not pid_alive(job) and not pid_alive(grandchild), 10, "SIGKILL")
    assert bt.nodes(wf) == {"stubborn": "KILLED"}


def test_a_child_that_ignores_sigterm_is_killed_after_its_job_ended(bt: Bt, tmp_path: Path) -> None:
    """QA (m): the wrapper's SIGTERM to the group at a job's end (decision 0003) did nothing to
    a child that ignores it, which lived on after its node SUCCEEDED. Such a child gets
    SIGKILL after the grace time, as a kill's survivors do."""
    engine = bt.engine()
    wf = bt.submit(FIXTURES / "litter" / "job.properties", {"dir": str(tmp_path)})
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    child = int((tmp_path / "bg").read_text())
    assert pid_alive(child), "SIGTERM is ignored: the child lives through the grace period"
    wait_for(lambda: not pid_alive(child), KILL_GRACE + 5, "SIGKILL")
    engine.wait_log("outlived its job's end (it ignored SIGTERM): sent SIGKILL")
    assert bt.nodes(wf) == {"litter": "SUCCEEDED"}


def test_a_child_that_ignores_sigterm_is_killed_after_its_job_ended_and_the_engine_died(
    bt: Bt, tmp_path: Path
) -> None:
    """Left-alone item: the SIGKILL for a finished job's leftovers was only a timer in the
    engine, so an engine killed within the grace time left them running for good. The group
    is kept in ``kill_watch`` with the job's end, and the next engine sends it."""
    engine = bt.engine()
    wf = bt.submit(FIXTURES / "litter" / "job.properties", {"dir": str(tmp_path)})
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    engine.kill9()  # at once: well within the grace time
    child = int((tmp_path / "bg").read_text())
    time.sleep(KILL_GRACE + 0.5)  # no engine is left to send it
    assert pid_alive(child), "SIGTERM is ignored and no engine ran: the child lives"
    restarted = bt.engine()
    restarted.wait_log("outlived its kill or its job's end: sent SIGKILL")
    wait_for(lambda: not pid_alive(child), 5, "SIGKILL")
    assert bt.nodes(wf) == {"litter": "SUCCEEDED"}
    watched = lambda: bt.store.conn.execute("SELECT count(*) FROM kill_watch").fetchone()[0]  # noqa: E731
    wait_for(lambda: watched() == 0, 5, "the engine saw to the group")


def test_a_finished_jobs_group_is_watched_only_until_its_leftovers_are_seen_to(
    bt: Bt, tmp_path: Path
) -> None:
    """The watch a job's end leaves goes once the engine has looked at its group."""
    bt.engine()
    wf = bt.submit(FIXTURES / "litter" / "job.properties", {"dir": str(tmp_path)})
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    watched = lambda: bt.store.conn.execute("SELECT count(*) FROM kill_watch").fetchone()[0]  # noqa: E731
    child = int((tmp_path / "bg").read_text())
    wait_for(lambda: not pid_alive(child), KILL_GRACE + 5, "SIGKILL")
    wait_for(lambda: watched() == 0, 5, "the watch deleted")


def killed_stubborn_job(bt: Bt, tmp_path: Path) -> tuple[EngineProc, str, int, int]:
    """An engine, and a workflow whose job (and its grandchild) ignores SIGTERM, just killed:
    the engine, the workflow id, the job's and the grandchild's pids."""
    engine = bt.engine()
    wf = bt.submit(FIXTURES / "stubborn" / "job.properties", {"dir": str(tmp_path)})
    wait_for(lambda: "stubborn" in job_pids(tmp_path / "pids"), 10, "job started")
    job, grandchild = job_pids(tmp_path / "pids")["stubborn"]
    bt.cli("kill", wf)
    bt.wait(wf, "KILLED")
    time.sleep(0.5)  # the SIGTERM was sent, and ignored
    return engine, wf, job, grandchild


@pytest.mark.parametrize("stop", ["sigterm", "kill9"])
def test_a_job_that_ignores_sigterm_is_killed_even_if_the_engine_stops_in_the_grace_time(
    bt: Bt, tmp_path: Path, stop: str
) -> None:
    """QA: the SIGKILL after the grace time was only a timer in the engine: an engine stopped
    (or killed) within it left the job running for good, its node recorded KILLED. A stopping
    engine sends it at once; a starting one finds the survivors of killed nodes and sends it."""
    engine, wf, job, grandchild = killed_stubborn_job(bt, tmp_path)
    assert pid_alive(job) and pid_alive(grandchild)
    if stop == "sigterm":
        assert engine.stop() == 0
    else:
        engine.kill9()
        time.sleep(KILL_GRACE + 0.5)  # no engine is left to send it
        assert pid_alive(job) and pid_alive(grandchild)
        restarted = bt.engine()
        restarted.wait_log("outlived its kill or its job's end: sent SIGKILL")
    wait_for(lambda: not pid_alive(job) and not pid_alive(grandchild), 5, "SIGKILL")
    assert bt.nodes(wf) == {"stubborn": "KILLED"}


def test_a_job_that_outlived_its_kill_is_found_after_its_workflow_was_rerun_meanwhile(
    bt: Bt, tmp_path: Path
) -> None:
    """Left-alone item: an engine start found the survivors of killed jobs through the KILLED
    nodes' pids, which a rerun clears: rerun while no engine ran, the first run's job lived
    on. The killed groups are kept apart (``kill_watch``) until an engine has seen to them."""
    engine, wf, job, grandchild = killed_stubborn_job(bt, tmp_path)
    engine.kill9()
    bt.cli("rerun", wf)  # no engine: the node goes back to WAITING, its pid cleared
    assert pid_alive(job) and pid_alive(grandchild)
    restarted = bt.engine()
    restarted.wait_log("outlived its kill or its job's end: sent SIGKILL")
    wait_for(lambda: not pid_alive(job) and not pid_alive(grandchild), 5, "SIGKILL")
    bt.wait_node(wf, "stubborn", "RUNNING")  # the rerun runs
    wait_for(lambda: job_pids(tmp_path / "pids")["stubborn"][0] != job, 10, "rerun started")
    watched = lambda: bt.store.conn.execute("SELECT count(*) FROM kill_watch").fetchone()[0]  # noqa: E731
    wait_for(lambda: watched() == 0, 5, "the engine saw to the killed group")


def test_the_end_of_a_killed_job_is_not_charged_to_the_rerun_started_before_it_ended(
    bt: Bt, tmp_path: Path
) -> None:
    """QA: ``kill W`` then ``rerun W`` at once: the killed job (it ignores SIGTERM) died of
    the SIGKILL after the grace time, and that end was taken as the new run's node's (FAILED,
    EB0503), while the new run's job ran on, orphaned. Ends are matched to their process."""
    _engine, wf, job, _grandchild = killed_stubborn_job(bt, tmp_path)
    bt.cli("rerun", wf)
    pids = tmp_path / "pids"
    wait_for(lambda: job_pids(pids)["stubborn"][0] != job, 10, "the rerun's job")
    new = job_pids(pids)["stubborn"][0]
    wait_for(lambda: not pid_alive(job), KILL_GRACE + 5, "the old job's SIGKILL")
    time.sleep(1)  # its end has reached the engine
    assert bt.nodes(wf) == {"stubborn": "RUNNING"} and pid_alive(new)
    assert pid_alive(int(bt.peek(f"{wf}@stubborn")["externalId"]))  # the new job's wrapper
    bt.cli("kill", wf)
    wait_for(lambda: not pid_alive(new), KILL_GRACE + 5, "the new job's kill")


def test_a_kill_queued_with_no_engine_reaches_the_job_after_a_rerun(bt: Bt, tmp_path: Path) -> None:
    """QA: with no engine, ``kill W`` is queued for the next engine, which finds the jobs by
    their nodes' pids; ``rerun W`` cleared them, and the old job ran on beside the new."""
    engine = bt.engine()
    wf = bt.submit(FIXTURES / "stubborn" / "job.properties", {"dir": str(tmp_path)})
    wait_for(lambda: "stubborn" in job_pids(tmp_path / "pids"), 10, "job started")
    job, grandchild = job_pids(tmp_path / "pids")["stubborn"]
    engine.kill9()
    bt.cli("kill", wf)
    bt.cli("rerun", wf)
    assert pid_alive(job)
    bt.engine()
    wait_for(lambda: not pid_alive(job) and not pid_alive(grandchild), 10, "the old job's kill")
    bt.wait_node(wf, "stubborn", "RUNNING")  # the rerun runs
    bt.cli("kill", wf)


def test_info_shows_a_node_waiting_to_retry_as_user_retry_with_its_time(
    bt: Bt, tmp_path: Path
) -> None:
    """QA: the README says ``info`` shows a node between attempts as Oozie's USER_RETRY with
    ``retryAt``; only ``--json`` did, the text said READY. A kill in the wait ends the node."""
    bt.engine()
    wf = bt.submit(FIXTURES / "retry" / "job.properties", {"dir": str(tmp_path), "failTimes": "9"})
    bt.wait_node(wf, "flaky", "READY")  # its first attempt failed; the next is a minute away
    at = bt.peek(f"{wf}@flaky")["retryAt"]
    assert at is not None
    table = bt.cli("info", wf).stdout
    row = next(line for line in table.splitlines() if line.startswith("flaky "))
    assert row.split()[2] == "USER_RETRY", row
    assert row.endswith(f"(retry at {at[-12:-4]})"), row
    node = bt.cli("info", f"{wf}@flaky").stdout
    assert "  Status      : USER_RETRY" in node, node
    assert f"  Retry at    : {at}" in node, node
    bt.cli("kill", wf)
    flaky = bt.peek(f"{wf}@flaky")
    assert flaky["nodeStatus"] == "KILLED" and flaky["endTime"] is not None
    assert bt.peek(f"{wf}@after-flaky")["endTime"] is None  # it never started


def test_rerun_failed_nodes_runs_only_what_did_not_succeed(bt: Bt, tmp_path: Path) -> None:
    flag = tmp_path / "fail-now"
    flag.touch()
    bt.engine()
    wf = bt.submit(BRANCHES, {"dir": str(tmp_path), "failFlag": str(flag)})
    assert bt.wait(wf)["status"] == "FAILED"
    flag.unlink()
    bt.cli("rerun", wf, "--failed-nodes")
    info = bt.wait(wf)
    assert info["status"] == "SUCCEEDED"
    assert info["id"] == wf and info["run"] == 1
    assert Counter(trace_lines(tmp_path / "trace")) == {
        "root": 1,
        "good": 1,
        "good-child": 1,
        "bad": 2,
        "bad-child": 1,
        "bad-grandchild": 1,
        "join": 1,
    }
    assert len(bt.jobs()["workflows"]) == 1


def test_rerun_skip_nodes(bt: Bt, tmp_path: Path) -> None:
    bt.engine()
    wf = bt.submit(CHAIN, {"dir": str(tmp_path)})
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    r = bt.cli("rerun", wf, "--skip-nodes", "nope", check=False)
    assert r.code == 1 and r.stderr.startswith("Error: E0302: ")
    bt.cli("rerun", wf, "--skip-nodes", "first")
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert bt.peek(wf)["run"] == 1
    assert Counter(trace_lines(tmp_path / "trace")) == {"first": 1, "second": 2, "third": 2}
    r = bt.cli("rerun", wf, "--skip-nodes", "first", "--failed-nodes", check=False)
    assert r.code == 2 and r.stderr.startswith("Error: E0404: ")  # the command line shows it


def test_log_definition_and_follow(bt: Bt, tmp_path: Path) -> None:
    """The job prints two lines and waits for ``go``: what follow shows by then, it streamed."""
    go = tmp_path / "go"
    bt.engine()
    wf = bt.submit(FIXTURES / "printer" / "job.properties", {"go": str(go)})
    node = f"{wf}@talk"
    follow = subprocess.Popen(
        [BUNDLETUI, "log", node, "--follow"], stdout=subprocess.PIPE, text=True, env=bt.env
    )
    assert follow.stdout is not None
    early = [follow.stdout.readline(), follow.stdout.readline()]
    assert early == ["line 1\n", "line 2\n"]
    assert bt.nodes(wf)["talk"] == "RUNNING"  # streamed while the job ran
    go.touch()
    rest = follow.stdout.read()
    assert follow.wait(10) == 0  # follow ends by itself when the node ends
    expected = "".join(f"line {i}\n" for i in range(1, 6))
    assert "".join(early) + rest == expected
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert bt.cli("log", node).stdout == expected
    assert bt.cli("log", wf).stdout == expected  # a workflow id: every node's log
    nonode = bt.cli("log", f"{wf}@nonode", check=False)  # QA (n): no hint
    assert nonode.code == 1 and f"hint: see the workflow's nodes with: bundletui info {wf}" in (
        nonode.stderr
    )
    definition = bt.cli("definition", wf).stdout
    assert definition == (FIXTURES / "printer" / "workflow.xml").read_text()


def ran_dag(bt: Bt, tmp_path: Path, jobs: str) -> str:
    """A DAG of ``jobs`` (their XML) submitted to an engine and run to SUCCEEDED; its id."""
    (tmp_path / "wf.xml").write_text(
        f'<dag-app xmlns="uri:bundletui:dag:1.0" name="d">{jobs}</dag-app>'
    )
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path={tmp_path / 'wf.xml'}\n")
    bt.engine()
    wf = bt.submit(props)
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    return wf


PEAK_RSS_OF_CHILD = (
    "import resource, subprocess, sys; code = subprocess.call(sys.argv[1:]);"
    " print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr);"
    " sys.exit(code)"
)


def test_log_of_a_huge_output_is_streamed_and_headings_start_a_line(bt: Bt, tmp_path: Path) -> None:
    """QA (am): ``log`` read each file whole (a 200 MB stdout: 636 MB RSS), and a heading was
    glued to output that ended without a newline (``…xxxx── b (SUCCEEDED, attempt 1)``)."""
    size = 100_000_000
    wf = ran_dag(
        bt,
        tmp_path,
        '<job name="a"><shell><exec>sh</exec><argument>-c</argument>'
        f"<argument>head -c {size} /dev/zero | tr '\\0' x</argument></shell></job>"
        '<job name="b"><depends>a</depends><shell><exec>echo</exec><argument>b</argument>'
        "</shell></job>",
    )
    printed = tmp_path / "printed"
    with printed.open("wb") as f:
        # from a small parent: a child's peak RSS counts its parent's (this test process's,
        # in a long suite) from before its exec
        r = subprocess.run(
            [sys.executable, "-c", PEAK_RSS_OF_CHILD, BUNDLETUI, "log", wf],
            stdout=f,
            stderr=subprocess.PIPE,
            text=True,
            env=bt.env,
        )
    assert r.returncode == 0, r.stderr
    assert int(r.stderr.split()[-1]) < 100_000  # kB: reading it whole was 300,000 and more
    assert printed.stat().st_size > size
    with printed.open("rb") as f:
        f.seek(size - 10)
        tail = f.read().decode()
    assert tail.splitlines()[1:] == ["── b (SUCCEEDED, attempt 1)", "b"], tail


def test_log_of_output_ending_inside_a_character_shows_the_replacement(
    bt: Bt, tmp_path: Path
) -> None:
    """QA (an): output ending with a cut UTF-8 character (``abc\\342\\202``) printed ``abc``
    alone once the job had ended; invalid bytes show as U+FFFD, as the API shows them."""
    wf = ran_dag(
        bt,
        tmp_path,
        '<job name="a"><shell><exec>printf</exec><argument>abc\\342\\202</argument></shell></job>',
    )
    assert bt.cli("log", f"{wf}@a").stdout == "abc\ufffd"


def test_log_prints_a_jobs_escape_sequences_as_it_wrote_them(bt: Bt, tmp_path: Path) -> None:
    """QA: piped, ``log`` dropped a job's ``ESC[31m`` (click strips escape sequences when
    stdout is not a terminal) but kept every other control byte; the API gave them all. The
    README says the output is printed whole: it is, on both of the CLI's fronts."""
    wf = ran_dag(
        bt,
        tmp_path,
        '<job name="a"><shell><exec>printf</exec>'
        "<argument>esc\\033[31mRED\\033[0m|bell\\a|end\\n</argument></shell></job>",
    )
    expected = "esc\x1b[31mRED\x1b[0m|bell\x07|end\n"
    assert bt.cli("log", f"{wf}@a").stdout == expected
    assert bt.cli("oozie", "job", "-log", wf).stdout == expected


def test_log_run_prints_an_earlier_runs_files(bt: Bt, tmp_path: Path) -> None:
    """Left-alone item: a rerun keeps the earlier run's files, but ``log`` showed only the
    current run's. ``--run N`` prints run N's, attempt after attempt."""
    bt.engine()
    wf = bt.submit(
        FIXTURES / "retry" / "job.properties",
        {"dir": str(tmp_path), "failTimes": "5", "retryInterval": "0"},
    )
    assert bt.wait(wf)["status"] == "FAILED"  # attempts 1 to 3 of run 0 failed
    bt.cli("rerun", wf, "--failed-nodes")
    assert bt.wait(wf)["status"] == "SUCCEEDED"  # run 1: two failures, then a success
    first = bt.cli("log", f"{wf}@flaky", "--run", "0")
    assert first.stdout.count("flaky started") == 3, first
    assert first.stdout.count("fails on purpose") == 3, first
    # several attempts: each headed, as the current run's are
    assert "── flaky (run 0, attempt 2)" in first.stdout, first
    assert "── flaky (run 0, attempt 3)" in first.stdout, first
    current = bt.cli("log", f"{wf}@flaky").stdout

    def body(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("── flaky (")]

    assert body(current) == body(bt.cli("log", f"{wf}@flaky", "--run", "1").stdout)
    assert current.count("fails on purpose") == 2
    whole = bt.cli("log", wf, "--run", "0").stdout
    assert "── flaky (run 0, attempt 3)" in whole and "after-flaky" not in whole  # it never ran
    r = bt.cli("log", f"{wf}@after-flaky", "--run", "0")
    assert r.stdout == "" and "no log files of run 0" in r.stderr
    for bad in (["--run", "2"], ["--run", "0", "--follow"]):
        r = bt.cli("log", wf, *bad, check=False)
        assert r.code == 1 and "E0302" in r.stderr and "Traceback" not in r.stderr, r
    bt.cli("rerun", wf, "--skip-nodes", "flaky")  # run 2: flaky skipped, keeping its run 1
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    r = bt.cli("log", f"{wf}@flaky", "--run", "2")  # the workflow has run 2: the node no files
    assert r.stdout == "" and "no log files of run 2" in r.stderr, r
    r = bt.cli("log", "nope", check=False)  # no job's id: not "not a coordinator action"
    assert r.code == 1 and r.stderr.startswith("Error: E0604: Job does not exist [nope]"), r
    r = bt.cli("log", wf[:-1] + "C", check=False)  # a coordinator's id, of none in the store
    assert r.code == 1 and r.stderr.startswith("Error: E0604: Job does not exist"), r


def test_log_follow_moves_on_to_each_retry_and_each_node(bt: Bt, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    bt.engine()
    wf = bt.submit(
        FIXTURES / "retry" / "job.properties",
        {"dir": str(tmp_path), "failTimes": "2", "gate": str(gate), "retryInterval": "0"},
    )
    one = subprocess.Popen(
        [BUNDLETUI, "log", f"{wf}@flaky", "--follow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=bt.env,
    )
    every = subprocess.Popen(
        [BUNDLETUI, "log", wf, "--follow"], stdout=subprocess.PIPE, text=True, env=bt.env
    )
    assert one.stdout is not None and every.stdout is not None
    # both follow the first attempt (it waits for the gate) before anything is released
    assert one.stdout.readline() == "flaky started\n"
    first = [every.stdout.readline(), every.stdout.readline()]
    assert first == ["── flaky (RUNNING, attempt 1)\n", "flaky started\n"]
    release(gate, "flaky", "after-flaky")
    out, err = one.communicate(timeout=20)
    assert one.returncode == 0
    assert out.count("flaky started") == 2  # attempts 2 and 3 (the first was read above)
    assert out.count("fails on purpose") == 2  # attempts 1 and 2 (their stderr logs)
    assert "attempt 2" in err and "attempt 3" in err  # where each retry starts
    everything, _ = every.communicate(timeout=20)
    assert every.returncode == 0
    assert "── after-flaky" in everything  # a node that had not started yet
    assert bt.peek(wf)["status"] == "SUCCEEDED"

    # without --follow too: every attempt, in order, each headed (several sections), as the
    # API's show=log heads them
    again = bt.cli("log", f"{wf}@flaky")
    assert again.stdout.count("flaky started") == 3
    assert again.stdout.count("fails on purpose") == 2
    assert [line for line in again.stdout.splitlines() if line.startswith("──")] == [
        "── flaky (retried, attempt 1)",
        "── flaky (retried, attempt 2)",
        "── flaky (SUCCEEDED, attempt 3)",
    ]
    assert again.stderr == ""
    whole = bt.cli("log", wf).stdout
    assert [line for line in whole.splitlines() if line.startswith("── flaky")] == [
        "── flaky (retried, attempt 1)",
        "── flaky (retried, attempt 2)",
        "── flaky (SUCCEEDED, attempt 3)",
    ]
    # Oozie's front and the HTTP API's show=log give the same
    assert bt.cli("oozie", "job", "-log", f"{wf}@flaky").stdout.count("flaky started") == 3
    from bundletui.api.logs import job_log

    assert job_log(bt.store, f"{wf}@flaky", "log").count("── flaky (") == 3


def test_jobs_filter(bt: Bt, tmp_path: Path) -> None:
    flag = tmp_path / "fail-now"
    flag.touch()
    bt.engine()
    (tmp_path / "ok").mkdir()
    ok = bt.submit(CHAIN, {"dir": str(tmp_path / "ok")})
    bad = bt.submit(BRANCHES, {"dir": str(tmp_path), "failFlag": str(flag)})
    prep = bt.submit(CHAIN, {"dir": str(tmp_path)}, start=False)
    bt.wait(ok)
    bt.wait(bad)

    def ids(filter_text: str) -> set[str]:
        return {w["id"] for w in bt.jobs("--filter", filter_text)["workflows"]}

    assert ids("status=SUCCEEDED") == {ok}
    assert ids("status=FAILED;status=PREP") == {bad, prep}  # same key: OR
    assert ids("name=chain;status=PREP") == {prep}  # different keys: AND
    r = bt.cli("jobs", "--filter", "colour=red", check=False)
    assert r.code == 2 and r.stderr.startswith("Error: ")  # the option's value: a usage error
    assert ids("status=succeeded") == {ok}  # statuses in any case, as Oozie
    r = bt.cli("jobs", "--filter", "status=SUCEEDED", check=False)  # a typo lists nothing: refused
    assert r.code == 2
    assert "E0420" in r.stderr and "invalid status [SUCEEDED]" in r.stderr


def test_rerun_refuses_options_of_another_kind_of_job(bt: Bt, tmp_path: Path) -> None:
    wf = bt.submit(CHAIN, {"dir": str(tmp_path)}, start=False)
    audit = bt.store.conn.execute("SELECT count(*) FROM audit_log").fetchone()[0]
    for option in (("--date", "2025-01-01T00:00Z"), ("--action", "1"), ("--refresh",)):
        r = bt.cli("rerun", wf, *option, check=False)
        assert r.code == 2, r  # a usage mistake: the id shows it is a workflow
        assert f"Invalid parameter [{option[0]}]" in r.stderr
        assert "a workflow's rerun takes --skip-nodes, --failed-nodes" in r.stderr
    assert bt.store.conn.execute("SELECT count(*) FROM audit_log").fetchone()[0] == audit
    assert bt.peek(wf)["status"] == "PREP"


def test_submit_external_id_is_idempotent(bt: Bt, tmp_path: Path) -> None:
    args = {"dir": str(tmp_path)}
    first = bt.submit(CHAIN, args, start=False, extra=("--external-id", "order-42"))
    again = bt.submit(CHAIN, args, start=False, extra=("--external-id", "order-42"))
    assert again == first
    listing = bt.jobs()
    assert listing["total"] == 1
    assert listing["workflows"][0]["externalId"] == "order-42"
    # QA: another application under the same key came back as the first job with no word
    r = bt.cli("submit", str(CHAIN), "-D", f"dir={tmp_path}", "--external-id", "order-42")
    assert r.stdout.strip() == first
    assert f"note: external id order-42 names {first} (chain)" in r.stderr, r
    assert "nothing new is stored" in r.stderr and "is another" not in r.stderr, r
    r = bt.cli(
        "submit",
        str(BRANCHES),
        "-D",
        f"dir={tmp_path}",
        "-D",
        "failFlag=x",
        "--external-id",
        "order-42",
    )
    assert r.code == 0 and r.stdout.strip() == first, r
    assert "this submission's application (branches," in r.stderr, r
    assert "give it its own --external-id" in r.stderr
    assert bt.jobs()["total"] == 1


def test_commands_without_engine_wait_in_the_store(bt: Bt, tmp_path: Path) -> None:
    dirs = {k: tmp_path / k for k in ("a", "b", "c")}
    for d in dirs.values():
        d.mkdir()
    a = bt.submit(CHAIN, {"dir": str(dirs["a"])})
    b = bt.submit(CHAIN, {"dir": str(dirs["b"])})
    c = bt.submit(CHAIN, {"dir": str(dirs["c"])}, start=False)
    bt.cli("kill", b)
    bt.cli("start", c)
    time.sleep(0.3)
    assert {w: bt.peek(w)["status"] for w in (a, b, c)} == {
        a: "RUNNING",
        b: "KILLED",
        c: "RUNNING",
    }
    assert not any((d / "trace").exists() for d in dirs.values()), "a job ran with no engine"
    bt.engine()
    assert bt.wait(a)["status"] == "SUCCEEDED"
    assert bt.wait(c)["status"] == "SUCCEEDED"
    assert trace_lines(dirs["a"] / "trace") == ["first", "second", "third"]
    assert trace_lines(dirs["c"] / "trace") == ["first", "second", "third"]
    assert not (dirs["b"] / "trace").exists()
    assert set(bt.nodes(b).values()) == {"KILLED"}


def test_a_command_acts_within_moments_with_an_engine_running(bt: Bt, tmp_path: Path) -> None:
    """``start`` on a PREP workflow -> its job's marker file exists: measured, bounded by 2 s."""
    bt.engine()
    timings = []
    for i in range(2):
        marker = tmp_path / f"marker-{i}"
        wf = bt.submit(FIXTURES / "touch" / "job.properties", {"marker": str(marker)}, start=False)
        bt.cli("start", wf)
        wait_for(marker.exists, 5, "marker")
        # the start command's commit stamps the workflow's start time; touch stamps the marker
        timings.append(marker.stat().st_mtime - (bt.row(wf).start_time or 0) / 1000)
    print("start commit -> job's effect: " + ", ".join(f"{t * 1000:.0f} ms" for t in timings))
    assert max(timings) < 2.0


def test_started_dag_is_written_with_its_roots_ready_and_runs_when_an_engine_comes(
    bt: Bt, tmp_path: Path
) -> None:
    """``submit --start`` with no engine: JobControl's READY roots are written at once (the
    first pass would only make them so); an engine started later runs the whole DAG."""
    flag = tmp_path / "no-such-flag"
    wf = bt.submit(BRANCHES, {"dir": str(tmp_path), "failFlag": str(flag)})
    nodes = bt.nodes(wf)
    assert nodes.pop("root") == "READY"
    assert set(nodes.values()) == {"WAITING"}
    bt.engine()
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert trace_lines(tmp_path / "trace")[0] == "root"


def test_rerun_lays_new_properties_over_the_workflows(bt: Bt, tmp_path: Path) -> None:
    """``rerun -D`` (and Oozie's ``-rerun -D``): the re-run nodes see the new values, as
    Oozie's DagEngine.reRun copies the rerun's properties over the job's."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="exits">\n'
        "  <parameters><property><name>code</name></property></parameters>\n"
        '  <job name="first"><shell><exec>python3</exec><argument>-c</argument>'
        "<argument>import sys; sys.exit(int(sys.argv[1]))</argument>"
        "<argument>${code}</argument></shell></job>\n"
        '  <job name="second"><depends>first</depends><shell><exec>python3</exec>'
        "<argument>-c</argument><argument>import sys; sys.exit(int(sys.argv[1]) - 1)</argument>"
        "<argument>${code}</argument></shell></job>\n"
        "</dag-app>\n"
    )
    (app / "job.properties").write_text("oozie.wf.application.path=workflow.xml\ncode=3\n")
    bt.engine()
    wf = bt.submit(app / "job.properties")
    assert bt.wait(wf)["status"] == "FAILED"
    assert bt.nodes(wf)["first"] == "FAILED"

    bt.cli("rerun", wf, "-D", "code=0")  # first passes; second exits -1: fails
    data = bt.wait(wf)
    assert data["status"] == "FAILED" and data["run"] == 1
    assert bt.nodes(wf) == {"first": "SUCCEEDED", "second": "FAILED"}
    assert "<name>code</name>\r\n    <value>0</value>" in bt.info(wf)["conf"]  # as Oozie shows it

    # Oozie's front: -D properties and the rerun key; only the failed node runs again
    props = tmp_path / "rerun.properties"
    props.write_text("oozie.wf.rerun.failnodes=true\n")
    bt.cli("oozie", "job", "-rerun", wf, "-config", str(props), "-D", "code=1")
    data = bt.wait(wf)
    assert data["status"] == "SUCCEEDED" and data["run"] == 2
    conf = bt.store.conn.execute("SELECT conf FROM wf_jobs WHERE id = ?", (wf,)).fetchone()[0]
    assert '"code": "1"' in conf and "oozie.wf.rerun" not in conf

    r = bt.cli(
        "oozie", "job", "-rerun", wf, "-config", str(tmp_path / "missing.properties"), check=False
    )
    assert r.code != 0 and "missing.properties" in r.stderr


def _dag(app: Path, jobs: str) -> None:
    (app / "workflow.xml").write_text(
        f'<dag-app xmlns="uri:bundletui:dag:1.0" name="edited">\n{jobs}</dag-app>\n'
    )


def _job(name: str, code: int, depends: str = "") -> str:
    dep = f"<depends>{depends}</depends>" if depends else ""
    return (
        f'  <job name="{name}">{dep}<shell><exec>python3</exec><argument>-c</argument>'
        f"<argument>import sys; sys.exit({code})</argument></shell></job>\n"
    )


def test_rerun_reads_the_workflow_file_again(bt: Bt, tmp_path: Path) -> None:
    """Oozie's ReRunXCommand parses the application again: a fix made to workflow.xml after a
    failure is what the rerun runs; nodes it added run, nodes it dropped are gone. A file that
    no longer validates refuses the rerun and changes nothing."""
    app = tmp_path / "app"
    app.mkdir()
    _dag(app, _job("first", 0) + _job("second", 3, "first") + _job("old", 0, "first"))
    (app / "job.properties").write_text("oozie.wf.application.path=workflow.xml\n")
    bt.engine()
    wf = bt.submit(app / "job.properties")
    assert bt.wait(wf)["status"] == "FAILED"
    assert bt.nodes(wf) == {"first": "SUCCEEDED", "second": "FAILED", "old": "SUCCEEDED"}

    (app / "workflow.xml").write_text("<dag-app xmlns='uri:bundletui:dag:1.0' name='x'><job")
    r = bt.cli("rerun", wf, "--failed-nodes", check=False)
    assert r.code != 0 and "workflow.xml" in r.stderr and "Traceback" not in r.stderr
    assert bt.info(wf)["status"] == "FAILED" and bt.info(wf)["run"] == 0

    _dag(app, _job("first", 0) + _job("second", 0, "first") + _job("added", 0, "second"))
    r = bt.cli("rerun", wf, "--skip-nodes", "old", check=False)
    assert r.code != 0 and "E0302" in r.stderr and "old" in r.stderr
    assert bt.info(wf)["run"] == 0

    bt.cli("rerun", wf, "--failed-nodes")
    data = bt.wait(wf)
    assert data["status"] == "SUCCEEDED" and data["run"] == 1
    assert bt.nodes(wf) == {"first": "SUCCEEDED", "second": "SUCCEEDED", "added": "SUCCEEDED"}
    row = bt.store.conn.execute("SELECT definition FROM wf_jobs WHERE id = ?", (wf,)).fetchone()
    assert '"added"' in row[0] and '"old"' not in row[0]


def test_submit_start_with_the_external_id_of_a_prep_workflow_starts_it(
    bt: Bt, tmp_path: Path
) -> None:
    """QA: the same external id with ``--start`` returned the first job, still PREP."""
    extra = ("--external-id", "nightly-1")
    wf = bt.submit(CHAIN, {"dir": str(tmp_path)}, start=False, extra=extra)
    assert bt.peek(wf)["status"] == "PREP"
    assert bt.submit(CHAIN, {"dir": str(tmp_path)}, extra=extra) == wf
    assert bt.peek(wf)["status"] == "RUNNING"


def test_a_job_gets_neither_the_engines_api_token_nor_the_descriptors_it_inherited(
    bt: Bt, tmp_path: Path
) -> None:
    """QA: a job's environment had the engine's ``BUNDLETUI_API_TOKEN``, and descriptors the
    engine inherited from its parent (a shell's, a pipe's) were open in every job."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="look">\n'
        "  <parameters><property><name>out</name></property>"
        "<property><name>fd</name></property></parameters>\n"
        '  <job name="look"><shell><exec>python3</exec><argument>-c</argument>'
        "<argument>import os, sys; fd = int(sys.argv[2]); open(sys.argv[1], 'w').write("
        "repr((os.environ.get('BUNDLETUI_API_TOKEN'), os.path.exists(f'/proc/self/fd/{fd}'))))"
        "</argument><argument>${out}</argument><argument>${fd}</argument></shell></job>\n"
        "</dag-app>\n"
    )
    (app / "job.properties").write_text("oozie.wf.application.path=workflow.xml\n")
    read_end, write_end = os.pipe()
    try:
        engine = subprocess.Popen(
            [BUNDLETUI, "run", "--home", str(bt.home)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**bt.env, "BUNDLETUI_API_TOKEN": "s3cret"},
            pass_fds=(write_end,),
        )
        try:
            out = tmp_path / "seen"
            wf = bt.submit(app / "job.properties", {"out": str(out), "fd": str(write_end)})
            assert bt.wait(wf)["status"] == "SUCCEEDED"
            assert out.read_text() == "(None, False)"
        finally:
            engine.terminate()
            engine.wait(20)
    finally:
        os.close(read_end)
        os.close(write_end)


# A job that makes its exit record unwritable, as a full disk does: a directory where the
# wrapper writes the record's temporary file (found from the job's stdout, .out -> .exit.tmp).
_NO_RECORD = (
    '<job name="{name}"><shell><exec>sh</exec><argument>-c</argument>'
    "<argument>mkdir \"$(readlink /proc/$$/fd/1 | sed 's/[.]out$/.exit.tmp/')\"; exit {code}"
    "</argument></shell></job>"
)


def test_a_job_whose_exit_record_cannot_be_written_ends_as_its_wrapper_says(
    bt: Bt, tmp_path: Path
) -> None:
    """QA (disk full): a job whose exit record could not be written (a full disk under logs/)
    was failed EB0503 "killed with SIGKILL?", even when it exited 0. The engine reaps its own
    wrapper, which exits with the job's code after trying to write it: that code decides."""
    (tmp_path / "wf.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="d">'
        + _NO_RECORD.format(name="ok", code=0)
        + _NO_RECORD.format(name="seven", code=7)
        + "</dag-app>"
    )
    (tmp_path / "job.properties").write_text(f"oozie.wf.application.path={tmp_path / 'wf.xml'}\n")
    engine = bt.engine()
    wf = bt.submit(tmp_path / "job.properties")
    assert bt.wait(wf)["status"] == "FAILED"
    assert bt.nodes(wf) == {"ok": "SUCCEEDED", "seven": "FAILED"}
    seven = bt.peek(f"{wf}@seven")
    assert (seven["exitCode"], seven["errorCode"]) == (7, "7")
    engine.wait_log("left no exit record")
    # and kept where a restart looks (an engine stopped by the full disk before it recorded
    # the end found no record, and failed jobs that had succeeded: QA regression hunt)
    for node, code in (("ok", 0), ("seven", 7)):
        _out, _err, exit_path = attempt_paths(bt.home / "logs" / wf, node, 0, 1)
        assert os.readlink(exit_path) == str(code)
        assert read_exit(exit_path) == ExitStatus(code)


def test_a_job_whose_configuration_file_cannot_be_written_is_not_started(
    bt: Bt, tmp_path: Path
) -> None:
    """QA (disk full): the action's configuration file (``OOZIE_ACTION_CONF_XML``) was written
    after the commit, apart from the start: when it could not be (a full work/), the engine
    logged a traceback and started the job anyway, pointing it at no file. Here a directory
    stands where the file goes."""
    marker = tmp_path / "m"
    wf = bt.submit(FIXTURES / "touch" / "job.properties", {"marker": str(marker)}, start=False)
    (bt.home / "work" / wf / ".touch.0.1.conf.xml").mkdir(parents=True)
    engine = bt.engine()
    bt.cli("start", wf)
    assert bt.wait(wf)["status"] == "FAILED"
    node = bt.peek(f"{wf}@touch")
    assert node["errorCode"] == "EB0501" and ".touch.0.1.conf.xml" in node["errorMessage"]
    assert not marker.exists()
    assert "Traceback" not in engine.log()


def test_suspend_or_resume_of_a_node_points_to_its_workflow(bt: Bt, tmp_path: Path) -> None:
    """QA: ``suspend W@node`` was told to "suspend the coordinator, or the action's workflow";
    it names the workflow to suspend."""
    wf = bt.submit(CHAIN, {"dir": str(tmp_path)}, start=False)
    for verb in ("suspend", "resume"):
        r = bt.cli(verb, f"{wf}@first", check=False)
        assert r.code == 2 and "E0302" in r.stderr, r
        assert f"{verb} its workflow: bundletui {verb} {wf}" in " ".join(r.stderr.split()), r


def test_a_page_of_a_workflows_nodes_says_how_many_there_are(bt: Bt, tmp_path: Path) -> None:
    """QA: ``info W --len 1 --offset 2`` cut the node table with no word that nodes were
    hidden; a coordinator's page says "Showing 1-2 of N"."""
    (tmp_path / "wf.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="three">'
        + "".join(f'<job name="{n}"><shell><exec>true</exec></shell></job>' for n in "abc")
        + "</dag-app>"
    )
    (tmp_path / "job.properties").write_text("oozie.wf.application.path=wf.xml\n")
    wf = bt.submit(tmp_path / "job.properties")  # no engine: its nodes wait, READY
    page = bt.cli("info", wf, "--len", "1", "--offset", "2").stdout
    assert page.splitlines()[-1] == "Showing nodes 2-2 of 3" and "\nb " in page, page
    assert bt.cli("info", wf, "--offset", "9").stdout.splitlines()[-1] == "Showing nodes none of 3"
    assert "Showing" not in bt.cli("info", wf).stdout  # the whole table: nothing hidden
    data = json.loads(bt.cli("info", wf, "--len", "2", "--json").stdout)
    assert (data["total"], data["offset"], [a["name"] for a in data["actions"]]) == (
        3,
        1,
        ["a", "b"],
    )
