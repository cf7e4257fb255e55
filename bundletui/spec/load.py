"""From a job configuration to checked, resolved application objects.

``properties/XML config (+ -D)`` -> app path -> XML validated against our XSDs -> ``<parameters>``
defaults -> submit-phase EL -> frozen model objects -> semantic checks (a workflow's: its graph,
and its nodes' run-time EL against the conf it will run with). Used by ``submit``,
``validate``, ``dryrun``, sub-workflow launches and a bundle's start (its coordinators).
Nothing here touches the store.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bundletui.errors import BundletuiError, SpecError
from bundletui.model.apps import (
    USER_RETRY_MAX,
    BundleApp,
    BundleCoordinator,
    CoordinatorApp,
    InputLogic,
    WorkflowApp,
)
from bundletui.model.clock import EPOCH, Clock
from bundletui.model.cron import validate_cron_frequency
from bundletui.model.instances import absolute_instance
from bundletui.spec import xmlsafe
from bundletui.spec.config import (
    JobConfig,
    apply_parameters,
    expand_conf,
    load_job_config,
    read_parameters,
    resolve_app_path,
    with_user,
)
from bundletui.spec.coord_el import (
    DATASET_FUNCTIONS,
    InstanceCall,
    coord_function_signatures,
    java_format,
    parse_el_time,
)
from bundletui.spec.decode_bundle import decode_bundle
from bundletui.spec.decode_coordinator import check_controls, decode_coordinator
from bundletui.spec.decode_events import decode_events
from bundletui.spec.decode_workflow import decode_workflow
from bundletui.spec.el import ELError, compile_template
from bundletui.spec.el.coerce import wrong_count
from bundletui.spec.el.evaluator import reachable
from bundletui.spec.el.nodes import Call, ExprPart, Literal
from bundletui.spec.el.parser import parse_template
from bundletui.spec.feeds import is_utf8, shown
from bundletui.spec.instance_exprs import (
    InstanceProbe,
    NotAnInstance,
    check_instance_call,
    check_instance_range,
)
from bundletui.spec.located import line_of
from bundletui.spec.submit_el import DATE_VARIABLES, SubmitResolver
from bundletui.spec.workflow_el import check_workflow_el, runtime_variables
from bundletui.spec.xmlsafe import EVENTS_NAMESPACE, AppKind, XmlDocument, load_document

App = BundleApp | CoordinatorApp | WorkflowApp

EXTERNAL_ID_PROPERTY = "oozie.wf.external.id"


@dataclass(frozen=True)
class Loaded:
    """A resolved application with the configuration it was resolved with."""

    kind: AppKind
    app: Any  # BundleApp | CoordinatorApp | WorkflowApp
    conf: Mapping[str, str]
    definition: str
    app_path: str  # the application XML file
    user: str
    external_id: str | None = None
    source: str = ""
    # a bundle's enabled coordinators, resolved once by load_job (check_bundle_coordinators)
    coordinators: tuple[Loaded, ...] = ()
    # the <parameters> defaults ``conf`` took, as written (``${day}/out``): to lay them over
    # another conf with the same names (:func:`bundletui.spec.config.with_defaults`)
    defaults: Mapping[str, str] = field(default_factory=dict)


def default_user(conf: Mapping[str, str], fallback: str) -> str:
    return conf.get("user.name") or fallback


def load_job(
    config: str | Path | None,
    overrides: Mapping[str, str] | Iterable[str],
    clock: Clock,
    *,
    user: str,
    external_id: str | None = None,
    defaults: Mapping[str, str] | None = None,
) -> Loaded:
    """What ``submit`` / ``run`` / ``dryrun`` read: the config file, -D overrides, the app.
    A bundle's enabled coordinators are resolved too, as its submission checks them.

    ``defaults`` fill properties nobody set (the CLI gives ``landing`` = <home>/landing).
    """
    job = load_job_config(config, overrides, user=user, defaults=defaults)
    loaded = load_configured(job, clock, user=user, external_id=external_id, defaults=defaults)
    if loaded.kind is AppKind.BUNDLE:
        # before the caller opens (or makes) a store: a bad coordinator must leave none behind
        coords = tuple(check_bundle_coordinators(loaded, clock))
        loaded = replace(loaded, coordinators=coords)
    return loaded


def load_configured(
    job: JobConfig,
    clock: Clock,
    *,
    user: str,
    external_id: str | None = None,
    defaults: Mapping[str, str] | None = None,
) -> Loaded:
    conf = submission_conf(job.conf, user=user, defaults=defaults, source=job.source)
    return load_app(
        job.app_path,
        conf,
        clock,
        kinds=(job.kind,),
        external_id=_external_id(external_id, conf.get(EXTERNAL_ID_PROPERTY)),
        source=job.source,
    )


def _external_id(given: str | None, in_conf: str | None) -> str | None:
    """``--external-id`` or ``oozie.wf.external.id``: blank is refused (it would store no key,
    and a retry would submit the job again), and two different keys are."""
    if given is not None and not given.strip():
        raise SpecError(
            "E0302",
            "Invalid parameter [--external-id]: it is empty",
            hint="give the idempotency key, or leave the option out",
            usage=True,
        )
    if given and in_conf and given != in_conf:
        raise SpecError(
            "E0302",
            f"Invalid parameter [--external-id {given}]: the configuration's"
            f" {EXTERNAL_ID_PROPERTY} is [{in_conf}]",
            hint="give the key once: the option or the property",
            usage=True,
        )
    return given or in_conf or None


def submission_conf(
    given: Mapping[str, str],
    *,
    user: str,
    defaults: Mapping[str, str] | None = None,
    source: str = "",
) -> dict[str, str]:
    """A submission's conf: ``defaults`` under the given values, expanded as Oozie's server
    expands them, and ``user.name`` unless given (``submit`` and ``validate`` both use it).
    A blank ``user.name`` counts as not given, as the HTTP API reads it: a job has an owner.
    ``source``: the configuration file the values come from (named in an error)."""
    # the defaults and the user are there to be named, as Oozie's server expands
    # ``${user.name}`` and a property the job leaves to its defaults (``${landing}/x``)
    return expand_conf(with_user({**(defaults or {}), **given}, user), source=source)


def load_app(
    path: str | Path,
    conf: Mapping[str, str],
    clock: Clock,
    *,
    kinds: Iterable[AppKind] | None = None,
    external_id: str | None = None,
    source: str = "",
    app_name: str | None = None,
) -> Loaded:
    """Read one application file and resolve it against ``conf`` (strict: every variable)."""
    doc = load_document(path, kinds=kinds)
    params = read_parameters(doc)
    merged = apply_parameters(params, conf, file=doc.file)
    user = merged.get("user.name", "")
    resolver = SubmitResolver(merged, clock, user=user, kind=doc.kind)
    app = _decode(doc, resolver)
    if app_name and hasattr(app, "name"):
        app = replace(app, name=app_name)
    definition = Path(doc.file).read_text(encoding="utf-8", errors="replace")
    app_path = str(Path(doc.file).resolve())
    if not is_utf8(app_path):  # the store keeps text: a name not UTF-8 cannot be kept
        raise SpecError(
            "E0302",
            f"Invalid parameter [app path {shown(app_path)}]: a name in it is not valid UTF-8",
            hint="rename the directory or file to a UTF-8 name, then submit again",
            usage=True,
        )
    defaults = {p.name: p.default for p in params if p.default is not None and p.name not in conf}
    return Loaded(
        doc.kind,
        app,
        merged,
        definition,
        app_path,
        user,
        external_id,
        source,
        defaults=defaults,
    )


def _decode(doc: XmlDocument, resolver: SubmitResolver) -> App:
    if doc.kind is AppKind.BUNDLE:
        return decode_bundle(doc, resolver)
    if doc.kind is AppKind.COORDINATOR:
        if doc.namespace == EVENTS_NAMESPACE:
            app = decode_events(doc, resolver, landing=resolver.conf.get("landing"))
            check_trigger_calls(app, doc.file)
            return app
        app = decode_coordinator(doc, resolver)

        check_coordinator(app, doc.file)
        if not (resolver.lenient and resolver.unresolved):  # else validate names what to give
            check_instances(app, doc, resolver.conf)
        return app
    workflow = decode_workflow(doc, resolver, validate_fork_join=_fork_join_checked(resolver.conf))
    # with the run's conf, EL that can never work fails now; without (validate), what no
    # values could fix: syntax and unknown functions
    check_workflow_el(workflow, resolver.conf, variables_known=not resolver.lenient)
    return workflow


def _fork_join_checked(conf: Mapping[str, str]) -> bool:
    """``oozie.wf.validate.ForkJoin``, read as Hadoop's ``getBoolean`` reads it: only
    ``false`` (any case) turns the fork/join pairing rules off; loops and targets are still
    checked."""
    return conf.get("oozie.wf.validate.ForkJoin", "").strip().lower() != "false"


def check_coordinator(app: CoordinatorApp, file: str) -> None:
    """Submit checks that need calendar math (oozie.md §2.1), and the data-in / data-out names
    the workflow's configuration reads (else every action would fail at its start)."""
    if app.frequency.is_cron and app.frequency.cron:
        try:
            validate_cron_frequency(app.frequency.cron, app.start, app.end)
        except BundletuiError as exc:
            raise SpecError(
                exc.code, exc.message, hint=exc.hint, file=file, line=app.line
            ) from None
    check_trigger_calls(app, file)
    defined = {
        "In": {d.name for d in app.data_ins} | _logic_names(app.input_logic),
        "Out": {d.name for d in app.data_outs},
    }
    for prop, value in app.workflow_conf:
        _check_conf_calls(prop, value, file)
        for pattern in _format_patterns(value):
            try:
                java_format(EPOCH, pattern)
            except BundletuiError as exc:
                raise SpecError(
                    exc.code,
                    f"{exc.message} (property {prop})",
                    hint=exc.hint,
                    file=file,
                    line=_value_line(file, value),
                ) from None
        for m in _DATA_CALL.finditer(value):
            side, key = m.group(1), next(g for g in m.groups()[1:] if g is not None)
            if key not in defined[side]:
                known = ", ".join(sorted(defined[side])) or "none"
                what = "data-in or input-logic operator" if side == "In" else "data-out"
                raise SpecError(
                    "E1004",
                    f"coord:data{side}: no {what} named [{key}] (property {prop})",
                    hint=f"defined: {known}",
                    file=file,
                    line=line_of(file, m.group(0)),
                )


