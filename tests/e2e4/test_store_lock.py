"""An engine stopped (Ctrl-Z, SIGSTOP) inside its write transaction keeps SQLite's write lock
until it is continued. A command given meanwhile says so at once, names the engine's pid and
how to continue it, exits 1 and changes nothing: it used to wait 30 s and print a traceback
(``database is locked``). Through a real ``bundletui run`` on a busy simulated year of
in-process fs actions, stopped at a moment it holds the lock, and the real CLI.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.e2e4.conftest import Bt4, EngineProc, coordinator_xml, wait_for

T0 = "2026-01-01T00:00Z"
END = "2036-01-01T00:00Z"

FS_WF = """<workflow-app name="w" xmlns="uri:oozie:workflow:0.5">
  <start to="m"/>
  <action name="m"><fs><mkdir path="${out}"/></fs><ok to="end"/><error to="k"/></action>
  <kill name="k"><message>mkdir failed</message></kill>
  <end name="end"/>
</workflow-app>
"""


def _locked(bt: Bt4) -> bool:
    """Somebody holds the store's write lock (a try that does not wait)."""
    conn = sqlite3.connect(bt.home / "bundletui.db", timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        return True
    else:
        conn.execute("ROLLBACK")
        return False
    finally:
        conn.close()


def _stop_inside_a_transaction(engine: EngineProc, bt: Bt4) -> None:
    """SIGSTOP the engine until it is stopped holding the write lock."""
    pid = engine.proc.pid
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        os.kill(pid, signal.SIGSTOP)
        wait_for(lambda: open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "T")
        if _locked(bt):
            return
        os.kill(pid, signal.SIGCONT)
        time.sleep(0.003)
    pytest.fail("the engine was never stopped inside a write transaction")


def test_a_command_against_an_engine_stopped_in_its_transaction_says_so_at_once(
    bt: Bt4,
) -> None:
    bt.apps.write("wf/workflow.xml", FS_WF)
    out = f"{bt.tmp}/out/${{coord:formatTime(coord:nominalTime(), 'yyyyMMddHH')}}"
    bt.apps.write(
        "c.xml", coordinator_xml("c", start=T0, end=END, workflow="wf", conf={"out": out})
    )
    coord = bt.submit_job(bt.apps.props("c.properties", {"oozie.coord.application.path": "c.xml"}))
    engine = bt.engine("--clock", "simulated", "--start-time", T0, "--until", END)
    pid = engine.proc.pid
    wait_for(lambda: len(bt.actions(coord)) > 50, 30, "the engine busy with actions")
    _stop_inside_a_transaction(engine, bt)
    try:
        before = bt.sql("SELECT value FROM meta WHERE key = 'rev'")
        started = time.monotonic()
        r = bt.cli("kill", coord, check=False)
        took = time.monotonic() - started
        assert r.code == 1, r
        assert "Traceback" not in r.stderr, r
        first, hint = r.stderr.splitlines()[:2]
        assert first.startswith("Error: EB006: the store "), r
        assert f"the engine (pid {pid}) holds its write lock and is stopped" in first, r
        assert "nothing was changed" in first, r
        assert (
            hint
            == f"  hint: continue it with: kill -CONT {pid} (or fg in its terminal), then try again"
        )
        assert took < 10, f"the command waited {took:.1f} s"  # one lock step, not the 30 s wait
        assert bt.sql("SELECT value FROM meta WHERE key = 'rev'") == before
    finally:
        os.kill(pid, signal.SIGCONT)
    # continued, the engine goes on, and the same command now works
    bt.cli("kill", coord)
    wait_for(lambda: bt.status(coord) == "KILLED", 15, "the coordinator killed")
    engine.stop()


def _busy_coordinator(bt: Bt4) -> str:
    bt.apps.write("wf/workflow.xml", FS_WF)
    out = f"{bt.tmp}/out/${{coord:formatTime(coord:nominalTime(), 'yyyyMMddHH')}}"
    bt.apps.write(
        "c.xml", coordinator_xml("c", start=T0, end=END, workflow="wf", conf={"out": out})
    )
    return bt.submit_job(bt.apps.props("c.properties", {"oozie.coord.application.path": "c.xml"}))


def test_a_standby_waits_on_when_the_engine_is_stopped_holding_the_write_lock(bt: Bt4) -> None:
    """QA (ah): a standby engine exited (EB006, exit 1, its API with it) when the active
    engine was stopped inside its tick: its lease poll was a write, refused at once while a
    stopped engine held the lock. Killing the stopped engine, as the standby's log advises,
    then left no engine at all. The standby waits, and takes over when the engine is gone."""
    coord = _busy_coordinator(bt)
    active = bt.engine("--clock", "simulated", "--start-time", T0, "--until", END)
    wait_for(lambda: len(bt.actions(coord)) > 50, 30, "the engine busy with actions")
    standby = bt.engine("--clock", "simulated", "--until", END, wait=False)
    standby.wait_log("waiting as standby")
    _stop_inside_a_transaction(active, bt)
    try:
        time.sleep(3)  # it exited within a second
        assert standby.alive(), standby.log()
        assert "EB006" not in standby.log(), standby.log()
    finally:
        active.kill9()  # the stopped engine goes: its lock goes with it
    standby.wait_log("engine active", timeout=30)
    done = len(bt.actions(coord))
    wait_for(lambda: len(bt.actions(coord)) > done, 30, "the standby's engine at work")
    standby.stop()


LOCK_SCRIPT = """
import asyncio, logging, sqlite3, sys, threading, time
from datetime import datetime
from pathlib import Path
from bundletui.engine.service import Engine, EngineConfig
from bundletui.store import db

db.LOCK_WAIT_MS = 1_000  # the 30 s a command waits, shortened
logging.basicConfig(level=logging.WARNING, format="%(message)s")
home = Path(sys.argv[1])
engine = Engine(EngineConfig(
    home=home, clock="simulated", watch=False,
    start_time=datetime.fromisoformat(sys.argv[2]), until=datetime.fromisoformat(sys.argv[3]),
))

def hold() -> None:  # a sqlite3 shell left in BEGIN IMMEDIATE for 3 s, once the engine ticks
    # after its recovery (which meets a held lock in a test of its own): the lock must fall
    # on a tick, or this run shows the recovery's wait, not the tick's
    while engine.state != "active" or engine.ticks < 1:
        time.sleep(0.01)
    conn = sqlite3.connect(home / "bundletui.db", timeout=30, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    time.sleep(3)
    conn.execute("ROLLBACK")

threading.Thread(target=hold, daemon=True).start()
asyncio.run(engine.run())
print("engine ended")
"""


def test_an_engine_goes_on_when_another_process_holds_the_write_lock_past_the_wait(
    bt: Bt4,
) -> None:
    """QA (ah): another process holding the write lock for 30 s (a command stopped with
    Ctrl-Z inside its transaction, a sqlite3 shell left in BEGIN) made the engine exit with
    EB006, leaving no engine. The tick's work waits and is done when the lock is free: every
    action of the run ends SUCCEEDED, once."""
    coord = _busy_coordinator(bt)
    until = "2026-03-01T00:00Z"  # 1,417 hourly actions (the last at --until): seconds of work
    p = subprocess.run(
        [sys.executable, "-c", LOCK_SCRIPT, str(bt.home), T0, until],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0 and "engine ended" in p.stdout, p.stderr[-3000:]
    assert "tick not written: the store " in p.stderr and "stayed locked" in p.stderr, p.stderr
    assert "the store is writable again after" in p.stderr, p.stderr
    actions = bt.actions(coord)
    assert len(actions) == 1_417 and set(actions.values()) == {"SUCCEEDED"}, actions


def test_a_kill_while_the_engine_is_stopped_says_when_it_will_act(bt: Bt4) -> None:
    """QA (ah): with the engine stopped (Ctrl-Z, SIGSTOP) outside its transaction, ``kill``
    said nothing and exited 0: the job read KILLED while its processes ran on to their end.
    It says the engine is stopped and that the kill acts when it continues."""
    coord = _busy_coordinator(bt)
    engine = bt.engine("--clock", "simulated", "--start-time", T0, "--until", END)
    pid = engine.proc.pid
    wait_for(lambda: len(bt.actions(coord)) > 50, 30, "the engine busy with actions")
    deadline = time.monotonic() + 20
    while True:  # stopped where it holds no lock
        os.kill(pid, signal.SIGSTOP)
        wait_for(lambda: open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "T")
        if not _locked(bt):
            break
        os.kill(pid, signal.SIGCONT)
        assert time.monotonic() < deadline, "the engine always held the lock"
        time.sleep(0.003)
    try:
        r = bt.cli("kill", coord)
        said = " ".join(r.stderr.split())
        assert f"note: the engine (pid {pid}) is stopped (Ctrl-Z or SIGSTOP)" in said, r
        assert f"when it continues (kill -CONT {pid}" in said, r
    finally:
        os.kill(pid, signal.SIGCONT)
    wait_for(lambda: bt.status(coord) == "KILLED", 15, "the coordinator killed")
    engine.stop()


UNTIL_SCRIPT = """
import asyncio, logging, sqlite3, sys, threading, time
from datetime import datetime
from pathlib import Path
from bundletui.engine.service import Engine, EngineConfig
from bundletui.model.clock import to_ms
from bundletui.store import db

db.LOCK_WAIT_MS = 1_000
logging.basicConfig(level=logging.INFO, format="%(message)s")
home, until = Path(sys.argv[1]), datetime.fromisoformat(sys.argv[3])
engine = Engine(EngineConfig(
    home=home, clock="simulated", watch=False,
    start_time=datetime.fromisoformat(sys.argv[2]), until=until,
))
held = threading.Event()

def hold() -> None:
    conn = sqlite3.connect(home / "bundletui.db", timeout=30, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    held.set()
    time.sleep(3)
    conn.execute("ROLLBACK")

jump = Engine._jump

def jump_holding_the_lock(self, time_ms):  # the moment the clock reaches --until
    if time_ms >= to_ms(until) and not held.is_set():
        threading.Thread(target=hold, daemon=True).start()
        held.wait()
    return jump(self, time_ms)

Engine._jump = jump_holding_the_lock
asyncio.run(engine.run())
print("engine ended")
"""


def test_a_run_until_does_the_work_due_at_until_when_the_lock_was_held_then(bt: Bt4) -> None:
    """QA (ai): a write lock held past the wait when the clock reached ``--until`` stopped the
    engine with the work due at ``--until`` undone, exit 0 (the retry was not waited for)."""
    coord = _busy_coordinator(bt)
    p = subprocess.run(
        [sys.executable, "-c", UNTIL_SCRIPT, str(bt.home), T0, "2026-01-01T03:00Z"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0 and "engine ended" in p.stdout, p.stderr[-3000:]
    assert "tick not written" in p.stderr, p.stderr
    waited = float(p.stderr.split("writable again after ")[1].split(" s")[0])
    assert waited >= 2.5, p.stderr  # from the first ask: the 3 s the lock was held
    assert bt.actions(coord) == dict.fromkeys(range(1, 5), "SUCCEEDED")


HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_an_engine_waiting_for_another_processs_write_lock_at_once(
    bt: Bt4, sig: signal.Signals
) -> None:
    """QA: an engine whose tick waited for a write lock another process held (a sqlite3 shell
    left in BEGIN) took Ctrl-C only when the 30 s wait ended. It stops within a second or
    two, its tick undone, and the next engine does that work: every action once."""
    coord = _busy_coordinator(bt)
    until = "2026-03-01T00:00Z"  # 1,417 hourly actions (the last at --until): seconds of work
    engine = bt.engine("--clock", "simulated", "--start-time", T0, "--until", until)
    wait_for(lambda: len(bt.actions(coord)) > 20, 30, "the engine busy with actions")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(bt.home / "bundletui.db")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        time.sleep(0.6)  # the engine's next tick waits for the lock
        asked = time.monotonic()
        engine.proc.send_signal(sig)
        assert engine.wait(10) == 0
        took = time.monotonic() - asked
        assert took < 3.0, (took, engine.log()[-2000:])
        log = " ".join(engine.log().split())
        assert "tick not written: the wait for the store's write lock" in log, log[-2000:]
        assert "was given up" in log and "; stopping" in log, log[-2000:]
        assert "Traceback" not in log, log[-3000:]
        done = bt.actions(coord)
    finally:
        holder.kill()
        holder.wait(10)
    assert len(done) < 1_417  # stopped mid-run: there is work left for the next engine
    bt.engine("--clock", "simulated", "--until", until).wait(60)
    actions = bt.actions(coord)
    assert len(actions) == 1_417 and set(actions.values()) == {"SUCCEEDED"}, actions
    assert bt.sql("SELECT count(*) FROM wf_jobs") == [(1_417,)]  # each launched once
