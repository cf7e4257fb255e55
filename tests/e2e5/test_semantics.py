"""The event-schedule semantics around the stories (issue 5): suspend / resume, timeouts that
discard or force, what fired an action reaching the workflow as argv, and partition intake
deduplicated whether the landing watcher saw it live or a start-up rescan found it."""

from __future__ import annotations

import json
import os
import time
from itertools import pairwise
from pathlib import Path

import pytest

from tests.e2e5.conftest import Bt5, Feed, bundle, event_coordinator, fmt_ms, ms

FAR_START, FAR_END = "2020-01-01T00:00Z", "2099-01-01T00:00Z"  # real-clock tests


def test_suspend_deletes_pending_jobs_and_ignores_events_until_resume(bt: Bt5) -> None:
    """Seed 004: a suspended schedule's pending jobs are deleted (a fired job waiting for its
    constraints too: its action is killed), events that arrive while it is suspended are
    ignored, and resume reacts again — to what arrives from then on."""
    pairs = bt.write(
        "pairs.xml",
        event_coordinator(
            "pairs",
            feeds=[Feed("x", "${landing}/x")],
            trigger='<partitions feed="x" count="2"/>',
        ),
    )
    hourly = bt.write(
        "hourly.xml",
        event_coordinator(
            "hourly",
            feeds=[Feed("y", "${landing}/y")],
            trigger='<partitions feed="y"/>',
            constraints="<since-last-run>PT1H</since-last-run>",
        ),
    )
    bid = bt.submit(
        bt.write("b.xml", bundle("sr", [("pairs", pairs, {}), ("hourly", hourly, {})])),
        kind="bundle",
    )
    bt.step("2026-03-01T09:00Z")  # the bundle starts both schedules
    ids = bt.coords_of(bid)
    x, y = ids["pairs"], ids["hourly"]
    bt.land("x", "1")
    bt.land("y", "1")
    bt.step("2026-03-01T10:00Z")
    bt.land("y", "2")
    bt.step("2026-03-01T10:05Z")
    assert bt.jobs(x) == [("PENDING_TRIGGER", None)]  # one of two partitions seen
    assert [a["status"] for a in bt.actions(y)] == ["SUCCEEDED", "WAITING"]  # held till 11:00

    bt.cli("suspend", bid)
    bt.step("2026-03-01T10:05Z")  # the engine passes it on to the bundle's coordinators
    assert bt.info(x)["status"] == "SUSPENDED"
    assert bt.status(y) == "SUSPENDED"  # its held action was skipped: not an error
    assert bt.jobs(x) == []  # the pending job and the partition it held: gone
    assert [s for s, _h in bt.jobs(y)] == ["LAUNCHED"]
    held = bt.actions(y)[1]
    assert (held["status"], held["error_code"]) == ("SKIPPED", "EB0801")

    bt.land("x", "2")  # while suspended: ignored
    bt.land("y", "3")
    bt.sim("2026-03-01T10:10Z", "2026-03-01T11:30Z")
    assert len(bt.actions(x)) == 0 and len(bt.actions(y)) == 2
    assert bt.jobs(x) == []

    bt.cli("resume", bid)
    bt.step("2026-03-01T11:30Z")
    assert (bt.status(x), bt.status(y)) == ("RUNNING", "RUNNING")
    assert bt.info(bid)["status"] == "RUNNING"  # a suspend and resume leaves no error behind
    x3, y4 = str(bt.land("x", "3")), str(bt.land("y", "4"))
    bt.step("2026-03-01T11:35Z")
    assert bt.actions(x) == []  # x/2 does not count: one new partition since resume
    x4 = str(bt.land("x", "4"))
    bt.step("2026-03-01T11:40Z")
    runs = bt.runs()
    (xa,) = bt.actions(x)
    assert runs[xa["id"]].parts == [x3, x4]
    ya = bt.actions(y)
    assert [a["status"] for a in ya] == ["SUCCEEDED", "SKIPPED", "SUCCEEDED"]
    assert runs[ya[2]["id"]].parts == [y4]
    assert fmt_ms(bt.wf_started(ya[2]["wf"]) or 0) == "2026-03-01T11:35Z"
    assert ya[1]["id"] not in runs  # the skipped one never ran


