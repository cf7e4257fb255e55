"""Oozie's time semantics as pure functions (oozie.md §0.1, §0.2, §2.1, §2.5).

Everything here takes and returns aware UTC ``datetime`` values; timezones only decide how
calendar fields are read and written. The arithmetic copies Java's ``GregorianCalendar.add``
(what Oozie uses) rather than Python's, because the two disagree on DST days:

* MINUTE / HOUR add exact elapsed time;
* DAY / WEEK keep the local wall-clock time, with Java's gap/overlap correction;
* MONTH / YEAR set local fields, clamp the day, then read the wall time the way Java does
  (a skipped wall time uses the pre-transition offset, a repeated one the later instant).

No function reads the wall clock.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bundletui.errors import TEMPLATES, ModelError
from bundletui.model.clock import to_ms
from bundletui.model.frequency import Frequency, TimeUnit, end_flag

__all__ = [
    "MAX_TIMEOUT_MINUTES",
    "UTC",
    "DateOutOfRange",
    "TzLike",
    "add",
    "calendar_unit",
    "days_in_month",
    "effective_start",
    "format_oozie_time",
    "format_rfc822",
    "frequency_to_minutes",
    "is_dst",
    "iter_nominal_times",
    "local_to_utc",
    "month_length_at",
    "move_to_end",
    "nominal_time",
    "normalize_timezone_id",
    "parse_oozie_time",
    "parse_timezone",
    "start_of_day",
    "start_of_week",
    "timeout_minutes",
    "to_minutes",
    "wall_clock",
]

TzLike = tzinfo | str


class DateOutOfRange(ModelError, OverflowError):
    """Calendar arithmetic past year 9999: an E1004 error where it is reported, and an
    ``OverflowError`` like Python's own ``datetime`` overflow where it is caught."""


OOZIE_MASK = "yyyy-MM-dd'T'HH:mm'Z'"
_TIME_HINT = (
    "write times as yyyy-MM-ddTHH:mmZ in UTC (e.g. 2009-08-10T13:10Z) or with a GMT offset "
    "(e.g. 2009-08-10T06:10-0700)"
)
_TZ_HINT = (
    "use a Java/IANA zone id (America/Los_Angeles), UTC, GMT, or a fixed offset such as "
    "GMT+05:30 or GMT-0700"
)

# Java's trim() drops every char <= U+0020; Python's strip() would also eat Unicode spaces.
_JAVA_TRIM = "".join(chr(i) for i in range(33))
_TIME_RE = re.compile(r"([0-9]+)-([0-9]+)-([0-9]+)T([0-9]+):([0-9]+)(Z|[+-][0-9]{4})")


# --------------------------------------------------------------------------- parsing


class TimeError(ModelError):
    """A time that does not parse; ``detail`` is what is wrong with it, without the name
    of the value (a command names it its own way: an option, not an XML attribute)."""

    def __init__(self, message: str, detail: str, hint: str) -> None:
        super().__init__("E1003", message, hint=hint)
        self.detail = detail


def _time_error(what: str, text: str, detail: str, why: str | None = None) -> TimeError:
    hint = _TIME_HINT if why is None else f"{why}; {_TIME_HINT}"
    message = TEMPLATES["E1003"].format(f"{what} [{text}]: {detail}")
    return TimeError(message, detail, hint)


def option_time(text: str, option: str) -> datetime:
    """A command-line option's time: a bad one is an invalid parameter (E0302) naming the
    option, not the coordinator attribute error (E1003) an XML attribute gets."""
    try:
        return parse_oozie_time(text, what=option)
    except TimeError as exc:
        raise ModelError.from_template(
            "E0302", f"{option} {text}: {exc.detail}", hint=exc.hint, usage=True
        ) from None


