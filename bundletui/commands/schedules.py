"""The command side of event schedules (seed 004): registering a schedule in the reverse index,
recording program events as actions end, and suspend / resume semantics.

Every one of these writes in the caller's transaction, so an action's end and the program event
it produces commit together: no event is lost.
"""

from __future__ import annotations

from pathlib import Path

from bundletui.model.events import EventSpec, event_keys, partition_key, program_key
from bundletui.spec.feeds import scan_partitions
from bundletui.store import events as ev
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import ActionRow, CoordRow


def register(tx: Tx, coord_id: str, bundle_id: str | None, spec: EventSpec) -> None:
    """Index the schedule. Partitions already in its feeds are recorded first, so that only
    partitions arriving from now on count as new for it."""
    for feed in spec.feeds:
        for part, size in scan_partitions(Path(feed.path), feed.done_flag):
            ev.record_event(
                tx,
                "partition",
                partition_key(feed.path),
                str(part),
                size,
                tx.now_ms,
                {"feed": feed.path},
            )
    ev.register_schedule(
        tx,
        coord_id,
        bundle_id,
        event_keys(spec),
        [(f.name, f.path, f.done_flag) for f in spec.feeds],
        spec.constraints.group,
    )


def program_finished(tx: Tx, coord_id: str, action_id: str, status: str) -> None:
    """Record ``program:<coordinator>:<status>`` if some schedule listens on it."""
    row = jobs.coord_name_and_bundle(tx.conn, coord_id)
    if row is None:
        return
    key = program_key(row[0], status)
    if ev.schedules_for(tx.conn, key):
        ev.record_event(
            tx,
            "program",
            key,
            f"{action_id}:{status}:{tx.now_ms}",
            0,
            tx.now_ms,
            {"action": action_id, "coordinator": coord_id, "bundle": row[1], "status": status},
        )


def suspended(tx: Tx, coord: CoordRow) -> None:
    """A suspended schedule's pending jobs are deleted (seed 004); their waiting actions are
    SKIPPED: they will not run, on purpose, so a suspend and resume leaves no error status."""
    for job in ev.delete_pending_jobs(tx, coord.id):
        if job.action_id:
            action = jobs.get(tx.conn, ActionRow, job.action_id)
            if action is not None and action.status in ("WAITING", "READY"):
                from bundletui.commands.coordinators import move_action
                from bundletui.model.transitions import Event

                move_action(
                    tx,
                    action,
                    Event.SKIP,
                    error_code="EB0801",
                    error_message="schedule suspended: pending job deleted",
                )


def resumed(tx: Tx, coord: CoordRow) -> None:
    """Resume starts reacting again; what arrived while suspended is ignored."""
    ev.ignore_events_until_now(tx, coord.id)
