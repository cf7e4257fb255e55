"""SAFEMODE pauses the engine's coordinators, as Oozie's services pause (oozie.md §6.3, §7.1).

Set with ``bundletui oozie admin -systemmode SAFEMODE`` (the mode is in the store): nothing
materializes, no input is checked, no action launches; jobs already running go on. Back in
NORMAL, the coordinators catch up. Through the real CLI and real ``bundletui run`` processes,
on the simulated clock and, for a change while the engine runs, on the real one.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from tests.e2e4.conftest import (
    Bt4,
    coordinator_xml,
    data_in,
    fmt,
    hourly_ds,
    ms,
    trace_counts,
    wait_for,
)

T0 = "2026-01-01T00:00Z"


def _submit(bt: Bt4, start: str, end: str, **kw: object) -> str:
    bt.apps.write("c.xml", coordinator_xml("c", start=start, end=end, **kw))  # type: ignore[arg-type]
    props = bt.apps.props("c.properties", {"oozie.coord.application.path": "c.xml"})
    return bt.submit_job(props)


def _submit_waiting(bt: Bt4) -> str:
    """One action at 00:00 waiting for an input that never lands, its timeout due at 01:00."""
    return _submit(
        bt,
        T0,
        "2026-01-01T01:00Z",
        controls={"timeout": "60"},
        datasets=[hourly_ds("raw")],
        inputs=[data_in("raw", "raw", "${coord:current(0)}")],
    )


def test_nothing_materializes_in_safe_mode_and_everything_catches_up_after(bt: Bt4) -> None:
    coord = _submit(bt, T0, "2026-01-01T03:00Z")
    assert bt.cli("oozie", "admin", "-systemmode", "SAFEMODE").stdout == "System mode: SAFEMODE\n"
    e = bt.sim(T0, "2026-01-01T04:00Z")
    assert "system mode SAFEMODE" in e.log(), e.log()
    assert bt.actions(coord) == {} and bt.status(coord) == "PREP"
    assert not bt.trace.exists()
    assert bt.info_json(coord)["materialization"]["heldBy"] == (
        "system SAFEMODE: nothing materializes until the mode is NORMAL"
    )

    bt.cli("oozie", "admin", "-systemmode", "NORMAL")
    bt.sim(T0, "2026-01-01T04:00Z")
    assert bt.actions(coord) == {1: "SUCCEEDED", 2: "SUCCEEDED", 3: "SUCCEEDED"}
    assert bt.status(coord) == "SUCCEEDED"
    assert sorted(trace_counts(bt.trace).values()) == [1, 1, 1]  # each launched once


def test_a_running_engine_pauses_and_resumes_with_the_mode(bt: Bt4) -> None:
    """The mode changes while ``bundletui run`` (real clock) runs: it notices the other
    process's commit, holds the coordinator's due actions while in SAFEMODE, and launches them
    within moments of NORMAL."""
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    coord = _submit(bt, fmt(now - timedelta(hours=3)), fmt(now + timedelta(hours=1)))
    bt.cli("oozie", "admin", "-systemmode", "SAFEMODE")
    e = bt.engine()
    time.sleep(1.5)  # ample for a catch-up of three actions, were it not held
    assert bt.actions(coord) == {} and bt.status(coord) == "PREP"

    bt.cli("oozie", "admin", "-systemmode", "NORMAL")
    wait_for(lambda: set(bt.actions(coord).values()) == {"SUCCEEDED"}, 20, "actions run")
    assert sorted(bt.actions(coord)) == [1, 2, 3, 4]
    assert "system mode NORMAL: coordinators go on" in e.log()
    assert e.stop() == 0


def test_a_timeout_that_falls_due_in_safe_mode_waits_for_normal(bt: Bt4) -> None:
    """Action 1 waits for an input that never lands, timeout 60 minutes (due 01:00). A run in
    SAFEMODE across 01:00 leaves it WAITING (its input check, which times it out, is paused);
    the next run, in NORMAL, times it out."""
    coord = _submit_waiting(bt)
    bt.sim(T0, "2026-01-01T00:30Z")
    assert bt.actions(coord) == {1: "WAITING"}
    bt.cli("oozie", "admin", "-systemmode", "SAFEMODE")
    bt.sim("2026-01-01T00:30Z", "2026-01-01T02:00Z")
    assert bt.actions(coord) == {1: "WAITING"}
    why = bt.info_json(coord)["actions"][0]["waitingFor"]["detail"]  # it said only "missing"
    assert why.endswith("; system SAFEMODE: inputs are checked when the mode is NORMAL"), why
    bt.cli("oozie", "admin", "-systemmode", "NORMAL")
    bt.sim("2026-01-01T02:00Z", "2026-01-01T02:30Z")
    assert bt.actions(coord) == {1: "TIMEDOUT"}


HOLD = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="hold">
  <start to="hold"/>
  <action name="hold">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <exec>python3</exec>
      <argument>-c</argument>
      <argument>import os, sys, time; [time.sleep(0.05) for _ in iter(lambda: os.path.exists(sys.argv[1]), False)]</argument>
      <argument>${gate}</argument>
    </shell>
    <ok to="end"/>
    <error to="end"/>
  </action>
  <end name="end"/>
</workflow-app>
"""


def test_a_timeout_already_queued_when_safe_mode_begins_is_kept_for_normal(bt: Bt4) -> None:
    """One run of the engine (simulated clock, no --until). Action w@1 waits for an input that
    never lands, its timeout queued for 01:00. Action h@1's job holds the clock at 00:00 (a
    running job stops simulated time) until the test opens its gate, after SAFEMODE is set:
    the clock then passes 01:00 in SAFEMODE, and w@1 stays WAITING. When the mode goes back to
    NORMAL, in the same run, the timeout that fell due meanwhile is applied."""
    gate = bt.tmp / "gate"
    gate.touch()
    bt.apps.write("hold.xml", HOLD)
    bt.apps.write(
        "h.xml",
        coordinator_xml(
            "h", start=T0, end="2026-01-01T01:00Z", workflow="hold.xml", conf={"gate": str(gate)}
        ),
    )
    holder = bt.submit_job(bt.apps.props("h.properties", {"oozie.coord.application.path": "h.xml"}))
    waiter = _submit_waiting(bt)
    e = bt.engine("--clock", "simulated", "--start-time", T0)
    wait_for(lambda: bt.actions(holder) == {1: "RUNNING"}, 20, "h@1 running")
    wait_for(lambda: bt.actions(waiter) == {1: "WAITING"}, 20, "w@1 waiting")
    bt.cli("oozie", "admin", "-systemmode", "SAFEMODE")
    e.wait_log("system mode SAFEMODE")
    gate.unlink()  # h@1 ends (running jobs go on in SAFEMODE); simulated time moves again

    def sim_now() -> int:
        rows = bt.sql("SELECT value FROM meta WHERE key = 'sim_now'")
        return int(rows[0][0]) if rows else 0

    wait_for(lambda: sim_now() >= ms("2026-01-01T01:00Z"), 20, "the clock past 01:00")
    time.sleep(0.3)
    assert bt.actions(waiter) == {1: "WAITING"}  # not timed out in SAFEMODE
    assert bt.actions(holder) == {1: "SUCCEEDED"}

    bt.cli("oozie", "admin", "-systemmode", "NORMAL")
    wait_for(lambda: bt.actions(waiter) == {1: "TIMEDOUT"}, 20, "w@1 timed out in NORMAL")
    assert e.stop() == 0
