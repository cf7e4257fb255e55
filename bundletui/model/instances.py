"""Dataset instance math: what ``coord:current`` and friends resolve to (oozie.md §3.2, §3.3).

A dataset's instances are ``II' + k*F`` for k >= 0, where ``II'`` is the initial instance
(moved to the end of its duration for endOf* datasets) and every addition follows Java's
calendar rules in the dataset timezone (:func:`bundletui.model.timeutil.add`). Functions
return aware UTC datetimes; ``None`` stands for Oozie's empty result ``""`` (an instance
before the initial instance). Range functions return Oozie's order: newest first, except
``future`` ranges, which are oldest first.

Where Oozie walks the grid step by step this module does too, on the bounded walks
(finding the current instance, stepping through a range), so month-end and DST-gap
datasets drift exactly as in Oozie; ``offset`` snaps to the grid computed from the initial
instance (Oozie walks from the initial instance and raises an internal error whenever that
walk disagrees with the grid). See docs/decisions/0002-time-and-cron-dst-policy.md.

The existence of an instance (for ``latest`` / ``future``) is the caller's business: pass
``exists(instance_time) -> bool``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache

from bundletui.errors import ModelError
from bundletui.model.apps import Dataset
from bundletui.model.frequency import TimeUnit, end_flag
from bundletui.model.timeutil import (
    TzLike,
    add,
    calendar_unit,
    format_oozie_time,
    local_to_utc,
    month_length_at,
    move_to_end,
    parse_timezone,
    start_of_day,
    start_of_week,
    wall_clock,
)

__all__ = [
    "CurrentInstance",
    "ExistsFn",
    "Lookup",
    "absolute_range",
    "check_range_kinds",
    "current",
    "current_index",
    "current_instance",
    "current_range",
    "days_in_month",
    "done_path",
    "end_of_range",
    "end_of_start",
    "future",
    "future_range",
    "hours_in_day",
    "initial_instance",
    "instance_at",
    "latest",
    "latest_range",
    "offset",
    "offset_range",
    "tz_offset",
    "uri_for",
]

ExistsFn = Callable[[datetime], bool]


@dataclass(frozen=True, slots=True)
class _Grid:
    tz: tzinfo
    unit: TimeUnit  # the Calendar unit a step adds
    freq: int
    initial: datetime  # II', moved to the end of duration for endOf* datasets


@lru_cache(maxsize=1024)
def _grid(ds: Dataset) -> _Grid:
    f = ds.frequency
    if f.is_cron or f.value <= 0:
        raise ModelError.from_template(
            "E1003",
            f"dataset [{ds.name}] frequency must be an integer > 0, got [{f}]",
            hint="use coord:minutes/hours/days/months/endOfDays/endOfWeeks/endOfMonths(n)",
        )
    tz = parse_timezone(ds.timezone)
    initial = move_to_end(ds.initial_instance, end_flag(f), tz)
    return _Grid(tz, calendar_unit(f.unit), f.value, initial)


def _e1010(detail: str, hint: str | None = None) -> ModelError:
    err = ModelError.from_template("E1010", detail, hint=hint)
    assert isinstance(err, ModelError)
    return err


def current_order_error(start: int, end: int) -> ModelError:
    """E1010 for ``current(start)``..``current(end)`` with the start after the end."""
    return _e1010(
        "start-instance should be equal or earlier than the end-instance: "
        f"start-instance is current({start}) and end-instance is current({end})",
        hint="swap them: the start-instance is the older instance",
    )


def offset_order_error(
    start_n: int, start_unit: object, end_n: int, end_unit: object
) -> ModelError:
    """E1010 for an ``offset`` range whose start is after its end."""
    return _e1010(
        "start-instance should be equal or earlier than the end-instance: "
        f"start-instance is offset({start_n}, {start_unit}) and end-instance is "
        f"offset({end_n}, {end_unit})",
        hint="swap them: the start-instance is the older instance",
    )


def _e1004(detail: str, hint: str | None = None) -> ModelError:
    err = ModelError.from_template("E1004", detail, hint=hint)
    assert isinstance(err, ModelError)
    return err


# --------------------------------------------------------------------------- the grid


def initial_instance(ds: Dataset) -> datetime:
    """II': the initial instance, moved to the end of its duration for endOf* datasets."""
    return _grid(ds).initial


