"""coord: EL functions of the action phases (oozie.md §3), through the real EL evaluator.

Vectors marked "Oozie" are TestCoordELFunctions / TestCoordELEvaluator's, with their fixture:
a daily America/Los_Angeles dataset with initial instance 2009-09-01T23:59Z, nominal time
2009-09-09T23:59Z, actual time 2009-09-10T23:59Z, action 00000-oozie-C@1 of
"mycoordinator-app", user test_user.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bundletui.errors import BundletuiError, SpecError
from bundletui.model.apps import Dataset
from bundletui.model.frequency import Frequency, TimeUnit
from bundletui.model.timeutil import parse_oozie_time
from bundletui.spec.coord_el import (
    SLA_CONSTANTS,
    CoordELEnv,
    InstanceCall,
    Phase,
    coord_functions,
    instance_spec_functions,
    java_format,
)
from bundletui.spec.datasets import local_exists
from bundletui.spec.el import ELContext, basic_functions, evaluate, render

T = parse_oozie_time
LA = "America/Los_Angeles"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def dataset(
    value: int = 1,
    unit: TimeUnit = TimeUnit.DAY,
    initial: str = "2009-09-01T23:59Z",
    tz: str = LA,
    *,
    end_of: TimeUnit | None = None,
    uri: str = "hdfs://localhost:9000/user/test/US/${YEAR}/${MONTH}/${DAY}",
    flag: str = "",
) -> Dataset:
    return Dataset("test", Frequency(value, unit, end_of), T(initial), tz, uri, flag)


def oozie_env(**overrides: Any) -> CoordELEnv:
    """TestCoordELFunctions.init()."""
    values: dict[str, Any] = {
        "nominal": T("2009-09-09T23:59Z"),
        "actual": T("2009-09-10T23:59Z"),
        "coord_timezone": LA,
        "dataset": dataset(),
        "coord_id": "00000-oozie-C",
        "action_id": "00000-oozie-C@1",
        "app_name": "mycoordinator-app",
        "user": "test_user",
        "conf": {"user.name": "test_user", "my.test.variable": "test"},
    }
    values.update(overrides)
    return CoordELEnv(**values)


def ev(expr: str, env: CoordELEnv, phase: Phase = Phase.START) -> Any:
    ctx = ELContext(
        dict(SLA_CONSTANTS),
        {**basic_functions(lambda: NOW), **coord_functions(env, phase)},
    )
    return evaluate(expr, ctx)


def rv(expr: str, env: CoordELEnv, phase: Phase = Phase.START) -> str:
    ctx = ELContext(
        dict(SLA_CONSTANTS),
        {**basic_functions(lambda: NOW), **coord_functions(env, phase)},
    )
    return render(expr, ctx)


def mkdirs(root: Path, *days: str) -> None:
    """Oozie's createDir: ``mkdir -p dir/_SUCCESS``."""
    for d in days:
        (root / d / "_SUCCESS").mkdir(parents=True)


# --------------------------------------------------------------------------- instance functions


def test_current_oozie_init() -> None:
    assert rv("${coord:current(-1)}", oozie_env()) == "2009-09-08T23:59Z"


@pytest.mark.parametrize(
    ("nominal", "ds", "expected"),
    [
        (  # Oozie: daily LA dataset
            "2009-05-30T00:45Z",
            dataset(1, TimeUnit.DAY, "2009-01-02T00:00Z", LA),
            "2009-05-29T23:00Z 2009-05-30T23:00Z 2009-05-28T23:00Z 2009-05-26T23:00Z",
        ),
        (  # Oozie: 30-minute dataset
            "2009-05-30T00:45Z",
            dataset(30, TimeUnit.MINUTE, "2009-01-08T00:00Z", LA),
            "2009-05-30T00:30Z 2009-05-30T01:00Z 2009-05-30T00:00Z 2009-05-29T23:00Z",
        ),
        (  # Oozie: daily UTC
            "2009-05-30T00:00Z",
            dataset(1, TimeUnit.DAY, "2009-01-02T00:00Z", "UTC"),
            "2009-05-30T00:00Z 2009-05-31T00:00Z 2009-05-29T00:00Z 2009-05-27T00:00Z",
        ),
        (  # Oozie: every 7 days
            "2009-05-30T00:00Z",
            dataset(7, TimeUnit.DAY, "2009-01-08T00:00Z", "UTC"),
            "2009-05-28T00:00Z 2009-06-04T00:00Z 2009-05-21T00:00Z 2009-05-07T00:00Z",
        ),
    ],
)
def test_current_vectors(nominal: str, ds: Dataset, expected: str) -> None:
    expr = "${coord:current(0)} ${coord:current(1)} ${coord:current(-1)} ${coord:current(-3)}"
    assert rv(expr, oozie_env(nominal=T(nominal), dataset=ds)) == expected