def test_timeout_discards_or_forces_a_held_job(bt: Bt5) -> None:
    """Two schedules on one feed, each at most once an hour, each giving a held job 30 minutes:
    one discards it at the timeout (TIMEDOUT, never runs), the other force-starts it then."""
    common = {
        "feeds": [Feed("f", "${landing}/f")],
        "trigger": '<partitions feed="f"/>',
    }
    discard = bt.write(
        "discard.xml",
        event_coordinator(
            "discard",
            constraints='<since-last-run>PT1H</since-last-run><timeout on-timeout="discard">PT30M</timeout>',
            **common,  # type: ignore[arg-type]
        ),
    )
    force = bt.write(
        "force.xml",
        event_coordinator(
            "force",
            constraints='<since-last-run>PT1H</since-last-run><timeout on-timeout="force">PT30M</timeout>',
            **common,  # type: ignore[arg-type]
        ),
    )
    d, f = bt.submit(discard), bt.submit(force)
    bt.land("f", "1")
    bt.step("2026-03-01T10:00Z")
    p2 = str(bt.land("f", "2"))
    bt.sim("2026-03-01T10:10Z", "2026-03-01T12:00Z")

    da = bt.actions(d)
    assert [a["status"] for a in da] == ["SUCCEEDED", "TIMEDOUT"]
    assert da[1]["error_code"] == "EB0802"
    assert [s for s, _h in bt.jobs(d)] == ["LAUNCHED", "DISCARDED"]
    assert bt.jobs(d)[1][1] == "timeout reached (since-last-run): discarded"
    assert da[1]["id"] not in bt.runs()
    fa = bt.actions(f)
    assert [a["status"] for a in fa] == ["SUCCEEDED", "SUCCEEDED"]
    assert fmt_ms(bt.wf_started(fa[1]["wf"]) or 0) == "2026-03-01T10:40Z"  # not 11:00
    assert bt.jobs(f) == [("LAUNCHED", None), ("LAUNCHED", "forced at timeout")]
    assert bt.runs()[fa[1]["id"]].parts == [p2]
    # the discarded action never ran: its partition went with it (that is what discard means)
    assert bt.sql(
        "SELECT count(*) FROM job_events WHERE coord_id = ? AND job_id ="
        " (SELECT id FROM job_queue WHERE coord_id = ? AND state = 'DISCARDED')",
        d,
        d,
    ) == [(1,)]
    assert da[1]["trigger"]["fired_at"] == ms("2026-03-01T10:10Z")


def test_what_fired_an_action_reaches_the_workflow_as_argv_never_through_a_shell(
    bt: Bt5, tmp_path: Path
) -> None:
    """Partition paths with spaces, quotes, ``$(…)``, backquotes, ``;`` and ``${…}`` arrive as
    one argv element, exactly; nothing in them is run."""
    app = bt.write(
        "argv.xml",
        event_coordinator(
            "argv",
            feeds=[Feed("f", "${landing}/weird feed")],
            trigger='<partitions feed="f" count="2"/>',
        ),
    )
    coord = bt.submit(app, start=FAR_START, end=FAR_END)
    bt.engine()
    canary = tmp_path / "pwned"
    names = [f"a b $(touch {canary}) `touch {canary}`", f"x;touch {canary};'\"${{x}}"]
    paths = [str(bt.land("weird feed", n)) for n in names]
    (action,) = bt.wait_actions(coord, 1)
    run = bt.runs()[action["id"]]
    assert run.argc == 6  # record.xml's six arguments: nothing split
    # ",".join(paths) was one element (in the order found: a new directory's flag can be
    # seen only by the watcher's re-walk)
    assert run.parts == bt.fired_paths(action)
    assert sorted(run.parts) == sorted(paths)
    runconf = bt.sql("SELECT run_conf FROM coord_actions WHERE id = ?", action["id"])[0][0]
    assert '"parts": ' in runconf and "touch" in runconf
    assert not canary.exists()
    assert not any(p.name == "pwned" for p in tmp_path.rglob("pwned"))


