"""Operator controls on event schedules: SAFEMODE, ``change concurrency=``, ``rerun``.

Each was found by a QA pass to do nothing, or the wrong thing, for an event schedule while it
worked for a time-based coordinator: in SAFEMODE event schedules went on firing, launching and
timing out; ``change --value concurrency=3`` was stored and shown but the schedule kept its
definition's limit; a rerun action sat WAITING for ever. Through the real CLI and real
``bundletui run`` processes on the simulated clock.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.e2e5.conftest import (
    BUNDLETUI,
    RECORD,
    Bt5,
    Feed,
    bundle,
    event_coordinator,
    fmt_ms,
    ms,
    wait_for,
)

FEED = [Feed("f", "${landing}/f")]


def on_f(bt: Bt5, name: str, constraints: str) -> Path:
    """A schedule firing on each new partition of feed f, held by ``constraints``."""
    return bt.write(
        f"{name}.xml",
        event_coordinator(
            name, feeds=FEED, trigger='<partitions feed="f"/>', constraints=constraints
        ),
    )


def test_safe_mode_holds_event_schedules_and_they_catch_up_in_normal(bt: Bt5) -> None:
    plain = bt.write(
        "plain.xml", event_coordinator("plain", feeds=FEED, trigger='<partitions feed="f"/>')
    )
    held = bt.write(
        "held.xml",
        event_coordinator(
            "held",
            feeds=FEED,
            trigger='<partitions feed="f"/>',
            constraints='<time-window start="22:00" end="23:00"/>'
            '<timeout on-timeout="discard">PT1H</timeout>',
        ),
    )
    p, h = bt.submit(plain), bt.submit(held)
    bt.land("f", "1")
    bt.step("2026-03-01T10:00Z")  # NORMAL: plain runs p1; held fires and waits for 22:00
    assert [a["status"] for a in bt.actions(p)] == ["SUCCEEDED"]
    assert [a["status"] for a in bt.actions(h)] == ["WAITING"]

    bt.cli("oozie", "admin", "-systemmode", "SAFEMODE")
    bt.land("f", "2")
    bt.sim("2026-03-01T10:00Z", "2026-03-01T12:00Z")
    # nothing fired, launched or timed out (held's timeout was due at 11:00)
    assert [a["status"] for a in bt.actions(p)] == ["SUCCEEDED"]
    assert [a["status"] for a in bt.actions(h)] == ["WAITING"]
    assert len(bt.runs()) == 1
    # info says SAFEMODE holds them (QA (o): it named a past time, and no events waiting)
    waits = bt.info(bt.actions(h)[0]["id"])["waitingFor"]["detail"]
    assert waits.endswith("; system SAFEMODE: constraints are checked when the mode is NORMAL")
    assert bt.info(p)["materialization"]["heldBy"] == (
        "system SAFEMODE: events wait in the log until the mode is NORMAL"
    )

    bt.cli("oozie", "admin", "-systemmode", "NORMAL")
    bt.step("2026-03-01T12:00Z")
    plain_actions = bt.actions(p)
    assert [a["status"] for a in plain_actions] == ["SUCCEEDED", "SUCCEEDED"]
    assert bt.runs()[plain_actions[1]["id"]].parts == [str(bt.landing / "f" / "2")]
    held_actions = bt.actions(h)
    assert held_actions[0]["status"] == "TIMEDOUT"  # its timeout, applied once back in NORMAL
    assert all(r.launches == 1 for r in bt.runs().values())


def test_change_concurrency_applies_to_an_event_schedule(bt: Bt5) -> None:
    """``change --value concurrency=N`` was shown by ``info`` while held jobs stayed "held by
    concurrency (1/1 running)": the schedule read its definition's limit only."""
    app = bt.write(
        "one.xml",
        event_coordinator(
            "one",
            feeds=FEED,
            trigger='<partitions feed="f"/>',
            constraints='<concurrency max="1"/>',
            conf={"sleep": "7"},  # a runs while the commands below run, even on a loaded host
        ),
    )
    coord = bt.submit(app, start="2020-01-01T00:00Z", end="2099-01-01T00:00Z")
    bt.engine()
    bt.land("f", "a")
    bt.wait_actions(coord, 1, status="RUNNING")
    bt.land("f", "b")
    held = bt.wait_actions(coord, 1, status="WAITING")[1]
    assert held["held_by"]["constraint"] == "concurrency (1/1 running)"
    why = bt.info(held["id"])["waitingFor"]  # a stable key, the counts in the detail (QA (o))
    assert why["constraint"] == "concurrency", why
    assert why["detail"].startswith("held by concurrency (1/1 running)"), why

    for bad in ("0", "-5"):  # <concurrency max> is at least 1: 0 would hold every job for ever
        r = bt.cli("change", coord, "--value", f"concurrency={bad}", check=False)
        assert r.code == 1 and r.stderr.startswith("Error: E1015: ") and "at least 1" in r.stderr
    bt.cli("change", coord, "--value", "concurrency=2")
    assert "concurrency 2" in bt.cli("info", coord).stdout
    actions = bt.wait_actions(coord, 2, timeout=30)
    runs = bt.runs()
    a, b = (runs[x["id"]] for x in actions[:2])
    assert b.start_ns < (a.end_ns or 0)  # b started while a ran, as the new limit allows


