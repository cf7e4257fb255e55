"""coordinator.xml (``uri:oozie:coordinator:0.1`` … ``0.5``) -> :class:`CoordinatorApp`.

Submit-time values (frequency, start, end, timezone, controls, dataset attributes,
uri-template, done-flag, app-path) go through the resolver's typed methods; instance
expressions keep their EL (after ``resolver.text``, which echoes ``coord:current`` and
friends) and the workflow configuration values are kept exactly as written, as Oozie does.
The normalisations of oozie.md §2.1 that need no calendar are applied here: timeout,
concurrency, throttle, execution, start < end, the 5-minute minimum frequency.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from bundletui.errors import SpecError
from bundletui.model.apps import (
    CoordControls,
    CoordinatorApp,
    DataIn,
    DataOut,
    Dataset,
    ExecutionOrder,
    InputLogic,
    LogicOp,
)
from bundletui.model.frequency import Frequency, TimeUnit
from bundletui.model.paths import tidy_uri
from bundletui.model.timeutil import format_oozie_time
from bundletui.spec import xmlsafe
from bundletui.spec.config import resolve_app_path
from bundletui.spec.decode_common import (
    expect_kind,
    read_conf,
    refuse_leftover_el,
    split_parameters,
    where,
)
from bundletui.spec.resolver import Resolver, Where
from bundletui.spec.xmlsafe import AppKind, Element, XmlDocument

# oozie-default.xml values (oozie.md §2.8)
DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 86400
DEFAULT_CONCURRENCY = 1
DEFAULT_THROTTLE = 12
MAX_THROTTLE = 500  # queue size 10000 x throttling factor 0.05
MIN_FREQUENCY_MINUTES = 5


def decode_coordinator(
    doc: XmlDocument,
    resolver: Resolver,
    *,
    check_max_frequency: bool = True,
) -> CoordinatorApp:
    """Decode a validated coordinator document. ``check_max_frequency`` mirrors
    ``oozie.service.coord.check.maximum.frequency`` (reject frequencies under 5 minutes)."""
    expect_kind(doc, AppKind.COORDINATOR, ("coordinator-app",))
    root = doc.root

    def attr(name: str) -> tuple[str, Where]:
        return root.get(name, ""), where(doc, root, f"coordinator-app/@{name}")

    name = resolver.text(*attr("name")).strip()
    frequency = resolver.frequency(*attr("frequency"))
    _check_frequency(frequency, where(doc, root, "frequency"), check_max_frequency)
    start = resolver.datetime(*attr("start"))
    end = resolver.datetime(*attr("end"))
    if not start < end:
        raise where(doc, root, "start").error(
            "E1003",
            "Invalid coordinator application attributes, Coordinator Start Time must be "
            "earlier than End Time.",
            hint=f"start {format_oozie_time(start)} is not before end {format_oozie_time(end)}",
        )
    timezone = resolver.timezone(*attr("timezone"))
    defaults, required = split_parameters(doc)

    controls = _controls(doc, xmlsafe.child(root, "controls"), resolver)
    datasets = _datasets(doc, xmlsafe.child(root, "datasets"), resolver)
    by_name = {ds.name: ds for ds in datasets}
    data_ins = _data_ins(doc, xmlsafe.child(root, "input-events"), resolver, by_name)
    data_outs = _data_outs(doc, xmlsafe.child(root, "output-events"), resolver, by_name)
    logic_el = xmlsafe.child(root, "input-logic")
    input_logic = (
        _input_logic(doc, logic_el, resolver, {d.name: d for d in data_ins})
        if logic_el is not None
        else None
    )

    action = xmlsafe.child(root, "action")
    workflow = xmlsafe.child(action, "workflow") if action is not None else None
    app_path = ""
    conf: tuple[tuple[str, str], ...] = ()
    if workflow is not None:
        path_el = xmlsafe.child(workflow, "app-path")
        app_path = resolver.text(
            xmlsafe.text(path_el), where(doc, path_el, "action/workflow/app-path")
        ).strip()
        conf = read_conf(
            doc,
            xmlsafe.child(workflow, "configuration"),
            resolver,
            resolve_values=False,
            check_values=True,
        )

    return CoordinatorApp(
        name=name,
        frequency=frequency,
        start=start,
        end=end,
        timezone=timezone,
        controls=controls,
        datasets=datasets,
        data_ins=data_ins,
        data_outs=data_outs,
        input_logic=input_logic,
        workflow_app_path=app_path,
        workflow_conf=conf,
        namespace=doc.namespace,
        source=doc.file,
        line=root.sourceline,
        parameters=defaults,
        required_parameters=required,
    )


def _check_frequency(freq: Frequency, here: Where, check_max: bool) -> None:
    if freq.is_cron:
        return
    if freq.value <= 0:
        raise here.error(
            "E1003",
            f"Invalid coordinator application attributes, frequency [{freq.value}] must be "
            "greater than zero",
            hint="use a positive frequency, e.g. ${coord:hours(1)}",
        )
    if check_max and freq.unit is TimeUnit.MINUTE and freq.value < MIN_FREQUENCY_MINUTES:
        raise here.error(
            "E1003",
            f"Invalid coordinator application attributes, Coordinator job with frequency "
            f"[{freq.value}] minutes is faster than allowed maximum of 5 minutes "
            "(oozie.service.coord.check.maximum.frequency is set to true)",
            hint="use a frequency of at least 5 minutes, e.g. ${coord:minutes(5)}",
        )


# --------------------------------------------------------------------------- controls


def check_controls(doc: XmlDocument, resolver: Resolver) -> None:
    """The controls alone (``validate`` without values, once a variable elsewhere stopped the
    decoding): a number written out of range is wrong whatever the values will be."""
    _controls(doc, xmlsafe.child(doc.root, "controls"), resolver)


def _controls(doc: XmlDocument, el: Element | None, resolver: Resolver) -> CoordControls:
    if el is None:
        return CoordControls()

    def value(name: str) -> tuple[str, Where] | None:
        """The written text and its place; None (the default) when it is empty, written so
        or coming out so from a variable (``-D concurrency=``), as Oozie's empty control."""
        c = xmlsafe.child(el, name)
        if c is None or not xmlsafe.text(c):
            return None
        text, at = xmlsafe.text(c), where(doc, c, f"controls/{name}")
        if "${" in text and not resolver.text(text, at).strip():
            return None
        return text, at

    timeout = DEFAULT_TIMEOUT
    if (v := value("timeout")) is not None:
        timeout = resolver.timeout_minutes(*v)
        if timeout < 0 or timeout > MAX_TIMEOUT:
            timeout = MAX_TIMEOUT  # Oozie's trap: -1 means 60 days, not "forever"
    concurrency = DEFAULT_CONCURRENCY
    if (v := value("concurrency")) is not None:
        concurrency = resolver.integer(*v)
    throttle = DEFAULT_THROTTLE
    if (v := value("throttle")) is not None:
        throttle = resolver.integer(*v)
        if throttle < 1 or throttle > MAX_THROTTLE:
            throttle = MAX_THROTTLE
    execution = ExecutionOrder.FIFO
    if (v := value("execution")) is not None:
        text = resolver.text(*v).strip()
        try:
            execution = ExecutionOrder(text)
        except ValueError:
            raise v[1].error(
                "E1003",
                f"Invalid coordinator application attributes, execution [{text}] is not one of "
                f"{', '.join(e.value for e in ExecutionOrder)}",
                hint="use FIFO (oldest first), LIFO (newest first), LAST_ONLY or NONE",
            ) from None
    return CoordControls(timeout, concurrency, execution, throttle)


