"""Seed 000, requirements 17-21 and the state-transition table: kill / suspend / resume / pause
cascades with the seed's pending flags, critical coordinators, every bundle status, rerun.

A bundle command runs in the CLI's transaction: it changes the bundle, marks each bundle action
pending and leaves one child command per coordinator in the outbox. Running those commands with
no engine up shows the flags set; starting an engine shows them cleared once the children acted.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from tests.e2e4.conftest import (
    BC,
    BUNDLETUI,
    Bt4,
    bundle_xml,
    coordinator_xml,
    data_in,
    data_out,
    hourly_ds,
    hours,
    trace_counts,
    wait_for,
)

START = "2026-01-01T00:00Z"


def two_coordinators(
    bt: Bt4,
    *,
    end: str = "2026-01-01T03:00Z",
    kickoff: str | None = None,
    busy_sleep: str = "0",
    hold: str = "/nonexistent",
    extra: list[BC] | None = None,
) -> Path:
    """``busy``: hourly, each workflow sleeps ``busy_sleep`` s (after waiting while ``hold``
    exists); ``starved``: hourly, waits for input that never lands (its actions stay WAITING)."""
    bt.apps.write(
        "busy.xml",
        coordinator_xml(
            "busy",
            controls={"concurrency": "1"},
            conf={"sleep": busy_sleep, "holdWhile": hold},
        ),
    )
    bt.apps.write(
        "starved.xml",
        coordinator_xml(
            "starved",
            controls={"timeout": "-1", "throttle": "3"},
            datasets=[hourly_ds("never")],
            inputs=[data_in("in", "never", "${coord:current(0)}")],
        ),
    )
    coords = [BC("busy", "busy.xml"), BC("starved", "starved.xml"), *(extra or [])]
    bt.apps.write("bundle.xml", bundle_xml("ctl", coords, kickoff=kickoff))
    return bt.apps.props(
        "job.properties",
        {"oozie.bundle.application.path": "bundle.xml", "start": START, "end": end},
    )


def coord_statuses(bt: Bt4, bundle_id: str) -> dict[str, str]:
    return {
        name: status
        for name, status in bt.sql(
            "SELECT app_name, status FROM coord_jobs WHERE bundle_id = ?", bundle_id
        )
    }


def pending(bt: Bt4, bundle_id: str) -> tuple[int, dict[str, int]]:
    (bp,) = bt.sql("SELECT pending FROM bundle_jobs WHERE id = ?", bundle_id)[0]
    return bp, {n: p for n, (_s, p) in bt.bundle_actions(bundle_id).items()}


def busy_running(bt: Bt4, bundle_id: str) -> tuple[str, str]:
    """Wait until busy's first action runs its (sleeping) workflow; (action id, workflow id)."""
    busy = bt.coords_of(bundle_id).get("busy")

    def running() -> bool:
        return bool(
            busy
            and bt.sql(
                "SELECT 1 FROM coord_actions WHERE coord_id = ? AND status = 'RUNNING'", busy
            )
        )

    wait_for(lambda: bool(bt.coords_of(bundle_id).get("busy")), 20, "busy submitted")
    busy = bt.coords_of(bundle_id)["busy"]
    wait_for(running, 20, "busy@1 RUNNING")
    wait_for(lambda: bt.trace.exists(), 20, "the workflow's shell job started")
    aid, wf = bt.sql(
        "SELECT id, external_id FROM coord_actions WHERE coord_id = ? AND status = 'RUNNING'", busy
    )[0]
    return aid, wf


def shell_pid(bt: Bt4, wf_id: str) -> int:
    """The shell job's pid, once the engine has recorded it.

    The launch row is written before the process starts and its pid just after, so the job
    can already be writing its trace while the pid is not yet committed.
    """

    def recorded() -> int | None:
        rows = bt.sql(
            "SELECT pid FROM wf_nodes WHERE wf_id = ? AND name = 'mark' AND pid IS NOT NULL",
            wf_id,
        )
        return int(rows[0][0]) if rows else None

    wait_for(lambda: recorded() is not None, 20, "the shell job's pid recorded")
    pid = recorded()
    assert pid is not None
    return pid


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")


# ----------------------------------------------------------------------------- 17


def test_req_17_kill_cascades_to_coordinators_actions_and_running_workflows_with_pending_flags(
    bt: Bt4,
) -> None:
    bundle_id = bt.submit_job(two_coordinators(bt, busy_sleep="60"), start=True)
    engine = bt.engine("--clock", "simulated", "--start-time", START)
    action_id, wf_id = busy_running(bt, bundle_id)
    pid = shell_pid(bt, wf_id)
    starved = bt.coords_of(bundle_id)["starved"]
    wait_for(lambda: bt.actions(starved).get(1) == "WAITING", 10, "starved@1 WAITING")
    engine.stop()  # running jobs keep running; the kill's child commands wait in the outbox

    bt.cli("kill", bundle_id)
    assert bt.status(bundle_id) == "KILLED"
    assert pending(bt, bundle_id) == (1, {"busy": 1, "starved": 1})  # set by the command
    assert coord_statuses(bt, bundle_id) == {"busy": "RUNNING", "starved": "RUNNING"}
    assert alive(pid)

    bt.engine("--clock", "simulated", "--start-time", START)
    wait_for(lambda: pending(bt, bundle_id) == (0, {"busy": 0, "starved": 0}), 20, "cleared")
    assert coord_statuses(bt, bundle_id) == {"busy": "KILLED", "starved": "KILLED"}
    assert {n: s for n, (s, _p) in bt.bundle_actions(bundle_id).items()} == {
        "busy": "KILLED",
        "starved": "KILLED",
    }
    assert bt.peek(action_id)["status"] == "KILLED"
    assert bt.actions(starved)[1] == "KILLED"
    wait_for(lambda: bt.peek(wf_id)["status"] == "KILLED", 10, "workflow KILLED")
    wait_for(lambda: not alive(pid), 10, "the shell job gone")
    assert bt.status(bundle_id) == "KILLED"
    bt.fails("kill", bundle_id, code="E1323")  # any state -> KILLED, but not twice


def test_req_17_a_bundle_killed_before_any_engine_submitted_its_coordinators(bt: Bt4) -> None:
    bundle_id = bt.submit_job(two_coordinators(bt), start=True)
    bt.cli("kill", bundle_id)
    assert bt.status(bundle_id) == "KILLED"
    assert {n: s for n, (s, _p) in bt.bundle_actions(bundle_id).items()} == {
        "busy": "KILLED",
        "starved": "KILLED",
    }
    bt.sim(START, START)  # the start's submit commands find the bundle killed
    assert pending(bt, bundle_id) == (0, {"busy": 0, "starved": 0})
    assert bt.sql("SELECT count(*) FROM coord_jobs")[0][0] == 0
    assert bt.status(bundle_id) == "KILLED"


