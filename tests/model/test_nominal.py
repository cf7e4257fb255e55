"""Nominal times of coordinator actions (oozie.md §2.5, §2.2).

"Oozie:" vectors come from TestCoordMaterializeTransitionXCommand and
TestCoordCommandUtils.testComputeNextNominalTime (coordinator timezone America/Los_Angeles
unless the test says otherwise).
"""

from __future__ import annotations

import itertools
import time
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bundletui.errors import ModelError
from bundletui.model.frequency import Frequency, TimeUnit
from bundletui.model.timeutil import (
    format_oozie_time,
    iter_nominal_times,
    local_to_utc,
    nominal_time,
    parse_oozie_time,
    parse_timezone,
    wall_clock,
)

LA = "America/Los_Angeles"
T = parse_oozie_time
MIN, HOUR, DAY, WEEK, MONTH = (
    TimeUnit.MINUTE,
    TimeUnit.HOUR,
    TimeUnit.DAY,
    TimeUnit.WEEK,
    TimeUnit.MONTH,
)


def cron(expr: str) -> Frequency:
    return Frequency(0, TimeUnit.CRON, cron=expr)


def times(
    start: str, end: str, freq: Frequency, tz: str = LA, pause: str | None = None
) -> list[str]:
    return [
        format_oozie_time(t)
        for _, t in iter_nominal_times(
            T(start), T(end), freq, tz, pause=None if pause is None else T(pause)
        )
    ]


def la(*walls: str) -> list[str]:
    """LA wall times (yyyy-mm-ddTHH:MM) as UTC Oozie times, like Oozie's convertLATimeToUTC."""
    return [format_oozie_time(local_to_utc(datetime.fromisoformat(w), LA)) for w in walls]


# --------------------------------------------------------------------------- numeric frequencies


def test_minutes_end_exclusive() -> None:  # Oozie: §2.5 example (start 00:00, end 01:00, 20 min)
    assert times("2013-07-18T00:00Z", "2013-07-18T01:00Z", Frequency(20, MIN)) == [
        "2013-07-18T00:00Z",
        "2013-07-18T00:20Z",
        "2013-07-18T00:40Z",
    ]


def test_pause_is_exclusive() -> None:  # Oozie: testActionMaterWithPauseTime1/2
    f5 = Frequency(5, MIN)
    assert times("2009-03-06T10:00Z", "2009-03-06T10:14Z", f5, pause="2009-03-06T10:04Z") == [
        "2009-03-06T10:00Z"
    ]
    assert times("2009-03-06T10:00Z", "2009-03-06T10:14Z", f5, pause="2009-03-06T10:08Z") == [
        "2009-03-06T10:00Z",
        "2009-03-06T10:05Z",
    ]
    assert times("2009-03-06T10:00Z", "2009-03-06T10:14Z", f5, pause="2009-03-06T10:05Z") == [
        "2009-03-06T10:00Z"
    ]
    assert len(times("2009-03-06T10:00Z", "2009-03-06T10:14Z", f5)) == 3  # Oozie: testGetDryrun


def test_compute_next_nominal_time() -> None:  # Oozie: testComputeNextNominalTime
    # every 10 hours: action @5 at 23T06:00, next (index 5) at 23T16:00
    f = Frequency(10, HOUR)
    start = T("2015-07-21T14:00Z")
    assert format_oozie_time(nominal_time(start, 4, f, LA)) == "2015-07-23T06:00Z"
    assert format_oozie_time(nominal_time(start, 5, f, LA)) == "2015-07-23T16:00Z"
    # every 10 days at the end of the day: local midnight, -0700 in summer
    f = Frequency(10, DAY, TimeUnit.END_OF_DAY)
    assert format_oozie_time(nominal_time(start, 4, f, LA)) == "2015-08-31T07:00Z"
    assert format_oozie_time(nominal_time(start, 5, f, LA)) == "2015-09-10T07:00Z"
    # cron "10 * * * *": action @5 at 12:10, next 13:10
    f = cron("10 * * * *")
    start = T("2015-07-21T08:00Z")
    assert format_oozie_time(nominal_time(start, 4, f, LA)) == "2015-07-21T12:10Z"
    assert format_oozie_time(nominal_time(start, 5, f, LA)) == "2015-07-21T13:10Z"