def test_a_rerun_action_of_an_event_schedule_runs_again_with_what_fired_it(bt: Bt5) -> None:
    """``rerun --action 1`` put the action back to WAITING, where it sat for ever (an event
    schedule's actions wait for their job's constraints, and a rerun made no job), and its
    coordinator stayed RUNNING past its end. It runs again, with the same trigger, and the
    coordinator ends again."""
    app = bt.write(
        "plain.xml", event_coordinator("plain", feeds=FEED, trigger='<partitions feed="f"/>')
    )
    coord = bt.submit(app, end="2026-03-01T11:00Z")
    part = str(bt.land("f", "1"))
    bt.sim("2026-03-01T10:00Z", "2026-03-01T12:00Z")
    assert [a["status"] for a in bt.actions(coord)] == ["SUCCEEDED"]
    assert bt.status(coord) == "SUCCEEDED"
    first = bt.actions(coord)[0]

    bt.cli("rerun", coord, "--action", "1")
    assert [a["status"] for a in bt.actions(coord)] == ["WAITING"]
    waiting = bt.info(first["id"])["waitingFor"]  # it has no inputs: it said "inputs not …"
    assert waiting == {"reason": "check", "detail": "run constraints not checked yet"}
    job = bt.info(first["id"])["firedBy"]["job"]  # QA (o): "LAUNCHED" beside WAITING, unsaid
    assert job == {
        "state": "LAUNCHED",
        "note": "the first run's; the engine queues the rerun's own job at its next pass",
    }
    bt.sim("2026-03-01T12:00Z", "2026-03-01T13:00Z")
    again = bt.actions(coord)
    assert [a["status"] for a in again] == ["SUCCEEDED"]
    assert again[0]["trigger"] == first["trigger"]  # what fired it is kept
    run = bt.runs()[first["id"]]
    assert run.launches == 2 and run.parts == [part]  # once more, with the same partition
    assert again[0]["wf"] != first["wf"]
    assert bt.status(coord) == "SUCCEEDED"


def paused_at_1210(
    bt: Bt5, name: str, *, count: int = 1, trigger: str = "", feeds: list[Feed] = FEED
) -> str:
    """A schedule on ``count`` new partitions of f (or ``trigger``), paused from 12:10 (the
    clock at 12:20)."""
    trigger = trigger or f'<partitions feed="f" count="{count}"/>'
    app = bt.write(f"{name}.xml", event_coordinator(name, feeds=feeds, trigger=trigger))
    coord = bt.submit(app)
    bt.step("2026-03-01T12:00Z")
    bt.cli("change", coord, "--value", "pausetime=2026-03-01T12:10Z")
    bt.sim("2026-03-01T12:00Z", "2026-03-01T12:20Z")
    assert bt.status(coord) == "PAUSED"
    return coord


