"""Materialization (oozie.md §2.4, §2.5, §2.7, §3): plan_action, check_inputs, run_conf.

Coordinators are real XML files loaded through the spec loader; done flags, latest() and
future() are real directories under tmp_path.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bundletui.errors import BundletuiError
from bundletui.model import instances
from bundletui.model.apps import CoordinatorApp, Dataset
from bundletui.model.clock import SimulatedClock
from bundletui.model.frequency import Frequency, TimeUnit
from bundletui.model.timeutil import format_oozie_time, parse_oozie_time
from bundletui.spec.action_plan import ActionPlan, InputCheck, Pending
from bundletui.spec.datasets import DatasetPlanner, local_exists
from bundletui.spec.load import Loaded, load_app
from bundletui.spec.materialize import (
    check_inputs,
    iter_actions,
    plan_action,
    run_conf,
    workflow_conf,
)

T = parse_oozie_time
F = format_oozie_time
CLOCK = SimulatedClock(T("2026-01-01T00:00Z"))
CID = "0000001-260101000000000-bundletui-me-C"


def coordinator(
    tmp_path: Path,
    *,
    datasets: str,
    inputs: str = "",
    outputs: str = "",
    logic: str = "",
    conf: str = "",
    frequency: str = "${coord:hours(1)}",
    start: str = "2009-01-01T00:00Z",
    end: str = "2009-01-02T00:00Z",
    timezone: str = "UTC",
    name: str = "c",
    defines: dict[str, str] | None = None,
) -> Loaded:
    ins = f"<input-events>{inputs}</input-events>" if inputs else ""
    outs = f"<output-events>{outputs}</output-events>" if outputs else ""
    lg = f"<input-logic>{logic}</input-logic>" if logic else ""
    cf = f"<configuration>{conf}</configuration>" if conf else ""
    xml = f"""<coordinator-app name="{name}" frequency="{frequency}" start="{start}" end="{end}"
        timezone="{timezone}" xmlns="uri:oozie:coordinator:0.5">
      <datasets>{datasets}</datasets>{ins}{lg}{outs}
      <action><workflow><app-path>${{root}}/wf</app-path>{cf}</workflow></action>
    </coordinator-app>"""
    path = tmp_path / f"{name}.xml"
    path.write_text(xml)
    conf_values = {"root": str(tmp_path), "user.name": "me", **(defines or {})}
    return load_app(path, conf_values, CLOCK)


def ds(
    name: str,
    *,
    frequency: str = "${coord:hours(1)}",
    initial: str = "2008-01-01T00:00Z",
    tz: str = "UTC",
    uri: str = "${root}/" + "${YEAR}${MONTH}${DAY}${HOUR}",
    flag: str | None = None,
) -> str:
    done = "" if flag is None else f"<done-flag>{flag}</done-flag>"
    return (
        f'<dataset name="{name}" frequency="{frequency}" initial-instance="{initial}" '
        f'timezone="{tz}"><uri-template>{uri}</uri-template>{done}</dataset>'
    )


def din(name: str, dataset: str, *instances: str, start: str = "", end: str = "") -> str:
    body = "".join(f"<instance>{i}</instance>" for i in instances)
    if start:
        body += f"<start-instance>{start}</start-instance><end-instance>{end}</end-instance>"
    return f'<data-in name="{name}" dataset="{dataset}">{body}</data-in>'


def plan(loaded: Loaded, nominal: str, actual: str | None = None, number: int = 1) -> ActionPlan:
    return plan_action(
        loaded.app,
        loaded.conf,
        coord_id=CID,
        number=number,
        nominal=T(nominal),
        actual=T(actual or nominal),
        exists=local_exists,
    )


def check(loaded: Loaded, p: ActionPlan, now: str | None = None) -> InputCheck:
    return check_inputs(loaded.app, p, now=T(now) if now else p.nominal, exists=local_exists)


def touch(root: Path, *names: str, flag: str = "_SUCCESS") -> None:
    for n in names:
        d = root / n
        d.mkdir(parents=True, exist_ok=True)
        if flag:
            (d / flag).touch()


def rel(root: Path, paths: Any) -> list[str]:
    return [str(p).replace(str(root) + "/", "") for p in paths]


# --------------------------------------------------------------------------- creation (§3.2)


def test_range_is_newest_first_with_done_paths(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        inputs=din("in", "h", start="${coord:current(-3)}", end="${coord:current(0)}"),
    )
    p = plan(c, "2009-01-01T05:00Z")
    (d,) = p.data_ins
    assert rel(tmp_path, d.uris) == ["2009010105", "2009010104", "2009010103", "2009010102"]
    assert rel(tmp_path, d.done_paths) == [u + "/_SUCCESS" for u in rel(tmp_path, d.uris)]
    assert p.action_id == f"{CID}@1"
    assert p.dependencies == d.done_paths
    assert p.unresolved == ()


@pytest.mark.parametrize(("flag", "suffix"), [("", ""), ("READY", "/READY"), (None, "/_SUCCESS")])
def test_done_flag(tmp_path: Path, flag: str | None, suffix: str) -> None:
    c = coordinator(
        tmp_path, datasets=ds("h", flag=flag), inputs=din("in", "h", "${coord:current(0)}")
    )
    (d,) = plan(c, "2009-01-01T05:00Z").data_ins
    assert d.done_paths == (d.uris[0] + suffix,)


def test_instances_in_document_order_and_before_the_initial_instance(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h", initial="2009-01-01T02:00Z"),
        inputs=din(
            "in",
            "h",
            "${coord:current(0)}",
            "${coord:current(-2)}",
            "${coord:current(-5)}",  # before the initial instance: dropped
            "${coord:current(-1)}",
        ),
    )
    (d,) = plan(c, "2009-01-01T05:00Z").data_ins
    assert rel(tmp_path, d.uris) == ["2009010105", "2009010103", "2009010104"]
    # a range partly before the initial instance keeps the rest
    c2 = coordinator(
        tmp_path,
        name="c2",
        datasets=ds("h", initial="2009-01-01T02:00Z"),
        inputs=din("in", "h", start="${coord:current(-5)}", end="${coord:current(0)}"),
    )
    (d,) = plan(c2, "2009-01-01T05:00Z").data_ins
    assert rel(tmp_path, d.uris) == ["2009010105", "2009010104", "2009010103", "2009010102"]
    # nominal time before the initial instance: nothing at all
    (d,) = plan(c2, "2009-01-01T01:00Z").data_ins
    assert d.uris == ()


def test_uri_fields_are_utc_even_for_a_local_dataset(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds(
            "d", frequency="${coord:days(1)}", initial="2009-01-01T08:00Z", tz="America/Los_Angeles"
        ),
        inputs=din("in", "d", "${coord:current(0)}"),
        timezone="America/Los_Angeles",
    )
    (d,) = plan(c, "2009-01-10T09:00Z").data_ins
    assert rel(tmp_path, d.uris) == ["2009011008"]  # 00:00 PST is 08:00 UTC


def test_daily_dataset_across_dst_in_los_angeles(tmp_path: Path) -> None:
    # Oozie's spring vector (TestCoordELFunctions.testCurrent) as a range. Single instances
    # are 02:00 local (09:00Z after the switch); a range walks day by day, and 02:00 PST + 1
    # day falls in the gap of 2009-03-08, which Java's calendar resolves to 01:00 PST; the
    # walk then stays at 01:00 local (08:00Z). The <instance> form shows the difference.
    c = coordinator(
        tmp_path,
        datasets=ds(
            "d", frequency="${coord:days(1)}", initial="2009-03-06T10:00Z", tz="America/Los_Angeles"
        ),
        inputs=din("in", "d", start="${coord:current(-2)}", end="${coord:current(2)}"),
    )
    (d,) = plan(c, "2009-03-08T10:45Z").data_ins
    assert rel(tmp_path, d.uris) == [
        "2009031008",
        "2009030908",
        "2009030809",
        "2009030710",
        "2009030610",
    ]
    single = coordinator(
        tmp_path,
        name="single",
        datasets=ds(
            "d", frequency="${coord:days(1)}", initial="2009-03-06T10:00Z", tz="America/Los_Angeles"
        ),
        inputs=din("in", "d", *(f"${{coord:current({n})}}" for n in (2, 1, 0, -1, -2))),
    )
    (d,) = plan(single, "2009-03-08T10:45Z").data_ins
    assert rel(tmp_path, d.uris) == [
        "2009031009",
        "2009030909",
        "2009030809",
        "2009030710",
        "2009030610",
    ]
    # the fall-back vector
    c2 = coordinator(
        tmp_path,
        name="c2",
        datasets=ds(
            "d", frequency="${coord:days(1)}", initial="2009-10-30T08:00Z", tz="America/Los_Angeles"
        ),
        inputs=din("in", "d", start="${coord:current(-2)}", end="${coord:current(2)}"),
    )
    (d,) = plan(c2, "2009-11-01T08:00Z").data_ins
    assert rel(tmp_path, d.uris) == [
        "2009110309",
        "2009110209",
        "2009110108",
        "2009103108",
        "2009103008",
    ]


def test_month_end_and_leap_day_datasets(tmp_path: Path) -> None:
    month = "${root}/${YEAR}${MONTH}${DAY}"
    c = coordinator(
        tmp_path,
        datasets=ds("m", frequency="${coord:months(1)}", initial="2009-01-31T00:00Z", uri=month)
        + ds("y", frequency="${coord:months(12)}", initial="2012-02-29T00:00Z", uri=month),
        inputs=din("one", "m", "${coord:current(0)}", "${coord:current(-1)}")
        + din("range", "m", start="${coord:current(-2)}", end="${coord:current(0)}")
        + din("leap", "y", "${coord:current(0)}", "${coord:current(-1)}"),
    )
    one, rng, leap = plan(c, "2009-04-15T00:00Z").data_ins
    # each <instance> is computed from the initial instance: the day is clamped per month
    assert rel(tmp_path, one.uris) == ["20090331", "20090228"]
    # a range walks from instance to instance (Oozie): Feb 28 + 1 month is Mar 28
    assert rel(tmp_path, rng.uris) == ["20090328", "20090228", "20090131"]
    (_one, _rng, leap) = plan(c, "2016-03-01T00:00Z").data_ins
    assert rel(tmp_path, leap.uris) == ["20160229", "20150228"]


def test_end_of_months_start_instance(tmp_path: Path) -> None:
    # all days of the current month up to yesterday, newest first
    c = coordinator(
        tmp_path,
        datasets=ds(
            "d",
            frequency="${coord:endOfDays(1)}",
            initial="2008-12-31T00:00Z",
            uri="${root}/${YEAR}${MONTH}${DAY}",
        ),
        inputs=din("in", "d", start="${coord:endOfMonths(-1)}", end="${coord:current(-1)}"),
        frequency="${coord:days(1)}",
    )
    (d,) = plan(c, "2009-02-04T00:00Z").data_ins
    assert rel(tmp_path, d.uris) == ["20090203", "20090202", "20090201"]
    (d,) = plan(c, "2012-03-15T00:00Z").data_ins  # leap year
    assert rel(tmp_path, d.uris)[-3:] == ["20120303", "20120302", "20120301"]
    assert len(d.uris) == 14
    with pytest.raises(BundletuiError) as info:  # on the 1st: start (Mar 1) is after end (Feb 29)
        plan(c, "2012-03-01T00:00Z")
    assert info.value.code == "E1010"


def test_offset_and_absolute_ranges(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        inputs=din(
            "off", "h", start='${coord:offset(-3, "HOUR")}', end='${coord:offset(0, "HOUR")}'
        )
        + din("abs", "h", start='${coord:absolute("2009-01-01T02:00Z")}', end="${coord:current(0)}")
        + din("one", "h", '${coord:offset(-90, "MINUTE")}'),
    )
    off, ab, one = plan(c, "2009-01-01T05:00Z").data_ins
    assert rel(tmp_path, off.uris) == ["2009010105", "2009010104", "2009010103", "2009010102"]
    assert rel(tmp_path, ab.uris) == ["2009010105", "2009010104", "2009010103", "2009010102"]
    assert rel(tmp_path, one.uris) == ["2009010103"]  # 03:30 rewound to the grid


def test_dynamic_instance_expressions(tmp_path: Path) -> None:
    # an argument that depends on the action is evaluated per action
    c = coordinator(
        tmp_path,
        datasets=ds("d", frequency="${coord:days(1)}", uri="${root}/${YEAR}${MONTH}${DAY}"),
        inputs=din("in", "d", "${coord:current(1 - coord:daysInMonth(0))}"),
        frequency="${coord:days(1)}",
        end="2009-04-01T00:00Z",
    )
    (d,) = plan(c, "2009-02-28T00:00Z").data_ins
    assert rel(tmp_path, d.uris) == ["20090201"]
    (d,) = plan(c, "2009-03-31T00:00Z").data_ins
    assert rel(tmp_path, d.uris) == ["20090301"]


def test_data_outs(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h")
        + ds("d", frequency="${coord:days(1)}", uri="${root}/out/${YEAR}${MONTH}${DAY}"),
        outputs='<data-out name="o" dataset="d"><instance>${coord:current(0)}</instance></data-out>'
        '<data-out name="p" dataset="h"><instance>${coord:current(-1)}</instance></data-out>',
    )
    p = plan(c, "2009-01-01T05:00Z")
    assert [(o.name, rel(tmp_path, o.uris)) for o in p.data_outs] == [
        ("o", ["out/20090101"]),
        ("p", ["2009010104"]),
    ]


@pytest.mark.parametrize(
    ("inputs", "outputs", "needle", "line"),
    [
        (
            "",
            '<data-out name="o" dataset="h"><instance>${coord:latest(0)}</instance></data-out>',
            "not permitted in output-event",
            3,  # Oozie refuses it only when an action is made: every action would fail
        ),
        (din("in", "h", '${coord:absolute("2009-01-01T00:00Z")}'), "", "start-instance", 3),
        (
            din("in", "h", start="${coord:current(0)}", end="${coord:latest(0)}"),
            "",
            "both should",
            3,
        ),
        (
            din("in", "h", start="${coord:current(0)}", end="${coord:current(-1)}"),
            "",
            "earlier",
            3,
        ),
        (din("in", "h", start="${coord:latest(0)}", end="${coord:latest(-1)}"), "", "earlier", 3),
        (
            din(
                "in", "h", start='${coord:absolute("2009-01-01T00:30Z")}', end="${coord:current(0)}"
            ),
            "",
            "not in phase",
            3,  # a constant: off the dataset's grid for every action (QA (ab))
        ),
    ],
)
def test_bad_instances_are_e1010(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    inputs: str,
    outputs: str,
    needle: str,
    line: int | None,
) -> None:
    """Every action of such a coordinator would fail: submit refuses what it can see without an
    action (file and line of the element), and materializing still refuses each (a definition
    stored before the check)."""
    if line is not None:
        with pytest.raises(BundletuiError) as info:
            coordinator(tmp_path, datasets=ds("h"), inputs=inputs, outputs=outputs)
        assert info.value.code == "E1010" and needle in info.value.message
        assert (info.value.file, info.value.line) == (str(tmp_path / "c.xml"), line)
        monkeypatch.setattr("bundletui.spec.load.check_instances", lambda *_a: None)
    c = coordinator(tmp_path, datasets=ds("h"), inputs=inputs, outputs=outputs)
    with pytest.raises(BundletuiError) as info:
        plan(c, "2009-01-01T05:00Z")
    assert info.value.code == "E1010"
    assert needle in info.value.message


def test_plan_round_trips_through_a_dict(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        inputs=din(
            "in", "h", "${coord:latest(0)}", "${coord:current(0)}", "${coord:futureRange(0, 1, 5)}"
        ),
    )
    p = plan(c, "2009-01-01T05:00Z", "2009-01-01T05:03Z")
    assert ActionPlan.from_dict(p.to_dict()) == p
    assert p.data_ins[0].pending == (Pending("latest", 0, 0), Pending("future", 0, 1, 5))
    assert p.unresolved == ("${coord:latest(0)}", "${coord:futureRange(0, 1, 5)}")


# --------------------------------------------------------------------------- input check (§2.4)


def test_check_lists_missing_done_flags_and_turns_ready(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        inputs=din("in", "h", start="${coord:current(-2)}", end="${coord:current(0)}"),
    )
    p = plan(c, "2009-01-01T05:00Z")
    touch(tmp_path, "2009010104")
    r = check(c, p)
    assert not r.ready
    # Oozie's missingDependencies: from the first missing path on, the rest unchecked
    assert rel(tmp_path, r.missing) == [
        "2009010105/_SUCCESS",
        "2009010104/_SUCCESS",
        "2009010103/_SUCCESS",
    ]
    touch(tmp_path, "2009010105")
    assert rel(tmp_path, check(c, p).missing) == ["2009010103/_SUCCESS"]
    # the directory alone is not enough: the done flag must exist
    touch(tmp_path, "2009010105", "2009010103", flag="")
    assert not check(c, p).ready
    touch(tmp_path, "2009010105", "2009010103")
    r = check(c, p)
    assert r.ready and r.missing == () and r.missing_dependencies == ()
    assert r.data_in["in"] == p.data_ins[0].uris


def test_oozie_action_input_check_vector(tmp_path: Path) -> None:
    """TestCoordActionInputCheckXCommand.testActionInputCheck: a 7-day dataset, range
    current(-3)..current(0); with 2009/29 and 2009/15 present, 29 is resolved and 15 is still
    listed (it comes after the first missing path, 22)."""
    c = coordinator(
        tmp_path,
        datasets=ds(
            "a",
            frequency="${coord:days(7)}",
            initial="2009-01-01T01:00Z",
            uri="file://${root}/${YEAR}/${DAY}",
        ),
        inputs=din("A", "a", start="${coord:current(-3)}", end="${coord:current(0)}"),
        frequency="${coord:days(1)}",
        start="2009-02-01T23:59Z",
        end="2009-02-02T23:59Z",
    )
    p = plan(c, "2009-02-01T23:59Z")
    root = f"file://{tmp_path}"
    assert list(p.dependencies) == [f"{root}/2009/{d}/_SUCCESS" for d in ("29", "22", "15", "08")]
    touch(tmp_path, "2009/29", "2009/15")
    missing = check(c, p).missing
    assert not any("/2009/29/" in m for m in missing)
    assert any("/2009/15/" in m for m in missing)
    assert list(missing) == [f"{root}/2009/{d}/_SUCCESS" for d in ("22", "15", "08")]


def test_latest_and_future_wait_for_the_other_paths(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        inputs=din("in", "h", "${coord:current(0)}", "${coord:latest(0)}"),
    )
    p = plan(c, "2009-01-01T05:00Z")
    touch(tmp_path, "2009010104")  # latest(0) would resolve, but current(0) is missing
    r = check(c, p)
    assert rel(tmp_path, r.missing) == ["2009010105/_SUCCESS"]
    assert r.unresolved == ("${coord:latest(0)}",)
    assert r.data_in["in"] is None
    touch(tmp_path, "2009010105")
    r = check(c, p)
    assert r.ready
    assert rel(tmp_path, r.data_in["in"]) == ["2009010105", "2009010105"]


def test_latest_and_future_are_resolved_at_the_check(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        inputs=din(
            "in", "h", "${coord:current(0)}", "${coord:latest(-1)}", "${coord:future(0, 10)}"
        ),
        conf="<property><name>inputs</name><value>${coord:dataIn('in')}</value></property>",
    )
    p = plan(c, "2009-01-01T05:00Z", "2009-01-01T06:10Z")
    touch(tmp_path, "2009010105")
    r = check(c, p)
    assert not r.ready
    # future(0) finds 05:00 itself; latest walks back from the actual time's 06:00 and finds
    # only one instance (05:00 is latest(0)), so latest(-1) waits
    assert r.unresolved == ("${coord:latest(-1)}",)
    assert r.missing_dependencies == ("${coord:latest(-1)}",)
    conf = workflow_conf(
        c.app,
        c.conf,
        p,
        r,
        coord_id=CID,
        action_id=p.action_id,
        user="me",
        now=T("2009-01-01T06:10Z"),
    )
    assert conf == {"inputs": "${coord:dataIn('in')}"}  # echoed until resolved
    # latest walks back from the *actual* time (06:00 is the current instance there)
    touch(tmp_path, "2009010106", "2009010102", "2009010107")
    r = check(c, p)
    assert r.ready
    # resolved latest/future URIs come first (Oozie prepends them), then the others
    # latest(-1): 06:00 is latest(0), 05:00 latest(-1); future(0): 05:00 itself
    assert rel(tmp_path, r.data_in["in"]) == ["2009010105", "2009010105", "2009010105"]


def test_resolved_order_latest_first(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        inputs=din(
            "in",
            "h",
            "${coord:current(-3)}",
            "${coord:latestRange(-1, 0)}",
            "${coord:futureRange(0, 1, 10)}",
        ),
    )
    p = plan(c, "2009-01-01T05:00Z", "2009-01-01T05:30Z")
    touch(tmp_path, "2009010102", "2009010103", "2009010104", "2009010107", "2009010109")
    r = check(c, p)
    assert r.ready
    assert rel(tmp_path, r.data_in["in"]) == [
        "2009010104",
        "2009010103",  # latestRange: newest first (from actual 05:30 -> 05:00)
        "2009010107",
        "2009010109",  # futureRange: oldest first (from nominal 05:00)
        "2009010102",  # current(-3)
    ]


def test_run_conf(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h")
        + ds("d", frequency="${coord:days(1)}", uri="${root}/out/${YEAR}${MONTH}${DAY}"),
        inputs=din("in", "h", start="${coord:current(-1)}", end="${coord:current(0)}"),
        outputs='<data-out name="o" dataset="d"><instance>${coord:current(0)}</instance></data-out>',
        conf="".join(
            f"<property><name>{k}</name><value>{v}</value></property>"
            for k, v in [
                ("in", "${coord:dataIn('in')}"),
                ("out", "${coord:dataOut('o')}"),
                ("nominal", "${coord:nominalTime()}"),
                ("actual", "${coord:actualTime()}"),
                ("day", "${coord:formatTime(coord:nominalTime(), 'yyyy-MM-dd')}"),
                ("yesterday", "${coord:dateOffset(coord:nominalTime(), -1, 'DAY')}"),
                ("id", "${coord:actionId()}"),
                ("name", "${coord:name()}"),
                ("who", "${coord:user()}"),
                ("root", "${root}"),
                ("prop", "${coord:conf('user.name')}"),
                ("wf", "${wf:id()}"),
                ("plain", "x"),
                ("escaped", "\\${literal}"),
            ]
        ),
    )
    p = plan(c, "2009-01-01T05:00Z", "2009-01-01T05:02Z", number=6)
    touch(tmp_path, "2009010105", "2009010104")
    r = check(c, p)
    conf = run_conf(
        c.app,
        c.conf,
        p,
        r,
        coord_id=CID,
        action_id=p.action_id,
        user="me",
        now=T("2009-01-01T05:03Z"),
    )
    root = str(tmp_path)
    assert conf["in"] == f"{root}/2009010105,{root}/2009010104"
    assert conf["out"] == f"{root}/out/20090101"
    assert conf["nominal"] == "2009-01-01T05:00Z"
    assert conf["actual"] == "2009-01-01T05:02Z"
    assert conf["day"] == "2009-01-01"
    assert conf["yesterday"] == "2008-12-31T05:00Z"
    assert conf["id"] == f"{CID}@6"
    assert conf["name"] == "c"
    assert conf["who"] == conf["prop"] == "me"
    assert conf["root"] == root
    assert conf["wf"] == "${wf:id()}"  # the workflow's business
    assert conf["plain"] == "x"
    assert conf["escaped"] == "${literal}"
    # the job conf is passed on, with the workflow's app path instead of the coordinator's
    assert conf["user.name"] == "me"
    assert conf["oozie.wf.application.path"] == f"{root}/wf"
    assert "oozie.coord.application.path" not in conf


def test_unknown_variables(tmp_path: Path) -> None:
    # the submit phase refuses them (every variable must resolve at submit) ...
    with pytest.raises(BundletuiError) as info:
        coordinator(
            tmp_path,
            datasets=ds("h"),
            conf="<property><name>x</name><value>${coord:nominalTime()}/${nope}</value></property>",
        )
    assert info.value.code == "E1004" and "nope" in info.value.message
    # ... and so does the start phase, for a conf that lacks one
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        conf="<property><name>x</name><value>${coord:nominalTime()}/${root}</value></property>",
    )
    p = plan(c, "2009-01-01T05:00Z")
    with pytest.raises(BundletuiError) as info:
        run_conf(
            c.app,
            {"user.name": "me"},
            p,
            None,
            coord_id=CID,
            action_id="",
            user="me",
            now=T("2009-01-01T05:00Z"),
        )
    assert info.value.code == "E1004" and "root" in info.value.message


# --------------------------------------------------------------------------- input logic (§2.7)


LOGIC_DATASETS = "".join(
    ds(n, uri="${root}/" + n + "/${YEAR}${MONTH}${DAY}${HOUR}") for n in "abcd"
)
LOGIC_INPUTS = (
    din("A", "a", start="${coord:current(-2)}", end="${coord:current(0)}")
    + din("B", "b", start="${coord:current(-2)}", end="${coord:current(0)}")
    + din("C", "c", "${coord:current(0)}")
    + din("D", "d", "${coord:current(0)}")
)


def logic_coord(tmp_path: Path, logic: str) -> Loaded:
    return coordinator(tmp_path, datasets=LOGIC_DATASETS, inputs=LOGIC_INPUTS, logic=logic)


def test_or_prefers_the_first_satisfied_child(tmp_path: Path) -> None:
    c = logic_coord(
        tmp_path,
        '<or name="AorB"><data-in dataset="A"/><data-in dataset="B"/></or>',
    )
    p = plan(c, "2009-01-01T05:00Z")
    assert not check(c, p).ready
    touch(tmp_path, "b/2009010105", "b/2009010104", "b/2009010103")
    r = check(c, p)
    assert r.ready
    assert rel(tmp_path, r.data_in["AorB"]) == ["b/2009010105", "b/2009010104", "b/2009010103"]
    touch(tmp_path, "a/2009010105", "a/2009010104", "a/2009010103")
    r = check(c, p)
    assert rel(tmp_path, r.data_in["AorB"])[0] == "a/2009010105"
    # a data-in's own name still gives all its URIs
    assert r.data_in["A"] == p.data_ins[0].uris


def test_and_with_min(tmp_path: Path) -> None:
    c = logic_coord(
        tmp_path,
        '<and name="both"><data-in dataset="A" min="2"/><data-in dataset="B"/>'
        '<data-in dataset="C" min="0"/></and>',
    )
    p = plan(c, "2009-01-01T05:00Z")
    touch(tmp_path, "b/2009010105", "b/2009010104", "b/2009010103", "a/2009010105")
    assert not check(c, p).ready  # A has 1 of min 2
    touch(tmp_path, "a/2009010103")
    r = check(c, p)
    assert r.ready  # A: 2 (gap ignored), B complete, C min 0
    assert rel(tmp_path, r.data_in["both"]) == [
        "a/2009010105",
        "a/2009010103",
        "b/2009010105",
        "b/2009010104",
        "b/2009010103",
    ]
    # not ready by default rules, but the input logic says it is
    assert r.missing  # C and A's hole are still reported missing


def test_combine_fills_gaps_from_the_next_data_in(tmp_path: Path) -> None:
    c = logic_coord(
        tmp_path, '<combine name="AB"><data-in dataset="A"/><data-in dataset="B"/></combine>'
    )
    p = plan(c, "2009-01-01T05:00Z")
    touch(tmp_path, "a/2009010105", "b/2009010104")
    assert not check(c, p).ready
    touch(tmp_path, "b/2009010103")
    r = check(c, p)
    assert r.ready
    assert rel(tmp_path, r.data_in["AB"]) == ["a/2009010105", "b/2009010104", "b/2009010103"]


def test_wait_holds_an_or_then_moves_on(tmp_path: Path) -> None:
    c = logic_coord(
        tmp_path,
        '<or name="pick"><data-in dataset="A" wait="30"/><data-in dataset="C"/></or>',
    )
    # created after the nominal time: the wait counts from the creation time
    p = plan(c, "2009-01-01T05:00Z", "2009-01-01T05:10Z")
    touch(tmp_path, "c/2009010105")
    r = check(c, p, "2009-01-01T05:39Z")
    assert not r.ready
    assert r.waiting_until == T("2009-01-01T05:40Z")
    assert r.waiting_for == "A"  # what the wait holds it for, for the why
    r = check(c, p, "2009-01-01T05:40Z")
    assert r.ready
    assert rel(tmp_path, r.data_in["pick"]) == ["c/2009010105"]


def test_min_with_wait(tmp_path: Path) -> None:
    c = logic_coord(tmp_path, '<data-in name="some" dataset="A" min="2" wait="60"/>')
    p = plan(c, "2009-01-01T05:00Z")
    touch(tmp_path, "a/2009010105", "a/2009010104")
    assert not check(c, p, "2009-01-01T05:59Z").ready  # waiting for more than the minimum
    r = check(c, p, "2009-01-01T06:00Z")
    assert r.ready and len(r.data_in["A"] or ()) == 3
    touch(tmp_path, "a/2009010103")
    assert check(c, p, "2009-01-01T05:01Z").ready  # all there: no need to wait


def test_nested_logic_and_parent_min_propagates(tmp_path: Path) -> None:
    c = logic_coord(
        tmp_path,
        '<or name="top"><and name="AC"><data-in dataset="A"/><data-in dataset="C"/></and>'
        '<and min="1"><data-in dataset="B"/><data-in dataset="D"/></and></or>',
    )
    p = plan(c, "2009-01-01T05:00Z")
    touch(tmp_path, "b/2009010103", "d/2009010105")
    r = check(c, p)
    assert r.ready
    assert rel(tmp_path, r.data_in["top"]) == ["b/2009010103", "d/2009010105"]
    assert r.data_in["AC"] is None  # not satisfied: coord:dataIn('AC') stays echoed


def test_logic_with_unresolved_latest(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=LOGIC_DATASETS,
        inputs=din("L", "a", "${coord:latest(0)}") + din("C", "c", "${coord:current(0)}"),
        logic='<or name="x"><data-in dataset="L"/><data-in dataset="C"/></or>',
    )
    p = plan(c, "2009-01-01T05:00Z")
    assert not check(c, p).ready
    touch(tmp_path, "a/2008123100")
    r = check(c, p)
    assert r.ready and rel(tmp_path, r.data_in["x"]) == ["a/2008123100"]


# --------------------------------------------------------------------------- nominal times (§2.5)


def times(loaded: Loaded, **kw: Any) -> list[tuple[int, str]]:
    return [(n, F(t)) for n, t in iter_actions(loaded.app, **kw)]


def test_nominal_times_end_exclusive_and_numbering(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        frequency="20",
        start="2013-07-18T00:00Z",
        end="2013-07-18T01:00Z",
    )
    assert times(c) == [
        (1, "2013-07-18T00:00Z"),
        (2, "2013-07-18T00:20Z"),
        (3, "2013-07-18T00:40Z"),
    ]
    assert times(c, start=T("2013-07-18T00:10Z")) == [
        (2, "2013-07-18T00:20Z"),
        (3, "2013-07-18T00:40Z"),
    ]
    assert times(c, end=T("2013-07-18T00:40Z")) == [
        (1, "2013-07-18T00:00Z"),
        (2, "2013-07-18T00:20Z"),
    ]
    assert times(c, limit=1) == [(1, "2013-07-18T00:00Z")]
    # pause time (exclusive), TestCoordMaterializeTransitionXCommand.testActionMaterWithPauseTime
    five = coordinator(
        tmp_path,
        name="five",
        datasets=ds("h"),
        frequency="5",
        start="2009-03-06T10:00Z",
        end="2009-03-06T10:14Z",
    )
    assert times(five, pause=T("2009-03-06T10:04Z")) == [(1, "2009-03-06T10:00Z")]
    assert times(five, pause=T("2009-03-06T10:08Z")) == [
        (1, "2009-03-06T10:00Z"),
        (2, "2009-03-06T10:05Z"),
    ]
    assert times(five, pause=T("2009-03-06T09:58Z")) == []


def test_nominal_times_days_keep_wall_time_hours_do_not(tmp_path: Path) -> None:
    days = coordinator(
        tmp_path,
        name="days",
        datasets=ds("h"),
        frequency="${coord:days(1)}",
        start="2009-03-07T08:00Z",
        end="2009-03-10T00:00Z",
        timezone="America/Los_Angeles",
    )
    assert [t for _, t in times(days)] == [
        "2009-03-07T08:00Z",
        "2009-03-08T08:00Z",
        "2009-03-09T07:00Z",
    ]
    hours = coordinator(
        tmp_path,
        name="hours",
        datasets=ds("h"),
        frequency="${coord:hours(24)}",
        start="2009-03-07T08:00Z",
        end="2009-03-10T00:00Z",
        timezone="America/Los_Angeles",
    )
    assert [t for _, t in times(hours)] == [
        "2009-03-07T08:00Z",
        "2009-03-08T08:00Z",
        "2009-03-09T08:00Z",
    ]


def test_nominal_times_months_clamp_from_start_and_end_of(tmp_path: Path) -> None:
    months = coordinator(
        tmp_path,
        name="m",
        datasets=ds("h"),
        frequency="${coord:months(1)}",
        start="2009-01-31T00:00Z",
        end="2009-05-01T00:00Z",
    )
    assert [t for _, t in times(months)] == [
        "2009-01-31T00:00Z",
        "2009-02-28T00:00Z",
        "2009-03-31T00:00Z",
        "2009-04-30T00:00Z",
    ]
    eod = coordinator(
        tmp_path,
        name="eod",
        datasets=ds("h"),
        frequency="${coord:endOfDays(1)}",
        start="2009-01-01T10:00Z",
        end="2009-01-04T00:00Z",
    )
    assert [t for _, t in times(eod)] == ["2009-01-02T00:00Z", "2009-01-03T00:00Z"]
    eow = coordinator(
        tmp_path,
        name="eow",
        datasets=ds("h"),
        frequency="${coord:endOfWeeks(1)}",
        start="2009-01-07T10:00Z",
        end="2009-01-20T00:00Z",
    )  # a Wednesday
    assert [t for _, t in times(eow)] == ["2009-01-11T00:00Z", "2009-01-18T00:00Z"]
    eom = coordinator(
        tmp_path,
        name="eom",
        datasets=ds("h"),
        frequency="${coord:endOfMonths(1)}",
        start="2009-01-15T00:00Z",
        end="2009-04-01T08:00Z",
        timezone="America/Los_Angeles",
    )
    assert [t for _, t in times(eom)] == [
        "2009-02-01T08:00Z",
        "2009-03-01T08:00Z",
        "2009-04-01T07:00Z",
    ]


@pytest.mark.parametrize(
    ("cron", "expected"),
    [  # TestCoordMaterializeTransitionXCommand, start 2013-07-18T00:00Z (a Thursday), end 01:00Z
        ("10,20 * * * *", ["00:10", "00:20"]),
        ("10-20 * * * *", [f"00:{m}" for m in range(10, 21)]),
        ("0/15 * * 5-7 4,5", ["00:00", "00:15", "00:30", "00:45"]),
        ("20/15 * * 5-7 4,5", ["00:20", "00:35", "00:50"]),
        ("20/15 * * 7,10 THU", ["00:20", "00:35", "00:50"]),
        ("0/20 * * * 5", ["00:00", "00:20", "00:40"]),  # Quartz: 5 is Thursday
    ],
)
def test_cron_nominal_times(tmp_path: Path, cron: str, expected: list[str]) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        frequency=cron,
        start="2013-07-18T00:00Z",
        end="2013-07-18T01:00Z",
    )
    assert [t for _, t in times(c)] == [f"2013-07-18T{hm}Z" for hm in expected]


def test_cron_weekdays_quartz_numbering(tmp_path: Path) -> None:
    c = coordinator(
        tmp_path,
        datasets=ds("h"),
        frequency="0 10 * * 2-6",
        start="2013-07-18T00:00Z",
        end="2013-07-24T00:00Z",
    )
    assert [t[:10] for _, t in times(c)] == [
        "2013-07-18",
        "2013-07-19",
        "2013-07-22",
        "2013-07-23",  # Mon-Fri: no 20th/21st
    ]


# --------------------------------------------------------------------------- fast path


@settings(max_examples=200, deadline=None)
@given(
    minutes=st.sampled_from([1, 5, 15, 60, 90, 1440, 10080]),
    unit=st.sampled_from(["minute", "day"]),
    offset_minutes=st.integers(-5000, 200_000),
    a=st.integers(-30, 3),
    span=st.integers(0, 30),
    flag=st.sampled_from(["", "_SUCCESS"]),
)
def test_fixed_grid_path_matches_the_instance_walk(
    minutes: int, unit: str, offset_minutes: int, a: int, span: int, flag: str
) -> None:
    if unit == "day":
        freq = Frequency(max(minutes // 1440, 1), TimeUnit.DAY)
    else:
        freq = Frequency(minutes, TimeUnit.MINUTE)
    d = Dataset(
        "d", freq, T("2009-01-01T00:30Z"), "UTC", "/x/${YEAR}${MONTH}${DAY}${HOUR}${MINUTE}", flag
    )
    nominal = T("2009-01-01T00:30Z") + timedelta(minutes=offset_minutes)
    planner = DatasetPlanner(d)
    assert planner.step is not None
    got = planner.current_uris(nominal, a, a + span)
    want = [instances.uri_for(d, t) for t in instances.current_range(d, nominal, a, a + span)]
    assert list(got[0]) == want
    assert list(got[1]) == [instances.done_path(u, flag) for u in want]


def test_compiled_coordinator_is_cached_by_identity(tmp_path: Path) -> None:
    from bundletui.spec.materialize import compile_coordinator

    c = coordinator(tmp_path, datasets=ds("h"))
    assert compile_coordinator(c.app, c.conf) is compile_coordinator(c.app, c.conf)
    assert isinstance(c.app, CoordinatorApp)


def test_a_wait_that_runs_out_after_year_9999_just_waits(tmp_path: Path) -> None:
    """wait="2147483647" (a Java int of minutes, 4085 years) from a nominal time in year 9000:
    the action waits, with no wake-up to schedule, instead of an OverflowError."""
    c = logic_coord(tmp_path, '<data-in name="some" dataset="A" min="2" wait="2147483647"/>')
    p = plan(c, "9000-01-01T05:00Z")
    touch(tmp_path, "a/9000010105", "a/9000010104")
    r = check(c, p, "9000-01-01T06:00Z")
    assert not r.ready and r.waiting_until is None
    touch(tmp_path, "a/9000010103")
    assert check(c, p, "9000-01-01T06:00Z").ready