def check_trigger_calls(app: CoordinatorApp, file: str) -> None:
    """``trigger:`` calls in the workflow's configuration that no firing could answer (the
    wrong arguments, an undeclared feed, any in a time coordinator): refused at submit, not
    failing every action."""
    from bundletui.spec.event_el import trigger_call_problem

    feeds = {f.name for f in app.events.feeds} if app.events is not None else None
    for prop, value in app.workflow_conf:
        problem = trigger_call_problem(value, feeds)
        if problem is not None:
            hint = (
                "trigger: functions: partitions([feed]), count(), bytes(), time(), timestamp(),"
                " reason(), programs()"
                if feeds is not None
                else f"use coord: functions here, or make it an event schedule ({EVENTS_NAMESPACE})"
            )
            raise _conf_el_error(problem, prop, value, hint, file)


def _value_line(file: str, value: str) -> int | None:
    """The line of a property's ``<value>``: looked for as such first, as the same text may
    be an ``<instance>`` above it."""
    return line_of(file, f"<value>{value}") or line_of(file, value)


def _conf_el_error(problem: str, prop: str, value: str, hint: str, file: str) -> SpecError:
    """E1004 for the value of ``prop`` in the workflow's configuration, at its line."""
    return SpecError(
        "E1004",
        f"Expression language evaluation error, {problem} (property {prop})",
        hint=hint,
        file=file,
        line=_value_line(file, value),
    )