def test_partition_intake_is_deduplicated_live_or_by_the_startup_rescan(bt: Bt5) -> None:
    """A partition is recorded once whether the watcher saw it, a directory re-walk saw it
    again, it was moved in whole, or the start-up rescan found it after a kill -9; each is
    consumed by exactly one action."""
    app = bt.write(
        "dedup.xml",
        event_coordinator(
            "dedup",
            feeds=[Feed("f", "${landing}/feed")],
            trigger='<partitions feed="f"/>',
        ),
    )
    coord = bt.submit(app, start=FAR_START, end=FAR_END)
    engine = bt.engine("--lease-ttl", "0.5")
    p1 = bt.land("feed", "2026/03/01/00")  # live, in a new directory tree
    staging = bt.landing / "feed" / ".staging"
    staging.mkdir()
    (staging / "part-00000").write_text("moved")
    (staging / "_SUCCESS").touch()
    p2 = bt.landing / "feed" / "2026" / "03" / "01" / "01"
    os.replace(staging, p2)  # moved in whole, already complete
    bt.wait_actions(coord, 2)
    (p1 / "_SUCCESS").touch()  # touched again: still the same partition
    time.sleep(1.2)  # the directory re-walks (0.05 / 0.25 / 1 s) see p1 and p2 again
    engine.kill9()
    p3 = bt.land("feed", "2026/03/01/02")  # while nobody watches
    p4 = bt.land("feed", "2026/03/01/03")
    (p2 / "_SUCCESS").touch()
    bt.engine("--lease-ttl", "0.5")
    actions = bt.wait_actions(coord, 4)
    time.sleep(0.5)

    expected = [str(p) for p in (p1, p2, p3, p4)]
    rows = [r[0] for r in bt.sql("SELECT path FROM events WHERE kind = 'partition' ORDER BY id")]
    assert sorted(rows) == expected  # once each …
    assert rows[2:] == expected[2:]  # … the rescan's in the order they completed
    actions = bt.actions(coord)
    assert [bt.fired_paths(a) for a in actions] == [[p] for p in rows]
    assert bt.sql(
        "SELECT count(*), count(DISTINCT event_id) FROM job_events WHERE coord_id = ?", coord
    ) == [(4, 4)]
    runs = bt.runs()
    assert sorted(p for a in actions for p in runs[a["id"]].parts) == sorted(expected)
    assert all(r.launches == 1 for r in runs.values())


def test_cron_leaf_across_daylight_saving_time(bt: Bt5) -> None:
    """The documented DST policy of a cron leaf (coordinator time zone America/New_York): a
    wall time skipped by spring-forward fires at the shift; one that occurs twice in the fall
    fires once."""
    spring = bt.submit(
        bt.write(
            "spring.xml",
            event_coordinator(
                "spring", timezone="America/New_York", trigger='<cron expression="30 2 * * *"/>'
            ),
        )
    )
    fall = bt.submit(
        bt.write(
            "fall.xml",
            event_coordinator(
                "fall", timezone="America/New_York", trigger='<cron expression="30 1 * * *"/>'
            ),
        )
    )
    bt.sim("2026-03-07T00:00Z", "2026-03-10T00:00Z")
    got = [fmt_ms(a["nominal"]) for a in bt.actions(spring)]
    assert got == ["2026-03-07T07:30Z", "2026-03-08T07:00Z", "2026-03-09T06:30Z"]
    bt.sim("2026-10-31T00:00Z", "2026-11-03T00:00Z")
    autumn = ms("2026-10-31T00:00Z")
    got = [fmt_ms(a["nominal"]) for a in bt.actions(fall) if a["nominal"] >= autumn]
    assert got == [
        "2026-10-31T00:00Z",  # the engine was down since March: one catch-up firing, not 234
        "2026-10-31T05:30Z",
        "2026-11-01T05:30Z",  # 01:30 EDT; 01:30 EST an hour later does not fire again
        "2026-11-02T06:30Z",
    ]


def test_a_cron_time_at_the_schedules_start_fires_once(bt: Bt5) -> None:
    """Hourly cron, start 00:00 (the simulated clock starts there too): it fires at 00:00, as
    Quartz's first fire time may equal the start (it used to begin at 01:00), and the job the
    00:00 firing opens does not fire a second time for it."""
    coord = bt.submit(
        bt.write(
            "hourly.xml", event_coordinator("hourly", trigger='<cron expression="0 * * * *"/>')
        )
    )
    bt.sim("2026-01-01T00:00Z", "2026-01-01T03:30Z")
    assert [fmt_ms(a["nominal"]) for a in bt.actions(coord)] == [
        "2026-01-01T00:00Z",
        "2026-01-01T01:00Z",
        "2026-01-01T02:00Z",
        "2026-01-01T03:00Z",
    ]


