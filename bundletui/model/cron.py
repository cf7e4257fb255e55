"""Cron schedules: Oozie's Quartz-flavoured coordinator frequency, and a local-time cron.

Two readings of a 5-field ``minute hour day-of-month month day-of-week`` expression:

* :class:`OozieCron` — Oozie's coordinator cron frequency (oozie.md §2.2): Quartz syntax
  (``? L W #``, names, **day-of-week 1=SUN..7=SAT**), evaluated in UTC, day-of-month and
  day-of-week combined the way Oozie splits them (one ``*`` becomes ``?``; two real values
  mean OR). :func:`iter_cron_nominal_times` adds Oozie's DST correction for gaps of at least
  a day, relative to the job start in the coordinator timezone.
* :class:`LocalCron` — a standard Unix cron (0/7=SUN) in a local timezone, for event
  schedules, with the DST policy of docs/decisions/0002: a wall time that occurs twice fires
  once (the first time), a wall time skipped by a forward shift fires at the shift instant.

Both run on one small matcher over naive wall-clock minutes. croniter is not used at run
time: it costs ~50 µs a step (a ten-year hourly dry run would take seconds), lacks Quartz's
``LW`` / ``nL``, and fires a daily ``30 1 * * *`` twice on a fall-back day. The tests use it
as an oracle for the expressions both understand.
"""

from __future__ import annotations

import calendar
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo

from bundletui.errors import ModelError
from bundletui.model.timeutil import TzLike, first_instant, format_oozie_time, parse_timezone

__all__ = [
    "LocalCron",
    "OozieCron",
    "dst_correction",
    "iter_cron_nominal_times",
    "validate_cron_frequency",
]

_MONTH_NAMES = {
    name: i + 1
    for i, name in enumerate(
        ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
    )
}
# Quartz numbering: SUN=1 .. SAT=7. Unix numbering is one less (SUN=0, and 7 is SUN too).
_QUARTZ_DAYS = {
    name: i + 1 for i, name in enumerate(("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"))
}
_UNIX_DAYS = {name: v - 1 for name, v in _QUARTZ_DAYS.items()}

_ONE_DAY = timedelta(days=1)
_ONE_MINUTE = timedelta(minutes=1)
# The Gregorian calendar (dates and weekdays) repeats every 400 years, so a schedule that
# does not fire within 400 years never fires.
_HORIZON_YEARS = 400

_OOZIE_FORMAT = (
    "five fields 'minute hour day-of-month month day-of-week' in UTC, Quartz syntax "
    "(, - * / and ? L W in day-of-month, ? L # in day-of-week; day-of-week 1=SUN..7=SAT, "
    "so '0 10 * * 2-6' is 10:00 UTC Monday to Friday)"
)
_UNIX_FORMAT = (
    "five fields 'minute hour day-of-month month day-of-week' (, - * / and names; "
    "day-of-week 0-7 with 0 and 7 = Sunday)"
)


class _CronSyntax(Exception):
    """Internal: what is wrong with an expression; turned into a ModelError by callers."""


# --------------------------------------------------------------------------- field parsing


def _value(token: str, lo: int, hi: int, names: dict[str, int], what: str) -> int:
    t = token.upper()
    if t in names:
        return names[t]
    if not t.isdigit() or not t.isascii():
        raise _CronSyntax(f"{what}: {token!r} is not a number" + (" or a name" if names else ""))
    v = int(t)
    if not lo <= v <= hi:
        raise _CronSyntax(f"{what}: {v} is out of range {lo}-{hi}")
    return v