# ----------------------------------------------------------------------------- 18, 20


def test_req_18_20_suspend_and_resume_cascade_to_coordinators_actions_and_workflows(
    bt: Bt4,
) -> None:
    hold = bt.tmp / "hold"  # busy@1 runs until this goes (and the simulated clock stands still)
    hold.touch()
    bundle_id = bt.submit_job(two_coordinators(bt, hold=str(hold)), start=True)
    engine = bt.engine("--clock", "simulated", "--start-time", START)
    action_id, wf_id = busy_running(bt, bundle_id)
    engine.stop()

    r = bt.cli("suspend", bundle_id)
    # QA: a plain suspend with no engine said nothing, though its cascade waits for one
    assert (
        "note: no engine is running; the suspend is recorded (its status is SUSPENDED now);"
        " its coordinators, their actions and workflows are suspended when one starts"
        in " ".join(r.stderr.split())
    ), r
    assert bt.status(bundle_id) == "SUSPENDED"
    assert pending(bt, bundle_id) == (1, {"busy": 1, "starved": 1})
    bt.engine("--clock", "simulated", "--start-time", START)
    wait_for(lambda: pending(bt, bundle_id) == (0, {"busy": 0, "starved": 0}), 20, "cleared")
    assert coord_statuses(bt, bundle_id) == {"busy": "SUSPENDED", "starved": "SUSPENDED"}
    assert bt.peek(action_id)["status"] == "SUSPENDED"
    assert bt.peek(wf_id)["status"] == "SUSPENDED"
    starved = bt.coords_of(bundle_id)["starved"]
    assert bt.actions(starved)[1] == "WAITING"  # only running actions are suspended
    assert bt.status(bundle_id) == "SUSPENDED"

    bt.cli("resume", bundle_id)  # live engine: the children act within a tick or two
    wait_for(
        lambda: coord_statuses(bt, bundle_id) == {"busy": "RUNNING", "starved": "RUNNING"},
        10,
        "coordinators RUNNING",
    )
    wait_for(lambda: pending(bt, bundle_id) == (0, {"busy": 0, "starved": 0}), 10, "cleared")
    assert bt.status(bundle_id) == "RUNNING"
    assert bt.peek(wf_id)["status"] == "RUNNING"
    hold.unlink()
    wait_for(lambda: bt.peek(action_id)["status"] == "SUCCEEDED", 20, "busy@1 SUCCEEDED")
    bt.fails("resume", bundle_id, code="E1100")


def test_suspend_freeze_of_a_bundle_freezes_the_running_jobs_under_it(bt: Bt4) -> None:
    """``suspend B --freeze`` exited 0 and froze nothing (QA): it reaches the running jobs
    through each coordinator, as ``suspend WF --freeze`` does; resume thaws them."""
    hold = bt.tmp / "hold"
    hold.touch()
    bundle_id = bt.submit_job(two_coordinators(bt, hold=str(hold)), start=True)
    bt.engine("--clock", "simulated", "--start-time", START)
    action_id, wf_id = busy_running(bt, bundle_id)
    pid = shell_pid(bt, wf_id)
    bt.cli("suspend", bundle_id, "--freeze")

    def state() -> str:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]

    wait_for(lambda: state() == "T", 20, "the running job frozen")
    assert bt.peek(wf_id)["status"] == "SUSPENDED"
    bt.cli("resume", bundle_id)
    wait_for(lambda: state() != "T", 20, "the job thawed")
    hold.unlink()
    wait_for(lambda: bt.peek(action_id)["status"] == "SUCCEEDED", 20, "busy@1 SUCCEEDED")


def test_a_resume_right_after_a_suspend_follows_it_before_the_children_acted(bt: Bt4) -> None:
    """Both with no engine up: the resume must not skip the coordinators whose suspend is still
    queued (their bundle actions still say RUNNING), or they end SUSPENDED under a RUNNING
    bundle and the roll-up pulls the bundle back to SUSPENDED."""
    bundle_id = bt.submit_job(two_coordinators(bt), start=True)
    engine = bt.engine("--clock", "simulated", "--start-time", START)
    wait_for(lambda: len(coord_statuses(bt, bundle_id)) == 2, 20, "coordinators submitted")
    engine.stop()

    bt.cli("suspend", bundle_id)
    bt.cli("resume", bundle_id)
    assert bt.status(bundle_id) == "RUNNING"
    assert pending(bt, bundle_id) == (1, {"busy": 2, "starved": 2})
    bt.engine("--clock", "simulated", "--start-time", START)
    wait_for(lambda: pending(bt, bundle_id) == (0, {"busy": 0, "starved": 0}), 20, "cleared")
    assert coord_statuses(bt, bundle_id) == {"busy": "RUNNING", "starved": "RUNNING"}
    assert bt.status(bundle_id) == "RUNNING"


# ----------------------------------------------------------------------------- 19 (pause)


def test_req_19_pausetime_nothing_materializes_at_or_after_it_paused_when_reached_running_when_cleared(
    bt: Bt4,
) -> None:
    bt.apps.write("hourly.xml", coordinator_xml("hourly"))
    bt.apps.write("bundle.xml", bundle_xml("pause", [BC("a", "hourly.xml"), BC("b", "hourly.xml")]))
    config = bt.apps.props(
        "job.properties",
        {
            "oozie.bundle.application.path": "bundle.xml",
            "start": START,
            "end": "2026-01-01T12:00Z",
        },
    )
    bundle_id = bt.submit_job(config, start=True)
    bt.sim(START, "2026-01-01T02:30Z")
    bt.fails("change", bundle_id, "--value", "pausetime=2026-01-01T02:00Z", code="E1317")
    bt.fails("change", bundle_id, "--value", "concurrency=3", code="E1317")
    for bad in ("pausetime=2027-01-01", "endtime=x"):  # a bundle's code, not a coordinator's
        err = bt.fails("change", bundle_id, "--value", bad, code="E1317").stderr
        assert f"Invalid bundle job change value {bad}, {bad.split('=')[0]}: Could not parse" in err
        assert "hint: write times as yyyy-MM-ddTHH:mmZ" in err

    bt.cli("change", bundle_id, "--value", "pausetime=2026-01-01T05:00Z")
    assert bt.peek(bundle_id)["pauseTime"] == "Thu, 01 Jan 2026 05:00:00 GMT"
    bt.sim(START, "2026-01-01T08:00Z")
    assert bt.status(bundle_id) == "PAUSED"
    coords = bt.coords_of(bundle_id)
    for coord_id in coords.values():
        info = bt.peek(coord_id)
        assert info["status"] == "PAUSED"
        assert info["pauseTime"] == "Thu, 01 Jan 2026 05:00:00 GMT"
        assert bt.nominals(coord_id)[-1] == "2026-01-01T04:00Z"  # none at or after 05:00
        assert len(bt.nominals(coord_id)) == 5
        assert "PAUSED" in (info["materialization"]["heldBy"] or "")

    # moved into the future: RUNNING again, materializes up to the new pause time
    bt.cli("change", bundle_id, "--value", "pausetime=2026-01-01T10:00Z")
    assert bt.status(bundle_id) == "RUNNING"
    bt.sim(START, "2026-01-01T09:30Z")
    assert bt.status(bundle_id) == "RUNNING"
    for coord_id in coords.values():
        assert bt.status(coord_id) == "RUNNING"
        assert bt.nominals(coord_id)[-1] == "2026-01-01T09:00Z"

    # cleared: runs to the end
    bt.cli("change", bundle_id, "--value", "pausetime=")
    bt.sim(START, "2026-01-01T12:00Z")
    assert bt.peek(bundle_id)["pauseTime"] is None
    assert bt.status(bundle_id) == "SUCCEEDED"
    for coord_id in coords.values():
        assert len(bt.nominals(coord_id)) == 12
        assert bt.status(coord_id) == "SUCCEEDED"