def test_days_keep_wall_time_hours_do_not() -> None:
    # Oozie: testWhenChangingDSTELEveryTwentyFourthHour vs coord:days(1)
    assert times("2016-03-11T23:10Z", "2016-03-15T02:00Z", Frequency(24 * 60, MIN)) == la(
        "2016-03-11T15:10", "2016-03-12T15:10", "2016-03-13T16:10", "2016-03-14T16:10"
    )
    assert times("2016-03-11T23:10Z", "2016-03-15T02:00Z", Frequency(1, DAY)) == la(
        "2016-03-11T15:10", "2016-03-12T15:10", "2016-03-13T15:10", "2016-03-14T15:10"
    )


def test_days_across_fall_back_give_25_hour_day() -> None:
    got = [
        t
        for _, t in iter_nominal_times(
            T("2009-10-31T07:00Z"), T("2009-11-03T00:00Z"), Frequency(1, DAY), LA
        )
    ]
    assert [b - a for a, b in itertools.pairwise(got)] == [
        timedelta(hours=24),
        timedelta(hours=25),
    ]


def test_every_twentieth_day() -> None:  # Oozie: testWhenChangingDSTELEveryTwentiethDay
    assert times("2016-02-01T13:10Z", "2016-12-03T00:00Z", Frequency(20, DAY)) == la(
        "2016-02-01T05:10", "2016-02-21T05:10", "2016-03-12T05:10", "2016-04-01T05:10",
        "2016-04-21T05:10", "2016-05-11T05:10", "2016-05-31T05:10", "2016-06-20T05:10",
        "2016-07-10T05:10", "2016-07-30T05:10", "2016-08-19T05:10", "2016-09-08T05:10",
        "2016-09-28T05:10", "2016-10-18T05:10", "2016-11-07T05:10", "2016-11-27T05:10",
    )  # fmt: skip


def test_every_twentieth_hour() -> (
    None
):  # Oozie: testWhenDST{Starts,Ends}ELFrequencyEveryTwentiethHour
    assert times("2016-03-12T13:10Z", "2016-03-16T00:00Z", Frequency(20, HOUR)) == la(
        "2016-03-12T05:10",
        "2016-03-13T01:10",
        "2016-03-13T22:10",
        "2016-03-14T18:10",
        "2016-03-15T14:10",
    )
    assert times("2016-11-04T23:10Z", "2016-11-08T22:00Z", Frequency(20, HOUR)) == la(
        "2016-11-04T16:10",
        "2016-11-05T12:10",
        "2016-11-06T07:10",
        "2016-11-07T03:10",
        "2016-11-07T23:10",
    )


def test_hourly_over_dst() -> (
    None
):  # Oozie: testWhen{Beginning,Ending}DSTCronAndELHourlyFrequenciesEqual
    assert times("2017-03-12T07:10Z", "2017-03-12T12:30Z", Frequency(1, HOUR)) == la(
        "2017-03-11T23:10", "2017-03-12T00:10", "2017-03-12T01:10",
        "2017-03-12T03:10", "2017-03-12T04:10", "2017-03-12T05:10",
    )  # fmt: skip
    assert times("2017-11-05T07:10Z", "2017-11-05T10:30Z", Frequency(60, MIN)) == [
        "2017-11-05T07:10Z",
        "2017-11-05T08:10Z",
        "2017-11-05T09:10Z",  # the second 01:10 local
        "2017-11-05T10:10Z",
    ]