def test_partitions_that_land_while_a_schedule_is_paused_fire_once_the_pause_is_lifted(
    bt: Bt5,
) -> None:
    """A pause held the schedule and dropped what arrived meanwhile (the event cursor moved on):
    a pause delays, as Oozie's holds materialization and catches up; only a suspend drops."""
    coord = paused_at_1210(bt, "plain", count=1)
    p1 = str(bt.land("f", "p1"))
    bt.sim("2026-03-01T12:20Z", "2026-03-01T12:30Z")
    assert bt.actions(coord) == []  # paused: nothing fires

    bt.cli("change", coord, "--value", "pausetime=")
    bt.sim("2026-03-01T12:30Z", "2026-03-01T12:40Z")  # p1 fires, though it came in the pause
    p2 = str(bt.land("f", "p2"))
    bt.sim("2026-03-01T12:40Z", "2026-03-01T13:00Z")
    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED", "SUCCEEDED"]
    assert [bt.runs()[a["id"]].parts for a in actions] == [[p1], [p2]]


def test_partitions_kept_in_a_pause_fire_as_they_would_have_without_it(bt: Bt5) -> None:
    """QA (x): three partitions kept in a pause, for a count of 2, fired once with all three;
    after SAFEMODE or downtime the same three fire once with two and keep the third."""
    coord = paused_at_1210(bt, "pairs", count=2)
    parts = [str(bt.land("f", p)) for p in ("a", "b", "c", "d", "e")]
    bt.sim("2026-03-01T12:20Z", "2026-03-01T12:30Z")
    assert bt.actions(coord) == []
    (kept,) = bt.info(coord)["materialization"]["progress"]  # not "5 of 2"
    assert kept["seen"] == "2 of 2 (+3 kept for later)", kept
    bt.cli("change", coord, "--value", "pausetime=")
    # two firings in one pass (QA (z): the second took the first's number and nominal time,
    # and the engine died on the unique key at every restart)
    bt.sim("2026-03-01T12:30Z", "2026-03-01T12:40Z")
    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED", "SUCCEEDED"]
    assert [bt.runs()[a["id"]].parts for a in actions] == [parts[:2], parts[2:4]]
    f = str(bt.land("f", "f"))  # the kept fifth and a sixth make the next pair
    bt.sim("2026-03-01T12:40Z", "2026-03-01T13:00Z")
    actions = bt.actions(coord)
    assert [bt.runs()[a["id"]].parts for a in actions][2] == [parts[4], f]


def test_kept_events_share_out_when_the_trigger_has_a_cron_leaf_too(bt: Bt5) -> None:
    """QA (z2): with ``cron OR 2 partitions``, seven partitions kept in a pause fired once with
    all seven (a schedule with a time leaf skipped the catch-up); they fire in pairs, the
    seventh kept, as after downtime."""
    coord = paused_at_1210(
        bt,
        "cronor",
        trigger='<or><cron expression="0 6 * * *"/><partitions feed="f" count="2"/></or>',
    )
    parts = [str(bt.land("f", f"p{i}")) for i in range(1, 8)]
    bt.sim("2026-03-01T12:20Z", "2026-03-01T12:30Z")
    bt.cli("change", coord, "--value", "pausetime=")
    bt.sim("2026-03-01T12:30Z", "2026-03-01T12:40Z")
    actions = bt.actions(coord)
    assert [bt.runs()[a["id"]].parts for a in actions] == [parts[0:2], parts[2:4], parts[4:6]]