def test_bundle_endtime_change_reaches_every_coordinator_and_revives_a_succeeded_bundle(
    bt: Bt4,
) -> None:
    bt.apps.write("hourly.xml", coordinator_xml("hourly"))
    bt.apps.write("bundle.xml", bundle_xml("end", [BC("a", "hourly.xml"), BC("b", "hourly.xml")]))
    config = bt.apps.props(
        "job.properties",
        {
            "oozie.bundle.application.path": "bundle.xml",
            "start": START,
            "end": "2026-01-01T02:00Z",
        },
    )
    bundle_id = bt.submit_job(config, start=True)
    bt.sim(START, "2026-01-01T03:00Z")
    assert bt.status(bundle_id) == "SUCCEEDED"

    bt.cli("change", bundle_id, "--value", "endtime=2026-01-01T04:00Z")
    assert bt.status(bundle_id) == "RUNNING"  # SUCCEEDED -> RUNNING
    bt.sim(START, "2026-01-01T05:00Z")
    assert bt.status(bundle_id) == "SUCCEEDED"
    for coord_id in bt.coords_of(bundle_id).values():
        assert bt.peek(coord_id)["endTime"] == "Thu, 01 Jan 2026 04:00:00 GMT"
        assert bt.nominals(coord_id) == [
            "2026-01-01T00:00Z",
            "2026-01-01T01:00Z",
            "2026-01-01T02:00Z",
            "2026-01-01T03:00Z",
        ]


def test_an_endtime_given_before_the_coordinators_exist_reaches_them_when_submitted(
    bt: Bt4,
) -> None:
    """A PREP bundle, and a started one whose coordinators the engine has not yet submitted:
    the end time changed meanwhile is the one they get (it was shown, then not applied)."""
    bt.apps.write("hourly.xml", coordinator_xml("hourly"))
    bt.apps.write(
        "bundle.xml",
        bundle_xml("end", [BC("a", "hourly.xml"), BC("b", "hourly.xml")], kickoff=START),
    )
    config = bt.apps.props(
        "job.properties",
        {"oozie.bundle.application.path": "bundle.xml", "start": START, "end": "2026-01-02T00:00Z"},
    )
    prep = bt.submit_job(config)
    started = bt.submit_job(config, start=True)
    both = bt.submit_job(config)
    for bundle_id in (prep, started):
        bt.cli("change", bundle_id, "--value", "endtime=2026-01-01T02:00Z")
        assert bt.coords_of(bundle_id) == {}
    # QA (s): with a pause time beside it, the end time was not kept for coordinators to come
    bt.cli("change", both, "--value", "endtime=2026-01-01T02:00Z;pausetime=2030-01-01T00:00Z")
    bt.sim(START, "2026-01-01T05:00Z")
    for bundle_id in (prep, started, both):
        assert bt.status(bundle_id) == "SUCCEEDED"
        for coord_id in bt.coords_of(bundle_id).values():
            assert bt.peek(coord_id)["endTime"] == "Thu, 01 Jan 2026 02:00:00 GMT"
            assert bt.nominals(coord_id) == ["2026-01-01T00:00Z", "2026-01-01T01:00Z"]
    assert {bt.peek(c)["pauseTime"] for c in bt.coords_of(both).values()} == {
        "Tue, 01 Jan 2030 00:00:00 GMT"
    }


# ----------------------------------------------------------------------------- PREP states


def test_prep_bundle_prepsuspended_and_preppaused_then_prep_and_kick_off(bt: Bt4) -> None:
    """PREP -> PREPSUSPENDED (suspend) -> PREP (resume); PREP -> PREPPAUSED (pause time
    reached) -> PREP (pause time cleared); a kick-off time passed meanwhile starts it."""
    config = two_coordinators(bt, kickoff="2026-01-01T04:00Z", end="2026-01-01T06:00Z")
    bundle_id = bt.submit_job(config)
    bt.sim(START, "2026-01-01T00:30Z")
    r = bt.cli("suspend", bundle_id)
    assert bt.status(bundle_id) == "PREPSUSPENDED"
    # QA: the note said SUSPENDED, the status it has only once started
    assert "(its status is PREPSUSPENDED now)" in " ".join(r.stderr.split()), r
    bt.sim(START, "2026-01-01T05:00Z")  # kick-off passes while suspended: nothing starts
    assert bt.status(bundle_id) == "PREPSUSPENDED"
    assert bt.coords_of(bundle_id) == {}
    bt.cli("resume", bundle_id)
    assert bt.status(bundle_id) == "PREP"
    bt.cli("kill", bundle_id)  # PREP -> KILLED too
    assert bt.status(bundle_id) == "KILLED"


def test_preppaused_when_the_pause_time_comes_before_the_kick_off(bt: Bt4) -> None:
    config = two_coordinators(bt, kickoff="2026-01-01T04:00Z", end="2026-01-01T06:00Z")
    bundle_id = bt.submit_job(config)
    bt.sim(START, "2026-01-01T00:30Z")
    bt.cli("change", bundle_id, "--value", "pausetime=2026-01-01T02:00Z")
    bt.sim(START, "2026-01-01T03:00Z")
    assert bt.status(bundle_id) == "PREPPAUSED"
    bt.cli("change", bundle_id, "--value", "pausetime=")
    assert bt.status(bundle_id) == "PREP"
    bt.sim(START, "2026-01-01T03:59Z")
    assert bt.status(bundle_id) == "PREP"
    bt.sim(START, "2026-01-01T04:30Z")
    assert bt.status(bundle_id) == "RUNNING"
    assert set(bt.coords_of(bundle_id)) == {"busy", "starved"}


