"""Oozie datetimes, timezones and Java calendar arithmetic (oozie.md §0.1, §0.2, §2.1, §2.5).

Vectors marked "Oozie:" come from Oozie's own tests (TestDateUtils, TestCoordELFunctions,
TestCoordCommandUtils); the rest are worked through by hand from §0.2.
"""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bundletui.errors import ModelError
from bundletui.model.frequency import Frequency, TimeUnit
from bundletui.model.timeutil import (
    add,
    format_oozie_time,
    format_rfc822,
    frequency_to_minutes,
    is_dst,
    local_to_utc,
    move_to_end,
    normalize_timezone_id,
    parse_oozie_time,
    parse_timezone,
    timeout_minutes,
    to_minutes,
    wall_clock,
)

LA = "America/Los_Angeles"
T = parse_oozie_time


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def fmt(dt: datetime) -> str:
    return format_oozie_time(dt)


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2012-08-08T12:42Z", "2012-08-08T12:42Z"),  # Oozie: testOozieInUTC round trip
        ("2012-08-08T12:42-0300", "2012-08-08T15:42Z"),  # Oozie: GMT-0300 mask
        ("2012-08-08T12:42+0530", "2012-08-08T07:12Z"),
        ("2009-01-01T7:00Z", "2009-01-01T07:00Z"),  # Oozie: 1-digit hour accepted
        ("2009-03-06T010:00Z", "2009-03-06T10:00Z"),  # Oozie: TestCoordMaterialize uses it
        ("  2009-05-30T00:00Z \n", "2009-05-30T00:00Z"),  # Oozie: trailing space trimmed
        ("2009-08-10T24:00Z", "2009-08-11T00:00Z"),  # spec's 24:00 -> next day
        ("2009-12-31T24:00Z", "2010-01-01T00:00Z"),
        ("2008-02-28T24:00Z", "2008-02-29T00:00Z"),
        ("2008-02-29T23:59Z", "2008-02-29T23:59Z"),
    ],
)
def test_parse_accepts_what_oozie_accepts(text: str, expected: str) -> None:
    parsed = parse_oozie_time(text)
    assert parsed.tzinfo is UTC
    assert fmt(parsed) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2011-12-50T01:00Z", "Could not parse"),  # Oozie: December 50th (non-lenient)
        ("2009-02-29T01:00Z", "Could not parse"),  # not a leap year
        ("2009-13-01T01:00Z", "Could not parse"),
        ("2009-01-01T25:00Z", "Could not parse"),
        ("2009-01-01T24:01Z", "Could not parse"),
        ("2009-01-01T01:60Z", "Could not parse"),
        ("2009-01-01 01:00Z", "Could not parse"),
        ("2009-01-01T01:00z", "Could not parse"),
        ("2009-01-01T01:00", "Could not parse"),
        ("", "Could not parse"),
        ("2012-08-08T12:42-0300x", "followed by invalid characters"),  # Oozie
        ("2009-01-01T01:00Zgarbage", "followed by invalid characters"),
        ("2009-01-01T01:00Z 2009", "followed by invalid characters"),
        ("2012-08-08T12:42-2500", "Could not parse"),
    ],
)
def test_parse_rejects_like_oozie(text: str, fragment: str) -> None:
    with pytest.raises(ModelError) as info:
        parse_oozie_time(text, what="start")
    err = info.value
    assert err.code == "E1003"
    assert fragment in err.message
    assert "start" in err.message
    assert err.hint and "yyyy-MM-ddTHH:mmZ" in err.hint


def test_parse_error_names_the_field_problem() -> None:
    with pytest.raises(ModelError) as info:
        parse_oozie_time("2011-12-50T01:00Z")
    assert info.value.hint is not None and "day 50" in info.value.hint


def test_format_never_emits_24_00_and_drops_seconds() -> None:
    assert fmt(utc("2009-08-11T00:00:59")) == "2009-08-11T00:00Z"
    la = datetime(2009, 3, 8, 1, 0, tzinfo=parse_timezone(LA))
    assert fmt(la) == "2009-03-08T09:00Z"