def instance_at(ds: Dataset, k: int) -> datetime:
    """Instance ``k`` of the dataset: II' + k*F, one addition from II' (k may be negative)."""
    g = _grid(ds)
    return add(g.initial, k * g.freq, g.unit, g.tz)


@dataclass(frozen=True, slots=True)
class CurrentInstance:
    """Oozie's current instance of a time: its index from II' and the instance time.

    ``time`` is what Oozie's step-by-step walk lands on; it equals ``instance_at(index)``
    except on grids that drift (day clamped at a month end, wall time in a DST gap or
    overlap), where it can even be slightly after the time asked about.
    """

    index: int
    time: datetime


def _estimate(g: _Grid, t: datetime) -> int:
    """Oozie's first guess of the number of units between II' and ``t``."""
    u = g.unit
    if u is TimeUnit.MINUTE:
        return (t - g.initial) // timedelta(minutes=1)
    if u is TimeUnit.HOUR:
        return (t - g.initial) // timedelta(hours=1)
    if u is TimeUnit.DAY:
        return (t - g.initial) // timedelta(days=1)
    if u is TimeUnit.WEEK:
        return (t - g.initial) // timedelta(days=7)
    a, b = wall_clock(g.initial, g.tz), wall_clock(t, g.tz)
    if u is TimeUnit.MONTH:
        return (b.year - a.year) * 12 + b.month - a.month
    return b.year - a.year


def current_instance(ds: Dataset, t: datetime) -> CurrentInstance | None:
    """The latest instance at or before ``t`` (None if II' > t), found as Oozie does.

    Oozie estimates the index, jumps there with one addition, steps forward while the
    instance is <= t and then steps back once, each step adding to the previous instance.
    """
    g = _grid(ds)
    if g.initial > t:
        return None
    k = _estimate(g, t)
    if k > 2:
        k //= g.freq
        cur = add(g.initial, k * g.freq, g.unit, g.tz)
    else:
        k, cur = 0, g.initial
    while cur <= t:
        cur = add(cur, g.freq, g.unit, g.tz)
        k += 1
    # Stepping back from the first instance after t can land after t again: 01:00 PST
    # minus a day is the *second* 01:00 on a fall-back day. Oozie keeps that index (its
    # test vectors depend on it), and so do we.
    cur = add(cur, -g.freq, g.unit, g.tz)
    k -= 1
    return CurrentInstance(k, cur)


def current_index(ds: Dataset, t: datetime) -> int | None:
    """Index of the current instance of ``t`` (None if ``t`` is before II')."""
    ci = current_instance(ds, t)
    return None if ci is None else ci.index


def _grid_floor(g: _Grid, t: datetime) -> int:
    """The largest k >= 0 with II' + k*F <= t (t >= II'), each instance added from II'."""
    k = _estimate(g, t)
    k = k // g.freq if k > 2 else 0
    while add(g.initial, (k + 1) * g.freq, g.unit, g.tz) <= t:
        k += 1
    while k > 0 and add(g.initial, k * g.freq, g.unit, g.tz) > t:
        k -= 1
    return k


# --------------------------------------------------------------------------- current


def current(ds: Dataset, nominal: datetime, n: int) -> datetime | None:
    """``coord:current(n)``: II' + (k+n)*F with k the current index of the nominal time.

    None (Oozie's ``""``) if the nominal time is before II' or the instance is before II'.
    """
    ci = current_instance(ds, nominal)
    if ci is None:
        return None
    inst = instance_at(ds, ci.index + n)
    return None if inst < _grid(ds).initial else inst


def current_range(ds: Dataset, nominal: datetime, start: int, end: int) -> list[datetime]:
    """``start-instance=current(start)``, ``end-instance=current(end)``: newest first.

    Instances before II' are dropped silently; each instance after the first is the
    previous one plus F (Oozie's walk). E1010 if ``start > end``.
    """
    if start > end:
        raise current_order_error(start, end)
    g = _grid(ds)
    ci = current_instance(ds, nominal)
    if ci is None:
        return []
    inst = instance_at(ds, ci.index + start)
    out: list[datetime] = []
    for _ in range(start, end + 1):
        if inst >= g.initial:
            out.append(inst)
        inst = add(inst, g.freq, g.unit, g.tz)
    out.reverse()
    return out


# --------------------------------------------------------------------------- offset


def _snap(g: _Grid, raw: datetime) -> datetime | None:
    """The latest instance at or before ``raw`` ("rewind"), or None before II'."""
    if raw < g.initial:
        return None
    return add(g.initial, _grid_floor(g, raw) * g.freq, g.unit, g.tz)


