"""bundle.xml (``uri:oozie:bundle:0.1`` / ``0.2``) -> :class:`BundleApp`.

Oozie resolves a whole bundle at submit time, so names, app paths and configuration values
all go through ``resolver.text``. Coordinator names must be non-empty (E1305) and unique
(E1304) after resolution, ``critical`` and ``enabled`` true or false (E1303). App paths are
kept as written (after EL); a relative one is relative to the bundle file
(``BundleApp.source``).
"""

from __future__ import annotations

from bundletui.errors import TEMPLATES
from bundletui.model.apps import BundleApp, BundleCoordinator
from bundletui.model.timeutil import TimeError, parse_oozie_time
from bundletui.spec import xmlsafe
from bundletui.spec.decode_common import (
    expect_kind,
    read_conf,
    split_parameters,
    where,
)
from bundletui.spec.resolver import Resolver, Where
from bundletui.spec.xmlsafe import AppKind, XmlDocument


def decode_bundle(doc: XmlDocument, resolver: Resolver) -> BundleApp:
    expect_kind(doc, AppKind.BUNDLE, ("bundle-app",))
    root = doc.root
    name = resolver.text(root.get("name", ""), where(doc, root, "bundle-app/@name")).strip()
    defaults, required = split_parameters(doc)

    kickoff = None
    controls = xmlsafe.child(root, "controls")
    kick_el = xmlsafe.child(controls, "kick-off-time") if controls is not None else None
    if kick_el is not None:
        # Oozie resolves EL before parsing: a property that is empty means "start now", as an
        # element written empty does (oozie.md §1.1)
        at = where(doc, kick_el, "kick-off-time")
        text = resolver.settled_text(xmlsafe.text(kick_el), at).strip()
        try:
            kickoff = parse_oozie_time(text, what="kick-off-time") if text else None
        except TimeError as exc:  # a bundle's attribute: E1303, not the coordinator's E1003
            message = TEMPLATES["E1303"].format("kick-off-time", f"[{text}]: {exc.detail}")
            raise at.error("E1303", message, exc.hint) from None

    coordinators: list[BundleCoordinator] = []
    first_line: dict[str, int | None] = {}
    for el in xmlsafe.children(root, "coordinator"):
        cname = resolver.text(el.get("name", ""), where(doc, el, "coordinator/@name")).strip()
        here = where(doc, el, "coordinator/@name")
        if not cname:
            raise here.error(
                "E1305",
                TEMPLATES["E1305"],
                hint="give every <coordinator> a name (after variable substitution)",
            )
        if cname in first_line:
            raise here.error(
                "E1304",
                TEMPLATES["E1304"].format(cname),
                hint=f"coordinator names must be unique within a bundle; '{cname}' is first "
                f"used at line {first_line[cname]}",
            )
        first_line[cname] = el.sourceline
        critical_raw = el.get("critical")
        at = where(doc, el, "coordinator/@critical")
        critical = critical_raw is not None and _critical(
            resolver.settled_text(critical_raw, at), at, cname
        )
        enabled_raw = el.get("enabled")
        at = where(doc, el, "coordinator/@enabled")
        enabled = enabled_raw is None or _enabled(resolver.settled_text(enabled_raw, at), at, cname)
        path_el = xmlsafe.child(el, "app-path")
        app_path = resolver.text(
            xmlsafe.text(path_el), where(doc, path_el, "coordinator/app-path")
        ).strip()
        conf = read_conf(doc, xmlsafe.child(el, "configuration"), resolver, resolve_values=True)
        coordinators.append(BundleCoordinator(cname, app_path, conf, critical, enabled))

    return BundleApp(
        name=name,
        coordinators=tuple(coordinators),
        kickoff_time=kickoff,
        namespace=doc.namespace,
        source=doc.file,
        parameters=defaults,
        required_parameters=required,
    )


def _enabled(value: str, here: Where, coordinator: str) -> bool:
    """``enabled`` (bundle 0.2, EL allowed): true or false (any case, spaces around), nothing
    else. Oozie's ``Boolean.parseBoolean`` would read a typo (``flase``, ``yes``, an empty
    value) as false: the coordinator would silently never run."""
    text = value.strip()
    if text.lower() not in ("true", "false"):
        raise here.error(
            "E1303",
            TEMPLATES["E1303"].format(
                "enabled",
                f"enabled [{text}] of coordinator [{coordinator}] is neither true nor false",
            ),
            hint="enabled must be true or false (leave it out for a coordinator that runs); "
            "when it comes from a variable, give that variable true or false",
        )
    return text.lower() == "true"


def _critical(value: str, here: Where, coordinator: str) -> bool:
    """``critical``: true or false (any case, spaces around), nothing else. Oozie's
    ``Boolean.parseBoolean`` would read a typo (``ture``, ``yes``) as false: the coordinator
    would silently stop being critical."""
    text = value.strip()
    if text.lower() not in ("true", "false"):
        raise here.error(
            "E1303",
            TEMPLATES["E1303"].format(
                "critical",
                f"critical [{text}] of coordinator [{coordinator}] is neither true nor false",
            ),
            hint="critical must be true or false (leave it out for a non-critical coordinator)",
        )
    return text.lower() == "true"