def parse_oozie_time(text: str, *, what: str = "datetime") -> datetime:
    """Parse ``yyyy-MM-ddTHH:mmZ`` (or ``...+HHMM``) as strictly as Oozie; return aware UTC.

    Like Java's non-lenient SimpleDateFormat: the input is trimmed, numeric fields may have
    any number of digits (``T7:00`` and ``T010:00`` parse) but must be in range, and text
    after a valid time is rejected. Unlike Oozie, ``T24:00`` is accepted (the spec allows
    it) and means 00:00 of the next day. ``what`` names the value in the error message.
    """
    s = text.strip(_JAVA_TRIM)
    m = _TIME_RE.match(s)
    if m is None:
        raise _time_error(what, s, f"Could not parse [{s}] using [{OOZIE_MASK}] mask")
    if m.end() != len(s):
        raise _time_error(
            what,
            s,
            f"Correct datetime string is followed by invalid characters: {s}",
            f"unexpected {s[m.end() :]!r} after the time",
        )
    year, month, day, hour, minute = (int(g) for g in m.groups()[:5])
    why = _field_problem(year, month, day, hour, minute)
    if why is not None:
        raise _time_error(what, s, f"Could not parse [{s}] using [{OOZIE_MASK}] mask", why)
    next_day = hour == 24
    local = datetime(year, month, day, 0 if next_day else hour, minute)
    if next_day:
        local += timedelta(days=1)
    zone = m.group(6)
    if zone == "Z":
        return local.replace(tzinfo=UTC)
    sign = -1 if zone[0] == "-" else 1
    oh, om = int(zone[1:3]), int(zone[3:5])
    if oh > 23 or om > 59:
        raise _time_error(
            what, s, f"Could not parse [{s}] using [{OOZIE_MASK}] mask", f"bad offset {zone}"
        )
    offset = sign * timedelta(hours=oh, minutes=om)
    try:
        return (local - offset).replace(tzinfo=UTC)
    except OverflowError:  # 0001-01-01T00:00+0100 is in the year 0 in UTC
        edge = "before year 1" if sign > 0 else "after year 9999"
        raise _time_error(
            what, s, f"Could not parse [{s}] using [{OOZIE_MASK}] mask", f"it is {edge} in UTC"
        ) from None


def _field_problem(year: int, month: int, day: int, hour: int, minute: int) -> str | None:
    if not 1 <= year <= 9999:
        return f"year {year} is out of range"
    if not 1 <= month <= 12:
        return f"month {month} is out of range 1-12"
    last = calendar.monthrange(year, month)[1]
    if not 1 <= day <= last:
        return f"day {day} is out of range 1-{last} for {year:04d}-{month:02d}"
    if hour == 24 and minute == 0:
        if (year, month, day) == (9999, 12, 31):
            return "24:00 on 9999-12-31 is out of range"
        return None
    if not 0 <= hour <= 23:
        return f"hour {hour} is out of range 0-23 (24:00 is allowed)"
    if not 0 <= minute <= 59:
        return f"minute {minute} is out of range 0-59"
    return None


def format_oozie_time(dt: datetime) -> str:
    """``yyyy-MM-ddTHH:mmZ`` in UTC (seconds dropped, never ``24:00``)."""
    u = _utc(dt)
    return f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}Z"


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def format_rfc822(dt: datetime, tz: TzLike = "GMT") -> str:
    """Oozie's REST date form ``EEE, dd MMM yyyy HH:mm:ss zzz``: ``Fri, 01 Jan 2010 01:00:00 GMT``."""
    zone = _tz(tz)
    local, years = in_zone(_utc(dt), zone)
    if zone is UTC:
        name = tz if tz in ("UTC", "GMT") else "GMT"
    elif isinstance(zone, timezone):
        name = _gmt_name(local.utcoffset() or timedelta(0))
    else:
        name = local.tzname() or "GMT"
    return (
        f"{_DAYS[local.weekday()]}, {local.day:02d} {_MONTHS[local.month - 1]} "
        f"{local.year + years:04d} {local.hour:02d}:{local.minute:02d}:{local.second:02d} {name}"
    )


_RFC822_YEAR = re.compile(r"[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} (\d{4}) ")