def test_format_rejects_naive() -> None:
    with pytest.raises(ValueError):
        fmt(datetime(2009, 1, 1))


def test_rfc822() -> None:
    assert format_rfc822(T("2010-01-01T01:00Z")) == "Fri, 01 Jan 2010 01:00:00 GMT"
    assert format_rfc822(T("2010-01-01T01:00Z"), "UTC") == "Fri, 01 Jan 2010 01:00:00 UTC"
    assert format_rfc822(T("2009-07-04T20:05Z"), LA) == "Sat, 04 Jul 2009 13:05:00 PDT"
    assert (
        format_rfc822(T("2009-12-04T20:05Z"), "GMT+0530") == "Sat, 05 Dec 2009 01:35:00 GMT+05:30"
    )


@given(st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(9998, 12, 31)))
def test_parse_format_round_trip(dt: datetime) -> None:
    dt = dt.replace(second=0, microsecond=0, tzinfo=UTC)
    assert parse_oozie_time(fmt(dt)) == dt


# --------------------------------------------------------------------------- timezones


def test_timezone_ids() -> None:
    la = parse_timezone(LA)
    assert datetime(2009, 7, 1, tzinfo=la).utcoffset() == timedelta(hours=-7)
    assert parse_timezone("UTC").utcoffset(None) == timedelta(0)
    assert parse_timezone("GMT").utcoffset(None) == timedelta(0)
    # Oozie: GMT-07:00 == GMT-0700 and both differ from GMT
    assert parse_timezone("GMT-07:00").utcoffset(None) == timedelta(hours=-7)
    assert parse_timezone("GMT-0700").utcoffset(None) == timedelta(hours=-7)
    assert parse_timezone("GMT+0530").utcoffset(None) == timedelta(hours=5, minutes=30)
    assert normalize_timezone_id("GMT+0530") == "GMT+05:30"
    assert normalize_timezone_id("GMT+05:30") == "GMT+05:30"
    assert normalize_timezone_id(LA) == LA


def test_java_three_letter_ids() -> None:
    summer, winter = T("2009-07-01T12:00Z"), T("2009-01-01T12:00Z")
    pst = parse_timezone("PST")  # Oozie: accepted (warning only); Java maps it to LA rules
    assert summer.astimezone(pst).utcoffset() == timedelta(hours=-7)
    assert winter.astimezone(pst).utcoffset() == timedelta(hours=-8)
    est = parse_timezone("EST")  # Java: a fixed -05:00 zone, no DST
    assert summer.astimezone(est).utcoffset() == timedelta(hours=-5)
    ist = parse_timezone("IST")  # Java: Asia/Kolkata, not Irish time
    assert summer.astimezone(ist).utcoffset() == timedelta(hours=5, minutes=30)


@pytest.mark.parametrize(
    "bad",
    [
        "US/Los Angeles",  # Oozie: testInvalidOozieTimeZone
        "xGMT-0300",  # Oozie
        "GMT-0300x",  # Oozie
        "This_is_not_a_TimeZone_id",  # Oozie
        "",
        "GMT+5:30",  # Java would respell it, so Oozie rejects it
        "GMT+2400",
        "GMT+00:00",
        "../etc/passwd",
        "posixrules",
    ],
)
def test_invalid_timezones(bad: str) -> None:
    with pytest.raises(ModelError) as info:
        parse_timezone(bad)
    assert "Invalid TimeZone" in info.value.message


def test_is_dst() -> None:
    assert is_dst(T("2009-07-01T00:00Z"), LA)
    assert not is_dst(T("2009-01-01T00:00Z"), LA)
    assert not is_dst(T("2009-07-01T00:00Z"), "UTC")


# --------------------------------------------------------------------------- §0.2 arithmetic