def check_instances(app: CoordinatorApp, doc: XmlDocument, conf: Mapping[str, str]) -> None:
    """The data-in / data-out instances that would make every action fail when the engine
    materializes it (E1010: a start-instance after its end-instance, a value that is not one
    instance function such as ``${coord:hours(1)}``; E1004: latest(1), an offset unit), refused
    now with the element's file and line. Only calls whose arguments are known before any
    action exists are checked; one that depends on the action is checked when it is made.
    latest()/future() in a data-out is refused here, where Oozie fails the coordinator at
    its first materialization."""
    probe = InstanceProbe(app, conf)

    def check_absolute(dataset: str, call: InstanceCall) -> None:
        if call.kind in ("absolute", "absoluteRange"):  # a constant instance: any action's
            when = parse_el_time(call.args[0], call.kind)
            absolute_instance(app.dataset(dataset), when, call.args[0])

    def check_call(dataset: str, call: InstanceCall) -> None:
        check_instance_call(call)
        check_absolute(dataset, call)

    input_el = xmlsafe.child(doc.root, "input-events")
    ins = list(xmlsafe.children(input_el, "data-in")) if input_el is not None else []
    for d, el in zip(app.data_ins, ins, strict=False):
        for text, inst_el in zip(d.instances, xmlsafe.children(el, "instance"), strict=False):
            call = _probe(probe, doc, d.dataset, text, inst_el, f"data-in [{d.name}]")
            if call is not None:
                _at(doc, inst_el, f"data-in [{d.name}]", check_call, d.dataset, call)
        start_el = xmlsafe.child(el, "start-instance")
        end_el = xmlsafe.child(el, "end-instance")
        if d.start_instance is None or d.end_instance is None or start_el is None:
            continue
        a = _probe(probe, doc, d.dataset, d.start_instance, start_el, f"data-in [{d.name}]")
        b = _probe(probe, doc, d.dataset, d.end_instance, end_el, f"data-in [{d.name}]")
        if a is not None:
            _at(doc, start_el, f"data-in [{d.name}]", check_absolute, d.dataset, a)
        if a is not None and b is not None:
            _at(doc, start_el, f"data-in [{d.name}]", check_instance_range, a, b)
    output_el = xmlsafe.child(doc.root, "output-events")
    outs = list(xmlsafe.children(output_el, "data-out")) if output_el is not None else []
    for o, el in zip(app.data_outs, outs, strict=False):
        inst_el = xmlsafe.child(el, "instance")
        call = _probe(probe, doc, o.dataset, o.instance, inst_el, f"data-out [{o.name}]")
        if call is not None:
            _at(doc, inst_el, f"data-out [{o.name}]", check_call, o.dataset, call)
            if call.kind in _WAITING_KINDS:  # Oozie fails the first materialization with it
                raise SpecError(
                    "E1010",
                    f"Invalid data in coordinator xml. [data-out [{o.name}]: "
                    "coord:latest()/future() not permitted in output-event]",
                    hint="an output instance must be current(n) or offset(n, unit)",
                    file=doc.file,
                    line=None if inst_el is None else inst_el.sourceline,
                )