def _parse_list(
    text: str, lo: int, hi: int, names: dict[str, int], what: str, *, wrap: bool
) -> frozenset[int]:
    """``,``-separated values, ranges ``a-b`` and steps ``x/n`` (Quartz wraps ``a-b`` with
    ``b < a`` around the field, e.g. ``FRI-MON``; Unix cron rejects it)."""
    out: set[int] = set()
    for part in text.split(","):
        if not part:
            raise _CronSyntax(f"{what}: empty list element in {text!r}")
        step = 1
        base = part
        if "/" in part:
            base, step_text = part.split("/", 1)
            if not step_text.isdigit() or not step_text.isascii():
                raise _CronSyntax(f"{what}: '/' must be followed by a number in {part!r}")
            step = int(step_text)
            if not 1 <= step <= hi:
                raise _CronSyntax(f"{what}: step {step} is out of range 1-{hi}")
        if base == "*":
            start, stop = lo, hi
        elif "-" in base:
            a, b = base.split("-", 1)
            start = _value(a, lo, hi, names, what)
            stop = _value(b, lo, hi, names, what)
        else:
            start = _value(base, lo, hi, names, what)
            stop = hi if "/" in part else start
        if stop < start:
            if not wrap:
                raise _CronSyntax(f"{what}: range {base!r} runs backwards")
            size = hi - lo + 1
            for i in range(start, stop + size + 1, step):
                out.add(lo + (i - lo) % size)
        else:
            out.update(range(start, stop + 1, step))
    return frozenset(out)


def _nearest_weekday(year: int, month: int, day: int, last: int) -> int:
    """Quartz ``W``: the weekday nearest to ``day``, never leaving the month."""
    wd = date(year, month, day).weekday()  # Mon=0 .. Sun=6
    if wd == 5:  # Saturday
        return day + 2 if day == 1 else day - 1
    if wd == 6:  # Sunday
        return day - 2 if day == last else day + 1
    return day


@dataclass(frozen=True, slots=True)
class _DomRule:
    days: frozenset[int] = frozenset()
    last: bool = False  # L
    last_offset: int = 0  # L-n
    weekday: bool = False  # W (nearest weekday to the single value, or LW)

    def matches(self, y: int, m: int, d: int) -> bool:
        dim = calendar.monthrange(y, m)[1]
        if self.last:
            target = dim - self.last_offset
            if target < 1:
                return False
            if self.weekday:
                target = _nearest_weekday(y, m, target, dim)
            return d == target
        if self.weekday:
            (n,) = self.days
            return n <= dim and d == _nearest_weekday(y, m, n, dim)
        return d in self.days


@dataclass(frozen=True, slots=True)
class _DowRule:
    days: frozenset[int] = frozenset()  # Quartz numbers, SUN=1
    last_of: int | None = None  # nL: the last such day of the month
    nth: tuple[int, int] | None = None  # n#k: the k-th such day of the month

    def matches(self, y: int, m: int, d: int) -> bool:
        q = (date(y, m, d).weekday() + 1) % 7 + 1
        if self.last_of is not None:
            return q == self.last_of and d + 7 > calendar.monthrange(y, m)[1]
        if self.nth is not None:
            return q == self.nth[0] and (d - 1) // 7 + 1 == self.nth[1]
        return q in self.days


def _quartz_dom(text: str) -> _DomRule:
    what = "day-of-month"
    t = text.upper()
    if t.startswith("L"):
        rest = t[1:]
        weekday = rest.endswith("W")
        if weekday:
            rest = rest[:-1]
        offset = 0
        if rest:
            if not rest.startswith("-") or not rest[1:].isdigit():
                raise _CronSyntax(f"{what}: bad 'L' expression {text!r} (use L, L-n, LW)")
            offset = int(rest[1:])
            if offset > 30:
                raise _CronSyntax(f"{what}: offset from last day must be <= 30 in {text!r}")
        return _DomRule(last=True, last_offset=offset, weekday=weekday)
    if t.endswith("W"):
        n = _value(t[:-1], 1, 31, {}, what + " 'W'")
        return _DomRule(days=frozenset({n}), weekday=True)
    if "L" in t or "W" in t:
        raise _CronSyntax(
            f"{what}: 'L' and 'W' cannot be combined with lists or ranges in {text!r}"
        )
    return _DomRule(days=_parse_list(t, 1, 31, {}, what, wrap=True))