def test_current_across_dst_in_los_angeles() -> None:
    expr = " ".join(f"${{coord:current({n})}}" for n in (-2, -1, 0, 1, 2))
    spring = oozie_env(
        nominal=T("2009-03-08T10:45Z"), dataset=dataset(1, TimeUnit.DAY, "2009-03-06T10:00Z", LA)
    )
    assert rv(expr, spring) == (
        "2009-03-06T10:00Z 2009-03-07T10:00Z 2009-03-08T09:00Z 2009-03-09T09:00Z 2009-03-10T09:00Z"
    )
    fall = oozie_env(
        nominal=T("2009-11-01T08:00Z"), dataset=dataset(1, TimeUnit.DAY, "2009-10-30T08:00Z", LA)
    )
    assert rv(expr, fall) == (
        "2009-10-30T08:00Z 2009-10-31T08:00Z 2009-11-01T08:00Z 2009-11-02T09:00Z 2009-11-03T09:00Z"
    )


@pytest.mark.parametrize(
    ("tz", "initial", "nominal", "c0", "c1"),
    [  # Oozie: end-of-day datasets, "from the specification" cases 1-8
        ("UTC", "2009-01-01T08:00Z", "2009-01-01T08:00Z", "", ""),
        (LA, "2009-01-01T08:00Z", "2009-01-01T08:00Z", "", ""),
        (LA, "2009-01-01T07:01Z", "2009-01-01T08:01Z", "2009-01-01T08:00Z", "2009-01-02T08:00Z"),
        (LA, "2009-01-01T7:00Z", "2009-01-01T18:00Z", "2009-01-01T08:00Z", "2009-01-02T08:00Z"),
        (LA, "2009-03-07T07:00Z", "2009-03-07T09:00Z", "2009-03-07T08:00Z", "2009-03-08T08:00Z"),
        (LA, "2009-03-08T07:00Z", "2009-03-08T08:00Z", "2009-03-08T08:00Z", "2009-03-09T07:00Z"),
        (LA, "2009-03-09T07:00Z", "2009-03-10T08:01Z", "2009-03-10T07:00Z", "2009-03-11T07:00Z"),
    ],
)
def test_current_end_of_day(tz: str, initial: str, nominal: str, c0: str, c1: str) -> None:
    ds = dataset(1, TimeUnit.DAY, initial, tz, end_of=TimeUnit.END_OF_DAY)
    env = oozie_env(nominal=T(nominal), dataset=ds)
    assert rv("${coord:current(0)}", env) == c0
    assert rv("${coord:current(1)}", env) == c1


@pytest.mark.parametrize(
    ("freq", "tz", "initial", "nominal", "c0", "c1"),
    [  # Oozie: end-of-month datasets, cases 1-7
        (
            1,
            "UTC",
            "2009-01-01T00:00Z",
            "2009-02-01T00:00Z",
            "2009-02-01T00:00Z",
            "2009-03-01T00:00Z",
        ),
        (
            1,
            "UTC",
            "2009-01-01T08:00Z",
            "2009-02-01T08:00Z",
            "2009-02-01T00:00Z",
            "2009-03-01T00:00Z",
        ),
        (
            1,
            "UTC",
            "2009-01-31T08:00Z",
            "2009-02-01T08:00Z",
            "2009-02-01T00:00Z",
            "2009-03-01T00:00Z",
        ),
        (1, LA, "2009-01-01T08:00Z", "2009-02-01T08:00Z", "2009-02-01T08:00Z", "2009-03-01T08:00Z"),
        (1, LA, "2009-02-02T08:00Z", "2009-03-02T08:00Z", "2009-03-01T08:00Z", "2009-04-01T07:00Z"),
        (1, LA, "2009-02-01T08:00Z", "2009-03-01T08:00Z", "2009-03-01T08:00Z", "2009-04-01T07:00Z"),
        (3, LA, "2009-02-01T08:00Z", "2009-03-01T08:00Z", "2009-03-01T08:00Z", "2009-06-01T07:00Z"),
    ],
)
def test_current_end_of_month(
    freq: int, tz: str, initial: str, nominal: str, c0: str, c1: str
) -> None:
    ds = dataset(freq, TimeUnit.MONTH, initial, tz, end_of=TimeUnit.END_OF_MONTH)
    env = oozie_env(nominal=T(nominal), dataset=ds)
    assert rv("${coord:current(0)}", env) == c0
    assert rv("${coord:current(1)}", env) == c1