def test_thirty_minutes_over_spring_forward() -> None:  # Oozie: ...EveryThirtiethMinute
    want = la(
        "2016-03-13T00:00", "2016-03-13T00:30", "2016-03-13T01:00", "2016-03-13T01:30",
        "2016-03-13T03:00", "2016-03-13T03:30", "2016-03-13T04:00", "2016-03-13T04:30",
        "2016-03-13T05:00", "2016-03-13T05:30",
    )  # fmt: skip
    # (Oozie's list names local 02:00 / 02:30, which do not exist and read as 03:00 / 03:30)
    assert times("2016-03-13T08:00Z", "2016-03-13T13:00Z", Frequency(30, MIN)) == want
    assert times("2016-03-13T08:00Z", "2016-03-13T13:00Z", cron("*/30 * * * *")) == want


def test_months_from_start_not_cumulative() -> None:
    assert times("2009-01-31T10:00Z", "2009-06-01T00:00Z", Frequency(1, MONTH), "UTC") == [
        "2009-01-31T10:00Z",
        "2009-02-28T10:00Z",
        "2009-03-31T10:00Z",  # not Mar 28: always start + k months
        "2009-04-30T10:00Z",
        "2009-05-31T10:00Z",
    ]


def test_monthly_keeps_wall_time() -> (
    None
):  # Oozie: testWhenChangingDST...Monthly / EveryThirdMonth
    assert times("2016-03-01T23:10Z", "2016-12-03T00:00Z", Frequency(1, MONTH)) == la(
        *(f"2016-{m:02d}-01T15:10" for m in range(3, 13))
    )
    assert times("2016-01-01T13:10Z", "2017-12-03T00:00Z", Frequency(3, MONTH)) == la(
        *(f"{y}-{m:02d}-01T05:10" for y in (2016, 2017) for m in (1, 4, 7, 10))
    )


def test_leap_day_yearly() -> None:
    got = times("2008-02-29T00:00Z", "2013-01-01T00:00Z", Frequency(12, MONTH), "UTC")
    assert got == [
        "2008-02-29T00:00Z",
        "2009-02-28T00:00Z",
        "2010-02-28T00:00Z",
        "2011-02-28T00:00Z",
        "2012-02-29T00:00Z",
    ]


# --------------------------------------------------------------------------- endOf* frequencies


def test_end_of_days() -> None:
    got = times("2009-03-06T15:00Z", "2009-03-11T00:00Z", Frequency(1, DAY, TimeUnit.END_OF_DAY))
    assert got == la("2009-03-07T00:00", "2009-03-08T00:00", "2009-03-09T00:00", "2009-03-10T00:00")


def test_end_of_weeks() -> None:  # Oozie: testActionMaterEndOfWeeks (UTC): 4 actions
    got = times(
        "2016-02-03T01:00Z", "2016-03-03T23:59Z", Frequency(1, WEEK, TimeUnit.END_OF_WEEK), "UTC"
    )
    assert got == [
        "2016-02-07T00:00Z",
        "2016-02-14T00:00Z",
        "2016-02-21T00:00Z",
        "2016-02-28T00:00Z",
    ]
    nxt = nominal_time(T("2016-02-03T01:00Z"), 4, Frequency(1, WEEK, TimeUnit.END_OF_WEEK), "UTC")
    assert format_oozie_time(nxt) == "2016-03-06T00:00Z"


def test_end_of_months() -> None:
    got = times(
        "2009-01-15T10:00Z", "2009-06-01T07:00Z", Frequency(1, MONTH, TimeUnit.END_OF_MONTH)
    )
    assert got == la("2009-02-01T00:00", "2009-03-01T00:00", "2009-04-01T00:00", "2009-05-01T00:00")
    # Oozie: testMaterizationEndOfMonths (start on the 1st still moves to the next month)
    got = times(
        "2009-02-01T01:00Z", "2009-05-01T00:00Z", Frequency(1, MONTH, TimeUnit.END_OF_MONTH), "UTC"
    )
    assert got == ["2009-03-01T00:00Z", "2009-04-01T00:00Z"]


