"""An event schedule's keys beside Oozie's, which has none for them: its trigger and run
constraints (``trigger``, ``constraints``), how close it is to firing, and what fired each of
its actions, and when (``firedBy``).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from bundletui.commands.coordinators import app_of
from bundletui.commands.queries import rfc822
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
from bundletui.model.status import (
    COORD_MATERIALIZING,
    COORD_PAUSED,
    JOB_TERMINAL,
    ActionStatus,
    JobStatus,
)
from bundletui.store import events as event_store
from bundletui.store.clockstate import store_now_ms
from bundletui.store.rows import ActionRow, CoordRow

A = ActionStatus

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


def fired_by_key(
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