def test_cron_times_from_the_start_that_no_engine_saw_fire_once(bt: Bt5) -> None:
    """Submitted at 00:00 to start at 02:00, hourly; no engine runs until 05:30: the missed
    times fire once then (as missed times later in a schedule's life do), not never."""
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:00Z")  # the store's clock: submitted at 00:00
    coord = bt.submit(
        bt.write("late.xml", event_coordinator("late", trigger='<cron expression="0 * * * *"/>')),
        start="2026-01-01T02:00Z",
        end="2026-01-01T12:00Z",
    )
    bt.sim("2026-01-01T05:30Z", "2026-01-01T07:30Z")
    assert [fmt_ms(a["nominal"]) for a in bt.actions(coord)] == [
        "2026-01-01T05:30Z",
        "2026-01-01T06:00Z",
        "2026-01-01T07:00Z",
    ]


def test_cron_times_while_suspended_before_the_first_firing_are_not_owed(bt: Bt5) -> None:
    """Suspended before its first cron time, resumed three hours later: nothing fires for the
    times in between (what arrives while suspended is ignored), as when it had fired before."""
    bt.step("2026-01-01T00:00Z")  # the store's clock: submitted at 00:00
    coord = bt.submit(
        bt.write("held.xml", event_coordinator("held", trigger='<cron expression="0 * * * *"/>')),
        start="2026-01-01T00:10Z",
        end="2026-01-01T12:00Z",
    )
    bt.step("2026-01-01T00:20Z")
    bt.cli("suspend", coord)
    bt.step("2026-01-01T03:20Z")
    bt.cli("resume", coord)
    bt.sim("2026-01-01T03:20Z", "2026-01-01T04:30Z")
    assert [fmt_ms(a["nominal"]) for a in bt.actions(coord)] == ["2026-01-01T04:00Z"]


def test_concurrency_holds_fired_jobs_until_a_run_ends(bt: Bt5) -> None:
    """concurrency max=1: jobs fired while a run is going wait ("concurrency (1/1 running)",
    with no time to look again) and launch one by one as runs end."""
    app = bt.write(
        "one.xml",
        event_coordinator(
            "one-at-a-time",
            feeds=[Feed("f", "${landing}/f")],
            trigger='<partitions feed="f"/>',
            constraints='<concurrency max="1"/>',
            conf={"sleep": "0.6"},
        ),
    )
    coord = bt.submit(app, start=FAR_START, end=FAR_END)
    bt.engine()
    for name in ("a", "b", "c"):
        bt.land("f", name)
        time.sleep(0.05)
    waiting = bt.wait_actions(coord, 2, status="WAITING")
    assert all(
        a["held_by"] == {"constraint": "concurrency (1/1 running)", "until": None}
        for a in waiting
        if a["status"] == "WAITING"
    )
    actions = bt.wait_actions(coord, 3, timeout=30)
    runs = bt.runs()
    spans = sorted((runs[a["id"]].start_ns, runs[a["id"]].end_ns or 0) for a in actions)
    assert all(e1 <= s2 for (_s1, e1), (s2, _e2) in pairwise(spans))
    assert [runs[a["id"]].parts for a in actions] == [
        [str(bt.landing / "f" / n)] for n in ("a", "b", "c")
    ]


def test_delay_runs_a_fired_job_some_time_after_its_data_arrived(bt: Bt5) -> None:
    app = bt.write(
        "delay.xml",
        event_coordinator(
            "delayed",
            feeds=[Feed("f", "${landing}/f")],
            trigger='<partitions feed="f"/>',
            constraints="<delay>PT10M</delay>",
        ),
    )
    coord = bt.submit(app)
    bt.land("f", "1")
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    (action,) = bt.actions(coord)
    assert action["trigger"]["fired_at"] == ms("2026-03-01T10:00Z")
    assert fmt_ms(bt.wf_started(action["wf"]) or 0) == "2026-03-01T10:10Z"


