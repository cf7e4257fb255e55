"""Seed 004's user stories 3–11, one end-to-end test each, on the real engine.

Each test submits event-triggered coordinators (``uri:bundletui:coordinator:1.0``) with the CLI,
drops partitions into a real landing directory and runs ``bundletui run`` — on the simulated
clock step by step where hours or days must pass (see conftest), on the real clock where the
landing watcher's live intake is the point. What ran is read back from the workflows' own
trace (their argv), from the store (read-only) and from ``info --json``.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.e2e5.conftest import (
    RECORD,
    Bt5,
    Feed,
    bundle,
    event_coordinator,
    fmt_ms,
    ms,
    wait_for,
)

FAR_START, FAR_END = "2020-01-01T00:00Z", "2099-01-01T00:00Z"  # real-clock tests


def started(bt: Bt5, actions: list[dict[str, Any]]) -> list[str]:
    """Each action's workflow start, as a simulated-clock time."""
    return [fmt_ms(bt.wf_started(a["wf"]) or 0) for a in actions]


# ----------------------------------------------------------------------------- story 3


def test_story3_daily_feed_at_unknown_times_runs_only_when_it_arrives(bt: Bt5) -> None:
    """New data arrives once daily at unknown times; the workflow runs when it arrives (no
    speculative runs every 3 hours, and no 3-hour processing delay)."""
    app = bt.write(
        "daily.xml",
        event_coordinator(
            "on-arrival",
            feeds=[Feed("orders", "${landing}/orders")],
            trigger='<partitions feed="orders" count="1"/>',
        ),
    )
    coord = bt.submit(app)
    day1 = str(bt.land("orders", "2026-03-01"))
    bt.step("2026-03-01T07:13Z")
    day2 = str(bt.land("orders", "2026-03-02"))
    bt.sim("2026-03-02T19:42Z", "2026-03-05T00:00Z")  # then two days without data

    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED", "SUCCEEDED"]
    assert started(bt, actions) == ["2026-03-01T07:13Z", "2026-03-02T19:42Z"]
    runs = bt.runs()
    assert [runs[a["id"]].parts for a in actions] == [[day1], [day2]]
    assert all(runs[a["id"]].reason == "partitions" for a in actions)


# ----------------------------------------------------------------------------- story 4

TIME_A = """<?xml version="1.0" encoding="UTF-8"?>
<coordinator-app name="A" frequency="${coord:hours(1)}" start="${start}" end="${end}"
                 timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>RECORD</app-path><configuration>
    <property><name>traceDir</name><value>${traceDir}</value></property>
    <property><name>aid</name><value>${coord:actionId()}</value></property>
    <property><name>failIf</name>
      <value>${landing}/fail-${coord:formatTime(coord:nominalTime(), 'HH')}</value></property>
    <property><name>parts</name><value></value></property>
    <property><name>reason</name><value></value></property>
    <property><name>sleep</name><value>0</value></property>
  </configuration></workflow></action>
</coordinator-app>
""".replace("RECORD", str(RECORD))


def test_story4_B_runs_right_after_A_succeeds_and_never_after_A_fails(bt: Bt5) -> None:
    """B reads A's output: B runs immediately after each successful run of A, never after a
    failed one (C, listening on A's failures, shows the failed run did end)."""
    a = bt.write("A.xml", TIME_A)
    b = bt.write(
        "B.xml",
        event_coordinator(
            "B",
            trigger='<program coordinator="A" status="SUCCEEDED"/>',
            conf={"parts": "${trigger:programs()}"},
        ),
    )
    c = bt.write(
        "C.xml",
        event_coordinator(
            "C",
            trigger='<program coordinator="A" status="FAILED"/>',
            conf={"parts": "${trigger:programs()}"},
        ),
    )
    bid = bt.submit(
        bt.write("bundle.xml", bundle("ab", [("A", a, {}), ("B", b, {}), ("C", c, {})])),
        kind="bundle",
        start="2026-03-01T00:00Z",
        end="2026-03-01T04:00Z",
    )
    bt.landing.mkdir(parents=True, exist_ok=True)
    (bt.landing / "fail-01").touch()  # A's 01:00 run fails
    bt.sim("2026-03-01T00:00Z", "2026-03-01T05:00Z")

    ids = bt.coords_of(bid)
    a_actions = bt.actions(ids["A"])
    assert [x["status"] for x in a_actions] == ["SUCCEEDED", "FAILED", "SUCCEEDED", "SUCCEEDED"]
    b_actions = bt.actions(ids["B"])
    runs = bt.runs()
    # B ran once per successful A, with that A action as its trigger, and never for A@2
    assert [runs[x["id"]].parts for x in b_actions] == [
        [a_actions[0]["id"]],
        [a_actions[2]["id"]],
        [a_actions[3]["id"]],
    ]
    assert all(x["status"] == "SUCCEEDED" for x in b_actions)
    # … right after: B's workflow started at the (simulated) instant A's action ended
    a_ended = {
        aid: t
        for aid, t in bt.sql(
            "SELECT id, last_modified FROM coord_actions WHERE coord_id = ?", ids["A"]
        )
    }
    for x in b_actions:
        (source,) = runs[x["id"]].parts
        assert bt.wf_started(x["wf"]) == a_ended[source]
    assert [runs[x["id"]].parts for x in bt.actions(ids["C"])] == [[a_actions[1]["id"]]]
    assert all(runs[x["id"]].reason == "program" for x in b_actions)


