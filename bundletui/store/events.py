"""SQL for event schedules: events, the reverse index, feeds, the job queue (seed 004)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bundletui.model.events import partition_key
from bundletui.store.db import Tx


@dataclass(frozen=True, slots=True)
class EventRow:
    id: int
    kind: str
    key: str
    path: str | None
    size: int
    time: int
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class JobRow:
    id: int
    coord_id: str
    state: str
    created_time: int
    updated_time: int
    fired_time: int | None
    crons: list[str]
    held_by: str | None
    retry_at: int | None
    action_id: str | None
    priority: int
    rerun: bool = False  # made by a rerun for an action that fired before (takes no events)


def _event(row: sqlite3.Row | tuple[Any, ...]) -> EventRow:
    return EventRow(row[0], row[1], row[2], row[3], row[4], row[5], json.loads(row[6] or "{}"))


def _job(row: sqlite3.Row | tuple[Any, ...]) -> JobRow:
    return JobRow(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        json.loads(row[6] or "[]"),
        row[7],
        row[8],
        row[9],
        row[10],
        bool(row[11]),
    )


_JOB_COLS = "id, coord_id, state, created_time, updated_time, fired_time, crons, held_by, retry_at, action_id, priority, rerun"

# ----------------------------------------------------------------------------- events


def record_event(
    tx: Tx,
    kind: str,
    key: str,
    path: str,
    size: int,
    time_ms: int,
    payload: dict[str, Any] | None = None,
) -> int | None:
    """Record an event once (deduplicated by kind, key and path: a partition once per feed it
    lies in); its id, or None if already known."""
    cur = tx.conn.execute(
        "INSERT INTO events (kind, key, path, size, time, payload) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (kind, key, path) DO NOTHING RETURNING id",
        (kind, key, path, size, time_ms, json.dumps(payload or {})),
    )
    row = cur.fetchone()
    return None if row is None else int(row[0])


def events_after(conn: sqlite3.Connection, cursor: int, limit: int = 2000) -> list[EventRow]:
    rows = conn.execute(
        "SELECT id, kind, key, path, size, time, payload FROM events WHERE id > ? ORDER BY id LIMIT ?",
        (cursor, limit),
    )
    return [_event(r) for r in rows]


def record_partition(
    tx: Tx, feed_path: str, partition: str, size: int, completed: int
) -> int | None:
    """A partition of a feed, once (:func:`record_event`); ``completed``: when its data
    completed, on the store's clock (what :func:`horizon_at` reads)."""
    return record_event(
        tx,
        "partition",
        partition_key(feed_path),
        partition,
        size,
        tx.now_ms,
        {"feed": feed_path, "completed": completed},
    )


def max_event_id(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0])


def horizon_at(conn: sqlite3.Connection, when_ms: int) -> int:
    """The last event before ``when_ms``, for a start the engine reached late (its kick-off
    passed while none ran): the events recorded since whose data completed at or after it
    count as new, those that completed before it do not (a rescan records in completion
    order, so they are the ids below the first that completed after)."""
    row = conn.execute(
        "SELECT min(id) FROM events WHERE time >= ?"
        " AND coalesce(json_extract(payload, '$.completed'), time) >= ?",
        (when_ms, when_ms),
    ).fetchone()
    return max_event_id(conn) if row[0] is None else int(row[0]) - 1


def known_partitions(conn: sqlite3.Connection, key: str) -> set[str]:
    """The paths of the partitions recorded for the feed ``key``."""
    return {
        r[0]
        for r in conn.execute(
            "SELECT path FROM events WHERE kind = 'partition' AND key = ?", (key,)
        )
    }


# ----------------------------------------------------------------------------- schedules


def register_schedule(
    tx: Tx,
    coord_id: str,
    bundle_id: str | None,
    keys: Iterable[str],
    feeds: Iterable[tuple[str, str, str]],
    group: str | None,
    events_from: int | None = None,
) -> None:
    """``events_from``: events up to it do not count (default: every event recorded so far)."""
    tx.conn.executemany(
        "INSERT OR IGNORE INTO event_triggers (key, coord_id, bundle_id) VALUES (?, ?, ?)",
        [(k, coord_id, bundle_id) for k in keys],
    )
    tx.conn.executemany(
        "INSERT OR IGNORE INTO event_feeds (coord_id, name, path, done_flag) VALUES (?, ?, ?, ?)",
        [(coord_id, n, p, f) for n, p, f in feeds],
    )
    tx.conn.execute(
        "INSERT OR IGNORE INTO event_schedules (coord_id, events_from, grp) VALUES (?, ?, ?)",
        (coord_id, max_event_id(tx.conn) if events_from is None else events_from, group),
    )


