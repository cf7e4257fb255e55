"""Each way a crash can leave a RUNNING node, staged exactly, then a real engine started on it.

Random ``kill -9``s (test_crash.py) rarely land in the microseconds between the commit that
marks a node RUNNING and the process start, or between the start and the commit of its pid.
Here the store is put in those states directly — as the launch transaction writes them —
with real exit files and real wrapper processes, and ``bundletui run`` must reconcile each
(issue 3 §4): start it (never started), take its exit file (ended while nobody watched), adopt
it (still running), or fail it with a clear code (unknowable).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bundletui.commands import workflows as wfcmd
from bundletui.commands.workflows import attempt_paths
from bundletui.engine import processes
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import NodeRow
from tests.e2e.conftest import FIXTURES, Bt, pid_alive, trace_lines, wait_for

CHAIN = FIXTURES / "chain" / "job.properties"
JOB = FIXTURES / "bin" / "job.py"


def stage(bt: Bt, tmp_path: Path, **node: object) -> tuple[str, str]:
    """A started chain with no engine yet; ``first`` left RUNNING (attempt 1) as a crashed
    engine leaves it. Returns (workflow id, first's exit file)."""
    gate = tmp_path / "gate"
    gate.mkdir()
    wf = bt.submit(CHAIN, {"dir": str(tmp_path), "gate": str(gate)})
    with Store(bt.home) as store, store.write() as tx:
        values = {"status": "RUNNING", "attempt": 1, "started": tx.now_ms, **node}
        jobs.update(tx, NodeRow, f"{wf}@first", **values)
        _out, _err, exit_path = attempt_paths(wfcmd.log_dir(store, wf), "first", 0, 1)
    Path(exit_path).parent.mkdir(parents=True, exist_ok=True)
    return wf, exit_path


def release_all(tmp_path: Path) -> None:
    for name in ("first", "second", "third"):
        (tmp_path / "gate" / name).touch()


def test_marked_running_but_never_started_is_started_once(bt: Bt, tmp_path: Path) -> None:
    wf, exit_path = stage(bt, tmp_path)
    release_all(tmp_path)
    bt.engine()
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert trace_lines(tmp_path / "trace") == ["first", "second", "third"]
    first = bt.peek(f"{wf}@first")
    assert first["attempt"] == 1  # the same attempt, not a retry
    assert Path(exit_path).read_text() == "0\n"


def test_never_started_in_a_workflow_killed_while_down_is_killed_not_readied(
    bt: Bt, tmp_path: Path
) -> None:
    """``kill`` while no engine runs reaches WAITING/READY nodes; the engine kills RUNNING ones
    it finds alive. One marked RUNNING but never started is neither: it must end KILLED, not
    sit READY under a KILLED workflow."""
    wf, exit_path = stage(bt, tmp_path)
    bt.cli("kill", wf)
    engine = bt.engine()
    wait_for(lambda: bt.nodes(wf)["first"] == "KILLED", 10, "first killed")
    engine.stop()
    assert bt.nodes(wf) == {"first": "KILLED", "second": "KILLED", "third": "KILLED"}
    assert not Path(exit_path).exists()  # and it was never started
    assert trace_lines(tmp_path / "trace") == []


def test_ended_while_down_before_its_pid_was_recorded(bt: Bt, tmp_path: Path) -> None:
    """The exit file says how it ended: it is not run again."""
    wf, exit_path = stage(bt, tmp_path)
    Path(exit_path).write_text("0\n")
    release_all(tmp_path)
    bt.engine()
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert trace_lines(tmp_path / "trace") == ["second", "third"]


def test_ended_while_down_keeps_the_time_it_ended(bt: Bt, tmp_path: Path) -> None:
    """Left-alone item: a job that ended while no engine ran was stamped with the restart's
    time. Its exit record says when it ended; its workflow ends when the engine learns of it."""
    now = int(time.time() * 1000)
    wf, exit_path = stage(bt, tmp_path, started=now - 120_000)
    Path(exit_path).write_text("0\n")
    os.utime(exit_path, ns=((now - 60_000) * 1_000_000,) * 2)
    release_all(tmp_path)
    bt.engine()
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    first = jobs.must_get(bt.store.conn, NodeRow, f"{wf}@first")
    assert (first.started, first.ended) == (now - 120_000, now - 60_000)
    assert bt.row(wf).end_time >= now  # the workflow went on at the restart


def test_failed_while_down_is_recorded_with_its_exit_code(bt: Bt, tmp_path: Path) -> None:
    wf, exit_path = stage(bt, tmp_path)
    Path(exit_path).write_text("7\n")
    bt.engine()
    assert bt.wait(wf)["status"] == "FAILED"
    first = bt.peek(f"{wf}@first")
    assert first["exitCode"] == 7 and first["errorCode"] == "7"
    assert bt.nodes(wf) == {
        "first": "FAILED",
        "second": "DEPENDENT_FAILED",
        "third": "DEPENDENT_FAILED",
    }
    assert trace_lines(tmp_path / "trace") == []


def test_still_running_without_a_recorded_pid_is_found_and_adopted(bt: Bt, tmp_path: Path) -> None:
    wf, exit_path = stage(bt, tmp_path)
    out, err, _ = attempt_paths(Path(exit_path).parent, "first", 0, 1)
    argv = [sys.executable, str(JOB), "first", f"--trace={tmp_path}/trace",
            f"--gate={tmp_path}/gate"]  # fmt: skip
    launched = processes.spawn(
        argv, cwd=tmp_path, env=bt.env, stdout_path=out, stderr_path=err, exit_path=exit_path
    )
    wait_for(lambda: trace_lines(tmp_path / "trace") == ["first"], 10, "the job runs")
    engine = bt.engine()
    wait_for(lambda: bt.peek(f"{wf}@first")["externalId"] == str(launched.pid), 5, "adopted")
    engine.wait_log("adopted running job", 5)
    assert bt.nodes(wf)["first"] == "RUNNING"
    release_all(tmp_path)
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert trace_lines(tmp_path / "trace") == ["first", "second", "third"]
    wait_for(lambda: not pid_alive(launched.pid), 5, "ended")
    os.waitpid(launched.pid, 0)  # this test started it, so this test reaps it


def test_unknowable_end_fails_the_node_with_a_clear_code(bt: Bt, tmp_path: Path) -> None:
    """A recorded pid that is gone and no exit file (its wrapper was SIGKILLed): EB0503."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    wf, _exit_path = stage(bt, tmp_path, pid=gone.pid, start_ticks=1)
    engine = bt.engine()
    assert bt.wait(wf)["status"] == "FAILED"
    # not "adopted running job" for a process that is gone (QA (ae))
    engine.wait_log(f"job {wf}@first (pid {gone.pid}) ended while no engine ran", 5)
    assert "adopted running job" not in engine.log()
    first = bt.peek(f"{wf}@first")
    assert first["errorCode"] == "EB0503"
    assert "exit record" in first["errorMessage"]
    assert trace_lines(tmp_path / "trace") == []


def test_a_job_whose_wrapper_dies_is_stopped_before_its_retry(bt: Bt, tmp_path: Path) -> None:
    """QA (am): a wrapper SIGKILLed (by hand, the OOM killer) leaves no exit record; the job
    lived on in its group while its retry started beside it, and after the node had ended
    no kill could reach either. The group gets SIGKILL when the wrapper's end is seen."""
    trace = tmp_path / "trace"
    script = f'kill -9 $PPID; sleep 2; echo "attempt $BUNDLETUI_ATTEMPT" >> {trace}'
    (tmp_path / "wf.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="wrapkill">'
        '<job name="orph" retry-max="1" retry-interval="0"><shell><exec>bash</exec>'
        f"<argument>-c</argument><argument>{script}</argument></shell></job></dag-app>"
    )
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path={tmp_path / 'wf.xml'}\n")
    engine = bt.engine()
    wf = bt.submit(props)
    info = bt.wait(wf)
    assert info["status"] == "FAILED"
    node = bt.peek(f"{wf}@orph")
    assert (node["errorCode"], node["attempt"]) == ("EB0503", 2), node
    engine.wait_log("outlived its wrapper, which left no exit record: sent SIGKILL", 5)
    time.sleep(3)  # past the jobs' sleep: had either lived on, it would have written
    assert not trace.exists(), trace.read_text()


def test_an_engine_whose_store_is_moved_away_stops_and_says_so(bt: Bt, tmp_path: Path) -> None:
    """QA (disk): with its home moved (or the store deleted) the engine went on writing to a
    file nobody else saw, and a new submit made a second store that no engine ran. It stops
    with EB008 within a lease beat; its job runs on, and the engine started once the store
    is back takes it over."""
    engine = bt.engine("--lease-ttl", "1.5")
    ticker = FIXTURES / "ticker" / "job.properties"
    wf = bt.submit(ticker, {"dir": str(tmp_path)})
    ticks = tmp_path / "ticks"
    wait_for(ticks.exists, 10, "the job ticks")
    moved = tmp_path / "home-moved"
    bt.home.rename(moved)
    assert engine.proc.wait(10) == 1
    said = engine.log()
    assert "EB008" in said and "deleted, moved or replaced" in said, said
    assert said.count("hint:") == 1, said  # said once, not logged and then printed again
    assert "Traceback" not in said, said
    before = ticks.read_text()
    wait_for(lambda: ticks.read_text() != before, 5, "the job ticks on")
    moved.rename(bt.home)
    (tmp_path / "stop").touch()
    bt.engine()
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert bt.nodes(wf) == {"tick": "SUCCEEDED"}


def test_a_standby_does_not_take_over_a_store_a_newer_bundletui_migrated(bt: Bt) -> None:
    """QA (regression hunt): a standby of an older bundletui took over a store migrated under
    it and ran its code on tables it did not know. A standby stops, EB003, instead. (The
    newer schema is stamped by hand here: no newer bundletui exists yet.)"""
    active = bt.engine("--lease-ttl", "1.5")
    standby = bt.engine("--lease-ttl", "1.5", wait=False)
    standby.wait_log("waiting as standby")
    with Store(bt.home, create=False) as store:
        newer = store.conn.execute("PRAGMA user_version").fetchone()[0] + 1
        store.conn.execute(f"PRAGMA user_version={newer}")
    assert active.stop() == 0
    assert standby.proc.wait(15) == 1
    said = standby.log()
    assert f"EB003: store {bt.home / 'bundletui.db'} was migrated to schema {newer}" in said, said
    assert "engine active" not in said and "Traceback" not in said, said


def test_a_standby_that_takes_over_a_moved_store_stops_too_and_makes_no_new_one(
    bt: Bt, tmp_path: Path
) -> None:
    """QA (regression hunt): a standby took the lease on the file it had open, now moved
    away, adopted the job there, and its lease thread made a new empty store at the old path;
    it then stopped with "lease lost" and exit 0. It stops with EB008, like the engine it
    followed, and nothing is made at the old path."""
    active = bt.engine("--lease-ttl", "1.5")
    standby = bt.engine("--lease-ttl", "1.5", wait=False)
    standby.wait_log("waiting as standby")
    moved = tmp_path / "moved"
    moved.mkdir()
    for f in bt.home.glob("bundletui.db*"):
        f.rename(moved / f.name)
    assert active.proc.wait(10) == 1
    assert standby.proc.wait(10) == 1
    said = standby.log()
    assert "EB008" in said and "lease lost" not in said and "Traceback" not in said, said
    assert not (bt.home / "bundletui.db").exists()