def test_a_partition_of_nested_feeds_kept_in_a_pause_fires_once(bt: Bt5) -> None:
    """A partition under f/eu is an event of feed f and of feed eu; kept in a pause, the two
    events were handed out as two firings (QA (z)); it fires once, as without a pause."""
    coord = paused_at_1210(
        bt,
        "nested",
        trigger='<or><partitions feed="f"/><partitions feed="eu"/></or>',
        feeds=[*FEED, Feed("eu", "${landing}/f/eu")],
    )
    y1 = str(bt.land("f/eu", "y1"))
    bt.sim("2026-03-01T12:20Z", "2026-03-01T12:30Z")
    bt.cli("change", coord, "--value", "pausetime=")
    bt.sim("2026-03-01T12:30Z", "2026-03-01T12:40Z")
    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED"], actions
    assert bt.runs()[actions[0]["id"]].parts == [y1]


def test_a_held_job_says_when_its_constraint_lifts_and_when_it_times_out(bt: Bt5) -> None:
    """A job held by a time window (opening at 22:00) with a 3-hour timeout said "held by
    time-window until 15:00": the timeout's time, when it is discarded, not released."""
    app = bt.write(
        "night.xml",
        event_coordinator(
            "night",
            feeds=FEED,
            trigger='<partitions feed="f"/>',
            constraints='<time-window start="22:00" end="06:00"/>'
            '<timeout on-timeout="discard">PT3H</timeout>',
        ),
    )
    coord = bt.submit(app)
    bt.land("f", "1")
    bt.step("2026-03-01T12:00Z")
    (held,) = bt.actions(coord)
    assert held["held_by"] == {
        "constraint": "time-window",
        "until": ms("2026-03-01T22:00Z"),
        "timeout": ms("2026-03-01T15:00Z"),
        "onTimeout": "discard",
    }
    why = bt.info(held["id"])["waitingFor"]
    assert why["until"] == "Sun, 01 Mar 2026 22:00:00 GMT"
    assert why["timeoutAt"] == "Sun, 01 Mar 2026 15:00:00 GMT"
    assert why["detail"] == (
        "held by time-window until Sun, 01 Mar 2026 22:00:00 GMT;"
        " times out at Sun, 01 Mar 2026 15:00:00 GMT (discarded)"
    )
    bt.sim("2026-03-01T12:00Z", "2026-03-01T16:00Z")  # and it does time out at 15:00
    assert [a["status"] for a in bt.actions(coord)] == ["TIMEDOUT"]


def test_a_freed_group_slot_goes_to_the_highest_priority_job_waiting(bt: Bt5) -> None:
    """Two schedules share a group of one slot. When a run ended, its own schedule's held job
    was looked at first and took the slot back, so a schedule with a job always waiting could
    starve the group's higher-priority ones. The slot goes by priority, then age."""
    group = '<concurrency max="1" group="g"/>'
    common = {"feeds": FEED, "trigger": '<partitions feed="f" count="1"/>', "constraints": group}
    lo = bt.write("lo.xml", event_coordinator("lo", priority=1, conf={"sleep": "0.5"}, **common))  # type: ignore[arg-type]
    hi = bt.write("hi.xml", event_coordinator("hi", priority=9, conf={"sleep": "0.5"}, **common))  # type: ignore[arg-type]
    b = bt.submit(bt.write("b.xml", bundle("b", [("lo", lo, {}), ("hi", hi, {})])), kind="bundle")
    bt.step("2026-03-01T10:00Z")  # the bundle starts its schedules
    bt.land("f", "p1")
    bt.land("f", "p2")
    bt.sim("2026-03-01T10:00Z", "2026-03-01T10:30Z", timeout=60)
    ids = bt.coords_of(b)
    runs = bt.runs()
    started = sorted(
        (runs[a["id"]].start_ns, name) for name in ("lo", "hi") for a in bt.actions(ids[name])
    )
    order = [name for _t, name in started]
    assert len(order) == 4 and all(r.launches == 1 for r in runs.values()), order
    # whichever ran first, every later slot went to hi's jobs before lo's
    assert order[1:] == sorted(order[1:], key=lambda n: n != "hi"), order


