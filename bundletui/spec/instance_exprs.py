"""``<instance>``, ``<start-instance>`` and ``<end-instance>`` texts reduced to instance calls,
and what those calls may not be.

A coordinator's expressions are reduced once (the action-dependent ones per action), and the
same reduction lets ``submit`` refuse, before any action exists, what making every action would
refuse (:class:`InstanceProbe`, :func:`check_instance_call`, :func:`check_instance_range`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from bundletui.errors import SpecError
from bundletui.model import instances
from bundletui.model.apps import CoordinatorApp
from bundletui.model.clock import EPOCH
from bundletui.model.frequency import TimeUnit
from bundletui.spec.action_plan import Pending
from bundletui.spec.coord_el import (
    INSTANCE_SPEC_NAMES,
    SLA_CONSTANTS,
    CoordELEnv,
    InstanceCall,
    Phase,
    coord_functions,
    instance_spec_functions,
)
from bundletui.spec.el import (
    BASIC_CONSTANTS,
    ELContext,
    Template,
    basic_functions,
    compile_template,
    property_variables,
)


class InstanceExpr:
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
#: the calendar unit of each ``endOf*`` range start
END_OF_UNITS = {
    "endOfDays": TimeUnit.DAY,
    "endOfWeeks": TimeUnit.WEEK,
    "endOfMonths": TimeUnit.MONTH,
}
_OFFSET_UNITS = ("MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "YEAR")


def out_of_calendar_error(kind: str, name: str) -> SpecError:
    """E1010 for an instance of ``kind`` (data-in/data-out) ``name`` past years 1-9999."""
    return invalid_data_error(
        f"{kind} [{name}]: an instance falls outside the calendar (years 1 to 9999)",
        hint="check the numbers given to coord:current / offset / future in this event",
    )


def invalid_data_error(detail: str, hint: str | None = None) -> SpecError:
    """Oozie's E1010, ``Invalid data in coordinator xml. [detail]``."""
    return SpecError("E1010", f"Invalid data in coordinator xml. [{detail}]", hint=hint)


def offset_unit(text: str) -> TimeUnit:
    """``coord:offset``'s unit argument as a :class:`TimeUnit`; E1004 for any other text."""
    if text not in _OFFSET_UNITS:
        raise SpecError(
            "E1004",
            f"Expression language evaluation error, coord:offset: [{text}] is not a time unit",
            hint="use MINUTE, HOUR, DAY, WEEK, MONTH or YEAR",
        )
    return TimeUnit(text)


def latest_pending(a: int, b: int) -> Pending:
    """``latest(a)`` to ``latest(b)``, left for the input check; E1004/E1010 if refused."""
    if a > 0 or b > 0:
        raise SpecError(
            "E1004",
            "Expression language evaluation error, latest:n must be less than or equal to 0",
            hint="latest(0) is the newest existing instance, latest(-1) the one before",
        )
    if a > b:
        raise invalid_data_error(
            f"start-instance should be equal or earlier than the end-instance: latest({a}) "
            f"and latest({b})"
        )
    return Pending("latest", a, b)


def future_pending(a: int, b: int, limit: int) -> Pending:
    """``future(a)`` to ``future(b)`` within ``limit`` instances, left for the input check;
    E1004/E1010 if refused."""
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
        raise invalid_data_error(
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
        self._env, self._ctx = creation_context(
            app,
            conf,
            variables,
            lambda: self._env.actual or EPOCH,  # a stand-in where no real time is known yet
        )

    def call(self, dataset: str, text: str) -> InstanceCall | None:
        self._env.dataset = self._app.dataset(dataset)
        return InstanceExpr(text, self._ctx, self._env).static


def creation_context(
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
        offset_unit(args[1])
    elif kind in ("latest", "latestRange"):
        latest_pending(args[0], args[-1])
    elif kind == "future":
        future_pending(args[0], args[0], args[1])
    elif kind == "futureRange":
        future_pending(args[0], args[1], args[2])
    elif kind == "currentRange" and args[0] > args[1]:
        raise instances.current_order_error(args[0], args[1])
    elif kind in _RANGE_START_ONLY:
        raise start_only_error(kind)


def check_instance_range(start: InstanceCall, end: InstanceCall) -> None:
    """What making any action would refuse in a ``<start-instance>`` / ``<end-instance>``
    pair whose calls are known now: a range function at either end, a mix Oozie does not
    support, a start after the end (current, latest, future, and offsets whose units compare
    without a calendar)."""
    check_range_ends(start, end)
    a, b = start.args, end.args
    if start.kind == "current" and a[0] > b[0]:
        raise instances.current_order_error(a[0], b[0])
    if start.kind == "latest":
        latest_pending(a[0], b[0])
    elif start.kind == "future":
        future_pending(a[0], b[0], b[1])
    elif start.kind == "offset":
        unit_a, unit_b = offset_unit(a[1]), offset_unit(b[1])
        if unit_a is unit_b:
            later = a[0] > b[0]
        elif unit_a in _FIXED_MINUTES and unit_b in _FIXED_MINUTES:
            later = a[0] * _FIXED_MINUTES[unit_a] > b[0] * _FIXED_MINUTES[unit_b]
        else:  # days, months…: how long depends on the calendar; the action checks it
            later = False
        if later:
            raise instances.offset_order_error(a[0], unit_a, b[0], unit_b)


def check_range_ends(start: InstanceCall, end: InstanceCall) -> None:
    """Single instances at both ends, of kinds Oozie lets a range mix."""
    for call, where in ((start, "start-instance"), (end, "end-instance")):
        if call.kind.endswith("Range"):
            raise invalid_data_error(
                f"{where} cannot be a range function (coord:{call.kind})",
                hint="write single instances in start-instance and end-instance",
            )
    instances.check_range_kinds(start.kind, end.kind)


def start_only_error(kind: str) -> SpecError:
    """E1010 for absolute / endOf* given where a single instance is read."""
    return invalid_data_error(
        f"coord:{kind}() is only supported as start-instance with end-instance coord:current(n)",
        hint="<start-instance>${coord:" + kind + "(...)}</start-instance>"
        "<end-instance>${coord:current(0)}</end-instance>",
    )
