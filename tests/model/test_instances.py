"""Dataset instance math (oozie.md §3.1-§3.3).

Most vectors are Oozie's own: TestCoordELFunctions (current, offset, hoursInDay, daysInMonth,
tzOffset, latest, future, absoluteRange) and TestCoordCommandUtils (offset / absolute /
endOfDays / endOfWeeks / endOfMonths ranges with their datasets from core/src/test/resources).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bundletui.errors import ModelError
from bundletui.model.apps import Dataset
from bundletui.model.frequency import Frequency, TimeUnit
from bundletui.model.instances import (
    Lookup,
    absolute_range,
    check_range_kinds,
    current,
    current_index,
    current_instance,
    current_range,
    days_in_month,
    done_path,
    end_of_range,
    end_of_start,
    future,
    future_range,
    hours_in_day,
    initial_instance,
    instance_at,
    latest,
    latest_range,
    offset,
    offset_range,
    tz_offset,
    uri_for,
)
from bundletui.model.timeutil import format_oozie_time, parse_oozie_time

LA = "America/Los_Angeles"
T = parse_oozie_time
MIN, HOUR, DAY, WEEK, MONTH, YEAR = (
    TimeUnit.MINUTE,
    TimeUnit.HOUR,
    TimeUnit.DAY,
    TimeUnit.WEEK,
    TimeUnit.MONTH,
    TimeUnit.YEAR,
)
EOD, EOW, EOM = TimeUnit.END_OF_DAY, TimeUnit.END_OF_WEEK, TimeUnit.END_OF_MONTH


def ds(
    value: int,
    unit: TimeUnit,
    initial: str,
    tz: str = "UTC",
    *,
    end_of: TimeUnit | None = None,
    uri: str = "hdfs:///tmp/workflows/${YEAR}/${MONTH}/${DAY};region=us",
    done_flag: str = "_SUCCESS",
) -> Dataset:
    return Dataset("d", Frequency(value, unit, end_of), T(initial), tz, uri, done_flag)


def f(t: datetime | None) -> str:
    return "" if t is None else format_oozie_time(t)


def fl(ts: list[datetime]) -> list[str]:
    return [format_oozie_time(t) for t in ts]


# Oozie's TestCoordELFunctions.init(): daily LA dataset, nominal 09-09, actual 09-10.
DEFAULT = ds(1, DAY, "2009-09-01T23:59Z", LA, uri="/US/${YEAR}/${MONTH}/${DAY}", done_flag="")
NOMINAL = T("2009-09-09T23:59Z")
ACTUAL = T("2009-09-10T23:59Z")


# --------------------------------------------------------------------------- current


def test_current_default_fixture() -> None:
    assert f(current(DEFAULT, NOMINAL, -1)) == "2009-09-08T23:59Z"
    assert fl(current_range(DEFAULT, NOMINAL, -1, 0)) == ["2009-09-09T23:59Z", "2009-09-08T23:59Z"]
    # out-of-range instances are dropped, the rest returned (Oozie testCurrentRange)
    assert fl(current_range(DEFAULT, T("2009-09-01T23:59Z"), -1, 0)) == ["2009-09-01T23:59Z"]


CURRENT_VECTORS = [
    # (dataset, nominal, {n: expected}) — Oozie: TestCoordELFunctions.testCurrent
    (ds(1, DAY, "2009-01-02T00:00Z", LA), "2009-05-30T00:45Z",
     {0: "2009-05-29T23:00Z", 1: "2009-05-30T23:00Z", -1: "2009-05-28T23:00Z", -3: "2009-05-26T23:00Z"}),
    (ds(30, MIN, "2009-01-08T00:00Z", LA), "2009-05-30T00:45Z",
     {0: "2009-05-30T00:30Z", 1: "2009-05-30T01:00Z", -1: "2009-05-30T00:00Z", -3: "2009-05-29T23:00Z"}),
    (ds(1, DAY, "2009-01-02T00:00Z"), "2009-05-30T00:00Z",
     {0: "2009-05-30T00:00Z", 1: "2009-05-31T00:00Z", -1: "2009-05-29T00:00Z", -3: "2009-05-27T00:00Z"}),
    (ds(7, DAY, "2009-01-08T00:00Z"), "2009-05-30T00:00Z",
     {0: "2009-05-28T00:00Z", 1: "2009-06-04T00:00Z", -1: "2009-05-21T00:00Z", -3: "2009-05-07T00:00Z"}),
    # spring DST week: the 02:00 PST instance falls into the gap on 03-08 (01:00 PST)
    (ds(1, DAY, "2009-03-06T10:00Z", LA), "2009-03-08T10:45Z",
     {-2: "2009-03-06T10:00Z", -1: "2009-03-07T10:00Z", 0: "2009-03-08T09:00Z",
      1: "2009-03-09T09:00Z", 2: "2009-03-10T09:00Z"}),
    # fall-back week: 01:00 PDT on 11-01 is the first 01:00, then 01:00 PST
    (ds(1, DAY, "2009-10-30T08:00Z", LA), "2009-11-01T08:00Z",
     {-2: "2009-10-30T08:00Z", -1: "2009-10-31T08:00Z", 0: "2009-11-01T08:00Z",
      1: "2009-11-02T09:00Z", 2: "2009-11-03T09:00Z"}),
    # endOfDays datasets (II moved to the next local midnight)
    (ds(1, DAY, "2009-01-02T09:00Z", end_of=EOD), "2009-05-30T12:00Z",
     {0: "2009-05-30T00:00Z", 1: "2009-05-31T00:00Z"}),
    (ds(1, DAY, "2009-01-01T08:00Z", end_of=EOD), "2009-01-01T08:00Z", {0: "", 1: ""}),
    (ds(1, DAY, "2009-01-01T08:00Z", LA, end_of=EOD), "2009-01-01T08:00Z", {0: "", 1: ""}),
    (ds(1, DAY, "2009-01-01T07:01Z", LA, end_of=EOD), "2009-01-01T08:01Z",
     {0: "2009-01-01T08:00Z", 1: "2009-01-02T08:00Z"}),
    (ds(1, DAY, "2009-01-01T7:00Z", LA, end_of=EOD), "2009-01-01T18:00Z",
     {0: "2009-01-01T08:00Z", 1: "2009-01-02T08:00Z"}),
    (ds(1, DAY, "2009-03-07T07:00Z", LA, end_of=EOD), "2009-03-07T09:00Z",
     {0: "2009-03-07T08:00Z", 1: "2009-03-08T08:00Z"}),
    (ds(1, DAY, "2009-03-08T07:00Z", LA, end_of=EOD), "2009-03-08T08:00Z",
     {0: "2009-03-08T08:00Z", 1: "2009-03-09T07:00Z"}),
    (ds(1, DAY, "2009-03-09T07:00Z", LA, end_of=EOD), "2009-03-10T08:01Z",
     {0: "2009-03-10T07:00Z", 1: "2009-03-11T07:00Z"}),
    (ds(2, DAY, "2009-03-09T07:00Z", LA, end_of=EOD), "2009-03-10T07:00Z",
     {0: "2009-03-10T07:00Z", 1: "2009-03-12T07:00Z"}),
    # endOfMonths datasets
    (ds(1, MONTH, "2009-01-01T00:00Z", end_of=EOM), "2009-02-01T00:00Z",
     {0: "2009-02-01T00:00Z", 1: "2009-03-01T00:00Z"}),
    (ds(1, MONTH, "2009-01-01T08:00Z", end_of=EOM), "2009-02-01T08:00Z",
     {0: "2009-02-01T00:00Z", 1: "2009-03-01T00:00Z"}),
    (ds(1, MONTH, "2009-01-31T08:00Z", end_of=EOM), "2009-02-01T08:00Z",
     {0: "2009-02-01T00:00Z", 1: "2009-03-01T00:00Z"}),
    (ds(1, MONTH, "2009-01-01T08:00Z", LA, end_of=EOM), "2009-02-01T08:00Z",
     {0: "2009-02-01T08:00Z", 1: "2009-03-01T08:00Z"}),
    (ds(1, MONTH, "2009-02-02T08:00Z", LA, end_of=EOM), "2009-03-02T08:00Z",
     {0: "2009-03-01T08:00Z", 1: "2009-04-01T07:00Z"}),
    (ds(1, MONTH, "2009-02-01T08:00Z", LA, end_of=EOM), "2009-03-01T08:00Z",
     {0: "2009-03-01T08:00Z", 1: "2009-04-01T07:00Z"}),
    (ds(3, MONTH, "2009-02-01T08:00Z", LA, end_of=EOM), "2009-03-01T08:00Z",
     {0: "2009-03-01T08:00Z", 1: "2009-06-01T07:00Z"}),
]  # fmt: skip


@pytest.mark.parametrize(("dataset", "nominal", "expected"), CURRENT_VECTORS)
def test_current_oozie_vectors(dataset: Dataset, nominal: str, expected: dict[int, str]) -> None:
    got = {n: f(current(dataset, T(nominal), n)) for n in expected}
    assert got == expected


def test_instances_before_the_initial_instance() -> None:
    d = ds(1, DAY, "2009-01-05T00:00Z")
    assert current_instance(d, T("2009-01-04T23:59Z")) is None
    assert current_index(d, T("2009-01-04T23:59Z")) is None
    assert current(d, T("2009-01-04T23:59Z"), 0) is None
    assert current(d, T("2009-01-06T00:00Z"), -1) == T("2009-01-05T00:00Z")
    assert current(d, T("2009-01-06T00:00Z"), -2) is None
    # a range partly before II keeps what is left; wholly before gives nothing
    assert fl(current_range(d, T("2009-01-06T12:00Z"), -3, 0)) == [
        "2009-01-06T00:00Z",
        "2009-01-05T00:00Z",
    ]
    assert current_range(d, T("2009-01-06T12:00Z"), -5, -2) == []
    assert current_range(d, T("2009-01-01T00:00Z"), -1, 0) == []
    # a future instance needs no existence check
    assert f(current(d, T("2009-01-06T00:00Z"), 3)) == "2009-01-09T00:00Z"


def test_current_range_rejects_start_after_end() -> None:
    with pytest.raises(ModelError) as info:
        current_range(DEFAULT, NOMINAL, 0, -1)
    assert info.value.code == "E1010"
    assert "start-instance should be equal or earlier than the end-instance" in info.value.message


def test_month_end_dataset_grid() -> None:
    d = ds(1, MONTH, "2009-01-31T00:00Z")
    assert fl([instance_at(d, k) for k in range(4)]) == [
        "2009-01-31T00:00Z",
        "2009-02-28T00:00Z",
        "2009-03-31T00:00Z",  # computed from II, not from Feb 28
        "2009-04-30T00:00Z",
    ]
    assert f(current(d, T("2009-04-15T00:00Z"), 0)) == "2009-03-31T00:00Z"
    assert f(current(d, T("2009-04-30T00:00Z"), 0)) == "2009-04-30T00:00Z"


def test_leap_day_yearly_dataset() -> None:
    d = ds(1, YEAR, "2008-02-29T00:00Z")
    assert fl([instance_at(d, k) for k in range(5)]) == [
        "2008-02-29T00:00Z",
        "2009-02-28T00:00Z",
        "2010-02-28T00:00Z",
        "2011-02-28T00:00Z",
        "2012-02-29T00:00Z",
    ]
    assert f(current(d, T("2012-03-01T00:00Z"), 0)) == "2012-02-29T00:00Z"
    assert f(current(d, T("2012-02-28T23:59Z"), 0)) == "2011-02-28T00:00Z"


def test_weekly_dataset() -> None:
    d = ds(1, WEEK, "2009-03-01T08:00Z", LA)  # Sunday 00:00 PST
    assert f(current(d, T("2009-03-20T00:00Z"), 0)) == "2009-03-15T07:00Z"  # 00:00 PDT
    assert f(current(d, T("2009-03-20T00:00Z"), -1)) == "2009-03-08T08:00Z"


def test_end_of_weeks_dataset() -> None:
    d = ds(1, WEEK, "2016-01-01T01:00Z", end_of=EOW)  # Oozie: testActionMaterEndOfWeeks
    assert f(initial_instance(d)) == "2016-01-03T00:00Z"
    assert f(current(d, T("2016-02-10T00:00Z"), 0)) == "2016-02-07T00:00Z"
    assert f(current(d, T("2016-02-10T00:00Z"), -1)) == "2016-01-31T00:00Z"


# --------------------------------------------------------------------------- offset


def test_offset_default_fixture() -> None:  # Oozie: testOffset
    assert f(offset(DEFAULT, NOMINAL, -1440, MIN)) == "2009-09-08T23:59Z"
    assert f(offset(DEFAULT, NOMINAL, -24, HOUR)) == "2009-09-08T23:59Z"
    assert f(offset(DEFAULT, NOMINAL, -1, DAY)) == "2009-09-08T23:59Z"
    assert f(offset(DEFAULT, NOMINAL, 1, MONTH)) == "2009-10-09T23:59Z"
    assert f(offset(DEFAULT, NOMINAL, 1, YEAR)) == "2010-09-09T23:59Z"
    assert offset(DEFAULT, NOMINAL, -10, DAY) is None


_N15 = T("2015-01-02T00:45Z")


@pytest.mark.parametrize(
    ("dataset", "calls", "expected"),
    [
        # Oozie: yearly dataset, offsets in every unit (DST/leap year counted in DAY/HOUR/MINUTE)
        (
            ds(1, YEAR, "2010-01-02T00:01Z", LA),
            [(0, YEAR), (1, YEAR), (-1, YEAR), (-3, YEAR), (0, MONTH), (12, MONTH),
             (-12, MONTH), (-36, MONTH), (0, DAY), (365, DAY), (-365, DAY), (-1096, DAY),
             (0, HOUR), (8760, HOUR), (-8760, HOUR), (-26304, HOUR), (0, MIN), (525600, MIN),
             (-525600, MIN), (-1578240, MIN)],
            ["2015-01-02T00:01Z", "2016-01-02T00:01Z", "2014-01-02T00:01Z", "2012-01-02T00:01Z"] * 5,
        ),
        # Oozie: minutely dataset
        (
            ds(1, MIN, "2010-01-02T00:01Z", LA),
            [(0, MIN), (1, MIN), (-1, MIN), (-3, MIN), (0, HOUR), (1, HOUR), (-1, HOUR),
             (-3, HOUR), (0, DAY), (1, DAY), (-1, DAY), (-3, DAY), (0, MONTH), (1, MONTH),
             (-1, MONTH), (-3, MONTH), (0, YEAR), (1, YEAR), (-1, YEAR), (-3, YEAR)],
            ["2015-01-02T00:45Z", "2015-01-02T00:46Z", "2015-01-02T00:44Z", "2015-01-02T00:42Z",
             "2015-01-02T00:45Z", "2015-01-02T01:45Z", "2015-01-01T23:45Z", "2015-01-01T21:45Z",
             "2015-01-02T00:45Z", "2015-01-03T00:45Z", "2015-01-01T00:45Z", "2014-12-30T00:45Z",
             "2015-01-02T00:45Z", "2015-02-02T00:45Z", "2014-12-02T00:45Z", "2014-10-01T23:45Z",
             "2015-01-02T00:45Z", "2016-01-02T00:45Z", "2014-01-02T00:45Z", "2012-01-02T00:45Z"],
        ),
        # Oozie: rewinding to the grid when the offset is not a multiple of the frequency
        (
            ds(4, HOUR, "2010-01-02T00:01Z", LA),
            [(5, MIN), (1, HOUR), (7, HOUR), (-2, HOUR), (-43825, HOUR)],
            ["2015-01-02T00:01Z", "2015-01-02T00:01Z", "2015-01-02T04:01Z", "2015-01-01T20:01Z", ""],
        ),
    ],
)  # fmt: skip
def test_offset_oozie_vectors(
    dataset: Dataset, calls: list[tuple[int, TimeUnit]], expected: list[str]
) -> None:
    assert [f(offset(dataset, _N15, n, u)) for n, u in calls] == expected


def test_offset_on_daily_dataset_equals_in_any_unit() -> None:  # spec table
    d = ds(1, DAY, "2009-01-01T00:00Z")
    nt = T("2009-06-15T12:00Z")
    assert offset(d, nt, 1440, MIN) == offset(d, nt, 24, HOUR) == offset(d, nt, 1, DAY)


def test_offset_rejects_unit_without_calendar_field() -> None:
    with pytest.raises(ModelError) as info:
        offset(DEFAULT, NOMINAL, 1, TimeUnit.CRON)
    assert info.value.code == "E1004"


def _offset_ds(value: int, unit: TimeUnit) -> Dataset:
    # core/src/test/resources/coord-dataset-offset.xml with -frequency-/-unit- filled in
    return ds(
        value,
        unit,
        "2009-08-06T01:00Z",
        uri="hdfs:///tmp/workflows/${YEAR}/${MONTH}/${DAY}/${HOUR};region=us",
    )


def test_offset_ranges_oozie_vectors() -> None:  # Oozie: TestCoordCommandUtils.testCoordOffset
    d = _offset_ds(1, DAY)
    got = offset_range(d, T("2009-08-20T10:00Z"), -4, DAY, 0, DAY)
    assert [uri_for(d, t) for t in got] == [
        f"hdfs:///tmp/workflows/2009/08/{day}/01;region=us"
        for day in ("20", "19", "18", "17", "16")
    ]
    h = _offset_ds(60, MIN)
    got = offset_range(h, T("2009-08-20T01:00Z"), -4, HOUR, 0, HOUR)
    assert [uri_for(h, t) for t in got] == [
        "hdfs:///tmp/workflows/2009/08/20/01;region=us",
        "hdfs:///tmp/workflows/2009/08/20/00;region=us",
        "hdfs:///tmp/workflows/2009/08/19/23;region=us",
        "hdfs:///tmp/workflows/2009/08/19/22;region=us",
        "hdfs:///tmp/workflows/2009/08/19/21;region=us",
    ]


def test_offset_range_fast_forwards_start_and_rewinds_end() -> None:
    d = ds(4, HOUR, "2010-01-02T00:01Z")
    # raw start 2015-01-01T21:46Z -> first instance after it (2015-01-02T00:01Z);
    # raw end 2015-01-02T10:00Z -> last instance before it (08:01)
    got = offset_range(d, T("2015-01-02T00:45Z"), -179, MIN, 599, MIN)
    assert fl(got) == ["2015-01-02T08:01Z", "2015-01-02T04:01Z", "2015-01-02T00:01Z"]
    # mixed units are fine; stops at the first instance before II
    got = offset_range(d, T("2010-01-02T05:00Z"), -1, DAY, 0, HOUR)
    assert fl(got) == ["2010-01-02T04:01Z", "2010-01-02T00:01Z"]
    with pytest.raises(ModelError) as info:
        offset_range(d, T("2015-01-02T00:45Z"), 1, HOUR, -1, HOUR)
    assert info.value.code == "E1010"
    assert offset_range(d, T("2009-01-01T00:00Z"), -4, HOUR, 0, HOUR) == []


# --------------------------------------------------------------------------- absolute / endOf*


def test_absolute_range_el_vectors() -> None:  # Oozie: TestCoordELFunctions.testAbsoluteRange
    d = ds(7, DAY, "2009-08-20T01:00Z", LA)
    nt = T("2009-08-20T01:00Z")
    assert fl(absolute_range(d, nt, T("2009-08-20T01:00Z"), 0)) == ["2009-08-20T01:00Z"]
    assert fl(absolute_range(d, nt, T("2009-08-20T01:00Z"), 1)) == [
        "2009-08-27T01:00Z",
        "2009-08-20T01:00Z",
    ]
    with pytest.raises(ModelError) as info:
        absolute_range(d, nt, T("2009-08-20T01:00Z"), -1)
    assert "start-instance should be equal or earlier than the end-instance" in info.value.message


ABS = ds(7, DAY, "2009-08-06T01:00Z")  # coord-dataset-absolute.xml


def _days(d: Dataset, ts: list[datetime]) -> list[str]:
    return [
        uri_for(d, t).removeprefix("hdfs:///tmp/workflows/").removesuffix(";region=us") for t in ts
    ]


def test_absolute_range_command_vectors() -> None:  # Oozie: TestCoordCommandUtils.testCoordAbsolute
    start = T("2009-08-20T01:00Z")
    assert _days(ABS, absolute_range(ABS, T("2009-08-20T01:00Z"), start, 2)) == [
        "2009/09/03",
        "2009/08/27",
        "2009/08/20",
    ]
    assert _days(ABS, absolute_range(ABS, T("2009-09-10T01:00Z"), start, 2)) == [
        "2009/09/24",
        "2009/09/17",
        "2009/09/10",
        "2009/09/03",
        "2009/08/27",
        "2009/08/20",
    ]
    assert _days(ABS, absolute_range(ABS, T("2009-08-14T01:00Z"), start, 2)) == [
        "2009/08/27",
        "2009/08/20",
    ]


@pytest.mark.parametrize(
    ("start", "nominal", "fragment"),
    [
        ("2009-08-27T01:00Z", "2009-08-06T01:00Z", "start-instance should be equal or earlier than the end-instance"),
        ("2009-07-01T01:00Z", "2009-08-06T01:00Z", "initial-instance should be equal or earlier than the start-instance"),
        ("2009-08-21T01:00Z", "2009-08-20T01:00Z", "initial-instance is not in phase with start-instance"),
        ("2009-08-20T01:00Z", "2009-08-01T01:00Z", "initial-instance should be equal or earlier than the nominal time"),
    ],
)  # fmt: skip
def test_absolute_range_errors(start: str, nominal: str, fragment: str) -> None:
    with pytest.raises(ModelError) as info:
        absolute_range(ABS, T(nominal), T(start), 2)
    assert info.value.code == "E1010"
    assert fragment in info.value.message


DAILY = ds(1, DAY, "2009-06-06T00:00Z")  # coord-dataset-endOfMonths.xml / endOfWeeks.xml
HALF_HOURLY = ds(30, MIN, "2009-06-06T01:00Z", uri="/w/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}")
HALF_HOURLY_TEST = ds(
    30, MIN, "2009-08-01T01:00Z", uri="/w/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}"
)
OUT_OF_PHASE = ds(30, MIN, "2008-08-20T01:17Z")  # out-of-phase-coordinator.xml


def _expected(first: datetime, step: timedelta, last: datetime) -> list[str]:
    out, t = [], first
    while t <= last:
        out.append(format_oozie_time(t))
        t += step
    return list(reversed(out))


@pytest.mark.parametrize(
    ("dataset", "kind", "n", "nominal", "first", "step", "last"),
    [
        # Oozie: testCoordEndOfMonthsParamerized / StartingFromPrevMonth
        (DAILY, MONTH, -1, "2009-08-20T01:00Z", "2009-08-01T00:00Z", timedelta(days=1), "2009-08-20T00:00Z"),
        (DAILY, MONTH, -2, "2009-08-20T01:00Z", "2009-07-01T00:00Z", timedelta(days=1), "2009-08-20T00:00Z"),
        # Oozie: testCoordEndOfWeeksParamerized / StartingFromPrevWeek (Sunday-first weeks)
        (DAILY, WEEK, -1, "2009-08-20T01:00Z", "2009-08-16T00:00Z", timedelta(days=1), "2009-08-20T00:00Z"),
        (DAILY, WEEK, -2, "2009-08-20T01:00Z", "2009-08-09T00:00Z", timedelta(days=1), "2009-08-20T00:00Z"),
        # Oozie: testCoordEndOfDaysParameterized / StartingFromPrevDay
        (HALF_HOURLY, DAY, -1, "2009-08-20T18:00Z", "2009-08-20T00:00Z", timedelta(minutes=30), "2009-08-20T18:00Z"),
        (HALF_HOURLY, DAY, -2, "2009-08-20T18:00Z", "2009-08-19T00:00Z", timedelta(minutes=30), "2009-08-20T18:00Z"),
    ],
)  # fmt: skip
def test_end_of_ranges(
    dataset: Dataset, kind: TimeUnit, n: int, nominal: str, first: str, step: timedelta, last: str
) -> None:
    got = end_of_range(dataset, T(nominal), kind, n, 0)
    assert fl(got) == _expected(T(first), step, T(last))


@pytest.mark.parametrize(
    ("dataset", "kind", "n", "nominal", "fragment"),
    [
        (DAILY, MONTH, 1, "2009-08-06T01:00Z", "start-instance should be equal or earlier than the end-instance"),
        (DAILY, MONTH, -3, "2009-08-06T01:00Z", "initial-instance should be equal or earlier than the start-instance"),
        (OUT_OF_PHASE, MONTH, -1, "2009-08-20T18:00Z", "initial-instance is not in phase with start-instance"),
        (DAILY, WEEK, 1, "2009-08-20T01:00Z", "start-instance should be equal or earlier than the end-instance"),
        (DAILY, WEEK, -11, "2009-08-06T01:00Z", "initial-instance should be equal or earlier than the start-instance"),
        (OUT_OF_PHASE, WEEK, -1, "2009-08-20T18:00Z", "initial-instance is not in phase with start-instance"),
        (HALF_HOURLY, DAY, 1, "2009-08-06T18:00Z", "start-instance should be equal or earlier than the end-instance"),
        (HALF_HOURLY_TEST, DAY, -11, "2009-08-06T18:00Z", "initial-instance should be equal or earlier than the start-instance"),
        (OUT_OF_PHASE, DAY, -1, "2009-08-20T18:00Z", "initial-instance is not in phase with start-instance"),
    ],
)  # fmt: skip
def test_end_of_range_errors(
    dataset: Dataset, kind: TimeUnit, n: int, nominal: str, fragment: str
) -> None:
    with pytest.raises(ModelError) as info:
        end_of_range(dataset, T(nominal), kind, n, 0)
    assert info.value.code == "E1010"
    assert fragment in info.value.message


def test_end_of_start_in_dataset_timezone() -> None:
    d = ds(1, DAY, "2009-01-01T08:00Z", LA)
    nt = T("2009-03-12T03:00Z")  # 03-11 20:00 PDT
    assert f(end_of_start(d, nt, DAY, -1)) == "2009-03-11T07:00Z"  # 03-11 00:00 PDT
    assert f(end_of_start(d, nt, DAY, -4)) == "2009-03-08T08:00Z"  # 03-08 00:00 PST
    assert f(end_of_start(d, nt, WEEK, -1)) == "2009-03-08T08:00Z"  # Sunday
    assert f(end_of_start(d, nt, WEEK, 0)) == "2009-03-15T07:00Z"
    assert f(end_of_start(d, nt, MONTH, -1)) == "2009-03-01T08:00Z"
    assert f(end_of_start(d, nt, MONTH, 0)) == "2009-04-01T07:00Z"


@pytest.mark.parametrize(
    ("start", "end", "fragment"),
    [
        ("absolute", "latest", "Only start-instance as absolute/endOfMonths/endOfWeeks/endOfDays and end-instance as current is supported."),
        ("endOfMonths", "future", "Only start-instance as absolute/endOfMonths/endOfWeeks/endOfDays"),
        ("endOfDays", "offset", "Only start-instance as absolute/endOfMonths/endOfWeeks/endOfDays"),
        ("current", "latest", "start-instance and end-instance both should be either latest or current or future or offset"),
        ("offset", "current", "start-instance and end-instance both should be either latest or current or future or offset"),
    ],
)  # fmt: skip
def test_range_kind_rules(start: str, end: str, fragment: str) -> None:
    with pytest.raises(ModelError) as info:
        check_range_kinds(start, end)
    assert info.value.code == "E1010"
    assert fragment in info.value.message


def test_range_kind_rules_allow_valid_pairs() -> None:
    for pair in [("current", "current"), ("latest", "latest"), ("future", "future"),
                 ("offset", "offset"), ("absolute", "current"), ("endOfWeeks", "current")]:  # fmt: skip
        check_range_kinds(*pair)


# --------------------------------------------------------------------------- latest / future


def _fs_dataset(root: Path) -> Dataset:
    return ds(
        1, DAY, "2009-09-01T23:59Z", LA, uri=f"{root}/${{YEAR}}/${{MONTH}}/${{DAY}}", done_flag=""
    )


def _exists(d: Dataset) -> object:
    return lambda t: Path(done_path(uri_for(d, t), d.done_flag)).exists()


def test_latest_on_real_directories(tmp_path: Path) -> None:  # Oozie: testLatest
    d = _fs_dataset(tmp_path)
    exists = _exists(d)
    assert callable(exists)
    (tmp_path / "2009/09/10").mkdir(parents=True)
    assert latest(d, ACTUAL, 0, exists) == Lookup(True, (T("2009-09-10T23:59Z"),))
    (tmp_path / "2009/09/09").mkdir(parents=True)
    assert latest(d, ACTUAL, -1, exists) == Lookup(True, (T("2009-09-09T23:59Z"),))
    (tmp_path / "2009/09/08").mkdir(parents=True)
    assert latest(d, ACTUAL, -2, exists) == Lookup(True, (T("2009-09-08T23:59Z"),))
    assert latest(d, ACTUAL, -100, exists) == Lookup(False)  # stays unresolved
    with pytest.raises(ModelError) as info:
        latest(d, ACTUAL, 1, exists)
    assert info.value.code == "E1004"
    # ranges come newest first; gaps are skipped
    (tmp_path / "2009/09/05").mkdir(parents=True)
    got = latest_range(d, ACTUAL, -3, 0, exists)
    assert got.resolved
    assert fl(list(got.instances)) == [
        "2009-09-10T23:59Z",
        "2009-09-09T23:59Z",
        "2009-09-08T23:59Z",
        "2009-09-05T23:59Z",
    ]
    assert fl(list(latest_range(d, ACTUAL, -2, -1, exists).instances)) == [
        "2009-09-09T23:59Z",
        "2009-09-08T23:59Z",
    ]
    # relative to the actual time, and unresolved when that is before the initial instance
    assert latest(d, T("2009-09-09T23:59Z"), 0, exists).instances == (T("2009-09-09T23:59Z"),)
    assert latest(d, T("2009-08-01T00:00Z"), 0, exists) == Lookup(False)


def test_latest_respects_done_flag(tmp_path: Path) -> None:
    d = ds(1, DAY, "2009-09-01T23:59Z", LA, uri=f"{tmp_path}/${{YEAR}}/${{MONTH}}/${{DAY}}")
    exists = _exists(d)
    assert callable(exists)
    (tmp_path / "2009/09/10").mkdir(parents=True)
    (tmp_path / "2009/09/09").mkdir(parents=True)
    (tmp_path / "2009/09/09/_SUCCESS").touch()
    assert latest(d, ACTUAL, 0, exists).instances == (T("2009-09-09T23:59Z"),)


def test_future_on_real_directories(tmp_path: Path) -> None:  # Oozie: testFuture
    d = _fs_dataset(tmp_path)
    exists = _exists(d)
    assert callable(exists)
    (tmp_path / "2009/09/10").mkdir(parents=True)
    (tmp_path / "2009/09/11").mkdir(parents=True)
    assert future(d, NOMINAL, 1, 20, exists) == Lookup(True, (T("2009-09-11T23:59Z"),))
    assert future(d, NOMINAL, 4, 20, exists) == Lookup(False)
    with pytest.raises(ModelError):
        future(d, NOMINAL, -1, 3, exists)
    with pytest.raises(ModelError):
        future(d, NOMINAL, 1, 0, exists)
    # the limit bounds how many instances are checked (limit + 1)
    assert future(d, NOMINAL, 0, 1, exists).instances == (T("2009-09-10T23:59Z"),)
    assert future(d, NOMINAL, 1, 1, exists) == Lookup(False)
    assert future(d, NOMINAL, 1, 2, exists).instances == (T("2009-09-11T23:59Z"),)
    # ranges come oldest first
    (tmp_path / "2009/09/13").mkdir(parents=True)
    got = future_range(d, NOMINAL, 0, 2, 10, exists)
    assert fl(list(got.instances)) == [
        "2009-09-10T23:59Z",
        "2009-09-11T23:59Z",
        "2009-09-13T23:59Z",
    ]
    # a nominal time before the initial instance resolves to nothing (Oozie's "")
    assert future(d, T("2009-08-01T00:00Z"), 0, 5, exists) == Lookup(True, ())


# --------------------------------------------------------------------------- URIs


def test_uri_uses_utc_fields_not_dataset_timezone() -> None:
    d = ds(
        1,
        HOUR,
        "2009-01-01T00:00Z",
        LA,
        uri=" hdfs://nn/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/${region} ",
    )
    t = T("2009-05-29T23:05Z")  # 16:05 PDT
    assert uri_for(d, t, {"region": "us"}) == "hdfs://nn/2009/05/29/23/05/us"
    assert uri_for(d, t) == "hdfs://nn/2009/05/29/23/05/${region}"


def test_done_path() -> None:
    assert done_path("/data/2009/01", "_SUCCESS") == "/data/2009/01/_SUCCESS"
    assert done_path("/data/2009/01", "") == "/data/2009/01"
    assert done_path("/data/2009/01", "_DONE") == "/data/2009/01/_DONE"


# --------------------------------------------------------------------------- §3.3 helpers


HOURS_IN_DAY = [
    # Oozie: testHoursInDay
    (ds(1, DAY, "2009-01-01T08:00Z"), "2009-01-01T08:00Z", 0, 24),
    (ds(1, DAY, "2009-01-01T08:00Z", LA), "2009-01-01T08:00Z", 0, 24),
    (ds(1, DAY, "2009-01-01T08:00Z", LA), "2009-01-01T08:00Z", -2, 24),
    (ds(1, DAY, "2009-01-01T08:00Z"), "2009-03-08T08:00Z", 0, 24),
    (ds(1, DAY, "2009-01-01T08:00Z", "Europe/London"), "2009-03-08T08:00Z", 0, 24),
    (ds(1, DAY, "2009-01-01T08:00Z", LA), "2009-03-08T08:00Z", 0, 23),
    (ds(1, DAY, "2009-01-01T08:00Z", LA), "2009-03-08T08:00Z", 1, 24),
    (ds(1, DAY, "2009-01-01T08:00Z", LA), "2009-11-01T08:00Z", 0, 25),
    (ds(1, DAY, "2009-01-01T08:00Z", LA, end_of=EOD), "2009-03-08T08:00Z", 0, 23),
    (ds(1, DAY, "2009-01-01T08:00Z", LA, end_of=EOD), "2009-03-08T08:00Z", 1, 24),
    (ds(1, DAY, "2009-01-01T08:00Z", LA, end_of=EOD), "2009-03-08T08:00Z", -1, 24),
    # more: the day before, steps in the dataset's unit, London's own shift, before II
    (ds(1, DAY, "2009-01-01T08:00Z", LA), "2009-03-07T08:00Z", 1, 23),
    (ds(1, DAY, "2009-01-01T08:00Z", LA), "2009-10-31T08:00Z", 1, 25),
    (ds(60, MIN, "2009-01-01T08:00Z", LA), "2009-03-07T20:00Z", 12, 23),
    (ds(1, DAY, "2009-01-01T08:00Z", "Europe/London"), "2009-03-29T08:00Z", 0, 23),
    (ds(1, DAY, "2009-01-01T08:00Z", "Europe/London"), "2009-10-25T08:00Z", 0, 25),
    (ds(1, DAY, "2009-04-01T08:00Z", LA), "2009-03-08T08:00Z", 0, -1),
    # a zone whose shifts happen at midnight
    (ds(1, DAY, "2018-01-01T03:00Z", "America/Sao_Paulo"), "2018-11-04T15:00Z", 0, 23),
    (ds(1, DAY, "2018-01-01T03:00Z", "America/Sao_Paulo"), "2019-02-16T15:00Z", 0, 25),
]


@pytest.mark.parametrize(("dataset", "nominal", "n", "expected"), HOURS_IN_DAY)
def test_hours_in_day(dataset: Dataset, nominal: str, n: int, expected: int) -> None:
    assert hours_in_day(dataset, T(nominal), n) == expected


@pytest.mark.parametrize("tz", ["UTC", LA])
@pytest.mark.parametrize("end_of", [None, EOM])
def test_days_in_month(tz: str, end_of: TimeUnit | None) -> None:  # Oozie: testDaysInMonth
    d = ds(1, MONTH, "2009-01-01T00:00Z", tz, end_of=end_of)
    nt = T("2009-02-01T11:00Z")
    assert {n: days_in_month(d, nt, n) for n in (0, -1, 2, -3, 3)} == {
        0: 28,
        -1: 31,
        2: 30,
        -3: 30,
        3: 31,
    }


def test_days_in_month_leap_and_before_initial() -> None:
    d = ds(1, MONTH, "2008-01-15T00:00Z")
    assert days_in_month(d, T("2008-02-10T00:00Z"), 0) == 29
    assert days_in_month(d, T("2008-01-01T00:00Z"), 0) == -1


def test_tz_offset() -> None:  # Oozie: testTZOffset
    assert tz_offset(LA, LA, NOMINAL) == 0
    assert tz_offset(LA, "America/New_York", NOMINAL) == -180
    assert tz_offset(LA, "UTC", T("2012-06-13T00:00Z")) == -420
    assert tz_offset(LA, "UTC", T("2012-12-13T00:00Z")) == -480
    assert tz_offset("GMT+0530", "UTC", NOMINAL) == 330


# --------------------------------------------------------------------------- properties

_ZONES = st.sampled_from([LA, "Europe/London", "Asia/Kolkata", "UTC"])
_UNITS = st.sampled_from([(MIN, [5, 15, 60, 1440]), (HOUR, [1, 6]), (DAY, [1, 2, 7]), (WEEK, [1]),
                          (MONTH, [1, 3]), (YEAR, [1])])  # fmt: skip


@st.composite
def _datasets(draw: st.DrawFn) -> Dataset:
    unit, values = draw(_UNITS)
    value = draw(st.sampled_from(values))
    # day <= 28 and a wall time clear of DST shifts: a grid without drift
    day = draw(st.integers(1, 28))
    hour = draw(st.integers(4, 22))
    month = draw(st.integers(1, 12))
    year = draw(st.integers(2000, 2020))
    tz = draw(_ZONES)
    initial = datetime(year, month, day, hour, draw(st.integers(0, 59)))
    from bundletui.model.timeutil import local_to_utc

    return Dataset("p", Frequency(value, unit), local_to_utc(initial, tz), tz, "/d/${YEAR}")


@settings(max_examples=250, deadline=None)
@given(_datasets(), st.integers(0, 3 * 365 * 24 * 60))
def test_current_index_is_the_latest_instance_not_after_t(d: Dataset, minutes: int) -> None:
    t = initial_instance(d) + timedelta(minutes=minutes)
    k = current_index(d, t)
    assert k is not None and k >= 0
    assert instance_at(d, k) <= t < instance_at(d, k + 1)
    assert current(d, t, 0) == instance_at(d, k)
    assert offset(d, t, 0, MIN) == instance_at(d, k)
    rng = current_range(d, t, -3, 1)
    assert rng == [x for x in (current(d, t, n) for n in (1, 0, -1, -2, -3)) if x is not None]
