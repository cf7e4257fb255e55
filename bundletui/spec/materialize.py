"""Coordinator actions from a coordinator definition: the three Oozie phases as pure functions.

Used by ``bundletui dryrun`` and by the engine's materializer, so both agree to the byte.
Nothing here touches the store or reads the clock; the file system is reached only through
the ``exists(path) -> bool`` callback the caller passes (:func:`local_exists` is the one for
local paths and ``file://`` URIs).

API (all times aware UTC ``datetime``)::

    plan = plan_action(app, conf, coord_id=cid, number=n, nominal=t, actual=created,
                       exists=exists)                       # action creation (materialization)
    check = check_inputs(app, plan, now=now, exists=exists) # input check, every minute
    if check.ready:
        conf = run_conf(app, conf, plan, check, coord_id=cid, action_id=plan.action_id,
                        user=user, now=now)                 # action start: the workflow's conf

* :func:`plan_action` — **creation phase** (oozie.md §2.5, §3.2). Every data-in resolved to its
  instance URIs in Oozie's order (``<instance>`` elements in document order, a range newest
  first), each with its done-flag path (``uri/flag``, or the URI when the flag is empty);
  ``latest()``/``future()`` are not resolvable yet and are kept as :class:`Pending` (their EL
  text is ``Pending.text``, e.g. ``${coord:latest(0)}``); data-outs resolved. Instances before
  the dataset's initial instance are dropped. ``exists`` is not consulted (nothing at creation
  depends on the file system) and may be ``None``. The :class:`ActionPlan` is plain data
  (``to_dict``/``from_dict``) so the engine can store it.
* :func:`check_inputs` — **input check** (§2.4, §2.7). Checks the done-flag paths and
  resolves latest (from the action's actual time) and future (from its nominal time) against
  ``exists``, then decides READY. By default (no input logic) as Oozie's
  CoordActionInputCheckXCommand: all data-ins complete; paths are checked in plan order up to
  the first missing one, which is reported *with every path after it* (not checked, as in
  Oozie's missingDependencies), and latest/future are resolved only once every path exists.
  With ``<input-logic>`` every path is checked, and ``and``
  (all), ``or`` (first child in document order that is satisfied; a child still inside its
  ``wait`` holds the ``or``), ``combine`` (instance i of the first data-in, else of the next),
  ``min`` (enough instances), ``wait`` (minutes from max(nominal, created)); min/wait inherit
  from the parent. :class:`InputCheck` carries the missing paths, the still-unresolved EL, and
  the URIs ``coord:dataIn`` returns per data-in and per named operator: a data-in's resolved
  latest/future URIs first, then its others (Oozie prepends them when it resolves them).
* :func:`run_conf` — **action start**. The coordinator's ``<action><workflow><configuration>``
  values evaluated (``coord:dataIn``, ``dataOut``, ``nominalTime``, ``actualTime``,
  ``formatTime``, job properties as ``${name}``; ``wf:``/``fs:``… functions are left for the
  workflow), laid over the job configuration, with ``oozie.wf.application.path`` set to the
  workflow app path and the coordinator/bundle app-path properties removed (a workflow
  submission names exactly one application). :func:`workflow_conf` returns only the resolved
  ``<configuration>`` entries (what ``dryrun`` shows).
* :func:`iter_actions` — (number, nominal time) of the actions a coordinator materializes,
  from :func:`bundletui.model.timeutil.iter_nominal_times`.

Speed: each (app, conf) pair is compiled once (instance expressions reduced to calls, URI
templates split, the start-phase function table built) and cached by object identity, so keep
passing the same ``app``/``conf`` objects and do not mutate ``conf``. Datasets on a fixed
grid (minute/hour steps, or day/week steps in a fixed-offset zone) take an arithmetic path for
``current`` with URIs cached per instance index. A compiled coordinator is not thread-safe.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from types import MappingProxyType
from typing import Any, NamedTuple
from urllib.parse import unquote, urlsplit

from bundletui.errors import BundletuiError, SpecError
from bundletui.model import instances
from bundletui.model.apps import CoordinatorApp, DataIn, Dataset, InputLogic, LogicOp
from bundletui.model.frequency import TimeUnit
from bundletui.model.ids import action_id as make_action_id
from bundletui.model.timeutil import (
    calendar_unit,
    format_oozie_time,
    iter_nominal_times,
    parse_oozie_time,
    parse_timezone,
)
from bundletui.spec.coord_el import (
    INSTANCE_SPEC_NAMES,
    SLA_CONSTANTS,
    CoordELEnv,
    InstanceCall,
    Phase,
    coord_functions,
    instance_spec_functions,
    java_format,
    parse_el_time,
)
from bundletui.spec.el import (
    BASIC_CONSTANTS,
    Deferred,
    ELContext,
    Template,
    basic_functions,
    compile_template,
    has_el,
    property_variables,
)
from bundletui.spec.located import line_of

__all__ = [
    "ActionPlan",
    "CompiledCoordinator",
    "DataInPlan",
    "DataOutPlan",
    "ExistsFn",
    "InputCheck",
    "Pending",
    "check_inputs",
    "compile_coordinator",
    "iter_actions",
    "local_exists",
    "plan_action",
    "run_conf",
    "workflow_conf",
]

ExistsFn = Callable[[str], bool]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EMPTY: Mapping[str, tuple[str, ...] | None] = MappingProxyType({})

# Properties that name an application; the workflow's conf keeps only its own.
_APP_PATH_KEYS = (
    "oozie.coord.application.path",
    "oozie.bundle.application.path",
    "oozie.application.bundle.path",
)
WF_APP_PATH = "oozie.wf.application.path"
_LATER_PREFIXES = ("wf:", "fs:", "hadoop:", "hcat:")


# --------------------------------------------------------------------------- plan data


class Pending(NamedTuple):
    """A ``latest``/``future`` instance (or range) that the input check resolves."""

    kind: str  # "latest" | "future"
    start: int
    end: int
    limit: int = 0  # future: how many instances to look ahead

    @property
    def text(self) -> str:
        """Oozie's echo of the unresolved call."""
        if self.kind == "latest":
            if self.start == self.end:
                return f"${{coord:latest({self.start})}}"
            return f"${{coord:latestRange({self.start},{self.end})}}"
        if self.start == self.end:
            return f"${{coord:future({self.start}, {self.limit})}}"
        return f"${{coord:futureRange({self.start}, {self.end}, {self.limit})}}"