def test_constraints_that_hold_when_the_timeout_comes_launch_the_job(bt: Bt5) -> None:
    """The timeout is how long to wait for the constraints (seed 004): a delay as long as the
    timeout launches the job when both end, as does a zero timeout with nothing holding it;
    they were discarded ("timeout reached") without a look at the constraints."""
    apps = {
        "equal": "<delay>PT10M</delay><timeout>PT10M</timeout>",
        "zero": "<timeout>PT0S</timeout>",
    }
    coords = {
        name: bt.submit(
            bt.write(
                f"{name}.xml",
                event_coordinator(
                    name,
                    feeds=[Feed("f", "${landing}/f")],
                    trigger='<partitions feed="f"/>',
                    constraints=constraints,
                ),
            )
        )
        for name, constraints in apps.items()
    }
    bt.land("f", "1")
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    started = {}
    for name, coord in coords.items():
        (action,) = bt.actions(coord)
        assert action["status"] == "SUCCEEDED", (name, action)
        started[name] = fmt_ms(bt.wf_started(action["wf"]) or 0)
    assert started == {"equal": "2026-03-01T10:10Z", "zero": "2026-03-01T10:00Z"}


def test_a_look_after_the_timeout_asks_whether_the_constraints_held_by_then(bt: Bt5) -> None:
    """Held by a night window with a 1 h timeout, and no engine from 10:00 to 23:00: the job
    timed out at 11:00 and is discarded, not launched at 23:00 because the window is open."""
    coord = bt.submit(
        bt.write(
            "night.xml",
            event_coordinator(
                "night",
                feeds=[Feed("f", "${landing}/f")],
                trigger='<partitions feed="f"/>',
                constraints='<time-window start="22:00" end="06:00"/><timeout>PT1H</timeout>',
            ),
        )
    )
    bt.land("f", "1")
    bt.step("2026-03-01T10:00Z")  # fired, held by the window
    assert [a["status"] for a in bt.actions(coord)] == ["WAITING"]
    bt.sim("2026-03-01T23:00Z", "2026-03-01T23:30Z")
    (action,) = bt.actions(coord)
    assert (action["status"], action["error_code"]) == ("TIMEDOUT", "EB0802")


def test_nested_feeds_each_see_a_partition_that_lies_in_both(bt: Bt5) -> None:
    """One schedule watches ``clicks``, another ``clicks/eu``: a partition under ``eu`` is a
    partition of both. It was recorded once, for whichever feed the intake reached last, and
    the other schedule never saw it. Live (the watcher), and while no engine ran (the start-up
    rescan); what was there before the submit counts for neither."""
    every = bt.write(
        "every.xml",
        event_coordinator(
            "every", feeds=[Feed("f", "${landing}/clicks")], trigger='<partitions feed="f"/>'
        ),
    )
    eu = bt.write(
        "eu.xml",
        event_coordinator(
            "eu", feeds=[Feed("f", "${landing}/clicks/eu")], trigger='<partitions feed="f"/>'
        ),
    )
    bt.land("clicks/eu", "old")
    all_id = bt.submit(every, start=FAR_START, end=FAR_END)
    eu_id = bt.submit(eu, start=FAR_START, end=FAR_END)
    engine = bt.engine()
    live_eu = str(bt.land("clicks/eu", "p1"))
    live_us = str(bt.land("clicks/us", "p2"))
    bt.wait_actions(all_id, 2)
    bt.wait_actions(eu_id, 1)
    engine.stop()
    down_eu = str(bt.land("clicks/eu", "p3"))
    bt.engine()
    bt.wait_actions(all_id, 3)
    bt.wait_actions(eu_id, 2)
    time.sleep(0.5)

    def fired(coord: str) -> list[list[str]]:
        return [bt.fired_paths(a) for a in bt.actions(coord)]

    assert sorted(fired(all_id)) == sorted([[live_eu], [live_us], [down_eu]])
    assert fired(eu_id) == [[live_eu], [down_eu]]