_COORD_SIGNATURES = coord_function_signatures()


def _check_conf_calls(prop: str, value: str, file: str) -> None:
    """A ``coord:`` call left for the action (``dataIn``, ``formatTime`` …) that the action's
    start cannot answer would fail every action: refused now. That is a function of another
    phase (``coord:hours``, the frequency's), one that reads an instance's dataset
    (``coord:current``, ``coord:hoursInDay``: there is none here), or a wrong argument count."""
    if "${" not in value:
        return
    try:
        calls = compile_template(value).calls
    except ELError:  # echoed as written: it parsed when it was resolved
        return
    for name, count in sorted(calls):
        if name in DATASET_FUNCTIONS:
            raise _conf_el_error(
                f"{name}() reads the dataset of a data-in or data-out instance, and the"
                " workflow's configuration has none",
                prop,
                value,
                "name the instance in <input-events>/<output-events> and read its URIs here"
                " with coord:dataIn('name') / coord:dataOut('name')",
                file,
            )
        if name.startswith("coord:") and name not in _COORD_SIGNATURES:
            raise _conf_el_error(
                f"{name}() is not a function of the workflow's configuration",
                prop,
                value,
                "here: coord:dataIn, dataOut, nominalTime, actualTime, dateOffset,"
                " dateTzOffset, formatTime, epochTime, actionId, name, conf, user",
                file,
            )
        params = _COORD_SIGNATURES.get(name)
        if params is not None and len(params) != count:
            message, hint = wrong_count(name, params, count)
            raise _conf_el_error(message, prop, value, hint, file)


# instances that wait for data to appear: an output has nothing to wait for
_WAITING_KINDS = frozenset({"latest", "latestRange", "future", "futureRange"})


def _probe(
    probe: InstanceProbe, doc: XmlDocument, dataset: str, text: str, el: Any, event: str
) -> InstanceCall | None:
    try:
        return probe.call(dataset, text)
    except NotAnInstance:
        raise SpecError(
            "E1010",
            f"Invalid data in coordinator xml. [<{xmlsafe.local_name(el)}> of {event} is "
            f"[{xmlsafe.text(el)}], not one instance function]",
            hint="write one instance function per element, e.g. ${coord:current(-1)} "
            "(current, offset, latest, future, absolute or endOf*)",
            file=doc.file,
            line=el.sourceline,
        ) from None
    except BundletuiError as exc:
        raise _located(exc, doc, el, event) from None


def _at(doc: XmlDocument, el: Any, event: str, check: Any, *args: Any) -> None:
    try:
        check(*args)
    except BundletuiError as exc:
        raise _located(exc, doc, el, event) from None


def _located(exc: BundletuiError, doc: XmlDocument, el: Any, event: str) -> BundletuiError:
    """``exc`` at ``el`` of ``doc`` (the materializer's errors carry no place: it has no file)."""
    if exc.file:
        return exc
    message = exc.message
    prefix = "Invalid data in coordinator xml. ["
    if message.startswith(prefix) and event not in message:
        message = f"{prefix}{event}: {message[len(prefix) :]}"
    return SpecError(exc.code, message, hint=exc.hint, file=doc.file, line=el.sourceline)


def _format_patterns(value: str) -> list[str]:
    """The patterns of the ``coord:formatTime`` calls in ``value`` written as literals: such a
    pattern fails every action, or none. Read from the parsed expression: a regex took
    ``'DAY'`` of ``formatTime(dateOffset(t, -1, 'DAY'), 'yyyy')`` for the pattern (QA (an))."""
    if "coord:formatTime" not in value:
        return []
    try:
        parts = parse_template(value)
    except BundletuiError:  # echoed as written: it parsed when it was resolved
        return []
    return [
        node.args[1].value
        for part in parts
        if isinstance(part, ExprPart)
        for node in reachable(part.node)
        if isinstance(node, Call)
        and node.name == "coord:formatTime"
        and len(node.args) == 2
        and isinstance(node.args[1], Literal)
        and isinstance(node.args[1].value, str)
    ]


# a literal name only (a number or boolean too: dataIn(3) names [3] when the action starts):
# coord:dataIn(coord:conf('x')) is checked when the action starts
_DATA_CALL = re.compile(
    r"coord:data(In|Out)\(\s*(?:'([^']*)'|\"([^\"]*)\"|(\d+(?:\.\d+)?|true|false))\s*\)"
)


def _logic_names(node: InputLogic | None) -> set[str]:
    if node is None:
        return set()
    names = {node.name} if node.name else set()
    for child in node.children:
        names |= _logic_names(child)
    return names


