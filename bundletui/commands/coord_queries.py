"""The read side for bundles and coordinators: Oozie's JSON (oozie.md §7.2), the coordinator's
action page with Oozie's ``-filter``/``-order``/``-offset``/``-len`` (§6.1), the listings of
``jobs -jobtype coordinator|bundle`` (§6.2, §7.3) — and, beside Oozie's keys (never instead of
them), what Oozie cannot tell: why a WAITING or READY action waits (``waitingFor``), why a
coordinator is not materializing (``materialization``), and counts by status (``counts``); for
an event schedule, its trigger and run constraints (``trigger``, ``constraints``) and what fired
each of its actions, and when (``firedBy``).

The action page is one indexed query (``UNIQUE(coord_id, nominal_time)`` gives the order), and
``total`` comes from the trigger-kept counts whenever the filter is on status only, so a page
costs O(page), not O(actions).
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from bundletui.commands.base import fail
from bundletui.commands.coordinators import app_of, skip_deadline
from bundletui.commands.queries import (
    EXTRA_KEYS,
    FILTER_LIMIT,
    WF_FILTER_KEYS,
    JobFilter,
    conf_xml,
    listing_page,
    one_line,
    rfc822,
)
from bundletui.errors import BundletuiError, CommandError
from bundletui.model.apps import ExecutionOrder
from bundletui.model.clock import from_ms, to_ms
from bundletui.model.cron import LocalCron
from bundletui.model.events import (
    AllOf,
    AnyOf,
    Bytes,
    Cron,
    Event,
    EventSpec,
    LeafProgress,
    Partitions,
    Program,
    TriggerNode,
    Wait,
    Window,
    constraint_words,
    hhmm,
    iso_duration,
    partition_key,
    trigger_progress,
    trigger_text,
)
from bundletui.model.ids import IdKind, kind_of
from bundletui.model.status import (
    ACTION_TERMINAL,
    COORD_MATERIALIZING,
    COORD_PAUSED,
    COORD_SUBMITTABLE,
    COORD_SUSPENDED,
    JOB_TERMINAL,
    ActionStatus,
    JobStatus,
)
from bundletui.model.timeutil import parse_oozie_time
from bundletui.store import events as event_store
from bundletui.store import filters, jobs
from bundletui.store.clockstate import store_now_ms
from bundletui.store.db import system_mode
from bundletui.store.filters import ACTION_ORDERS, ActionOrder
from bundletui.store.rows import (
    ActionRow,
    BundleRow,
    CoordRow,
    NodeRow,
    WorkflowRow,
)

J = JobStatus
A = ActionStatus

# Workflow-following action statuses, which equal the launched workflow's status.
_FOLLOWS_WORKFLOW = frozenset({A.RUNNING, A.SUSPENDED, A.SUCCEEDED, A.FAILED, A.KILLED})

_COORD_HINT = "list coordinators with: bundletui jobs --type coordinator"
_BUNDLE_HINT = "list bundles with: bundletui jobs --type bundle"
_ACTION_HINT = "see a coordinator's actions with: bundletui info <coordinator id>"
_LOG_HINT = (
    "logs belong to workflows: give a workflow (…-W), a node (…-W@name) "
    "or a coordinator action (…-C@n)"
)


# ----------------------------------------------------------------------------- entry points


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


def launched_workflow(conn: sqlite3.Connection, action_id: str) -> str | None:
    """The workflow a coordinator action launched; None when it has launched none yet."""
    action = jobs.get(conn, ActionRow, action_id)
    return action.external_id if action is not None and action.external_id else None


# ----------------------------------------------------------------------------- bundles


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
    out["counts"] = _ordered_counts(
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


# ----------------------------------------------------------------------------- coordinators


@dataclass
class ActionPage:
    actions: list[dict[str, Any]]
    total: int
    offset: int
    length: int | None
    order: str
    filter: str


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
        "counts": _ordered_counts(counts, [s.value for s in ActionStatus]),
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
            f"stopped at {_short(rfc822(nxt, tz))}, before its end"
            f" {_short(rfc822(coord.end_time, tz))}: a kill or a failure ended"
            f" materialization; {resume}"
        )
    elif coord.done_materialization:
        held = "done: every nominal time before the end time is materialized"
    elif status not in COORD_MATERIALIZING:
        held = f"coordinator {status}"
    elif coord.pause_time is not None and nxt is not None and nxt >= coord.pause_time:
        held = f"pause time {_short(rfc822(coord.pause_time, tz))}"
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


_FIRING = COORD_MATERIALIZING - COORD_PAUSED  # a paused event schedule does not fire


def triggering(conn: sqlite3.Connection, coord: CoordRow, tz: str = "GMT") -> dict[str, Any]:
    """An event schedule has no next nominal time: its next action comes when its trigger
    fires. What it has seen towards that (its open job's events), leaf by leaf, says how
    close it is (seed 004: an operator triages a schedule that did not fire)."""
    from bundletui.store import events

    status = JobStatus(coord.status)
    done = bool(coord.done_materialization) or status in JOB_TERMINAL
    job = events.find_open_job(conn, coord.id)
    rows = events.job_events(conn, job.id) if job is not None else []
    out: dict[str, Any] = {
        "next": None,
        "done": done,
        "heldBy": None if done or status in _FIRING else f"coordinator {status}",
        "onTrigger": True,
        "eventsSeen": len(rows),  # by the job that fires next
    }
    spec = event_spec(conn, coord)
    if spec is not None and not done:
        now = store_now_ms(conn)
        seen = [Event(r.key, r.time, r.size, r.path or "") for r in rows]
        window = Window(job.created_time if job is not None else now, seen)
        out["progress"] = [
            _leaf_json(p, coord, now, tz) for p in trigger_progress(spec, window, now)
        ]
    return out


def _leaf_json(p: LeafProgress, coord: CoordRow, now: int, tz: str) -> dict[str, Any]:
    """One leaf's progress; a cron leaf's next time after now, in the schedule's timezone,
    or that none comes before its end."""
    seen, at = p.seen, p.at_ms
    if p.cron is not None and not p.met:
        nxt = LocalCron(p.cron, coord.timezone).next_after(from_ms(now))
        at = None if nxt is None else to_ms(nxt)
        if at is None:
            seen = "never"
        elif at >= coord.end_time:
            seen, at = "none before its end", None
    return {"leaf": p.leaf, "seen": seen, "met": p.met, "at": rfc822(at, tz)}


# ----------------------------------------------------------------------------- event schedules


def event_spec(conn: sqlite3.Connection, coord: CoordRow) -> EventSpec | None:
    """An event schedule's decoded trigger and constraints (None for a time-based one)."""
    return app_of(coord, conn).events if coord.kind == "event" else None


def trigger_definition(spec: EventSpec) -> dict[str, Any]:
    """What fires the schedule: in words (AND / OR as written), as a tree mirroring the XML,
    and the feeds its partitions come from; Oozie has no key for any of it."""
    return {
        "definition": trigger_text(spec.trigger, top=True),
        "tree": _node_json(spec.trigger),
        "feeds": [{"name": f.name, "path": f.path, "doneFlag": f.done_flag} for f in spec.feeds],
        "priority": spec.priority,
    }


def run_constraints(spec: EventSpec, coord: CoordRow) -> dict[str, Any]:
    """What holds a fired job before its launch. The concurrency is the row's, as the engine
    reads it: ``change concurrency=`` replaces the definition's (-1: none)."""
    c = spec.constraints
    concurrency = coord.concurrency if coord.concurrency >= 0 else None
    w = c.window
    timed = c.timeout_ms is not None
    return {
        "concurrency": concurrency,
        "group": c.group,
        "groupMax": c.group_max,
        "delay": iso_duration(c.delay_ms) if c.delay_ms else None,
        "timeWindow": (
            {"start": hhmm(w.start_minute), "end": hhmm(w.end_minute), "timezone": coord.timezone}
            if w is not None
            else None
        ),
        "sinceLastRun": iso_duration(c.since_last_run_ms) if c.since_last_run_ms else None,
        "timeout": iso_duration(c.timeout_ms) if c.timeout_ms is not None else None,
        "onTimeout": str(c.on_timeout) if timed else None,
        "summary": constraint_words(c, concurrency, coord.timezone),
    }


def _fired_key(
    conn: sqlite3.Connection, action: ActionRow, coord: CoordRow, tz: str
) -> dict[str, Any]:
    """``firedBy`` for an event schedule's action; a time-based one's has no such key."""
    spec = event_spec(conn, coord)
    if spec is None:
        return {}
    fired = _fired_record(action)
    return {"firedBy": None if fired is None else fired_by(fired, spec, tz)}


def _fired_record(action: ActionRow) -> dict[str, Any] | None:
    """What the engine recorded on the action when it fired (``trigger:`` EL reads it too)."""
    try:
        fired = json.loads(action.trigger or "null")
    except ValueError:
        return None
    return fired if isinstance(fired, dict) else None


def fired_by(fired: dict[str, Any], spec: EventSpec, tz: str = "GMT") -> dict[str, Any]:
    """What fired an action, short enough for every row of a page: the trigger's leaves that
    held, in words, and when. A since-last-run schedule's later firings join a job still held
    (``mergedAt``): their events and leaves are counted here too, as its workflow gets them."""
    events = [e for e in fired.get("events") or [] if isinstance(e, dict)]
    parts = [e for e in events if e.get("kind") == "partition"]
    leaves = [str(r) for r in fired.get("reason") or []]
    out: dict[str, Any] = {
        "reason": _reason_text(spec, leaves, events),
        "leaves": leaves,  # ${trigger:reason()}
        "firedAt": rfc822(fired.get("fired_at"), tz),
        "partitions": len(parts),  # ${trigger:count()}
        "bytes": sum(int(e.get("size") or 0) for e in parts),  # ${trigger:bytes()}
    }
    if fired.get("merged_at"):
        out["mergedAt"] = [rfc822(int(t), tz) for t in fired["merged_at"]]
    return out


def fired_detail(
    conn: sqlite3.Connection, action: ActionRow, spec: EventSpec, tz: str = "GMT"
) -> dict[str, Any]:
    """One action's whole record: every event that fired it, the trigger it fired, and its
    job in the queue (how it left it: launched, forced at the timeout, discarded)."""
    fired = _fired_record(action) or {}
    names = _feed_names(spec)
    jobs_ = event_store.jobs_of_action(conn, action.coord_id, action.id)
    job = jobs_[-1] if jobs_ else None
    shown = None if job is None else {"state": job.state, "note": job.held_by}
    if job is not None and action.status == A.WAITING and job.state in ("LAUNCHED", "DISCARDED"):
        # a rerun whose own job no engine has queued yet: this job is its first run's, over
        # (QA (o): "DISCARDED" beside WAITING, without a word)
        shown = {
            "state": job.state,
            "note": "the first run's; the engine queues the rerun's own job at its next pass",
        }
    return {
        "trigger": trigger_text(spec.trigger, top=True),
        "events": [
            _event_json(e, names, tz) for e in fired.get("events") or [] if isinstance(e, dict)
        ],
        "job": shown,
    }


def _event_json(e: dict[str, Any], names: dict[str, str], tz: str) -> dict[str, Any]:
    key, path = str(e.get("key") or ""), str(e.get("path") or "")
    if e.get("kind") == "program":  # key program:<coordinator>:<status>, path <action>:…
        name, _, status = key.removeprefix("program:").rpartition(":")
        return {
            "kind": "program",
            "coordinator": name,
            "status": status,
            "action": path.split(":")[0],
            "time": rfc822(e.get("time"), tz),
        }
    root = key.removeprefix("partition:")
    return {
        "kind": "partition",
        "feed": names.get(key, root),
        "path": path,
        "name": path[len(root) + 1 :] if path.startswith(root + "/") else path,
        "size": int(e.get("size") or 0),
        "time": rfc822(e.get("time"), tz),
    }


def _reason_text(spec: EventSpec, leaves: list[str], events: list[dict[str, Any]]) -> str:
    """``3 new partitions in feed clicks and cron '0 */4 * * *'``: each leaf that held, joined
    by "and" whatever AND / OR joins them in the trigger (each did hold; the definition says
    which were needed)."""
    words: list[str] = []
    for leaf in leaves:
        if leaf == "partitions" or (leaf == "bytes" and "partitions" not in leaves):
            words += _partition_words(spec, events, leaves)
        elif leaf == "program":
            words += _program_words(events)
        elif leaf == "cron":
            crons = [c.expression for c in _leaves(spec.trigger, Cron)]
            words.append("cron " + " or ".join(f"'{c}'" for c in crons))
        elif leaf == "wait":
            words += [trigger_text(w) for w in _leaves(spec.trigger, Wait)]
    n = len(events)
    return " and ".join(words) or f"{n} event{'s' if n != 1 else ''}"


def _partition_words(spec: EventSpec, events: list[dict[str, Any]], leaves: list[str]) -> list[str]:
    """Per feed, in the trigger's order: ``3 new partitions in feed clicks``, with their size
    when a bytes leaf held (``24B in feed views (2 new partitions)`` when only the size did)."""
    names = _feed_names(spec)
    by_feed: dict[str, list[dict[str, Any]]] = {
        partition_key(spec.feed(leaf.feed).path): []
        for leaf in _leaves(spec.trigger, (Partitions, Bytes))
    }
    for e in events:
        if e.get("kind") == "partition":
            by_feed.setdefault(str(e.get("key")), []).append(e)
    words = []
    for key, parts in by_feed.items():
        if not parts:
            continue
        feed = names.get(key, key.removeprefix("partition:"))
        count = f"{len(parts)} new partition{'s' if len(parts) != 1 else ''}"
        size = _size(sum(int(e.get("size") or 0) for e in parts))
        if "partitions" not in leaves:
            words.append(f"{size} in feed {feed} ({count})")
        elif "bytes" in leaves:
            words.append(f"{count} in feed {feed} ({size})")
        else:
            words.append(f"{count} in feed {feed}")
    return words


def _program_words(events: list[dict[str, Any]]) -> list[str]:
    """``program ingest SUCCEEDED (action @3)``: the run's number says which of its actions."""
    by_key: dict[str, list[str]] = {}
    for e in events:
        if e.get("kind") == "program":
            action = str(e.get("path") or "").split(":")[0]
            by_key.setdefault(str(e.get("key")), []).append("@" + action.rpartition("@")[2])
    words = []
    for key, runs in by_key.items():
        name, _, status = key.removeprefix("program:").rpartition(":")
        label = "action" if len(runs) == 1 else "actions"
        words.append(f"program {name} {status} ({label} {', '.join(runs)})")
    return words


def _feed_names(spec: EventSpec) -> dict[str, str]:
    """Event key -> feed name (the first feed declared on a path names it)."""
    names: dict[str, str] = {}
    for f in spec.feeds:
        names.setdefault(partition_key(f.path), f.name)
    return names


def _leaves(node: TriggerNode, kind: type | tuple[type, ...]) -> list[Any]:
    if isinstance(node, AllOf | AnyOf):
        return [leaf for c in node.children for leaf in _leaves(c, kind)]
    return [node] if isinstance(node, kind) else []


def _node_json(n: TriggerNode) -> dict[str, Any]:
    """The trigger as its XML is written: ``{"or": [{"partitions": {…}}, {"cron": {…}}]}``."""
    if isinstance(n, AllOf | AnyOf):
        return {"and" if isinstance(n, AllOf) else "or": [_node_json(c) for c in n.children]}
    if isinstance(n, Partitions):
        return {"partitions": {"feed": n.feed, "count": n.count}}
    if isinstance(n, Bytes):
        return {"bytes": {"feed": n.feed, "atLeast": n.at_least}}
    if isinstance(n, Cron):
        return {"cron": {"expression": n.expression}}
    if isinstance(n, Program):
        return {"program": {"coordinator": n.coordinator, "status": n.status}}
    return {"wait": {"duration": iso_duration(n.duration_ms), "after": n.after.value}}


_BINARY_UNITS = (("PB", 1024**5), ("TB", 1024**4), ("GB", 1024**3), ("MB", 1024**2), ("KB", 1024))


def _size(n: int) -> str:
    """Bytes in the binary units a ``<bytes at-least>`` is written in: ``100GB``, ``1.5MB``."""
    for unit, size in _BINARY_UNITS:
        if n >= size:
            return f"{n / size:.1f}".rstrip("0").rstrip(".") + unit
    return f"{n}B"


@dataclass
class Holds:
    """What a coordinator's state says about its READY actions (computed once per page)."""

    coord: CoordRow
    counts: dict[str, int]
    active: int = 0
    _order: ExecutionOrder = field(default=ExecutionOrder.FIFO)
    safemode: bool = False  # the engine checks, launches and times out nothing until NORMAL

    @classmethod
    def of(
        cls, conn: sqlite3.Connection, coord: CoordRow, counts: dict[str, int] | None = None
    ) -> Holds:
        counts = jobs.action_counts(conn, coord.id) if counts is None else counts
        return cls(
            coord,
            counts,
            counts.get(A.SUBMITTED, 0) + counts.get(A.RUNNING, 0),
            ExecutionOrder(coord.execution),
            system_mode(conn) == "SAFEMODE",
        )

    def ready(self) -> dict[str, Any]:
        status = JobStatus(self.coord.status)
        limit = self.coord.concurrency
        if status not in COORD_SUBMITTABLE:
            return {
                "reason": "coordinator",
                "status": str(status),
                "detail": f"coordinator {status}: nothing is launched until it runs again",
            }
        if self.safemode:
            return {
                "reason": "safemode",
                "detail": "system SAFEMODE: nothing is launched until the mode is NORMAL",
            }
        if 0 <= limit <= self.active:
            return {
                "reason": "concurrency",
                "running": self.active,
                "limit": limit,
                "detail": f"concurrency {self.active}/{limit} running",
            }
        return {
            "reason": "launch",
            "running": self.active,
            "limit": limit,
            "detail": f"a slot is free ({self.active}/{'∞' if limit < 0 else limit} running): "
            f"launching next in {self._order} order",
        }


def waiting_for(
    conn: sqlite3.Connection, action: ActionRow, holds: Holds, tz: str = "GMT"
) -> dict[str, Any] | None:
    """Why a WAITING action waits (its missing inputs) or a READY one (which control holds it),
    and, under LAST_ONLY or NONE, when it is SKIPPED if it has not started by then."""
    why = _waiting_for(conn, action, holds, tz)
    if why is not None and holds.coord.execution in ("LAST_ONLY", "NONE") and not action.trigger:
        at = skip_deadline(holds.coord, app_of(holds.coord, conn), action)
        if at is not None:
            why["skipAt"] = rfc822(at, tz)
            why["detail"] += (
                f"; {holds.coord.execution}: SKIPPED after {why['skipAt']} unless it starts"
            )
    return why


def _waiting_for(
    conn: sqlite3.Connection, action: ActionRow, holds: Holds, tz: str
) -> dict[str, Any] | None:
    if action.status == A.READY:
        return holds.ready()
    if action.status != A.WAITING:
        return None
    recorded = _held(action)  # what the engine's last look recorded, read once
    held = recorded if "constraint" in recorded else None
    if held is not None:  # an event-triggered action held by a run constraint (seed 004)
        until, timeout = held.get("until"), held.get("timeout")
        when = rfc822(until, tz) if isinstance(until, int) else None
        ends = rfc822(timeout, tz) if isinstance(timeout, int) else None
        outcome = "started anyway" if held.get("onTimeout") == "force" else "discarded"
        detail = f"held by {held['constraint']}" + (f" until {when}" if when else "")
        if ends:  # said apart: at the timeout the job is discarded (or forced), not released
            detail += f"; times out at {ends} ({outcome})"
        if holds.safemode:  # the engine checks no constraint then, nor times the job out
            detail += "; system SAFEMODE: constraints are checked when the mode is NORMAL"
        # the key names the kind ("concurrency", "group", "time-window"…); the detail has the
        # counts ("group heavy (1/1 running)"), which change from one look to the next
        kind, _, rest = str(held["constraint"]).partition(" ")
        said: dict[str, Any] = {
            "reason": "constraint",
            "constraint": kind,
            "until": when,
            "timeoutAt": ends,
            "detail": detail,
        }
        if kind == "group":
            said["group"] = rest.partition(" (")[0]
        return said
    if action.trigger:  # an event schedule's action has no inputs: its constraints decide
        when = " (system SAFEMODE: when the mode is NORMAL)" if holds.safemode else ""
        return {"reason": "check", "detail": f"run constraints not checked yet{when}"}
    missing, unresolved, total, unavailable = _missing(conn, action, recorded)
    out: dict[str, Any] = {
        "reason": "inputs",
        "missing": missing,
        "missingCount": max(len(missing), unavailable),
        "inputs": total,
        "timeoutAt": rfc822(action.timeout_at, tz),
    }
    if unresolved:
        out["unresolved"] = unresolved
    count = out["missingCount"]
    if missing:
        more = f" (+{count - 1} more)" if count > 1 else ""
        of = f" of {total}" if total >= count else ""
        out["detail"] = f"{count}{of} inputs missing: {missing[0]}{more}"
    elif unresolved:
        out["detail"] = f"unresolved input {unresolved[0]}"
    elif action.held_by is None and total == 0:
        out["reason"] = "check"
        out["detail"] = "inputs not checked yet"
    else:
        out["detail"] = "inputs available; READY at the next input check"
    if isinstance(recorded.get("waitUntil"), int):  # an input-logic wait= holds it
        until, what = rfc822(recorded["waitUntil"], tz), str(recorded.get("waitFor") or "")
        out["waitUntil"], out["waitFor"] = until, what
        out["detail"] += (
            f"; input-logic wait= waits for {what} until {until}, then takes what its min= or"
            " the next alternative of its <or> allows"
        )
    if holds.coord.status in COORD_SUSPENDED:  # the engine checks no inputs then (Oozie's check)
        out["detail"] += f"; coordinator {holds.coord.status}: inputs are checked after resume"
    elif holds.safemode:
        out["detail"] += "; system SAFEMODE: inputs are checked when the mode is NORMAL"
    return out


def _held(action: ActionRow) -> dict[str, Any]:
    """What the engine recorded of why an action waits (its ``held_by`` JSON: the missing
    inputs and an input-logic wait, or the run constraint holding an event job); {} if none."""
    try:
        held = json.loads(action.held_by or "null")
    except ValueError:
        return {}
    return held if isinstance(held, dict) else {}


def _missing(
    conn: sqlite3.Connection, action: ActionRow, held: dict[str, Any]
) -> tuple[list[str], list[str], int, int]:
    """(missing URIs, unresolved instances, #dependencies, #unavailable) of a WAITING action."""
    deps = jobs.input_deps_of(conn, action.id)
    unavailable = [path for path, _name, _seq, ok in deps if not ok]
    missing = held.get("missing")
    unresolved = held.get("unresolved")
    if not isinstance(missing, list):
        missing = unavailable
    # latest()/future() instances not resolved yet are EL text, not paths (Oozie's "!!" part)
    paths = [str(m) for m in missing if not str(m).startswith("${")]
    pending = [str(m) for m in missing if str(m).startswith("${")]
    pending += [str(u) for u in unresolved or () if str(u) not in pending]
    return paths, pending, len(deps), len(unavailable)


def _missing_text(paths: list[str], unresolved: list[str] | None) -> str:
    """Oozie's missingDependencies: paths joined by #, unresolved instances after !!."""
    return "#".join(paths) + ("!!" + "#".join(unresolved) if unresolved else "")


def action_json(
    conn: sqlite3.Connection,
    action: ActionRow,
    coord: CoordRow,
    holds: Holds,
    *,
    tz: str = "GMT",
    created_conf: str | None = None,
) -> dict[str, Any]:
    why = waiting_for(conn, action, holds, tz)
    missing = ""
    if why is not None and why["reason"] == "inputs":
        missing = _missing_text(why["missing"], why.get("unresolved"))
    elif why is None and action.external_id is None and not action.trigger:
        # an action that ended without running (TIMEDOUT, KILLED while it waited) keeps what it
        # was missing, as Oozie's row does: the operator's first question is which input
        paths, unresolved, _total, _unavailable = _missing(conn, action, _held(action))
        missing = _missing_text(paths, unresolved)
    run_conf = action.run_conf_dict()
    status = action.status
    return {
        "id": action.id,
        "coordJobId": action.coord_id,
        "type": None,
        "actionNumber": action.action_number,
        "createdConf": created_conf if created_conf is not None else conf_xml(coord.conf_dict()),
        "createdTime": rfc822(action.created_time, tz),
        "nominalTime": rfc822(action.nominal_time, tz),
        "externalId": action.external_id,
        "status": status,
        "runConf": conf_xml(run_conf) if run_conf else None,
        "lastModifiedTime": rfc822(action.last_modified, tz),
        "missingDependencies": missing,
        "pushMissingDependencies": None,
        "externalStatus": status if action.external_id and status in _FOLLOWS_WORKFLOW else None,
        "trackerUri": None,
        "consoleUrl": None,
        "errorCode": action.error_code,
        "errorMessage": action.error_message,
        "toString": f"CoordinatorAction name[{action.id}] status[{status}]",
        # ours, beside Oozie's keys
        "pending": bool(action.pending),
        "waitingFor": why,
        **_fired_key(conn, action, coord, tz),
    }


# ----------------------------------------------------------------------------- action page


_CLAUSE = re.compile(r"^\s*([A-Za-z_]+)\s*(<=|>=|!=|=|<|>)(.*)$")
_KEYS = ("status", "nominaltime")


@dataclass(frozen=True)
class ActionFilter:
    """Oozie's coordinator action filter: ``status`` (=, !=) and ``nominaltime`` (=, !=, <, <=,
    >, >=); ``=`` on the same key is ORed, everything else ANDed."""

    equals: dict[str, list[Any]]
    others: list[tuple[str, str, Any]]

    @classmethod
    def parse(cls, text: str) -> ActionFilter:
        equals: dict[str, list[Any]] = {}
        others: list[tuple[str, str, Any]] = []
        for token in (t for t in (text or "").split(";") if t.strip()):
            m = _CLAUSE.match(token)
            if m is None:
                raise _filter_error(
                    text,
                    f"invalid element [{token.strip()}]; elements are <key><comparator><value>",
                )
            key, op, raw = m.group(1).lower(), m.group(2), m.group(3).strip()
            if key not in _KEYS:
                raise _filter_error(
                    text,
                    f'invalid filter [{m.group(1)}]; valid filters are "status" and "nominaltime"',
                )
            value: Any
            if key == "status":
                if op not in ("=", "!="):
                    raise _filter_error(
                        text, f"invalid comparator [{op}] for status; only = and != apply"
                    )
                value = raw.upper()
                if value not in A.__members__:
                    raise _filter_error(
                        text,
                        f"invalid status value [{raw}]. Valid status values are: "
                        f"[{' '.join(s.value for s in ActionStatus)}]",
                    )
            else:
                try:
                    value = to_ms(parse_oozie_time(raw, what="nominaltime"))
                except BundletuiError:
                    raise _filter_error(
                        text, f"invalid nominaltime value [{raw}]; use yyyy-MM-ddTHH:mmZ"
                    ) from None
            if op != "=":
                if (key, op, value) not in others:
                    others.append((key, op, value))
            elif value not in equals.setdefault(key, []):
                equals[key].append(value)
        if len(others) + sum(len(v) for v in equals.values()) > FILTER_LIMIT:
            raise _filter_error(
                one_line(text)[:60] + "…", f"more than {FILTER_LIMIT} distinct elements"
            )
        return cls(equals, others)

    def statuses(self) -> set[str] | None:
        """The statuses it selects, when it is on status only (else None: count the rows)."""
        if "nominaltime" in self.equals or any(k == "nominaltime" for k, _, _ in self.others):
            return None
        chosen = set(self.equals.get("status") or [s.value for s in ActionStatus])
        chosen -= {v for k, op, v in self.others if k == "status"}
        return chosen


def _filter_error(text: str, why: str) -> CommandError:
    return CommandError(
        "E0421",
        f"Invalid job filter [{text}], {why}",
        hint="e.g. --filter 'status=WAITING;status=READY;nominaltime>=2024-01-01T00:00Z'",
    )


def action_page(
    conn: sqlite3.Connection,
    coord: CoordRow,
    *,
    offset: int = 1,
    length: int | None = None,
    order: str = "asc",
    filter_text: str = "",
    tz: str = "GMT",
    by: str = "nominal",
) -> ActionPage:
    """One page of a coordinator's actions by nominal time (one indexed query plus the
    total), or ``by="status"`` (ties newest first), so a sorted page is of all its actions."""
    direction = (order or "asc").strip().lower()
    if direction not in ("asc", "desc"):
        raise fail("E0303", "order", order, hint="order is asc (default) or desc")
    if by not in ACTION_ORDERS:
        raise fail("E0303", "by", by, hint=f"by is {' or '.join(ACTION_ORDERS)}")
    flt = ActionFilter.parse(filter_text)
    counts = jobs.action_counts(conn, coord.id)
    chosen = flt.statuses()
    if chosen is not None:
        total = sum(n for s, n in counts.items() if s in chosen)
    else:
        total = filters.count_filtered_actions(conn, coord.id, flt.equals, flt.others)
    start = max(int(offset or 1), 1)
    limit = None if length is None or length < 0 else int(length)
    rows: list[ActionRow] = []
    if limit != 0:
        rows = filters.filtered_actions(
            conn,
            coord.id,
            flt.equals,
            flt.others,
            by=_order_by(by),
            descending=direction == "desc",
            limit=limit,
            offset=start - 1,
        )
    holds = Holds.of(conn, coord, counts)
    created_conf = conf_xml(coord.conf_dict())
    return ActionPage(
        [action_json(conn, r, coord, holds, tz=tz, created_conf=created_conf) for r in rows],
        total,
        start,
        limit,
        direction,
        filter_text,
    )


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
        by=_order_by(by),
        descending=(order or "asc").strip().lower() == "desc",
    )
    return before + 1


def _order_by(by: str) -> ActionOrder:
    return "status" if by == "status" else "nominal"


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


# ----------------------------------------------------------------------------- helpers


def _tally(statuses: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in statuses:
        out[s] = out.get(s, 0) + 1
    return out


def _ordered_counts(counts: dict[str, int], order: list[str]) -> dict[str, int]:
    """Counts with n > 0, in the status enum's order (then any unknown status)."""
    out = {s: int(counts[s]) for s in order if counts.get(s)}
    out.update({s: int(n) for s, n in counts.items() if s not in out and n})
    return out


def _short(rfc: str | None) -> str:
    """``Mon, 01 Jan 2024 12:00:00 GMT`` -> ``2024-01-01 12:00 GMT`` for one-line reasons."""
    if not rfc:
        return "-"
    from email.utils import parsedate_to_datetime

    try:
        dt = parsedate_to_datetime(rfc)
    except (TypeError, ValueError):
        return rfc
    return f"{dt:%Y-%m-%d %H:%M} {rfc.rsplit(' ', 1)[-1]}"
