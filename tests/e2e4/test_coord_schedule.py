"""Issue 4 §2: materialization (oozie.md §2.5) — nominal times, end exclusive, throttle, and the
catch-up after downtime per execution order — through the CLI and a simulated engine.

Vectors: a daily coordinator in America/Los_Angeles keeps local midnight across the 2026-03-08
spring-forward (``coord:days``) while ``coord:hours(24)`` keeps elapsed time; endOfDays /
endOfMonths move the start to the end of its period; the cron ``0 9 * * 2-6`` (Quartz
day-of-week: MON-FRI) skips the weekend; Oozie's own 20-minute example gives 00:00, 00:20,
00:40 before an exclusive 01:00 end.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.e2e4.conftest import (
    BC,
    Bt4,
    bundle_xml,
    coordinator_xml,
    data_in,
    hourly_ds,
    partition,
    trace_lines,
)


def bundle_of(bt: Bt4, coords: dict[str, str], name: str = "many") -> Path:
    """A bundle of coordinators ``name -> coordinator XML`` (one submit, one engine run)."""
    for cname, xml in coords.items():
        bt.apps.write(f"{cname}.xml", xml)
    bt.apps.write("bundle.xml", bundle_xml(name, [BC(n, f"{n}.xml") for n in coords]))
    return bt.apps.props("job.properties", {"oozie.bundle.application.path": "bundle.xml"})


def test_nominal_times_frequency_el_end_of_periods_cron_and_end_exclusive(bt: Bt4) -> None:
    coords = {
        "la-days": coordinator_xml(
            "la-days",
            frequency="${coord:days(1)}",
            start="2026-03-06T08:00Z",
            end="2026-03-10T08:00Z",
            timezone="America/Los_Angeles",
        ),
        "la-hours24": coordinator_xml(
            "la-hours24",
            frequency="${coord:hours(24)}",
            start="2026-03-06T08:00Z",
            end="2026-03-10T08:00Z",
            timezone="America/Los_Angeles",
        ),
        "eod": coordinator_xml(
            "eod",
            frequency="${coord:endOfDays(1)}",
            start="2026-03-06T10:00Z",
            end="2026-03-09T00:00Z",
        ),
        "eom": coordinator_xml(
            "eom",
            frequency="${coord:endOfMonths(1)}",
            start="2026-01-15T00:00Z",
            end="2026-04-01T00:00Z",
        ),
        "cron": coordinator_xml(
            "cron", frequency="0 9 * * 2-6", start="2026-03-06T00:00Z", end="2026-03-11T00:00Z"
        ),
        "twenty": coordinator_xml(
            "twenty", frequency="20", start="2026-03-06T00:00Z", end="2026-03-06T01:00Z"
        ),
    }
    bundle_id = bt.submit_job(bundle_of(bt, coords), start=True)
    # the engine comes up after every nominal time: one catch-up materializes them all
    bt.sim("2026-04-01T00:00Z", "2026-04-01T00:00Z")
    ids = bt.coords_of(bundle_id)
    got = {name: bt.nominals(ids[name]) for name in coords}
    assert got == {
        # local midnight: 08:00Z in PST, 07:00Z in PDT; 03-10T07:00Z is before the end
        "la-days": [
            "2026-03-06T08:00Z",
            "2026-03-07T08:00Z",
            "2026-03-08T08:00Z",
            "2026-03-09T07:00Z",
            "2026-03-10T07:00Z",
        ],
        # 24 elapsed hours: local time shifts to 01:00 PDT
        "la-hours24": [
            "2026-03-06T08:00Z",
            "2026-03-07T08:00Z",
            "2026-03-08T08:00Z",
            "2026-03-09T08:00Z",
        ],
        "eod": ["2026-03-07T00:00Z", "2026-03-08T00:00Z"],  # start moved to next midnight
        "eom": ["2026-02-01T00:00Z", "2026-03-01T00:00Z"],  # 04-01 is the (exclusive) end
        "cron": ["2026-03-06T09:00Z", "2026-03-09T09:00Z", "2026-03-10T09:00Z"],  # Fri Mon Tue
        "twenty": ["2026-03-06T00:00Z", "2026-03-06T00:20Z", "2026-03-06T00:40Z"],
    }
    for name in coords:
        info = bt.peek(ids[name])
        assert info["status"] == "SUCCEEDED", name
        assert info["doneMaterialization"] is True
        assert info["lastActionNumber"] == len(got[name])
    # done: both name the first nominal time not materialized, at or after the end (§2.5)
    twenty = bt.peek(ids["twenty"])
    assert twenty["nextMaterializedTime"] == twenty["lastAction"] == "Fri, 06 Mar 2026 01:00:00 GMT"
    # numbers are contiguous and unique per coordinator (the store's unique keys)
    for name, coord_id in ids.items():
        assert list(bt.actions(coord_id)) == list(range(1, len(got[name]) + 1))
    # "materialized once" is the store's rule, not only the engine's: a second action for a
    # (coordinator, nominal time) is refused by SQLite itself
    conn = sqlite3.connect(bt.home / "bundletui.db")
    try:
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            conn.execute(
                "INSERT INTO coord_actions (id, coord_id, action_number, nominal_time, "
                "created_time, status, last_modified) SELECT id || 'x', coord_id, 99, "
                "nominal_time, created_time, 'WAITING', last_modified FROM coord_actions "
                "WHERE coord_id = ? AND action_number = 1",
                (ids["twenty"],),
            )
    finally:
        conn.close()


def test_actions_materialize_when_their_time_comes_not_before(bt: Bt4) -> None:
    xml = coordinator_xml("h", start="2026-01-01T00:00Z", end="2026-01-02T00:00Z")
    bt.apps.write("h.xml", xml)
    config = bt.apps.props("job.properties", {"oozie.coord.application.path": "h.xml"})
    coord_id = bt.submit_job(config)
    assert coord_id.endswith("-C")
    assert bt.status(coord_id) == "PREP"
    bt.sim("2025-12-31T23:00Z", "2025-12-31T23:59Z")
    assert bt.status(coord_id) == "PREP" and bt.nominals(coord_id) == []
    bt.sim("2025-12-31T23:00Z", "2026-01-01T02:59Z")
    assert bt.status(coord_id) == "RUNNING"
    assert bt.nominals(coord_id) == ["2026-01-01T00:00Z", "2026-01-01T01:00Z", "2026-01-01T02:00Z"]
    info = bt.peek(coord_id)
    assert info["nextMaterializedTime"] == "Thu, 01 Jan 2026 03:00:00 GMT"


def test_catch_up_after_downtime_follows_the_execution_order(bt: Bt4) -> None:
    """The engine starts at 05:30 for coordinators that started at 00:00: FIFO runs the six
    missed hours oldest first, LIFO newest first, LAST_ONLY only the latest (the older ones are
    SKIPPED), NONE none of them (more than a minute late) — then 06:00 runs in all four."""
    coords = {
        order.lower().replace("_", "-"): coordinator_xml(
            order,
            start="2026-01-01T00:00Z",
            end="2026-01-01T07:00Z",
            controls={"concurrency": "1", "execution": order},
        )
        for order in ("FIFO", "LIFO", "LAST_ONLY", "NONE")
    }
    bundle_id = bt.submit_job(bundle_of(bt, coords), start=True)
    bt.sim("2026-01-01T05:30Z", "2026-01-01T08:00Z")
    ids = bt.coords_of(bundle_id)
    trace = trace_lines(bt.trace)

    def launched(name: str) -> list[int]:
        return [int(a.rsplit("@", 1)[1]) for a in trace if a.startswith(ids[name] + "@")]

    assert launched("fifo") == [1, 2, 3, 4, 5, 6, 7]
    assert launched("lifo") == [6, 5, 4, 3, 2, 1, 7]
    assert launched("last-only") == [6, 7]
    assert launched("none") == [7]
    assert bt.actions(ids["last-only"]) == {
        **dict.fromkeys(range(1, 6), "SKIPPED"),
        6: "SUCCEEDED",
        7: "SUCCEEDED",
    }
    assert bt.actions(ids["none"]) == {**dict.fromkeys(range(1, 7), "SKIPPED"), 7: "SUCCEEDED"}
    for name in ids:
        assert len(bt.nominals(ids[name])) == 7  # every nominal time materialized, once
        assert bt.status(ids[name]) == "SUCCEEDED", name  # SKIPPED counts as done


def test_throttle_limits_waiting_actions_and_info_says_so(bt: Bt4) -> None:
    xml = coordinator_xml(
        "t",
        start="2026-01-01T00:00Z",
        end="2026-01-01T12:00Z",
        controls={"timeout": "-1", "throttle": "3"},
        datasets=[hourly_ds("raw")],
        inputs=[data_in("raw", "raw", "${coord:current(0)}")],
    )
    bt.apps.write("t.xml", xml)
    config = bt.apps.props("job.properties", {"oozie.coord.application.path": "t.xml"})
    coord_id = bt.submit_job(config)
    bt.sim("2026-01-01T10:30Z", "2026-01-01T10:30Z")
    assert bt.actions(coord_id) == {1: "WAITING", 2: "WAITING", 3: "WAITING"}
    info = bt.info_json(coord_id)
    assert info["materialization"]["heldBy"] == "throttle 3/3 WAITING"
    first = info["actions"][0]
    assert first["waitingFor"]["reason"] == "inputs"
    assert first["waitingFor"]["missing"] == [
        str(bt.landing / partition("raw", "2026-01-01T00:00Z")) + "/_SUCCESS"
    ]

    bt.land(partition("raw", "2026-01-01T01:00Z"))
    bt.sim("2026-01-01T10:30Z", "2026-01-01T10:30Z")
    # one WAITING slot freed: exactly one more nominal time materialized
    assert bt.actions(coord_id) == {1: "WAITING", 2: "SUCCEEDED", 3: "WAITING", 4: "WAITING"}


@pytest.mark.parametrize("concurrency", ["3", "5", "-1"])
def test_a_catch_up_longer_than_the_throttle_runs_every_missed_hour(
    bt: Bt4, concurrency: str
) -> None:
    """Actions READY at once are not WAITING, so they do not hold the throttle: a coordinator
    eleven hours behind with throttle 3 materializes them all in batches of three, whatever
    its concurrency (with a concurrency at or above the throttle nothing else woke it)."""
    xml = coordinator_xml(
        "c",
        start="2026-01-01T00:00Z",
        end="2026-01-01T12:00Z",
        controls={"throttle": "3", "concurrency": concurrency},
    )
    bt.apps.write("c.xml", xml)
    config = bt.apps.props("job.properties", {"oozie.coord.application.path": "c.xml"})
    coord_id = bt.submit_job(config)
    bt.sim("2026-01-01T10:30Z", "2026-01-01T10:30Z")
    assert bt.actions(coord_id) == dict.fromkeys(range(1, 12), "SUCCEEDED")
    bt.cli("suspend", coord_id)
    bt.sim("2026-01-01T10:30Z", "2026-01-01T12:30Z")
    bt.cli("resume", coord_id)
    bt.sim("2026-01-01T12:30Z", "2026-01-01T12:30Z")
    assert bt.actions(coord_id) == dict.fromkeys(range(1, 13), "SUCCEEDED")
    assert bt.status(coord_id) == "SUCCEEDED"


def test_a_catch_up_whose_inputs_are_all_there_runs_every_missed_hour(bt: Bt4) -> None:
    """QA: an action whose inputs had landed already goes WAITING and READY in the same pass,
    so it does not hold the throttle either; counted as WAITING, the catch-up stopped after
    the first batch (concurrency at or above the throttle: nothing else woke it)."""
    xml = coordinator_xml(
        "c",
        start="2026-01-01T00:00Z",
        end="2026-01-01T12:00Z",
        controls={"throttle": "3", "concurrency": "-1", "timeout": "-1"},
        datasets=[hourly_ds("raw")],
        inputs=[data_in("raw", "raw", "${coord:current(0)}")],
    )
    bt.apps.write("c.xml", xml)
    bt.land(*(partition("raw", f"2026-01-01T{h:02d}:00Z") for h in range(12)))
    config = bt.apps.props("job.properties", {"oozie.coord.application.path": "c.xml"})
    coord_id = bt.submit_job(config)
    bt.sim("2026-01-01T10:30Z", "2026-01-01T10:30Z")
    assert bt.actions(coord_id) == dict.fromkeys(range(1, 12), "SUCCEEDED")


def last_only_and_none(bt: Bt4, end: str, controls: dict[str, str], **parts: Any) -> str:
    """A started bundle of two hourly coordinators from 2026-01-01T00:00Z, ``last`` under
    LAST_ONLY and ``none`` under NONE; its id."""
    coords = {
        name: coordinator_xml(
            name,
            start="2026-01-01T00:00Z",
            end=end,
            controls={"execution": order, **controls},
            **parts,
        )
        for name, order in (("last", "LAST_ONLY"), ("none", "NONE"))
    }
    return bt.submit_job(bundle_of(bt, coords), start=True)


def waiting_on_raw(bt: Bt4, end: str) -> str:
    """:func:`last_only_and_none` whose actions wait for their hour of ``raw``, for ever."""
    return last_only_and_none(
        bt,
        end,
        {"timeout": "-1"},
        datasets=[hourly_ds("raw")],
        inputs=[data_in("raw", "raw", "${coord:current(0)}")],
    )


def test_waiting_actions_are_skipped_too_under_last_only_and_none(bt: Bt4) -> None:
    """Not only READY ones: a WAITING LAST_ONLY action is SKIPPED once the next nominal time
    has passed, a WAITING NONE action one minute after its own."""
    bundle_id = waiting_on_raw(bt, "2026-01-01T03:00Z")
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:01Z")
    ids = bt.coords_of(bundle_id)
    assert bt.actions(ids["last"]) == {1: "WAITING"}
    assert bt.actions(ids["none"]) == {1: "WAITING"}
    # info says when (QA (ab): it named only the timeout, a day away)
    for name, at in (("last", "01:00:00"), ("none", "00:01:00")):
        why = bt.info_json(f"{ids[name]}@1")["waitingFor"]
        assert why["skipAt"] == f"Thu, 01 Jan 2026 {at} GMT", why
        assert why["detail"].endswith(f"SKIPPED after Thu, 01 Jan 2026 {at} GMT unless it starts")
    text = bt.cli("info", f"{ids['last']}@1").stdout
    assert "Skipped after : 2026-01-01 01:00 GMT" in text, text
    # QA (af): the sentence wrote its time the JSON's way, the rows below it another
    said = " ".join(text.split())
    assert "LAST_ONLY: SKIPPED after 2026-01-01 01:00 GMT unless it starts" in said, text
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:30Z")
    assert bt.actions(ids["last"]) == {1: "WAITING"}  # 01:00 has not come yet
    assert bt.actions(ids["none"]) == {1: "SKIPPED"}  # 00:01 has passed
    bt.land(partition("raw", "2026-01-01T01:00Z"))
    bt.sim("2026-01-01T00:00Z", "2026-01-01T02:30Z")
    assert bt.actions(ids["last"]) == {1: "SKIPPED", 2: "SUCCEEDED", 3: "WAITING"}
    assert bt.actions(ids["none"]) == {1: "SKIPPED", 2: "SUCCEEDED", 3: "SKIPPED"}
    assert bt.status(ids["none"]) == "SUCCEEDED"
    # QA (coord-1): the last action, whose next time is the end (03:00), is skipped once that
    # has passed, as Oozie's computeNextNominalTime has it ("no next" only *after* the end);
    # it waited out its timeout (here forever)
    why = bt.info_json(f"{ids['last']}@3")["waitingFor"]
    assert why["skipAt"] == "Thu, 01 Jan 2026 03:00:00 GMT", why
    bt.sim("2026-01-01T00:00Z", "2026-01-01T03:30Z")
    assert bt.actions(ids["last"]) == {1: "SKIPPED", 2: "SUCCEEDED", 3: "SKIPPED"}
    assert bt.status(ids["last"]) == "SUCCEEDED"


def test_a_last_only_action_whose_next_time_is_past_the_end_is_never_skipped(bt: Bt4) -> None:
    """The end off the grid (02:30): the last action's next time (03:00) is after it, so
    there is no next, and the action waits for its data (or its timeout)."""
    bundle_id = waiting_on_raw(bt, "2026-01-01T02:30Z")
    bt.sim("2026-01-01T00:00Z", "2026-01-01T05:00Z")
    ids = bt.coords_of(bundle_id)
    assert bt.actions(ids["last"]) == {1: "SKIPPED", 2: "SKIPPED", 3: "WAITING"}
    assert "skipAt" not in bt.info_json(f"{ids['last']}@3")["waitingFor"]


def test_a_coordinator_is_running_from_its_start_before_its_first_nominal_time(bt: Bt4) -> None:
    """QA (coord-2): a daily cron at 10:00 from midnight stayed PREP until 10:00, so a suspend
    at 05:00 made it PREPSUSPENDED; Oozie's materialization sets RUNNING once the start is
    reached, action or not."""
    xml = coordinator_xml(
        "ten", frequency="0 10 * * *", start="2026-02-01T00:00Z", end="2026-02-05T00:00Z"
    )
    bt.apps.write("ten.xml", xml)
    config = bt.apps.props("job.properties", {"oozie.coord.application.path": "ten.xml"})
    coord_id = bt.submit_job(config)
    bt.sim("2026-01-31T23:00Z", "2026-01-31T23:30Z")
    assert bt.status(coord_id) == "PREP"  # its start has not come
    bt.sim("2026-01-31T23:00Z", "2026-02-01T05:00Z")
    assert bt.status(coord_id) == "RUNNING" and bt.nominals(coord_id) == []
    bt.cli("suspend", coord_id)
    assert bt.status(coord_id) == "SUSPENDED"
    bt.cli("resume", coord_id)
    bt.sim("2026-01-31T23:00Z", "2026-02-01T10:30Z")
    assert bt.nominals(coord_id) == ["2026-02-01T10:00Z"]


def test_ready_actions_held_by_concurrency_are_skipped_too(bt: Bt4) -> None:
    """QA (ad): a READY action that no slot could take was never SKIPPED under LAST_ONLY or
    NONE (the launch pass returned before its skips), while info said it would be."""
    bundle_id = last_only_and_none(bt, "2026-01-01T04:00Z", {"concurrency": "0"})
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:30Z")
    ids = bt.coords_of(bundle_id)
    assert bt.actions(ids["last"]) == {1: "READY"}
    why = bt.info_json(f"{ids['last']}@1")["waitingFor"]
    assert why["skipAt"] == "Thu, 01 Jan 2026 01:00:00 GMT", why
    bt.sim("2026-01-01T00:00Z", "2026-01-01T02:30Z")
    assert bt.actions(ids["last"]) == {1: "SKIPPED", 2: "SKIPPED", 3: "READY"}
    assert bt.actions(ids["none"]) == {1: "SKIPPED", 2: "SKIPPED", 3: "SKIPPED"}


def test_a_suspended_coordinator_materializes_nothing_then_catches_up_on_resume(bt: Bt4) -> None:
    bt.apps.write("h.xml", coordinator_xml("h", start="2026-01-01T00:00Z", end="2026-01-01T05:00Z"))
    config = bt.apps.props("job.properties", {"oozie.coord.application.path": "h.xml"})
    coord_id = bt.submit_job(config)
    bt.sim("2026-01-01T00:00Z", "2026-01-01T01:30Z")
    assert bt.nominals(coord_id) == ["2026-01-01T00:00Z", "2026-01-01T01:00Z"]
    bt.cli("suspend", coord_id)
    bt.sim("2026-01-01T00:00Z", "2026-01-01T04:30Z")
    assert bt.status(coord_id) == "SUSPENDED"
    assert len(bt.nominals(coord_id)) == 2  # nothing while suspended
    bt.cli("resume", coord_id)
    bt.sim("2026-01-01T00:00Z", "2026-01-01T04:30Z")
    # delayed, not lost
    assert bt.actions(coord_id) == dict.fromkeys(range(1, 6), "SUCCEEDED")
    assert bt.status(coord_id) == "SUCCEEDED"


PER_DAY_WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="per-day">
  <parameters>
    <property><name>out</name><value>${dir}/${day}</value></property>
  </parameters>
  <start to="mark"/>
  <action name="mark"><fs><touchz path="${out}"/></fs><ok to="end"/><error to="fail"/></action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>
"""