def test_what_landed_while_suspended_is_ignored_even_if_no_engine_saw_it(bt: Bt5) -> None:
    """A partition that landed while the schedule was suspended is ignored after the resume
    when a running engine saw it land; with the engine down it counted as new (the engine's
    start-up scan found it after the resume). What counts is the resume, not the engine."""
    app = bt.write(
        "plain.xml", event_coordinator("plain", feeds=FEED, trigger='<partitions feed="f"/>')
    )
    coord = bt.submit(app)
    bt.step("2026-03-01T10:00Z")
    bt.cli("suspend", coord)
    bt.land("f", "while-suspended")
    bt.cli("resume", coord)
    after = str(bt.land("f", "after-resume"))
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED"]
    assert bt.runs()[actions[0]["id"]].parts == [after]


def test_info_of_an_event_schedule_says_it_waits_for_its_trigger(bt: Bt5) -> None:
    """``info`` showed an event schedule's start (later, its last firing) as "Next action", and
    its frequency as "0 MINUTE": neither is what it waits for."""
    app = bt.write(
        "two.xml",
        event_coordinator("two", feeds=FEED, trigger='<partitions feed="f" count="2"/>'),
    )
    coord = bt.submit(app)
    bt.land("f", "1")
    bt.step("2026-03-01T10:00Z")
    shown = bt.cli("info", coord).stdout
    assert "Next action : when its trigger fires (1 event(s) so far)" in shown, shown
    assert "Frequency   : event-triggered, timezone UTC" in shown, shown
    mat = bt.info(coord)["materialization"]
    assert (mat["next"], mat["onTrigger"], mat["eventsSeen"]) == (None, True, 1)


def test_info_says_how_far_each_leaf_of_the_trigger_got(bt: Bt5) -> None:
    """QA (x): ``cron OR (2 partitions of f AND 1KB of g)`` with one partition seen said only
    "(1 event(s) so far)": not which leaf waits for what, nor the cron's next time."""
    trigger = (
        '<or><cron expression="0 6 * * *"/>'
        '<and><partitions feed="f" count="2"/><bytes feed="g" at-least="1KB"/></and></or>'
    )
    app = bt.write(
        "mixed.xml",
        event_coordinator("mixed", feeds=[*FEED, Feed("g", "${landing}/g")], trigger=trigger),
    )
    coord = bt.submit(app)
    bt.land("f", "1")
    bt.land("g", "1", size=300)
    bt.step("2026-03-01T10:00Z")
    progress = bt.info(coord)["materialization"]["progress"]
    assert [(p["leaf"], p["seen"], p["met"]) for p in progress] == [
        ("cron '0 6 * * *'", "next", False),
        ("2 new partitions of f", "1 of 2", False),
        ("1KB of g", "300B of 1KB", False),
    ]
    assert progress[0]["at"] == "Mon, 02 Mar 2026 06:00:00 GMT"
    shown = " ".join(bt.cli("info", coord).stdout.split())
    assert "So far : cron '0 6 * * *': next 2026-03-02 06:00 GMT" in shown, shown
    leap = bt.submit(
        bt.write("leap.xml", event_coordinator("leap", trigger='<cron expression="0 0 29 2 *"/>'))
    )
    (leaf,) = bt.info(leap)["materialization"]["progress"]  # 29 February 2028: after its end
    assert (leaf["seen"], leaf["at"]) == ("none before its end", None), leaf
    assert ": 2 new partitions of f: 1 of 2 : 1KB of g: 300B of 1KB" in shown, shown


LATER = (
    '<coordinator-app name="later" frequency="${coord:days(1)}" start="2026-12-01T00:00Z"'
    ' end="2027-01-01T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">'
    f"<action><workflow><app-path>{RECORD}</app-path></workflow></action>"
    "</coordinator-app>\n"
)