def test_current_before_the_initial_instance_is_empty() -> None:
    env = oozie_env(nominal=T("2009-09-02T23:59Z"))
    assert rv("${coord:current(-1)}", env) == "2009-09-01T23:59Z"
    assert rv("${coord:current(-2)}", env) == ""
    assert rv("[${coord:current(-5)}]", env) == "[]"
    assert rv("${coord:current(0)}", oozie_env(nominal=T("2009-08-01T00:00Z"))) == ""


def test_offset_oozie_vectors() -> None:
    env = oozie_env()
    for expr in ('-1440, "MINUTE"', '-24, "HOUR"', '-1, "DAY"'):
        assert rv(f"${{coord:offset({expr})}}", env) == "2009-09-08T23:59Z"
    assert rv('${coord:offset(1, "MONTH")}', env) == "2009-10-09T23:59Z"
    assert rv('${coord:offset(1, "YEAR")}', env) == "2010-09-09T23:59Z"
    assert rv('${coord:offset(-10, "DAY")}', env) == ""


def test_offset_minute_dataset_oozie_vectors() -> None:
    env = oozie_env(
        nominal=T("2015-01-02T00:45Z"),
        dataset=dataset(1, TimeUnit.MINUTE, "2010-01-02T00:01Z", LA),
    )

    def four(unit: str, *ns: int) -> str:
        return rv(" ".join(f'${{coord:offset({n}, "{unit}")}}' for n in ns), env)

    assert four("MINUTE", 0, 1, -1, -3) == (
        "2015-01-02T00:45Z 2015-01-02T00:46Z 2015-01-02T00:44Z 2015-01-02T00:42Z"
    )
    assert four("HOUR", 0, 1, -1, -3) == (
        "2015-01-02T00:45Z 2015-01-02T01:45Z 2015-01-01T23:45Z 2015-01-01T21:45Z"
    )
    assert four("DAY", 0, 1, -1, -3) == (
        "2015-01-02T00:45Z 2015-01-03T00:45Z 2015-01-01T00:45Z 2014-12-30T00:45Z"
    )
    assert four("MONTH", 0, 1, -1, -3) == (
        "2015-01-02T00:45Z 2015-02-02T00:45Z 2014-12-02T00:45Z 2014-10-01T23:45Z"
    )
    assert four("YEAR", 0, 1, -1, -3) == (
        "2015-01-02T00:45Z 2016-01-02T00:45Z 2014-01-02T00:45Z 2012-01-02T00:45Z"
    )


def test_offset_rewinds_to_the_grid() -> None:
    # Oozie: a 4-hour dataset; offsets that are not multiples of the frequency rewind
    env = oozie_env(
        nominal=T("2015-01-02T00:45Z"),
        dataset=dataset(240, TimeUnit.MINUTE, "2010-01-02T00:01Z", LA),
    )
    assert rv('${coord:offset(5, "MINUTE")}', env) == "2015-01-02T00:01Z"
    assert rv('${coord:offset(1, "HOUR")}', env) == "2015-01-02T00:01Z"
    assert rv('${coord:offset(7, "HOUR")}', env) == "2015-01-02T04:01Z"
    assert rv('${coord:offset(-2, "HOUR")}', env) == "2015-01-01T20:01Z"
    assert rv('${coord:offset(-43825, "HOUR")}', env) == ""