@pytest.mark.parametrize(
    ("start", "n", "unit", "tz", "expected"),
    [
        # MINUTE / HOUR: exact elapsed time across the spring-forward (01:00 PST -> 03:00 PDT)
        ("2009-03-08T09:00Z", 1, TimeUnit.HOUR, LA, "2009-03-08T10:00Z"),
        ("2009-03-08T09:30Z", 60, TimeUnit.MINUTE, LA, "2009-03-08T10:30Z"),
        ("2009-11-01T08:30Z", 24, TimeUnit.HOUR, LA, "2009-11-02T08:30Z"),
        # DAY keeps the wall clock: 00:00 PST + 2 days = 00:00 PDT
        ("2009-03-07T08:00Z", 1, TimeUnit.DAY, LA, "2009-03-08T08:00Z"),
        ("2009-03-07T08:00Z", 2, TimeUnit.DAY, LA, "2009-03-09T07:00Z"),
        ("2009-10-31T07:00Z", 2, TimeUnit.DAY, LA, "2009-11-02T08:00Z"),
        # DAY into the gap: 02:30 PST + 1 day lands an hour earlier, 01:30 PST (§0.2)
        ("2009-03-07T10:30Z", 1, TimeUnit.DAY, LA, "2009-03-08T09:30Z"),
        # ...and the next day is back at 02:30 (PDT)
        ("2009-03-07T10:30Z", 2, TimeUnit.DAY, LA, "2009-03-09T09:30Z"),
        # DAY into the overlap keeps the old offset: first 01:30 (PDT)
        ("2009-10-31T08:30Z", 1, TimeUnit.DAY, LA, "2009-11-01T08:30Z"),
        # ...coming from the other side keeps PST: the second 01:30
        ("2009-11-02T09:30Z", -1, TimeUnit.DAY, LA, "2009-11-01T09:30Z"),
        # WEEK = 7 days, same rules (Sunday 02:00 PST + 1 week hits the gap)
        ("2009-03-01T10:00Z", 1, TimeUnit.WEEK, LA, "2009-03-08T09:00Z"),
        ("2009-03-01T08:00Z", 1, TimeUnit.WEEK, LA, "2009-03-08T08:00Z"),
        ("2009-03-01T08:00Z", 2, TimeUnit.WEEK, LA, "2009-03-15T07:00Z"),
        # MONTH clamps the day; always relative to the argument
        ("2009-01-31T00:00Z", 1, TimeUnit.MONTH, "UTC", "2009-02-28T00:00Z"),
        ("2008-01-31T00:00Z", 1, TimeUnit.MONTH, "UTC", "2008-02-29T00:00Z"),
        ("2009-01-31T00:00Z", 2, TimeUnit.MONTH, "UTC", "2009-03-31T00:00Z"),
        ("2009-03-31T00:00Z", -1, TimeUnit.MONTH, "UTC", "2009-02-28T00:00Z"),
        ("2009-05-31T00:00Z", 1, TimeUnit.MONTH, "UTC", "2009-06-30T00:00Z"),
        ("2009-12-15T00:00Z", 1, TimeUnit.MONTH, "UTC", "2010-01-15T00:00Z"),
        ("2009-01-15T00:00Z", -13, TimeUnit.MONTH, "UTC", "2007-12-15T00:00Z"),
        # YEAR: Feb 29 + 1 year = Feb 28, + 4 years = Feb 29
        ("2008-02-29T12:00Z", 1, TimeUnit.YEAR, "UTC", "2009-02-28T12:00Z"),
        ("2008-02-29T12:00Z", 4, TimeUnit.YEAR, "UTC", "2012-02-29T12:00Z"),
        ("2008-02-29T12:00Z", -1, TimeUnit.YEAR, "UTC", "2007-02-28T12:00Z"),
        # MONTH keeps the wall clock across DST (00:00 PST -> 00:00 PDT)
        ("2009-02-01T08:00Z", 2, TimeUnit.MONTH, LA, "2009-04-01T07:00Z"),
        # MONTH into the gap: 02:30 on the spring-forward day reads as 03:30 PDT
        ("2009-02-08T10:30Z", 1, TimeUnit.MONTH, LA, "2009-03-08T10:30Z"),
        # MONTH into the overlap: 01:30 on the fall-back day is the later (PST) one
        ("2009-10-01T08:30Z", 1, TimeUnit.MONTH, LA, "2009-11-01T09:30Z"),
        # Oozie: coord:dateOffset (processing tz UTC)
        ("2009-09-08T23:59Z", 2, TimeUnit.DAY, "UTC", "2009-09-10T23:59Z"),
        ("2009-09-08T23:59Z", -1, TimeUnit.DAY, "UTC", "2009-09-07T23:59Z"),
        ("2009-09-08T23:59Z", 1, TimeUnit.YEAR, "UTC", "2010-09-08T23:59Z"),
        # END_OF_* units add like their base unit (Oozie's TimeUnit.getCalendarUnit)
        ("2009-01-31T00:00Z", 1, TimeUnit.END_OF_MONTH, "UTC", "2009-02-28T00:00Z"),
        ("2009-03-07T08:00Z", 2, TimeUnit.END_OF_DAY, LA, "2009-03-09T07:00Z"),
        # a zone that shifted at midnight: 00:00 does not exist on 2018-11-04 in Sao Paulo;
        # one hour earlier would change the date, so Java keeps 01:00 (-02)
        ("2018-11-03T03:00Z", 1, TimeUnit.DAY, "America/Sao_Paulo", "2018-11-04T03:00Z"),
        ("2018-11-03T03:00Z", 2, TimeUnit.DAY, "America/Sao_Paulo", "2018-11-05T02:00Z"),
        # fixed-offset zones never shift
        ("2009-03-07T08:00Z", 2, TimeUnit.DAY, "GMT-0800", "2009-03-09T08:00Z"),
        ("2009-01-31T08:00Z", 1, TimeUnit.MONTH, "GMT-0800", "2009-02-28T08:00Z"),
    ],
)
def test_add_follows_java_calendar(
    start: str, n: int, unit: TimeUnit, tz: str, expected: str
) -> None:
    assert fmt(add(T(start), n, unit, tz)) == expected