def _quartz_dow(text: str) -> _DowRule:
    what = "day-of-week"
    t = text.upper()
    if t == "L":
        return _DowRule(days=frozenset({7}))
    if "#" in t:
        a, b = t.split("#", 1)
        day = _value(a, 1, 7, _QUARTZ_DAYS, what)
        if not b.isdigit() or not 1 <= int(b) <= 5:
            raise _CronSyntax(f"{what}: a number between 1 and 5 must follow '#' in {text!r}")
        return _DowRule(nth=(day, int(b)))
    if t.endswith("L"):
        return _DowRule(last_of=_value(t[:-1], 1, 7, _QUARTZ_DAYS, what))
    if "L" in t:
        raise _CronSyntax(f"{what}: 'L' cannot be combined with lists or ranges in {text!r}")
    return _DowRule(days=_parse_list(t, 1, 7, _QUARTZ_DAYS, what, wrap=True))


# --------------------------------------------------------------------------- the matcher


@dataclass(frozen=True, slots=True)
class _Matcher:
    """Which naive wall-clock minutes a cron expression selects."""

    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    months: frozenset[int]
    day_ok: Callable[[int, int, int], bool]

    def iter_after(self, t: datetime, tz: tzinfo | None = None) -> Iterator[datetime]:
        """Selected minutes strictly after naive ``t``, in order (stamped with ``tz``).

        Stops when nothing is selected for 400 years (the calendar's full cycle).
        """
        c = t.replace(second=0, microsecond=0) + _ONE_MINUTE
        y, mo, d, h0, m0 = c.year, c.month, c.day, c.hour, c.minute
        limit = min(9999, y + _HORIZON_YEARS)
        months, hours, minutes, day_ok = self.months, self.hours, self.minutes, self.day_ok
        while True:
            if mo in months:
                dim = calendar.monthrange(y, mo)[1]
                while d <= dim:
                    if day_ok(y, mo, d):
                        for h in hours[bisect_left(hours, h0) :]:
                            start = bisect_left(minutes, m0) if h == h0 else 0
                            for mi in minutes[start:]:
                                yield datetime(y, mo, d, h, mi, tzinfo=tz)
                            limit = min(9999, y + _HORIZON_YEARS)
                    d += 1
                    h0 = m0 = 0
            d, h0, m0 = 1, 0, 0
            mo += 1
            if mo > 12:
                mo = 1
                y += 1
                if y > limit:
                    return

    def next_after(self, t: datetime) -> datetime | None:
        """The first selected minute strictly after naive ``t`` (None: never fires)."""
        return next(self.iter_after(t), None)


def _split_fields(expr: str) -> list[str]:
    fields = expr.split()
    if len(fields) != 5:
        raise _CronSyntax(f"expected 5 fields, found {len(fields)}")
    return fields


def _common(
    fields: list[str], *, wrap: bool
) -> tuple[tuple[int, ...], tuple[int, ...], frozenset[int]]:
    minutes = _parse_list(fields[0], 0, 59, {}, "minute", wrap=wrap)
    hours = _parse_list(fields[1], 0, 23, {}, "hour", wrap=wrap)
    months = _parse_list(fields[3].upper(), 1, 12, _MONTH_NAMES, "month", wrap=wrap)
    return tuple(sorted(minutes)), tuple(sorted(hours)), months


def _quartz_matcher(expr: str) -> _Matcher:
    fields = _split_fields(expr)
    for i in (0, 1, 3):
        if fields[i] == "?":
            raise _CronSyntax("'?' can only be specified for day-of-month or day-of-week")
    for i in (0, 1):
        if any(ch in fields[i].upper() for ch in "LW#"):
            raise _CronSyntax(f"'L', 'W' and '#' are not allowed in field {fields[i]!r}")
    minutes, hours, months = _common(fields, wrap=True)
    dom_text, dow_text = fields[2], fields[4]
    # Oozie's CoordCommandUtils: a lone '*' becomes '?'; two real values are OR-ed.
    if dom_text != "?" and dow_text != "?":
        if dom_text == "*":
            dom_text = "?"
        elif dow_text == "*":
            dow_text = "?"
        else:
            dom, dow = _quartz_dom(dom_text), _quartz_dow(dow_text)
            return _Matcher(
                minutes, hours, months, lambda y, m, d: dom.matches(y, m, d) or dow.matches(y, m, d)
            )
    if dom_text == "?" and dow_text == "?":
        raise _CronSyntax("'?' can only be specified for day-of-month -OR- day-of-week")
    if dom_text == "?":
        dow = _quartz_dow(dow_text)
        return _Matcher(minutes, hours, months, dow.matches)
    dom = _quartz_dom(dom_text)
    return _Matcher(minutes, hours, months, dom.matches)