def test_offset_rejects_units_that_are_not_time_units() -> None:
    with pytest.raises(SpecError) as info:
        rv('${coord:offset(1, "blah")}', oozie_env())
    assert info.value.code == "E1004"
    with pytest.raises(SpecError):
        rv('${coord:offset(1, "day")}', oozie_env())


def test_ranges_are_newest_first() -> None:
    env = oozie_env()
    assert rv("${coord:currentRange(-2, 0)}", env) == (
        "2009-09-09T23:59Z,2009-09-08T23:59Z,2009-09-07T23:59Z"
    )
    # instances before the initial instance are dropped
    early = oozie_env(nominal=T("2009-09-02T23:59Z"))
    assert rv("${coord:currentRange(-3, 0)}", early) == "2009-09-02T23:59Z,2009-09-01T23:59Z"


def test_absolute_and_end_of_functions() -> None:
    env = oozie_env(dataset=dataset(1, TimeUnit.DAY, "2009-09-01T00:00Z", "UTC"))
    assert rv('${coord:absolute("2009-09-05T00:00Z")}', env) == "2009-09-05T00:00Z"
    assert rv('${coord:absoluteRange("2009-09-07T00:00Z", -1)}', env) == (
        "2009-09-08T00:00Z,2009-09-07T00:00Z"
    )
    with pytest.raises(BundletuiError) as info:
        rv('${coord:absolute("2009-09-05T01:00Z")}', env)
    assert info.value.code == "E1010" and "not in phase" in info.value.message
    with pytest.raises(BundletuiError) as info:
        rv('${coord:absolute("2009-08-05T00:00Z")}', env)
    assert info.value.code == "E1010"
    # nominal 2009-09-09T23:59Z, UTC: start of the current day/week/month + (n+1)
    assert rv("${coord:endOfDays(-1)}", env) == "2009-09-09T00:00Z"
    assert rv("${coord:endOfWeeks(-1)}", env) == "2009-09-06T00:00Z"  # Sunday
    assert rv("${coord:endOfMonths(-1)}", env) == "2009-09-01T00:00Z"
    assert rv("${coord:endOfMonths(0)}", env) == "2009-10-01T00:00Z"


def test_instance_functions_need_a_dataset() -> None:
    with pytest.raises(SpecError) as info:
        rv("${coord:current(0)}", oozie_env(dataset=None))
    assert info.value.code == "E1004"
    assert "needs a dataset" in info.value.message


def test_instance_output_uri() -> None:
    env = oozie_env(instance_output="uri")
    assert rv("${coord:current(-1)}", env) == "hdfs://localhost:9000/user/test/US/2009/09/08"
    assert rv("${coord:currentRange(-1, 0)}", env) == (
        "hdfs://localhost:9000/user/test/US/2009/09/09,hdfs://localhost:9000/user/test/US/2009/09/08"
    )


# --------------------------------------------------------------------------- latest / future


def test_latest_oozie_vectors(tmp_path: Path) -> None:
    env = oozie_env(
        dataset=dataset(uri=f"file://{tmp_path}/${{YEAR}}/${{MONTH}}/${{DAY}}"),
        exists=local_exists,
    )
    mkdirs(tmp_path, "2009/09/10")
    assert rv("${coord:latest(0)}", env) == "2009-09-10T23:59Z"
    mkdirs(tmp_path, "2009/09/09")
    assert rv("${coord:latest(-1)}", env) == "2009-09-09T23:59Z"
    mkdirs(tmp_path, "2009/09/08")
    assert rv("${coord:latest(-2)}", env) == "2009-09-08T23:59Z"
    assert rv("${coord:latest(-100)}", env) == "${coord:latest(-100)}"
    with pytest.raises(SpecError) as info:
        rv("${coord:latest(1)}", env)
    assert info.value.code == "E1004"


def test_future_oozie_vectors(tmp_path: Path) -> None:
    env = oozie_env(
        dataset=dataset(uri=f"file://{tmp_path}/${{YEAR}}/${{MONTH}}/${{DAY}}"),
        exists=local_exists,
    )
    mkdirs(tmp_path, "2009/09/10", "2009/09/11")
    assert rv("${coord:future(1, 20)}", env) == "2009-09-11T23:59Z"
    assert rv("${coord:future(4, 20)}", env) == "${coord:future(4, 20)}"
    with pytest.raises(SpecError):
        rv("${coord:future(-1, 3)}", env)
    with pytest.raises(SpecError):
        rv("${coord:future(0, 0)}", env)