# ----------------------------------------------------------------------------- story 5


@pytest.mark.slow
def test_story5_thousands_of_rare_feeds_each_processed_at_most_once_a_day(bt: Bt5) -> None:
    """100 feeds (one schedule each, in one bundle) arriving rarely; each is processed at most
    once a day (since-last-run P1D), the whole lake at most 3 at a time (a concurrency group)
    — and feeds without data never run."""
    app = bt.write(
        "lake.xml",
        event_coordinator(
            "lake-${feed}",
            feeds=[Feed("data", "${landing}/${feed}")],
            trigger='<partitions feed="data"/>',
            constraints='<since-last-run>P1D</since-last-run><concurrency max="3" group="lake"/>',
            conf={"sleep": "0.05"},
        ),
    )
    feeds = [f"f{i:02d}" for i in range(100)]
    bid = bt.submit(
        bt.write("bundle.xml", bundle("lake", [(f, app, {"feed": f}) for f in feeds])),
        kind="bundle",
    )
    bt.step("2026-03-01T00:00Z")  # the bundle starts its 100 schedules
    landed: dict[str, list[str]] = {f: [] for f in feeds}
    for f in feeds[:30]:  # day 1, early: 30 feeds get data
        landed[f].append(str(bt.land(f, "a")))
    bt.step("2026-03-01T02:00Z")
    for f in feeds[:10]:  # later that day: 10 of them again (one of them twice) …
        landed[f].append(str(bt.land(f, "b")))
    landed["f00"].append(str(bt.land("f00", "c")))
    for f in feeds[30:40]:  # … and 10 feeds for the first time
        landed[f].append(str(bt.land(f, "a")))
    bt.sim("2026-03-01T14:00Z", "2026-03-02T12:00Z")

    ids = bt.coords_of(bid)
    assert len(ids) == 100
    runs = bt.runs()
    day = timedelta(days=1)
    for f in feeds:
        actions = bt.actions(ids[f])
        assert all(a["status"] == "SUCCEEDED" for a in actions), (f, actions)
        times = [datetime.fromtimestamp(bt.wf_started(a["wf"]) / 1000, UTC) for a in actions]  # type: ignore[operator]
        assert all(t2 - t1 >= day for t1, t2 in pairwise(times)), (f, times)
        got = [p for a in actions for p in runs[a["id"]].parts]
        assert got == landed[f], f  # every partition processed once, none skipped
    n_runs = {f: len(bt.actions(ids[f])) for f in feeds}
    assert n_runs == {f: 2 if f < "f10" else 1 if f < "f40" else 0 for f in feeds}
    # f00..f09: their second arrival waited for the day to pass (since day 1, 02:00)
    assert started(bt, bt.actions(ids["f00"])) == ["2026-03-01T02:00Z", "2026-03-02T02:00Z"]
    assert started(bt, bt.actions(ids["f35"])) == ["2026-03-01T14:00Z"]
    # the group limit held across schedules (real start/end times of the jobs), and was used
    spans = sorted((r.start_ns, r.end_ns or r.start_ns) for r in runs.values())
    peak = max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)
    assert 2 <= peak <= 3, peak


# ----------------------------------------------------------------------------- story 6