# ----------------------------------------------------------------------------- validate


@dataclass(frozen=True)
class Validation:
    kind_name: str
    file: str
    checked_semantics: bool
    needs: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # valid, but not what the file says (a capped retry-max)


def validate_file(
    path: str | Path,
    clock: Clock,
    conf: Mapping[str, str] | None = None,
    *,
    defaults: Mapping[str, str] | None = None,
) -> Validation:
    """Schema + semantic checks; without values for its variables only the schema is checked.
    With values, a bundle's enabled coordinators are resolved too, as ``submit`` does; without,
    they are when the bundle itself gives them every value they need (``<parameters>``
    defaults, its ``<configuration>``s). ``defaults``: what a submission gives when nothing
    else does (``landing``, ``user.name``), used when ``conf`` is None (``conf`` from
    :func:`submission_conf` has them already)."""
    return validate_document(load_document(path), clock, conf, defaults=defaults)


def validate_document(
    doc: XmlDocument,
    clock: Clock,
    conf: Mapping[str, str] | None = None,
    *,
    defaults: Mapping[str, str] | None = None,
) -> Validation:
    """:func:`validate_file` of a document already read."""
    kind_name = {AppKind.BUNDLE: "bundle-app", AppKind.COORDINATOR: "coordinator-app"}.get(
        doc.kind,
        xmlsafe.local_name(doc.root),  # workflow-app, or a DAG's dag-app
    )
    given = dict(conf or {})
    lenient = conf is None
    params = read_parameters(doc)
    if lenient:  # a variable with a default has a value: it is never reported missing
        merged = {
            **(defaults or {}),
            **{p.name: p.default for p in params if p.default is not None},
        }
    else:
        merged = apply_parameters(params, given, file=doc.file)
    resolver = SubmitResolver(merged, clock, lenient=lenient, kind=doc.kind)
    checked = _checked(doc, kind_name, merged, resolver, clock)
    # a required <parameters> entry no expression reads still needs a value to submit (E0738)
    required = [p.name for p in params if lenient and p.default is None and p.name not in merged]
    if required:
        needs = tuple(sorted({*checked.needs, *required}))
        return replace(checked, checked_semantics=False, needs=needs)
    return checked


def _checked(
    doc: XmlDocument,
    kind_name: str,
    merged: dict[str, str],
    resolver: SubmitResolver,
    clock: Clock,
) -> Validation:
    """:func:`validate_file`'s checks, once its values are merged."""
    lenient = resolver.lenient
    from bundletui.spec.submit_el import NeedsValues

    try:
        app = _decode(doc, resolver)
    except NeedsValues:
        if doc.kind is AppKind.COORDINATOR and doc.namespace != EVENTS_NAMESPACE:
            with contextlib.suppress(NeedsValues):  # what no value can fix is said still
                check_controls(doc, resolver)
        needs = _variables_without_values(doc, merged)
        if not needs:  # no variable lacks a value: what stopped it, a strict pass says
            _decode(doc, SubmitResolver(merged, clock, lenient=False, kind=doc.kind))
        return Validation(kind_name, doc.file, False, needs)
    except SpecError as exc:
        if lenient and resolver.unresolved and "${" in exc.message:
            # the value it could not read is a variable with no value yet (an event
            # schedule's <delay>${d}</delay>): a submission's values may well make it valid
            return Validation(kind_name, doc.file, False, _variables_without_values(doc, merged))
        raise
    if lenient and isinstance(app, BundleApp):
        waiting = {  # the coordinators only the submission's values can check
            c.name
            for c in app.coordinators
            if c.enabled and _coordinator_needs_values(app, c, merged, clock)
        }
        if resolver.unresolved or waiting:
            notes = _check_coordinators_without_values(app, merged, clock, waiting)
            needs = _variables_without_values(doc, merged) if resolver.unresolved else ()
            return Validation(kind_name, doc.file, False, needs, notes)
    if lenient and resolver.unresolved:
        return Validation(kind_name, doc.file, False, _variables_without_values(doc, merged))
    notes = (
        _retry_notes(app, doc.file) + _credential_notes(doc) if isinstance(app, WorkflowApp) else ()
    )
    if lenient and isinstance(app, WorkflowApp):
        try:  # syntax and functions passed: a problem now is a variable with no value yet
            check_workflow_el(app, merged)
        except SpecError:
            known = runtime_variables(merged)
            needs = tuple(n for n in _variables_without_values(doc, merged) if n not in known)
            return Validation(kind_name, doc.file, False, needs, notes)
    if isinstance(app, BundleApp):
        coords = _resolve_coordinators(app, merged, clock)  # what submit checks too
        notes = program_notes(app, coords) + tuple(
            n for c in coords for n in workflow_notes(c.app, c.app_path, clock)
        )
    elif isinstance(app, CoordinatorApp):
        notes = workflow_notes(app, doc.file, clock)
    return Validation(kind_name, doc.file, True, notes=notes)


