"""From a job configuration to checked, resolved application objects.

``properties/XML config (+ -D)`` -> app path -> XML validated against our XSDs -> ``<parameters>``
defaults -> submit-phase EL -> frozen model objects -> semantic checks (a workflow's: its graph,
and its nodes' run-time EL against the conf it will run with). Used by ``submit``,
``validate``, ``dryrun``, sub-workflow launches and a bundle's start (its coordinators).
Nothing here touches the store.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
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
from bundletui.model.clock import Clock
from bundletui.model.cron import validate_cron_frequency
from bundletui.spec.config import (
    JobConfig,
    apply_parameters,
    expand_conf,
    load_job_config,
    read_parameters,
    resolve_app_path,
)
from bundletui.spec.decode_bundle import decode_bundle
from bundletui.spec.decode_coordinator import decode_coordinator
from bundletui.spec.decode_events import decode_events
from bundletui.spec.decode_workflow import decode_workflow
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

    @property
    def kind_name(self) -> str:
        return {AppKind.BUNDLE: "bundle-app", AppKind.COORDINATOR: "coordinator-app"}.get(
            self.kind, "workflow-app"
        )


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

    ``defaults`` fill properties nobody set (the CLI gives ``landing`` = <home>/landing).
    """
    job = load_job_config(config, overrides)
    return load_configured(job, clock, user=user, external_id=external_id, defaults=defaults)


def load_configured(
    job: JobConfig,
    clock: Clock,
    *,
    user: str,
    external_id: str | None = None,
    defaults: Mapping[str, str] | None = None,
) -> Loaded:
    conf = submission_conf(job.conf, user=user, defaults=defaults)
    return load_app(
        job.app_path,
        conf,
        clock,
        kinds=(job.kind,),
        external_id=external_id or conf.get(EXTERNAL_ID_PROPERTY) or None,
        source=job.source,
    )


def submission_conf(
    given: Mapping[str, str], *, user: str, defaults: Mapping[str, str] | None = None
) -> dict[str, str]:
    """A submission's conf: ``defaults`` under the given values, expanded as Oozie's server
    expands them, and ``user.name`` unless given (``submit`` and ``validate`` both use it).
    A blank ``user.name`` counts as not given, as the HTTP API reads it: a job has an owner."""
    conf = {**(defaults or {}), **expand_conf(dict(given))}
    if not conf.get("user.name", "").strip():
        conf["user.name"] = user
    return conf


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
    merged = apply_parameters(read_parameters(doc), conf, file=doc.file)
    user = merged.get("user.name", "")
    resolver = SubmitResolver(merged, clock, user=user, kind=doc.kind)
    app = _decode(doc, resolver)
    if app_name and hasattr(app, "name"):
        app = replace(app, name=app_name)
    definition = Path(doc.file).read_text(encoding="utf-8", errors="replace")
    return Loaded(
        doc.kind, app, merged, definition, str(Path(doc.file).resolve()), user, external_id, source
    )


def _decode(doc: XmlDocument, resolver: SubmitResolver) -> App:
    if doc.kind is AppKind.BUNDLE:
        return decode_bundle(doc, resolver)
    if doc.kind is AppKind.COORDINATOR:
        if doc.namespace == EVENTS_NAMESPACE:
            return decode_events(doc, resolver)
        app = decode_coordinator(doc, resolver)

        check_coordinator(app, doc.file)
        return app
    workflow = decode_workflow(doc, resolver)
    # with the run's conf, EL that can never work fails now; without (validate), what no
    # values could fix: syntax and unknown functions
    check_workflow_el(workflow, resolver.conf, variables_known=not resolver.lenient)
    return workflow


def check_coordinator(app: CoordinatorApp, file: str) -> None:
    """Submit checks that need calendar math (oozie.md §2.1), and the data-in / data-out names
    the workflow's configuration reads (else every action would fail at its start)."""
    if app.frequency.is_cron and app.frequency.cron:
        try:
            validate_cron_frequency(app.frequency.cron, app.start, app.end)
        except BundletuiError as exc:
            raise SpecError(exc.code, exc.message, hint=exc.hint, file=file) from None
    defined = {
        "In": {d.name for d in app.data_ins} | _logic_names(app.input_logic),
        "Out": {d.name for d in app.data_outs},
    }
    for prop, value in app.workflow_conf:
        for m in _DATA_CALL.finditer(value):
            side, key = m.group(1), m.group(2) or m.group(3)
            if key not in defined[side]:
                known = ", ".join(sorted(defined[side])) or "none"
                what = "data-in or input-logic operator" if side == "In" else "data-out"
                raise SpecError(
                    "E1004",
                    f"coord:data{side}: no {what} named [{key}] (property {prop})",
                    hint=f"defined: {known}",
                    file=file,
                    line=_line_of(file, m.group(0)),
                )