def offset(ds: Dataset, nominal: datetime, n: int, unit: TimeUnit) -> datetime | None:
    """``coord:offset(n, unit)``: the current instance plus n units, rewound to the latest
    instance at or before it. None if that is before II' or the nominal time is."""
    ci = current_instance(ds, nominal)
    if ci is None:
        return None
    g = _grid(ds)
    return _snap(g, add(ci.time, n, unit, g.tz))


def offset_range(
    ds: Dataset,
    nominal: datetime,
    start_n: int,
    start_unit: TimeUnit,
    end_n: int,
    end_unit: TimeUnit,
) -> list[datetime]:
    """``start-instance=offset(a, U)``, ``end-instance=offset(b, V)``: newest first.

    The start is fast-forwarded to the first instance at or after its raw time, the end
    rewound to the last at or before; every instance between is returned, stopping at the
    first one before II'. E1010 if the start's raw time is after the end's.
    """
    ci = current_instance(ds, nominal)
    g = _grid(ds)
    if ci is None:
        return []
    start_raw = add(ci.time, start_n, start_unit, g.tz)
    end_raw = add(ci.time, end_n, end_unit, g.tz)
    if start_raw > end_raw:
        raise offset_order_error(start_n, start_unit, end_n, end_unit)
    # Oozie's expandOffsetTimes: walk from the current instance to the first instance
    # >= start_raw, then collect multiples of F up to end_raw.
    cal, total = ci.time, 0
    if start_raw < cal:
        while cal > start_raw:
            cal = add(cal, -g.freq, g.unit, g.tz)
            total -= g.freq
        if cal < start_raw:
            cal = add(cal, g.freq, g.unit, g.tz)
            total += g.freq
    elif start_raw > cal:
        while cal < start_raw:
            cal = add(cal, g.freq, g.unit, g.tz)
            total += g.freq
    totals: list[int] = []
    while cal <= end_raw:
        totals.append(total)
        cal = add(cal, g.freq, g.unit, g.tz)
        total += g.freq
    out: list[datetime] = []
    for x in reversed(totals):
        inst = _snap(g, add(ci.time, x, g.unit, g.tz))
        if inst is None:
            break
        out.append(inst)
    return out


# --------------------------------------------------------------------------- absolute / endOf*


def absolute_instance(ds: Dataset, when: datetime, written: str | None = None) -> CurrentInstance:
    """The instance ``absolute(when)`` names: ``when`` must be one (at or after the
    initial-instance, in phase with it), whatever the action, so a constant one is checked at
    submit too. ``written``: the argument as the file has it, for the message."""
    ii = format_oozie_time(_grid(ds).initial)
    shown = written if written is not None else format_oozie_time(when)
    ci = current_instance(ds, when)
    if ci is None:
        raise _e1010(
            "initial-instance should be equal or earlier than the start-instance. "
            f"initial-instance is {ii} and start-instance is {shown}",
            hint="start at or after the dataset's initial-instance",
        )
    if ci.time != when:
        raise _e1010(
            "initial-instance is not in phase with start-instance. "
            f"initial-instance is {ii} and start-instance is {shown}",
            hint=f"the start-instance must be an instance: the nearest earlier one is "
            f"{format_oozie_time(ci.time)}",
        )
    return ci


def absolute_range(ds: Dataset, nominal: datetime, start: datetime, end: int) -> list[datetime]:
    """``start-instance=absolute(start)``, ``end-instance=current(end)``: newest first.

    ``start`` must be an instance (>= II' and in phase) and II' <= nominal; it becomes the
    current-range from its index relative to the nominal time's current instance to ``end``.
    """
    g = _grid(ds)
    ii = format_oozie_time(g.initial)
    cs = absolute_instance(ds, start)
    cn = current_instance(ds, nominal)
    if cn is None:
        raise _e1010(
            "initial-instance should be equal or earlier than the nominal time. "
            f"initial-instance is {ii} and nominal time is {format_oozie_time(nominal)}",
        )
    rel = cs.index - cn.index
    if rel > end:
        raise _e1010(
            "start-instance should be equal or earlier than the end-instance. startInstance is "
            f"{format_oozie_time(start)} which is equivalent to current ({rel}) but end is "
            f"specified as current ({end})",
            hint="the start-instance must not be later than the end-instance",
        )
    return current_range(ds, nominal, rel, end)


