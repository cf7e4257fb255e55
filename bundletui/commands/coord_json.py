"""A coordinator as Oozie's JSON (oozie.md §7.2) and, beside Oozie's keys (never instead of
them), what Oozie cannot tell: why it is not materializing (``materialization``), its counts by
status (``counts``) and, for an event schedule, its trigger and run constraints.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from bundletui.commands.action_page import ActionPage
from bundletui.commands.event_json import (
    event_spec,
    run_constraints,
    trigger_definition,
    triggering,
)
from bundletui.commands.queries import conf_xml, rfc822, short_rfc822
from bundletui.model.apps import ExecutionOrder
from bundletui.model.status import COORD_MATERIALIZING, COORD_PAUSED, ActionStatus, JobStatus
from bundletui.store import jobs
from bundletui.store.db import system_mode
from bundletui.store.rows import CoordRow

J = JobStatus
A = ActionStatus


def coordinator_json(
    conn: sqlite3.Connection,
    coord: CoordRow,
    *,
    page: ActionPage | None = None,
    tz: str = "GMT",
    counts: dict[str, int] | None = None,
) -> dict[str, Any]:
    if counts is None:
        counts = jobs.action_counts(conn, coord.id)
    event = coord.kind == "event"
    next_time = coord.next_materialized_time
    last_time = next_time
    if event:
        # No nominal times: nothing is "next" until the trigger fires; the engine keeps the
        # last firing's time where a time-based coordinator keeps its next nominal time.
        next_time = None
    elif next_time is None and not coord.done_materialization and coord.last_action_number == 0:
        next_time = last_time = coord.start_time  # nothing materialized yet: the start is next
    out: dict[str, Any] = {
        "coordJobPath": coord.app_path,
        "coordJobName": coord.app_name,
        "coordJobId": coord.id,
        "coordExternalId": coord.external_id,
        "bundleId": coord.bundle_id,
        "conf": conf_xml(coord.conf_dict()),
        "status": coord.status,
        "executionPolicy": coord.execution,
        # An event schedule has no frequency: null (Oozie's clients read null as none; older
        # ones as 0), and the unit stays in Oozie's enum (its Java client maps timeUnit with
        # Enum.valueOf, so a unit of our own would break it); "schedule" says "event".
        "frequency": None if event else coord.frequency,
        "timeUnit": "NONE" if event else coord.time_unit,
        "timeZone": coord.timezone,
        "concurrency": coord.concurrency,
        "timeOut": coord.timeout,
        "lastAction": rfc822(last_time, tz),
        "nextMaterializedTime": rfc822(next_time, tz),
        "createdTime": rfc822(coord.created_time, tz),
        "startTime": rfc822(coord.start_time, tz),
        "endTime": rfc822(coord.end_time, tz),
        "pauseTime": rfc822(coord.pause_time, tz),
        "user": coord.user,
        "group": coord.grp,
        "acl": None,
        "consoleUrl": None,
        "mat_throttling": coord.throttle,
        "actions": page.actions if page else [],
        "toString": f"Coordinator application id[{coord.id}] status[{coord.status}]",
        "total": page.total if page else 0,
        # ours, beside Oozie's keys
        "schedule": "event" if event else "time",  # triggers, or nominal times
        "pending": bool(coord.pending),
        "lastActionNumber": coord.last_action_number,
        "doneMaterialization": bool(coord.done_materialization),
        "counts": ordered_counts(counts, [s.value for s in ActionStatus]),
        "materialization": _in_safemode(
            conn, triggering(conn, coord, tz) if event else materialization(coord, counts, tz)
        ),
        "lastModifiedTime": rfc822(coord.last_modified, tz),
        "errorCode": coord.error_code,  # why materialization failed the job
        "errorMessage": coord.error_message,
    }
    spec = event_spec(conn, coord) if event else None
    if spec is not None:
        out["trigger"] = trigger_definition(spec)
        out["constraints"] = run_constraints(spec, coord)
    if page is not None:
        out["page"] = {
            "offset": page.offset,
            "len": page.length,
            "order": page.order,
            "filter": page.filter,
        }
    return out


def materialization(coord: CoordRow, counts: dict[str, int], tz: str = "GMT") -> dict[str, Any]:
    """Whether new actions are being created, and if not, which control stops them."""
    status = JobStatus(coord.status)
    nxt = coord.next_materialized_time
    if nxt is None and not coord.done_materialization and coord.last_action_number == 0:
        nxt = coord.start_time
    held: str | None = None
    stopped = coord.done_materialization and nxt is not None and nxt < coord.end_time
    if stopped:  # a kill (or a failed materialization) ends it before the end time
        resume = (
            "change --value status=RUNNING resumes it"
            if status in (J.KILLED, J.FAILED, J.IGNORED)
            else "change --value endtime=… (its end will do) resumes it"
        )
        held = (
            f"stopped at {short_rfc822(rfc822(nxt, tz), zone=True)}, before its end"
            f" {short_rfc822(rfc822(coord.end_time, tz), zone=True)}: a kill or a failure ended"
            f" materialization; {resume}"
        )
    elif coord.done_materialization:
        held = "done: every nominal time before the end time is materialized"
    elif status not in COORD_MATERIALIZING:
        held = f"coordinator {status}"
    elif coord.pause_time is not None and nxt is not None and nxt >= coord.pause_time:
        held = f"pause time {short_rfc822(rfc822(coord.pause_time, tz), zone=True)}"
        held = f"coordinator {status} at its {held}" if status in COORD_PAUSED else held
    elif ExecutionOrder(coord.execution) in (ExecutionOrder.FIFO, ExecutionOrder.LIFO):
        waiting = counts.get(A.WAITING, 0)
        if waiting >= coord.throttle:
            held = f"throttle {waiting}/{coord.throttle} WAITING"
    out: dict[str, Any] = {
        "next": None if stopped else rfc822(nxt, tz),
        "done": bool(coord.done_materialization),
        "heldBy": held,
    }
    if stopped:
        out["stopped"] = True
    return out


def _in_safemode(conn: sqlite3.Connection, mat: dict[str, Any]) -> dict[str, Any]:
    """SAFEMODE holds what would otherwise go on (materialization, an event schedule's
    firing: its events wait in the log), and says so before any other control."""
    if mat["heldBy"] is None and system_mode(conn) == "SAFEMODE":
        what = "events wait in the log" if mat.get("onTrigger") else "nothing materializes"
        mat["heldBy"] = f"system SAFEMODE: {what} until the mode is NORMAL"
    return mat


def ordered_counts(counts: dict[str, int], order: list[str]) -> dict[str, int]:
    """Counts with n > 0, in the status enum's order (then any unknown status)."""
    out = {s: int(counts[s]) for s in order if counts.get(s)}
    out.update({s: int(n) for s, n in counts.items() if s not in out and n})
    return out