def test_story6_high_priority_launches_first_low_priority_catches_up(bt: Bt5) -> None:
    """Under load (one worker), high-priority schedules' jobs launch before low-priority ones
    that arrived earlier; the low ones still run, later."""
    low = bt.write(
        "low.xml",
        event_coordinator(
            "bulk",
            feeds=[Feed("f", "${landing}/bulk")],
            trigger='<partitions feed="f"/>',
            priority=1,
            conf={"sleep": "1.0"},  # long enough for all four to fire meanwhile
        ),
    )
    high = bt.write(
        "high.xml",
        event_coordinator(
            "urgent",
            feeds=[Feed("f", "${landing}/urgent")],
            trigger='<partitions feed="f"/>',
            priority=10,
            conf={"sleep": "0.1"},
        ),
    )
    bulk = bt.submit(low, start=FAR_START, end=FAR_END)
    urgent = bt.submit(high, start=FAR_START, end=FAR_END)
    bt.engine("--max-workers", "1")
    bt.land("bulk", "a")
    first = bt.wait_actions(bulk, 1, status="RUNNING")[0]
    wait_for(lambda: first["id"] in bt.runs(), what="bulk@1 started")
    for feed, name in (("bulk", "b"), ("bulk", "c"), ("urgent", "x"), ("urgent", "y")):
        bt.land(feed, name)  # the low ones first
        time.sleep(0.02)
    wait_for(lambda: len(bt.actions(bulk)) == 3 and len(bt.actions(urgent)) == 2, what="fired")
    assert first["id"] in bt.runs() and bt.runs()[first["id"]].end_ns is None  # still busy
    bt.wait_actions(bulk, 3)
    bt.wait_actions(urgent, 2)

    order = [
        aid
        for aid, _t in sorted(
            (
                (r[0], r[1])
                for r in bt.sql(
                    "SELECT a.id, n.started FROM coord_actions a JOIN wf_nodes n"
                    " ON n.wf_id = a.external_id WHERE a.coord_id IN (?, ?)",
                    bulk,
                    urgent,
                )
            ),
            key=lambda x: x[1],
        )
    ]
    assert order == [f"{bulk}@1", f"{urgent}@1", f"{urgent}@2", f"{bulk}@2", f"{bulk}@3"]
    runs = bt.runs()
    assert [
        a for a, _ in sorted(((k, r.start_ns) for k, r in runs.items()), key=lambda x: x[1])
    ] == order
    spans = sorted((r.start_ns, r.end_ns or 0) for r in runs.values())
    assert all(e1 <= s2 for (_s1, e1), (s2, _e2) in pairwise(spans))  # 1 worker


# ----------------------------------------------------------------------------- story 7

NY = ZoneInfo("America/New_York")


def local(text: str) -> str:
    """A New York wall time (``2026-02-10T20:00``) as the UTC ``…Z`` the CLI takes."""
    t = datetime.strptime(text, "%Y-%m-%dT%H:%M").replace(tzinfo=NY)
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")


def test_story7_daily_inside_a_night_window_only_if_there_is_new_data(bt: Bt5) -> None:
    """Maintenance once a day (cron 20:00 New York time), only if there is new data (AND), and
    only inside 22:00–06:00 local (a time window spanning midnight)."""
    app = bt.write(
        "maint.xml",
        event_coordinator(
            "maintenance",
            timezone="America/New_York",
            feeds=[Feed("t", "${landing}/table")],
            trigger='<and><cron expression="0 20 * * *"/><partitions feed="t"/></and>',
            constraints='<time-window start="22:00" end="06:00"/>',
        ),
    )
    coord = bt.submit(app)
    d1 = str(bt.land("table", "d1"))  # data in the morning; at 20:00 fired, window shut
    bt.sim(local("2026-02-10T09:00"), local("2026-02-10T21:00"))
    (held,) = bt.actions(coord)
    assert held["status"] == "WAITING"
    assert held["held_by"] == {"constraint": "time-window", "until": ms(local("2026-02-10T22:00"))}
    assert bt.info(held["id"])["waitingFor"]["constraint"] == "time-window"
    # runs at 22:00; the next evening (no new data) nothing runs
    bt.sim(local("2026-02-10T21:00"), local("2026-02-12T12:00"))
    assert len(bt.actions(coord)) == 1
    d2 = str(bt.land("table", "d2"))  # arrives late at night, after the day's cron time
    bt.step(local("2026-02-12T23:30"))
    d3 = str(bt.land("table", "d3"))  # arrives in the morning
    bt.sim(local("2026-02-13T10:00"), local("2026-02-14T12:00"))

    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED"] * 3
    assert started(bt, actions) == [
        local("2026-02-10T22:00"),
        local("2026-02-12T23:30"),
        local("2026-02-13T22:00"),
    ]
    runs = bt.runs()
    assert [runs[a["id"]].parts for a in actions] == [[d1], [d2], [d3]]
    assert all(runs[a["id"]].reason == "cron,partitions" for a in actions)