def end_of_start(ds: Dataset, nominal: datetime, kind: TimeUnit, n: int) -> datetime:
    """The start instance of ``coord:endOfDays/Weeks/Months(n)`` (Oozie's StartInstanceFinder).

    The nominal time in the dataset timezone truncated to 00:00, then DAY: + (n+1) days;
    WEEK: back to Sunday, + (n+1) weeks; MONTH: day 1, + (n+1) months.
    """
    g = _grid(ds)
    u = calendar_unit(kind)
    if u is TimeUnit.DAY:
        return add(start_of_day(nominal, g.tz), n + 1, TimeUnit.DAY, g.tz)
    if u is TimeUnit.WEEK:
        return add(start_of_week(nominal, g.tz), n + 1, TimeUnit.WEEK, g.tz)
    if u is TimeUnit.MONTH:
        local = wall_clock(nominal, g.tz)
        first = local_to_utc(datetime(local.year, local.month, 1), g.tz)
        return add(first, n + 1, TimeUnit.MONTH, g.tz)
    raise _e1004(f"endOf* start-instance needs DAY, WEEK or MONTH, got {kind}")


def end_of_range(
    ds: Dataset, nominal: datetime, kind: TimeUnit, n: int, end: int
) -> list[datetime]:
    """``start-instance=endOfDays/Weeks/Months(n)``, ``end-instance=current(end)``."""
    return absolute_range(ds, nominal, end_of_start(ds, nominal, kind, n), end)


_RANGE_STARTS = ("absolute", "endOfMonths", "endOfWeeks", "endOfDays")


def check_range_kinds(start_kind: str, end_kind: str) -> None:
    """Oozie's rule for mixing instance functions in start-instance / end-instance.

    Kinds are the function names: current, latest, future, offset, absolute, endOfMonths,
    endOfWeeks, endOfDays. Raises E1010 with Oozie's messages.
    """
    if start_kind in _RANGE_STARTS:
        if end_kind != "current":
            raise _e1010(
                "Only start-instance as absolute/endOfMonths/endOfWeeks/endOfDays and "
                f"end-instance as current is supported. start = {start_kind}  end = {end_kind}",
                hint="write the end-instance as ${coord:current(n)}",
            )
        return
    if start_kind != end_kind:
        raise _e1010(
            "start-instance and end-instance both should be either latest or current or "
            f"future or offset; start {start_kind} and end {end_kind}",
            hint="use the same function for both ends of the range",
        )


# --------------------------------------------------------------------------- latest / future


@dataclass(frozen=True, slots=True)
class Lookup:
    """Result of ``latest`` / ``future``: resolved (with its instances, possibly none) or
    not yet (the EL stays unresolved and the action keeps waiting)."""

    resolved: bool
    instances: tuple[datetime, ...] = ()


_UNRESOLVED = Lookup(False)


def latest_range(
    ds: Dataset, actual_time: datetime, start: int, end: int, exists: ExistsFn
) -> Lookup:
    """``latest(start)..latest(end)`` (start <= end <= 0), newest first.

    Walks back from the current instance of the action's *actual* (creation) time down to
    II', counting only instances that exist; resolved once the (|start|+1)-th is found.
    """
    if start > 0 or end > 0:
        raise _e1004(
            "latest:n must be less than or equal to 0", hint="use coord:latest(0), latest(-1)..."
        )
    if start > end:
        raise _e1010(
            "start-instance should be equal or earlier than the end-instance: "
            f"start-instance is latest({start}) and end-instance is latest({end})"
        )
    g = _grid(ds)
    ci = current_instance(ds, actual_time)
    if ci is None:
        return _UNRESOLVED
    inst, count, available = ci.time, ci.index, 0
    found: list[datetime] = []
    while inst >= g.initial:
        if exists(inst):
            if available == start:
                found.append(inst)
                return Lookup(True, tuple(found))
            if available <= end:
                found.append(inst)
            available -= 1
        count -= 1
        inst = add(g.initial, count * g.freq, g.unit, g.tz)
    return _UNRESOLVED


def latest(ds: Dataset, actual_time: datetime, n: int, exists: ExistsFn) -> Lookup:
    """``coord:latest(n)`` (n <= 0): the (|n|+1)-th existing instance going back in time."""
    return latest_range(ds, actual_time, n, n, exists)