def test_lazy_evaluator_oozie_vector(tmp_path: Path) -> None:
    """TestCoordELEvaluator.testCreateLazyEvaluator."""
    ds = dataset(1440, TimeUnit.MINUTE, "2009-01-01T00:00Z", "UTC")
    ds = Dataset(
        ds.name,
        ds.frequency,
        ds.initial_instance,
        "UTC",
        f"file://{tmp_path}/${{YEAR}}/${{MONTH}}/${{DAY}}",
        "_SUCCESS",
    )
    env = oozie_env(
        nominal=T("2009-09-01T00:00Z"),
        actual=T("2009-09-01T01:00Z"),
        dataset=ds,
        exists=local_exists,
    )
    mkdirs(tmp_path, "2009/01/02")
    assert rv("${coord:latest(0)} ${coord:latest(-1)}", env) == (
        "2009-01-02T00:00Z ${coord:latest(-1)}"
    )
    mkdirs(tmp_path, "2009/09/04", "2009/09/05")
    assert rv("${coord:future(1, 30)}", env) == "2009-09-05T00:00Z"


def test_latest_counts_from_the_actual_time_future_from_the_nominal(tmp_path: Path) -> None:
    ds = Dataset(
        "d",
        Frequency(1440, TimeUnit.MINUTE),
        T("2009-01-01T00:00Z"),
        "UTC",
        f"{tmp_path}/${{YEAR}}${{MONTH}}${{DAY}}",
        "",
    )
    for day in ("20090105", "20090110"):
        (tmp_path / day).mkdir()
    env = CoordELEnv(
        nominal=T("2009-01-06T00:00Z"),
        actual=T("2009-01-12T00:00Z"),
        dataset=ds,
        exists=local_exists,
    )
    assert rv("${coord:latest(0)}", env) == "2009-01-10T00:00Z"
    assert rv("${coord:future(0, 10)}", env) == "2009-01-10T00:00Z"
    env.actual = T("2009-01-08T00:00Z")
    assert rv("${coord:latest(0)}", env) == "2009-01-05T00:00Z"
    # future checks at most limit+1 instances from the current one
    assert rv("${coord:future(0, 3)}", env) == "${coord:future(0, 3)}"
    assert rv("${coord:latestRange(-1, 0)}", env) == "${coord:latestRange(-1, 0)}"
    env.actual = T("2009-01-12T00:00Z")
    assert rv("${coord:latestRange(-1, 0)}", env) == "2009-01-10T00:00Z,2009-01-05T00:00Z"
    (tmp_path / "20090111").mkdir()
    assert rv("${coord:futureRange(0, 1, 10)}", env) == "2009-01-10T00:00Z,2009-01-11T00:00Z"


# --------------------------------------------------------------------------- helpers (§3.3)


def test_hours_in_day_oozie_vectors() -> None:
    assert rv("${coord:hoursInDay(1)}", oozie_env()) == "24"

    def hid(n: int, nominal: str, tz: str, end_of: TimeUnit | None = None) -> int:
        ds = dataset(1, TimeUnit.DAY, "2009-01-01T08:00Z", tz, end_of=end_of)
        return int(ev(f"${{coord:hoursInDay({n})}}", oozie_env(nominal=T(nominal), dataset=ds)))

    assert hid(0, "2009-01-01T08:00Z", "UTC") == 24
    assert hid(0, "2009-01-01T08:00Z", LA) == 24
    assert hid(-2, "2009-01-01T08:00Z", LA) == 24
    assert hid(0, "2009-03-08T08:00Z", "UTC") == 24
    assert hid(0, "2009-03-08T08:00Z", "Europe/London") == 24
    assert hid(0, "2009-03-08T08:00Z", LA) == 23
    assert hid(1, "2009-03-08T08:00Z", LA) == 24
    assert hid(0, "2009-11-01T08:00Z", LA) == 25
    assert hid(0, "2009-03-08T08:00Z", LA, TimeUnit.END_OF_DAY) == 23
    assert hid(1, "2009-03-08T08:00Z", LA, TimeUnit.END_OF_DAY) == 24
    assert hid(-1, "2009-03-08T08:00Z", LA, TimeUnit.END_OF_DAY) == 24
    # before the initial instance
    assert hid(0, "2008-12-01T00:00Z", LA) == -1


