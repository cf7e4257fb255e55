"""One engine per store, and an engine that stops or dies while jobs run."""

from __future__ import annotations

import signal
import sqlite3
import time
from collections import Counter
from pathlib import Path

from tests.e2e.conftest import FIXTURES, Bt, EngineProc, trace_lines, wait_for

CHAIN = FIXTURES / "chain" / "job.properties"


def test_standby_takes_over_after_kill_9_and_the_workflow_completes(bt: Bt, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    gate.mkdir()
    first = bt.engine("--lease-ttl", "1")
    second = bt.engine("--lease-ttl", "1", wait=False)
    second.wait_log("standby", timeout=10)
    wf = bt.submit(CHAIN, {"dir": str(tmp_path), "gate": str(gate)})
    (gate / "first").touch()
    bt.wait_node(wf, "second", "RUNNING")
    assert "engine active" not in second.log()
    first.kill9()
    killed_at = time.monotonic()
    second.wait_active(timeout=10)
    took = time.monotonic() - killed_at
    print(f"standby active {took * 1000:.0f} ms after the active engine was kill -9-ed")
    assert took < 1 + 2.0  # the TTL, plus a generous margin for a loaded machine
    (gate / "second").touch()
    (gate / "third").touch()
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert Counter(trace_lines(tmp_path / "trace")) == {"first": 1, "second": 1, "third": 1}


def test_a_stopped_engine_is_not_taken_over_when_its_lease_expires(bt: Bt, tmp_path: Path) -> None:
    """Ctrl-Z (SIGSTOP) of the active engine: its lease runs out, but a standby taking over
    would start the same attempts again when the stopped one resumes (it has launches
    committed and not yet started). The standby waits; it takes over once the engine is gone."""
    gate = tmp_path / "gate"
    gate.mkdir()
    first = bt.engine("--lease-ttl", "1")
    second = bt.engine("--lease-ttl", "1", wait=False)
    second.wait_log("standby", timeout=10)
    wf = bt.submit(CHAIN, {"dir": str(tmp_path), "gate": str(gate)})
    bt.wait_node(wf, "first", "RUNNING")
    first.proc.send_signal(signal.SIGSTOP)
    try:
        second.wait_log("lease expired but the process lives", timeout=10)
        time.sleep(1.0)  # well past the TTL
        assert "engine active" not in second.log()
    finally:
        first.proc.send_signal(signal.SIGCONT)
    (gate / "first").touch()
    bt.wait_node(wf, "second", "RUNNING")  # the resumed engine goes on
    assert "engine active" not in second.log()
    first.proc.send_signal(signal.SIGSTOP)
    first.kill9()  # gone while stopped: the standby takes over at once
    second.wait_active(timeout=10)
    (gate / "second").touch()
    (gate / "third").touch()
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert Counter(trace_lines(tmp_path / "trace")) == {"first": 1, "second": 1, "third": 1}


def test_engine_stops_on_sigterm_and_a_job_that_ended_meanwhile_is_recorded(
    bt: Bt, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    gate.mkdir()
    engine = bt.engine()
    wf = bt.submit(CHAIN, {"dir": str(tmp_path), "gate": str(gate)})
    bt.wait_node(wf, "first", "RUNNING")
    assert engine.stop() == 0
    # the job keeps running with no engine, and ends: only its exit file knows
    for name in ("first", "second", "third"):
        (gate / name).touch()
    stamps = tmp_path / "stamps"
    wait_for(lambda: stamps.exists() and "first end" in stamps.read_text(), 10, "first ended")
    assert bt.nodes(wf)["first"] == "RUNNING"  # nobody recorded it yet
    bt.engine()
    assert bt.wait(wf)["status"] == "SUCCEEDED"
    assert trace_lines(tmp_path / "trace") == ["first", "second", "third"]


def test_a_standby_refuses_a_store_moved_to_the_simulated_clock_while_it_waited(bt: Bt) -> None:
    """The clock mode is checked when the lease is taken, not only at start-up: a standby
    started on a real store, which a simulated run took over meanwhile, says EB203 and lets go
    of the lease — it does not move the simulated store to the real clock."""
    first = bt.engine("--lease-ttl", "1")
    second = bt.engine("--lease-ttl", "1", wait=False)
    second.wait_log("standby", timeout=10)
    second.proc.send_signal(signal.SIGSTOP)  # so the simulated run below gets the lease first
    try:
        assert first.stop() == 0
        sim = bt.engine(
            "--clock", "simulated", "--start-time", "2026-01-01T00:00Z", "--until",
            "2026-01-01T00:00Z", wait=False,
        )  # fmt: skip
        assert sim.proc.wait(30) == 0, sim.log()
    finally:
        second.proc.send_signal(signal.SIGCONT)
    assert second.proc.wait(30) != 0
    log = second.log()
    assert "EB203" in log and "engine active" not in log, log
    # the store is still simulated, and nobody holds it: a simulated run starts at once
    again = bt.engine("--clock", "simulated", "--until", "2026-01-01T00:00Z", wait=False)
    assert again.proc.wait(30) == 0, again.log()
    assert "standby" not in again.log() and "simulated clock at 2026-01-01" in again.log()


def test_run_verbose_logs_every_transition_once_committed(bt: Bt, tmp_path: Path) -> None:
    """``run -v`` promised "Log every transition" and logged none: each status a transaction
    wrote is logged after its commit (nothing from a transaction that was undone)."""
    wf = bt.submit(FIXTURES / "touch" / "job.properties", {"marker": str(tmp_path / "m")})
    engine = bt.engine("-v", "--exit-when-idle", wait=False)
    assert engine.proc.wait(30) == 0, engine.log()
    said = [" ".join(line.split()) for line in engine.log().splitlines() if " -> " in line]
    assert [s[s.index("DEBUG") :] for s in said] == [
        f"DEBUG node {wf}@touch -> RUNNING",
        f"DEBUG node {wf}@touch -> SUCCEEDED",
        f"DEBUG workflow {wf} -> SUCCEEDED",
    ], engine.log()


def test_a_lease_beat_blocked_by_another_process_is_said_and_the_lease_renewed_after(
    bt: Bt,
) -> None:
    """QA: another process held the store's write lock longer than a beat waits (a
    ``BEGIN IMMEDIATE`` left open): the beat's error ended the heartbeat task unseen, the lease
    never moved again (a standby on another host would take over a live engine), and the stop
    ended in a traceback. The missed beat is said, retried, and the lease renewed after."""
    engine = bt.engine("--lease-ttl", "1")
    holder = sqlite3.connect(bt.home / "bundletui.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        engine.wait_log("lease not renewed", timeout=5)
        time.sleep(1.5)  # past the lease's expiry
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    engine.wait_log("lease renewed again", timeout=5)
    now_ms = time.time() * 1000

    def expires() -> float:
        with sqlite3.connect(bt.home / "bundletui.db") as conn:
            return float(conn.execute("SELECT expires FROM engine_lease").fetchone()[0])

    wait_for(lambda: expires() > now_ms + 500, 5, "the lease renewed again")
    assert engine.stop() == 0
    assert "Traceback" not in engine.log()
    assert engine.log().count("lease not renewed") == 1  # said once per outage, not per beat


def test_a_copy_of_a_live_store_is_not_held_by_the_engine_of_the_original(
    bt: Bt, tmp_path: Path
) -> None:
    """QA: a store copied with SQLite's online backup while its engine ran (a backup restored
    to another home, as the README advises to take it) carries the lease row of that engine:
    an engine started on the copy waited as a standby for as long as the original ran, and
    commands on the copy said an engine ran. The holder has the original open, not the copy:
    the copy is free."""
    first = bt.engine("--lease-ttl", "30")
    wf = bt.submit(CHAIN, {"dir": str(tmp_path), "gate": str(tmp_path)}, start=False)
    copy = tmp_path / "copy"
    copy.mkdir()
    src = sqlite3.connect(bt.home / "bundletui.db")
    dst = sqlite3.connect(copy / "bundletui.db")
    src.backup(dst)
    src.close()
    dst.close()
    (holder,) = (
        sqlite3.connect(copy / "bundletui.db").execute("SELECT pid FROM engine_lease").fetchone()
    )
    assert holder == first.proc.pid  # the copy names the original's engine, unexpired
    r = bt.cli("kill", wf, "--home", str(copy))
    assert "note: no engine is running" in r.stderr, r
    second = EngineProc(copy, tmp_path / "copy-engine.log", ("--lease-ttl", "30"), bt.env)
    bt.engines.append(second)
    second.wait_active(timeout=10)
    assert "standby" not in second.log()
    # the original's engine and its lease are untouched: on the original, an engine runs
    assert first.alive() and bt.info(wf)["status"] == "PREP"
    r = bt.cli("kill", wf)
    assert "no engine is running" not in r.stderr, r
