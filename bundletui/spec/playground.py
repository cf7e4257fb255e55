"""``bundletui eval``: one EL expression evaluated as in a coordinator action (the playground).

The expression sees what a coordinator action's workflow configuration sees at action start
(oozie.md §3, :func:`bundletui.spec.coord_el.coord_functions` in the start phase): the
``coord:`` functions, the basic functions, ``-D`` properties as ``${name}``, the SLA constants,
and ``${YEAR}`` … ``${MINUTE}`` of the nominal time (UTC fields, as in a uri-template).

With ``--dataset-frequency`` and ``--dataset-initial-instance`` a dataset is in scope, so the
instance functions (``current``, ``offset``, ``latest``…) and ``hoursInDay``/``daysInMonth``/
``tzOffset`` work; they print the instance time ``yyyy-MM-ddTHH:mmZ`` (ranges comma-joined,
newest first; ``""`` before the initial instance), or the instance URIs when
``--uri-template`` is given. ``latest``/``future`` look for ``uri/done-flag`` on the local file
system (done flag ``_SUCCESS`` unless ``--done-flag`` says otherwise; ``--done-flag ''`` means
the directory itself) and print their own EL back when nothing qualifies, as Oozie leaves them
unresolved. Without a dataset the frequency functions (``coord:days(1)`` …) evaluate as at
submit time.

Defaults: nominal time = now (to the minute), actual time = the nominal time, dataset timezone
= the coordinator timezone (``--timezone``, default UTC).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from bundletui._host import os_user
from bundletui.errors import BundletuiError, SpecError
from bundletui.model.apps import Dataset
from bundletui.model.clock import Clock
from bundletui.model.paths import tidy_uri
from bundletui.model.timeutil import (
    normalize_timezone_id,
    option_time,
    parse_timezone,
)
from bundletui.spec.config import parse_overrides
from bundletui.spec.coord_el import SLA_CONSTANTS, CoordELEnv, Phase, coord_functions
from bundletui.spec.datasets import local_exists
from bundletui.spec.decode_common import refuse_leftover_el
from bundletui.spec.el import (
    BASIC_CONSTANTS,
    ELContext,
    basic_functions,
    compile_template,
    el_function,
    property_variables,
    to_el_string,
)
from bundletui.spec.resolver import Where
from bundletui.spec.submit_el import FREQUENCY_FUNCTIONS, SubmitResolver

__all__ = ["PLAYGROUND_COORD_ID", "evaluate_playground"]

PLAYGROUND_COORD_ID = "0000000-000000000000000-bundletui-eval-C"
PLAYGROUND_APP_NAME = "eval"


def _timezone(text: str, option: str) -> str:
    try:
        parse_timezone(text)
    except BundletuiError as exc:
        # a bad option value is a usage mistake (exit 2), as a bad --nominal-time is
        raise SpecError(exc.code, f"{option}: {exc.message}", hint=exc.hint, usage=True) from None
    return normalize_timezone_id(text)


def _frequency_functions() -> dict[str, Callable[..., Any]]:
    """``coord:minutes/hours/days/months/endOf*`` returning their submit-time values."""
    table: dict[str, Callable[..., Any]] = {}
    for name, (_unit, _end, mult) in FREQUENCY_FUNCTIONS.items():

        def fn(n: int, _mult: int = mult, _name: str = name) -> int:
            if n <= 0:
                raise SpecError(
                    "E1004",
                    f"Expression language evaluation error, {_name}({n}): the argument must be "
                    "greater than 0",
                )
            return n * _mult

        table[name] = el_function(int)(fn)
    return table


@contextlib.contextmanager
def _usage() -> Iterator[None]:
    """What is refused inside is an option's value: a usage mistake (exit 2)."""
    try:
        yield
    except BundletuiError as exc:
        exc.usage = True
        raise