# ----------------------------------------------------------------------------- critical


def test_a_bundle_pausetime_given_while_no_engine_runs_reaches_its_coordinators(bt: Bt4) -> None:
    """The engine applies a bundle's change to each coordinator when it next runs; a pause time
    that was ahead of the command was then refused as past (E1015, at INFO in the engine's
    log) and the coordinators ran through it (QA). It is checked against the command's time."""
    bt.apps.write("hourly.xml", coordinator_xml("hourly"))
    bt.apps.write("bundle.xml", bundle_xml("pause", [BC("a", "hourly.xml"), BC("b", "hourly.xml")]))
    config = bt.apps.props(
        "job.properties",
        {"oozie.bundle.application.path": "bundle.xml", "start": START, "end": "2026-01-01T12:00Z"},
    )
    bundle_id = bt.submit_job(config, start=True)
    bt.sim(START, "2026-01-01T01:30Z")
    bt.cli("change", bundle_id, "--value", "pausetime=2026-01-01T05:00Z")
    bt.sim("2026-01-01T10:00Z", "2026-01-01T10:10Z")  # the engine comes back much later
    assert bt.status(bundle_id) == "PAUSED"
    for coord_id in bt.coords_of(bundle_id).values():
        info = bt.peek(coord_id)
        assert info["pauseTime"] == "Thu, 01 Jan 2026 05:00:00 GMT", info
        assert info["status"] == "PAUSED"
        # the hours before it, due when the engine came back, are made; none at or after it
        assert bt.nominals(coord_id) == hours("2026-01-01T00:00Z", 5)


def test_a_clock_that_jumps_past_the_pause_time_still_makes_the_actions_before_it(
    bt: Bt4,
) -> None:
    """The coordinator went PAUSED (PREPPAUSED when it had none yet) before it materialized
    what was due: the hours before the pause time waited for an unpause (QA). They are made
    and run, in throttle-sized batches, and then it is PAUSED."""
    bt.apps.write("hourly.xml", coordinator_xml("hourly", controls={"throttle": 2}))
    config = bt.apps.props(
        "job.properties",
        {"oozie.coord.application.path": "hourly.xml", "start": START, "end": "2026-01-01T12:00Z"},
    )
    bt.sim(START, START)  # the submit is stamped on the simulated clock
    coord_id = bt.submit_job(config, start=True)
    bt.cli("change", coord_id, "--value", "pausetime=2026-01-01T05:00Z")
    bt.sim("2026-01-01T10:00Z", "2026-01-01T10:00Z")  # the engine comes back much later
    assert bt.status(coord_id) == "PAUSED"
    assert bt.nominals(coord_id) == hours("2026-01-01T00:00Z", 5)
    assert set(bt.actions(coord_id).values()) == {"SUCCEEDED"}
    held = bt.peek(coord_id)["materialization"]["heldBy"]
    assert held == "coordinator PAUSED at its pause time 2026-01-01 05:00 GMT"


def test_a_bundle_paused_from_below_leaves_paused_with_its_coordinators(bt: Bt4) -> None:
    """Each coordinator paused by its own pause time rolls the bundle up to PAUSED; clearing
    them left the bundle PAUSED for good, resume refused (QA)."""
    bt.apps.write("hourly.xml", coordinator_xml("hourly"))
    bt.apps.write("bundle.xml", bundle_xml("below", [BC("a", "hourly.xml"), BC("b", "hourly.xml")]))
    config = bt.apps.props(
        "job.properties",
        {"oozie.bundle.application.path": "bundle.xml", "start": START, "end": "2026-01-01T08:00Z"},
    )
    bundle_id = bt.submit_job(config, start=True)
    bt.sim(START, "2026-01-01T00:30Z")
    coords = bt.coords_of(bundle_id).values()
    for coord_id in coords:
        bt.cli("change", coord_id, "--value", "pausetime=2026-01-01T02:00Z")
    bt.sim(START, "2026-01-01T03:00Z")
    assert bt.status(bundle_id) == "PAUSED"
    for coord_id in coords:
        bt.cli("change", coord_id, "--value", "pausetime=")
    bt.sim(START, "2026-01-01T05:30Z")
    assert [bt.status(c) for c in coords] == ["RUNNING", "RUNNING"]
    assert bt.status(bundle_id) == "RUNNING"


def test_a_critical_coordinator_failing_to_submit_fails_the_bundle_and_kills_its_siblings(
    bt: Bt4,
) -> None:
    bt.apps.write("core.xml", coordinator_xml("core"))
    config = two_coordinators(
        bt, kickoff="2026-01-01T01:00Z", extra=[BC("core", "core.xml", critical=True)]
    )
    bundle_id = bt.submit_job(config)
    # the definition breaks after the submit (which checked it), before the kick-off
    bt.apps.write("core.xml", "<coordinator-app xmlns='uri:oozie:coordinator:0.4'/>")
    bt.sim(START, "2026-01-01T02:00Z")

    assert bt.status(bundle_id) == "FAILED"
    assert bt.peek(bundle_id)["endTime"] is not None  # a FAILED bundle has ended
    actions = bt.bundle_actions(bundle_id)
    assert actions["core"] == ("FAILED", 0)
    coord_ids = dict(
        bt.sql("SELECT coord_name, coord_id FROM bundle_actions WHERE bundle_id = ?", bundle_id)
    )
    assert coord_ids["core"] is None  # never submitted
    for sibling in ("busy", "starved"):  # submitted before the core (listed last): killed
        assert actions[sibling] == ("KILLED", 0)
        assert bt.status(coord_ids[sibling]) == "KILLED"
    audit = bt.sql("SELECT error FROM audit_log WHERE target = ? AND result = 'error'", bundle_id)
    assert any("core" in (e or "") for (e,) in audit), audit
    # info says why (it was in the audit log only, QA)
    info = bt.info_json(bundle_id)
    (core,) = [a for a in info["bundleActions"] if a["coordName"] == "core"]
    assert core["error"].startswith("coordinator core failed to submit: E07"), core
    assert info["errorMessage"] == core["error"]
    text = bt.cli("info", bundle_id).stdout
    assert "Error" in text and "coordinator core failed to submit" in text