def test_days_in_month_oozie_vectors() -> None:
    assert rv("${coord:daysInMonth(1)}", oozie_env()) == "30"
    assert rv("${coord:daysInMonth(coord:daysInMonth(1))}", oozie_env()) == "31"
    for end_of in (None, TimeUnit.END_OF_MONTH):
        ds = dataset(1, TimeUnit.MONTH, "2009-01-01T00:00Z", "UTC", end_of=end_of)
        env = oozie_env(nominal=T("2009-02-01T11:00Z"), dataset=ds)
        got = {n: ev(f"${{coord:daysInMonth({n})}}", env) for n in (0, -1, 2, -3, 3)}
        assert got == {0: 28, -1: 31, 2: 30, -3: 30, 3: 31}
        la = dataset(1, TimeUnit.MONTH, "2009-01-01T00:00Z", LA, end_of=end_of)
        assert (
            ev("${coord:daysInMonth(0)}", oozie_env(nominal=T("2009-02-01T11:00Z"), dataset=la))
            == 28
        )
    # leap year
    ds = dataset(1, TimeUnit.MONTH, "2012-01-01T00:00Z", "UTC")
    assert (
        ev("${coord:daysInMonth(0)}", oozie_env(nominal=T("2012-02-10T00:00Z"), dataset=ds)) == 29
    )


def test_tz_offset_oozie_vectors() -> None:
    assert rv("${coord:tzOffset()}", oozie_env()) == "0"
    assert rv("${coord:tzOffset()}", oozie_env(coord_timezone="America/New_York")) == "-180"
    utc_coord = oozie_env(coord_timezone="UTC")
    assert ev("${coord:tzOffset()}", utc_coord) == -420  # September: PDT
    utc_coord.nominal = T("2009-12-01T00:00Z")
    assert ev("${coord:tzOffset()}", utc_coord) == -480
    # -(-480) / 480 is 1.0: a Double coerced to Long; LA instances keep 16:59 local (PST)
    assert ev("${coord:current(-coord:tzOffset() / 480)}", utc_coord) == "2009-12-01T00:59Z"


# --------------------------------------------------------------------------- §3.4


def test_action_functions_oozie_vectors() -> None:
    env = oozie_env()
    assert rv("${coord:nominalTime()}", env) == "2009-09-09T23:59Z"
    assert rv("${coord:actualTime()}", env) == "2009-09-10T23:59Z"
    assert rv("${coord:actionId()}", env) == "00000-oozie-C@1"
    assert rv("${coord:name()}", env) == "mycoordinator-app"
    assert rv("${coord:conf('my.test.variable')}", env) == "test"
    assert rv("${coord:conf('not.there')}", env) == ""
    assert rv("${coord:user()}", env) == "test_user"
    for phase in Phase:
        assert rv("${coord:user()}", env, phase) == "test_user"
        assert rv("${coord:nominalTime()}", env, phase) == "2009-09-09T23:59Z"


def test_data_in_and_data_out() -> None:
    uris = ("file:///tmp/coord/US/2009/1/30", "file:///tmp/coord/US/2009/1/31")
    env = oozie_env(data_in={"ABC": uris, "LATE": None}, data_out={"OUT": uris[:1]})
    assert rv("${coord:dataIn('ABC')}", env) == (
        "file:///tmp/coord/US/2009/1/30,file:///tmp/coord/US/2009/1/31"
    )
    assert rv("${coord:dataIn('LATE')}", env) == "${coord:dataIn('LATE')}"  # unresolved: echoed
    assert rv("${coord:dataOut('OUT')}", env) == "file:///tmp/coord/US/2009/1/30"
    with pytest.raises(SpecError) as info:
        rv("${coord:dataIn('nope')}", env)
    assert "no data-in" in info.value.message and info.value.hint == "defined: ABC, LATE"
    with pytest.raises(SpecError):
        rv("${coord:dataOut('nope')}", env)


