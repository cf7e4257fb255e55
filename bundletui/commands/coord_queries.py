"""The read side for bundles and coordinators, as the faces call it: Oozie's info JSON
(oozie.md §7.2), a job's definition, the workflow an action launched, and the listings of
``jobs -jobtype coordinator|bundle`` (§6.2, §7.3). The JSON itself is built in
:mod:`~bundletui.commands.bundle_json`, :mod:`~bundletui.commands.coord_json`,
:mod:`~bundletui.commands.action_page`, :mod:`~bundletui.commands.waiting` and
:mod:`~bundletui.commands.event_json`.
"""

from __future__ import annotations

import functools
import sqlite3
from typing import Any

from bundletui.commands.action_page import action_json, action_order, action_page
from bundletui.commands.base import fail
from bundletui.commands.bundle_json import bundle_json
from bundletui.commands.coord_json import coordinator_json
from bundletui.commands.event_json import event_spec, fired_detail
from bundletui.commands.queries import EXTRA_KEYS, WF_FILTER_KEYS, JobFilter, listing_page
from bundletui.commands.waiting import Holds, waiting_for
from bundletui.errors import CommandError
from bundletui.model.ids import IdKind, kind_of
from bundletui.model.status import ACTION_TERMINAL, ActionStatus, JobStatus
from bundletui.store import filters, jobs
from bundletui.store.rows import ActionRow, BundleRow, CoordRow, NodeRow, WorkflowRow

J = JobStatus

_COORD_HINT = "list coordinators with: bundletui jobs --type coordinator"
_BUNDLE_HINT = "list bundles with: bundletui jobs --type bundle"
_ACTION_HINT = "see a coordinator's actions with: bundletui info <coordinator id>"
_LOG_HINT = (
    "logs belong to workflows: give a workflow (…-W), a node (…-W@name) "
    "or a coordinator action (…-C@n)"
)


def job_info(
    conn: sqlite3.Connection,
    job_id: str,
    kind: IdKind | None,
    *,
    offset: int = 1,
    length: int | None = None,
    order: str = "asc",
    filter_text: str = "",
    tz: str = "GMT",
) -> dict[str, Any]:
    """Oozie's info JSON for a bundle, a coordinator (with a page of actions) or an action."""
    if kind is IdKind.BUNDLE:
        return bundle_info(conn, job_id, tz=tz)
    if kind is IdKind.COORDINATOR:
        return coordinator_info(
            conn,
            job_id,
            offset=offset,
            length=length,
            order=order,
            filter_text=filter_text,
            tz=tz,
        )
    if kind is IdKind.COORD_ACTION:
        return action_info(conn, job_id, tz=tz)
    raise fail(
        "E0604",
        job_id,
        hint="ids end in -B (bundle), -C (coordinator), -C@n (coordinator action) or -W (workflow)",
    )


def bundle_info(conn: sqlite3.Connection, bundle_id: str, *, tz: str = "GMT") -> dict[str, Any]:
    bundle = jobs.get(conn, BundleRow, bundle_id)
    if bundle is None:
        raise fail("E0604", bundle_id, hint=_BUNDLE_HINT)
    return bundle_json(conn, bundle, with_coordinators=True, tz=tz)


def coordinator_info(
    conn: sqlite3.Connection,
    coord_id: str,
    *,
    offset: int = 1,
    length: int | None = None,
    order: str = "asc",
    filter_text: str = "",
    tz: str = "GMT",
) -> dict[str, Any]:
    """The coordinator with one page of its actions (``length`` None = all of them)."""
    coord = jobs.get(conn, CoordRow, coord_id)
    if coord is None:
        raise fail("E0604", coord_id, hint=_COORD_HINT)
    page = action_page(
        conn, coord, offset=offset, length=length, order=order, filter_text=filter_text, tz=tz
    )
    return coordinator_json(conn, coord, page=page, tz=tz)


