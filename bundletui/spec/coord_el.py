"""The ``coord:`` EL functions of the action phases (oozie.md §3), as closures over a context.

Oozie evaluates coordinator EL in phases; a function that cannot be resolved yet is echoed
(``${coord:latest(0)}`` stays as written) and evaluated by a later phase:

* **creation** (``coord-action-create``): instance functions (``current``, ``offset``,
  ``absolute``, ``endOf*``, ranges), ``hoursInDay``/``daysInMonth``/``tzOffset``, the date
  functions, ``nominalTime``/``actualTime``/``actionId``/``name``/``conf``/``user``.
  ``latest``/``future``/``dataIn``/``dataOut`` are echoed.
* **start** (``coord-action-start``, the workflow configuration): everything, with
  ``latest``/``future`` resolved against ``exists`` (echoed while not resolvable) and
  ``dataIn``/``dataOut`` read from the URIs the input check chose.

Every function reads one mutable :class:`CoordELEnv`, so a function table is built once per
coordinator and reused for every action (set the env's fields, evaluate, repeat). Instance
functions return the instance time ``yyyy-MM-ddTHH:mmZ`` (ranges comma-joined, newest first;
``""`` before the initial instance) or, with ``env.instance_output == "uri"``, the instance URIs.

:func:`instance_spec_functions` is the third table: instance functions that return an
:class:`InstanceCall` describing the call (kind + evaluated arguments) instead of a time, which
the materializer resolves itself (Oozie does the same: it echoes the call in a
``coord-action-create-inst`` evaluator and parses it back).

Also here: :func:`java_format` (Java ``SimpleDateFormat`` patterns, for ``coord:formatTime``)
and the SLA constants ``MINUTES``/``HOURS``/``DAYS``.
"""

from __future__ import annotations

import calendar
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import Any

from bundletui.errors import BundletuiError, SpecError
from bundletui.model import instances
from bundletui.model.apps import Dataset
from bundletui.model.frequency import TimeUnit
from bundletui.model.timeutil import (
    add,
    format_oozie_time,
    parse_oozie_time,
    parse_timezone,
    wall_clock,
)
from bundletui.spec.el import Deferred
from bundletui.spec.el.coerce import el_signatures, to_long, to_string
from bundletui.spec.el.exceptions import ArgumentError, CoercionError

__all__ = [
    "DATASET_FUNCTIONS",
    "INSTANCE_FUNCTIONS",
    "INSTANCE_SPEC_NAMES",
    "SLA_CONSTANTS",
    "CoordELEnv",
    "InstanceCall",
    "Phase",
    "coord_function_names",
    "coord_functions",
    "instance_spec_functions",
    "java_format",
    "parse_el_time",
]

SLA_CONSTANTS: Mapping[str, int] = {"MINUTES": 1, "HOURS": 60, "DAYS": 1440}
"""``${MINUTES}`` ``${HOURS}`` ``${DAYS}`` of the SLA phase, in minutes."""

INSTANCE_FUNCTIONS = frozenset(
    {
        "current",
        "currentRange",
        "offset",
        "latest",
        "latestRange",
        "future",
        "futureRange",
        "absolute",
        "absoluteRange",
        "endOfDays",
        "endOfWeeks",
        "endOfMonths",
    }
)
"""The ``coord:`` names that denote dataset instances (valid in ``<instance>``)."""
INSTANCE_SPEC_NAMES = frozenset(f"coord:{name}" for name in INSTANCE_FUNCTIONS)
"""The same, as called: an ``<instance>`` with none of them in it is not an instance."""
DATASET_FUNCTIONS = INSTANCE_SPEC_NAMES | {
    "coord:hoursInDay",
    "coord:daysInMonth",
    "coord:tzOffset",
}
"""Functions that read the dataset of the instance they are in: in the workflow's
configuration, where there is none, they fail every action (Oozie: "Associated Dataset
should be defined")."""