def _unix_matcher(expr: str) -> _Matcher:
    fields = _split_fields(expr)
    for f in fields:
        if any(ch in f.upper().replace("JUL", "") for ch in "LW#"):
            raise _CronSyntax(f"'L', 'W' and '#' are Quartz extensions, not allowed in {f!r}")
    minutes, hours, months = _common(fields, wrap=False)
    dom_text = "*" if fields[2] == "?" else fields[2]
    dow_text = "*" if fields[4] == "?" else fields[4]
    dom_days = _parse_list(dom_text, 1, 31, {}, "day-of-month", wrap=False)
    unix_days = _parse_list(dow_text.upper(), 0, 7, _UNIX_DAYS, "day-of-week", wrap=False)
    dow = _DowRule(days=frozenset(d % 7 + 1 for d in unix_days))
    dom = _DomRule(days=dom_days)
    # Vixie cron: when either field starts with '*' both must match, else either may.
    if dom_text.startswith("*") or dow_text.startswith("*"):
        return _Matcher(
            minutes, hours, months, lambda y, m, d: dom.matches(y, m, d) and dow.matches(y, m, d)
        )
    return _Matcher(
        minutes, hours, months, lambda y, m, d: dom.matches(y, m, d) or dow.matches(y, m, d)
    )


def _naive_utc(t: datetime) -> datetime:
    if t.tzinfo is None:
        raise ValueError(f"naive datetime {t!r}: model times must be aware UTC")
    return t.astimezone(UTC).replace(tzinfo=None)


# --------------------------------------------------------------------------- Oozie cron


class OozieCron:
    """An Oozie coordinator cron frequency, evaluated in UTC (Quartz semantics)."""

    __slots__ = ("_matcher", "expr")

    def __init__(self, expr: str) -> None:
        self.expr = " ".join(expr.split())
        try:
            self._matcher = _quartz_matcher(expr)
        except _CronSyntax as why:
            raise _invalid_frequency(expr, str(why)) from None

    def next_after(self, t: datetime) -> datetime | None:
        """Quartz ``getNextValidTimeAfter``: the first cron time strictly after ``t``."""
        nxt = self._matcher.next_after(_naive_utc(t))
        return None if nxt is None else nxt.replace(tzinfo=UTC)

    def iter_from(self, start: datetime) -> Iterator[datetime]:
        """Raw cron times >= ``start`` (Oozie searches from start minus one minute)."""
        return self._matcher.iter_after(_naive_utc(start - _ONE_MINUTE), UTC)

    def __repr__(self) -> str:
        return f"OozieCron({self.expr!r})"


def _invalid_frequency(expr: str, why: str) -> ModelError:
    err = ModelError.from_template(
        "E1003", f"Invalid coordinator cron frequency: {expr}", hint=f"{why}; write {_OOZIE_FORMAT}"
    )
    assert isinstance(err, ModelError)
    return err


def dst_correction(tz: tzinfo, job_start: datetime, t: datetime) -> timedelta:
    """Oozie's ``DaylightOffsetCalculator.getDSTOffset(tz, start, t)``.

    Start in DST and ``t`` not: +DST amount; start not in DST and ``t`` in it: -DST amount;
    otherwise nothing. Added to a cron time it keeps the job's local wall clock.
    """
    s_dst = job_start.astimezone(tz).dst() or timedelta(0)
    t_dst = t.astimezone(tz).dst() or timedelta(0)
    if s_dst and not t_dst:
        return s_dst
    if not s_dst and t_dst:
        return -t_dst
    return timedelta(0)