def test_a_critical_child_failing_while_the_bundle_is_suspended_still_kills_its_siblings(
    bt: Bt4,
) -> None:
    """Started while suspended, the bundle submits its children held (PREPSUSPENDED); a
    critical one that fails then failed the bundle through the roll-up, with no kill, so a
    sibling stayed PREPSUSPENDED for good and resume was refused (QA)."""
    bt.apps.write("core.xml", coordinator_xml("core"))
    config = two_coordinators(bt, extra=[BC("core", "core.xml", critical=True)])
    bundle_id = bt.submit_job(config, start=True)
    bt.cli("suspend", bundle_id)
    bt.apps.write("core.xml", "<coordinator-app xmlns='uri:oozie:coordinator:0.4'/>")
    bt.sim(START, "2026-01-01T01:00Z")
    assert bt.status(bundle_id) == "FAILED"
    assert coord_statuses(bt, bundle_id) == {"busy": "KILLED", "starved": "KILLED"}
    assert bt.bundle_actions(bundle_id)["core"] == ("FAILED", 0)


def test_non_critical_failures_and_the_withError_states(bt: Bt4) -> None:
    """RUNNING -> RUNNINGWITHERROR (a non-critical coordinator fails to submit) ->
    SUSPENDEDWITHERROR (suspend) -> RUNNINGWITHERROR (resume) -> PAUSEDWITHERROR (pause time
    reached) -> RUNNINGWITHERROR (pause time cleared) -> DONEWITHERROR (all children ended)."""
    bt.apps.write("side.xml", coordinator_xml("side"))
    config = two_coordinators(
        bt,
        kickoff="2026-01-01T01:00Z",
        end="2026-01-01T06:00Z",
        extra=[BC("side", "side.xml", critical=False)],
    )
    bundle_id = bt.submit_job(config)
    bt.apps.write("side.xml", "<coordinator-app xmlns='uri:oozie:coordinator:0.4'/>")
    bt.sim(START, "2026-01-01T01:30Z")
    assert bt.status(bundle_id) == "RUNNINGWITHERROR"
    assert bt.bundle_actions(bundle_id)["side"] == ("FAILED", 0)
    assert coord_statuses(bt, bundle_id) == {"busy": "RUNNING", "starved": "RUNNING"}
    # a rerun naming it said nothing and did nothing (QA): it was never submitted
    r = bt.fails("rerun", bundle_id, "--coordinator", "side", code="E1018")
    assert "coordinator side" in r.stderr and "never submitted (FAILED)" in r.stderr, r

    bt.cli("suspend", bundle_id)
    assert bt.status(bundle_id) == "SUSPENDEDWITHERROR"
    bt.sim(START, "2026-01-01T01:30Z")
    assert coord_statuses(bt, bundle_id) == {"busy": "SUSPENDED", "starved": "SUSPENDED"}
    assert bt.status(bundle_id) == "SUSPENDEDWITHERROR"
    bt.cli("resume", bundle_id)
    assert bt.status(bundle_id) == "RUNNINGWITHERROR"
    bt.cli("change", bundle_id, "--value", "pausetime=2026-01-01T03:00Z")
    bt.sim(START, "2026-01-01T03:30Z")
    assert bt.status(bundle_id) == "PAUSEDWITHERROR"
    assert coord_statuses(bt, bundle_id) == {"busy": "PAUSED", "starved": "PAUSED"}
    bt.cli("change", bundle_id, "--value", "pausetime=")
    assert bt.status(bundle_id) == "RUNNINGWITHERROR"
    bt.sim(START, "2026-01-01T09:00Z")  # starved waits on (timeout -1: 60 days)
    starved = bt.coords_of(bundle_id)["starved"]
    bt.cli("kill", starved)  # a child ends badly; busy ends well
    bt.sim(START, "2026-01-01T09:00Z")
    assert coord_statuses(bt, bundle_id) == {"busy": "SUCCEEDED", "starved": "KILLED"}
    assert bt.status(bundle_id) == "DONEWITHERROR"
    assert pending(bt, bundle_id)[0] == 0


def test_a_failing_action_makes_coordinator_and_bundle_runningwitherror(bt: Bt4) -> None:
    flag = bt.tmp / "fail"
    flag.touch()
    bt.apps.write(
        "flaky.xml",
        coordinator_xml("flaky", conf={"failIf": "${flag}"}),
    )
    bt.apps.write("bundle.xml", bundle_xml("err", [BC("flaky", "flaky.xml")]))
    config = bt.apps.props(
        "job.properties",
        {
            "oozie.bundle.application.path": "bundle.xml",
            "start": START,
            "end": "2026-01-01T04:00Z",
            "flag": str(flag),
        },
    )
    bundle_id = bt.submit_job(config, start=True)
    bt.sim(START, "2026-01-01T00:30Z")
    coord_id = bt.coords_of(bundle_id)["flaky"]
    assert bt.actions(coord_id) == {1: "FAILED"}
    assert bt.status(coord_id) == "RUNNINGWITHERROR"
    assert bt.status(bundle_id) == "RUNNINGWITHERROR"
    flag.unlink()
    bt.sim(START, "2026-01-01T05:00Z")
    assert bt.actions(coord_id) == {1: "FAILED", 2: "SUCCEEDED", 3: "SUCCEEDED", 4: "SUCCEEDED"}
    assert bt.status(coord_id) == "DONEWITHERROR"
    assert bt.status(bundle_id) == "DONEWITHERROR"

    # 21: rerun the failed hour through the bundle: it succeeds now, and everything SUCCEEDED
    bt.cli("rerun", bundle_id, "--coordinator", "flaky", "--date", START)
    assert bt.status(bundle_id) == "RUNNINGWITHERROR"
    bt.sim(START, "2026-01-01T05:00Z")
    assert bt.actions(coord_id) == {n: "SUCCEEDED" for n in (1, 2, 3, 4)}
    assert bt.status(coord_id) == "SUCCEEDED"
    assert bt.status(bundle_id) == "SUCCEEDED"


# ----------------------------------------------------------------------------- 21 (rerun)