def test_creation_phase_echoes_start_phase_functions(tmp_path: Path) -> None:
    mkdirs(tmp_path, "2009/09/10")
    env = oozie_env(
        dataset=dataset(uri=f"file://{tmp_path}/${{YEAR}}/${{MONTH}}/${{DAY}}"),
        exists=local_exists,
        data_in={"A": ("x",)},
    )
    c = Phase.CREATION
    assert rv("${coord:latest(0)}", env, c) == "${coord:latest(0)}"
    assert rv("${coord:future(1, 10)}", env, c) == "${coord:future(1, 10)}"
    assert rv("${coord:dataIn('A')}", env, c) == "${coord:dataIn('A')}"
    assert rv("${coord:dataOut('A')}", env, c) == "${coord:dataOut('A')}"
    assert rv("${coord:current(0)}/${coord:latest(0)}", env, c) == (
        "2009-09-09T23:59Z/${coord:latest(0)}"
    )
    assert rv("${coord:latest(0)}", env) == "2009-09-10T23:59Z"  # start phase resolves


def test_sla_constants() -> None:
    assert ev("${2 * HOURS + 30 * MINUTES}", oozie_env()) == 150
    assert ev("${DAYS}", oozie_env()) == 1440


def test_instance_spec_functions_describe_calls() -> None:
    ctx = ELContext({}, instance_spec_functions())
    assert evaluate("${coord:current(-1 - 1)}", ctx) == InstanceCall("current", (-2,))
    assert evaluate("${coord:futureRange(0, 2, 10)}", ctx) == InstanceCall(
        "futureRange", (0, 2, 10)
    )
    call = evaluate('${coord:offset(-2, "DAY")}', ctx)
    assert call == InstanceCall("offset", (-2, "DAY"))
    assert str(call) == "${coord:offset(-2, 'DAY')}"


# --------------------------------------------------------------------------- date functions


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ('"2009-09-08T23:59Z", 2, "DAY"', "2009-09-10T23:59Z"),  # Oozie
        ('"2009-09-08T23:59Z", -1, "DAY"', "2009-09-07T23:59Z"),  # Oozie
        ('"2009-09-08T23:59Z", 1, "YEAR"', "2010-09-08T23:59Z"),  # Oozie
        ('"2009-09-08T23:59Z", -1, "MONTH"', "2009-08-08T23:59Z"),
        ('"2009-09-08T23:59Z", 2, "HOUR"', "2009-09-09T01:59Z"),
        ('"2009-09-08T23:59Z", 2, "MINUTE"', "2009-09-09T00:01Z"),
        ('"2009-09-08T23:59Z", 1, "WEEK"', "2009-09-15T23:59Z"),
        ('"2009-01-31T10:00Z", 1, "MONTH"', "2009-02-28T10:00Z"),  # month end clamps
        ('"2012-02-29T00:00Z", 1, "YEAR"', "2013-02-28T00:00Z"),  # leap day
        ('"2012-02-29T00:00Z", 4, "YEAR"', "2016-02-29T00:00Z"),
        ('"2009-03-08T01:00Z", 1, "DAY"', "2009-03-09T01:00Z"),  # UTC: no DST
    ],
)
def test_date_offset(args: str, expected: str) -> None:
    assert rv(f"${{coord:dateOffset({args})}}", oozie_env()) == expected


def test_date_offset_errors() -> None:
    for bad in (
        '"2009-09-08T23:59Z", 1, "DAYS"',
        '"2009-09-08T23:59Z", 1, "CRON"',
        '"2009-09-08", 1, "DAY"',
    ):
        with pytest.raises(SpecError) as info:
            rv(f"${{coord:dateOffset({bad})}}", oozie_env())
        assert info.value.code == "E1004"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ('"2012-06-13T00:00Z", "America/Los_Angeles"', "2012-06-12T17:00Z"),  # §3.4, keeps 'Z'
        ('"2012-01-13T00:00Z", "America/Los_Angeles"', "2012-01-12T16:00Z"),
        ('"2012-06-13T00:00Z", "GMT+05:30"', "2012-06-13T05:30Z"),
        ('"2012-06-13T00:00Z", "UTC"', "2012-06-13T00:00Z"),
    ],
)
def test_date_tz_offset(args: str, expected: str) -> None:
    assert rv(f"${{coord:dateTzOffset({args})}}", oozie_env()) == expected