# ----------------------------------------------------------------------------- story 8


def test_story8_join_after_all_inputs_have_new_data_or_after_a_wait(bt: Bt5) -> None:
    """A join of two feeds runs once both got new data; if one does not, it runs 6 hours after
    the first new data with whatever arrived: OR(AND(A, B), wait)."""
    app = bt.write(
        "join.xml",
        event_coordinator(
            "join",
            feeds=[Feed("A", "${landing}/a"), Feed("B", "${landing}/b")],
            trigger="<or><and>"
            '<partitions feed="A"/><partitions feed="B"/>'
            '</and><wait duration="PT6H" after="first-event"/></or>',
            conf={"parts": "${trigger:partitions('A')};${trigger:partitions('B')}"},
        ),
    )
    coord = bt.submit(app)
    a1, b1 = str(bt.land("a", "1")), str(bt.land("b", "1"))
    bt.step("2026-03-01T01:00Z")  # both: runs at once
    a2 = str(bt.land("a", "2"))  # at 08:00 only A gets new data: it waits for B, 6 hours
    bt.sim("2026-03-01T08:00Z", "2026-03-01T20:00Z")

    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED", "SUCCEEDED"]
    assert started(bt, actions) == ["2026-03-01T01:00Z", "2026-03-01T14:00Z"]
    runs = bt.runs()
    assert runs[actions[0]["id"]].parts == [f"{a1};{b1}"]
    assert runs[actions[0]["id"]].reason == "partitions"
    assert runs[actions[1]["id"]].parts == [f"{a2};"]  # B's existing data, nothing new
    assert runs[actions[1]["id"]].reason == "partitions,wait"


# ----------------------------------------------------------------------------- story 9


def test_story9_data_in_n_chunks_runs_once_after_all_arrived(bt: Bt5) -> None:
    """A feed known to arrive in 3 chunks (files, no done flag): the workflow runs once, after
    the third chunk is complete — a chunk still being written does not count yet; a chunk
    renamed into place counts once; staging names are ignored."""
    app = bt.write(
        "chunks.xml",
        event_coordinator(
            "chunks",
            feeds=[Feed("c", "${landing}/chunks", done_flag="")],
            trigger='<partitions feed="c" count="3"/>',
        ),
    )
    coord = bt.submit(app, start=FAR_START, end=FAR_END)
    bt.engine()
    d = bt.landing / "chunks" / "2026-03-01"
    d.mkdir(parents=True)
    (d / "c1.csv").write_text("a" * 100)
    staging = d / ".c2.csv.tmp"
    staging.write_text("b" * 200)
    os.replace(staging, d / "c2.csv")
    gaps = []
    with (d / "c3.csv").open("w") as f:  # written slowly: grows for ~1 s
        for i in range(10):
            if i:
                t = time.time()
                time.sleep(0.1)
                gaps.append(time.time() - t)
            f.write("c" * 30)
            f.flush()
        last_write = time.time()
    (action,) = bt.wait_actions(coord, 1)
    time.sleep(1.0)
    assert len(bt.actions(coord)) == 1
    run = bt.runs()[action["id"]]
    # (in the order they were found complete, which a missed inotify event can change)
    assert sorted(run.parts) == [str(d / "c1.csv"), str(d / "c2.csv"), str(d / "c3.csv")]
    sizes = {e["path"]: e["size"] for e in action["trigger"]["events"]}
    assert sizes[str(d / "c1.csv")] == 100 and sizes[str(d / "c2.csv")] == 200
    if max(gaps) < 0.45:  # (a writer stalled by a loaded machine for 0.5 s looks complete)
        assert run.start_ns / 1e9 >= last_write + 0.4  # after it stopped growing (0.5 s)
        assert sizes[str(d / "c3.csv")] == 300  # recorded complete
    assert bt.sql("SELECT count(*) FROM events WHERE path LIKE '%.tmp'") == [(0,)]
    # the next batch: one chunk is not enough
    (d / "c4.csv").write_text("d")
    time.sleep(1.5)
    assert len(bt.actions(coord)) == 1