_UNITS = {u.value: u for u in TimeUnit if u not in (TimeUnit.CRON, TimeUnit.NONE)}
_OFFSET_UNITS = {"MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "YEAR"}


class Phase(StrEnum):
    CREATION = "creation"
    START = "start"


class CoordELEnv:
    """What the ``coord:`` functions read. Mutable on purpose: one table, many actions.

    ``exists(path)`` answers whether a done-flag path (``uri/flag`` or the URI) exists; without
    it ``latest``/``future`` stay echoed. ``data_in`` maps a data-in or input-logic operator
    name to its URIs, ``None`` meaning "not resolved yet" (``coord:dataIn`` is then echoed).
    ``instance_output`` is ``"time"`` or ``"uri"`` (what instance functions return).
    """

    __slots__ = (
        "action_id",
        "actual",
        "app_name",
        "conf",
        "coord_id",
        "coord_timezone",
        "data_in",
        "data_out",
        "dataset",
        "exists",
        "instance_output",
        "nominal",
        "user",
    )

    def __init__(
        self,
        *,
        nominal: datetime | None = None,
        actual: datetime | None = None,
        coord_timezone: str = "UTC",
        dataset: Dataset | None = None,
        coord_id: str = "",
        action_id: str = "",
        app_name: str = "",
        user: str = "",
        conf: Mapping[str, str] | None = None,
        exists: Callable[[str], bool] | None = None,
        data_in: Mapping[str, tuple[str, ...] | None] | None = None,
        data_out: Mapping[str, tuple[str, ...]] | None = None,
        instance_output: str = "time",
    ) -> None:
        self.nominal = nominal
        self.actual = actual
        self.coord_timezone = coord_timezone
        self.dataset = dataset
        self.coord_id = coord_id
        self.action_id = action_id
        self.app_name = app_name
        self.user = user
        self.conf: Mapping[str, str] = conf if conf is not None else {}
        self.exists = exists
        self.data_in: Mapping[str, tuple[str, ...] | None] = data_in or {}
        self.data_out: Mapping[str, tuple[str, ...]] = data_out or {}
        self.instance_output = instance_output


# --------------------------------------------------------------------------- helpers

_COERCE: dict[type, Callable[[Any], Any]] = {str: to_string, int: to_long}


def _coerced(t: type, value: Any, index: int) -> Any:
    if type(value) is t:
        return value
    try:
        return _COERCE[t](value)
    except CoercionError as exc:
        raise CoercionError(f"argument {index}: {exc}") from None


def el_function(*types: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Like :func:`bundletui.spec.el.el_function` (JSP coercion, arity check), with a fast
    path for arguments that already have the right type: these run for every action."""
    count = len(types)

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        def arity(got: int) -> ArgumentError:
            return _arity(count, got)

        if count == 0:

            def wrapper(*args: Any) -> Any:
                if args:
                    raise arity(len(args))
                return fn()

        elif count == 1:
            (t0,) = types

            def wrapper(*args: Any) -> Any:
                if len(args) != 1:
                    raise arity(len(args))
                a = args[0]
                return fn(a if type(a) is t0 else _coerced(t0, a, 1))

        elif count == 2:
            t0, t1 = types

            def wrapper(*args: Any) -> Any:
                if len(args) != 2:
                    raise arity(len(args))
                a, b = args
                return fn(
                    a if type(a) is t0 else _coerced(t0, a, 1),
                    b if type(b) is t1 else _coerced(t1, b, 2),
                )

        else:

            def wrapper(*args: Any) -> Any:
                if len(args) != count:
                    raise arity(len(args))
                return fn(
                    *[
                        _coerced(t, a, i + 1)
                        for i, (t, a) in enumerate(zip(types, args, strict=True))
                    ]
                )

        wrapper.__name__ = getattr(fn, "__name__", "coord_function")
        wrapper.__el_params__ = types  # type: ignore[attr-defined]
        return wrapper

    return decorate


def _el_method(*types: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """:func:`el_function` for a method: the wrapper is made once, with the class."""
    count = len(types)

    def decorate(method: Callable[..., Any]) -> Callable[..., Any]:
        if count == 0:

            def wrapper(self: Any, *args: Any) -> Any:
                if args:
                    raise _arity(count, len(args))
                return method(self)

        elif count == 1:
            (t0,) = types

            def wrapper(self: Any, *args: Any) -> Any:
                if len(args) != 1:
                    raise _arity(count, len(args))
                a = args[0]
                return method(self, a if type(a) is t0 else _coerced(t0, a, 1))

        else:

            def wrapper(self: Any, *args: Any) -> Any:
                if len(args) != count:
                    raise _arity(count, len(args))
                return method(
                    self,
                    *[
                        a if type(a) is t else _coerced(t, a, i + 1)
                        for i, (t, a) in enumerate(zip(types, args, strict=True))
                    ],
                )

        wrapper.__name__ = method.__name__
        wrapper.__el_params__ = types  # type: ignore[attr-defined]
        return wrapper

    return decorate


def _arity(count: int, got: int) -> ArgumentError:
    plural = "" if count == 1 else "s"
    return ArgumentError(f"expects {count} argument{plural}, got {got}")


def _e1004(detail: str, hint: str | None = None) -> SpecError:
    return SpecError("E1004", f"Expression language evaluation error, {detail}", hint=hint)


_formatted: dict[str, datetime] = {}


def _format(t: datetime) -> str:
    """Format a time and remember it, so a nested ``formatTime(nominalTime(), …)`` does not
    parse it back."""
    text = format_oozie_time(t)
    if len(_formatted) > 64:
        _formatted.clear()
    _formatted[text] = t.astimezone(UTC).replace(second=0, microsecond=0)
    return text


def parse_el_time(text: str, function: str) -> datetime:
    """A datetime argument of a ``coord:`` function; a bad one is an EL error (E1004)."""
    known = _formatted.get(text)
    if known is not None:
        return known
    try:
        return parse_oozie_time(text, what=f"coord:{function} date")
    except BundletuiError as exc:
        raise _e1004(f"coord:{function}: {exc.message}", exc.hint) from None


def _unit(text: str, function: str, allowed: set[str] | None = None) -> TimeUnit:
    unit = _UNITS.get(text)
    if unit is None or (allowed is not None and text not in allowed):
        names = ", ".join(sorted(allowed or _UNITS, key=list(_UNITS).index))
        raise _e1004(
            f"coord:{function}: [{text}] is not a time unit",
            hint=f"use one of {names} (Java TimeUnit enum names, upper case)",
        )
    return unit


def _need_dataset(env: CoordELEnv, function: str) -> Dataset:
    if env.dataset is None:
        raise _e1004(
            f"coord:{function}() needs a dataset",
            hint="instance functions and hoursInDay/daysInMonth/tzOffset only work inside a "
            "data-in or data-out (with `bundletui eval`, give --dataset-frequency and "
            "--dataset-initial-instance)",
        )
    return env.dataset


def _need(value: datetime | None, what: str) -> datetime:
    """An action time; without one (a compile-time probe) the call is echoed."""
    if value is None:
        raise Deferred(f"no {what} yet")
    return value


def _done_exists(env: CoordELEnv, ds: Dataset) -> Callable[[datetime], bool]:
    exists = env.exists
    assert exists is not None

    def check(t: datetime) -> bool:
        return exists(instances.done_path(instances.uri_for(ds, t), ds.done_flag))

    return check


def _render(env: CoordELEnv, ds: Dataset, times: list[datetime] | tuple[datetime, ...]) -> str:
    if env.instance_output == "uri":
        return ",".join(instances.uri_for(ds, t) for t in times)
    return ",".join(format_oozie_time(t) for t in times)


def _one(env: CoordELEnv, ds: Dataset, t: datetime | None) -> str:
    return "" if t is None else _render(env, ds, (t,))


# --------------------------------------------------------------------------- the tables


class _CoordFunctions:
    """The ``coord:`` functions over one env; wrapped once, at class creation, so a table is
    a set of bound methods (a compiled coordinator builds two: building closures and their
    coercing wrappers per coordinator was most of a herd's compile time)."""

    __slots__ = ("env", "start")

    def __init__(self, env: CoordELEnv, start: bool) -> None:
        self.env = env
        self.start = start

    # -- instance functions (oozie.md §3.2) -------------------------------------------

    @_el_method(int)
    def current(self, n: int) -> str:
        ds = _need_dataset(self.env, "current")
        return _one(self.env, ds, instances.current(ds, _need(self.env.nominal, "nominal time"), n))

    @_el_method(int, int)
    def current_range(self, a: int, b: int) -> str:
        ds = _need_dataset(self.env, "currentRange")
        return _render(
            self.env, ds, instances.current_range(ds, _need(self.env.nominal, "nominal"), a, b)
        )

    @_el_method(int, str)
    def offset(self, n: int, unit: str) -> str:
        ds = _need_dataset(self.env, "offset")
        u = _unit(unit, "offset", _OFFSET_UNITS)
        return _one(
            self.env, ds, instances.offset(ds, _need(self.env.nominal, "nominal time"), n, u)
        )

    @_el_method(str)
    def absolute(self, text: str) -> str:
        ds = _need_dataset(self.env, "absolute")
        when = parse_el_time(text, "absolute")
        instances.absolute_instance(ds, when, text)
        return _one(self.env, ds, when)

    @_el_method(str, int)
    def absolute_range(self, text: str, end: int) -> str:
        ds = _need_dataset(self.env, "absoluteRange")
        when = parse_el_time(text, "absoluteRange")
        times = instances.absolute_range(ds, _need(self.env.nominal, "nominal time"), when, end)
        return _render(self.env, ds, times)

    def _end_of(self, kind: TimeUnit, name: str, n: int) -> str:
        ds = _need_dataset(self.env, name)
        t = instances.end_of_start(ds, _need(self.env.nominal, "nominal time"), kind, n)
        return _one(self.env, ds, t)

    @_el_method(int)
    def end_of_days(self, n: int) -> str:
        return self._end_of(TimeUnit.DAY, "endOfDays", n)

    @_el_method(int)
    def end_of_weeks(self, n: int) -> str:
        return self._end_of(TimeUnit.WEEK, "endOfWeeks", n)

    @_el_method(int)
    def end_of_months(self, n: int) -> str:
        return self._end_of(TimeUnit.MONTH, "endOfMonths", n)

    @_el_method(int)
    def latest(self, n: int) -> str:
        return self.latest_range(n, n)

    @_el_method(int, int)
    def latest_range(self, a: int, b: int) -> str:
        ds = _need_dataset(self.env, "latest")
        if a > 0 or b > 0:
            raise _e1004(
                "coord:latest: latest:n must be less than or equal to 0",
                hint="latest(0) is the newest existing instance, latest(-1) the one before",
            )
        if not self.start or self.env.exists is None:
            raise Deferred("latest is resolved at the input check")
        found = instances.latest_range(
            ds, _need(self.env.actual, "actual time"), a, b, _done_exists(self.env, ds)
        )
        if not found.resolved:
            raise Deferred("no such instance yet")
        return _render(self.env, ds, found.instances)

    @_el_method(int, int)
    def future(self, n: int, limit: int) -> str:
        return self.future_range(n, n, limit)

    @_el_method(int, int, int)
    def future_range(self, a: int, b: int, limit: int) -> str:
        ds = _need_dataset(self.env, "future")
        if a < 0 or b < 0:
            raise _e1004("coord:future: future:n must be greater than or equal to 0")
        if limit <= 0:
            raise _e1004("coord:future: future:instance must be greater than 0")
        if not self.start or self.env.exists is None:
            raise Deferred("future is resolved at the input check")
        found = instances.future_range(
            ds, _need(self.env.nominal, "nominal time"), a, b, limit, _done_exists(self.env, ds)
        )
        if not found.resolved:
            raise Deferred("no such instance yet")
        return _render(self.env, ds, found.instances)

    # -- helpers (§3.3) ----------------------------------------------------------------

    @_el_method(int)
    def hours_in_day(self, n: int) -> int:
        ds = _need_dataset(self.env, "hoursInDay")
        return instances.hours_in_day(ds, _need(self.env.nominal, "nominal time"), n)

    @_el_method(int)
    def days_in_month(self, n: int) -> int:
        ds = _need_dataset(self.env, "daysInMonth")
        return instances.days_in_month(ds, _need(self.env.nominal, "nominal time"), n)

    @_el_method()
    def tz_offset(self) -> int:
        ds = _need_dataset(self.env, "tzOffset")
        return instances.tz_offset(
            ds.timezone, self.env.coord_timezone, _need(self.env.nominal, "nominal time")
        )

    # -- action / configuration functions (§3.4) ---------------------------------------

    @_el_method()
    def nominal_time(self) -> str:
        return _format(_need(self.env.nominal, "nominal time"))

    @_el_method()
    def actual_time(self) -> str:
        return _format(_need(self.env.actual, "actual time"))

    @_el_method()
    def action_id(self) -> str:
        return self.env.action_id

    @_el_method()
    def name(self) -> str:
        return self.env.app_name

    @_el_method()
    def user(self) -> str:
        return self.env.user

    @_el_method(str)
    def conf(self, key: str) -> str:
        return self.env.conf.get(key, "")

    @_el_method(str)
    def data_in(self, key: str) -> str:
        if not self.start:
            raise Deferred("dataIn is resolved at action start")
        if key not in self.env.data_in:
            known = ", ".join(self.env.data_in) or "none"
            raise _e1004(
                f"coord:dataIn: no data-in or input-logic operator named [{key}]",
                hint=f"defined: {known}",
            )
        uris = self.env.data_in[key]
        if uris is None:
            raise Deferred("inputs not resolved yet")
        return ",".join(uris)

    @_el_method(str)
    def data_out(self, key: str) -> str:
        if not self.start:
            raise Deferred("dataOut is resolved at action start")
        if key not in self.env.data_out:
            known = ", ".join(self.env.data_out) or "none"
            raise _e1004(f"coord:dataOut: no data-out named [{key}]", hint=f"defined: {known}")
        return ",".join(self.env.data_out[key])


_COORD_TABLE: tuple[tuple[str, str], ...] = (
    ("coord:current", "current"),
    ("coord:currentRange", "current_range"),
    ("coord:offset", "offset"),
    ("coord:absolute", "absolute"),
    ("coord:absoluteRange", "absolute_range"),
    ("coord:endOfDays", "end_of_days"),
    ("coord:endOfWeeks", "end_of_weeks"),
    ("coord:endOfMonths", "end_of_months"),
    ("coord:latest", "latest"),
    ("coord:latestRange", "latest_range"),
    ("coord:future", "future"),
    ("coord:futureRange", "future_range"),
    ("coord:hoursInDay", "hours_in_day"),
    ("coord:daysInMonth", "days_in_month"),
    ("coord:tzOffset", "tz_offset"),
    ("coord:nominalTime", "nominal_time"),
    ("coord:actualTime", "actual_time"),
    ("coord:actionId", "action_id"),
    ("coord:name", "name"),
    ("coord:user", "user"),
    ("coord:conf", "conf"),
    ("coord:dataIn", "data_in"),
    ("coord:dataOut", "data_out"),
)


def coord_function_names() -> frozenset[str]:
    """Every ``coord:`` function of some phase: a name outside them is a mistake at submit."""
    return frozenset(
        {name for name, _ in _COORD_TABLE} | date_functions().keys() | INSTANCE_SPEC_NAMES
    )


def coord_function_signatures() -> dict[str, tuple[str, ...]]:
    """The parameter types of every ``coord:`` function of a table (not the instance specs of
    an event schedule), for a submit-time check of argument counts."""
    methods = {name: getattr(_CoordFunctions, attr) for name, attr in _COORD_TABLE}
    return el_signatures({**methods, **date_functions()})


def coord_functions(env: CoordELEnv, phase: Phase) -> dict[str, Callable[..., Any]]:
    """The ``coord:`` function table of ``phase``, every function reading ``env``."""
    fns = _CoordFunctions(env, phase is Phase.START)
    table: dict[str, Callable[..., Any]] = {name: getattr(fns, attr) for name, attr in _COORD_TABLE}
    table.update(date_functions())
    return table


@functools.cache  # pure functions: one table for every caller (callers copy, never mutate)
def date_functions() -> dict[str, Callable[..., Any]]:
    """``dateOffset``, ``dateTzOffset``, ``formatTime``, ``epochTime``: pure, every phase."""

    def date_offset(text: str, n: int, unit: str) -> str:
        base = parse_el_time(text, "dateOffset")
        return format_oozie_time(add(base, n, _unit(unit, "dateOffset"), UTC))

    def date_tz_offset(text: str, tz: str) -> str:
        base = parse_el_time(text, "dateTzOffset")
        try:
            zone = parse_timezone(tz)
        except BundletuiError as exc:
            raise _e1004(f"coord:dateTzOffset: {exc.message}", exc.hint) from None
        local = wall_clock(base, zone)
        # Oozie formats the wall time with its processing mask, literal 'Z' included (§9.4).
        return f"{local.year:04d}-{local:%m-%dT%H:%M}Z"  # %Y: year 1 as "1"

    def format_time(text: str, pattern: str) -> str:
        return java_format(parse_el_time(text, "formatTime"), pattern)

    def epoch_time(text: str, millis: str) -> str:
        t = parse_el_time(text, "epochTime")
        ms = int(t.timestamp()) * 1000
        return str(ms) if millis.strip().lower() == "true" else str(ms // 1000)

    return {
        "coord:dateOffset": el_function(str, int, str)(date_offset),
        "coord:dateTzOffset": el_function(str, str)(date_tz_offset),
        "coord:formatTime": el_function(str, str)(format_time),
        "coord:epochTime": el_function(str, str)(epoch_time),
    }


# --------------------------------------------------------------------------- instance specs


@dataclass(frozen=True, slots=True)
class InstanceCall:
    """An instance function call with evaluated arguments, e.g. ``current(-2)``.

    ``str()`` gives Oozie's echo of the call (``${coord:current(-2)}``), which is what ends up
    in text if the call is not the whole expression.
    """

    kind: str
    args: tuple[Any, ...] = field(default=())

    def __str__(self) -> str:
        return "${coord:" + self.kind + "(" + ", ".join(_arg(a) for a in self.args) + ")}"


def _arg(a: Any) -> str:
    return f"'{a}'" if isinstance(a, str) else str(a)


@functools.cache  # pure, like date_functions
def instance_spec_functions() -> dict[str, Callable[..., Any]]:
    """Instance functions that describe the call instead of resolving it (materializer use)."""

    def spec(kind: str, *types: type) -> Callable[..., Any]:
        def fn(*args: Any) -> InstanceCall:
            return InstanceCall(kind, tuple(args))

        return el_function(*types)(fn)

    return {
        "coord:current": spec("current", int),
        "coord:currentRange": spec("currentRange", int, int),
        "coord:offset": spec("offset", int, str),
        "coord:absolute": spec("absolute", str),
        "coord:absoluteRange": spec("absoluteRange", str, int),
        "coord:endOfDays": spec("endOfDays", int),
        "coord:endOfWeeks": spec("endOfWeeks", int),
        "coord:endOfMonths": spec("endOfMonths", int),
        "coord:latest": spec("latest", int),
        "coord:latestRange": spec("latestRange", int, int),
        "coord:future": spec("future", int, int),
        "coord:futureRange": spec("futureRange", int, int, int),
    }


# --------------------------------------------------------------------------- SimpleDateFormat

_MONTHS = [calendar.month_name[i] for i in range(1, 13)]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_PATTERN_LETTERS = frozenset("GyYMLwWDdFEuaHkKhmsSzZX")


def java_format(t: datetime, pattern: str) -> str:
    """Java ``SimpleDateFormat(pattern).format(t)`` in UTC, US locale (Oozie's formatTime).

    Quoted text (``'T'``, ``''`` for a quote) is literal; an unquoted letter that is not a
    pattern letter is an error, as in Java ("Illegal pattern character").
    """
    u = t if t.tzinfo is UTC else t.astimezone(UTC)
    fmt, extras = _compiled_format(pattern)
    if extras:
        return fmt.format(u, *[fn(u) for fn in extras])
    return fmt.format(u)


_ATTRS = {"y": "year", "d": "day", "H": "hour", "m": "minute", "s": "second", "M": "month"}


@functools.lru_cache(maxsize=256)
def _compiled_format(pattern: str) -> tuple[str, tuple[Callable[[datetime], str], ...]]:
    """The pattern as one ``str.format`` string over the time (plain numeric fields) plus
    the fields that need code (names, week numbers…), computed per call."""
    fmt: list[str] = []
    extras: list[Callable[[datetime], str]] = []
    for part in _compile_pattern(pattern):
        if isinstance(part, str):
            fmt.append(part.replace("{", "{{").replace("}", "}}"))
            continue
        c, count = part
        attr = _ATTRS.get(c)
        if attr is not None and not (c == "y" and count == 2) and not (c == "M" and count > 2):
            fmt.append(f"{{0.{attr}:0{count}d}}")
        else:
            extras.append(functools.partial(_field, c=c, count=count))
            fmt.append(f"{{{len(extras)}}}")
    return "".join(fmt), tuple(extras)


@functools.lru_cache(maxsize=256)
def _compile_pattern(pattern: str) -> tuple[str | tuple[str, int], ...]:
    out: list[str | tuple[str, int]] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "'":
            j = i + 1
            if j < n and pattern[j] == "'":
                out.append("'")
                i += 2
                continue
            buf: list[str] = []
            while True:
                if j >= n:
                    raise _e1004(
                        f"coord:formatTime: unterminated quote in pattern [{pattern}]",
                        hint="close quoted text with ' (write '' for a quote)",
                    )
                if pattern[j] == "'":
                    if j + 1 < n and pattern[j + 1] == "'":
                        buf.append("'")
                        j += 2
                        continue
                    break
                buf.append(pattern[j])
                j += 1
            out.append("".join(buf))
            i = j + 1
            continue
        if ("a" <= c <= "z") or ("A" <= c <= "Z"):
            if c not in _PATTERN_LETTERS:
                raise _e1004(
                    f"coord:formatTime: Illegal pattern character '{c}' in [{pattern}]",
                    hint="quote literal letters: 'T'; see Java SimpleDateFormat",
                )
            j = i
            while j < n and pattern[j] == c:
                j += 1
            out.append((c, j - i))
            i = j
            continue
        out.append(c)
        i += 1
    return tuple(out)


def _num(value: int, count: int) -> str:
    return str(value).zfill(count)


def _week_fields(d: date) -> tuple[int, int]:
    """(week of year, week year) with Sunday-first weeks and one minimal day (US)."""
    sunday = d - timedelta(days=(d.weekday() + 1) % 7)
    next_jan1 = date(d.year + 1, 1, 1)
    if sunday + timedelta(days=6) >= next_jan1:
        return 1, d.year + 1
    jan1 = date(d.year, 1, 1)
    first_sunday = jan1 - timedelta(days=(jan1.weekday() + 1) % 7)
    return (sunday - first_sunday).days // 7 + 1, d.year


def _field(u: datetime, c: str, count: int) -> str:
    d = u.date()
    if c == "G":
        return "AD"
    if c == "y":
        return _num(u.year % 100, 2) if count == 2 else _num(u.year, count)
    if c == "Y":
        year = _week_fields(d)[1]
        return _num(year % 100, 2) if count == 2 else _num(year, count)
    if c in "ML":
        if count >= 4:
            return _MONTHS[u.month - 1]
        if count == 3:
            return _MONTHS[u.month - 1][:3]
        return _num(u.month, count)
    if c == "w":
        return _num(_week_fields(d)[0], count)
    if c == "W":
        first = d.replace(day=1)
        offset = (first.weekday() + 1) % 7
        return _num((u.day - 1 + offset) // 7 + 1, count)
    if c == "D":
        return _num(d.timetuple().tm_yday, count)
    if c == "d":
        return _num(u.day, count)
    if c == "F":
        return _num((u.day - 1) // 7 + 1, count)
    if c == "E":
        name = _DAYS[u.weekday()]
        return name if count >= 4 else name[:3]
    if c == "u":
        return _num(u.weekday() + 1, count)
    if c == "a":
        return "AM" if u.hour < 12 else "PM"
    if c == "H":
        return _num(u.hour, count)
    if c == "k":
        return _num(u.hour or 24, count)
    if c == "K":
        return _num(u.hour % 12, count)
    if c == "h":
        return _num(u.hour % 12 or 12, count)
    if c == "m":
        return _num(u.minute, count)
    if c == "s":
        return _num(u.second, count)
    if c == "S":
        return _num(u.microsecond // 1000, count)
    if c == "z":
        return "Coordinated Universal Time" if count >= 4 else "UTC"
    if c == "Z":
        return "+0000"
    return "Z"  # X: ISO 8601 zone, "Z" for UTC at any width
