"""Small pieces the three decoders share: places, configurations, flags, integers."""

from __future__ import annotations

import re

from bundletui.errors import SpecError
from bundletui.model.apps import Conf
from bundletui.model.java import JAVA_INT, JAVA_INT_MAX, JAVA_INT_MIN
from bundletui.spec import xmlsafe
from bundletui.spec.config import FormalParameter, read_parameters
from bundletui.spec.resolver import Resolver, Where
from bundletui.spec.xmlsafe import AppKind, Element, XmlDocument

# Our own code: a workflow / DAG attribute whose value is not usable (retry-max, max-parallel…).
BAD_VALUE = "EB0720"

# Java's int: Oozie reads every number of an application with Integer.parseInt.
_COORD_PREFIX = "Invalid coordinator application attributes, "


_EL = re.compile(r"\$\{([^}]*)\}")
_CALL = re.compile(r"[A-Za-z_][\w-]*:[A-Za-z_][\w-]*(?=\s*\()")
_DATE = re.compile(r"\s*(YEAR|MONTH|DAY|HOUR|MINUTE)\s*\Z")


def refuse_leftover_el(resolved: str, at: Where, *, dated: bool = True) -> str:
    """``resolved`` (a value resolved once, at submit: a dataset's uri-template or done-flag,
    a feed's path or done-flag), refused if EL that nothing will resolve is left in it: a
    function call. Oozie resolves
    these with its no-functions context (job properties and ``${YEAR}`` … ``${MINUTE}``), so
    ``${coord:formatTime(…)}`` there fails at submit; kept, it would be a literal part of a
    path that no file can have. ``dated`` False (a done-flag, a feed): ``${YEAR}`` … are not
    replaced there either, so they are refused too."""
    for m in _EL.finditer(resolved):
        call = _CALL.search(m.group(1))
        if call:
            raise at.error(
                "E1004",
                f"Expression language evaluation error, No function is mapped to the name "
                f"[{call.group(0)}] in {at.field}: {m.group(0)}",
                hint="a path is resolved once, at submit: use job properties"
                + (" and ${YEAR}, ${MONTH}, ${DAY}, ${HOUR}, ${MINUTE}" if dated else "")
                + "; per-action values belong in the action's <configuration>",
            )
        if not dated and _DATE.match(m.group(1)):
            raise at.error(
                "E1004",
                f"Expression language evaluation error, {m.group(0)} is not replaced in {at.field}",
                hint="only a dataset's uri-template takes ${YEAR} … ${MINUTE}; a done-flag is "
                "a file name inside each instance, a feed's path the directory its partitions "
                "land under",
            )
    return resolved


def where(doc: XmlDocument, el: Element, field: str) -> Where:
    return Where(doc.file, el.sourceline, field)


def expect_kind(doc: XmlDocument, kind: AppKind, roots: tuple[str, ...]) -> None:
    name = xmlsafe.local_name(doc.root)
    if doc.kind is not kind or name not in roots:
        raise SpecError(
            "E0701",
            f"XML schema error, {doc.file}, expected a {kind} application "
            f"(<{'> or <'.join(roots)}>), found <{name}> in {doc.namespace}",
            hint=f"pass a {kind} file here, or use the command for a {doc.kind}",
            file=doc.file,
            line=doc.root.sourceline,
        )


def read_conf(
    doc: XmlDocument,
    el: Element | None,
    resolver: Resolver | None,
    *,
    resolve_values: bool,
    check_values: bool = False,
) -> Conf:
    """``<configuration>``: names (and, with ``resolve_values``, values) through
    ``resolver.text``; ``check_values`` evaluates values only to catch unresolved variables,
    keeping the text as written (what Oozie does for a coordinator action's workflow
    configuration). Without a resolver everything stays raw."""
    if el is None:
        return ()
    out: list[tuple[str, str]] = []
    for prop in xmlsafe.children(el, "property"):
        name_el = xmlsafe.child(prop, "name")
        value_el = xmlsafe.child(prop, "value")
        name = xmlsafe.text(name_el)
        value = xmlsafe.property_value(prop)
        if value is None:
            continue  # sets nothing, as in Hadoop's Configuration (see property_value)
        if resolver is not None:
            name = resolver.text(name, where(doc, name_el, "configuration/property/name")).strip()
            if resolve_values or check_values:
                resolved = resolver.text(
                    value, where(doc, value_el, f"configuration property {name!r}")
                )
                if resolve_values:
                    value = resolved
        out.append((name, value))
    return tuple(out)


def split_parameters(doc: XmlDocument) -> tuple[Conf, tuple[str, ...]]:
    """``<parameters>`` as (defaults, names without a default)."""
    params: tuple[FormalParameter, ...] = read_parameters(doc)
    defaults = tuple((p.name, p.default) for p in params if p.default is not None)
    required = tuple(p.name for p in params if p.default is None)
    return defaults, required


def java_int(
    value: object,
    here: Where,
    what: str,
    *,
    code: str = "E1003",
    written: str | None = None,
    range_hint: str | None = None,
) -> int:
    """Every integer of an application, as Oozie's ``Integer.parseInt``: a whole number (or
    an EL result that is one) from -2147483648 to 2147483647, else a :class:`SpecError` at
    ``here``. Bigger numbers would only fail later, in the engine's date arithmetic.

    ``code`` is E1003 for coordinators (the message starts as Oozie's) and ``BAD_VALUE`` for
    workflows; ``written`` is the text as written when ``value`` is what it evaluated to
    (``${coord:hours(2)}`` -> 120), shown next to the value; ``range_hint`` replaces the
    hint for a number out of range."""
    prefix = _COORD_PREFIX if code == "E1003" else ""
    what = what.lstrip("@")
    shown = f"[{value}]" if written is None or written == str(value) else f"[{written}] (= {value})"
    if isinstance(value, bool):
        raise here.error(code, f"{prefix}{what} {shown} is not a number")
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip()
        if not JAVA_INT.fullmatch(text):
            # a frequency or a timeout may be an EL frequency; a count or a priority may not
            timed = prefix and what in ("frequency", "timeout")
            example = ", or an EL frequency such as ${coord:hours(2)}" if timed else ""
            raise here.error(
                code,
                f"{prefix}{what} {shown} is not an integer",
                hint=f"give a whole number{example}",
            )
        number = int(text)
    if not JAVA_INT_MIN <= number <= JAVA_INT_MAX:
        raise here.error(
            code,
            f"{prefix}{what} {shown} is out of range",
            hint=range_hint
            or f"{what} must be a whole number from {JAVA_INT_MIN} to {JAVA_INT_MAX} (a Java "
            "int, as Oozie reads it)",
        )
    return number