# --------------------------------------------------------------------------- datasets


def _dataset(doc: XmlDocument, el: Element, resolver: Resolver) -> Dataset:
    name = el.get("name", "")

    def at(field: str) -> Where:
        return where(doc, el, f"dataset {name!r} {field}")

    frequency = resolver.frequency(el.get("frequency", ""), at("@frequency"))
    if frequency.is_cron or frequency.value <= 0:
        raise at("@frequency").error(
            "E1003",
            f"Invalid coordinator application attributes, dataset [{name}] frequency must be a "
            f"positive number of minutes or a coord: frequency function, not [{frequency}]",
            hint='e.g. frequency="${coord:days(1)}" (cron is for coordinators only)',
        )
    initial = resolver.datetime(el.get("initial-instance", ""), at("@initial-instance"))
    timezone = resolver.timezone(el.get("timezone", ""), at("@timezone"))
    tmpl_el = xmlsafe.child(el, "uri-template")
    # at its own line: the dataset's may be a few lines up
    tmpl_at = (
        at("uri-template")
        if tmpl_el is None
        else where(doc, tmpl_el, f"dataset {name!r} uri-template")
    )
    template = resolver.text(xmlsafe.text(tmpl_el), tmpl_at)
    uri_template = tidy_uri(refuse_leftover_el(template, tmpl_at).strip())
    if not uri_template:  # every instance would be "" and count as present at once
        raise tmpl_at.error(
            "E1003",
            f"Invalid coordinator application attributes, dataset [{name}] has an empty"
            " uri-template",
            hint="give the directory of each instance, e.g."
            " <uri-template>${landing}/raw/${YEAR}/${MONTH}/${DAY}</uri-template>",
        )
    flag_el = xmlsafe.child(el, "done-flag")
    done_flag = (
        "_SUCCESS"
        if flag_el is None
        else refuse_leftover_el(
            resolver.text(xmlsafe.text(flag_el), at("done-flag")),
            where(doc, flag_el, f"dataset {name!r} done-flag"),
            dated=False,
        ).strip()
    )
    return Dataset(name, frequency, initial, timezone, uri_template, done_flag)


