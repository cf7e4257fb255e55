"""Cron: Oozie's Quartz-flavoured coordinator frequency (oozie.md §2.2) and the local-time
cron of event schedules (docs/decisions/0002).

"Oozie:" vectors come from TestCoordCommandUtils.testGetNextValidActionTime and
TestCoordSubmitXCommand; materialization (with the DST correction) is in test_nominal.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from croniter import croniter
from hypothesis import given, settings
from hypothesis import strategies as st

from bundletui.errors import ModelError
from bundletui.model.cron import LocalCron, OozieCron, dst_correction, validate_cron_frequency
from bundletui.model.timeutil import format_oozie_time, parse_oozie_time, parse_timezone

LA = "America/Los_Angeles"
T = parse_oozie_time


def nxt(expr: str, after: str) -> str:
    got = OozieCron(expr).next_after(T(after))
    assert got is not None
    return format_oozie_time(got)


def seq(expr: str, after: str, n: int) -> list[str]:
    c, t, out = OozieCron(expr), T(after), []
    for _ in range(n):
        got = c.next_after(t)
        assert got is not None
        out.append(format_oozie_time(got))
        t = got
    return out


# --------------------------------------------------------------------------- Oozie vectors


@pytest.mark.parametrize(
    ("expr", "after", "expected"),
    [
        ("10,20 * * * *", "2013-07-18T00:15Z", "2013-07-18T00:20Z"),
        ("10/20 * * 5-7 4,5", "2013-07-18T00:15Z", "2013-07-18T00:30Z"),  # 4,5 = WED,THU
        ("20-30 * 20 5-7 4,5", "2013-07-18T00:20Z", "2013-07-18T00:21Z"),  # DOM 20 OR THU
        ("30 * 20 5-7 ?", "2013-07-18T00:20Z", "2013-07-20T00:30Z"),
        ("0 9-16 * * 2-6", "2013-07-20T00:20Z", "2013-07-22T09:00Z"),  # Sat -> Mon (2-6 = MON-FRI)
        ("0 9-16 * * 2-6", "2013-07-22T09:00Z", "2013-07-22T10:00Z"),
        ("20-30 * * 1 *", "2013-07-18T00:20Z", "2014-01-01T00:20Z"),
        ("20-30 10 * * MON,WED", "2013-07-18T00:20Z", "2013-07-22T10:20Z"),
        ("10 * * * *", "2015-07-21T12:10Z", "2015-07-21T13:10Z"),  # computeNextNominalTime
    ],
)
def test_next_valid_action_time(expr: str, after: str, expected: str) -> None:
    assert nxt(expr, after) == expected


def test_quartz_day_numbers() -> None:
    # 1=SUN .. 7=SAT: "2-6" is Monday to Friday, never the weekend
    got = seq("0 10 * * 2-6", "2009-03-06T12:00Z", 6)  # from Friday noon
    assert got == [
        "2009-03-09T10:00Z",
        "2009-03-10T10:00Z",
        "2009-03-11T10:00Z",
        "2009-03-12T10:00Z",
        "2009-03-13T10:00Z",
        "2009-03-16T10:00Z",
    ]
    assert nxt("0 0 * * 1", "2009-03-06T00:00Z") == "2009-03-08T00:00Z"  # 1 = Sunday
    assert nxt("0 0 * * 7", "2009-03-06T00:00Z") == "2009-03-07T00:00Z"  # 7 = Saturday
    assert nxt("0 0 * * sun", "2009-03-06T00:00Z") == "2009-03-08T00:00Z"  # names, any case


def test_runs_in_utc_whatever_the_job_timezone() -> None:
    # hourly across the LA spring-forward: plain UTC hours
    assert seq("0 * * * *", "2013-03-10T07:59Z", 4) == [
        "2013-03-10T08:00Z",
        "2013-03-10T09:00Z",
        "2013-03-10T10:00Z",
        "2013-03-10T11:00Z",
    ]


# --------------------------------------------------------------------------- Quartz syntax


@pytest.mark.parametrize(
    ("expr", "after", "expected"),
    [
        ("0 10 L * ?", "2009-02-01T00:00Z", ["2009-02-28T10:00Z", "2009-03-31T10:00Z", "2009-04-30T10:00Z"]),
        ("0 10 L * ?", "2008-02-01T00:00Z", ["2008-02-29T10:00Z"]),
        ("0 10 L-3 * ?", "2009-02-01T00:00Z", ["2009-02-25T10:00Z", "2009-03-28T10:00Z"]),
        # LW: last weekday (May 31 2009 is a Sunday)
        ("0 10 LW * ?", "2009-05-01T00:00Z", ["2009-05-29T10:00Z", "2009-06-30T10:00Z"]),
        # nW: nearest weekday, never leaving the month
        ("0 10 15W * ?", "2009-08-01T00:00Z", ["2009-08-14T10:00Z", "2009-09-15T10:00Z"]),  # Sat -> Fri
        ("0 10 15W * ?", "2009-11-01T00:00Z", ["2009-11-16T10:00Z"]),  # Sun -> Mon
        ("0 10 1W * ?", "2009-07-31T00:00Z", ["2009-08-03T10:00Z"]),  # Sat 1st -> Mon 3rd
        ("0 10 31W * ?", "2009-05-01T00:00Z", ["2009-05-29T10:00Z", "2009-07-31T10:00Z"]),  # Sun 31st -> Fri
        # nL: last <day> of the month; n#k: k-th <day>; L alone = Saturday
        ("0 10 ? * 6L", "2009-02-01T00:00Z", ["2009-02-27T10:00Z", "2009-03-27T10:00Z"]),
        ("0 10 ? * 6#3", "2009-02-01T00:00Z", ["2009-02-20T10:00Z", "2009-03-20T10:00Z"]),
        ("0 10 ? * MON#1", "2009-08-01T00:00Z", ["2009-08-03T10:00Z", "2009-09-07T10:00Z"]),
        ("0 10 ? * L", "2009-08-01T00:00Z", ["2009-08-01T10:00Z", "2009-08-08T10:00Z"]),
        # day-of-month OR day-of-week when both are given (Friday the 13th cron)
        ("0 0 13 * 6", "2009-02-01T00:00Z", ["2009-02-06T00:00Z", "2009-02-13T00:00Z", "2009-02-20T00:00Z"]),
        # steps: a/b starts at a; */b starts at the field minimum; 7/6 in months = July only
        ("0 0 */20 * ?", "2016-02-01T00:00Z", ["2016-02-21T00:00Z", "2016-03-01T00:00Z"]),
        ("0 0 1 7/6 ?", "2009-01-01T00:00Z", ["2009-07-01T00:00Z", "2010-07-01T00:00Z"]),
        ("5/20 * * * *", "2009-01-01T00:00Z", ["2009-01-01T00:05Z", "2009-01-01T00:25Z", "2009-01-01T00:45Z", "2009-01-01T01:05Z"]),
        # Quartz wraps backward ranges around the field
        ("0 22-1 * * *", "2009-01-01T12:00Z", ["2009-01-01T22:00Z", "2009-01-01T23:00Z", "2009-01-02T00:00Z", "2009-01-02T01:00Z", "2009-01-02T22:00Z"]),
        ("0 0 ? * FRI-MON", "2009-03-05T12:00Z", ["2009-03-06T00:00Z", "2009-03-07T00:00Z", "2009-03-08T00:00Z", "2009-03-09T00:00Z", "2009-03-13T00:00Z"]),
        ("0 0 1 NOV-FEB ?", "2009-03-01T00:00Z", ["2009-11-01T00:00Z", "2009-12-01T00:00Z", "2010-01-01T00:00Z", "2010-02-01T00:00Z", "2010-11-01T00:00Z"]),
        # leap day
        ("0 0 29 2 ?", "2009-01-01T00:00Z", ["2012-02-29T00:00Z", "2016-02-29T00:00Z"]),
    ],
)  # fmt: skip
def test_quartz_extensions(expr: str, after: str, expected: list[str]) -> None:
    assert seq(expr, after, len(expected)) == expected


def test_start_is_included_if_it_matches() -> None:
    c = OozieCron("0/15 * * 5-7 4,5")
    it = c.iter_from(T("2013-07-18T00:00Z"))
    assert [format_oozie_time(next(it)) for _ in range(2)] == [
        "2013-07-18T00:00Z",
        "2013-07-18T00:15Z",
    ]


@pytest.mark.parametrize(
    ("expr", "why"),
    [
        ("0 10 * *", "expected 5 fields"),
        ("0 10 * * * 2020", "expected 5 fields"),
        ("60 10 * * *", "minute: 60"),
        ("0 24 * * *", "hour: 24"),
        ("0 10 32 * *", "day-of-month: 32"),
        ("0 10 * 13 *", "month: 13"),
        ("0 10 * * 8", "day-of-week: 8"),
        ("0 10 * * 0", "day-of-week: 0"),  # Quartz has no 0
        ("0 10 ? * ?", "'?' can only be specified"),
        ("? 10 * * *", "'?' can only be specified"),
        ("0 10 * * MONDAY", "not a number"),
        ("0 10 * FOO *", "not a number"),
        ("0 10 1,,2 * *", "empty list element"),
        ("*/0 10 * * *", "step 0"),
        ("*/61 10 * * *", "step 61"),
        ("0 10 * * 6#6", "between 1 and 5"),
        ("0 10 15,L * ?", "'L' and 'W' cannot be combined"),
        ("0 10 L,15 * ?", "bad 'L' expression"),
        ("0 L * * *", "not allowed"),
        ("0 10 L-x * ?", "bad 'L' expression"),
    ],
)
def test_invalid_expressions(expr: str, why: str) -> None:
    with pytest.raises(ModelError) as info:
        OozieCron(expr)
    err = info.value
    assert err.code == "E1003"
    assert f"Invalid coordinator cron frequency: {expr}" in err.message
    assert err.hint is not None and why in err.hint
    assert "1=SUN..7=SAT" in err.hint


# --------------------------------------------------------------------------- submit checks


def test_validate_accepts_a_cron_that_fires_in_the_window() -> None:
    # Oozie: testBasicSubmitWithCronFrequency / testBasicSubmitWithValidFrequency
    validate_cron_frequency("0 10 * * *", T("2009-02-01T01:00Z"), T("2009-02-03T23:59Z"))
    validate_cron_frequency("0/10 1 * * *", T("2010-02-01T01:00Z"), T("2010-02-01T02:00Z"))
    # the start itself counts
    validate_cron_frequency("0 1 * * *", T("2010-02-01T01:00Z"), T("2010-02-01T01:01Z"))


def test_validate_rejects_a_cron_that_never_fires() -> None:
    for expr in ("* * 30 FEB *", "0 10 30 2 *", "0 0 31 4,6,9,11 ?"):  # Oozie: Feb 30
        with pytest.raises(ModelError) as info:
            validate_cron_frequency(expr, T("2009-02-01T01:00Z"), T("2009-02-03T23:59Z"))
        assert info.value.code == "E1003"
        assert "Invalid coordinator cron frequency" in info.value.message
        assert info.value.hint is not None and "materializes no actions" in info.value.hint


def test_validate_rejects_a_cron_outside_the_window() -> None:
    # Oozie: testBasicSubmitWithUnMaterializableFrequency
    with pytest.raises(ModelError) as info:
        validate_cron_frequency("0/10 3 * * *", T("2010-02-01T01:00Z"), T("2010-02-01T02:00Z"))
    assert info.value.code == "E1003"
    assert "materializes no actions between start and end time." in info.value.message
    # end is exclusive
    with pytest.raises(ModelError):
        validate_cron_frequency("0 2 * * *", T("2010-02-01T01:00Z"), T("2010-02-01T02:00Z"))


def test_dst_correction() -> None:
    la = parse_timezone(LA)
    winter, summer = T("2016-01-01T13:10Z"), T("2016-07-01T13:10Z")
    assert dst_correction(la, winter, summer) == timedelta(hours=-1)
    assert dst_correction(la, summer, winter) == timedelta(hours=1)
    assert dst_correction(la, winter, winter) == timedelta(0)
    assert dst_correction(la, summer, summer) == timedelta(0)
    assert dst_correction(parse_timezone("Asia/Kolkata"), winter, summer) == timedelta(0)


_SIMPLE = st.one_of(
    st.just("*"),
    st.builds(lambda a: str(a), st.integers(0, 6)),
    # (croniter mis-reads a one-day range such as "0-0", so ranges have two ends)
    st.builds(lambda a, b: f"{a}-{a + b}", st.integers(0, 5), st.integers(1, 6)).filter(
        lambda r: int(r.split("-")[1]) <= 6
    ),
)


@st.composite
def _plain_exprs(draw: st.DrawFn) -> tuple[str, str]:
    """A cron both croniter and Quartz understand: (quartz form, croniter form)."""
    minute = draw(st.sampled_from(["0", "*/15", "5,35", "10-12", "*"]))
    hour = draw(st.sampled_from(["*", "3", "0-5", "*/6", "9,17"]))
    dom = draw(st.sampled_from(["*", "1", "13", "1-10", "28,31"]))
    month = draw(st.sampled_from(["*", "2", "1-6", "*/4"]))
    dow = draw(_SIMPLE)
    if dow == "*":
        quartz_dow = "*"
    else:  # croniter counts SUN=0, Quartz SUN=1
        quartz_dow = "-".join(str(int(x) + 1) for x in dow.split("-"))
    return f"{minute} {hour} {dom} {month} {quartz_dow}", f"{minute} {hour} {dom} {month} {dow}"


@settings(max_examples=150, deadline=None)
@given(_plain_exprs(), st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1)))
def test_agrees_with_croniter_on_plain_expressions(exprs: tuple[str, str], start: datetime) -> None:
    quartz, unix = exprs
    t = start.replace(second=0, microsecond=0, tzinfo=UTC)
    ours = OozieCron(quartz)
    theirs = croniter(unix, t)
    for _ in range(5):
        got = ours.next_after(t)
        want = theirs.get_next(datetime)
        assert got == want
        assert got is not None
        t = got


# --------------------------------------------------------------------------- local cron


def la_wall(t: datetime) -> str:
    return t.astimezone(parse_timezone(LA)).strftime("%Y-%m-%d %H:%M %Z")


def firings(expr: str, start: str, end: str, tz: str = LA) -> list[str]:
    return [
        la_wall(t) if tz == LA else format_oozie_time(t)
        for t in LocalCron(expr, tz).iter_between(T(start), T(end))
    ]


def test_fall_back_wall_time_fires_once() -> None:
    # croniter fires a daily 01:30 twice on 2009-11-01 (PDT and PST); we fire the first one
    assert firings("30 1 * * *", "2009-10-31T12:00Z", "2009-11-03T12:00Z") == [
        "2009-11-01 01:30 PDT",
        "2009-11-02 01:30 PST",
        "2009-11-03 01:30 PST",
    ]
    # asked from inside the second 01:xx hour, the 01:30 of today is already gone
    after = LocalCron("30 1 * * *", LA).next_after(T("2009-11-01T09:15Z"))
    assert after is not None and la_wall(after) == "2009-11-02 01:30 PST"


def test_hourly_cron_over_fall_back_fires_each_wall_hour_once() -> None:
    assert firings("0 * * * *", "2009-11-01T06:30Z", "2009-11-01T11:30Z") == [
        "2009-11-01 00:00 PDT",
        "2009-11-01 01:00 PDT",
        "2009-11-01 02:00 PST",
        "2009-11-01 03:00 PST",
    ]


def test_spring_forward_skipped_time_fires_at_the_shift() -> None:
    assert firings("30 2 * * *", "2009-03-07T12:00Z", "2009-03-10T12:00Z") == [
        "2009-03-08 03:00 PDT",
        "2009-03-09 02:30 PDT",
        "2009-03-10 02:30 PDT",
    ]
    # several skipped wall times collapse into one firing; 03:00 itself is the same instant
    assert firings("*/15 2,3 * * *", "2009-03-08T09:00Z", "2009-03-08T11:00Z") == [
        "2009-03-08 03:00 PDT",
        "2009-03-08 03:15 PDT",
        "2009-03-08 03:30 PDT",
        "2009-03-08 03:45 PDT",
    ]


def test_local_cron_keeps_wall_time_across_dst() -> None:
    assert firings("0 9 * * 1-5", "2009-03-05T00:00Z", "2009-03-11T00:00Z") == [
        "2009-03-05 09:00 PST",
        "2009-03-06 09:00 PST",
        "2009-03-09 09:00 PDT",
        "2009-03-10 09:00 PDT",
    ]


def test_unix_day_of_week_numbering_and_vixie_rule() -> None:
    # 0 and 7 are Sunday
    assert firings("0 0 * * 0", "2009-03-01T00:00Z", "2009-03-16T00:00Z", "UTC") == [
        "2009-03-08T00:00Z",
        "2009-03-15T00:00Z",
    ]
    assert firings("0 0 * * 7", "2009-03-01T00:00Z", "2009-03-16T00:00Z", "UTC") == [
        "2009-03-08T00:00Z",
        "2009-03-15T00:00Z",
    ]
    # both restricted: either matches (the 13th or a Friday)
    assert firings("0 0 13 * fri", "2009-02-01T00:00Z", "2009-02-21T00:00Z", "UTC") == [
        "2009-02-06T00:00Z",
        "2009-02-13T00:00Z",
        "2009-02-20T00:00Z",
    ]
    # a field starting with '*' makes both required (Vixie cron)
    assert firings("0 0 */2 * 5", "2009-02-01T00:00Z", "2009-03-01T00:00Z", "UTC") == [
        "2009-02-13T00:00Z",
        "2009-02-27T00:00Z",
    ]


@pytest.mark.parametrize(
    "expr", ["0 10 L * *", "0 10 * * 5#3", "0 10 * * 8", "0 10 * *", "0 22-2 * * *"]
)
def test_local_cron_rejects_non_unix_syntax(expr: str) -> None:
    with pytest.raises(ModelError) as info:
        LocalCron(expr, LA)
    assert info.value.code == "E1003"
    assert "Invalid cron expression" in info.value.message


def test_local_cron_in_fixed_offset_zone() -> None:
    assert firings("0 9 * * *", "2009-03-07T00:00Z", "2009-03-09T00:00Z", "GMT+0530") == [
        "2009-03-07T03:30Z",
        "2009-03-08T03:30Z",
    ]


def test_local_cron_never() -> None:
    assert LocalCron("0 0 30 2 *", LA).next_after(T("2009-01-01T00:00Z")) is None


@settings(max_examples=100, deadline=None)
@given(_plain_exprs(), st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1)))
def test_local_cron_in_utc_agrees_with_croniter(exprs: tuple[str, str], start: datetime) -> None:
    _, unix = exprs
    t = start.replace(second=0, microsecond=0, tzinfo=UTC)
    ours, theirs = LocalCron(unix, "UTC"), croniter(unix, t)
    for _ in range(5):
        got = ours.next_after(t)
        assert got == theirs.get_next(datetime)
        assert got is not None
        t = got


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["30 1 * * *", "30 2 * * *", "0 * * * *", "*/20 0-3 * * *", "15 2 * * 0"]),
    st.sampled_from([LA, "Europe/London", "Australia/Lord_Howe"]),
    st.integers(2005, 2025),
    st.sampled_from([3, 4, 10, 11]),
)
def test_local_cron_never_fires_a_wall_time_twice(
    expr: str, tz: str, year: int, month: int
) -> None:
    zone = parse_timezone(tz)
    cron = LocalCron(expr, tz)
    start = datetime(year, month, 1, tzinfo=UTC)
    seen: set[datetime] = set()
    last = start
    for t in cron.iter_between(start, start + timedelta(days=40)):
        assert t > last
        last = t
        wall = t.astimezone(zone).replace(tzinfo=None)
        assert wall not in seen
        seen.add(wall)