def workflow_notes(app: CoordinatorApp, file: str, clock: Clock) -> tuple[str, ...]:
    """A coordinator's workflow that cannot be read now, or is not valid. Oozie reads it only
    when an action starts (it may be deployed or fixed later), so it is no error; but every
    action then fails (E0710, or the workflow's own error), and ``validate`` says so."""
    written = app.workflow_app_path
    if not written.strip() or "${" in written:  # an action-time path: known at action start
        return ()
    line = line_of(file, written)
    place = f"{file}:{line}" if line else file
    try:
        path = resolve_app_path(written, AppKind.WORKFLOW, Path(file).parent)
    except SpecError as exc:
        return (
            f"{place}: the workflow of coordinator [{app.name}] cannot be read now "
            f"({exc.code}: {exc.message}): its actions fail unless it is there when they "
            "start",
        )
    try:  # what no action's values could fix (its variables come from each action)
        doc = load_document(path)
        if doc.kind is not AppKind.WORKFLOW:  # review: a coordinator naming itself recursed
            raise SpecError(
                "E0710",
                f"{path} is a {doc.kind.value} definition, not a workflow's",
                hint="a coordinator's <app-path> names a workflow.xml (or its directory)",
            )
        validate_document(doc, clock)
    except SpecError as exc:
        return (
            f"{place}: the workflow of coordinator [{app.name}] is not valid now "
            f"({exc}): its actions fail"
            " unless it is fixed before they start",
        )
    return ()


def _coordinator_needs_values(
    bundle: BundleApp, coord: BundleCoordinator, conf: Mapping[str, str], clock: Clock
) -> bool:
    """Whether the coordinator uses a variable that neither ``conf`` (the bundle's own
    values) nor its defaults give: then only a submission's values can check it. An error
    that is not about a missing value is left to the real check."""
    from bundletui.spec.submit_el import NeedsValues

    if _unresolved(coord):
        return True
    try:
        path = _coordinator_file(bundle, coord)
        doc = load_document(path, kinds=(AppKind.COORDINATOR,))
    except BundletuiError:
        return False  # refused by the real check, with the bundle's file and line
    child = bundle_coordinator_conf(conf, coord, "", path)
    params = read_parameters(doc)
    merged = {**{p.name: p.default for p in params if p.default is not None}, **child}
    resolver = SubmitResolver(merged, clock, lenient=True, kind=doc.kind)
    try:
        _decode(doc, resolver)
    except NeedsValues:
        return True
    except BundletuiError:
        pass
    return bool(resolver.unresolved or any(p.name not in merged for p in params))


def _unresolved(coord: BundleCoordinator) -> bool:
    """Whether the bundle's own text for ``coord`` kept a variable without a value (its
    app-path or configuration: only a submission's values say what it is)."""
    return "${" in coord.app_path or any("${" in v for _k, v in coord.configuration)


def _check_coordinators_without_values(
    bundle: BundleApp, conf: Mapping[str, str], clock: Clock, waiting: set[str]
) -> tuple[str, ...]:
    """``validate`` without the submission's values: each enabled coordinator the bundle
    gives every value is checked as ``submit`` checks it; one that needs values (named in
    ``waiting``) has its file found and its schema checked; one whose path needs values is
    named. Notes say which."""
    notes, checked = [], []
    for coord in bundle.coordinators:
        if not coord.enabled:
            continue
        label = f"coordinator [{coord.name}]"
        if "${" in coord.app_path:
            notes.append(f"{label} not checked: its app-path {coord.app_path} needs values")
        elif coord.name in waiting:
            try:
                load_document(_coordinator_file(bundle, coord), kinds=(AppKind.COORDINATOR,))
            except BundletuiError as exc:
                _name_entry(exc, bundle, coord)
                raise
            notes.append(f"{label}: its file and schema checked; its variables need values")
        else:
            checked.append(_resolve_coordinator(bundle, coord, conf, clock))
            notes.append(f"{label}: checked")
    check_siblings(checked)
    return tuple(notes)


def _retry_notes(app: WorkflowApp, file: str) -> tuple[str, ...]:
    """Nodes whose retry-max is more than the engine allows (Oozie warns E0820 and caps it)."""
    return tuple(
        f"{file}:{n.line}: E0820: retry-max [{n.retry_max}] of node [{n.name}] is more than "
        f"{USER_RETRY_MAX}: it is retried {USER_RETRY_MAX} times at most"
        for n in app.nodes
        if n.retry_max > USER_RETRY_MAX
    )