def _datasets(doc: XmlDocument, el: Element | None, resolver: Resolver) -> tuple[Dataset, ...]:
    if el is None:
        return ()
    included: dict[str, Dataset] = {}
    for inc in xmlsafe.children(el, "include"):
        ref = resolver.text(xmlsafe.text(inc), where(doc, inc, "datasets/include")).strip()
        inc_doc = _load_include(doc, inc, ref)
        for ds_el in xmlsafe.children(inc_doc.root, "dataset"):
            ds = _dataset(inc_doc, ds_el, resolver)
            if ds.name in included:
                raise where(inc_doc, ds_el, "dataset/@name").error(
                    "E1010",
                    f"Invalid data in coordinator xml. [Duplicate Dataset {ds.name}]",
                    hint="each included dataset name may be defined only once across all "
                    "<include> files",
                )
            included[ds.name] = ds
    embedded: dict[str, Dataset] = {}
    lines: dict[str, int | None] = {}
    for ds_el in xmlsafe.children(el, "dataset"):
        ds = _dataset(doc, ds_el, resolver)
        if ds.name in embedded:
            raise where(doc, ds_el, "dataset/@name").error(
                "E1010",
                f"Invalid data in coordinator xml. [Duplicate Dataset {ds.name}]",
                hint=f"dataset '{ds.name}' is already defined at line {lines[ds.name]}; "
                "rename or remove one",
            )
        embedded[ds.name] = ds
        lines[ds.name] = ds_el.sourceline
    # A dataset defined in the coordinator itself overrides an included one of that name.
    merged = [ds for n, ds in included.items() if n not in embedded]
    return (*merged, *embedded.values())