def test_req_21_bundle_rerun_by_coordinator_names_and_or_dates(bt: Bt4) -> None:
    bt.apps.write(
        "hourly.xml",
        coordinator_xml(
            "hourly",
            datasets=[hourly_ds("out", "out-${coordName}")],
            outputs=[data_out("out", "out")],
            conf={"outDir": "${coord:dataOut('out')}"},
        ),
    )
    coords = [BC(n, "hourly.xml", conf={"coordName": n}) for n in ("a", "b", "c")]
    bt.apps.write("bundle.xml", bundle_xml("rerun", coords))
    config = bt.apps.props(
        "job.properties",
        {
            "oozie.bundle.application.path": "bundle.xml",
            "start": START,
            "end": "2026-01-01T03:00Z",
        },
    )
    bundle_id = bt.submit_job(config)
    bt.fails("rerun", bundle_id, "--coordinator", "a", code="E1100")  # PREP: nothing to rerun
    for empty in (["--coordinator", ""], ["--coordinator", ",", "--date", START]):
        bt.fails("rerun", bundle_id, *empty, code="E1018")  # an empty list is not "all of them"
    bt.cli("start", bundle_id)
    bt.sim(START, "2026-01-01T04:00Z")
    assert bt.status(bundle_id) == "SUCCEEDED"
    ids = bt.coords_of(bundle_id)
    aid = {n: {k: f"{ids[n]}@{k}" for k in (1, 2, 3)} for n in ids}
    assert trace_counts(bt.trace) == {a: 1 for n in ids for a in aid[n].values()}
    r = bt.cli("rerun", bundle_id, check=False)
    assert r.code != 0 and "--coordinator" in r.stderr

    def outputs(n: str) -> list[str]:
        root = bt.landing / f"out-{n}"
        return sorted(str(p.relative_to(root)) for p in root.rglob("_SUCCESS"))

    assert outputs("b") == [
        "2026/01/01/00/_SUCCESS",
        "2026/01/01/01/_SUCCESS",
        "2026/01/01/02/_SUCCESS",
    ]

    # names only: every action of a (its whole start::end range); unknown names are passed
    # over, as Oozie does, but the operator is told which (a typo would otherwise rerun nothing)
    err = bt.fails("rerun", bundle_id, "--coordinator", "nosuch,other", code="E1018").stderr
    assert f"bundle {bundle_id} has no coordinator named nosuch, other: nothing to rerun" in err
    assert "hint: its coordinators: a, b, c" in err
    err = bt.fails("rerun", bundle_id, "--date", "2027-01-01T00:00Z", code="E1018").stderr
    assert (
        "no coordinator of bundle" in err and "has an action to rerun in [2027-01-01T00:00Z]" in err
    )
    r = bt.cli("rerun", bundle_id, "--coordinator", "a,nosuch")
    assert r.stderr.strip() == (
        f"Warning: bundle {bundle_id} has no coordinator named nosuch; its coordinators: a, b, c"
    )
    # QA: a bundle rerun printed nothing of what it reran; it prints the coordinators queued
    assert r.stdout.split() == [bt.coords_of(bundle_id)["a"]], r
    assert bt.status(bundle_id) == "RUNNING"
    assert pending(bt, bundle_id) == (1, {"a": 1, "b": 0, "c": 0})
    bt.sim(START, "2026-01-01T04:00Z")
    # a date range only: that range on every coordinator; --nocleanup keeps the outputs
    kept = bt.landing / "out-c/2026/01/01/01/keep-me"
    kept.touch()
    bt.cli("rerun", bundle_id, "--date", "2026-01-01T01:00Z::2026-01-01T02:00Z", "--nocleanup")
    bt.sim(START, "2026-01-01T04:00Z")
    assert kept.exists()
    # both: b's 00:00 only; without --nocleanup its output directory is deleted, then rewritten
    stale = bt.landing / "out-b/2026/01/01/00/stale"
    stale.touch()
    r = bt.cli("rerun", bundle_id, "--coordinator", "b", "--date", "2026-01-01T00:00Z")
    assert r.stderr == ""
    bt.sim(START, "2026-01-01T04:00Z")
    assert not stale.exists()
    assert (stale.parent / "_SUCCESS").exists()

    counts = trace_counts(bt.trace)
    expected = {
        aid["a"][1]: 2,
        aid["a"][2]: 3,
        aid["a"][3]: 3,
        aid["b"][1]: 2,
        aid["b"][2]: 2,
        aid["b"][3]: 2,
        aid["c"][1]: 1,
        aid["c"][2]: 2,
        aid["c"][3]: 2,
    }
    assert counts == expected
    assert bt.status(bundle_id) == "SUCCEEDED"
    assert pending(bt, bundle_id) == (0, {"a": 0, "b": 0, "c": 0})
    audit = [
        json.loads(a)
        for (a,) in bt.sql(
            "SELECT args FROM audit_log WHERE command = 'rerun' AND result = 'ok' AND target = ?",
            bundle_id,
        )
    ]
    assert len(audit) == 3


def test_an_ignored_coordinator_leaves_its_bundle_roll_up(bt: Bt4) -> None:
    bt.apps.write("hourly.xml", coordinator_xml("hourly"))
    bt.apps.write(
        "bundle.xml",
        bundle_xml(
            "ign",
            [
                BC("a", "hourly.xml"),
                BC("b", "hourly.xml"),
                BC("off", "hourly.xml", enabled="false"),
            ],
        ),
    )
    config = bt.apps.props(
        "job.properties",
        {"oozie.bundle.application.path": "bundle.xml", "start": START, "end": "2026-01-01T04:00Z"},
    )
    bundle_id = bt.submit_job(config, start=True)
    bt.sim(START, "2026-01-01T01:30Z")
    ids = bt.coords_of(bundle_id)
    assert set(ids) == {"a", "b"}  # enabled="false": not submitted
    bt.cli("kill", ids["b"])
    assert bt.status(bundle_id) == "RUNNINGWITHERROR"  # same transaction as the kill
    assert bt.bundle_actions(bundle_id)["b"] == ("KILLED", 0)
    bt.cli("ignore", ids["b"])
    assert bt.bundle_actions(bundle_id)["b"] == ("IGNORED", 0)
    assert bt.status(bundle_id) == "RUNNING"
    # a bundle change passes the ignored coordinator by, as the killed one before (Oozie reads
    # only un-ignored bundle actions); before, b's refusal (E1016) refused the whole change
    bt.cli("change", bundle_id, "--value", "endtime=2026-01-01T03:00Z")
    bt.sim(START, "2026-01-01T05:00Z")
    assert bt.peek(ids["a"])["endTime"].startswith("Thu, 01 Jan 2026 03:00")
    assert bt.status(ids["b"]) == "IGNORED"
    assert sorted(bt.actions(ids["a"])) == [1, 2, 3]
    assert bt.status(ids["a"]) == "SUCCEEDED"
    assert bt.status(bundle_id) == "SUCCEEDED"


def test_a_bundle_with_every_coordinator_disabled_fails_at_start_and_says_why(bt: Bt4) -> None:
    bt.apps.write("hourly.xml", coordinator_xml("hourly"))
    bt.apps.write("bundle.xml", bundle_xml("off", [BC("off", "hourly.xml", enabled="false")]))
    config = bt.apps.props(
        "job.properties",
        {"oozie.bundle.application.path": "bundle.xml", "start": START, "end": "2026-01-01T04:00Z"},
    )
    bundle_id = bt.submit_job(config, start=True)
    assert bt.status(bundle_id) == "FAILED"
    log = bt.cli("oozie", "job", "-log", bundle_id).stdout
    assert "E1318" in log and 'enabled="false"' in log, log