def _credential_notes(doc: XmlDocument) -> tuple[str, ...]:
    """``<credentials>`` and an action's ``cred=`` are Hadoop's (Kerberos, Hive and HBase
    tokens): jobs here run with the engine user's own rights, so they are read and ignored,
    which ``validate`` says rather than leave a user to think they do something (QA). A
    ``cred`` that names no ``<credential>`` would fail in Oozie: said as well."""
    creds = xmlsafe.child(doc.root, "credentials")
    defined = {
        c.get("name", "")
        for c in (xmlsafe.children(creds, "credential") if creds is not None else ())
    }
    notes: list[str] = []
    if creds is not None:
        notes.append(
            f"{doc.file}:{creds.sourceline}: <credentials> are ignored: jobs run here with the"
            " engine user's own rights (no Hadoop or Kerberos tokens)"
        )
    for action in xmlsafe.children(doc.root, "action"):
        for name in filter(None, (n.strip() for n in action.get("cred", "").split(","))):
            if name not in defined:
                notes.append(
                    f"{doc.file}:{action.sourceline}: action [{action.get('name')}] names"
                    f" credential [{name}], which <credentials> does not define (Oozie fails"
                    " the action; here credentials are ignored)"
                )
    return tuple(notes)


_SIMPLE_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.]*)\}")


def _variables_without_values(doc: XmlDocument, conf: Mapping[str, str]) -> tuple[str, ...]:
    """Every plain ``${name}`` in the file that nothing defines (for validate's note)."""
    text = Path(doc.file).read_text(encoding="utf-8", errors="replace")
    names = {m.group(1) for m in _SIMPLE_VARIABLE.finditer(text)}
    return tuple(sorted(n for n in names if n not in conf and n not in DATE_VARIABLES))


# ----------------------------------------------------------------------------- children


def bundle_coordinator_conf(
    bundle_conf: Mapping[str, str], coord: BundleCoordinator, bundle_id: str, app_file: Path
) -> dict[str, str]:
    """Bundle conf, overlaid with the coordinator's <configuration> (oozie.md §1.1)."""
    conf = dict(bundle_conf)
    conf.update(dict(coord.configuration))
    for key in (
        "oozie.bundle.application.path",
        "oozie.application.bundle.path",
        "oozie.wf.application.path",
    ):
        conf.pop(key, None)
    conf["oozie.coord.application.path"] = str(app_file)
    conf["oozie.bundle.id"] = bundle_id
    return conf


def load_bundle_coordinator(
    bundle: BundleApp,
    coord: BundleCoordinator,
    bundle_conf: Mapping[str, str],
    bundle_id: str,
    clock: Clock,
) -> Loaded:
    """One coordinator of a bundle, resolved as the bundle's start submits it."""
    path = _coordinator_file(bundle, coord)
    conf = bundle_coordinator_conf(bundle_conf, coord, bundle_id, path)
    return load_app(path, conf, clock, kinds=(AppKind.COORDINATOR,), app_name=coord.name)


def _coordinator_file(bundle: BundleApp, coord: BundleCoordinator) -> Path:
    """The file a bundle coordinator's ``<app-path>`` names; an error says where in the
    bundle that ``<app-path>`` is."""
    base = Path(bundle.source).parent if bundle.source else Path.cwd()
    try:
        return resolve_app_path(coord.app_path, AppKind.COORDINATOR, base)
    except SpecError as exc:  # the bundle's <app-path> is wrong: say where it is
        if bundle.source:
            exc.file, exc.line = bundle.source, _app_path_line(bundle, coord)
            exc.hint = (
                f"check the <app-path> of coordinator [{coord.name}]: a coordinator.xml, or a "
                "directory holding one (a relative path starts at the bundle file's directory)"
            )
        raise


def _app_path_line(bundle: BundleApp, coord: BundleCoordinator) -> int | None:
    """The line of ``coord``'s ``<app-path>`` in the bundle file (its n-th ``<coordinator>``;
    the model keeps no lines), or None when the file cannot be read now."""
    root = xmlsafe.reread(bundle.source)
    found = list(xmlsafe.children(root, "coordinator")) if root is not None else []
    index = bundle.coordinators.index(coord)
    if index >= len(found):
        return None
    el = found[index]
    path_el = xmlsafe.child(el, "app-path")
    return (path_el if path_el is not None else el).sourceline


def check_bundle_coordinators(loaded: Loaded, clock: Clock) -> list[Loaded]:
    """Resolve every enabled coordinator of a bundle now, so bad input fails the submit
    (once: a ``loaded`` from :func:`load_job` has them already)."""
    if loaded.coordinators:
        return list(loaded.coordinators)
    return _resolve_coordinators(loaded.app, loaded.conf, clock)


def check_siblings(coords: list[Loaded]) -> None:
    """What one event coordinator of a bundle may not say otherwise than its siblings: the
    done-flag of a path, the limit of a concurrency group; nor fire with them in a loop."""
    _check_sibling_feeds(coords)
    _check_sibling_groups(coords)
    _check_sibling_programs(coords)