def schedules_for(conn: sqlite3.Connection, key: str) -> list[tuple[str, str | None]]:
    """(coord_id, bundle_id) of the schedules listening on ``key``."""
    return [
        (r[0], r[1])
        for r in conn.execute(
            "SELECT coord_id, bundle_id FROM event_triggers WHERE key = ?", (key,)
        )
    ]


# A feed is watched while its schedule has not ended: a killed one's was rescanned, recorded
# and kept the watcher polling fast for ever (QA (ak)). An ended one given a later end time
# is watched again; what landed meanwhile is found by the rescan of its feeds the engine runs
# when it applies that command (engine.events.watch_again).
LIVE_FEED = (
    "EXISTS (SELECT 1 FROM coord_jobs c WHERE c.id = event_feeds.coord_id"
    " AND c.status NOT IN ('SUCCEEDED', 'DONEWITHERROR', 'KILLED', 'FAILED', 'IGNORED'))"
)


def feeds_at(conn: sqlite3.Connection, path: str) -> list[tuple[str, str, str]]:
    """(coord_id, path, done_flag) of the live feeds rooted exactly at ``path``."""
    return [
        (r[0], r[1], r[2])
        for r in conn.execute(
            f"SELECT coord_id, path, done_flag FROM event_feeds WHERE path = ? AND {LIVE_FEED}",
            (path,),
        )
    ]


