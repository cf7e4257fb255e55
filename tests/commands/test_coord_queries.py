"""coord_queries: Oozie's JSON for bundles, coordinators and coordinator actions (oozie.md §7.2,
oozie-rest-clients.md §4), the action page (offset/len/order/filter, total), why actions wait,
the coordinator/bundle listings (§6.2, §7.3), definitions and the action -> workflow lookup.

Jobs are submitted from real application files through the real commands. Bundles are started
by a real engine on a simulated clock. Coordinator actions are written through the store layer
(tests/commands/sample_apps.add_actions, which says why); one test runs the engine's own
materialization and input checks and is skipped until engine/coord_inputs.py exists.
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bundletui.commands import coord_queries, dispatch, queries
from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.errors import BundletuiError
from bundletui.model.clock import to_ms
from bundletui.spec.load import load_job
from bundletui.store.db import Store
from tests.commands.sample_apps import ActionSpec, Apps, add_actions, write_apps

# oozie.md §7.2 (toJSONObject keys) — what an Oozie client reads.
BUNDLE_KEYS = {
    "bundleJobPath", "bundleJobName", "bundleJobId", "bundleExternalId", "conf", "status",
    "timeUnit", "timeOut", "kickoffTime", "startTime", "endTime", "pauseTime", "createdTime",
    "user", "group", "acl", "consoleUrl", "bundleCoordJobs", "toString",
}  # fmt: skip
COORD_KEYS = {
    "coordJobPath", "coordJobName", "coordJobId", "coordExternalId", "bundleId", "conf",
    "status", "executionPolicy", "frequency", "timeUnit", "timeZone", "concurrency", "timeOut",
    "lastAction", "nextMaterializedTime", "createdTime", "startTime", "endTime", "pauseTime",
    "user", "group", "acl", "consoleUrl", "mat_throttling", "actions", "toString", "total",
}  # fmt: skip
ACTION_KEYS = {
    "id", "coordJobId", "type", "actionNumber", "createdConf", "createdTime", "nominalTime",
    "externalId", "status", "runConf", "lastModifiedTime", "missingDependencies",
    "pushMissingDependencies", "externalStatus", "trackerUri", "consoleUrl", "errorCode",
    "errorMessage", "toString",
}  # fmt: skip
# Ours, beside Oozie's (never instead of them).
COORD_EXTRA = {
    "schedule", "pending", "lastActionNumber", "doneMaterialization", "counts", "materialization",
    "lastModifiedTime", "page", "errorCode", "errorMessage",
}  # fmt: skip
ACTION_EXTRA = {"pending", "waitingFor", "dependencies", "coordJobName"}
BUNDLE_EXTRA = {"pending", "lastModifiedTime", "bundleActions", "counts"}

RFC822 = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$")  # fmt: skip
COORD_DATES = ("lastAction", "nextMaterializedTime", "createdTime", "startTime", "endTime", "pauseTime")  # fmt: skip
ACTION_DATES = ("createdTime", "nominalTime", "lastModifiedTime")


def assert_date(value: Any) -> None:
    """RFC-822 in GMT, as pyoozie parses it ('%a, %d %b %Y %H:%M:%S %Z'), or null."""
    if value is not None:
        assert RFC822.match(value), value
        datetime.strptime(value, "%a, %d %b %Y %H:%M:%S %Z")


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture
def apps(tmp_path: Path) -> Apps:
    return write_apps(tmp_path / "apps")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "home")
    yield s
    s.close()


def submit(store: Store, props: Path, *defines: str, start: bool = False) -> str:
    ctx = Ctx(store)
    return submit_loaded(
        ctx, load_job(props, list(defines), store.clock, user="alice"), start=start
    )


def hour(h: int, day: int = 1) -> str:
    return f"2024-01-{day:02d}T{h:02d}:00Z"


def dep(apps: Apps, h: int) -> str:
    return f"file://{apps.landing}/clicks/2024/01/01/{h:02d}/_SUCCESS"


@pytest.fixture
def coord(store: Store, apps: Apps) -> str:
    """An hourly coordinator with actions in every interesting state (see add_actions)."""
    cid = submit(store, apps.hourly_props)
    wf = submit(store, apps.workflow_props)
    add_actions(
        store,
        cid,
        [
            ActionSpec(hour(0), "SUCCEEDED", deps=((dep(apps, 0), True),), external_id=wf),
            ActionSpec(hour(1), "RUNNING", deps=((dep(apps, 1), True),), external_id=wf),
            ActionSpec(hour(2), "READY", deps=((dep(apps, 2), True),)),
            ActionSpec(
                hour(3),
                "WAITING",
                deps=((dep(apps, 3), False), (dep(apps, 2), True)),
                held_missing=(dep(apps, 3),),
                timeout_at="2024-03-01T00:00Z",
            ),
            ActionSpec(hour(4), "WAITING", deps=((dep(apps, 4), False), (dep(apps, 5), False))),
            ActionSpec(hour(5), "TIMEDOUT", error=("E1025", "inputs did not arrive")),
        ],
    )
    return cid


def run_engine(home: Path, start: str, until: str, landing: Path | None = None) -> None:
    """A real engine on a simulated clock, from ``start`` until ``until`` (then it stops)."""
    from bundletui.engine.service import Engine, EngineConfig
    from bundletui.model.timeutil import parse_oozie_time

    engine = Engine(
        EngineConfig(
            home=home,
            landing=landing,
            clock="simulated",
            start_time=parse_oozie_time(start),
            until=parse_oozie_time(until),
            watch=False,
        )
    )
    asyncio.run(engine.run())


# ----------------------------------------------------------------------------- JSON shapes


def test_coordinator_json_has_oozies_keys_and_types(store: Store, coord: str) -> None:
    data = queries.job_info(store.conn, coord)
    assert set(data) >= COORD_KEYS
    assert set(data) - COORD_KEYS <= COORD_EXTRA
    assert data["coordJobId"] == coord and data["coordJobName"] == "hourly-ingest"
    assert data["toString"] == f"Coordinator application id[{coord}] status[RUNNING]"
    assert data["frequency"] == "60" and data["timeUnit"] == "MINUTE"
    assert data["executionPolicy"] == "FIFO" and data["timeZone"] == "UTC"
    for key in ("concurrency", "timeOut", "mat_throttling", "total"):
        assert type(data[key]) is int, key
    assert data["timeOut"] == 86400  # -1 is stored as the maximum timeout (oozie.md §9.5)
    assert data["total"] == 6 and len(data["actions"]) == 6
    for key in COORD_DATES:
        assert_date(data[key])
    assert data["startTime"] == "Mon, 01 Jan 2024 00:00:00 GMT"
    assert data["bundleId"] is None and data["acl"] is None
    assert data["conf"].startswith("<configuration>") and "<name>user.name</name>" in data["conf"]
    assert data["counts"] == {
        "WAITING": 2,
        "READY": 1,
        "RUNNING": 1,
        "TIMEDOUT": 1,
        "SUCCEEDED": 1,
    }


def test_action_json_has_oozies_keys_and_types(store: Store, coord: str, apps: Apps) -> None:
    actions = queries.job_info(store.conn, coord)["actions"]
    for a in actions:
        assert set(a) >= ACTION_KEYS and set(a) - ACTION_KEYS <= ACTION_EXTRA
        assert re.fullmatch(r".*-C@[1-9][0-9]*", a["id"])
        assert a["id"] == f"{a['coordJobId']}@{a['actionNumber']}"
        assert type(a["actionNumber"]) is int
        assert a["toString"] == f"CoordinatorAction name[{a['id']}] status[{a['status']}]"
        assert a["externalId"] is None or a["externalId"].endswith("-W")
        for key in ACTION_DATES:
            assert_date(a[key])
    by_number = {a["actionNumber"]: a for a in actions}
    assert by_number[1]["externalStatus"] == "SUCCEEDED"
    assert by_number[4]["missingDependencies"] == dep(apps, 3)
    assert by_number[5]["missingDependencies"] == f"{dep(apps, 4)}#{dep(apps, 5)}"
    assert by_number[1]["missingDependencies"] == ""
    assert by_number[6]["errorCode"] == "E1025"
    assert by_number[1]["nominalTime"] == "Mon, 01 Jan 2024 00:00:00 GMT"

    one = queries.job_info(store.conn, f"{coord}@4")
    assert set(one) >= ACTION_KEYS and set(one) - ACTION_KEYS <= ACTION_EXTRA
    assert one["dependencies"] == [
        {"path": dep(apps, 3), "dataIn": "input", "available": False},
        {"path": dep(apps, 2), "dataIn": "input", "available": True},
    ]


def test_dates_follow_the_timezone_parameter(store: Store, coord: str) -> None:
    data = coord_queries.job_info(
        store.conn, coord, coord_queries.IdKind.COORDINATOR, tz="America/Los_Angeles", length=1
    )
    assert data["startTime"] == "Sun, 31 Dec 2023 16:00:00 PST"
    assert data["actions"][0]["nominalTime"] == "Sun, 31 Dec 2023 16:00:00 PST"


def test_bundle_json_lists_its_coordinators(store: Store, apps: Apps, tmp_path: Path) -> None:
    bid = submit(store, apps.bundle_props, "kickoff=2023-12-31T00:00Z")
    # The engine kicks the bundle off and submits its coordinators; they start in 2024, so
    # nothing is materialized before the run stops.
    run_engine(tmp_path / "home", "2023-12-31T00:00Z", "2023-12-31T01:00Z")
    data = queries.job_info(store.conn, bid)
    assert set(data) >= BUNDLE_KEYS and set(data) - BUNDLE_KEYS <= BUNDLE_EXTRA
    assert data["toString"] == f"Bundle id[{bid}] status[RUNNING]"
    assert data["timeUnit"] == "NONE" and data["timeOut"] == 0
    assert data["kickoffTime"] == "Sun, 31 Dec 2023 00:00:00 GMT"
    for key in ("kickoffTime", "startTime", "endTime", "pauseTime", "createdTime"):
        assert_date(data[key])
    coords = data["bundleCoordJobs"]
    assert [c["coordJobName"] for c in coords] == ["hourly", "daily"]
    for c in coords:
        assert set(c) >= COORD_KEYS and set(c) - COORD_KEYS <= COORD_EXTRA
        assert c["bundleId"] == bid and c["actions"] == [] and c["total"] == 0
        assert c["toString"] == f"Coordinator application id[{c['coordJobId']}] status[PREP]"
    assert [(b["coordName"], b["status"], b["pending"]) for b in data["bundleActions"]] == [
        ("hourly", "PREP", False),
        ("daily", "PREP", False),
    ]
    assert data["counts"] == {"PREP": 2}
    # a coordinator of the bundle names it
    assert queries.job_info(store.conn, coords[1]["coordJobId"])["executionPolicy"] == "LIFO"


# ----------------------------------------------------------------------------- action page


@pytest.fixture
def ten(store: Store, apps: Apps) -> str:
    cid = submit(store, apps.hourly_props)
    statuses = ["SUCCEEDED"] * 4 + ["KILLED", "FAILED", "READY", "WAITING", "WAITING", "WAITING"]
    add_actions(store, cid, [ActionSpec(hour(h), s) for h, s in enumerate(statuses)])
    return cid


def numbers(data: dict[str, Any]) -> list[int]:
    return [a["actionNumber"] for a in data["actions"]]


def info(store: Store, cid: str, **kw: Any) -> dict[str, Any]:
    return queries.job_info(store.conn, cid, **kw)


def test_paging_is_one_based_and_ordered_by_nominal_time(store: Store, ten: str) -> None:
    assert numbers(info(store, ten)) == list(range(1, 11))
    page = info(store, ten, offset=3, length=2)
    assert numbers(page) == [3, 4] and page["total"] == 10
    assert page["page"] == {"offset": 3, "len": 2, "order": "asc", "filter": ""}
    assert numbers(info(store, ten, offset=1, length=3, order="desc")) == [10, 9, 8]
    assert numbers(info(store, ten, offset=9, length=5)) == [9, 10]
    assert numbers(info(store, ten, offset=11, length=5)) == []
    zero = info(store, ten, length=0)  # Oozie v2's default: no actions, but the total
    assert zero["actions"] == [] and zero["total"] == 10
    assert numbers(info(store, ten, offset=8)) == [8, 9, 10]  # len None: all from offset
    assert numbers(info(store, ten, offset=0, length=2)) == [1, 2]  # offset < 1 is 1


def test_filter_status_or_and_nominaltime_and(store: Store, ten: str) -> None:
    both = info(store, ten, filter_text="status=WAITING;status=READY")
    assert numbers(both) == [7, 8, 9, 10] and both["total"] == 4
    assert numbers(info(store, ten, filter_text="status!=SUCCEEDED;status!=WAITING")) == [5, 6, 7]
    window = info(store, ten, filter_text=f"nominaltime>={hour(2)};nominaltime<{hour(5)}")
    assert numbers(window) == [3, 4, 5] and window["total"] == 3
    assert numbers(info(store, ten, filter_text=f"nominaltime={hour(0)};nominaltime={hour(9)}")) == [1, 10]  # fmt: skip
    mixed = info(store, ten, filter_text=f"status=WAITING;nominaltime>{hour(7)}", length=1)
    assert numbers(mixed) == [9] and mixed["total"] == 2
    assert numbers(info(store, ten, filter_text=f"nominaltime<={hour(1)};nominaltime!={hour(0)}")) == [2]  # fmt: skip
    # Oozie's own vector: keys and values are case-insensitive, blanks trimmed
    assert info(store, ten, filter_text="staTus=succeeded; status=waiTing")["total"] == 7
    # a page of a filtered list
    page = info(store, ten, filter_text="status=SUCCEEDED", offset=2, length=2, order="desc")
    assert numbers(page) == [3, 2] and page["total"] == 4


def test_a_long_filter_is_one_term_per_distinct_value_and_has_a_limit(
    store: Store, ten: str
) -> None:
    """QA: 1,200 ``status!=…`` were 1,200 terms, past SQLite's expression depth (a traceback
    in the CLI): repeats are one term, and past 500 distinct elements it is refused."""
    assert info(store, ten, filter_text=";".join(["status!=WAITING"] * 1200))["total"] == 7
    assert info(store, ten, filter_text=";".join(["status=WAITING"] * 1200))["total"] == 3
    many = ";".join(
        f"nominaltime!=2024-01-01T{h:02d}:{m:02d}Z" for h in range(9) for m in range(60)
    )
    with pytest.raises(BundletuiError) as err:
        info(store, ten, filter_text=many)
    assert err.value.code == "E0421" and "more than 500 distinct elements" in err.value.message


@pytest.mark.parametrize(
    "text",
    [
        "winniethepooh",
        "stat=some",
        "status=some",
        "status>=SUCCEEDED",
        "nominaltime=2013-13-01T00:00Z",
        "nominaltime*2013-13-01T00:00Z",
    ],
)
def test_bad_filters_are_e0421(store: Store, ten: str, text: str) -> None:
    with pytest.raises(BundletuiError) as err:
        info(store, ten, filter_text=text)
    assert err.value.code == "E0421"
    assert err.value.message.startswith(f"Invalid job filter [{text}], ")
    assert err.value.hint


def test_bad_order_is_e0303(store: Store, ten: str) -> None:
    with pytest.raises(BundletuiError) as err:
        info(store, ten, order="sideways")
    assert err.value.code == "E0303"


def test_the_page_is_one_indexed_query_and_counts_come_from_the_triggers(
    store: Store, ten: str
) -> None:
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    try:
        info(store, ten, filter_text="status=WAITING;status=READY", offset=2, length=2)
    finally:
        store.conn.set_trace_callback(None)
    pages = [s for s in seen if s.lstrip().upper().startswith("SELECT * FROM COORD_ACTIONS")]
    assert len(pages) == 1 and "LIMIT 2 OFFSET 1" in pages[0]
    assert not any("count(" in s.lower() and "coord_actions" in s.lower() for s in seen)
    plan = " ".join(str(r[-1]) for r in store.conn.execute("EXPLAIN QUERY PLAN " + pages[0]))
    assert "INDEX" in plan.upper() and "TEMP B-TREE" not in plan.upper(), plan


# ----------------------------------------------------------------------------- why it waits


def by_number(store: Store, cid: str) -> dict[int, dict[str, Any]]:
    return {a["actionNumber"]: a for a in info(store, cid)["actions"]}


def test_waiting_for_names_missing_uris_and_holding_controls(
    store: Store, coord: str, apps: Apps
) -> None:
    acts = by_number(store, coord)
    assert acts[1]["waitingFor"] is None and acts[6]["waitingFor"] is None
    w = acts[4]["waitingFor"]
    assert w["reason"] == "inputs" and w["missing"] == [dep(apps, 3)]
    assert w["missingCount"] == 1 and w["inputs"] == 2
    assert w["detail"] == f"1 of 2 inputs missing: {dep(apps, 3)}"
    assert w["timeoutAt"] == "Fri, 01 Mar 2024 00:00:00 GMT"
    # not checked by the engine yet: the missing URIs come from input_deps
    w5 = acts[5]["waitingFor"]
    assert w5["missing"] == [dep(apps, 4), dep(apps, 5)] and w5["missingCount"] == 2
    assert w5["detail"].endswith("(+1 more)")
    # READY behind a full concurrency (1 RUNNING of 1)
    r = acts[3]["waitingFor"]
    assert (r["reason"], r["running"], r["limit"]) == ("concurrency", 1, 1)
    assert r["detail"] == "concurrency 1/1 running"


def test_unresolved_latest_and_future_go_after_the_double_bang(store: Store, apps: Apps) -> None:
    cid = submit(store, apps.hourly_props)
    held = (dep(apps, 0), "${coord:latest(0)}")
    add_actions(store, cid, [ActionSpec(hour(0), deps=((dep(apps, 0), False),), held_missing=held)])
    action = by_number(store, cid)[1]
    assert action["missingDependencies"] == f"{dep(apps, 0)}!!${{coord:latest(0)}}"
    why = action["waitingFor"]
    assert why["missing"] == [dep(apps, 0)] and why["unresolved"] == ["${coord:latest(0)}"]


def test_ready_with_a_free_slot_is_next_to_launch(store: Store, apps: Apps) -> None:
    cid = submit(store, apps.hourly_props, "concurrency=3")
    add_actions(store, cid, [ActionSpec(hour(0), "RUNNING"), ActionSpec(hour(1), "READY")])
    r = by_number(store, cid)[2]["waitingFor"]
    assert (r["reason"], r["running"], r["limit"]) == ("launch", 1, 3)


def test_a_suspended_coordinator_holds_ready_actions_and_materialization(
    store: Store, coord: str
) -> None:
    dispatch.suspend(Ctx(store), coord)
    data = info(store, coord)
    r = {a["actionNumber"]: a for a in data["actions"]}[3]["waitingFor"]
    assert (r["reason"], r["status"]) == ("coordinator", "SUSPENDED")
    assert data["materialization"]["heldBy"] == "coordinator SUSPENDED"


def test_materialization_held_by_throttle(store: Store, apps: Apps) -> None:
    cid = submit(store, apps.hourly_props, "throttle=2")
    assert info(store, cid)["materialization"] == {
        "next": "Mon, 01 Jan 2024 00:00:00 GMT",
        "done": False,
        "heldBy": None,
    }
    add_actions(store, cid, [ActionSpec(hour(0)), ActionSpec(hour(1))])
    with store.write() as tx:  # the engine's bookkeeping after materializing two actions
        from bundletui.store import jobs
        from bundletui.store.rows import CoordRow

        jobs.update(
            tx, CoordRow, cid, next_materialized_time=to_ms(datetime(2024, 1, 1, 2, tzinfo=UTC))
        )
    mat = info(store, cid)["materialization"]
    assert mat["heldBy"] == "throttle 2/2 WAITING"
    assert mat["next"] == "Mon, 01 Jan 2024 02:00:00 GMT"


@pytest.mark.skipif(
    importlib.util.find_spec("bundletui.engine.coord_inputs") is None,
    reason="the engine's input checker (engine/coord_inputs.py) is not written yet",
)
def test_engine_materialized_actions_say_what_they_wait_for(
    store: Store, apps: Apps, tmp_path: Path
) -> None:
    cid = submit(store, apps.hourly_props)
    apps.land("2024/01/01/00")
    run_engine(tmp_path / "home", "2024-01-01T00:00Z", "2024-01-01T02:30Z", landing=apps.landing)
    acts = by_number(store, cid)
    assert set(acts) == {1, 2, 3}
    assert acts[1]["status"] in ("SUCCEEDED", "RUNNING", "SUBMITTED")
    for n, h in ((2, 1), (3, 2)):
        assert acts[n]["status"] == "WAITING"
        why = acts[n]["waitingFor"]
        assert why["reason"] == "inputs"
        assert [m.rstrip("/") for m in why["missing"]] == [dep(apps, h)]
        assert acts[n]["missingDependencies"].rstrip("/") == dep(apps, h)


# ----------------------------------------------------------------------------- listings


def test_coordinator_listing_envelope_and_filters(store: Store, apps: Apps) -> None:
    hourly = submit(store, apps.hourly_props)
    daily = submit(store, apps.daily_props)
    conn = store.conn
    data = coord_queries.list_jobs(conn, "coordinator", "", 1, 50)
    assert set(data) == {"coordinatorjobs", "total", "offset", "len"}
    assert data["total"] == 2 and data["offset"] == 1 and data["len"] == 50
    assert [c["coordJobId"] for c in data["coordinatorjobs"]] == [daily, hourly]  # newest first
    for c in data["coordinatorjobs"]:
        assert set(c) >= COORD_KEYS and c["actions"] == [] and c["total"] == 0

    def ids(text: str, offset: int = 1, length: int = 50) -> list[str]:
        listed = coord_queries.list_jobs(conn, "coordinator", text, offset, length)
        return [c["coordJobId"] for c in listed["coordinatorjobs"]]

    assert ids("name=hourly-ingest") == [hourly]
    assert ids("name=hourly-ingest;name=daily-rollup") == [daily, hourly]
    assert ids("status=PREP;user=alice") == [daily, hourly]
    assert ids("status=RUNNING") == []
    assert ids("frequency=60") == [hourly]  # minutes by default
    assert ids("frequency=1;unit=hours") == [hourly]  # hours are stored as minutes
    assert ids("frequency=1;unit=days") == [daily]
    assert ids("text=rollup") == [daily] and ids(f"text={hourly}") == [hourly]
    assert ids(f"id={daily}") == [daily]
    assert ids("", offset=2, length=1) == [hourly]
    assert ids("startcreatedtime=2999-01-01T00:00Z") == []
    assert ids("endcreatedtime=2999-01-01T00:00Z;sortby=lastModifiedTime") == [daily, hourly]
    now = to_ms(store.clock.now())
    assert len(coord_queries.list_jobs(conn, "coordinator", "startcreatedtime=-1d", now_ms=now)["coordinatorjobs"]) == 2  # fmt: skip
    assert coord_queries.list_jobs(conn, "coordinator", "endcreatedtime=-1d", now_ms=now)["total"] == 0  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ["unit=hours", "status=BOGUS", "frequency=often", "frequency=1;unit=weeks", "foo=moo",
     "kk=vv=zz", "winniethepooh", "sortby=name", "startcreatedtime=yesterday"],
)  # fmt: skip
def test_bad_listing_filters_are_e0420(store: Store, text: str) -> None:
    with pytest.raises(BundletuiError) as err:
        coord_queries.list_jobs(store.conn, "coordinator", text, 1, 50)
    assert err.value.code == "E0420", err.value


def test_bundle_listing(store: Store, apps: Apps) -> None:
    bid = submit(store, apps.bundle_props)
    data = coord_queries.list_jobs(store.conn, "bundle", "status=PREP", 1, 10)
    assert set(data) == {"bundlejobs", "total", "offset", "len"} and data["total"] == 1
    item = data["bundlejobs"][0]
    assert set(item) >= BUNDLE_KEYS and item["bundleJobId"] == bid
    assert item["bundleCoordJobs"] == []
    with pytest.raises(BundletuiError) as err:
        coord_queries.list_jobs(store.conn, "bundle", "frequency=60", 1, 10)
    assert err.value.code == "E0420"
    with pytest.raises(BundletuiError) as err:
        coord_queries.list_jobs(store.conn, "workflow", "", 1, 10)
    assert err.value.code == "E0303"


# ----------------------------------------------------------------------------- lookups


def test_definitions_of_every_kind(store: Store, coord: str, apps: Apps) -> None:
    conn = store.conn
    hourly_xml = (apps.root / "coords" / "hourly.xml").read_text()
    assert coord_queries.definition_of(conn, coord) == hourly_xml
    assert coord_queries.definition_of(conn, f"{coord}@2") == hourly_xml
    bid = submit(store, apps.bundle_props)
    assert coord_queries.definition_of(conn, bid) == (apps.root / "bundle.xml").read_text()
    wf = by_number(store, coord)[1]["externalId"]
    assert "<workflow-app" in coord_queries.definition_of(conn, wf)
    for bad, code in ((coord[:-1] + "X-C", "E0604"), (f"{coord}@99", "E0605"), ("nonsense", "E0604")):  # fmt: skip
        with pytest.raises(BundletuiError) as err:
            coord_queries.definition_of(conn, bad)
        assert err.value.code == code


def test_workflow_of_an_action(store: Store, coord: str) -> None:
    conn = store.conn
    assert coord_queries.workflow_of(conn, f"{coord}@1").endswith("-W")
    for bad, code in ((f"{coord}@4", "E0605"), (f"{coord}@99", "E0605"), (coord, "E0302")):
        with pytest.raises(BundletuiError) as err:
            coord_queries.workflow_of(conn, bad)
        assert err.value.code == code and err.value.hint


def test_unknown_ids(store: Store, coord: str) -> None:
    for bad, code in (
        (coord.replace("-C", "-B"), "E0604"),
        (coord[:-2] + "9-C", "E0604"),
        (f"{coord}@77", "E0605"),
    ):
        with pytest.raises(BundletuiError) as err:
            queries.job_info(store.conn, bad)
        assert err.value.code == code
        assert err.value.hint
    with pytest.raises(BundletuiError) as err:
        coord_queries.job_info(store.conn, "what", None)
    assert err.value.code == "E0604"


def test_listing_reads_a_consistent_connection(store: Store, coord: str) -> None:
    """The queries only read: the connection is left outside any transaction."""
    info(store, coord)
    coord_queries.list_jobs(store.conn, "coordinator", "", 1, 5)
    assert isinstance(store.conn, sqlite3.Connection) and not store.conn.in_transaction
