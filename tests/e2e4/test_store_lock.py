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