def parse_rfc822(text: str) -> datetime:
    """A time :func:`format_rfc822` wrote, back. ``email.utils`` reads a year below 100 as
    two digits (``0001`` as 2001); the four digits written are the year. Raises ValueError
    or TypeError for text that is no such time."""
    from email.utils import parsedate_to_datetime

    dt = parsedate_to_datetime(text)
    m = _RFC822_YEAR.match(text)
    if m and int(m.group(1)) != dt.year and int(m.group(1)) >= 1:
        dt = dt.replace(year=int(m.group(1)))  # leap years agree: y and 1900+y or 2000+y
    return dt


def year_first(dt: datetime, *, seconds: bool = False) -> str:
    """``2024-01-01 05:00`` (``:00`` more with ``seconds``), the year in four digits: the C
    library's ``%Y`` writes year 1 as ``1``."""
    return f"{dt.year:04d}-{dt:%m-%d %H:%M}" + (f":{dt:%S}" if seconds else "")


# 400 Gregorian years: the same weekdays, leap days and (far ahead) zone rules
_CYCLE = timedelta(days=146_097)


def in_zone(dt: datetime, zone: tzinfo | None) -> tuple[datetime, int]:
    """``dt`` in ``zone`` (None: this machine's), and the years to add to its year. A time
    late in 9999 is in the year 10000 east of GMT, which ``datetime`` cannot hold: it is
    given 400 years earlier, as Java prints it (``Sat, 01 Jan 10000 08:59:00 JST``); one
    early in year 1 is in the year 0 west of it: given 400 years later."""
    try:
        return dt.astimezone(zone), 0
    except OverflowError:
        if dt.year > 1:
            return (dt - _CYCLE).astimezone(zone), 400
        return (dt + _CYCLE).astimezone(zone), -400


# an RFC 822 time as the commands' JSON gives it inside a sentence ("held by time-window until
# Sun, 22 Nov 2026 08:00:00 GMT; …"): the faces write it in their own short form
RFC822_IN_TEXT = re.compile(
    r"\b[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} "
    r"(?:[A-Za-z]{1,6}(?:[+-]\d{1,2}(?::?\d{2})?)?|[+-]\d{4})(?![\w:+-])"
)


# --------------------------------------------------------------------------- timezones

# Java's old three-letter ids (ZoneId.SHORT_IDS): EST/MST/HST are fixed offsets, the rest
# are aliases of region zones. "BST" is Dhaka and "IST" Kolkata, as in Java.
_JAVA_SHORT_IDS: dict[str, str] = {
    "ACT": "Australia/Darwin",
    "AET": "Australia/Sydney",
    "AGT": "America/Argentina/Buenos_Aires",
    "ART": "Africa/Cairo",
    "AST": "America/Anchorage",
    "BET": "America/Sao_Paulo",
    "BST": "Asia/Dhaka",
    "CAT": "Africa/Harare",
    "CNT": "America/St_Johns",
    "CST": "America/Chicago",
    "CTT": "Asia/Shanghai",
    "EAT": "Africa/Addis_Ababa",
    "ECT": "Europe/Paris",
    "IET": "America/Indiana/Indianapolis",
    "IST": "Asia/Kolkata",
    "JST": "Asia/Tokyo",
    "MIT": "Pacific/Apia",
    "NET": "Asia/Yerevan",
    "NST": "Pacific/Auckland",
    "PLT": "Asia/Karachi",
    "PNT": "America/Phoenix",
    "PRT": "America/Puerto_Rico",
    "PST": "America/Los_Angeles",
    "SST": "Pacific/Guadalcanal",
    "VST": "Asia/Ho_Chi_Minh",
}
_JAVA_FIXED_IDS = {"EST": -5, "MST": -7, "HST": -10}
_GMT_NO_COLON = re.compile(r"GMT([+-])([0-9]{2})([0-9]{2})")
_GMT_COLON = re.compile(r"GMT([+-])([0-9]{2}):([0-9]{2})")
_NOT_JAVA = ("posix/", "right/")


def _gmt_name(off: timedelta) -> str:
    total = int(off.total_seconds()) // 60
    sign = "-" if total < 0 else "+"
    h, m = divmod(abs(total), 60)
    return f"GMT{sign}{h:02d}:{m:02d}"