def all_feeds(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(coord_id, path, done_flag) of every live feed."""
    return [
        (r[0], r[1], r[2])
        for r in conn.execute(
            f"SELECT DISTINCT coord_id, path, done_flag FROM event_feeds WHERE {LIVE_FEED}"
        )
    ]


def schedule_state(conn: sqlite3.Connection, coord_id: str) -> tuple[int, int | None, str | None]:
    row = conn.execute(
        "SELECT events_from, last_run, grp FROM event_schedules WHERE coord_id = ?", (coord_id,)
    ).fetchone()
    return (0, None, None) if row is None else (int(row[0]), row[1], row[2])


def crons_from(conn: sqlite3.Connection, coord_id: str) -> int | None:
    """When the schedule was last resumed (None: never): no cron time before it is owed."""
    row = conn.execute(
        "SELECT crons_from FROM event_schedules WHERE coord_id = ?", (coord_id,)
    ).fetchone()
    return None if row is None else row[0]


def set_crons_from(tx: Tx, coord_id: str, when: int) -> None:
    tx.conn.execute(
        "UPDATE event_schedules SET crons_from = ? WHERE coord_id = ?", (when, coord_id)
    )


def set_last_run(tx: Tx, coord_id: str, when: int) -> None:
    tx.conn.execute("UPDATE event_schedules SET last_run = ? WHERE coord_id = ?", (when, coord_id))


def ignore_events_until(tx: Tx, coord_id: str, horizon: int | None = None) -> None:
    """Events up to ``horizon`` (default: the last one) do not count for the schedule."""
    tx.conn.execute(
        "UPDATE event_schedules SET events_from = ? WHERE coord_id = ?",
        (max_event_id(tx.conn) if horizon is None else horizon, coord_id),
    )


# The last event the engine's pump has handed to the schedules listening on it.
PUMP_CURSOR = "events_cursor"


def pump_cursor(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (PUMP_CURSOR,)).fetchone()
    return 0 if row is None else int(row[0])


def suspend_schedule(tx: Tx, coord_id: str, upto: int) -> None:
    """Suspend at the horizon ``upto``. What the pump handed the schedule is behind it (its
    pending jobs are deleted with their events, seed 004); what it had not been handed yet,
    up to ``upto``, is kept for after the resume. Gaps behind the new threshold are spent.
    A resume whose replay no engine has made yet (``replay_after``) keeps the threshold where
    it is: the pump passed those events while the schedule was suspended, not handed them
    (review: a second suspend before any engine lost them)."""
    tx.conn.execute(
        "UPDATE event_schedules SET events_from = CASE WHEN replay_after IS NULL"
        " THEN max(events_from, ?) ELSE events_from END, suspended_upto = ? WHERE coord_id = ?",
        (pump_cursor(tx.conn), upto, coord_id),
    )
    tx.conn.execute(
        "DELETE FROM event_gaps WHERE coord_id = ? AND upto <= "
        "(SELECT events_from FROM event_schedules WHERE coord_id = ?)",
        (coord_id, coord_id),
    )


def resume_schedule(tx: Tx, coord_id: str, upto: int) -> None:
    """Resume at the horizon ``upto``: the events between the suspend's horizon and it landed
    while suspended and are ignored (seed 004); the engine hands the schedule those it passed
    while it was suspended (:func:`take_replay`). A suspension without a horizon (given
    before the store kept one) ignores everything up to ``upto``, as it used to."""
    row = tx.conn.execute(
        "SELECT suspended_upto, events_from FROM event_schedules WHERE coord_id = ?",
        (coord_id,),
    ).fetchone()
    if row is None:
        return
    suspended_upto, events_from = row
    if suspended_upto is None:
        ignore_events_until(tx, coord_id, max(events_from, upto))
        return
    if upto > suspended_upto:
        tx.conn.execute(
            "INSERT INTO event_gaps (coord_id, after, upto) VALUES (?, ?, ?)"
            " ON CONFLICT DO UPDATE SET upto = max(upto, excluded.upto)",
            (coord_id, suspended_upto, upto),
        )
    tx.conn.execute(
        "UPDATE event_schedules SET suspended_upto = NULL, replay_after = events_from"
        " WHERE coord_id = ?",
        (coord_id,),
    )


def take_replay(tx: Tx, coord_id: str) -> int | None:
    """The events after this id that the pump passed while the schedule was suspended are
    to be handed to it, once: None when a resume left nothing of the kind."""
    row = tx.conn.execute(
        "SELECT replay_after FROM event_schedules WHERE coord_id = ?", (coord_id,)
    ).fetchone()
    if row is None or row[0] is None:
        return None
    tx.conn.execute(
        "UPDATE event_schedules SET replay_after = NULL WHERE coord_id = ?", (coord_id,)
    )
    return int(row[0])


def ignores(conn: sqlite3.Connection, coord_id: str, event_id: int) -> bool:
    """Does the schedule pass over this event: behind its threshold, or landed while it was
    suspended (in a gap)?"""
    row = conn.execute(
        "SELECT ? <= events_from OR EXISTS (SELECT 1 FROM event_gaps g WHERE g.coord_id = ?"
        " AND g.after < ? AND ? <= g.upto) FROM event_schedules WHERE coord_id = ?",
        (event_id, coord_id, event_id, event_id, coord_id),
    ).fetchone()
    return row is not None and bool(row[0])


def events_for(conn: sqlite3.Connection, coord_id: str, after: int, upto: int) -> list[EventRow]:
    """The events with ``after < id <= upto`` on keys ``coord_id`` listens on, in order."""
    rows = conn.execute(
        "SELECT e.id, e.kind, e.key, e.path, e.size, e.time, e.payload FROM events e"
        " JOIN event_triggers t ON t.key = e.key AND t.coord_id = ?"
        " WHERE e.id > ? AND e.id <= ? ORDER BY e.id",
        (coord_id, after, upto),
    )
    return [_event(r) for r in rows]


def group_members(conn: sqlite3.Connection, group: str) -> list[str]:
    return [
        r[0] for r in conn.execute("SELECT coord_id FROM event_schedules WHERE grp = ?", (group,))
    ]


def running_in(conn: sqlite3.Connection, coord_ids: Iterable[str]) -> int:
    ids = list(coord_ids)
    if not ids:
        return 0
    marks = ",".join("?" * len(ids))
    row = conn.execute(
        f"SELECT coalesce(sum(n), 0) FROM coord_action_counts WHERE coord_id IN ({marks}) AND status IN ('SUBMITTED', 'RUNNING')",
        ids,
    ).fetchone()
    return int(row[0])


# ----------------------------------------------------------------------------- jobs


def open_job(tx: Tx, coord_id: str, priority: int) -> JobRow:
    """The schedule's PENDING_TRIGGER job, created when there is none (one per schedule)."""
    row = tx.conn.execute(
        f"SELECT {_JOB_COLS} FROM job_queue WHERE coord_id = ? AND state = 'PENDING_TRIGGER'",
        (coord_id,),
    ).fetchone()
    if row is not None:
        return _job(row)
    tx.conn.execute(
        "INSERT INTO job_queue (coord_id, state, created_time, updated_time, priority, rev) VALUES (?, 'PENDING_TRIGGER', ?, ?, ?, ?)",
        (coord_id, tx.now_ms, tx.now_ms, priority, tx.rev),
    )
    return _job(
        tx.conn.execute(
            f"SELECT {_JOB_COLS} FROM job_queue WHERE coord_id = ? AND state = 'PENDING_TRIGGER'",
            (coord_id,),
        ).fetchone()
    )


def other_flag_on(
    conn: sqlite3.Connection, path: str, flag: str, finished: Sequence[str], exclude: str
) -> tuple[str, str, str] | None:
    """(coordinator id, name, done-flag) of a schedule not in ``finished`` (and not
    ``exclude``) watching ``path`` with another done-flag than ``flag``, if any."""
    marks = ",".join("?" * len(finished))
    row = conn.execute(
        "SELECT f.coord_id, c.app_name, f.done_flag FROM event_feeds f"
        " JOIN coord_jobs c ON c.id = f.coord_id"
        f" WHERE f.path = ? AND f.done_flag <> ? AND c.status NOT IN ({marks})"
        " AND f.coord_id <> ? ORDER BY f.coord_id LIMIT 1",
        (path, flag, *finished, exclude),
    ).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def rerun_job(tx: Tx, coord_id: str, action_id: str, priority: int) -> int:
    """A job for an action a rerun put back to WAITING: it has fired already (its trigger is
    kept on the action), so it starts at PENDING_CONSTRAINT; its id."""
    row = tx.conn.execute(
        "INSERT INTO job_queue (coord_id, state, created_time, updated_time, fired_time,"
        " action_id, priority, rev, rerun) VALUES (?, 'PENDING_CONSTRAINT', ?, ?, ?, ?, ?, ?, 1)"
        " RETURNING id",
        (coord_id, tx.now_ms, tx.now_ms, tx.now_ms, action_id, priority, tx.rev),
    ).fetchone()
    return int(row[0])


def held_job_of(conn: sqlite3.Connection, action_id: str) -> int | None:
    """The PENDING_CONSTRAINT job holding an action, if any."""
    row = conn.execute(
        "SELECT id FROM job_queue WHERE action_id = ? AND state = 'PENDING_CONSTRAINT'",
        (action_id,),
    ).fetchone()
    return None if row is None else int(row[0])


def find_open_job(conn: sqlite3.Connection, coord_id: str) -> JobRow | None:
    row = conn.execute(
        f"SELECT {_JOB_COLS} FROM job_queue WHERE coord_id = ? AND state = 'PENDING_TRIGGER'",
        (coord_id,),
    ).fetchone()
    return None if row is None else _job(row)


def has_earlier_job(conn: sqlite3.Connection, coord_id: str, job_id: int) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM job_queue WHERE coord_id = ? AND id < ? LIMIT 1", (coord_id, job_id)
        ).fetchone()
        is not None
    )