def test_date_tz_offset_bad_timezone() -> None:
    with pytest.raises(SpecError) as info:
        rv('${coord:dateTzOffset("2012-06-13T00:00Z", "Mars/Olympus")}', oozie_env())
    assert info.value.code == "E1004"


def test_format_time_and_epoch_time_oozie_vectors() -> None:
    env = oozie_env()
    assert rv('${coord:formatTime("2009-09-08T23:59Z", "yyyy")}', env) == "2009"
    assert rv('${coord:formatTime("2009-09-08T23:59Z", "yyyyMMdd_HHmmss")}', env) == (
        "20090908_235900"
    )
    for phase in Phase:
        assert rv("${coord:formatTime(coord:nominalTime(), 'yyyy/MM/dd')}", env, phase) == (
            "2009/09/09"
        )
    assert rv('${coord:epochTime("2009-09-08T23:59Z", "false")}', env) == "1252454340"
    assert rv('${coord:epochTime("2009-09-08T23:59Z", "true")}', env) == "1252454340000"
    assert rv('${coord:epochTime("1970-01-01T00:00Z", "TRUE")}', env) == "0"


@pytest.mark.parametrize(
    ("when", "pattern", "expected"),
    [
        ("2009-09-08T23:59Z", "yyyy-MM-dd'T'HH:mm'Z'", "2009-09-08T23:59Z"),
        ("2009-09-08T23:59Z", "EEE, dd MMM yyyy HH:mm:ss z", "Tue, 08 Sep 2009 23:59:00 UTC"),
        ("2009-09-08T23:59Z", "EEEE MMMM d", "Tuesday September 8"),
        ("2009-09-08T23:59Z", "yy/M/d", "09/9/8"),
        ("2009-09-08T23:59Z", "D w W F u", "251 37 2 2 2"),
        ("2009-09-08T23:59Z", "a hh KK kk", "PM 11 11 23"),
        ("2009-09-08T00:30Z", "a h K k", "AM 12 0 24"),
        ("2009-09-08T23:59Z", "Z X XXX zzzz", "+0000 Z Z Coordinated Universal Time"),
        ("2009-09-08T23:59Z", "SSS S G", "000 0 AD"),
        ("2009-09-08T23:59Z", "'o''clock' ''", "o'clock '"),
        ("2008-12-31T12:00Z", "Y-w yyyy", "2009-1 2008"),  # week of the next year
        ("2012-02-29T12:00Z", "yyyyMMdd D", "20120229 60"),  # leap day
        ("2009-09-08T23:59Z", "yyyy.MM.dd G 'at' HH:mm:ss", "2009.09.08 AD at 23:59:00"),
    ],
)
def test_java_simple_date_format(when: str, pattern: str, expected: str) -> None:
    assert java_format(T(when), pattern) == expected


def test_java_format_rejects_unquoted_letters() -> None:
    with pytest.raises(SpecError) as info:
        java_format(T("2009-09-08T23:59Z"), "yyyy-MM-ddTHH")
    assert "Illegal pattern character 'T'" in info.value.message
    with pytest.raises(SpecError):
        java_format(T("2009-09-08T23:59Z"), "'unterminated")


def test_functions_coerce_arguments_and_check_arity() -> None:
    env = oozie_env()
    assert rv("${coord:current('-1')}", env) == "2009-09-08T23:59Z"  # JSP: "-1" -> Long
    with pytest.raises(SpecError) as info:
        rv("${coord:current(0, 1)}", env)
    assert "expects 1 argument, got 2" in info.value.message
    with pytest.raises(SpecError) as info:
        rv("${coord:current('x')}", env)
    assert info.value.code == "E1004"


@settings(max_examples=300, deadline=None)
@given(
    when=st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2100, 12, 31)),
    tokens=st.lists(
        st.tuples(st.sampled_from(sorted("GyYMLwWDdFEuaHkKhmsSzZX")), st.integers(1, 5)),
        min_size=1,
        max_size=6,
    ),
)
def test_java_format_fast_path_matches_field_by_field(
    when: datetime, tokens: list[tuple[str, int]]
) -> None:
    from bundletui.spec.coord_el import _field

    t = when.replace(tzinfo=UTC)
    pattern = "-".join(c * n for c, n in tokens)
    assert java_format(t, pattern) == "-".join(_field(t, c, n) for c, n in tokens)