def _load_include(doc: XmlDocument, inc: Element, ref: str) -> XmlDocument:
    here = where(doc, inc, "datasets/include")
    try:
        path = resolve_app_path(ref, AppKind.COORDINATOR, Path(doc.file).parent, source=doc.file)
    except SpecError as exc:
        raise here.error(
            "E1010",
            f"Invalid data in coordinator xml. [cannot read included datasets file {ref}: "
            f"{exc.message}]",
            hint="<include> names a datasets XML file (relative to the coordinator file)",
        ) from None
    inc_doc = xmlsafe.load_document(path, kinds=[AppKind.COORDINATOR])
    if xmlsafe.local_name(inc_doc.root) != "datasets":
        raise here.error(
            "E1010",
            f"Invalid data in coordinator xml. [included file {path} is a "
            f"<{xmlsafe.local_name(inc_doc.root)}>, not <datasets>]",
            hint="an included file's root element is <datasets> in a coordinator namespace",
        )
    return inc_doc


# --------------------------------------------------------------------------- events


def _instance(doc: XmlDocument, el: Element, resolver: Resolver, events: str) -> str:
    raw = xmlsafe.text(el)
    here = where(doc, el, f"{events} {xmlsafe.local_name(el)}")
    if not raw:
        raise here.error(
            "E1021",
            f"Coord Action Input Check Error: <{xmlsafe.local_name(el)}> tag within {events} "
            "is empty!",
            hint="write one instance function, e.g. ${coord:current(0)}",
        )
    return resolver.text(raw, here).strip()


def _check_dataset(doc: XmlDocument, el: Element, datasets: dict[str, Dataset]) -> str:
    ds = el.get("dataset", "")
    if ds not in datasets:
        known = ", ".join(datasets) or "none"
        raise where(doc, el, "@dataset").error(
            "E1010",
            f"Invalid data in coordinator xml. [undefined dataset: {ds}]",
            hint=f'define <dataset name="{ds}"> in <datasets> (defined: {known})',
        )
    return ds


def _check_unique(doc: XmlDocument, el: Element, seen: dict[str, int | None], what: str) -> str:
    name = el.get("name", "")
    if name in seen:
        raise where(doc, el, f"{what}/@name").error(
            "E1010",
            f"Invalid data in coordinator xml. [Duplicate {what} name {name}]",
            hint=f"{what} '{name}' is already defined at line {seen[name]}",
        )
    seen[name] = el.sourceline
    return name


def _data_ins(
    doc: XmlDocument, el: Element | None, resolver: Resolver, datasets: dict[str, Dataset]
) -> tuple[DataIn, ...]:
    if el is None:
        return ()
    logic = [c for c in xmlsafe.children(el) if xmlsafe.local_name(c) in ("and", "or")]
    if logic:
        raise where(doc, logic[0], "input-events").error(
            "E1010",
            "Invalid data in coordinator xml. [<and>/<or> directly under <input-events> is "
            "not supported]",
            hint="define each input as <data-in> under <input-events> and put the and/or "
            "logic in <input-logic>",
        )
    seen: dict[str, int | None] = {}
    out: list[DataIn] = []
    for d in xmlsafe.children(el, "data-in"):
        name = _check_unique(doc, d, seen, "dataIn")
        ds = _check_dataset(doc, d, datasets)
        instances = tuple(
            _instance(doc, i, resolver, "input-events") for i in xmlsafe.children(d, "instance")
        )
        start_el = xmlsafe.child(d, "start-instance")
        end_el = xmlsafe.child(d, "end-instance")
        start = _instance(doc, start_el, resolver, "input-events") if start_el is not None else None
        end = _instance(doc, end_el, resolver, "input-events") if end_el is not None else None
        out.append(DataIn(name, ds, instances, start, end))
    return tuple(out)