def get_job(conn: sqlite3.Connection, job_id: int) -> JobRow | None:
    row = conn.execute(f"SELECT {_JOB_COLS} FROM job_queue WHERE id = ?", (job_id,)).fetchone()
    return None if row is None else _job(row)


def jobs_in(
    conn: sqlite3.Connection, state: str, coord_ids: Iterable[str] | None = None
) -> list[JobRow]:
    if coord_ids is None:
        rows = conn.execute(
            f"SELECT {_JOB_COLS} FROM job_queue WHERE state = ? ORDER BY priority DESC, id",
            (state,),
        )
    else:
        ids = list(coord_ids)
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = conn.execute(
            f"SELECT {_JOB_COLS} FROM job_queue WHERE state = ? AND coord_id IN ({marks}) ORDER BY priority DESC, id",
            (state, *ids),
        )
    return [_job(r) for r in rows]


def add_event_to_job(tx: Tx, coord_id: str, event_id: int, job_id: int) -> bool:
    """False if this schedule already consumed the event (the primary key says so)."""
    cur = tx.conn.execute(
        "INSERT INTO job_events (coord_id, event_id, job_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        (coord_id, event_id, job_id),
    )
    return cur.rowcount == 1


def partition_job(
    conn: sqlite3.Connection, coord_id: str, keys: Iterable[str], path: str
) -> tuple[int, str] | None:
    """The job (id, state) to which ``coord_id`` gave the partition at ``path`` through one of
    its feeds' ``keys``, if it did: nested feeds make one partition an event of each. Each key
    is one lookup in the events' unique index."""
    for key in keys:
        row = conn.execute(
            "SELECT j.job_id, q.state FROM events e"
            " JOIN job_events j ON j.coord_id = ? AND j.event_id = e.id"
            " JOIN job_queue q ON q.id = j.job_id"
            " WHERE e.kind = 'partition' AND e.key = ? AND e.path = ?",
            (coord_id, key, path),
        ).fetchone()
        if row is not None:
            return int(row[0]), str(row[1])
    return None