def test_end_of_flag_given_as_unit() -> None:
    a = times("2009-03-06T15:00Z", "2009-03-11T00:00Z", Frequency(1, TimeUnit.END_OF_DAY))
    b = times("2009-03-06T15:00Z", "2009-03-11T00:00Z", Frequency(1, DAY, TimeUnit.END_OF_DAY))
    assert a == b


# --------------------------------------------------------------------------- cron frequencies


@pytest.mark.parametrize(
    ("expr", "expected"),
    [  # Oozie: testActionMaterWithCronFrequency1..7, start 2013-07-18T00:00Z end 01:00Z
        ("10,20 * * * *", ["2013-07-18T00:10Z", "2013-07-18T00:20Z"]),
        ("10-20 * * * *", [f"2013-07-18T00:{m}Z" for m in range(10, 21)]),
        ("0/15 2 * 5-7 4,5", []),
        ("0/15 * * 5-7 4,5", ["2013-07-18T00:00Z", "2013-07-18T00:15Z", "2013-07-18T00:30Z", "2013-07-18T00:45Z"]),
        ("20/15 * * 5-7 4,5", ["2013-07-18T00:20Z", "2013-07-18T00:35Z", "2013-07-18T00:50Z"]),
        ("20/15 * * 7,10 THU", ["2013-07-18T00:20Z", "2013-07-18T00:35Z", "2013-07-18T00:50Z"]),
    ],
)  # fmt: skip
def test_cron_materialization(expr: str, expected: list[str]) -> None:
    assert times("2013-07-18T00:00Z", "2013-07-18T01:00Z", cron(expr)) == expected


def test_hourly_cron_over_dst_is_plain_utc() -> None:  # Oozie: testActionMaterWithDST1/2
    assert times("2013-03-10T08:00Z", "2013-03-10T12:00Z", cron("0 * * * *")) == [
        "2013-03-10T08:00Z",
        "2013-03-10T09:00Z",
        "2013-03-10T10:00Z",
        "2013-03-10T11:00Z",
    ]
    assert times("2012-11-04T07:00Z", "2012-11-04T11:00Z", cron("0 * * * *")) == [
        "2012-11-04T07:00Z",
        "2012-11-04T08:00Z",
        "2012-11-04T09:00Z",
        "2012-11-04T10:00Z",
    ]


def test_daily_and_monthly_cron_keep_job_wall_time() -> None:
    # Oozie: testWhenChangingDSTCronAndEL{Daily,Monthly}FrequenciesEqual — the >=1-day
    # DST correction makes a cron match coord:days(1) / coord:months(1)
    assert times("2016-03-11T23:10Z", "2016-03-15T02:00Z", cron("10 23 * * *")) == la(
        "2016-03-11T15:10", "2016-03-12T15:10", "2016-03-13T15:10", "2016-03-14T15:10"
    )
    assert times("2016-03-01T23:10Z", "2016-12-03T00:00Z", cron("10 23 1 1-12 *")) == la(
        *(f"2016-{m:02d}-01T15:10" for m in range(3, 13))
    )
    assert times("2016-01-01T13:10Z", "2017-12-03T00:00Z", cron("10 13 1 */3 *")) == la(
        *(f"{y}-{m:02d}-01T05:10" for y in (2016, 2017) for m in (1, 4, 7, 10))
    )