def test_a_writer_that_pauses_longer_than_the_default_settle_needs_run_settle(bt: Bt5) -> None:
    """A file of a feed without done-flag counts once it stopped growing for ``--settle``
    seconds: a writer pausing 1 s mid-file is taken whole with ``--settle 2``."""
    app = bt.write(
        "slow.xml",
        event_coordinator(
            "slow",
            feeds=[Feed("c", "${landing}/slow", done_flag="")],
            trigger='<partitions feed="c" count="1"/>',
        ),
    )
    coord = bt.submit(app, start=FAR_START, end=FAR_END)
    bt.engine("--settle", "2")
    d = bt.landing / "slow" / "2026-03-01"
    d.mkdir(parents=True)
    with (d / "part.csv").open("w") as f:
        f.write("a" * 100)
        f.flush()
        time.sleep(1.0)  # a stall the default 0.5 s would take for the end of the file
        f.write("b" * 100)
    (action,) = bt.wait_actions(coord, 1, timeout=15)
    assert [e["size"] for e in action["trigger"]["events"]] == [200]
    time.sleep(1.0)
    assert len(bt.actions(coord)) == 1


# ----------------------------------------------------------------------------- story 10


def test_story10_frequent_data_runs_when_enough_bytes_accumulated_or_after_a_wait(
    bt: Bt5,
) -> None:
    """Data every 50 ms; the workflow runs when at least 1 KB accumulated (never per partition),
    and the tail that never reaches 1 KB runs 2 s after its first partition."""
    app = bt.write(
        "freq.xml",
        event_coordinator(
            "frequent",
            feeds=[Feed("s", "${landing}/stream")],
            trigger='<or><bytes feed="s" at-least="1KB"/><wait duration="PT2S"/></or>',
        ),
    )
    coord = bt.submit(app, start=FAR_START, end=FAR_END)
    bt.engine()
    parts = []
    for i in range(20):
        parts.append(str(bt.land("stream", f"{i:03d}", size=200)))
        time.sleep(0.05)
    landed_all = time.time()
    wait_for(
        lambda: sum(len(bt.fired_paths(a)) for a in bt.actions(coord)) == 20,
        timeout=10,
        what="all 20 partitions consumed",
    )
    actions = bt.wait_actions(coord, len(bt.actions(coord)))
    runs = bt.runs()
    got = [runs[a["id"]].parts for a in actions]
    consumed = [p for ps in got for p in ps]
    assert sorted(consumed) == parts and len(set(consumed)) == 20  # each once
    assert len(actions) <= 4  # not 20 runs
    by_bytes, tail = actions[:-1], actions[-1]
    for a in by_bytes:
        assert sum(e["size"] for e in a["trigger"]["events"]) >= 1024
        assert runs[a["id"]].reason == "bytes"
    tail_bytes = sum(e["size"] for e in tail["trigger"]["events"])
    if tail_bytes < 1024:  # fired by the wait
        assert runs[tail["id"]].reason == "wait"
        first_event = min(e["time"] for e in tail["trigger"]["events"])
        assert tail["trigger"]["fired_at"] - first_event >= 2000
        assert runs[tail["id"]].start_ns / 1e9 >= landed_all


# ----------------------------------------------------------------------------- story 11


def test_story11_at_least_every_4_hours_or_sooner_when_enough_data_arrived(bt: Bt5) -> None:
    """At least every 4 hours (cron), or as soon as "100 GB" (here 2 KB) arrived: one OR."""
    app = bt.write(
        "burst.xml",
        event_coordinator(
            "bursty",
            feeds=[Feed("e", "${landing}/events")],
            trigger='<or><cron expression="0 */4 * * *"/><bytes feed="e" at-least="2KB"/></or>',
        ),
    )
    # from 00:01: a schedule live at 00:00 fires at that cron time (Quartz's first fire time)
    coord = bt.submit(app, start="2026-03-01T00:01Z")
    bt.sim("2026-03-01T00:00Z", "2026-03-01T06:00Z")  # quiet: the 04:00 run only
    burst = [str(bt.land("events", f"burst-{i}", size=1024)) for i in range(3)]
    bt.step("2026-03-01T06:30Z")  # a burst: runs at once
    small = str(bt.land("events", "small", size=100))
    bt.sim("2026-03-01T06:30Z", "2026-03-01T13:00Z")

    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED"] * 4
    assert started(bt, actions) == [
        "2026-03-01T04:00Z",
        "2026-03-01T06:30Z",
        "2026-03-01T08:00Z",
        "2026-03-01T12:00Z",
    ]
    runs = bt.runs()
    # the burst fires as soon as 2 KB are there; the rest waits for the next run
    assert [runs[a["id"]].parts for a in actions] == [[], burst[:2], [burst[2], small], []]
    assert [runs[a["id"]].reason for a in actions] == ["cron", "bytes", "cron", "cron"]
