"""``?action=dryrun``: what a submission would do, without storing anything.

Oozie answers ``{"id": "<text>"}``: ``OK`` for a workflow, the bundle XML for a bundle, and for
a coordinator its XML followed by the actions of its first hour. The actions come from
:func:`bundletui.spec.dryrun.dryrun_coordinator` (the same three phases the engine runs); beside
``id`` the reply carries them as data (``coordinators``), for clients that want more than text.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from xml.sax.saxutils import quoteattr

from bundletui.model.clock import Clock
from bundletui.spec.dryrun import dryrun_loaded
from bundletui.spec.load import Loaded
from bundletui.spec.xmlsafe import AppKind

RULER = "-" * 132
FIRST_WINDOW = timedelta(hours=1)  # Oozie's dryrun materializes the first hour only


def dryrun_reply(loaded: Loaded, clock: Clock) -> dict[str, Any]:
    if loaded.kind is AppKind.WORKFLOW:
        return {"id": "OK"}
    out = dryrun_loaded(loaded, clock, end_after_start=FIRST_WINDOW)["coordinators"]
    if loaded.kind is AppKind.BUNDLE:
        text = loaded.definition.rstrip("\n")
    else:
        text = _coordinator_text(loaded, out[0]["actions"])
    return {"id": text, "coordinators": out}


def _coordinator_text(loaded: Loaded, actions: list[dict[str, Any]]) -> str:
    lines = ["***coordJob after parsing: ***", loaded.definition.rstrip("\n")]
    lines.append(f"***total coord actions is {len(actions)} ***")
    for i, a in enumerate(actions, start=1):
        lines += [RULER, f"coordAction instance: {i}:"]
        lines.append(
            f'<action number="{a["number"]}" nominal-time="{a["nominal_time"]}" '
            f'id="dryrun@{a["number"]}">'
        )
        for name, uris in a["data_in"].items():
            lines.append(
                f"  <data-in name={quoteattr(name)}><uris>{'#'.join(uris)}</uris></data-in>"
            )
        for name, uris in a["data_out"].items():
            lines.append(
                f"  <data-out name={quoteattr(name)}><uris>{'#'.join(uris)}</uris></data-out>"
            )
        lines.append(f"  <workflow><app-path>{loaded.app.workflow_app_path}</app-path></workflow>")
        lines.append("</action>")
    return "\n".join(lines)