def test_add_rejects_units_without_calendar_field() -> None:
    with pytest.raises(ModelError) as info:
        add(T("2009-01-01T00:00Z"), 1, TimeUnit.CRON, "UTC")
    assert info.value.code == "E1004"


def test_local_to_utc_standard_time_interpretation() -> None:
    la = parse_timezone(LA)
    assert fmt(local_to_utc(datetime(2009, 3, 8, 2, 30), la)) == "2009-03-08T10:30Z"  # gap
    assert fmt(local_to_utc(datetime(2009, 11, 1, 1, 30), la)) == "2009-11-01T09:30Z"  # overlap
    assert fmt(local_to_utc(datetime(2009, 11, 1, 0, 30), la)) == "2009-11-01T07:30Z"
    fixed = timezone(timedelta(hours=5, minutes=30))
    assert fmt(local_to_utc(datetime(2009, 1, 1, 5, 30), fixed)) == "2009-01-01T00:00Z"


_DAY_ZONES = st.sampled_from(
    [LA, "Europe/London", "Australia/Lord_Howe", "America/Sao_Paulo", "Asia/Kolkata", "UTC"]
)


@settings(max_examples=400)
@given(
    st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2035, 1, 1)),
    st.integers(min_value=-800, max_value=800),
    _DAY_ZONES,
)
def test_day_add_keeps_wall_time_unless_it_is_skipped(dt: datetime, n: int, tz: str) -> None:
    zone = parse_timezone(tz)
    t = dt.replace(second=0, microsecond=0, tzinfo=UTC)
    got = add(t, n, TimeUnit.DAY, zone)
    want = wall_clock(t, zone) + timedelta(days=n)
    off0 = want.replace(tzinfo=zone).utcoffset()
    off1 = want.replace(tzinfo=zone, fold=1).utcoffset()
    assert off0 is not None and off1 is not None
    if off0 >= off1:  # the wall time exists (maybe twice): it is kept exactly
        assert wall_clock(got, zone) == want
    else:  # skipped by a forward shift: off by the size of the shift, either way
        assert abs(wall_clock(got, zone) - want) == off1 - off0