def future_range(
    ds: Dataset, nominal: datetime, start: int, end: int, limit: int, exists: ExistsFn
) -> Lookup:
    """``future(start, limit)..future(end, limit)`` (0 <= start <= end), oldest first.

    Walks forward from the current instance of the nominal time, checking at most
    ``limit + 1`` instances. A nominal time before II' resolves to nothing (Oozie's ``""``).
    """
    if start < 0 or end < 0:
        raise _e1004("future:n must be greater than or equal to 0")
    if limit <= 0:
        raise _e1004("future:instance must be greater than 0")
    if start > end:
        raise _e1010(
            "start-instance should be equal or earlier than the end-instance: "
            f"start-instance is future({start}) and end-instance is future({end})"
        )
    g = _grid(ds)
    ci = current_instance(ds, nominal)
    if ci is None:
        return Lookup(True, ())
    inst, count, available, checked = ci.time, ci.index, 0, 0
    found: list[datetime] = []
    while limit >= checked:
        if exists(inst):
            if available == end:
                found.append(inst)
                return Lookup(True, tuple(found))
            if available >= start:
                found.append(inst)
            available += 1
        count += 1
        checked += 1
        inst = add(g.initial, count * g.freq, g.unit, g.tz)
    return _UNRESOLVED


def future(ds: Dataset, nominal: datetime, n: int, limit: int, exists: ExistsFn) -> Lookup:
    """``coord:future(n, limit)`` (n >= 0, limit > 0)."""
    return future_range(ds, nominal, n, n, limit, exists)


# --------------------------------------------------------------------------- URIs

_VAR = re.compile(r"\$\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}")


def uri_for(ds: Dataset, instance: datetime, extra_vars: Mapping[str, str] | None = None) -> str:
    """The dataset URI of an instance: ``${YEAR}`` ``${MONTH}`` ``${DAY}`` ``${HOUR}``
    ``${MINUTE}`` from the instance time **in UTC** (Oozie's processing timezone, never the
    dataset's), other ``${name}`` from ``extra_vars``; unknown variables are left as written.
    """
    u = instance.astimezone(UTC)
    values = {
        "YEAR": str(u.year),
        "MONTH": f"{u.month:02d}",
        "DAY": f"{u.day:02d}",
        "HOUR": f"{u.hour:02d}",
        "MINUTE": f"{u.minute:02d}",
    }
    extra = extra_vars or {}

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in values:
            return values[name]
        if name in extra:
            return extra[name]
        return m.group(0)

    return _VAR.sub(sub, ds.uri_template.strip())


def done_path(uri: str, done_flag: str) -> str:
    """The path whose existence marks an instance done: ``uri/flag``, or ``uri`` itself when
    the done-flag is empty."""
    return f"{uri}/{done_flag}" if done_flag else uri


# --------------------------------------------------------------------------- helpers (§3.3)


def hours_in_day(ds: Dataset, nominal: datetime, n: int) -> int:
    """``coord:hoursInDay(n)``: 23, 24 or 25 hours in the local day of NT + n*F (dataset
    unit and timezone); -1 if the nominal time is before II'."""
    g = _grid(ds)
    if g.initial > nominal:
        return -1
    t = add(nominal, g.freq * n, g.unit, g.tz)
    d = wall_clock(t, g.tz).date()
    probe = local_to_utc(datetime(d.year, d.month, d.day, 0, 30), g.tz) + timedelta(hours=24)
    hour = wall_clock(probe, g.tz).hour
    if hour == 1:
        return 23
    if hour == 23:
        return 25
    return 24


def days_in_month(ds: Dataset, nominal: datetime, n: int) -> int:
    """``coord:daysInMonth(n)``: days in the local month of NT + n*F; -1 before II'."""
    g = _grid(ds)
    if g.initial > nominal:
        return -1
    return month_length_at(add(nominal, g.freq * n, g.unit, g.tz), g.tz)


def tz_offset(ds_tz: TzLike, coord_tz: TzLike, nominal: datetime) -> int:
    """``coord:tzOffset()``: dataset offset minus coordinator offset at NT, in minutes."""
    a = parse_timezone(ds_tz) if isinstance(ds_tz, str) else ds_tz
    b = parse_timezone(coord_tz) if isinstance(coord_tz, str) else coord_tz
    oa = nominal.astimezone(a).utcoffset() or timedelta(0)
    ob = nominal.astimezone(b).utcoffset() or timedelta(0)
    return (oa - ob) // timedelta(minutes=1)