def _data_outs(
    doc: XmlDocument, el: Element | None, resolver: Resolver, datasets: dict[str, Dataset]
) -> tuple[DataOut, ...]:
    if el is None:
        return ()
    seen: dict[str, int | None] = {}
    out: list[DataOut] = []
    for d in xmlsafe.children(el, "data-out"):
        name = _check_unique(doc, d, seen, "dataOut")
        ds = _check_dataset(doc, d, datasets)
        inst_el = xmlsafe.child(d, "instance")
        instance = _instance(doc, inst_el, resolver, "output-events")
        nocleanup = d.get("nocleanup", "false").strip() in ("true", "1")
        out.append(DataOut(name, ds, instance, nocleanup))
    return tuple(out)


_OPS = {
    "and": LogicOp.AND,
    "or": LogicOp.OR,
    "combine": LogicOp.COMBINE,
    "data-in": LogicOp.DATA_IN,
}


def _input_logic(
    doc: XmlDocument, el: Element, resolver: Resolver, data_in_names: Mapping[str, DataIn]
) -> InputLogic:
    seen: dict[str, int | None] = {}
    for named in el.iter():
        if isinstance(named.tag, str) and named.get("name"):
            _check_unique(doc, named, seen, "input-logic operator")
    nodes = [_logic_node(doc, c, resolver, data_in_names) for c in xmlsafe.children(el)]
    if len(nodes) == 1:
        return nodes[0]
    return InputLogic(LogicOp.AND, tuple(nodes))  # several top-level conditions: all of them


def _logic_node(
    doc: XmlDocument, el: Element, resolver: Resolver, data_in_names: Mapping[str, DataIn]
) -> InputLogic:
    op = _OPS[xmlsafe.local_name(el)]
    here = where(doc, el, f"input-logic {op.value}")
    min_raw, wait_raw = el.get("min"), el.get("wait")
    min_ = resolver.integer(min_raw, here) if min_raw not in (None, "") else None
    wait = (
        resolver.timeout_minutes(wait_raw, here, f"input-logic {op.value} wait=")
        if wait_raw not in (None, "")
        else None
    )
    for attr, value in (("min", min_), ("wait", wait)):
        if value is not None and value < 0:
            raise here.error(
                "E1010",
                f"Invalid data in coordinator xml. [input-logic {op.value} {attr}=[{value}]"
                " is negative]",
                hint=f"{attr} counts {'instances' if attr == 'min' else 'minutes'}: 0 or more",
            )
    name = el.get("name") or None
    if op is LogicOp.DATA_IN:
        ref = el.get("dataset", "")
        if ref not in data_in_names:
            known = ", ".join(sorted(data_in_names)) or "none"
            raise here.error(
                "E1010",
                f"Invalid data in coordinator xml. [input-logic refers to data-in [{ref}], "
                "which is not defined in input-events]",
                hint=f"input-logic <data-in dataset=…> names an input-events data-in "
                f"(defined: {known})",
            )
        return InputLogic(op, (), name, ref, min_, wait)
    kids = tuple(_logic_node(doc, c, resolver, data_in_names) for c in xmlsafe.children(el))
    if op is LogicOp.COMBINE:
        _check_combine(here, kids, data_in_names)
    return InputLogic(op, kids, name, None, min_, wait)


_NOT_CURRENT = re.compile(r"coord:\s*(latest|future)")


def _check_combine(
    here: Where, kids: tuple[InputLogic, ...], data_ins: Mapping[str, DataIn]
) -> None:
    """``combine`` fills instance i of one data-in from the next: data-ins of ``current``
    instances only (oozie.md §2.7; the XSD keeps other operators out); a ``latest`` range
    only waited."""
    for kid in kids:
        d = data_ins[kid.dataset or ""]
        texts = (*d.instances, d.start_instance or "", d.end_instance or "")
        if any(_NOT_CURRENT.search(t) for t in texts):
            raise here.error(
                "E1010",
                f"Invalid data in coordinator xml. [input-logic combine over data-in"
                f" [{d.name}], whose instances use latest() or future()]",
                hint="combine fills current() instances: use coord:current(n) ranges",
            )