def normalize_timezone_id(tzid: str) -> str:
    """Validate a timezone id the way Oozie does and return its canonical spelling.

    ``GMT+0530`` becomes ``GMT+05:30``; anything Java would not round-trip is an error.
    """
    _resolve_timezone(tzid)
    m = _GMT_NO_COLON.fullmatch(tzid)
    if m:
        return f"GMT{m.group(1)}{m.group(2)}:{m.group(3)}"
    return tzid


def parse_timezone(tzid: str) -> tzinfo:
    """The tzinfo for a Java timezone id: zone ids, ``UTC``, ``GMT``, ``GMT±hh:mm``,
    ``GMT±hhmm`` and Java's three-letter ids (``PST``, ``IST``...). Unknown ids raise
    ``ModelError`` "Invalid TimeZone"."""
    return _resolve_timezone(tzid)


@lru_cache(maxsize=512)
def _resolve_timezone(tzid: str) -> tzinfo:
    if not isinstance(tzid, str) or not tzid:
        raise _tz_error(str(tzid))
    if tzid in ("UTC", "GMT"):
        return UTC
    m = _GMT_NO_COLON.fullmatch(tzid) or _GMT_COLON.fullmatch(tzid)
    if m:
        hours, minutes = int(m.group(2)), int(m.group(3))
        # Java rejects hours > 23 / minutes > 59, and "GMT+00:00" comes back as "GMT".
        if hours > 23 or minutes > 59 or hours == minutes == 0:
            raise _tz_error(tzid)
        sign = -1 if m.group(1) == "-" else 1
        off = sign * timedelta(hours=hours, minutes=minutes)
        return timezone(off, _gmt_name(off))
    if tzid in _JAVA_FIXED_IDS:
        return timezone(timedelta(hours=_JAVA_FIXED_IDS[tzid]), tzid)
    key = _JAVA_SHORT_IDS.get(tzid, tzid)
    if key.startswith(_NOT_JAVA) or key in ("localtime", "posixrules", "Factory"):
        raise _tz_error(tzid)
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise _tz_error(tzid) from None


def _tz_error(tzid: str) -> ModelError:
    err = ModelError.from_template("E1003", f"Invalid TimeZone: {tzid}", hint=_TZ_HINT)
    assert isinstance(err, ModelError)
    return err


def _tz(tz: TzLike) -> tzinfo:
    return _resolve_timezone(tz) if isinstance(tz, str) else tz


def _utc(dt: datetime) -> datetime:
    if dt.tzinfo is None:
        raise ValueError(f"naive datetime {dt!r}: model times must be aware UTC")
    return dt if dt.tzinfo is UTC else dt.astimezone(UTC)


# --------------------------------------------------------------------------- wall clock


def wall_clock(t: datetime, tz: TzLike) -> datetime:
    """The naive local wall-clock time of ``t`` in ``tz``."""
    return _utc(t).astimezone(_tz(tz)).replace(tzinfo=None)


def local_to_utc(local: datetime, tz: TzLike) -> datetime:
    """Read a naive wall time in ``tz`` the way Java's Calendar does when fields are set.

    A wall time skipped by a forward shift uses the offset before the shift (02:30 on the
    spring-forward day becomes 03:30 DST); a wall time that occurs twice is the later
    instant (standard time after a fall-back).
    """
    zone = _tz(tz)
    if isinstance(zone, timezone):
        return (local - (zone.utcoffset(None))).replace(tzinfo=UTC)
    naive = local.replace(tzinfo=None)
    first = naive.replace(tzinfo=zone).utcoffset()
    second = naive.replace(tzinfo=zone, fold=1).utcoffset()
    assert first is not None and second is not None
    off = second if first > second else first
    return (naive - off).replace(tzinfo=UTC)