@pytest.mark.parametrize("others", [0, 200], ids=["alone", "after-200-others"])
def test_a_bundle_resume_counts_what_lands_after_it_even_before_the_engine_applies_it(
    bt: Bt5, others: int
) -> None:
    """A bundle's resume reaches its coordinators through the engine. A partition that landed
    after the resume command, but before an engine applied it to the coordinator, was lost:
    the engine's start-up scan recorded it while the coordinator was still SUSPENDED, and the
    coordinator's resume then moved its horizon past it. What counts is the bundle's resume.

    The engine applies at most 200 queued commands a tick, before its pumps: behind 200 other
    coordinators, the resume waits for the second tick, and the first tick's events pump has
    already consumed (and ignored) the partition: the resume hands it to the schedule again."""
    app = bt.write(
        "plain.xml", event_coordinator("plain", feeds=FEED, trigger='<partitions feed="f"/>')
    )
    later = bt.write("later.xml", LATER)
    many = [(f"later{i:03}", later, {}) for i in range(others)]
    b = bt.submit(bt.write("b.xml", bundle("b", [*many, ("plain", app, {})])), kind="bundle")
    bt.step("2026-03-01T10:00Z")
    coord = bt.coords_of(b)["plain"]
    bt.cli("suspend", b)
    bt.step("2026-03-01T10:00Z")
    assert bt.status(coord) == "SUSPENDED"
    bt.land("f", "while-suspended")
    bt.cli("resume", b)
    after = str(bt.land("f", "after-resume"))
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    assert bt.status(coord) == "RUNNING"
    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED"], actions
    assert bt.runs()[actions[0]["id"]].parts == [after]


def test_a_rerun_held_by_since_last_run_keeps_what_fired_it(bt: Bt5) -> None:
    """A rerun action waiting for its minimum interval took in a later firing's partitions, as
    a fired job held by it does: the rerun ran with data it was not asked to run with. It runs
    with what fired it; the later partition gets an action of its own."""
    coord = bt.submit(on_f(bt, "slr", "<since-last-run>PT5M</since-last-run>"))
    p1 = str(bt.land("f", "p1"))
    bt.step("2026-03-01T10:00Z")
    bt.cli("rerun", coord, "--action", "1")
    bt.step("2026-03-01T10:01Z")
    p2 = str(bt.land("f", "p2"))
    bt.step("2026-03-01T10:02Z")
    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["WAITING", "WAITING"], actions
    assert [bt.fired_paths(a) for a in actions] == [[p1], [p2]]
    bt.sim("2026-03-01T10:02Z", "2026-03-01T10:30Z")
    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED", "SUCCEEDED"]
    runs = bt.runs()
    assert (runs[actions[0]["id"]].parts, runs[actions[0]["id"]].launches) == ([p1], 2)
    assert (runs[actions[1]["id"]].parts, runs[actions[1]["id"]].launches) == ([p2], 1)
    started = [fmt_ms(bt.wf_started(a["wf"]) or 0) for a in actions]
    assert started == ["2026-03-01T10:05Z", "2026-03-01T10:10Z"]


def test_a_rerun_of_a_killed_held_action_counts_its_timeout_from_the_rerun(bt: Bt5) -> None:
    """Killing a held action left its job PENDING_CONSTRAINT until its next check, so a rerun
    found that job and took it over, with the first firing's time: the rerun timed out at once
    (EB0802). The rerun gets a job of its own, its timeout counted from the rerun."""
    app = bt.write(
        "night.xml",
        event_coordinator(
            "night",
            feeds=FEED,
            trigger='<partitions feed="f"/>',
            constraints='<time-window start="22:00" end="23:00"/>'
            '<timeout on-timeout="discard">PT3H</timeout>',
        ),
    )
    coord = bt.submit(app)
    part = str(bt.land("f", "1"))
    bt.step("2026-03-01T10:00Z")
    bt.cli("kill", coord, "--action", "1")
    assert [a["status"] for a in bt.actions(coord)] == ["KILLED"]
    bt.cli("rerun", coord, "--action", "1")  # before an engine looked at the killed job
    bt.sim("2026-03-01T21:30Z", "2026-03-01T23:30Z")
    (action,) = bt.actions(coord)
    assert action["status"] == "SUCCEEDED", action
    run = bt.runs()[action["id"]]
    assert run.parts == [part]
    assert fmt_ms(bt.wf_started(action["wf"]) or 0) == "2026-03-01T22:00Z"