def test_an_or_of_nested_feeds_fires_once_for_a_partition_in_both(bt: Bt5) -> None:
    """Left alone earlier: one schedule with an OR of ``clicks`` and ``clicks/eu``; a partition
    under ``eu`` is an event of each feed, and the second one opened a job of its own, so the
    partition fired two actions. Live and after a restart (the rescan)."""
    either = bt.write(
        "either.xml",
        event_coordinator(
            "either",
            feeds=[Feed("all", "${landing}/clicks"), Feed("eu", "${landing}/clicks/eu")],
            trigger='<or><partitions feed="all"/><partitions feed="eu"/></or>',
        ),
    )
    coord = bt.submit(either, start=FAR_START, end=FAR_END)
    engine = bt.engine()
    live_eu = str(bt.land("clicks/eu", "p1"))
    live_us = str(bt.land("clicks/us", "p2"))
    bt.wait_actions(coord, 2)
    engine.stop()
    down_eu = str(bt.land("clicks/eu", "p3"))
    bt.engine()
    bt.wait_actions(coord, 3)
    time.sleep(1.0)  # a second firing for p1 or p3 would come within the engine's next ticks
    fired = sorted(sorted(set(bt.fired_paths(a))) for a in bt.actions(coord))
    assert fired == sorted([[live_eu], [live_us], [down_eu]]), fired


@pytest.mark.parametrize("start", [True, False], ids=["submit --start", "submit, kick-off now"])
def test_a_bundle_schedule_counts_what_lands_after_the_submit_before_any_engine_ran(
    bt: Bt5, start: bool
) -> None:
    """QA: a bundle's event schedule is created by the engine when it starts the bundle; what
    landed between ``submit`` and that moment counted as "already there", so the README's
    recipe (submit, land data, run) never fired. The horizon is the submit's now: a partition
    there before it does not count, those landed after it do — even when the engine, for
    another schedule on the feed, recorded and consumed them before this one existed (they are
    replayed to it)."""
    pairs = bt.write(
        "pairs.xml",
        event_coordinator(
            "pairs",
            feeds=[Feed("x", "${landing}/x")],
            trigger='<partitions feed="x" count="2"/>',
        ),
    )
    # another schedule on the same feed, already running: the engine records and consumes
    # the feed's partitions before the bundle's schedule exists
    watcher = bt.write(
        "watcher.xml",
        event_coordinator(
            "watcher",
            feeds=[Feed("x", "${landing}/x")],
            trigger='<partitions feed="x" count="100"/>',
        ),
    )
    bt.submit(watcher)
    bt.step("2026-03-01T08:00Z")
    bt.land("x", "0")  # before the submit: already there
    props = bt.apps / "b.properties"
    props.write_text(
        f"oozie.bundle.application.path={bt.write('b.xml', bundle('h', [('pairs', pairs, {})]))}\n"
        f"start=2026-01-01T00:00Z\nend=2027-01-01T00:00Z\ntraceDir={bt.trace_dir}\n"
    )
    bid = bt.cli("submit", str(props), *(["--start"] if start else [])).stdout.split()[-1]
    x1, x2 = str(bt.land("x", "1")), str(bt.land("x", "2"))  # no engine has run yet
    bt.step("2026-03-01T09:00Z")
    (pairs_id,) = bt.coords_of(bid).values()
    bt.wait_actions(pairs_id, 1)
    bt.sim("2026-03-01T09:00Z", "2026-03-01T09:05Z")
    (action,) = bt.actions(pairs_id)
    assert action["status"] == "SUCCEEDED"
    assert sorted(bt.runs()[action["id"]].parts) == [x1, x2], bt.runs()[action["id"]].parts


def test_a_partition_completed_under_a_staging_name_then_renamed_fires_once(bt: Bt5) -> None:
    """QA: with a done-flag, a partition written complete under ``.tmp_x`` or ``_temporary/x``
    (the README's advice: write under a hidden name, then rename into place) fired once for
    the staging path, which no longer exists, and again for the final one."""
    app = bt.write(
        "staged.xml",
        event_coordinator(
            "staged",
            feeds=[Feed("f", "${landing}/feed")],
            trigger='<partitions feed="f"/>',
        ),
    )
    coord = bt.submit(app, start=FAR_START, end=FAR_END)
    bt.engine()
    finals = []
    for staging in (bt.landing / "feed" / ".tmp_p1", bt.landing / "feed" / "_temporary" / "p2"):
        staging.mkdir(parents=True)
        (staging / "part-00000").write_text("data")
        (staging / "_SUCCESS").touch()
        time.sleep(1.0)  # the watcher has seen the flag under the staging name
        final = bt.landing / "feed" / staging.name.removeprefix(".tmp_")
        os.replace(staging, final)
        finals.append(str(final))
    actions = bt.wait_actions(coord, 2)
    time.sleep(1.0)
    rows = [r[0] for r in bt.sql("SELECT path FROM events WHERE kind = 'partition' ORDER BY id")]
    assert rows == finals
    assert [bt.fired_paths(a) for a in bt.actions(coord)] == [[p] for p in finals], actions


