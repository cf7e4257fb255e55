"""Coordinator actions from a coordinator definition: the three Oozie phases as pure functions.

Used by ``bundletui dryrun`` and by the engine's materializer, so both agree to the byte.
Nothing here touches the store or reads the clock; the file system is reached only through
the ``exists`` callback the caller passes. All times are aware UTC ``datetime``::

    plan = plan_action(app, conf, coord_id=cid, number=n, nominal=t, actual=created)
    check = check_inputs(app, plan, now=now, exists=exists)  # every minute until READY
    if check.ready:
        conf = run_conf(app, conf, plan, check, coord_id=cid, action_id=plan.action_id,
                        user=user, now=now)                  # the workflow's conf

Speed: each (app, conf) pair is compiled once (instance expressions reduced to calls, URI
templates split, the start-phase function table built) and cached by object identity, so keep
passing the same ``app``/``conf`` objects and do not mutate ``conf``. A compiled coordinator
is not thread-safe.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bundletui.errors import BundletuiError, SpecError
from bundletui.model import instances
from bundletui.model.apps import CoordinatorApp, DataIn
from bundletui.model.clock import EPOCH
from bundletui.model.ids import action_id as make_action_id
from bundletui.model.timeutil import format_oozie_time, iter_nominal_times
from bundletui.spec.action_plan import ActionPlan, DataInPlan, DataOutPlan, InputCheck, Pending
from bundletui.spec.coord_el import (
    SLA_CONSTANTS,
    CoordELEnv,
    InstanceCall,
    Phase,
    coord_functions,
    java_format,
    parse_el_time,
)
from bundletui.spec.datasets import DatasetPlanner, ExistsFn
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
from bundletui.spec.input_logic import LOGIC_TRUE, evaluate_logic, named_logic_nodes
from bundletui.spec.instance_exprs import (
    END_OF_UNITS,
    InstanceExpr,
    check_range_ends,
    creation_context,
    future_pending,
    invalid_data_error,
    latest_pending,
    offset_unit,
    out_of_calendar_error,
    start_only_error,
)
from bundletui.spec.located import line_of

__all__ = [
    "ActionPlan",
    "CompiledCoordinator",
    "ExistsFn",
    "InputCheck",
    "check_inputs",
    "compile_coordinator",
    "iter_actions",
    "plan_action",
    "run_conf",
    "workflow_conf",
]

# Properties that name an application; the workflow's conf keeps only its own.
_APP_PATH_KEYS = (
    "oozie.coord.application.path",
    "oozie.bundle.application.path",
    "oozie.application.bundle.path",
)
WF_APP_PATH = "oozie.wf.application.path"
_LATER_PREFIXES = ("wf:", "fs:", "hadoop:", "hcat:")


# --------------------------------------------------------------------------- compiled app


@dataclass
class _DataInSpec:
    name: str
    dataset: str
    planner: DatasetPlanner
    items: list[tuple[InstanceExpr, InstanceExpr | None]]
    fast: tuple[int, int] | None  # the whole data-in is one current range on a fixed grid


@dataclass
class _DataOutSpec:
    name: str
    dataset: str
    planner: DatasetPlanner
    expr: InstanceExpr
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
        self._planners: dict[str, DatasetPlanner] = {}

        # creation phase: one env + table per dataset (functions read env.dataset)
        self._inst_env, self._inst_ctx = creation_context(app, conf, variables, self._creation_now)

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
        self._logic_names = named_logic_nodes(app.input_logic) if app.input_logic else []

    # ------------------------------------------------------------------ compile helpers

    def _creation_now(self) -> datetime:
        return self._inst_env.actual or datetime(1970, 1, 1, tzinfo=UTC)

    def _start_now(self) -> datetime:
        return self._now or self._start_env.actual or datetime(1970, 1, 1, tzinfo=UTC)

    def _planner(self, name: str) -> DatasetPlanner:
        p = self._planners.get(name)
        if p is None:
            try:
                ds = self.app.dataset(name)
            except KeyError:
                raise invalid_data_error(f"undefined dataset: {name}") from None
            p = DatasetPlanner(ds)
            self._planners[name] = p
        return p

    def _expr(self, text: str) -> InstanceExpr:
        return InstanceExpr(text, self._inst_ctx, self._inst_env)

    def _data_in_spec(self, d: DataIn) -> _DataInSpec:
        planner = self._planner(d.dataset)
        self._inst_env.dataset = planner.ds
        items: list[tuple[InstanceExpr, InstanceExpr | None]] = [
            (self._expr(text), None) for text in d.instances
        ]
        if d.start_instance is not None or d.end_instance is not None:
            if d.start_instance is None or d.end_instance is None:
                raise invalid_data_error(
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
                raise out_of_calendar_error("data-in", spec.name) from None
        data_outs: list[DataOutPlan] = []
        for out in self._data_outs:
            try:
                data_outs.append(self._plan_out(out, nominal, actual))
            except OverflowError:
                raise out_of_calendar_error("data-out", out.name) from None
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
            raise invalid_data_error(
                f"data-out [{out.name}]: coord:latest()/future() not permitted in output-event",
                hint="an output instance must be current(n) or offset(n, unit)",
            )
        return DataOutPlan(out.name, out.dataset, tuple([p[0] for p in got]))

    def _resolve_one(
        self, planner: DatasetPlanner, call: InstanceCall, nominal: datetime
    ) -> list[tuple[str, str]] | Pending:
        ds = planner.ds
        kind, args = call.kind, call.args
        if kind == "current":
            return planner.current_pairs(nominal, args[0], args[0])
        if kind == "currentRange":
            return planner.current_pairs(nominal, args[0], args[1])
        if kind == "offset":
            t = instances.offset(ds, nominal, args[0], offset_unit(args[1]))
            return [] if t is None else [planner.pair(t)]
        if kind == "absoluteRange":
            start = parse_el_time(args[0], "absoluteRange")
            return [planner.pair(t) for t in instances.absolute_range(ds, nominal, start, args[1])]
        if kind == "latest":
            return latest_pending(args[0], args[0])
        if kind == "latestRange":
            return latest_pending(args[0], args[1])
        if kind == "future":
            return future_pending(args[0], args[0], args[1])
        if kind == "futureRange":
            return future_pending(args[0], args[1], args[2])
        raise start_only_error(kind)

    def _resolve_range(
        self, planner: DatasetPlanner, a: InstanceCall, b: InstanceCall, nominal: datetime
    ) -> list[tuple[str, str]] | Pending:
        ds = planner.ds
        check_range_ends(a, b)
        if a.kind == "current":
            return planner.current_pairs(nominal, a.args[0], b.args[0])
        if a.kind == "offset":
            times = instances.offset_range(
                ds, nominal, a.args[0], offset_unit(a.args[1]), b.args[0], offset_unit(b.args[1])
            )
            return [planner.pair(t) for t in times]
        if a.kind == "latest":
            return latest_pending(a.args[0], b.args[0])
        if a.kind == "future":
            return future_pending(a.args[0], b.args[0], b.args[1])
        if a.kind == "absolute":
            start = parse_el_time(a.args[0], "absolute")
            return [
                planner.pair(t) for t in instances.absolute_range(ds, nominal, start, b.args[0])
            ]
        kind = END_OF_UNITS[a.kind]
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
        result = evaluate_logic(logic, entries, None, None, now, base, waiting)
        ready = result.status == LOGIC_TRUE
        for node in self._logic_names:
            assert node.name is not None
            if node.name in entries:
                continue  # a data-in of that name comes first, as in Oozie's coord:dataIn
            sub = evaluate_logic(node, entries, node.min, node.wait, None, base, [])
            data_in[node.name] = tuple(sub.uris) if sub.status == LOGIC_TRUE else None
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
            java_format(EPOCH, pattern)  # a bad pattern fails here, as it would every time
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
    """Creation phase: the action's data-in / data-out instances, in the order
    :mod:`bundletui.spec.action_plan` describes."""
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
    """The coordinator's ``<configuration>`` entries evaluated in the action-start phase (what
    ``dryrun`` shows); ``wf:``/``fs:``… calls are left as written, for the workflow."""
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