def test_a_bundle_rerun_its_coordinators_would_refuse_is_refused_at_once(bt: Bt4) -> None:
    bundle_id = bt.submit_job(two_coordinators(bt), start=True)
    bt.sim(START, "2026-01-01T01:30Z")
    assert "WAITING" in bt.actions(bt.coords_of(bundle_id)["starved"]).values()
    r = bt.fails("rerun", bundle_id, "--coordinator", "starved", code="E1018")
    # its actions in its dates all wait: a range reruns those that ended, here none
    assert "[coordinator starved]" in r.stderr and "that has ended" in r.stderr, r
    assert pending(bt, bundle_id) == (0, {"busy": 0, "starved": 0})  # nothing was queued


def test_a_bundle_rerun_naming_a_killed_coordinator_reruns_it_and_a_dated_one_too(
    bt: Bt4,
) -> None:
    """QA (s): a KILLED (or FAILED) coordinator refused every rerun, E1100, so a bundle whose
    feed was killed or failed could not be recovered. Oozie refuses a coordinator's rerun only
    while PREP or IGNORED (oozie.md §2.6): by name or by dates, the killed coordinator's
    actions run again (RUNNINGWITHERROR, then RUNNING as they wait again). A rerun by dates
    alone passes over a coordinator whose actions in the dates are not finished, and reruns
    the others (QA (s): it refused them all, E1018)."""
    bundle_id = bt.submit_job(two_coordinators(bt), start=True)
    bt.sim(START, "2026-01-01T03:00Z")
    coords = bt.coords_of(bundle_id)
    bt.cli("kill", coords["starved"])
    bt.sim(START, "2026-01-01T03:00Z")
    assert coord_statuses(bt, bundle_id) == {"busy": "SUCCEEDED", "starved": "KILLED"}
    assert bt.status(bundle_id) == "DONEWITHERROR"
    killed = bt.actions(coords["starved"])
    assert killed and set(killed.values()) == {"KILLED"}, killed

    bt.cli("rerun", bundle_id, "--coordinator", "starved")
    assert pending(bt, bundle_id) == (1, {"busy": 0, "starved": 1})
    bt.sim(START, "2026-01-01T03:00Z")
    assert pending(bt, bundle_id) == (0, {"busy": 0, "starved": 0})
    assert set(bt.actions(coords["starved"]).values()) == {"WAITING"}  # for its inputs
    # rolled up from its actions, none in error now (oozie.md §2.3, 4.)
    assert coord_statuses(bt, bundle_id) == {"busy": "SUCCEEDED", "starved": "RUNNING"}
    assert bt.status(bundle_id) == "RUNNING"

    r = bt.cli("rerun", bundle_id, "--date", f"{START}::2026-01-01T02:00Z")
    assert pending(bt, bundle_id) == (1, {"busy": 1, "starved": 0})  # starved: not finished
    # QA (t): passed over without a word
    assert r.stderr.startswith("Warning: passed over coordinator starved: "), r
    assert "that has ended" in r.stderr and "nothing to rerun" in r.stderr, r
    bt.sim(START, "2026-01-01T03:00Z")
    assert trace_counts(bt.trace)[f"{coords['busy']}@1"] == 2  # run again, once


def test_a_second_bundle_rerun_while_the_first_is_queued_is_refused_at_once(bt: Bt4) -> None:
    """Left-alone item: with no engine running, a second ``rerun B`` was answered "ok" and
    refused later in the engine's log only (the first rerun's coordinator had not run it yet,
    so the second was checked against the old statuses). A coordinator with a command still
    queued is refused at once now, naming it; the first rerun runs once."""
    bundle_id = bt.submit_job(two_coordinators(bt), start=True)
    bt.sim(START, "2026-01-01T03:00Z")
    coords = bt.coords_of(bundle_id)
    bt.cli("rerun", bundle_id, "--coordinator", "busy", "--date", START)
    assert pending(bt, bundle_id) == (1, {"busy": 1, "starved": 0})
    for again in (["--coordinator", "busy"], ["--date", START]):
        r = bt.fails("rerun", bundle_id, *again, code="E1018")
        assert "[coordinator busy]" in r.stderr and "queued" in r.stderr, r
    assert pending(bt, bundle_id) == (1, {"busy": 1, "starved": 0})  # nothing more queued
    bt.sim(START, "2026-01-01T03:00Z")
    assert pending(bt, bundle_id) == (0, {"busy": 0, "starved": 0})
    assert trace_counts(bt.trace)[f"{coords['busy']}@1"] == 2  # run again, once
    bt.cli("rerun", bundle_id, "--coordinator", "busy", "--date", START)  # free again


def test_a_direct_rerun_behind_a_queued_bundle_rerun_is_refused_and_the_action_runs_once(
    bt: Bt4,
) -> None:
    """QA (m): with no engine running, ``rerun B`` queued for a coordinator, then ``rerun C
    --action 1`` applied at once: when the engine came, the bundle's rerun found the action
    WAITING again and was dropped (a WARNING since). QA (t): a direct rerun behind a queued
    bundle command is refused now (E1018), so the bundle's rerun runs the action once more."""
    bundle_id = bt.submit_job(two_coordinators(bt), start=True)
    bt.sim(START, "2026-01-01T03:00Z")
    busy = bt.coords_of(bundle_id)["busy"]
    bt.cli("rerun", bundle_id, "--coordinator", "busy", "--date", START)
    refused = bt.fails("rerun", busy, "--action", "1", code="E1018")
    assert f"a command of bundle {bundle_id} queued for {busy}" in refused.stderr, refused
    log = bt.sim(START, "2026-01-01T03:00Z").log()
    assert trace_counts(bt.trace)[f"{busy}@1"] == 2
    assert "refused" not in log, log
    assert pending(bt, bundle_id) == (0, {"busy": 0, "starved": 0})


def test_a_coordinator_rerun_waits_for_a_bundle_kill_still_queued(bt: Bt4) -> None:
    """QA (t): with no engine running, ``kill B`` was queued for its coordinators, and
    ``rerun C --action 1`` was accepted after it; the engine then ran the kill, and the rerun
    action ended KILLED without ever running. The rerun is refused until the kill has run."""
    bundle_id = bt.submit_job(two_coordinators(bt, end="2026-01-01T06:00Z"), start=True)
    bt.sim(START, "2026-01-01T03:00Z")
    busy = bt.coords_of(bundle_id)["busy"]
    assert bt.status(busy) == "RUNNING" and bt.actions(busy)[1] == "SUCCEEDED"
    runs = trace_counts(bt.trace)[f"{busy}@1"]
    bt.cli("kill", bundle_id)
    refused = bt.fails("rerun", busy, "--action", "1", code="E1018")
    assert "has not been run by the engine yet" in refused.stderr, refused
    bt.sim(START, "2026-01-01T03:00Z")
    assert coord_statuses(bt, bundle_id) == {"busy": "KILLED", "starved": "KILLED"}
    # QA (u): its info said every action was materialized, with a next time, though the kill
    # had ended materialization (at 04:00, its end 06:00)
    mat = bt.info_json(busy)["materialization"]
    assert mat["stopped"] and mat["next"] is None, mat
    assert mat["heldBy"].startswith(
        "stopped at 2026-01-01 04:00 GMT, before its end 2026-01-01 06:00"
    )
    assert "change --value status=RUNNING resumes it" in mat["heldBy"]
    assert "stopped at 2026-01-01 04:00 GMT" in bt.cli("info", busy).stdout
    bt.cli("rerun", busy, "--action", "1")  # the kill has run: a rerun is taken, and runs
    bt.sim(START, "2026-01-01T03:00Z")
    assert trace_counts(bt.trace)[f"{busy}@1"] == runs + 1