def _check_sibling_feeds(coords: list[Loaded]) -> None:
    """Two event coordinators of one bundle watching one path with different done-flags: a
    partition is recorded once per path and handed to both, so one of them would fire on
    partitions that lack its own done-flag."""
    from bundletui.spec.decode_events import FLAG_HINT, feed_line, flag_text

    seen: dict[str, tuple[str, str]] = {}  # path -> (done-flag, coordinator)
    for loaded in coords:
        app: CoordinatorApp = loaded.app
        for i, feed in enumerate(app.events.feeds if app.events is not None else ()):
            flag, owner = seen.setdefault(feed.path, (feed.done_flag, app.name))
            if flag != feed.done_flag:
                raise SpecError(
                    "E1003",
                    f"Invalid coordinator application attributes, feed [{feed.name}] of "
                    f"coordinator [{app.name}] watches {feed.path} with "
                    f"{flag_text(feed.done_flag)}, but coordinator [{owner}] of the same bundle "
                    f"watches the same path with {flag_text(flag)}",
                    hint=FLAG_HINT,
                    file=loaded.app_path,
                    line=feed_line(loaded.app_path, i),
                )


def _check_sibling_groups(coords: list[Loaded]) -> None:
    """Two event coordinators of one bundle in one concurrency group with different limits."""
    from bundletui.spec.decode_events import group_clash_error

    seen: dict[str, tuple[int, str]] = {}  # group -> (max, coordinator)
    for loaded in coords:
        app: CoordinatorApp = loaded.app
        c = app.events.constraints if app.events is not None else None
        if c is None or not c.group or c.group_max is None:
            continue
        limit, owner = seen.setdefault(c.group, (c.group_max, app.name))
        if limit != c.group_max:
            other = f"coordinator [{owner}] of the same bundle"
            raise group_clash_error(app.name, loaded.app_path, c.group, c.group_max, other, limit)


def _check_sibling_programs(coords: list[Loaded]) -> None:
    """Event coordinators of one bundle that fire each other through ``<program>`` triggers:
    each run would start the next, for ever (:mod:`bundletui.spec.program_loops`)."""
    from bundletui.model.events import TriggerNode
    from bundletui.spec.program_loops import add_trigger, loop_error, program_index, program_loop

    events = [(c.app.name, c.app.events.trigger, c.app_path) for c in coords if c.app.events]
    triggers: dict[str, TriggerNode] = {}
    for name, trigger, _path in events:
        add_trigger(triggers, name, trigger)
    loop = program_loop(triggers)
    if loop is None:
        return
    for name, trigger, path in events:
        # the first schedule of the loop, in the file whose <program> names the next
        if name == loop[0] and program_index(trigger, loop[1]) is not None:
            raise loop_error(loop, trigger, path)


def program_notes(bundle: BundleApp, coords: list[Loaded]) -> tuple[str, ...]:
    """``<program coordinator>`` triggers naming no coordinator of their bundle. The engine
    hands a bundled schedule program events of its own bundle's coordinators and of
    coordinators outside any bundle, so such a name is legitimate (a standalone coordinator)
    but often a typo: validate notes it."""
    from bundletui.spec.decode_events import program_lines, programs

    names = [c.name for c in bundle.coordinators if c.enabled]
    out = []
    for loaded in coords:
        app: CoordinatorApp = loaded.app
        if app.events is None:
            continue
        lines = program_lines(loaded.app_path)
        for i, prog in enumerate(programs(app.events.trigger)):
            if prog.coordinator in names:
                continue
            line = lines[i] if i < len(lines) else None
            place = f"{loaded.app_path}:{line}" if line else loaded.app_path
            out.append(
                f'{place}: <program coordinator="{prog.coordinator}"> of coordinator '
                f"[{app.name}] names no coordinator of bundle [{bundle.name}] (it has "
                f"{', '.join(names) or 'none enabled'}): only a coordinator outside any bundle "
                "with that name can fire it"
            )
    return tuple(out)


def _resolve_coordinators(bundle: BundleApp, conf: Mapping[str, str], clock: Clock) -> list[Loaded]:
    """Each enabled coordinator as the bundle's start submits it (``submit`` and ``validate``
    check a bundle with this)."""
    out = [_resolve_coordinator(bundle, c, conf, clock) for c in bundle.coordinators if c.enabled]
    check_siblings(out)
    return out


def _resolve_coordinator(
    bundle: BundleApp, coord: BundleCoordinator, conf: Mapping[str, str], clock: Clock
) -> Loaded:
    try:
        return load_bundle_coordinator(
            bundle, coord, conf, "0000000-000000000000000-bundletui-check-B", clock
        )
    except BundletuiError as exc:
        _name_entry(exc, bundle, coord)
        raise


def _name_entry(exc: BundletuiError, bundle: BundleApp, coord: BundleCoordinator) -> None:
    """The file and line are the coordinator's; say which bundle entry submitted it (two
    entries may share one coordinator.xml with different configurations)."""
    exc.message += f' [bundle coordinator "{coord.name}" of {bundle.source or "the bundle"}]'
