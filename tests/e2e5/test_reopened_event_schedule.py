"""An ended event schedule taken back to running counts what landed while it was ended.

QA: a bundle's train-on-arrival schedule ("4 new partitions of clicks", a 22:00-06:00 window)
ended SUCCEEDED; ``change B --value endtime=…`` with no engine running queued the change for
the bundle's coordinators; 8 partitions landed; the next ``run`` left the schedule at "2 of 4":
its start-up rescan walks the feeds of live schedules only, and ran before the engine applied
the queued change that made the schedule live again. Only the rescan every 5 minutes of real
time would have found them (a simulated run ends first; the next run stamped them with its own
start time). With an engine running, a ``change`` or ``kill``-then-``status=RUNNING`` from the
command line had the same gap: the watcher passes over a feed whose schedule has ended.

A schedule taken back to running has its feeds rescanned when the engine applies the command,
as the start-up rescan does: what landed meanwhile counts as new from then.
"""

from __future__ import annotations

import time

import pytest

from tests.e2e5.conftest import Bt5, Feed, bundle, event_coordinator, ms, wait_for

FEED = [Feed("f", "${landing}/f")]
FAR_START, FAR_END = "2020-01-01T00:00Z", "2099-01-01T00:00Z"  # real-clock tests


def landed(bt: Bt5, names: list[str]) -> list[str]:
    """Partitions of feed f, completed in this order (a second apart, just now)."""
    first = time.time() - len(names)
    return [str(bt.land("f", n, mtime=first + i)) for i, n in enumerate(names)]


@pytest.mark.parametrize("via", ["bundle", "coordinator"])
def test_an_end_time_change_with_no_engine_counts_what_landed_in_the_next_run(
    bt: Bt5, via: str
) -> None:
    """The QA scenario, on the simulated clock: the change is given while no engine runs; the
    partitions that landed after it fire in the first run, at its start (07:00), and are held
    by the time window until 22:00. A bundle's change reaches the schedule through the engine
    (after its start-up rescan: the bug); a coordinator's is applied by the command itself."""
    app = bt.write(
        "night.xml",
        event_coordinator(
            "night",
            feeds=FEED,
            trigger='<partitions feed="f" count="2"/>',
            constraints='<concurrency max="1"/><time-window start="22:00" end="06:00"/>',
        ),
    )
    b = bt.submit(
        bt.write("b.xml", bundle("b", [("night", app, {})])),
        kind="bundle",
        start="2026-03-01T00:00Z",
        end="2026-03-01T06:00Z",
    )
    first = landed(bt, ["a1", "a2", "a3"])
    bt.sim("2026-03-01T01:00Z", "2026-03-01T07:00Z")  # a1+a2 fire at 01:00; a3 is kept
    coord = bt.coords_of(b)["night"]
    assert bt.status(coord) == "SUCCEEDED"
    (one,) = bt.actions(coord)
    assert bt.fired_paths(one) == first[:2]

    target = b if via == "bundle" else coord
    bt.cli("change", target, "--value", "endtime=2026-03-02T00:00Z")
    later = landed(bt, ["b1", "b2", "b3", "b4"])
    bt.sim("2026-03-01T07:00Z", "2026-03-01T21:00Z")  # the first run after the change
    assert bt.status(coord) == "RUNNING"
    _one, two, three = actions = bt.actions(coord)
    assert [bt.fired_paths(a) for a in (two, three)] == [[first[2], later[0]], later[1:3]]
    seven = ms("2026-03-01T07:00Z")
    assert [(a["created"], a["nominal"]) for a in (two, three)] == [
        (seven, seven),
        (seven, seven + 1),  # nominal times stay distinct
    ]
    for a in (two, three):
        assert a["status"] == "WAITING", actions
        assert a["held_by"]["constraint"] == "time-window", a
        assert a["held_by"]["until"] == ms("2026-03-01T22:00Z"), a
    progress = bt.info(coord)["materialization"]["progress"]
    assert [p["seen"] for p in progress] == ["1 of 2"]  # b4

    bt.sim("2026-03-01T21:00Z", "2026-03-01T23:00Z")  # the window opens: they run, one by one
    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED"] * 3, actions
    started = [bt.wf_started(a["wf"]) for a in actions[1:]]
    assert all(s is not None and s >= ms("2026-03-01T22:00Z") for s in started), started
    runs = bt.runs()
    assert [runs[a["id"]].parts for a in actions[1:]] == [[first[2], later[0]], later[1:3]]


@pytest.mark.parametrize("reopen", ["endtime", "status"])
def test_a_schedule_reopened_while_an_engine_runs_counts_what_landed_while_it_was_ended(
    bt: Bt5, reopen: str
) -> None:
    """On the real clock, an engine running throughout: the schedule ends (its end time passes,
    or ``kill``), a partition lands — the watcher passes it over, the schedule's feed is not
    watched — then ``change --value endtime=…`` or ``status=RUNNING`` from the command line.
    The partition fires the schedule at once, not at the next 5-minute rescan."""
    canary = bt.submit(
        bt.write(
            "canary.xml",
            event_coordinator(
                "canary", feeds=[Feed("g", "${landing}/g")], trigger='<partitions feed="g"/>'
            ),
        ),
        start=FAR_START,
        end=FAR_END,
    )
    app = bt.write(
        "plain.xml", event_coordinator("plain", feeds=FEED, trigger='<partitions feed="f"/>')
    )
    past_end = reopen == "endtime"
    coord = bt.submit(app, start=FAR_START, end="2021-01-01T00:00Z" if past_end else FAR_END)
    bt.engine()
    if past_end:
        wait_for(lambda: bt.status(coord) == "SUCCEEDED", 15, "the schedule's end")
    else:
        wait_for(lambda: bt.status(coord) == "RUNNING", 15, "the schedule's start")
        bt.cli("kill", coord)
    while_ended = str(bt.land("f", "while-ended"))
    seen = str(bt.land("g", "seen"))  # the watcher's batch with it has been handled once …
    bt.wait_actions(canary, 1)  # … the live feed's partition fired
    assert bt.sql("SELECT path FROM events WHERE path = ?", while_ended) == []
    assert bt.sql("SELECT path FROM events WHERE path = ?", seen) == [(seen,)]

    change = "endtime=2099-01-01T00:00Z" if past_end else "status=RUNNING"
    bt.cli("change", coord, "--value", change)
    (action,) = bt.wait_actions(coord, 1, timeout=15)
    assert bt.fired_paths(action) == [while_ended]
    assert bt.runs()[action["id"]].parts == [while_ended]
    assert bt.status(coord) == "RUNNING"