def test_cron_correction_only_for_gaps_of_a_day_or_more() -> None:
    # Oozie: testWhenChangingDSTCronEveryTwentiethDay
    assert times("2016-02-01T13:10Z", "2016-12-03T00:00Z", cron("10 13 */20 2-3,11,12 *")) == la(
        "2016-02-01T05:10", "2016-02-21T05:10", "2016-03-01T05:10", "2016-03-21T05:10",
        "2016-11-01T05:10", "2016-11-21T05:10", "2016-12-01T05:10",
    )  # fmt: skip
    # Oozie: testWhenDSTStartsCronFrequencyEveryTwentiethHour (no shift: already PST/PST)
    assert times("2016-01-01T13:10Z", "2016-12-03T00:00Z", cron("10 */20 12-14 3 *")) == la(
        "2016-03-11T16:10", "2016-03-12T12:10", "2016-03-12T16:10",
        "2016-03-13T13:10", "2016-03-13T17:10", "2016-03-14T13:10",
    )  # fmt: skip
    # Oozie: testWhenDSTSEndsCronFrequencyEveryTwentiethHour (first one shifted: PST start, PDT time)
    assert times("2016-01-01T13:10Z", "2016-12-03T00:00Z", cron("10 */20 5-7 11 *")) == la(
        "2016-11-04T16:10", "2016-11-05T13:10", "2016-11-05T17:10",
        "2016-11-06T12:10", "2016-11-06T16:10", "2016-11-07T12:10",
    )  # fmt: skip


def test_cron_started_in_summer_shifts_winter_times_forward() -> None:
    # start in PDT: daily 16:00 UTC (09:00 PDT) stays 09:00 local after the fall-back
    got = times("2009-10-30T16:00Z", "2009-11-04T00:00Z", cron("0 16 * * *"))
    assert got == la(
        "2009-10-30T09:00",
        "2009-10-31T09:00",
        "2009-11-01T09:00",
        "2009-11-02T09:00",
        "2009-11-03T09:00",
    )


def test_cron_end_and_pause_are_exclusive() -> None:
    assert times("2013-07-18T00:00Z", "2013-07-18T00:20Z", cron("10,20 * * * *")) == [
        "2013-07-18T00:10Z"
    ]
    got = times(
        "2013-07-18T00:00Z", "2013-07-18T02:00Z", cron("10,20 * * * *"), pause="2013-07-18T01:10Z"
    )
    assert got == ["2013-07-18T00:10Z", "2013-07-18T00:20Z"]


# --------------------------------------------------------------------------- indices, resume, speed


def test_first_index_resumes_the_same_sequence() -> None:
    for freq in (
        Frequency(1, DAY),
        Frequency(60, MIN),
        Frequency(1, MONTH, TimeUnit.END_OF_MONTH),
        cron("0 9 * * 2-6"),
    ):
        full = list(iter_nominal_times(T("2009-01-01T00:00Z"), T("2009-12-31T00:00Z"), freq, LA))
        part = list(
            iter_nominal_times(
                T("2009-01-01T00:00Z"), T("2009-12-31T00:00Z"), freq, LA, first_index=7
            )
        )
        assert part == full[7:]
        assert [i for i, _ in full] == list(range(len(full)))


def test_unbounded_iteration() -> None:
    it = iter_nominal_times(T("2009-01-01T00:00Z"), None, Frequency(1, DAY), "UTC")
    assert [format_oozie_time(next(it)[1]) for _ in range(2)] == [
        "2009-01-01T00:00Z",
        "2009-01-02T00:00Z",
    ]


def test_bad_frequency() -> None:
    with pytest.raises(ModelError):
        list(
            iter_nominal_times(
                T("2009-01-01T00:00Z"), T("2009-01-02T00:00Z"), Frequency(0, MIN), "UTC"
            )
        )


def test_ten_years_hourly_is_fast() -> None:
    start, end = T("2010-01-01T00:00Z"), T("2020-01-01T00:00Z")
    began = time.perf_counter()
    n = sum(1 for _ in iter_nominal_times(start, end, Frequency(60, MIN), LA))
    elapsed = time.perf_counter() - began
    assert n == 87648
    assert elapsed < 0.25, elapsed
    began = time.perf_counter()
    n = sum(1 for _ in iter_nominal_times(start, end, cron("0 * * * *"), LA))
    assert n == 87648
    assert time.perf_counter() - began < 1.0