def first_instant(wall: datetime, tz: TzLike) -> datetime:
    """The instant a naive wall time first reads in ``tz``, for event schedules' cron and time
    windows: a time that occurs twice (fall-back) is its first occurrence; one skipped by a
    forward shift is the shift instant itself (02:30 on a 02:00->03:00 day is 03:00 local),
    so nothing set for the skipped hour waits a day."""
    zone = _tz(tz)
    first = wall.replace(tzinfo=zone).utcoffset()
    second = wall.replace(tzinfo=zone, fold=1).utcoffset()
    assert first is not None and second is not None
    if first >= second:  # normal, or repeated: the first (earlier) instant
        return (wall - first).replace(tzinfo=UTC)
    # Skipped: the transition lies between wall-as-old-offset and wall-as-new-offset;
    # find the first instant whose local time is at or after the wall time.
    lo = (wall - second).replace(tzinfo=UTC)  # local time still before the shift
    hi = (wall - first).replace(tzinfo=UTC)  # local time after the shift
    while hi - lo > timedelta(seconds=1):
        mid = (lo + (hi - lo) / 2).replace(microsecond=0)
        if mid.astimezone(zone).replace(tzinfo=None) >= wall:
            hi = mid
        else:
            lo = mid
    return hi


def is_dst(t: datetime, tz: TzLike) -> bool:
    """Java's ``TimeZone.inDaylightTime``."""
    d = _utc(t).astimezone(_tz(tz)).dst()
    return bool(d)


def days_in_month(year: int, month: int) -> int:
    return calendar.monthrange(year, month)[1]


def start_of_day(t: datetime, tz: TzLike) -> datetime:
    """00:00 local of ``t``'s local date (Java ``set(HOUR_OF_DAY, 0)`` semantics)."""
    zone = _tz(tz)
    d = wall_clock(t, zone).date()
    return local_to_utc(datetime(d.year, d.month, d.day), zone)


def start_of_week(t: datetime, tz: TzLike) -> datetime:
    """00:00 local of the Sunday on or before ``t``'s local date (US first day of week)."""
    zone = _tz(tz)
    d = wall_clock(t, zone).date()
    d -= timedelta(days=(d.weekday() + 1) % 7)
    return local_to_utc(datetime(d.year, d.month, d.day), zone)


# --------------------------------------------------------------------------- arithmetic

_CALENDAR_UNIT = {
    TimeUnit.MINUTE: TimeUnit.MINUTE,
    TimeUnit.HOUR: TimeUnit.HOUR,
    TimeUnit.DAY: TimeUnit.DAY,
    TimeUnit.WEEK: TimeUnit.WEEK,
    TimeUnit.MONTH: TimeUnit.MONTH,
    TimeUnit.YEAR: TimeUnit.YEAR,
    TimeUnit.END_OF_DAY: TimeUnit.DAY,
    TimeUnit.END_OF_WEEK: TimeUnit.WEEK,
    TimeUnit.END_OF_MONTH: TimeUnit.MONTH,
}


def calendar_unit(unit: TimeUnit) -> TimeUnit:
    """The Calendar field a unit adds to (END_OF_DAY adds days, as in Oozie's TimeUnit)."""
    try:
        return _CALENDAR_UNIT[unit]
    except KeyError:
        err = ModelError.from_template(
            "E1004",
            f"time unit {unit} cannot be added to a date",
            hint="use MINUTE, HOUR, DAY, WEEK, MONTH or YEAR",
        )
        raise err from None


def add(t: datetime, n: int, unit: TimeUnit, tz: TzLike) -> datetime:
    """Java ``GregorianCalendar.add(unit, n)`` on ``t`` in ``tz`` (oozie.md §0.2)."""
    t = _utc(t)
    u = calendar_unit(unit)
    if n == 0:
        return t
    if u is TimeUnit.MINUTE:
        return t + timedelta(minutes=n)
    if u is TimeUnit.HOUR:
        return t + timedelta(hours=n)
    zone = _tz(tz)
    if u is TimeUnit.DAY or u is TimeUnit.WEEK:
        days = n * 7 if u is TimeUnit.WEEK else n
        if isinstance(zone, timezone):
            return t + timedelta(days=days)
        return _add_days(t, days, zone)
    months = n * 12 if u is TimeUnit.YEAR else n
    return _add_months(t, months, zone)


def _add_days(t: datetime, days: int, zone: tzinfo) -> datetime:
    local = t.astimezone(zone)
    old = local.utcoffset()
    assert old is not None
    target = local.replace(tzinfo=None) + timedelta(days=days)
    t1 = (target - old).replace(tzinfo=UTC)
    new = t1.astimezone(zone).utcoffset()
    if new == old:
        return t1
    assert new is not None
    t2 = t1 + (old - new)
    if t2.astimezone(zone).date() != target.date():
        return t1
    return t2