def iter_cron_nominal_times(
    cron: str | OozieCron, start: datetime, end: datetime | None, tz: TzLike
) -> Iterator[datetime]:
    """Nominal times of a cron coordinator: cron times in UTC from ``start`` (inclusive),
    before ``end`` (exclusive, ``None`` = unbounded).

    When consecutive raw cron times are at least a day apart (the first one measured from
    the search origin ``start - 1 minute``), the time is shifted by :func:`dst_correction`
    between the job start and it, so daily and monthly crons keep the job's local wall time
    across DST; sub-daily crons are not shifted. The search continues from the raw time.
    """
    c = cron if isinstance(cron, OozieCron) else OozieCron(cron)
    zone = parse_timezone(tz) if isinstance(tz, str) else tz
    prev = start - _ONE_MINUTE
    for raw in c.iter_from(start):
        nominal = raw
        if raw - prev >= _ONE_DAY:
            nominal = raw + dst_correction(zone, start, raw)
        if end is not None and nominal >= end:
            return
        yield nominal
        prev = raw


def validate_cron_frequency(expr: str, start: datetime, end: datetime) -> OozieCron:
    """Oozie's submit check: the cron must parse, fire at all, and fire in [start, end)."""
    c = OozieCron(expr)
    first = c.next_after(start - _ONE_MINUTE)
    if first is None:
        raise _invalid_frequency(
            expr, "it never fires, so it materializes no actions between start and end time"
        )
    if first >= end:
        err = ModelError.from_template(
            "E1003",
            f"Coordinator job with frequency '{c.expr}' materializes no actions between start "
            "and end time.",
            hint=f"its first time is {format_oozie_time(first)}, at or after the end time; "
            "widen start/end or change the cron (remember it runs in UTC)",
        )
        raise err
    return c


# --------------------------------------------------------------------------- local cron


class LocalCron:
    """A standard 5-field cron in a local timezone (event schedules).

    DST policy: a wall time that occurs twice (fall-back) fires once, at its first
    occurrence; a wall time skipped by a forward shift fires once, at the shift instant
    (e.g. 02:30 on a 02:00->03:00 day fires at 03:00 local). Day-of-month and day-of-week
    follow Vixie cron: if either starts with ``*`` both must match, otherwise either may.
    """

    __slots__ = ("_matcher", "expr", "tz", "tz_name")

    def __init__(self, expr: str, tz: TzLike) -> None:
        self.expr = " ".join(expr.split())
        self.tz = parse_timezone(tz) if isinstance(tz, str) else tz
        self.tz_name = tz if isinstance(tz, str) else str(tz)
        try:
            self._matcher = _unix_matcher(expr)
        except _CronSyntax as why:
            err = ModelError.from_template(
                "E1003", f"Invalid cron expression [{expr}]", hint=f"{why}; write {_UNIX_FORMAT}"
            )
            raise err from None

    def _resolve(self, wall: datetime) -> datetime:
        """The instant a selected wall time fires at (first occurrence / shift instant)."""
        return first_instant(wall, self.tz)

    def next_after(self, t: datetime) -> datetime | None:
        """The first firing instant strictly after ``t`` (aware UTC), or None if never."""
        if t.tzinfo is None:
            raise ValueError(f"naive datetime {t!r}: model times must be aware UTC")
        t = t.astimezone(UTC)
        # The wall -> instant mapping is monotone, so scan selected wall times from the
        # local time of t and take the first whose instant is after t.
        wall = t.astimezone(self.tz).replace(tzinfo=None, second=0, microsecond=0)
        w = self._matcher.next_after(wall - _ONE_MINUTE)
        while w is not None:
            u = self._resolve(w)
            if u > t:
                return u
            w = self._matcher.next_after(w)
        return None

    def iter_between(self, start: datetime, end: datetime) -> Iterator[datetime]:
        """Firing instants in (start, end]."""
        t = self.next_after(start)
        while t is not None and t <= end:
            yield t
            t = self.next_after(t)

    def __repr__(self) -> str:
        return f"LocalCron({self.expr!r}, {self.tz_name!r})"