def job_event_count(conn: sqlite3.Connection, job_id: int) -> int:
    """How many events the job holds (a count over its index, not the rows)."""
    return int(
        conn.execute("SELECT count(*) FROM job_events WHERE job_id = ?", (job_id,)).fetchone()[0]
    )


def job_events(conn: sqlite3.Connection, job_id: int) -> list[EventRow]:
    rows = conn.execute(
        "SELECT e.id, e.kind, e.key, e.path, e.size, e.time, e.payload FROM job_events j JOIN events e ON e.id = j.event_id"
        " WHERE j.job_id = ? ORDER BY e.id",
        (job_id,),
    )
    return [_event(r) for r in rows]


_FORWARD = {
    "PENDING_TRIGGER": ("PENDING_CONSTRAINT",),
    "PENDING_CONSTRAINT": ("PENDING_LAUNCH", "DISCARDED"),
    "PENDING_LAUNCH": ("LAUNCHED", "DISCARDED"),
}


def move_job(tx: Tx, job: JobRow, state: str, **fields: Any) -> None:
    """Jobs only move forward (seed 004); anything else is a bug, refused loudly."""
    if state not in _FORWARD.get(job.state, ()):
        raise ValueError(f"job {job.id}: {job.state} -> {state} is not a forward move")
    sets = ", ".join(f"{k} = ?" for k in fields)
    extra = f", {sets}" if sets else ""
    tx.conn.execute(
        f"UPDATE job_queue SET state = ?, updated_time = ?, rev = ?{extra} WHERE id = ? AND state = ?",
        (state, tx.now_ms, tx.rev, *fields.values(), job.id, job.state),
    )


def update_job(tx: Tx, job_id: int, **fields: Any) -> None:
    if "crons" in fields:
        fields["crons"] = json.dumps(sorted(fields["crons"]))
    sets = ", ".join(f"{k} = ?" for k in fields)
    tx.conn.execute(
        f"UPDATE job_queue SET {sets}, updated_time = ?, rev = ? WHERE id = ?",
        (*fields.values(), tx.now_ms, tx.rev, job_id),
    )


def move_events(tx: Tx, from_job: int, to_job: int) -> None:
    """Hand a window's events to another job of the same schedule (still once per schedule)."""
    tx.conn.execute("UPDATE job_events SET job_id = ? WHERE job_id = ?", (to_job, from_job))


def release_events(tx: Tx, job_id: int) -> None:
    """Take a job's events back (in the same transaction they are handed out again)."""
    tx.conn.execute("DELETE FROM job_events WHERE job_id = ?", (job_id,))


def delete_job(tx: Tx, job_id: int) -> None:
    tx.conn.execute("DELETE FROM job_queue WHERE id = ?", (job_id,))


def delete_pending_jobs(tx: Tx, coord_id: str) -> list[JobRow]:
    """Suspend: a suspended schedule's pending jobs are deleted (seed 004)."""
    jobs = [
        _job(r)
        for r in tx.conn.execute(
            f"SELECT {_JOB_COLS} FROM job_queue WHERE coord_id = ? AND state IN ('PENDING_TRIGGER', 'PENDING_CONSTRAINT')",
            (coord_id,),
        )
    ]
    tx.conn.execute(
        "DELETE FROM job_queue WHERE coord_id = ? AND state IN ('PENDING_TRIGGER', 'PENDING_CONSTRAINT')",
        (coord_id,),
    )
    return jobs


def event_schedule_ids(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT coord_id FROM event_schedules")]


def jobs_of_action(conn: sqlite3.Connection, coord_id: str, action_id: str) -> list[JobRow]:
    """The queue entries that carried an action, oldest first (a rerun adds one): what
    ``info`` says of how it was launched (forced at its timeout) or discarded. Read through
    the (state, coord_id) index: O(the schedule's fired jobs), never the whole queue."""
    rows = conn.execute(
        f"SELECT {_JOB_COLS} FROM job_queue WHERE state IN"
        " ('PENDING_CONSTRAINT', 'PENDING_LAUNCH', 'LAUNCHED', 'DISCARDED')"
        " AND coord_id = ? AND action_id = ? ORDER BY id",
        (coord_id, action_id),
    )
    return [_job(r) for r in rows]
