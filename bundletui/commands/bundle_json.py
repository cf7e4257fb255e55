"""A bundle as Oozie's JSON (oozie.md §7.2), with its coordinators', and beside Oozie's keys
(never instead of them) why a coordinator was never submitted and the counts by status.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from bundletui.commands.coord_json import coordinator_json, ordered_counts
from bundletui.commands.queries import conf_xml, rfc822
from bundletui.model.status import JobStatus
from bundletui.store import jobs
from bundletui.store.rows import BundleRow


def bundle_json(
    conn: sqlite3.Connection, bundle: BundleRow, *, with_coordinators: bool, tz: str = "GMT"
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "bundleJobPath": bundle.app_path,
        "bundleJobName": bundle.app_name,
        "bundleJobId": bundle.id,
        "bundleExternalId": bundle.external_id,
        "conf": conf_xml(bundle.conf_dict()),
        "status": bundle.status,
        "timeUnit": "NONE",
        "timeOut": 0,
        "kickoffTime": rfc822(bundle.kickoff_time, tz),
        "startTime": rfc822(bundle.start_time, tz),
        "endTime": rfc822(bundle.end_time, tz),
        "pauseTime": rfc822(bundle.pause_time, tz),
        "createdTime": rfc822(bundle.created_time, tz),
        "user": bundle.user,
        "group": bundle.grp,
        "acl": None,
        "consoleUrl": None,
        "bundleCoordJobs": [],
        "toString": f"Bundle id[{bundle.id}] status[{bundle.status}]",
        # ours, beside Oozie's keys
        "pending": bool(bundle.pending),
        "lastModifiedTime": rfc822(bundle.last_modified, tz),
    }
    if not with_coordinators:
        return out
    actions = jobs.bundle_actions(conn, bundle.id, ordered=True)
    coords = {c.id: c for c in jobs.coord_children(conn, bundle.id, ordered=True)}
    listed: list[dict[str, Any]] = []
    for ba in actions:
        coord = coords.pop(ba.coord_id, None) if ba.coord_id else None
        if coord is not None:
            listed.append(coordinator_json(conn, coord, tz=tz))
    listed += [coordinator_json(conn, c, tz=tz) for c in coords.values()]
    out["bundleCoordJobs"] = listed
    errors = _engine_errors(conn, bundle.id)
    out["bundleActions"] = [
        {
            "coordName": ba.coord_name,
            "coordJobId": ba.coord_id,
            "status": ba.status,
            "pending": bool(ba.pending),
            "critical": bool(ba.critical),
            # why a coordinator was never submitted (the engine's refusal, in the audit log)
            "error": errors.get(ba.coord_name) if ba.coord_id is None else None,
        }
        for ba in actions
    ]
    if bundle.status in (JobStatus.FAILED, JobStatus.RUNNINGWITHERROR, JobStatus.DONEWITHERROR):
        out["errorMessage"] = errors.get("")
    out["counts"] = ordered_counts(
        _tally(ba.status for ba in actions), [s.value for s in JobStatus]
    )
    return out


def _engine_errors(conn: sqlite3.Connection, bundle_id: str) -> dict[str, str]:
    """The engine's latest refusal per coordinator name of a bundle ("": the latest of all)."""
    out: dict[str, str] = {}
    for row in jobs.audit_rows(conn, bundle_id, limit=200):  # newest first
        if row.user != "engine" or row.result != "error" or not row.error:
            continue
        name = str(json.loads(row.args or "{}").get("coordinator", ""))
        out.setdefault(name, row.error)
        out.setdefault("", row.error)
    return out


def _tally(statuses: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in statuses:
        out[s] = out.get(s, 0) + 1
    return out