# a literal name only: coord:dataIn(coord:conf('x')) is checked when the action starts
_DATA_CALL = re.compile(r"coord:data(In|Out)\(\s*(?:'([^']*)'|\"([^\"]*)\")\s*\)")


def _line_of(file: str, text: str) -> int | None:
    """The line where ``text`` first appears in ``file`` (values carry no line of their own)."""
    try:
        source = Path(file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    at = source.find(text)
    return None if at < 0 else source.count("\n", 0, at) + 1


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
    path: str | Path, clock: Clock, conf: Mapping[str, str] | None = None
) -> Validation:
    """Schema + semantic checks; without values for its variables only the schema is checked.
    With values, a bundle's enabled coordinators are resolved too, as ``submit`` does."""
    doc = load_document(path)
    kind_name = {AppKind.BUNDLE: "bundle-app", AppKind.COORDINATOR: "coordinator-app"}.get(
        doc.kind, "workflow-app"
    )
    given = dict(conf or {})
    lenient = conf is None
    params = read_parameters(doc)
    if lenient:
        merged = {p.name: p.default for p in params if p.default is not None}
    else:
        merged = apply_parameters(params, given, file=doc.file)
    resolver = SubmitResolver(merged, clock, lenient=lenient, kind=doc.kind)
    from bundletui.spec.submit_el import NeedsValues

    try:
        app = _decode(doc, resolver)
    except NeedsValues:
        return Validation(kind_name, doc.file, False, _variables_without_values(doc, merged))
    if lenient and resolver.unresolved:
        return Validation(kind_name, doc.file, False, _variables_without_values(doc, merged))
    notes = _retry_notes(app, doc.file) if isinstance(app, WorkflowApp) else ()
    if lenient and isinstance(app, WorkflowApp):
        try:  # syntax and functions passed: a problem now is a variable with no value yet
            check_workflow_el(app, merged)
        except SpecError:
            known = runtime_variables(merged)
            needs = tuple(n for n in _variables_without_values(doc, merged) if n not in known)
            return Validation(kind_name, doc.file, False, needs, notes)
    if isinstance(app, BundleApp):
        if lenient:  # its coordinators are resolved with the submission's values only
            return Validation(kind_name, doc.file, False)
        _resolve_coordinators(app, merged, clock)  # what submit checks too
    return Validation(kind_name, doc.file, True, notes=notes)


def _retry_notes(app: WorkflowApp, file: str) -> tuple[str, ...]:
    """Nodes whose retry-max is more than the engine allows (Oozie warns E0820 and caps it)."""
    return tuple(
        f"{file}:{n.line}: E0820: retry-max [{n.retry_max}] of node [{n.name}] is more than "
        f"{USER_RETRY_MAX}: it is retried {USER_RETRY_MAX} times at most"
        for n in app.nodes
        if n.retry_max > USER_RETRY_MAX
    )


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
    base = Path(bundle.source).parent if bundle.source else Path.cwd()
    path = resolve_app_path(coord.app_path, AppKind.COORDINATOR, base)
    conf = bundle_coordinator_conf(bundle_conf, coord, bundle_id, path)
    return load_app(path, conf, clock, kinds=(AppKind.COORDINATOR,), app_name=coord.name)


def check_bundle_coordinators(loaded: Loaded, clock: Clock) -> list[Loaded]:
    """Resolve every enabled coordinator of a bundle now, so bad input fails the submit."""
    return _resolve_coordinators(loaded.app, loaded.conf, clock)


def _resolve_coordinators(bundle: BundleApp, conf: Mapping[str, str], clock: Clock) -> list[Loaded]:
    """Each enabled coordinator as the bundle's start submits it (``submit`` and ``validate``
    check a bundle with this)."""
    out = []
    for coord in bundle.coordinators:
        if not coord.enabled:
            continue
        try:
            out.append(
                load_bundle_coordinator(
                    bundle, coord, conf, "0000000-000000000000000-bundletui-check-B", clock
                )
            )
        except BundletuiError as exc:
            # the file and line are the coordinator's; say which bundle entry submitted it (two
            # entries may share one coordinator.xml with different configurations)
            exc.message += (
                f' [bundle coordinator "{coord.name}" of {bundle.source or "the bundle"}]'
            )
            raise
    return out