def test_a_bundle_kill_or_suspend_reaches_a_coordinator_a_queued_rerun_brings_back(
    bt: Bt4,
) -> None:
    """QA (rerun): with no engine running, ``rerun B --coordinator busy`` (busy SUCCEEDED),
    then ``kill B``: the kill passed busy over (it had ended), so when the engine came the
    rerun ran busy's workflows again under a KILLED bundle. The kill (and a suspend) now goes
    to a coordinator whose queued command has not run, after it; applied only if its status
    then allows it, so one the rerun left ended is not refused in the log."""
    bundle_id = bt.submit_job(two_coordinators(bt), start=True)
    bt.sim(START, "2026-01-01T03:00Z")
    busy = bt.coords_of(bundle_id)["busy"]
    assert bt.status(busy) == "SUCCEEDED" and bt.status(bundle_id) == "RUNNING"
    runs = trace_counts(bt.trace)[f"{busy}@1"]

    bt.cli("rerun", bundle_id, "--coordinator", "busy", "--date", START)
    bt.cli("suspend", bundle_id)
    log = bt.sim(START, "2026-01-01T03:00Z").log()
    assert bt.status(busy) == "SUSPENDED" and bt.actions(busy)[1] == "WAITING"
    assert trace_counts(bt.trace)[f"{busy}@1"] == runs and "refused" not in log, log
    bt.cli("resume", bundle_id)
    bt.sim(START, "2026-01-01T03:00Z")
    assert trace_counts(bt.trace)[f"{busy}@1"] == runs + 1  # the rerun, once resumed
    assert bt.status(busy) == "SUCCEEDED"

    bt.cli("rerun", bundle_id, "--coordinator", "busy", "--date", START)
    bt.cli("kill", bundle_id)
    log = bt.sim(START, "2026-01-01T03:00Z").log()
    assert trace_counts(bt.trace)[f"{busy}@1"] == runs + 1, "ran under a KILLED bundle"
    assert coord_statuses(bt, bundle_id) == {"busy": "KILLED", "starved": "KILLED"}
    assert bt.status(bundle_id) == "KILLED" and "refused" not in log, log
    assert pending(bt, bundle_id) == (0, {"busy": 0, "starved": 0})


def test_a_rerun_right_after_a_bundle_change_waits_for_the_engine_to_run_the_change(
    bt: Bt4,
) -> None:
    """QA (HTTP clients): ``change B --value endtime=…`` then ``rerun B`` at once was
    refused (E1018, "a command queued for this coordinator has not been run by the engine
    yet") while an engine ran and would run the change within a tick: a client that sends
    its calls one after another, as Oozie's do, failed at random. With an engine running, the
    rerun waits for it (here the engine is held stopped for a second) and is done."""
    bundle_id = bt.submit_job(two_coordinators(bt), start=True)
    engine = bt.engine("--clock", "simulated", "--start-time", START)
    wait_for(lambda: "busy" in bt.coords_of(bundle_id), 20, "busy submitted")
    busy = bt.coords_of(bundle_id)["busy"]
    wait_for(lambda: set(bt.actions(busy).values()) == {"SUCCEEDED"}, 30, "busy's actions")
    before = trace_counts(bt.trace)[f"{busy}@1"]
    pid = engine.proc.pid
    while True:  # stopped where it holds no write lock: the change stays queued meanwhile
        os.kill(pid, signal.SIGSTOP)
        wait_for(lambda: open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "T")
        probe = sqlite3.connect(bt.home / "bundletui.db", timeout=0, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
            break
        except sqlite3.OperationalError:
            os.kill(pid, signal.SIGCONT)
            time.sleep(0.003)
        finally:
            probe.close()
    try:
        bt.cli("change", bundle_id, "--value", "endtime=2026-01-01T05:00Z")
        rerun = subprocess.Popen(
            [BUNDLETUI, "rerun", bundle_id, "--coordinator", "busy", "--date", START],
            env=bt.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.0)
        assert rerun.poll() is None  # waiting for the engine, not refused
    finally:
        os.kill(pid, signal.SIGCONT)
    _out, err = rerun.communicate(timeout=30)
    assert rerun.returncode == 0, err
    assert "Error" not in err, err
    wait_for(lambda: trace_counts(bt.trace)[f"{busy}@1"] == before + 1, 30, "the rerun ran")
    # with no engine running it is refused at once, as before: nothing would run the change
    engine.stop()
    bt.cli("change", bundle_id, "--value", "endtime=2026-01-01T06:00Z")
    refused = bt.fails("rerun", bundle_id, "--coordinator", "busy", "--date", START, code="E1018")
    assert "has not been run by the engine yet" in refused.stderr, refused


def test_a_bundle_rerun_keeps_the_end_time_a_change_gave_it(bt: Bt4) -> None:
    """QA (HTTP clients): ``change B --value endtime=…`` then a bundle rerun: the bundle's
    end time read null after the rerun (its coordinators kept theirs)."""
    bundle_id = bt.submit_job(two_coordinators(bt, end="2026-01-01T08:00Z"), start=True)
    bt.sim(START, "2026-01-01T03:00Z")
    assert bt.status(bundle_id) == "RUNNING"
    bt.cli("change", bundle_id, "--value", "endtime=2026-01-01T06:00Z")
    bt.sim(START, "2026-01-01T03:00Z")  # the engine passes the change down
    ends = bt.sql("SELECT end_time FROM coord_jobs WHERE bundle_id = ?", bundle_id)
    (want,) = bt.sql("SELECT end_time FROM bundle_jobs WHERE id = ?", bundle_id)
    assert want[0] is not None and set(ends) == {want}, (want, ends)
    bt.cli("rerun", bundle_id, "--coordinator", "busy", "--date", START)
    assert bt.sql("SELECT end_time FROM bundle_jobs WHERE id = ?", bundle_id) == [want]
    assert bt.info_json(bundle_id)["endTime"] == "Thu, 01 Jan 2026 06:00:00 GMT"