class DataInPlan(NamedTuple):
    """One data-in at creation: resolved URIs (Oozie order), their done paths, pending parts."""

    name: str
    dataset: str
    uris: tuple[str, ...]
    done_paths: tuple[str, ...]
    pending: tuple[Pending, ...] = ()


class DataOutPlan(NamedTuple):
    name: str
    dataset: str
    uris: tuple[str, ...]


class ActionPlan(NamedTuple):
    """A materialized coordinator action (the creation phase's result)."""

    number: int
    nominal: datetime
    actual: datetime
    action_id: str
    data_ins: tuple[DataInPlan, ...] = ()
    data_outs: tuple[DataOutPlan, ...] = ()

    @property
    def dependencies(self) -> tuple[str, ...]:
        """Every done-flag path of the resolved instances, data-in by data-in."""
        out: list[str] = []
        for d in self.data_ins:
            out.extend(d.done_paths)
        return tuple(out)

    @property
    def unresolved(self) -> tuple[str, ...]:
        """The latest/future EL still to resolve."""
        return tuple(p.text for d in self.data_ins for p in d.pending)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "nominal": format_oozie_time(self.nominal),
            "actual": self.actual.astimezone(UTC).isoformat(),
            "action_id": self.action_id,
            "data_ins": [
                {
                    "name": d.name,
                    "dataset": d.dataset,
                    "uris": list(d.uris),
                    "done_paths": list(d.done_paths),
                    "pending": [[p.kind, p.start, p.end, p.limit] for p in d.pending],
                }
                for d in self.data_ins
            ],
            "data_outs": [
                {"name": d.name, "dataset": d.dataset, "uris": list(d.uris)} for d in self.data_outs
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ActionPlan:
        return cls(
            number=int(data["number"]),
            nominal=parse_oozie_time(data["nominal"]),
            actual=datetime.fromisoformat(data["actual"]).astimezone(UTC),
            action_id=data["action_id"],
            data_ins=tuple(
                DataInPlan(
                    d["name"],
                    d["dataset"],
                    tuple(d["uris"]),
                    tuple(d["done_paths"]),
                    tuple(Pending(k, int(s), int(e), int(lim)) for k, s, e, lim in d["pending"]),
                )
                for d in data.get("data_ins", ())
            ),
            data_outs=tuple(
                DataOutPlan(d["name"], d["dataset"], tuple(d["uris"]))
                for d in data.get("data_outs", ())
            ),
        )


class InputCheck(NamedTuple):
    """The input check's verdict for one action at one moment."""

    ready: bool
    missing: tuple[str, ...] = ()  # done-flag paths that do not exist (plan order)
    unresolved: tuple[str, ...] = ()  # latest/future EL not resolvable yet
    data_in: Mapping[str, tuple[str, ...] | None] = _EMPTY
    waiting_until: datetime | None = None  # when a pending input-logic wait= runs out
    waiting_for: str | None = None  # the data-in (or combine) that wait= holds the action for

    @property
    def missing_dependencies(self) -> tuple[str, ...]:
        """Missing paths, then unresolved EL: what Oozie shows as missing dependencies."""
        return self.missing + self.unresolved


# --------------------------------------------------------------------------- file system


def local_exists(uri: str) -> bool:
    """Existence of a local path or ``file://`` URI; other schemes (hdfs://…) never exist."""
    if uri.startswith("/"):
        return os.path.exists(uri)
    if uri.startswith("file:"):
        if uri.startswith("file:///"):
            path = uri[7:]
        elif uri.startswith("file://localhost/"):
            path = uri[16:]
        else:
            parts = urlsplit(uri)
            if parts.netloc:
                return False
            path = parts.path
        return os.path.exists(unquote(path) if "%" in path else path)
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", uri):
        return False
    return os.path.exists(uri)


# --------------------------------------------------------------------------- datasets

_VAR = re.compile(r"\$\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}")
_FIELDS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE")
_CACHE_LIMIT = 500_000


class _UriTemplate:
    """A uri-template compiled to one ``str.format`` call; ``${YEAR}``…``${MINUTE}`` come from
    the instance time in UTC (§3.2), other ``${name}`` stay as written."""

    __slots__ = ("_fmt",)

    _SPECS = ("{0}", "{1:02d}", "{2:02d}", "{3:02d}", "{4:02d}")

    def __init__(self, text: str) -> None:
        parts: list[str] = []
        pos = 0
        for m in _VAR.finditer(text):
            parts.append(_brace(text[pos : m.start()]))
            name = m.group(1)
            parts.append(
                self._SPECS[_FIELDS.index(name)] if name in _FIELDS else _brace(m.group(0))
            )
            pos = m.end()
        parts.append(_brace(text[pos:]))
        self._fmt = "".join(parts)

    def render(self, t: datetime) -> str:
        u = t if t.tzinfo is UTC else t.astimezone(UTC)
        return self._fmt.format(u.year, u.month, u.day, u.hour, u.minute)


def _brace(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


class _DatasetPlanner:
    """A dataset's instance grid with URI / done-path caches."""

    def __init__(self, ds: Dataset) -> None:
        self.ds = ds
        self.initial = instances.initial_instance(ds)
        tz = parse_timezone(ds.timezone)
        unit = calendar_unit(ds.frequency.unit)
        f = ds.frequency.value
        step: timedelta | None = None
        if unit is TimeUnit.MINUTE:
            step = timedelta(minutes=f)
        elif unit is TimeUnit.HOUR:
            step = timedelta(hours=f)
        elif isinstance(tz, timezone) and unit in (TimeUnit.DAY, TimeUnit.WEEK):
            step = timedelta(days=f * (7 if unit is TimeUnit.WEEK else 1))
        self.step = step  # fixed grid: instance k is initial + k*step exactly
        self.flag = ds.done_flag
        self.template = _UriTemplate(ds.uri_template.strip())
        self._by_time: dict[datetime, tuple[str, str]] = {}
        # fixed grid: URIs and done paths of instances base, base+1, ... as flat lists
        self._base = 0
        self._uris: list[str] = []
        self._dones: list[str] = []

    def pair(self, t: datetime) -> tuple[str, str]:
        """(uri, done path) of the instance at ``t``."""
        hit = self._by_time.get(t)
        if hit is None:
            if len(self._by_time) > _CACHE_LIMIT:
                self._by_time.clear()
            uri = self.template.render(t)
            hit = (uri, f"{uri}/{self.flag}" if self.flag else uri)
            self._by_time[t] = hit
        return hit

    def _fill(self, lo: int, hi: int) -> None:
        """Make instances lo..hi (fixed grid) available in the flat lists."""
        size = len(self._uris)
        if not size or lo < self._base or lo > self._base + size or size > _CACHE_LIMIT:
            self._base, self._uris, self._dones = lo, [], []
        assert self.step is not None
        initial, step, render, flag = self.initial, self.step, self.template.render, self.flag
        i = self._base + len(self._uris)
        while i <= hi:
            uri = render(initial + step * i)
            self._uris.append(uri)
            self._dones.append(f"{uri}/{flag}" if flag else uri)
            i += 1

    def current_uris(
        self, nominal: datetime, a: int, b: int
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """URIs and done paths of ``current(a)..current(b)``, newest first."""
        if self.step is None or a > b:
            pairs = [self.pair(t) for t in instances.current_range(self.ds, nominal, a, b)]
            return tuple([p[0] for p in pairs]), tuple([p[1] for p in pairs])
        if nominal < self.initial:
            return (), ()
        k = (nominal - self.initial) // self.step
        hi = k + b
        if hi < 0:
            return (), ()
        lo = k + a if k + a > 0 else 0
        if lo < self._base or hi >= self._base + len(self._uris):
            self._fill(lo, hi)
        first, last = hi - self._base, lo - self._base - 1  # newest first: a reversed slice
        if last < 0:
            return tuple(self._uris[first::-1]), tuple(self._dones[first::-1])
        return tuple(self._uris[first:last:-1]), tuple(self._dones[first:last:-1])

    def current_pairs(self, nominal: datetime, a: int, b: int) -> list[tuple[str, str]]:
        """``current(a)..current(b)`` newest first, as (uri, done path) pairs."""
        uris, dones = self.current_uris(nominal, a, b)
        return list(zip(uris, dones, strict=True))

    def exists_fn(self, exists: ExistsFn) -> Callable[[datetime], bool]:
        return lambda t: exists(self.pair(t)[1])


# --------------------------------------------------------------------------- instance expressions


class _InstanceExpr:
    """One ``<instance>``/``<start-instance>``/``<end-instance>`` text, reduced to a call."""

    __slots__ = ("static", "template", "text")

    def __init__(self, text: str, ctx: ELContext, env: CoordELEnv) -> None:
        self.text = text.strip()
        self.template: Template = compile_template(self.text)
        self.static: InstanceCall | None = None
        env.nominal = env.actual = None  # probe: action-dependent functions defer
        res = self.template.resolve(ctx)
        if res.complete:
            self.static = _as_call(res.value, self.text)
        elif not any(name in INSTANCE_SPEC_NAMES for name, _n in self.template.calls):
            # deferred, and no instance function in it (coord:nominalTime(), coord:dataIn):
            # whatever the action, it is not one instance (refused at submit, not per action)
            raise _not_an_instance(self.text)

    def call(self, ctx: ELContext) -> InstanceCall:
        if self.static is not None:
            return self.static
        res = self.template.resolve(ctx)
        if not res.complete:
            raise SpecError(
                "E1004",
                f"Expression language evaluation error, cannot resolve instance [{self.text}]",
            )
        return _as_call(res.value, self.text)


class NotAnInstance(SpecError):
    """An instance element whose value is not one instance function call."""


def _as_call(value: Any, text: str) -> InstanceCall:
    if isinstance(value, InstanceCall):
        return value
    raise _not_an_instance(text)


def _not_an_instance(text: str) -> NotAnInstance:
    return NotAnInstance(
        "E1010",
        f"Invalid data in coordinator xml. [instance [{text}] must be one instance function "
        "such as ${coord:current(-1)}]",
        hint="use coord:current, offset, latest, future, absolute or endOf* (one per element)",
    )


_RANGE_START_ONLY = ("absolute", "endOfDays", "endOfWeeks", "endOfMonths")
_END_OF = {"endOfDays": TimeUnit.DAY, "endOfWeeks": TimeUnit.WEEK, "endOfMonths": TimeUnit.MONTH}
_OFFSET_UNITS = ("MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "YEAR")


def _out_of_calendar(kind: str, name: str) -> SpecError:
    return _e1010(
        f"{kind} [{name}]: an instance falls outside the calendar (years 1 to 9999)",
        hint="check the numbers given to coord:current / offset / future in this event",
    )


def _e1010(detail: str, hint: str | None = None) -> SpecError:
    return SpecError("E1010", f"Invalid data in coordinator xml. [{detail}]", hint=hint)


def _offset_unit(text: str) -> TimeUnit:
    if text not in _OFFSET_UNITS:
        raise SpecError(
            "E1004",
            f"Expression language evaluation error, coord:offset: [{text}] is not a time unit",
            hint="use MINUTE, HOUR, DAY, WEEK, MONTH or YEAR",
        )
    return TimeUnit(text)


def _latest_args(a: int, b: int) -> Pending:
    if a > 0 or b > 0:
        raise SpecError(
            "E1004",
            "Expression language evaluation error, latest:n must be less than or equal to 0",
            hint="latest(0) is the newest existing instance, latest(-1) the one before",
        )
    if a > b:
        raise _e1010(
            f"start-instance should be equal or earlier than the end-instance: latest({a}) "
            f"and latest({b})"
        )
    return Pending("latest", a, b)


def _future_args(a: int, b: int, limit: int) -> Pending:
    if a < 0 or b < 0:
        raise SpecError(
            "E1004",
            "Expression language evaluation error, future:n must be greater than or equal to 0",
        )
    if limit <= 0:
        raise SpecError(
            "E1004", "Expression language evaluation error, future:instance must be greater than 0"
        )
    if a > b:
        raise _e1010(
            f"start-instance should be equal or earlier than the end-instance: future({a}) "
            f"and future({b})"
        )
    return Pending("future", a, b, limit)


# --------------------------------------------------------------------------- submit checks


class InstanceProbe:
    """Instance expressions reduced to calls without an action, as the engine's compile step
    reduces them (:class:`CompiledCoordinator`): what ``submit`` can check before any action
    exists. :meth:`call` is None for an expression that depends on the action (it is checked
    when the action is made); it raises what compiling the coordinator would raise."""

    def __init__(self, app: CoordinatorApp, conf: Mapping[str, str]) -> None:
        self._app = app
        variables = {**BASIC_CONSTANTS, **SLA_CONSTANTS, **property_variables(conf)}
        self._env, self._ctx = _creation_context(
            app, conf, variables, lambda: self._env.actual or _EPOCH
        )

    def call(self, dataset: str, text: str) -> InstanceCall | None:
        self._env.dataset = self._app.dataset(dataset)
        return _InstanceExpr(text, self._ctx, self._env).static


def _creation_context(
    app: CoordinatorApp,
    conf: Mapping[str, str],
    variables: Mapping[str, Any],
    now: Callable[[], datetime],
) -> tuple[CoordELEnv, ELContext]:
    """The creation phase's EL: its env (functions read ``env.dataset``) and its table."""
    env = CoordELEnv(
        coord_timezone=app.timezone, app_name=app.name, user=conf.get("user.name", ""), conf=conf
    )
    functions: dict[str, Callable[..., Any]] = {
        **basic_functions(now),
        **coord_functions(env, Phase.CREATION),
        **instance_spec_functions(),
    }
    return env, ELContext(dict(variables), functions)


_FIXED_MINUTES = {TimeUnit.MINUTE: 1, TimeUnit.HOUR: 60}


def check_instance_call(call: InstanceCall) -> None:
    """What making any action would refuse in one ``<instance>`` whose call is known now
    (literal arguments): the errors :meth:`CompiledCoordinator.plan` raises, raised earlier.
    (latest/future in a data-out is left to the action, as Oozie leaves it.)"""
    kind, args = call.kind, call.args
    if kind == "offset":
        _offset_unit(args[1])
    elif kind in ("latest", "latestRange"):
        _latest_args(args[0], args[-1])
    elif kind == "future":
        _future_args(args[0], args[0], args[1])
    elif kind == "futureRange":
        _future_args(args[0], args[1], args[2])
    elif kind == "currentRange" and args[0] > args[1]:
        raise instances.current_order_error(args[0], args[1])
    elif kind in _RANGE_START_ONLY:
        raise _start_only(kind)


def check_instance_range(start: InstanceCall, end: InstanceCall) -> None:
    """What making any action would refuse in a ``<start-instance>`` / ``<end-instance>``
    pair whose calls are known now: a range function at either end, a mix Oozie does not
    support, a start after the end (current, latest, future, and offsets whose units compare
    without a calendar)."""
    _check_range_ends(start, end)
    a, b = start.args, end.args
    if start.kind == "current" and a[0] > b[0]:
        raise instances.current_order_error(a[0], b[0])
    if start.kind == "latest":
        _latest_args(a[0], b[0])
    elif start.kind == "future":
        _future_args(a[0], b[0], b[1])
    elif start.kind == "offset":
        unit_a, unit_b = _offset_unit(a[1]), _offset_unit(b[1])
        if unit_a is unit_b:
            later = a[0] > b[0]
        elif unit_a in _FIXED_MINUTES and unit_b in _FIXED_MINUTES:
            later = a[0] * _FIXED_MINUTES[unit_a] > b[0] * _FIXED_MINUTES[unit_b]
        else:  # days, months…: how long depends on the calendar; the action checks it
            later = False
        if later:
            raise instances.offset_order_error(a[0], unit_a, b[0], unit_b)


def _check_range_ends(start: InstanceCall, end: InstanceCall) -> None:
    """Single instances at both ends, of kinds Oozie lets a range mix."""
    for call, where in ((start, "start-instance"), (end, "end-instance")):
        if call.kind.endswith("Range"):
            raise _e1010(
                f"{where} cannot be a range function (coord:{call.kind})",
                hint="write single instances in start-instance and end-instance",
            )
    instances.check_range_kinds(start.kind, end.kind)


def _start_only(kind: str) -> SpecError:
    """E1010 for absolute / endOf* given where a single instance is read."""
    return _e1010(
        f"coord:{kind}() is only supported as start-instance with end-instance coord:current(n)",
        hint="<start-instance>${coord:" + kind + "(...)}</start-instance>"
        "<end-instance>${coord:current(0)}</end-instance>",
    )


# --------------------------------------------------------------------------- compiled app


@dataclass
class _DataInSpec:
    name: str
    dataset: str
    planner: _DatasetPlanner
    items: list[tuple[_InstanceExpr, _InstanceExpr | None]]
    fast: tuple[int, int] | None  # the whole data-in is one current range on a fixed grid


@dataclass
class _DataOutSpec:
    name: str
    dataset: str
    planner: _DatasetPlanner
    expr: _InstanceExpr
    fast: int | None = None  # current(n) on a fixed grid


def _later(*_args: Any) -> Any:
    raise Deferred("evaluated by the workflow")


_FORMAT_TIME = re.compile(
    r"\$\{\s*coord:formatTime\(\s*coord:(nominalTime|actualTime)\(\s*\)\s*,\s*'([^']*)'\s*\)\s*\}"
)
_WHOLE_CALL = re.compile(
    r"\$\{\s*coord:(dataIn|dataOut|nominalTime|actualTime)\(\s*(?:'([^']*)'|\"([^\"]*)\")?\s*\)\s*\}"
)


class CompiledCoordinator:
    """A coordinator definition and job conf prepared for fast, repeated materialization."""

    def __init__(self, app: CoordinatorApp, conf: Mapping[str, str]) -> None:
        self.app = app
        self.conf = conf
        self._now: datetime | None = None  # the start phase's "now", set per call
        variables = {**BASIC_CONSTANTS, **SLA_CONSTANTS, **property_variables(conf)}
        self._planners: dict[str, _DatasetPlanner] = {}

        # creation phase: one env + table per dataset (functions read env.dataset)
        self._inst_env, self._inst_ctx = _creation_context(app, conf, variables, self._creation_now)

        self._data_ins: list[_DataInSpec] = []
        for d in app.data_ins:
            self._data_ins.append(self._data_in_spec(d))
        self._data_outs: list[_DataOutSpec] = []
        for o in app.data_outs:
            planner = self._planner(o.dataset)
            self._inst_env.dataset = planner.ds
            expr = self._expr(o.instance)
            fast = None
            static = expr.static
            if planner.step is not None and static is not None and static.kind == "current":
                fast = static.args[0]
            self._data_outs.append(_DataOutSpec(o.name, o.dataset, planner, expr, fast))

        # start phase
        self._start_env = CoordELEnv(coord_timezone=app.timezone, app_name=app.name, conf=conf)
        start_functions: dict[str, Callable[..., Any]] = {
            **basic_functions(self._start_now),
            **coord_functions(self._start_env, Phase.START),
        }
        self._start_ctx = ELContext(variables, start_functions)
        self._conf_items: list[tuple[str, str, Template | None, Callable[[], str] | None]] = []
        for key, raw in app.workflow_conf:
            value, tmpl = raw, None
            if "${" in raw:
                tmpl = compile_template(raw)
                if tmpl.is_literal:  # only escaped \${: the workflow sees ${
                    value, tmpl = tmpl.render(self._start_ctx), None
            fast = None
            if tmpl is not None:
                # wf:/fs:… calls are the workflow's business: leave them as written
                for fname in tmpl.functions:
                    if fname.startswith(_LATER_PREFIXES):
                        start_functions.setdefault(fname, _later)
                fast = self._fast_value(value)
            self._conf_items.append((key, value, tmpl, fast))
        self._app_path_tmpl = (
            compile_template(app.workflow_app_path) if has_el(app.workflow_app_path) else None
        )
        self._base_conf = {k: v for k, v in conf.items() if k not in _APP_PATH_KEYS}
        self._logic_names = _named_nodes(app.input_logic) if app.input_logic else []

    # ------------------------------------------------------------------ compile helpers

    def _creation_now(self) -> datetime:
        return self._inst_env.actual or datetime(1970, 1, 1, tzinfo=UTC)

    def _start_now(self) -> datetime:
        return self._now or self._start_env.actual or datetime(1970, 1, 1, tzinfo=UTC)

    def _planner(self, name: str) -> _DatasetPlanner:
        p = self._planners.get(name)
        if p is None:
            try:
                ds = self.app.dataset(name)
            except KeyError:
                raise _e1010(f"undefined dataset: {name}") from None
            p = _DatasetPlanner(ds)
            self._planners[name] = p
        return p

    def _expr(self, text: str) -> _InstanceExpr:
        return _InstanceExpr(text, self._inst_ctx, self._inst_env)

    def _data_in_spec(self, d: DataIn) -> _DataInSpec:
        planner = self._planner(d.dataset)
        self._inst_env.dataset = planner.ds
        items: list[tuple[_InstanceExpr, _InstanceExpr | None]] = [
            (self._expr(text), None) for text in d.instances
        ]
        if d.start_instance is not None or d.end_instance is not None:
            if d.start_instance is None or d.end_instance is None:
                raise _e1010(
                    f"data-in [{d.name}] needs both start-instance and end-instance",
                    hint="give both, or use <instance> elements",
                )
            items.append((self._expr(d.start_instance), self._expr(d.end_instance)))
        fast: tuple[int, int] | None = None
        if planner.step is not None and len(items) == 1:
            first, second = items[0]
            s = first.static
            if second is None and s is not None and s.kind == "current":
                fast = (s.args[0], s.args[0])
            elif second is not None and s is not None and second.static is not None:
                e = second.static
                if s.kind == e.kind == "current" and s.args[0] <= e.args[0]:
                    fast = (s.args[0], e.args[0])
        return _DataInSpec(d.name, d.dataset, planner, items, fast)

    # ------------------------------------------------------------------ creation

    def plan(
        self, *, coord_id: str, number: int, nominal: datetime, actual: datetime
    ) -> ActionPlan:
        data_ins: list[DataInPlan] = []
        for spec in self._data_ins:
            try:
                data_ins.append(self._plan_in(spec, nominal, actual))
            except OverflowError:
                raise _out_of_calendar("data-in", spec.name) from None
        data_outs: list[DataOutPlan] = []
        for out in self._data_outs:
            try:
                data_outs.append(self._plan_out(out, nominal, actual))
            except OverflowError:
                raise _out_of_calendar("data-out", out.name) from None
        return ActionPlan(
            number,
            nominal,
            actual,
            make_action_id(coord_id, number),
            tuple(data_ins),
            tuple(data_outs),
        )

    def _plan_in(self, spec: _DataInSpec, nominal: datetime, actual: datetime) -> DataInPlan:
        if spec.fast is not None:
            uris, dones = spec.planner.current_uris(nominal, spec.fast[0], spec.fast[1])
            return DataInPlan(spec.name, spec.dataset, uris, dones)
        env = self._inst_env
        env.dataset = spec.planner.ds
        env.nominal, env.actual = nominal, actual
        all_pairs: list[tuple[str, str]] = []
        pending: list[Pending] = []
        for first, second in spec.items:
            if second is None:
                got = self._resolve_one(spec.planner, first.call(self._inst_ctx), nominal)
            else:
                env.nominal, env.actual = nominal, actual
                a = first.call(self._inst_ctx)
                b = second.call(self._inst_ctx)
                got = self._resolve_range(spec.planner, a, b, nominal)
            if isinstance(got, Pending):
                pending.append(got)
            else:
                all_pairs.extend(got)
        return DataInPlan(
            spec.name,
            spec.dataset,
            tuple([p[0] for p in all_pairs]),
            tuple([p[1] for p in all_pairs]),
            tuple(pending),
        )

    def _plan_out(self, out: _DataOutSpec, nominal: datetime, actual: datetime) -> DataOutPlan:
        if out.fast is not None:
            uris = out.planner.current_uris(nominal, out.fast, out.fast)[0]
            return DataOutPlan(out.name, out.dataset, uris)
        env = self._inst_env
        env.dataset = out.planner.ds
        env.nominal, env.actual = nominal, actual
        got = self._resolve_one(out.planner, out.expr.call(self._inst_ctx), nominal)
        if isinstance(got, Pending):
            raise _e1010(
                f"data-out [{out.name}]: coord:latest()/future() not permitted in output-event",
                hint="an output instance must be current(n) or offset(n, unit)",
            )
        return DataOutPlan(out.name, out.dataset, tuple([p[0] for p in got]))

    def _resolve_one(
        self, planner: _DatasetPlanner, call: InstanceCall, nominal: datetime
    ) -> list[tuple[str, str]] | Pending:
        ds = planner.ds
        kind, args = call.kind, call.args
        if kind == "current":
            return planner.current_pairs(nominal, args[0], args[0])
        if kind == "currentRange":
            return planner.current_pairs(nominal, args[0], args[1])
        if kind == "offset":
            t = instances.offset(ds, nominal, args[0], _offset_unit(args[1]))
            return [] if t is None else [planner.pair(t)]
        if kind == "absoluteRange":
            start = parse_el_time(args[0], "absoluteRange")
            return [planner.pair(t) for t in instances.absolute_range(ds, nominal, start, args[1])]
        if kind == "latest":
            return _latest_args(args[0], args[0])
        if kind == "latestRange":
            return _latest_args(args[0], args[1])
        if kind == "future":
            return _future_args(args[0], args[0], args[1])
        if kind == "futureRange":
            return _future_args(args[0], args[1], args[2])
        raise _start_only(kind)

    def _resolve_range(
        self, planner: _DatasetPlanner, a: InstanceCall, b: InstanceCall, nominal: datetime
    ) -> list[tuple[str, str]] | Pending:
        ds = planner.ds
        _check_range_ends(a, b)
        if a.kind == "current":
            return planner.current_pairs(nominal, a.args[0], b.args[0])
        if a.kind == "offset":
            times = instances.offset_range(
                ds, nominal, a.args[0], _offset_unit(a.args[1]), b.args[0], _offset_unit(b.args[1])
            )
            return [planner.pair(t) for t in times]
        if a.kind == "latest":
            return _latest_args(a.args[0], b.args[0])
        if a.kind == "future":
            return _future_args(a.args[0], b.args[0], b.args[1])
        if a.kind == "absolute":
            start = parse_el_time(a.args[0], "absolute")
            return [
                planner.pair(t) for t in instances.absolute_range(ds, nominal, start, b.args[0])
            ]
        kind = _END_OF[a.kind]
        return [
            planner.pair(t) for t in instances.end_of_range(ds, nominal, kind, a.args[0], b.args[0])
        ]

    # ------------------------------------------------------------------ input check

    def check(self, plan: ActionPlan, *, now: datetime, exists: ExistsFn) -> InputCheck:
        if self.app.input_logic is None:
            return self._check_all(plan, exists)
        return self._check_logic(plan, now, exists)

    def _resolve_pending(
        self, plan: ActionPlan, d: DataInPlan, exists: ExistsFn
    ) -> tuple[list[str], list[str]]:
        """(resolved URIs in pending order, EL of the pending parts still unresolved)."""
        planner = self._planner(d.dataset)
        check_time = planner.exists_fn(exists)
        resolved: list[str] = []
        still: list[str] = []
        for p in d.pending:
            if p.kind == "latest":
                found = instances.latest_range(planner.ds, plan.actual, p.start, p.end, check_time)
            else:
                found = instances.future_range(
                    planner.ds, plan.nominal, p.start, p.end, p.limit, check_time
                )
            if found.resolved:
                resolved.extend(planner.pair(t)[0] for t in found.instances)
            else:
                still.append(p.text)
        return resolved, still

    def _check_all(self, plan: ActionPlan, exists: ExistsFn) -> InputCheck:
        """Oozie's default check (every data-in complete), as CoordActionInputCheckXCommand
        does it: paths in plan order until the first missing one, which is reported with
        all the paths after it (unchecked); latest/future only once every path exists."""
        missing: list[str] = []
        for d in plan.data_ins:
            if missing:
                missing.extend(d.done_paths)
                continue
            paths = d.done_paths
            for i, path in enumerate(paths):
                if not exists(path):
                    missing.extend(paths[i:])
                    break
        data_in: dict[str, tuple[str, ...] | None] = {}
        unresolved: list[str] = []
        for d in plan.data_ins:
            if not d.pending:
                data_in[d.name] = d.uris
            elif missing:
                data_in[d.name] = None
                unresolved.extend(p.text for p in d.pending)
            else:
                resolved, still = self._resolve_pending(plan, d, exists)
                unresolved.extend(still)
                data_in[d.name] = None if still else (*resolved, *d.uris)
        ready = not missing and not unresolved
        return InputCheck(ready, tuple(missing), tuple(unresolved), data_in)

    def _check_logic(self, plan: ActionPlan, now: datetime, exists: ExistsFn) -> InputCheck:
        """With ``<input-logic>``: every path checked, then the logic decides (§2.7)."""
        logic = self.app.input_logic
        assert logic is not None
        missing: list[str] = []
        unresolved: list[str] = []
        data_in: dict[str, tuple[str, ...] | None] = {}
        entries: dict[str, list[tuple[str, bool]]] = {}
        for d in plan.data_ins:
            resolved, still = self._resolve_pending(plan, d, exists) if d.pending else ([], [])
            flags = list(map(exists, d.done_paths))
            missing.extend(p for p, ok in zip(d.done_paths, flags, strict=True) if not ok)
            unresolved.extend(still)
            data_in[d.name] = None if still else (*resolved, *d.uris)
            items = [(u, True) for u in resolved]
            items.extend(zip(d.uris, flags, strict=True))
            items.extend((text, False) for text in still)
            entries[d.name] = items
        waiting: list[tuple[datetime, str]] = []
        base = max(plan.nominal, plan.actual)
        result = _evaluate(logic, entries, None, None, now, base, waiting)
        ready = result.status == _TRUE
        for node in self._logic_names:
            assert node.name is not None
            if node.name in entries:
                continue  # a data-in of that name comes first, as in Oozie's coord:dataIn
            sub = _evaluate(node, entries, node.min, node.wait, None, base, [])
            data_in[node.name] = tuple(sub.uris) if sub.status == _TRUE else None
        held = min(waiting) if waiting and not ready else None
        return InputCheck(
            ready,
            tuple(missing),
            tuple(unresolved),
            data_in,
            held[0] if held else None,
            held[1] if held else None,
        )

    # ------------------------------------------------------------------ action start

    def workflow_conf(
        self,
        plan: ActionPlan,
        check: InputCheck | None,
        *,
        coord_id: str,
        action_id: str,
        user: str,
        now: datetime,
    ) -> dict[str, str]:
        env = self._start_env
        env.nominal, env.actual = plan.nominal, plan.actual
        env.coord_id, env.action_id = coord_id, action_id or plan.action_id
        env.user = user or self.conf.get("user.name", "")
        if check is not None:
            env.data_in = check.data_in
        else:
            env.data_in = {d.name: None for d in plan.data_ins}
        env.data_out = {d.name: d.uris for d in plan.data_outs}
        self._now = now
        ctx = self._start_ctx
        out: dict[str, str] = {}
        for key, value, tmpl, fast in self._conf_items:
            if tmpl is None:
                out[key] = value
                continue
            try:
                out[key] = fast() if fast is not None else tmpl.render(ctx)
            except BundletuiError as exc:
                if exc.file:
                    raise
                source = self.app.source
                raise SpecError(
                    exc.code,
                    f"<configuration> property [{key}]: {exc.message}",
                    hint=exc.hint,
                    file=source or None,
                    line=line_of(source, value) if source else None,
                ) from None
        return out

    def _fast_value(self, value: str) -> Callable[[], str] | None:
        """A value that is one ``dataIn``/``dataOut``/``nominalTime``/``actualTime`` call,
        evaluated without the EL machinery (same result, it runs for every action)."""
        env = self._start_env
        ft = _FORMAT_TIME.fullmatch(value.strip())
        if ft is not None:
            pattern, which = ft.group(2), ft.group(1)
            java_format(_EPOCH, pattern)  # a bad pattern fails here, as it would every time
            if which == "nominalTime":
                return lambda: java_format(env.nominal, pattern) if env.nominal else ""
            return lambda: java_format(env.actual, pattern) if env.actual else ""
        m = _WHOLE_CALL.fullmatch(value.strip())
        if m is None:
            return None
        fn, arg = m.group(1), m.group(2) if m.group(2) is not None else m.group(3)
        template = compile_template(value)
        if fn in ("dataIn", "dataOut") and arg is not None:
            mapping_name = "data_in" if fn == "dataIn" else "data_out"

            def data() -> str:
                uris = getattr(env, mapping_name).get(arg)
                if uris is None:  # unknown name or not resolved yet: the EL path says which
                    return template.render(self._start_ctx)
                return ",".join(uris)

            return data
        if fn == "nominalTime" and arg is None:
            return lambda: format_oozie_time(env.nominal) if env.nominal else ""
        if fn == "actualTime" and arg is None:
            return lambda: format_oozie_time(env.actual) if env.actual else ""
        return None

    def run_conf(
        self,
        plan: ActionPlan,
        check: InputCheck | None,
        *,
        coord_id: str,
        action_id: str,
        user: str,
        now: datetime,
    ) -> dict[str, str]:
        resolved = self.workflow_conf(
            plan, check, coord_id=coord_id, action_id=action_id, user=user, now=now
        )
        conf = dict(self._base_conf)
        conf.update(resolved)
        app_path = self.app.workflow_app_path
        if self._app_path_tmpl is not None:
            app_path = self._app_path_tmpl.render(self._start_ctx)
        conf[WF_APP_PATH] = app_path
        return conf


# --------------------------------------------------------------------------- input logic

_TRUE, _FALSE, _WAITING = "true", "false", "waiting"


@dataclass
class _Result:
    status: str
    uris: list[str] = field(default_factory=list)


def _named_nodes(node: InputLogic) -> list[InputLogic]:
    """The operators ``coord:dataIn`` can name: any with a ``name``, a ``<data-in>`` under
    ``<input-logic>`` included, as Oozie's InputLogicParser.parseWithName finds them."""
    out = [node] if node.name else []
    for child in node.children:
        out.extend(_named_nodes(child))
    return out


def _verdict(
    found_all: bool,
    available: list[str],
    min_: int | None,
    wait: int | None,
    now: datetime | None,
    base: datetime,
    waiting: list[tuple[datetime, str]],
    what: str,
) -> _Result:
    """Oozie's getEvalResult: all found, or at least ``min``; ``wait`` holds a shortfall."""
    if (
        not found_all
        and wait is not None
        and wait > 0
        and now is not None
        and (now - base) // timedelta(minutes=1) < wait
    ):
        with contextlib.suppress(OverflowError):  # runs out after year 9999: no wake-up
            waiting.append((base + timedelta(minutes=wait), what))
        return _Result(_WAITING)
    if found_all or (min_ is not None and min_ > 0 and len(available) >= min_) or min_ == 0:
        return _Result(_TRUE, available)
    return _Result(_FALSE)


def _evaluate(
    node: InputLogic,
    entries: Mapping[str, list[tuple[str, bool]]],
    min_: int | None,
    wait: int | None,
    now: datetime | None,
    base: datetime,
    waiting: list[tuple[datetime, str]],
) -> _Result:
    """Evaluate an input-logic node; ``now=None`` treats every wait as elapsed (start phase)."""
    m = node.min if node.min is not None else min_
    w = node.wait if node.wait is not None else wait
    if node.op is LogicOp.DATA_IN:
        available: list[str] = []
        found_all = True
        for uri, ok in entries.get(node.dataset or "", []):
            if ok:
                available.append(uri)
            else:
                found_all = False
                if m is None:
                    break
        return _verdict(found_all, available, m, w, now, base, waiting, node.dataset or "")
    if node.op is LogicOp.COMBINE:
        lists = [entries.get(c.dataset or "", []) for c in node.children]
        first = lists[0] if lists else []
        available = []
        for i in range(len(first)):
            pick = next((lst[i][0] for lst in lists if i < len(lst) and lst[i][1]), None)
            if pick is not None:
                available.append(pick)
            elif m is None:
                break
        what = "combine(" + ", ".join(c.dataset or "" for c in node.children) + ")"
        return _verdict(len(available) == len(first), available, m, w, now, base, waiting, what)
    results: list[_Result] = []
    for child in node.children:
        r = _evaluate(child, entries, m, w, now, base, waiting)
        if node.op is LogicOp.OR:
            if r.status != _FALSE:
                return r
            continue
        if r.status == _FALSE:
            return r
        results.append(r)
    if node.op is LogicOp.OR:
        return _Result(_FALSE)
    if any(r.status == _WAITING for r in results):
        return _Result(_WAITING)
    return _Result(_TRUE, [u for r in results for u in r.uris])


# --------------------------------------------------------------------------- module API

_COMPILED: dict[tuple[int, int], tuple[CoordinatorApp, Mapping[str, str], CompiledCoordinator]] = {}
_MAX_COMPILED = 32


def compile_coordinator(app: CoordinatorApp, conf: Mapping[str, str]) -> CompiledCoordinator:
    """The compiled form of (app, conf), cached by identity (see the module docstring)."""
    key = (id(app), id(conf))
    hit = _COMPILED.get(key)
    if hit is not None and hit[0] is app and hit[1] is conf:
        return hit[2]
    compiled = CompiledCoordinator(app, conf)
    if len(_COMPILED) >= _MAX_COMPILED:
        _COMPILED.pop(next(iter(_COMPILED)))
    _COMPILED[key] = (app, conf, compiled)
    return compiled


_NO_CONF: Mapping[str, str] = {}


def _compiled_for_app(app: CoordinatorApp) -> CompiledCoordinator:
    for cached_app, _conf, compiled in reversed(list(_COMPILED.values())):
        if cached_app is app:
            return compiled
    return compile_coordinator(app, _NO_CONF)


def plan_action(
    app: CoordinatorApp,
    conf: Mapping[str, str],
    *,
    coord_id: str,
    number: int,
    nominal: datetime,
    actual: datetime,
    exists: ExistsFn | None = None,
) -> ActionPlan:
    """Creation phase: the action's data-in / data-out instances (see the module docstring)."""
    del exists  # nothing at creation depends on the file system
    return compile_coordinator(app, conf).plan(
        coord_id=coord_id, number=number, nominal=nominal, actual=actual
    )


def check_inputs(
    app: CoordinatorApp, plan: ActionPlan, *, now: datetime, exists: ExistsFn
) -> InputCheck:
    """Input check: missing paths, latest/future resolution, READY per the input logic."""
    return _compiled_for_app(app).check(plan, now=now, exists=exists)


def workflow_conf(
    app: CoordinatorApp,
    conf: Mapping[str, str],
    plan: ActionPlan,
    check: InputCheck | None,
    *,
    coord_id: str,
    action_id: str,
    user: str,
    now: datetime,
) -> dict[str, str]:
    """The coordinator's ``<configuration>`` entries evaluated in the action-start phase."""
    return compile_coordinator(app, conf).workflow_conf(
        plan, check, coord_id=coord_id, action_id=action_id, user=user, now=now
    )


def run_conf(
    app: CoordinatorApp,
    conf: Mapping[str, str],
    plan: ActionPlan,
    check: InputCheck | None,
    *,
    coord_id: str,
    action_id: str,
    user: str,
    now: datetime,
) -> dict[str, str]:
    """Action start: the workflow job's configuration (job conf + resolved ``<configuration>``
    + ``oozie.wf.application.path``)."""
    return compile_coordinator(app, conf).run_conf(
        plan, check, coord_id=coord_id, action_id=action_id, user=user, now=now
    )


def iter_actions(
    app: CoordinatorApp,
    *,
    start: datetime | None = None,
    end: datetime | None = None,
    limit: int | None = None,
    pause: datetime | None = None,
) -> Iterator[tuple[int, datetime]]:
    """(action number, nominal time) of the actions the coordinator materializes (before its
    end and ``pause``, both exclusive), optionally only those with ``start <= nominal < end``,
    at most ``limit`` of them. Numbers count from the coordinator's start whatever the window."""
    stop = app.end if end is None or end > app.end else end
    count = 0
    for index, nominal in iter_nominal_times(
        app.start, stop, app.frequency, app.timezone, pause=pause
    ):
        if start is not None and nominal < start:
            continue
        if limit is not None and count >= limit:
            return
        count += 1
        yield index + 1, nominal