def test_one_concurrency_group_has_one_limit(bt: Bt5) -> None:
    """QA (o): two schedules of group g, one with max 1, one with max 3: each held its jobs by
    its own limit, and the group ran three at once while one said "1 at once". A second limit
    for a group is refused, as a second done-flag on a path is: between a bundle's
    coordinators (submit and validate), and against an unfinished schedule in the store."""
    one = on_f(bt, "one", '<concurrency max="1" group="g"/>')
    three = on_f(bt, "three", '<concurrency max="3" group="g"/>')
    same = on_f(bt, "same", '<concurrency max="1" group="g"/>')
    both = bt.write("both.xml", bundle("both", [("one", one, {}), ("three", three, {})]))
    props = bt.apps / "both.properties"
    props.write_text(
        f"oozie.bundle.application.path={both}\nstart=2026-01-01T00:00Z\n"
        f"end=2027-01-01T00:00Z\ntraceDir={bt.trace_dir}\n"
    )
    for args in (["submit", str(props)], ["validate", str(both), "--config", str(props)]):
        r = bt.cli(*args, check=False)
        assert r.code == 1, r
        assert r.stderr.startswith(f"Error: E1003: {three}:"), r.stderr
        assert (
            "coordinator [three] limits concurrency group [g] to 3 at once, but coordinator "
            "[one] of the same bundle limits it to 1" in r.stderr
        ), r.stderr
        assert "hint: give every schedule of a concurrency group the same max" in r.stderr
    first = bt.submit(one)
    alone = bt.apps / "three-alone.properties"
    alone.write_text((bt.apps / "one.properties").read_text().replace(str(one), str(three)))
    r = bt.cli("submit", str(alone), check=False)
    assert r.code == 1 and f"but coordinator [one] ({first}) limits it to 1" in r.stderr, r
    second = bt.submit(same)  # the same limit joins the group
    shown = bt.cli("info", second).stdout  # not "unlimited" alone (QA (o))
    assert "Controls    : concurrency unlimited (group g: 1 at once)" in shown, shown
    bt.cli("kill", first)
    bt.cli("kill", second)
    bt.submit(three)  # finished schedules limit nothing


def test_a_held_job_killed_with_no_engine_running_leaves_the_queue_at_once(bt: Bt5) -> None:
    """QA (o): ``kill C@1`` of a job held by a time window, no engine running: the action
    was KILLED while ``info`` still showed its job PENDING_CONSTRAINT until an engine came."""
    coord = bt.submit(on_f(bt, "night", '<time-window start="22:00" end="06:00"/>'))
    bt.land("f", "1")
    bt.step("2026-03-01T12:00Z")
    (held,) = bt.actions(coord)
    assert bt.info(held["id"])["firedBy"]["job"]["state"] == "PENDING_CONSTRAINT"
    bt.cli("kill", held["id"])
    assert bt.info(held["id"])["firedBy"]["job"]["state"] == "DISCARDED"
    bt.sim("2026-03-01T12:00Z", "2026-03-01T23:00Z")  # the window opens: nothing launches
    assert [a["status"] for a in bt.actions(coord)] == ["KILLED"] and not bt.runs()


def test_a_killed_schedules_feed_is_no_longer_watched_or_recorded(bt: Bt5) -> None:
    """QA (ak): a killed (or ended) schedule's feed stayed for good: every partition landing
    there was still recorded, each rescan walked it, and the watcher polled fast for ever."""
    app = bt.write(
        "plain.xml", event_coordinator("plain", feeds=FEED, trigger='<partitions feed="f"/>')
    )
    coord = bt.submit(app)
    before = str(bt.land("f", "before-kill"))
    bt.step("2026-03-01T10:00Z")
    assert bt.sql("SELECT path FROM events") == [(before,)]
    bt.cli("kill", coord)
    bt.land("f", "after-kill")
    bt.step("2026-03-01T10:30Z")  # its start-up rescan walks the live feeds only
    assert bt.status(coord) == "KILLED"
    assert bt.sql("SELECT path FROM events") == [(before,)]