def test_partitions_that_landed_while_the_engine_was_down_are_taken_in_arrival_order(
    bt: Bt5,
) -> None:
    """QA (crash-4): the start-up rescan recorded each feed's partitions in turn (every f,
    then every g), so an AND of one f and one g fired once with f1 f2 f3 g1 and kept g2 g3
    for later; taken in the order they landed, they pair as they came, as after SAFEMODE."""
    app = bt.write(
        "pairs.xml",
        event_coordinator(
            "pairs",
            feeds=[Feed("f", "${landing}/f"), Feed("g", "${landing}/g")],
            trigger='<and><partitions feed="f"/><partitions feed="g"/></and>',
        ),
    )
    coord = bt.submit(app)
    bt.step("2026-03-01T12:00Z")
    base = time.time() - 600
    landed = []
    for i in range(1, 4):  # f1 g1 f2 g2 f3 g3, a minute apart, while no engine runs
        for k, feed in enumerate("fg"):
            landed.append(str(bt.land(feed, f"{feed}{i}", mtime=base + 120 * i + 60 * k)))
    bt.step("2026-03-01T12:10Z")
    actions = bt.actions(coord)
    runs = bt.runs()
    assert [sorted(runs[a["id"]].parts) for a in actions] == [
        sorted(landed[0:2]),
        sorted(landed[2:4]),
        sorted(landed[4:6]),
    ], [runs[a["id"]].parts for a in actions]


def test_a_partition_under_two_nested_feeds_reaches_the_workflow_once(bt: Bt5) -> None:
    """QA (crash-5): a partition of clicks/eu is an event of feed ``all`` (clicks) and of feed
    ``eu``; an AND of the two fired on it with it listed twice, counted 2 and sized twice."""
    app = bt.write(
        "nested.xml",
        event_coordinator(
            "nested",
            feeds=[Feed("all", "${landing}/clicks"), Feed("eu", "${landing}/clicks/eu")],
            trigger='<and><partitions feed="all"/><partitions feed="eu"/></and>',
            conf={"tag": "${trigger:count()}|${trigger:bytes()}|${trigger:partitions('eu')}"},
        ),
    )
    coord = bt.submit(app)
    bt.step("2026-03-01T12:00Z")
    e1 = str(bt.land("clicks/eu", "e1", size=10))
    bt.step("2026-03-01T12:10Z")
    (action,) = bt.actions(coord)
    assert bt.runs()[action["id"]].parts == [e1]
    (conf,) = bt.sql("SELECT run_conf FROM coord_actions WHERE id = ?", action["id"])[0]
    assert dict(json.loads(conf))["tag"] == f"1|10|{e1}", conf


def _land_before_and_after(bt: Bt5) -> tuple[str, str]:
    """While no engine runs: ``before1``, whose done-flag is a day old (it completed before
    the schedule's start or kick-off, on any clock), and ``after1``, just completed."""
    before = str(bt.land("src", "before1", mtime=time.time() - 86_400))
    after = str(bt.land("src", "after1"))
    return before, after


SRC = [Feed("src", "${landing}/src")]


def _on_src(bt: Bt5) -> Path:
    """A schedule firing on each new partition of feed src."""
    return bt.write(
        "sb.xml", event_coordinator("sb", feeds=SRC, trigger='<partitions feed="src"/>')
    )


def _kicked_off_bundle(bt: Bt5, name: str, app: Path, kickoff: str) -> Path:
    """The properties of a bundle of one coordinator ``name`` with a kick-off time."""
    xml = bundle("k", [(name, app, {})]).replace(
        f'<coordinator name="{name}">',
        f'<controls><kick-off-time>{kickoff}</kick-off-time></controls><coordinator name="{name}">',
    )
    props = bt.apps / "k.properties"
    props.write_text(
        f"oozie.bundle.application.path={bt.write('k.xml', xml)}\n"
        f"start=2026-01-01T00:00Z\nend=2027-01-01T00:00Z\ntraceDir={bt.trace_dir}\n"
    )
    return props