def action_info(conn: sqlite3.Connection, action_id: str, *, tz: str = "GMT") -> dict[str, Any]:
    action = jobs.get(conn, ActionRow, action_id)
    if action is None:
        raise fail("E0605", action_id, hint=_ACTION_HINT)
    coord = jobs.must_get(conn, CoordRow, action.coord_id)
    holds = Holds.of(conn, coord)
    out = action_json(conn, action, coord, holds, tz=tz)
    out["dependencies"] = [
        {"path": path, "dataIn": data_in, "available": bool(ok)}
        for path, data_in, _seq, ok in jobs.input_deps_of(conn, action.id)
    ]
    out["coordJobName"] = coord.app_name
    spec = event_spec(conn, coord)
    if spec is not None and out.get("firedBy") is not None:
        out["firedBy"] |= fired_detail(conn, action, spec, tz)
    return out


def definition_of(conn: sqlite3.Connection, job_id: str) -> str:
    """The application XML a job was submitted with (an action: its coordinator's; a node: its
    workflow's)."""
    kind = kind_of(job_id)
    if kind is IdKind.COORD_ACTION:
        action = jobs.get(conn, ActionRow, job_id)
        if action is None:
            raise fail("E0605", job_id, hint=_ACTION_HINT)
        job_id, kind = action.coord_id, IdKind.COORDINATOR
    elif kind is IdKind.WORKFLOW_NODE:
        node = jobs.get(conn, NodeRow, job_id)
        if node is None:
            raise fail(
                "E0605", job_id, hint="see a workflow's nodes with: bundletui info <workflow id>"
            )
        job_id, kind = node.wf_id, IdKind.WORKFLOW
    cls: type | None = {
        IdKind.BUNDLE: BundleRow,
        IdKind.COORDINATOR: CoordRow,
        IdKind.WORKFLOW: WorkflowRow,
    }.get(kind)  # type: ignore[arg-type]
    row: Any = jobs.get(conn, cls, job_id) if cls is not None else None
    if row is None:
        raise fail("E0604", job_id, hint="list jobs with: bundletui jobs --type …")
    return str(row.definition)


def workflow_of(conn: sqlite3.Connection, job_id: str) -> str:
    """The workflow a coordinator action launched (E0605 when there is none yet)."""
    kind = kind_of(job_id)
    if kind is None:  # no job's id at all
        raise fail(
            "E0604",
            job_id,
            hint=_LOG_HINT,
        )
    if kind is not IdKind.COORD_ACTION:
        raise fail(
            "E0302",
            f"{job_id} is not a coordinator action",
            hint=_LOG_HINT,
        )
    action = jobs.get(conn, ActionRow, job_id)
    if action is None:
        raise fail("E0605", job_id, hint=_ACTION_HINT)
    if not action.external_id:
        raise CommandError(
            "E0605",
            f"Action does not exist [{job_id}: it is {action.status} and has launched no workflow]",
            hint=_no_workflow_hint(conn, action),
        )
    return action.external_id


def no_workflow_yet(conn: sqlite3.Connection, job_id: str) -> str | None:
    """For an action that exists and has launched no workflow (waiting, or rerun and waiting
    again): why it has no log; None otherwise (``workflow_of`` then gives its workflow or its
    error)."""
    action = jobs.get(conn, ActionRow, job_id) if kind_of(job_id) is IdKind.COORD_ACTION else None
    if action is None or action.external_id:
        return None
    if ActionStatus(action.status) in ACTION_TERMINAL:
        return f"{job_id} ended {action.status} without launching a workflow: it has no log"
    return (
        f"{job_id} is {action.status} and has launched no workflow: no log yet"
        f" ({_no_workflow_hint(conn, action)})"
    )


def _no_workflow_hint(conn: sqlite3.Connection, action: ActionRow) -> str:
    """Why an action has no workflow, and what comes next: it never will once it has ended
    (a discarded event job is TIMEDOUT); a held one waits for what ``info`` names."""
    if ActionStatus(action.status) in ACTION_TERMINAL:
        return f"it ended {action.status} without launching one: there is no log to show"
    coord = jobs.coord_head(conn, action.coord_id)
    why = waiting_for(conn, action, Holds.of(conn, coord)) if coord is not None else None
    if why:
        return f"{why['detail']}; see: bundletui info {action.id}"
    return "an action launches its workflow once it is READY and a concurrency slot is free"