@given(
    st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2035, 1, 1)),
    st.integers(min_value=-10_000, max_value=10_000),
)
def test_minute_and_hour_are_exact(dt: datetime, n: int) -> None:
    t = dt.replace(tzinfo=UTC)
    assert add(t, n, TimeUnit.MINUTE, LA) == t + timedelta(minutes=n)
    assert add(t, n, TimeUnit.HOUR, LA) == t + timedelta(hours=n)


@given(
    st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 1, 1)),
    st.integers(min_value=-1200, max_value=1200),
)
def test_month_add_clamps_the_day(d: date, n: int) -> None:
    t = datetime(d.year, d.month, d.day, 12, tzinfo=UTC)
    got = add(t, n, TimeUnit.MONTH, "UTC")
    year, month0 = divmod(d.year * 12 + d.month - 1 + n, 12)
    assert (got.year, got.month) == (year, month0 + 1)
    assert got.day == min(d.day, calendar.monthrange(year, month0 + 1)[1])
    assert got.time() == t.time()


# --------------------------------------------------------------------------- end of duration


@pytest.mark.parametrize(
    ("start", "flag", "tz", "expected"),
    [
        # Oozie: TestCoordELFunctions (initial instances moved to the end of day / month)
        ("2009-01-02T09:00Z", TimeUnit.END_OF_DAY, "UTC", "2009-01-03T00:00Z"),
        ("2009-01-01T08:00Z", TimeUnit.END_OF_DAY, "UTC", "2009-01-02T00:00Z"),
        ("2009-01-01T07:01Z", TimeUnit.END_OF_DAY, LA, "2009-01-01T08:00Z"),
        ("2009-01-01T07:00Z", TimeUnit.END_OF_DAY, LA, "2009-01-01T08:00Z"),
        ("2009-03-07T07:00Z", TimeUnit.END_OF_DAY, LA, "2009-03-07T08:00Z"),
        ("2009-03-08T07:00Z", TimeUnit.END_OF_DAY, LA, "2009-03-08T08:00Z"),
        ("2009-03-09T07:00Z", TimeUnit.END_OF_DAY, LA, "2009-03-10T07:00Z"),
        ("2009-01-01T00:00Z", TimeUnit.END_OF_MONTH, "UTC", "2009-02-01T00:00Z"),
        ("2009-01-31T08:00Z", TimeUnit.END_OF_MONTH, "UTC", "2009-02-01T00:00Z"),
        ("2009-01-01T08:00Z", TimeUnit.END_OF_MONTH, LA, "2009-02-01T08:00Z"),
        ("2009-02-02T08:00Z", TimeUnit.END_OF_MONTH, LA, "2009-03-01T08:00Z"),
        ("2009-02-01T08:00Z", TimeUnit.END_OF_MONTH, LA, "2009-03-01T08:00Z"),
        ("2009-03-15T08:00Z", TimeUnit.END_OF_MONTH, LA, "2009-04-01T07:00Z"),
        # end of week: next Sunday 00:00 (US first day of week)
        ("2016-02-03T01:00Z", TimeUnit.END_OF_WEEK, "UTC", "2016-02-07T00:00Z"),  # Oozie
        ("2009-08-20T01:00Z", TimeUnit.END_OF_WEEK, "UTC", "2009-08-23T00:00Z"),
        ("2009-08-23T00:00Z", TimeUnit.END_OF_WEEK, "UTC", "2009-08-30T00:00Z"),
        ("2009-08-22T23:59Z", TimeUnit.END_OF_WEEK, "UTC", "2009-08-23T00:00Z"),
        ("2009-03-05T12:00Z", TimeUnit.END_OF_WEEK, LA, "2009-03-08T08:00Z"),
        ("2009-03-09T12:00Z", TimeUnit.END_OF_WEEK, LA, "2009-03-15T07:00Z"),
        # "set field" to a midnight that does not exist reads it with the old offset (01:00 -02)
        ("2018-11-03T15:00Z", TimeUnit.END_OF_DAY, "America/Sao_Paulo", "2018-11-04T03:00Z"),
        ("2018-10-15T15:00Z", TimeUnit.END_OF_MONTH, "America/Sao_Paulo", "2018-11-01T03:00Z"),
        # no flag: unchanged
        ("2009-03-09T12:34Z", None, LA, "2009-03-09T12:34Z"),
        ("2009-03-09T12:34Z", TimeUnit.NONE, LA, "2009-03-09T12:34Z"),
    ],
)
def test_move_to_end(start: str, flag: TimeUnit | None, tz: str, expected: str) -> None:
    assert fmt(move_to_end(T(start), flag, tz)) == expected