def test_a_schedule_whose_start_passed_while_no_engine_ran_counts_only_what_came_after_it(
    bt: Bt5,
) -> None:
    """QA (crash-3): a schedule submitted to start at 12:05, its start passing while no engine
    ran, fired first on a partition that had completed before 12:05 (with an engine running,
    only what comes after the start counts)."""
    app = _on_src(bt)
    coord = bt.submit(app, start="2026-03-01T12:05Z")
    bt.step("2026-03-01T12:00Z")
    assert bt.status(coord) == "PREP"
    _before, after = _land_before_and_after(bt)
    bt.step("2026-03-01T12:10Z")
    assert [bt.runs()[a["id"]].parts for a in bt.actions(coord)] == [[after]]


def test_a_bundle_kicked_off_while_no_engine_ran_counts_what_landed_after_its_kick_off(
    bt: Bt5,
) -> None:
    """QA (crash-2): a bundle's schedule whose kick-off (12:05) passed while no engine ran
    took its horizon when the engine came, so a partition completed after the kick-off
    counted as already there and never fired it."""
    sb = _on_src(bt)
    props = _kicked_off_bundle(bt, "sb", sb, "2026-03-01T12:05Z")
    bt.step("2026-03-01T12:00Z")
    bid = bt.cli("submit", str(props)).stdout.split()[-1]
    _before, after = _land_before_and_after(bt)
    bt.step("2026-03-01T12:10Z")
    (coord,) = bt.coords_of(bid).values()
    bt.sim("2026-03-01T12:10Z", "2026-03-01T12:12Z")
    assert [bt.runs()[a["id"]].parts for a in bt.actions(coord)] == [[after]]


def test_a_partition_moved_in_with_an_old_mtime_counts(bt: Bt5) -> None:
    """Review: a partition landed with ``mv`` (or ``rsync -a``) keeps its old done-flag time;
    judged by it, every schedule dropped it without a word. Only a start reached late looks
    at completion times."""
    app = _on_src(bt)
    coord = bt.submit(app)  # started long ago
    bt.step("2026-03-01T12:00Z")
    old = str(bt.land("src", "moved", mtime=time.time() - 90 * 86_400))  # before its start
    bt.step("2026-03-01T12:10Z")
    assert [bt.runs()[a["id"]].parts for a in bt.actions(coord)] == [[old]]


def test_a_bundle_submitted_with_a_past_kick_off_counts_from_its_submit(bt: Bt5) -> None:
    """Review: with a kick-off already past at submit, the horizon at the kick-off counted
    every partition on disk that had completed since then, though it was there at submit."""
    sb = _on_src(bt)
    props = _kicked_off_bundle(bt, "sb", sb, "2026-01-01T00:00Z")
    bt.step("2026-03-01T12:00Z")
    bt.land("src", "there", mtime=time.time() - 3_600)  # before the submit, after the kick-off
    bid = bt.cli("submit", str(props)).stdout.split()[-1]
    after = str(bt.land("src", "after"))
    bt.step("2026-03-01T12:10Z")
    (coord,) = bt.coords_of(bid).values()
    bt.sim("2026-03-01T12:10Z", "2026-03-01T12:12Z")
    assert [bt.runs()[a["id"]].parts for a in bt.actions(coord)] == [[after]]


def test_a_bundled_cron_schedule_kicked_off_while_no_engine_ran_catches_up_once(
    bt: Bt5,
) -> None:
    """QA (crash-2b): a standalone cron schedule fires once for the times it missed while no
    engine ran (Quartz's fire-once-now); a bundle's, kicked off while none ran, counted its
    cron times only from when the engine came and created it."""
    cron = bt.write("cr.xml", event_coordinator("cr", trigger='<cron expression="*/5 * * * *"/>'))
    props = _kicked_off_bundle(bt, "cr", cron, "2026-03-01T12:05Z")
    bt.step("2026-03-01T12:00Z")
    bid = bt.cli("submit", str(props)).stdout.split()[-1]
    bt.step("2026-03-01T12:08Z")  # the 12:05 cron time passed with no engine
    (coord,) = bt.coords_of(bid).values()
    assert [a["nominal"] for a in bt.actions(coord)] == [ms("2026-03-01T12:08Z")], bt.actions(coord)