def action_position(
    conn: sqlite3.Connection,
    coord_id: str,
    action_id: str,
    *,
    order: str = "asc",
    by: str = "nominal",
) -> int | None:
    """Where ``action_id`` stands (1 = first) among its coordinator's actions in the order
    :func:`action_page` reads them (no filter), so the page that holds it can be asked for
    (the console's sort and ``:job C@N``); None when it is not one of them."""
    action = jobs.get(conn, ActionRow, action_id)
    if action is None or action.coord_id != coord_id:
        return None
    # the actions before it, counted on the indexes (numbering them all took a second at 1M)
    before = filters.actions_before(
        conn,
        coord_id,
        status=action.status,
        nominal_time=action.nominal_time,
        by=action_order(by),
        descending=(order or "asc").strip().lower() == "desc",
    )
    return before + 1


# ----------------------------------------------------------------------------- listings


#: the keys of a coordinator and of a bundle listing's filter, beside :data:`EXTRA_KEYS`
COORD_FILTER_KEYS = (*WF_FILTER_KEYS, "frequency", "unit")
BUNDLE_FILTER_KEYS = WF_FILTER_KEYS
_UNITS = {"months": "MONTH", "days": "DAY", "hours": "MINUTE", "minutes": "MINUTE"}


def list_jobs(
    conn: sqlite3.Connection,
    kind: str,
    filter_text: str = "",
    offset: int = 1,
    length: int = 50,
    *,
    tz: str = "GMT",
    now_ms: int | None = None,
) -> dict[str, Any]:
    """``jobs -jobtype coordinator|bundle``: Oozie's envelope, newest first (§7.3)."""
    if kind not in ("coordinator", "bundle"):
        raise fail("E0303", "jobtype", kind, hint="use wf, coordinator or bundle")
    keys = COORD_FILTER_KEYS if kind == "coordinator" else BUNDLE_FILTER_KEYS
    flt = JobFilter.parse(filter_text, [*keys, *EXTRA_KEYS])
    clauses = _checked_clauses(flt, filter_text, kind)
    start = max(int(offset or 1), 1)
    size = int(length) if length and length > 0 else 50
    page = functools.partial(
        listing_page,
        conn,
        clauses=clauses,
        keys=keys,
        text=filter_text,
        limit=size,
        offset=start - 1,
        now_ms=now_ms,
    )
    if kind == "coordinator":
        total, coords = page(CoordRow)
        items = [coordinator_json(conn, c, tz=tz) for c in coords]
        return {"coordinatorjobs": items, "total": total, "offset": start, "len": size}
    total, bundles = page(BundleRow)
    items = [bundle_json(conn, b, with_coordinators=False, tz=tz) for b in bundles]
    return {"bundlejobs": items, "total": total, "offset": start, "len": size}


def _checked_clauses(flt: JobFilter, text: str, kind: str) -> dict[str, list[str]]:
    """Oozie's value checks: statuses, frequency (+ unit, hours as minutes), sortby."""
    clauses = {k: list(v) for k, v in flt.clauses.items()}

    def bad(why: str) -> CommandError:
        return CommandError(
            "E0420",
            f"Invalid jobs filter [{text}], {why}",
            hint="e.g. --filter 'status=RUNNING;name=daily' (same key = OR, different keys = AND)",
        )

    for value in clauses.get("status", []):
        # PREMATER is in Oozie's Job.Status (clients filter on it); no job here is ever in it
        known = value.upper() in J.__members__ or value.upper() == "PREMATER"
        if not known or (kind == "bundle" and value.upper() == "IGNORED"):
            raise bad(f"invalid status [{value}]")
    if "unit" in clauses and "frequency" not in clauses:
        raise bad("time unit should be added only when frequency is specified")
    if "frequency" in clauses:
        unit_text = (clauses.get("unit") or ["minutes"])[-1]
        unit = _UNITS.get(unit_text.lower())
        if unit is None:
            raise bad(
                f"invalid value [{unit_text}] for time unit. "
                "Valid value is one of months, days, hours or minutes"
            )
        freqs = []
        for value in clauses["frequency"]:
            try:
                number = int(float(value))
            except ValueError:
                raise bad(
                    f"invalid value [{value}] for frequency. A numerical value is expected"
                ) from None
            freqs.append(str(number * 60 if unit_text.lower() == "hours" else number))
        clauses["frequency"] = freqs
        clauses["unit"] = [unit]
    return clauses
