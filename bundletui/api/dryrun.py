"""``?action=dryrun`` (and ``bundletui oozie job -dryrun``): what a submission would do,
without storing anything.

Oozie answers ``{"id": "<text>"}``: ``OK`` for a workflow, and for a coordinator its XML (after
the first pass of its properties) followed by the actions of its first hour. The actions come
from :func:`bundletui.spec.dryrun.dryrun_coordinator` (the same three phases the engine runs);
beside ``id`` the reply carries them as data (``coordinators``), for clients that want more
than text. The command line's ``-dryrun`` prints the same text.

Two kinds of job Oozie's text does not cover:

* an **event-triggered** coordinator has no nominal times, so no action materializes in any
  window: its text says so (``***total coord actions is 0 ***``) and then what would fire it
  and which run constraints hold a fired job;
* a **bundle**: Oozie answers its job XML only. Here that XML (after the properties) comes
  under ``***bundleJob after parsing: ***``, then each coordinator the bundle would submit —
  its name, its resolved app path and either its first hour of actions or its trigger — so a
  bundle's dry run shows what each of its coordinators would do, as ``bundletui dryrun`` does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from bundletui.model.clock import Clock
from bundletui.spec.dryrun import dryrun_loaded
from bundletui.spec.load import Loaded, check_bundle_coordinators
from bundletui.spec.xmlsafe import AppKind

RULER = "-" * 132
FIRST_WINDOW = timedelta(hours=1)  # Oozie's dryrun materializes the first hour only


def dryrun_reply(loaded: Loaded, clock: Clock) -> dict[str, Any]:
    if loaded.kind is AppKind.WORKFLOW:
        return {"id": "OK"}
    out = dryrun_loaded(loaded, clock, end_after_start=FIRST_WINDOW)["coordinators"]
    if loaded.kind is AppKind.BUNDLE:
        text = _bundle_text(loaded, check_bundle_coordinators(loaded, clock), out)
    else:
        text = "\n".join(_coordinator_lines(loaded, out[0]))
    return {"id": text, "coordinators": out}


def with_properties(definition: str, conf: Mapping[str, str]) -> str:
    """The definition with the job's properties put in (``${start}`` -> its value, XML-escaped),
    as Oozie's dryrun shows the job after its first EL pass; functions (``${coord:…}``) and
    unknown names stay as written."""

    def put(m: re.Match[str]) -> str:
        value = conf.get(m.group(1))
        return m.group(0) if value is None else escape(value, {'"': "&quot;"})

    return re.sub(r"\$\{([A-Za-z_][\w.-]*)\}", put, definition)


def _coordinator_lines(loaded: Loaded, result: dict[str, Any]) -> list[str]:
    lines = ["***coordJob after parsing: ***"]
    lines.append(with_properties(loaded.definition, loaded.conf).rstrip("\n"))
    return lines + _actions_lines(loaded, result)


def _actions_lines(loaded: Loaded, result: dict[str, Any]) -> list[str]:
    actions = result["actions"]
    lines = [f"***total coord actions is {len(actions)} ***"]
    events = result.get("events")
    if events:  # event-triggered: its actions come from events, not from nominal times
        lines.append(f"***event-triggered: an action each time it fires on {events['trigger']} ***")
        if events.get("constraints"):
            lines.append(f"***run constraints: {', '.join(events['constraints'])} ***")
        return lines
    workflow = _workflow_path(loaded) if actions else ""
    ins = {d.name: d.dataset for d in loaded.app.data_ins}
    outs = {d.name: d.dataset for d in loaded.app.data_outs}
    for i, a in enumerate(actions, start=1):
        lines += [RULER, f"coordAction instance: {i}:"]
        lines.append(
            f'<action number="{a["number"]}" nominal-time="{a["nominal_time"]}" '
            f'id="dryrun@{a["number"]}">'
        )
        for name, uris in a["data_in"].items():
            lines.append(
                f"  <data-in name={quoteattr(name)}{_dataset(ins, name)}>"
                f"<uris>{'#'.join(uris)}</uris></data-in>"
            )
        for name, uris in a["data_out"].items():
            lines.append(
                f"  <data-out name={quoteattr(name)}{_dataset(outs, name)}>"
                f"<uris>{'#'.join(uris)}</uris></data-out>"
            )
        lines.append(f"  <workflow><app-path>{workflow}</app-path></workflow>")
        lines.append("</action>")
    return lines


def _dataset(datasets: Mapping[str, str], name: str) -> str:
    dataset = datasets.get(name)
    return f" dataset={quoteattr(dataset)}" if dataset else ""


def _workflow_path(loaded: Loaded) -> str:
    """The workflow an action launches, resolved as the engine resolves it (next to the
    coordinator's file); as written when it cannot be (an EL template, a missing file: the
    launch says why)."""
    from bundletui.errors import BundletuiError
    from bundletui.spec.config import resolve_app_path

    written = str(loaded.app.workflow_app_path)
    if "${" in written or not loaded.app_path:
        return written
    try:
        return str(resolve_app_path(written, AppKind.WORKFLOW, Path(loaded.app_path).parent))
    except BundletuiError:
        return written


def _bundle_text(loaded: Loaded, coordinators: list[Loaded], results: list[dict[str, Any]]) -> str:
    lines = ["***bundleJob after parsing: ***"]
    lines.append(with_properties(loaded.definition, loaded.conf).rstrip("\n"))
    lines.append(f"***total bundle coordinators is {len(coordinators)} ***")
    for i, (child, result) in enumerate(zip(coordinators, results, strict=True), start=1):
        lines += [RULER, f"bundleCoordinator instance: {i}: {result['name']}"]
        lines.append(f"***app path: {child.app_path} ***")
        lines += _actions_lines(child, result)
    return "\n".join(lines)