@settings(max_examples=150, deadline=None)
@given(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1)),
    st.sampled_from([Frequency(7, MIN), Frequency(3, HOUR), Frequency(1, DAY), Frequency(2, WEEK),
                     Frequency(1, MONTH), Frequency(1, DAY, TimeUnit.END_OF_DAY),
                     Frequency(1, WEEK, TimeUnit.END_OF_WEEK), Frequency(2, MONTH, TimeUnit.END_OF_MONTH)]),
    st.sampled_from([LA, "Europe/London", "Asia/Kolkata", "UTC"]),
)  # fmt: skip
def test_iterator_matches_nominal_time(dt: datetime, freq: Frequency, tz: str) -> None:
    start = dt.replace(second=0, microsecond=0, tzinfo=parse_timezone("UTC"))
    got = list(iter_nominal_times(start, start + timedelta(days=400), freq, tz))
    assert got and all(b[1] > a[1] for a, b in itertools.pairwise(got))
    for k, t in got[:: max(1, len(got) // 20)]:
        assert t == nominal_time(start, k, freq, tz)
    if freq.end_of is not None:
        # endOf* nominal times are local midnights
        assert all(wall_clock(t, tz).time() == datetime.min.time() for _, t in got if _ < 5)


# --------------------------------------------------------------------------- frequency EL values


def test_frequency_constructors_match_oozie_table() -> None:  # oozie.md §3.1
    from bundletui.model import frequency as fq

    assert fq.minutes(5) == Frequency(5, MIN)
    assert fq.hours(1) == Frequency(60, MIN)  # coord:hours(1) is 60 MINUTE
    assert fq.days(256) == Frequency(256, DAY)
    assert fq.months(7) == Frequency(7, MONTH)
    assert fq.end_of_days(3) == Frequency(3, DAY, TimeUnit.END_OF_DAY)
    assert fq.end_of_weeks(1) == Frequency(1, WEEK, TimeUnit.END_OF_WEEK)
    assert fq.end_of_months(3).json_time_unit == "END_OF_MONTH"
    assert fq.cron("0  10 *\t* 2-6").json_frequency == "0 10 * * 2-6"
    assert fq.end_flag(fq.days(1)) is None
    assert fq.end_flag(Frequency(1, TimeUnit.END_OF_DAY)) is TimeUnit.END_OF_DAY
    for bad in (0, -1):
        with pytest.raises(ModelError) as info:
            fq.days(bad)
        assert info.value.code == "E1004"
        assert "must be greater than zero" in info.value.message


@pytest.mark.parametrize("tz", ["UTC", LA, "GMT+05:30"])
@pytest.mark.parametrize(
    "freq",
    [
        Frequency(2147483647, MIN),
        Frequency(2147483647, DAY),
        Frequency(2147483647, WEEK),
        Frequency(2147483647, MONTH),
        Frequency(2147483647, DAY, end_of=TimeUnit.END_OF_DAY),
    ],
)
def test_nominal_times_end_where_the_calendar_does(freq: Frequency, tz: str) -> None:
    """Frequencies inside Java's int whose next time is past year 9999 (2147483647 minutes is
    4085 years): the sequence stops there, as at the coordinator's end, instead of raising
    OverflowError into the engine (which then left the coordinator in PREP for good)."""
    start = T("8000-01-01T00:00Z")
    got = list(iter_nominal_times(start, T("9999-12-31T00:00Z"), freq, tz))
    assert len(got) == 1 and got[0][0] == 0
    assert list(iter_nominal_times(start, None, freq, tz, first_index=1)) == []


def test_a_huge_step_from_a_recent_start_still_gives_the_times_in_range() -> None:
    freq = Frequency(2147483647, MIN)
    got = [
        format_oozie_time(t)
        for _, t in iter_nominal_times(T("2026-01-01T00:00Z"), None, freq, "UTC")
    ]
    assert got == ["2026-01-01T00:00Z", "6109-01-24T02:07Z"]
    months = Frequency(2147483647, MONTH, end_of=TimeUnit.END_OF_MONTH)
    assert times("9999-12-15T00:00Z", "9999-12-31T00:00Z", months, "UTC") == []  # start' past 9999