def test_a_tree_past_the_inotify_limit_is_polled(bt: Bt5) -> None:
    """QA (ak): past the inotify watch limit the landing watcher died with a bare traceback
    and nothing took over: a partition was seen only by the next 5-minute rescan. The tree
    is polled instead, with a message that says how to allow more watches. A private user
    namespace gives the engine a limit of its own (the host's is left alone)."""
    probe = subprocess.run(
        ["unshare", "-U", "-r", "sh", "-c", "echo 50 > /proc/sys/user/max_inotify_watches"],
        capture_output=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"no private user namespace here: {probe.stderr!r}")
    for i in range(200):  # far more directories than watches
        (bt.landing / "f" / f"d{i:03d}").mkdir(parents=True)
    app = bt.write(
        "plain.xml", event_coordinator("plain", feeds=FEED, trigger='<partitions feed="f"/>')
    )
    coord = bt.submit(app, start="2020-01-01T00:00Z", end="2099-01-01T00:00Z")  # real clock
    log = bt.tmp / "limited.log"
    with log.open("wb") as out:
        engine = subprocess.Popen(
            ["unshare", "-U", "-r", "sh", "-c",
             'echo 50 > /proc/sys/user/max_inotify_watches && exec "$@"', "sh",
             BUNDLETUI, "run", "--home", str(bt.home)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=bt.env,
        )  # fmt: skip
    try:
        wait_for(lambda: "polling it every 2 s instead" in log.read_text(), 20, "the fallback")
        text = log.read_text()
        assert "sysctl fs.inotify.max_user_watches" in text and "Traceback" not in text, text
        landed = str(bt.land("f", "new"))
        wait_for(lambda: bt.actions(coord), 15, "a firing on the polled tree")
        assert bt.fired_paths(bt.actions(coord)[0]) == [landed]
    finally:
        engine.terminate()
        engine.wait(15)


def test_a_rescan_finds_a_partition_inside_a_recorded_one(bt: Bt5) -> None:
    """QA (an): a rescan that did not enter recorded partitions missed an hour's partition
    landed (with no engine up) inside its day's, which was recorded already."""
    app = bt.write(
        "plain.xml",
        event_coordinator("plain", feeds=FEED, trigger='<partitions feed="f" count="100"/>'),
    )
    bt.submit(app)
    day = bt.land("f", "d1")
    bt.step("2026-03-01T10:00Z")
    hour = bt.land("f", "d1/h1")
    bt.step("2026-03-01T10:30Z")  # its start-up rescan
    assert bt.sql("SELECT path FROM events ORDER BY id") == [(str(day),), (str(hour),)]


def test_held_jobs_go_first_come_when_a_window_opens_after_a_downtime(bt: Bt5) -> None:
    """QA (crash-6): two jobs held by a time window, two more fired while no engine ran; when
    the engine came back with the window open and one slot, the newest launched first (@3,
    @1, @2, @4): a fresh firing took the slot before the held jobs were looked at again."""
    app = on_f(bt, "twc", '<time-window start="12:05" end="18:00"/><concurrency max="1"/>')
    coord = bt.submit(app, {"sleep": "0"})
    bt.step("2026-03-01T12:00Z")
    bt.land("f", "w1")
    bt.land("f", "w2")
    bt.step("2026-03-01T12:01Z")
    assert [a["status"] for a in bt.actions(coord)] == ["WAITING", "WAITING"]
    bt.land("f", "w3")
    bt.land("f", "w4")
    bt.sim("2026-03-01T12:10Z", "2026-03-01T12:20Z")
    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED"] * 4, actions
    runs = bt.runs()
    order = sorted(actions, key=lambda a: runs[a["id"]].start_ns)
    assert [a["id"] for a in order] == [a["id"] for a in actions], order