def _started_at_its_start(bt: Bt4, file: str, end: str) -> str:
    """The coordinator in ``file`` submitted and started with the simulated clock at its
    start, 2026-01-01T00:00Z (so nothing is a catch-up); its id."""
    config = bt.apps.props(
        "job.properties",
        {"oozie.coord.application.path": file, "start": "2026-01-01T00:00Z", "end": end},
    )
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:00Z")
    return bt.submit_job(config, start=True)


def test_a_workflow_parameter_default_naming_an_action_property_follows_each_action(
    bt: Bt4,
) -> None:
    """The default ``${dir}/${day}`` is expanded with each action's ``day``: the definition
    cache kept the first action's expanded value, so every action wrote the first day."""
    bt.apps.write("wf/workflow.xml", PER_DAY_WORKFLOW)
    day = "${coord:formatTime(coord:nominalTime(), 'yyyyMMdd')}"
    bt.apps.write(
        "daily.xml",
        coordinator_xml(
            "daily",
            frequency="${coord:days(1)}",
            workflow=bt.apps.root / "wf",
            conf={"day": day, "dir": str(bt.tmp / "out")},
        ),
    )
    coord_id = _started_at_its_start(bt, "daily.xml", "2026-01-04T00:00Z")
    bt.sim("2026-01-01T00:00Z", "2026-01-03T12:00Z")
    assert set(bt.actions(coord_id).values()) == {"SUCCEEDED"}
    assert sorted(p.name for p in (bt.tmp / "out").iterdir()) == [
        "20260101",
        "20260102",
        "20260103",
    ]


def test_an_action_follows_its_workflow_held_before_a_node_by_suspend_on_nodes(bt: Bt4) -> None:
    """A coordinator's DAG workflow with ``oozie.suspend.on.nodes=*`` was suspended in the
    command that made it, before its action had recorded it: the action stayed RUNNING (and
    held its concurrency slot) under a SUSPENDED workflow. The action is SUSPENDED with it,
    and a resume of the workflow runs it to the end."""
    bt.apps.write("hourly.xml", coordinator_xml("hourly", conf={"oozie.suspend.on.nodes": "*"}))
    coord_id = _started_at_its_start(bt, "hourly.xml", "2026-01-01T01:00Z")
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:30Z")
    assert bt.actions(coord_id) == {1: "SUSPENDED"}
    wf = bt.info_json(f"{coord_id}@1")["externalId"]
    assert bt.status(wf) == "SUSPENDED"
    bt.cli("resume", wf)
    assert bt.actions(coord_id) == {1: "RUNNING"}
    bt.sim("2026-01-01T00:00Z", "2026-01-01T01:00Z")
    assert bt.actions(coord_id) == {1: "SUCCEEDED"}