def _add_months(t: datetime, months: int, zone: tzinfo) -> datetime:
    local = t.astimezone(zone).replace(tzinfo=None)
    idx = local.year * 12 + (local.month - 1) + months
    year, month0 = divmod(idx, 12)
    if not 1 <= year <= 9999:
        raise DateOutOfRange.from_template("E1004", f"date out of range adding {months} months")
    day = min(local.day, days_in_month(year, month0 + 1))
    return local_to_utc(local.replace(year=year, month=month0 + 1, day=day), zone)


def move_to_end(t: datetime, end_of: TimeUnit | None, tz: TzLike) -> datetime:
    """Oozie's ``DateUtils.moveToEnd``: the start of the next day / week / month, local time.

    END_OF_DAY: +1 day then 00:00; END_OF_WEEK: +1 week then back to Sunday 00:00;
    END_OF_MONTH: +1 month then day 1, 00:00. Anything else returns ``t`` unchanged.
    """
    zone = _tz(tz)
    if end_of is TimeUnit.END_OF_DAY:
        return start_of_day(add(t, 1, TimeUnit.DAY, zone), zone)
    if end_of is TimeUnit.END_OF_WEEK:
        return start_of_week(add(t, 1, TimeUnit.WEEK, zone), zone)
    if end_of is TimeUnit.END_OF_MONTH:
        nxt = wall_clock(add(t, 1, TimeUnit.MONTH, zone), zone)
        return local_to_utc(datetime(nxt.year, nxt.month, 1), zone)
    return _utc(t)


# --------------------------------------------------------------------------- minutes

MAX_TIMEOUT_MINUTES = 86400  # oozie.service.coord.default.max.timeout (60 days)

_MINUTES_PER = {
    TimeUnit.MINUTE: 1,
    TimeUnit.HOUR: 60,
    TimeUnit.DAY: 1440,
    TimeUnit.WEEK: 7 * 1440,
    TimeUnit.MONTH: 30 * 1440,
    TimeUnit.YEAR: 365 * 1440,
}


def to_minutes(value: int, unit: TimeUnit) -> int:
    """Fixed-length conversion used for timeouts: 1 day = 1440, 1 month = 30 days (§2.1)."""
    return value * _MINUTES_PER[calendar_unit(unit)]


def frequency_to_minutes(freq: Frequency) -> int:
    """A numeric frequency in fixed-length minutes (cron frequencies have none)."""
    if freq.is_cron:
        raise ModelError.from_template("E1003", f"cron frequency [{freq.cron}] has no length")
    return to_minutes(freq.value, freq.unit)


def timeout_minutes(
    value: int | None, unit: TimeUnit = TimeUnit.MINUTE, *, default: int = 120
) -> int:
    """Normalise a coordinator ``<timeout>`` as Oozie's submit does (§2.1).

    Empty -> ``default``; EL units converted with fixed lengths; negative or above the
    60-day maximum -> 86400 (so ``-1`` is not truly infinite, as in Oozie); 0 stays 0.
    """
    if value is None:
        return default
    minutes = to_minutes(value, unit)
    if minutes < 0 or minutes > MAX_TIMEOUT_MINUTES:
        return MAX_TIMEOUT_MINUTES
    return minutes


# --------------------------------------------------------------------------- nominal times


def effective_start(start: datetime, freq: Frequency, tz: TzLike) -> datetime:
    """The first nominal time: ``start`` moved to the end of duration for endOf* frequencies."""
    return move_to_end(start, end_flag(freq), tz)


def nominal_time(start: datetime, k: int, freq: Frequency, tz: TzLike) -> datetime:
    """Nominal time of action ``k`` (0-based): start' + k*freq, always computed from start.

    For cron frequencies this walks the cron sequence (with its DST correction).
    """
    if freq.is_cron:
        for index, when in iter_nominal_times(start, None, freq, tz):
            if index == k:
                return when
        raise ModelError.from_template("E1003", f"cron frequency [{freq.cron}] has no action {k}")
    if k < 0:
        raise ValueError("action index must be >= 0")
    base = effective_start(start, freq, tz)
    return add(base, k * freq.value, freq.unit, tz)


