"""The submit-phase EL: the real :class:`~bundletui.spec.resolver.Resolver`.

At submit Oozie resolves job properties, ``coord:``/``bundle:`` conf functions and the
frequency functions; everything evaluated later (instances, ``dataIn``, ``nominalTime``, ``wf:``
functions…) is echoed back verbatim, as are ``${YEAR}``…``${MINUTE}`` (oozie.md §3). An unknown
variable is an error here: every variable must resolve at submit (seed 000, requirement 7).

A ``lenient`` resolver (for ``validate`` without a configuration) echoes unknown variables and
records them; a typed field that still holds EL then raises :class:`NeedsValues`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from bundletui.errors import BundletuiError, SpecError
from bundletui.model.clock import Clock
from bundletui.model.cron import OozieCron
from bundletui.model.frequency import Frequency, TimeUnit
from bundletui.model.timeutil import (
    normalize_timezone_id,
    parse_oozie_time,
    parse_timezone,
    to_minutes,
)
from bundletui.spec.coord_el import coord_function_names
from bundletui.spec.decode_common import BAD_VALUE, JAVA_INT_MAX, java_int
from bundletui.spec.el import (
    BASIC_CONSTANTS,
    Deferred,
    ELContext,
    basic_functions,
    compile_template,
    el_function,
    property_variables,
)
from bundletui.spec.resolver import Where
from bundletui.spec.xmlsafe import AppKind

DATE_VARIABLES = frozenset({"YEAR", "MONTH", "DAY", "HOUR", "MINUTE"})

# (unit, end-of flag, multiplier) of each frequency function (oozie.md §3.1)
FREQUENCY_FUNCTIONS: dict[str, tuple[TimeUnit, TimeUnit | None, int]] = {
    "coord:minutes": (TimeUnit.MINUTE, None, 1),
    "coord:hours": (TimeUnit.MINUTE, None, 60),
    "coord:days": (TimeUnit.DAY, None, 1),
    "coord:months": (TimeUnit.MONTH, None, 1),
    "coord:endOfDays": (TimeUnit.DAY, TimeUnit.END_OF_DAY, 1),
    "coord:endOfWeeks": (TimeUnit.WEEK, TimeUnit.END_OF_WEEK, 1),
    "coord:endOfMonths": (TimeUnit.MONTH, TimeUnit.END_OF_MONTH, 1),
}
# Same names as instance functions (start-instance): only frequency fields resolve them early.
_AMBIGUOUS = frozenset({"coord:endOfDays", "coord:endOfWeeks", "coord:endOfMonths"})
DEFERRED_PREFIXES = ("coord:", "wf:", "trigger:", "hadoop:", "hcat:", "fs:")
# an event schedule's firing functions (spec/event_el.py makes them): another trigger: name is
# unknown, refused at submit rather than passed to the job as written
TRIGGER_NAMES = frozenset(
    "trigger:" + n
    for n in ("partitions", "count", "bytes", "time", "timestamp", "reason", "programs")
)


class NeedsValues(SpecError):
    """A typed field could not be checked because variables have no values (validate only)."""


class DeferringFunctions(dict[str, Callable[..., Any]]):
    """A function table where a ``coord:`` function of a later phase, or any ``wf:``…
    function (the workflow's), defers; an unknown ``coord:`` name is an error now, at submit,
    not in every action the coordinator makes."""

    def get(self, key: str, default: Any = None) -> Any:
        fn = super().get(key)
        if fn is not None:
            return fn
        if key.startswith("coord:") and key not in _COORD_NAMES:
            return default
        if key.startswith("trigger:") and key not in TRIGGER_NAMES:
            return default
        if key.startswith(DEFERRED_PREFIXES):
            return _defer
        return default

    def names(self) -> set[str]:
        """For "did you mean": the functions of this table and the coordinator's later ones."""
        return set(self) | _COORD_NAMES | TRIGGER_NAMES


_COORD_NAMES = coord_function_names() | FREQUENCY_FUNCTIONS.keys()


def _defer(*_args: Any) -> Any:
    raise Deferred("resolved later")


@dataclass
class _UnitCapture:
    unit: TimeUnit = TimeUnit.MINUTE
    end_of: TimeUnit | None = None
    used: bool = False


def _frequency_functions(capture: _UnitCapture | None) -> dict[str, Callable[..., Any]]:
    table: dict[str, Callable[..., Any]] = {}
    for name, (unit, end_of, mult) in FREQUENCY_FUNCTIONS.items():

        def fn(
            n: int,
            _unit: TimeUnit = unit,
            _end: TimeUnit | None = end_of,
            _mult: int = mult,
            _name: str = name,
        ) -> int:
            if n <= 0:
                raise SpecError(
                    "E1004",
                    f"{_name}({n}): the argument must be greater than 0",
                    hint=f"a frequency counts up from 1: {_name}(1), or minutes (e.g. 60)",
                )
            if capture is not None:
                capture.unit, capture.end_of, capture.used = _unit, _end, True
            return n * _mult

        table[name] = el_function(int)(fn)
    return table


@dataclass
class SubmitResolver:
    """Submit-phase EL over one application file and its job configuration."""

    conf: Mapping[str, str]
    clock: Clock
    user: str = ""
    app_name: str = ""
    lenient: bool = False
    unresolved: set[str] = field(default_factory=set)
    kind: AppKind | None = None  # the file's: a workflow's bad numbers are BAD_VALUE errors

    def __post_init__(self) -> None:
        variables = {**BASIC_CONSTANTS, **property_variables(self.conf)}
        base: dict[str, Callable[..., Any]] = {**basic_functions(self.clock.now)}
        conf = self.conf

        def conf_fn(name: str) -> str:
            return conf.get(name, "")

        user = self.user or conf.get("user.name", "")
        base.update(
            {
                "coord:conf": el_function(str)(conf_fn),
                "bundle:conf": el_function(str)(conf_fn),
                "coord:user": lambda: user,
            }
        )
        text_functions = DeferringFunctions(base)
        text_functions.update(
            {k: v for k, v in _frequency_functions(None).items() if k not in _AMBIGUOUS}
        )
        mode: Literal["echo", "error"] = "echo" if self.lenient else "error"
        self._text_ctx = ELContext(variables, text_functions, DATE_VARIABLES, mode)
        self._capture = _UnitCapture()
        freq_functions = DeferringFunctions(base)
        freq_functions.update(_frequency_functions(self._capture))
        self._freq_ctx = ELContext(variables, freq_functions, DATE_VARIABLES, mode)

    # -------------------------------------------------------------- Resolver

    def text(self, value: str, where: Where) -> str:
        return str(self._render(value, where, self._text_ctx))

    def settled_text(self, value: str, where: Where) -> str:
        text = self.text(value, where)
        self._require_resolved(text, where)
        return text

    def frequency(self, value: str, where: Where) -> Frequency:
        raw = value.strip()
        fields = raw.split()
        if len(fields) not in (0, 1, 5) and "${" not in raw:  # a cron of too few or many fields
            fix = ", without seconds" if len(fields) in (6, 7) else ""  # Quartz's (and a year)
            hint = (
                "a dataset's frequency is not a cron: minutes, or e.g. ${coord:hours(1)}"
                if "dataset" in where.describe()
                else f"write minute hour day-of-month month day-of-week{fix} "
                "(e.g. '0 * * * *' for every hour)"
            )
            raise where.error(
                "E1003",
                f"Invalid coordinator application attributes, frequency [{raw}] is a cron of "
                f"{len(fields)} fields: Oozie's has 5",
                hint=hint,
            )
        if _looks_like_cron(raw):
            try:
                OozieCron(raw)
            except BundletuiError as exc:
                raise where.error(exc.code, exc.message, exc.hint) from None
            return Frequency(0, TimeUnit.CRON, cron=" ".join(raw.split()))
        self._capture.used = False
        result = self._evaluate(raw, where, self._freq_ctx)
        if isinstance(result, str) and len(result.split()) in (5, 6, 7) and "${" not in result:
            return self.frequency(result, where)  # a cron from a property (${f})
        number = self._int(result, where, "frequency", value, _FREQUENCY_RANGE)
        if self._capture.used:
            return Frequency(number, self._capture.unit, end_of=self._capture.end_of)
        if number <= 0:
            raise where.error(
                "E1003",
                f"Invalid coordinator application attributes, frequency [{value}] must be greater than 0",
                hint="use minutes (e.g. 60), coord:hours(1), coord:days(1) or a 5-field cron",
            )
        return Frequency(number, TimeUnit.MINUTE)

    def timeout_minutes(self, value: str, where: Where, what: str = "timeout") -> int:
        self._capture.used = False
        result = self._evaluate(value.strip(), where, self._freq_ctx)
        number = self._int(result, where, what, value)
        if self._capture.used and self._capture.unit is not TimeUnit.MINUTE:
            # coord:hours(n) already returned minutes; days and months are converted here
            return self._int(to_minutes(number, self._capture.unit), where, what, value)
        return number

    def datetime(self, value: str, where: Where) -> datetime:
        text = self.text(value, where).strip()
        self._require_resolved(text, where)
        try:
            return parse_oozie_time(text, what=where.field or "datetime")
        except BundletuiError as exc:
            raise where.error(exc.code, exc.message, exc.hint) from None

    def integer(self, value: str, where: Where) -> int:
        result = self._evaluate(value.strip(), where, self._text_ctx)
        return self._int(result, where, where.field or "value", value)

    def timezone(self, value: str, where: Where) -> str:
        text = self.text(value, where).strip()
        self._require_resolved(text, where)
        try:
            parse_timezone(text)
            return normalize_timezone_id(text)
        except BundletuiError as exc:
            raise where.error(exc.code, exc.message, exc.hint) from None

    # -------------------------------------------------------------- helpers

    def _int(
        self, result: Any, where: Where, what: str, written: str, range_hint: str | None = None
    ) -> int:
        code = BAD_VALUE if self.kind is AppKind.WORKFLOW else "E1003"
        return java_int(
            result, where, what, code=code, written=written.strip(), range_hint=range_hint
        )

    def _evaluate(self, value: str, where: Where, ctx: ELContext) -> Any:
        if "${" not in value:
            return value
        try:
            template = compile_template(value)  # a syntax error says where, as any other
            if template.is_literal:
                return value
            result = template.evaluate(ctx)
        except BundletuiError as exc:
            raise where.error(exc.code, exc.message, exc.hint) from None
        if isinstance(result, str):
            self._require_resolved(result, where)
        return result

    def _render(self, value: str, where: Where, ctx: ELContext) -> str:
        if "${" not in value:
            return value
        try:
            template = compile_template(value)  # a syntax error says where, as any other
            if template.is_literal:
                return value
            if self.lenient:
                missing = {
                    v
                    for v in template.variables
                    if v not in ctx.variables and v not in DATE_VARIABLES
                }
                self.unresolved |= missing
            return template.render(ctx)
        except BundletuiError as exc:
            raise where.error(exc.code, exc.message, exc.hint or _hint_for(exc.message)) from None

    def _require_resolved(self, text: str, where: Where) -> None:
        if self.lenient and "${" in text:
            raise NeedsValues(
                "EB0301",
                f"{where.field or 'a field'} needs values for variables to be checked",
                file=where.file,
                line=where.line,
            )


_FREQUENCY_RANGE = (
    f"a frequency is a Java int from 1 to {JAVA_INT_MAX}: minutes (coord:hours(n) is n*60 of "
    "them), or the n of ${coord:days(n)} / ${coord:months(n)}"
)


def _hint_for(message: str) -> str | None:
    if "unresolved variable" in message or "unknown variable" in message:
        return "define it in the job's .properties file, or pass -D name=value"
    return None


def _looks_like_cron(text: str) -> bool:
    parts = text.split()
    return len(parts) == 5 and "${" not in text