# --------------------------------------------------------------------------- minutes / timeout


def test_fixed_length_minutes() -> None:
    assert to_minutes(1, TimeUnit.DAY) == 1440
    assert to_minutes(1, TimeUnit.MONTH) == 30 * 1440
    assert to_minutes(2, TimeUnit.HOUR) == 120
    assert frequency_to_minutes(Frequency(60, TimeUnit.MINUTE)) == 60  # coord:hours(1)
    assert frequency_to_minutes(Frequency(1, TimeUnit.DAY, TimeUnit.END_OF_DAY)) == 1440
    with pytest.raises(ModelError):
        frequency_to_minutes(Frequency(0, TimeUnit.CRON, cron="0 * * * *"))


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [
        (None, TimeUnit.MINUTE, 120),
        (0, TimeUnit.MINUTE, 0),
        (10, TimeUnit.MINUTE, 10),
        (-1, TimeUnit.MINUTE, 86400),  # -1 is stored as the 60-day maximum
        (86401, TimeUnit.MINUTE, 86400),
        (2, TimeUnit.DAY, 2880),
        (1, TimeUnit.MONTH, 43200),
        (3, TimeUnit.MONTH, 86400),
    ],
)
def test_timeout_normalisation(value: int | None, unit: TimeUnit, expected: int) -> None:
    assert timeout_minutes(value, unit) == expected


def test_a_time_late_in_9999_east_of_gmt_is_in_the_year_10000() -> None:
    """QA (aj): ``9999-12-31T23:59Z`` (a "forever" end) shown in Asia/Tokyo overflowed
    Python's dates: a traceback in ``oozie job -info -timezone``, a 500 from the API. Java
    prints the year 10000."""
    from bundletui.cli.oozie.format import java_date, mask_date
    from bundletui.cli.oozie.front import _zone
    from bundletui.model.timeutil import format_rfc822

    end = datetime(9999, 12, 31, 23, 59, tzinfo=UTC)
    assert format_rfc822(end, "Asia/Tokyo") == "Sat, 01 Jan 10000 08:59:00 JST"
    assert format_rfc822(end, "IST") == "Sat, 01 Jan 10000 05:29:00 IST"
    assert format_rfc822(end, "America/New_York") == "Fri, 31 Dec 9999 18:59:00 EST"
    rfc = format_rfc822(end)
    assert mask_date(rfc, _zone("Asia/Tokyo")) == "10000-01-01 08:59 JST"
    assert java_date(rfc, _zone("Asia/Tokyo")) == "Sat Jan 01 08:59:00 JST 10000"


@pytest.mark.parametrize(
    ("text", "edge"),
    [("0001-01-01T00:00+0100", "before year 1"), ("9999-12-31T23:59-0100", "after year 9999")],
)
def test_an_offset_across_the_years_datetime_holds_is_a_parse_error(text: str, edge: str) -> None:
    """QA (bad input): Python's OverflowError came out of the parse, as "a number given is out
    of range" on the command line and an HTTP 500 from the API."""
    with pytest.raises(ModelError) as info:
        parse_oozie_time(text, what="start")
    assert info.value.code == "E1003" and "start" in info.value.message
    assert info.value.hint is not None and f"it is {edge} in UTC" in info.value.hint