NONE_TOLERANCE_MS = 60_000  # oozie.coord.execution.none.tolerance (1 minute)


def skip_deadline_ms(
    execution: str,
    action_number: int,
    nominal_ms: int,
    start: datetime,
    end: datetime,
    freq: Frequency,
    tz: TzLike,
) -> int | None:
    """When a WAITING or READY action is SKIPPED if it has not started (oozie.md §2.4):
    under NONE one minute after its nominal time, under LAST_ONLY at the next action's
    nominal time (never when that is after the end); None for FIFO and LIFO. It is skipped just after
    this instant, not at it."""
    if execution == "NONE":
        return nominal_ms + NONE_TOLERANCE_MS
    if execution == "LAST_ONLY":
        # Oozie's computeNextNominalTime: no next only when it would be *after* the end; a
        # next time at the end (the usual grid-aligned end) still skips the last action
        for _idx, nominal in iter_nominal_times(start, None, freq, tz, first_index=action_number):
            return to_ms(nominal) if nominal <= end else None
    return None


def iter_nominal_times(
    start: datetime,
    end: datetime | None,
    freq: Frequency,
    tz: TzLike,
    *,
    pause: datetime | None = None,
    first_index: int = 0,
) -> Iterator[tuple[int, datetime]]:
    """Yield ``(index, nominal_time)`` from ``first_index`` on, while the time is before
    ``end`` (exclusive; ``None`` = unbounded) and before ``pause`` (exclusive).

    Numeric frequencies compute each time from start (never cumulatively); MINUTE / HOUR
    steps and DAY / WEEK steps in fixed-offset zones are plain timedelta arithmetic.

    The times end where ``datetime`` does: a nominal time past 9999-12-31 (a frequency of
    ``${coord:months(2147483647)}``, a huge number of minutes) is past any ``end`` a
    coordinator can have, so the sequence simply stops, as it does at the end.
    """
    try:
        yield from _nominal_times(start, end, freq, tz, pause, first_index)
    except OverflowError:  # DateOutOfRange too
        return


def _nominal_times(
    start: datetime,
    end: datetime | None,
    freq: Frequency,
    tz: TzLike,
    pause: datetime | None,
    first_index: int,
) -> Iterator[tuple[int, datetime]]:
    zone = _tz(tz)
    limit = end
    if pause is not None and (limit is None or pause < limit):
        limit = pause
    if freq.is_cron:
        from bundletui.model.cron import iter_cron_nominal_times

        assert freq.cron is not None
        for index, when in enumerate(iter_cron_nominal_times(freq.cron, start, limit, zone)):
            if index >= first_index:
                yield index, when
        return
    if freq.value <= 0:
        raise ModelError.from_template("E1003", f"frequency must be > 0, got {freq.value}")
    base = effective_start(start, freq, zone)
    unit = calendar_unit(freq.unit)
    step: timedelta | None = None
    try:
        if unit is TimeUnit.MINUTE:
            step = timedelta(minutes=freq.value)
        elif unit is TimeUnit.HOUR:
            step = timedelta(hours=freq.value)
        elif isinstance(zone, timezone) and unit in (TimeUnit.DAY, TimeUnit.WEEK):
            step = timedelta(days=freq.value * (7 if unit is TimeUnit.WEEK else 1))
    except OverflowError:  # a step longer than timedelta allows: only the first time fits
        step = None
    k = first_index
    if step is not None:
        when = base + step * k
        while limit is None or when < limit:
            yield k, when
            k += 1
            when += step
        return
    while True:
        when = add(base, k * freq.value, unit, zone)
        if limit is not None and when >= limit:
            return
        yield k, when
        k += 1


def month_length_at(t: datetime, tz: TzLike) -> int:
    """Days in the local month of ``t``."""
    local = wall_clock(t, tz)
    return days_in_month(local.year, local.month)