def _dataset(
    *,
    conf: dict[str, str],
    clock: Clock,
    user: str,
    frequency: str | None,
    initial: str | None,
    timezone: str,
    uri_template: str | None,
    done_flag: str | None,
) -> Dataset:
    if frequency is None or initial is None:
        missing = "--dataset-frequency" if frequency is None else "--dataset-initial-instance"
        raise SpecError(
            "E1003",
            f"Invalid coordinator application attributes, a dataset needs {missing}",
            hint="give --dataset-frequency (e.g. 60 or '${coord:days(1)}') and "
            "--dataset-initial-instance (e.g. 2009-01-01T00:00Z)",
            usage=True,
        )
    resolver = SubmitResolver(conf, clock, user=user)
    with _usage():
        freq = resolver.frequency(frequency, Where("--dataset-frequency", field="frequency"))
    if freq.is_cron or freq.value <= 0:
        raise SpecError(
            "E1003",
            "Invalid coordinator application attributes, --dataset-frequency must be a "
            f"positive number of minutes or a coord: frequency function, not [{frequency}]",
            hint="e.g. --dataset-frequency '${coord:days(1)}' (cron is for coordinators only)",
            usage=True,
        )
    template = ""
    if uri_template is not None:
        at = Where("--uri-template", field="--uri-template")
        # as a submitted dataset's: a call left in it would be literal text in the path
        with _usage():
            template = refuse_leftover_el(resolver.text(uri_template, at), at)
    flag = "_SUCCESS"  # as a dataset without <done-flag>
    if done_flag is not None:
        with _usage():
            flag = refuse_leftover_el(
                done_flag, Where("--done-flag", field="--done-flag"), dated=False
            ).strip()
    return Dataset(
        "eval",
        freq,
        option_time(initial, "--dataset-initial-instance"),
        timezone,
        tidy_uri(template.strip()),  # as a submitted coordinator's (decode_coordinator)
        flag,
    )


def evaluate_playground(
    expr: str,
    *,
    nominal_time: str | None,
    actual_time: str | None,
    timezone: str,
    dataset_frequency: str | None,
    dataset_initial_instance: str | None,
    dataset_timezone: str | None,
    uri_template: str | None,
    done_flag: str | None,
    defines: Iterable[str],
    clock: Clock,
) -> str:
    """Evaluate ``expr`` (see the module docstring); EL and data errors raise typed errors."""
    conf = parse_overrides(defines)
    user = conf.get("user.name") or os_user()
    conf.setdefault("user.name", user)
    coord_tz = _timezone(timezone, "--timezone")
    if nominal_time is not None:
        nominal = option_time(nominal_time, "--nominal-time")
    else:
        nominal = clock.now().replace(second=0, microsecond=0)
    actual = option_time(actual_time, "--actual-time") if actual_time is not None else nominal
    dataset: Dataset | None = None
    wants_dataset = any(
        v is not None
        for v in (dataset_frequency, dataset_initial_instance, dataset_timezone, uri_template)
    )
    if wants_dataset or done_flag is not None:
        ds_tz = _timezone(dataset_timezone, "--dataset-timezone") if dataset_timezone else coord_tz
        dataset = _dataset(
            conf=conf,
            clock=clock,
            user=user,
            frequency=dataset_frequency,
            initial=dataset_initial_instance,
            timezone=ds_tz,
            uri_template=uri_template,
            done_flag=done_flag,
        )
    env = CoordELEnv(
        nominal=nominal,
        actual=actual,
        coord_timezone=coord_tz,
        dataset=dataset,
        coord_id=PLAYGROUND_COORD_ID,
        action_id=f"{PLAYGROUND_COORD_ID}@1",
        app_name=PLAYGROUND_APP_NAME,
        user=user,
        conf=conf,
        exists=local_exists if uri_template is not None else None,
        instance_output="uri" if uri_template is not None else "time",
    )
    functions: dict[str, Callable[..., Any]] = {**basic_functions(clock.now)}
    if dataset is None:
        functions.update(_frequency_functions())
    functions.update(coord_functions(env, Phase.START))
    if dataset is None:  # endOf* without a dataset: the frequency functions
        functions.update(
            {k: v for k, v in _frequency_functions().items() if k.startswith("coord:endOf")}
        )
    u = nominal
    variables: dict[str, Any] = {
        **BASIC_CONSTANTS,
        **SLA_CONSTANTS,
        **property_variables(conf),
        "YEAR": str(u.year),
        "MONTH": f"{u.month:02d}",
        "DAY": f"{u.day:02d}",
        "HOUR": f"{u.hour:02d}",
        "MINUTE": f"{u.minute:02d}",
    }
    ctx = ELContext(variables, functions)
    return to_el_string(compile_template(expr).resolve(ctx).value)
