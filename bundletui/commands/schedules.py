"""The command side of event schedules (seed 004): registering a schedule in the reverse index,
recording program events as actions end, and suspend / resume semantics.

Every one of these writes in the caller's transaction, so an action's end and the program event
it produces commit together: no event is lost.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bundletui.errors import SpecError
from bundletui.model.apps import CoordinatorApp
from bundletui.model.events import (
    EventSpec,
    Feed,
    TriggerNode,
    event_keys,
    partition_key,
    program_key,
)
from bundletui.spec.decode_events import FLAG_HINT, feed_line, flag_text, group_clash_error
from bundletui.spec.feeds import completed_ms, on_clock, partition_size, partitions
from bundletui.spec.program_loops import add_trigger, firing_programs, loop_error, program_loop
from bundletui.store import events as ev
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import ActionRow, CoordRow

# A schedule in one of these states no longer takes events: its feeds clash with nothing.
FINISHED = ("KILLED", "FAILED", "SUCCEEDED", "DONEWITHERROR", "IGNORED")


@dataclass(frozen=True)
class FeedClash:
    """A feed watching the same path as another schedule's feed with another done-flag."""

    feed: Feed
    index: int  # of the feed in its coordinator (for its line)
    other_name: str
    other_id: str  # "" when the other is a sibling of the same bundle, not submitted yet
    other_flag: str


def feed_clashes(
    conn: sqlite3.Connection, feeds: Sequence[Feed], *, exclude: str | None = None
) -> list[FeedClash]:
    """Feeds of ``feeds`` whose path an unfinished schedule in the store watches with another
    done-flag. Partition events are recorded once per path and handed to every schedule of the
    path, so such a schedule would fire on partitions that lack its own done-flag. (A bundle's
    coordinator is registered when the bundle starts it: one that clashes then fails to submit,
    and the bundle says why.)"""
    out: list[FeedClash] = []
    for i, feed in enumerate(feeds):
        other = ev.other_flag_on(conn, feed.path, feed.done_flag, FINISHED, exclude or "")
        if other is not None:
            coord_id, name, flag = other
            out.append(FeedClash(feed, i, name, coord_id, flag))
    return out


def clash_error(clash: FeedClash, name: str, file: str | None) -> SpecError:
    """One clear error for a clash: the path, both done-flags, the other coordinator."""
    other = f"coordinator [{clash.other_name}]" + (
        f" ({clash.other_id})" if clash.other_id else " of the same bundle"
    )
    return SpecError(
        "E1003",
        f"Invalid coordinator application attributes, feed [{clash.feed.name}] of coordinator "
        f"[{name}] watches {clash.feed.path} with {flag_text(clash.feed.done_flag)}, but "
        f"{other} watches the same path with {flag_text(clash.other_flag)}",
        hint=FLAG_HINT,
        file=file,
        line=feed_line(file, clash.index) if file else None,
    )


def check_schedules(conn: sqlite3.Connection, apps: Iterable[CoordinatorApp]) -> None:
    """Refuse event coordinators (about to be submitted) whose feeds clash with the store's,
    or whose concurrency group another unfinished schedule limits otherwise."""
    for app in apps:
        if app.events is None:
            continue
        clashes = feed_clashes(conn, app.events.feeds)
        if clashes:
            raise clash_error(clashes[0], app.name, app.source or None)
        _check_group(conn, app.events, app.name, app.source or None)


def _check_group(
    conn: sqlite3.Connection, spec: EventSpec, name: str, file: str | None, exclude: str = ""
) -> None:
    """A named concurrency group has one limit: another unfinished schedule of the group with
    another ``max`` is refused, as a feed with another done-flag is."""
    from bundletui.commands.coordinators import app_of

    c = spec.constraints
    if not c.group or c.group_max is None:
        return
    for coord_id in ev.group_members(conn, c.group):
        head = jobs.coord_head(conn, coord_id)
        if coord_id == exclude or head is None or head.status in FINISHED:
            continue
        other = app_of(head, conn).events
        limit = other.constraints.group_max if other is not None else None
        if limit is not None and limit != c.group_max:
            raise group_clash_error(
                name,
                file,
                c.group,
                c.group_max,
                f"coordinator [{head.app_name}] ({coord_id})",
                limit,
            )


# The scope of a bundle's schedules at its submit, before the bundle has an id.
THIS_BUNDLE = ""


def check_store_loops(
    conn: sqlite3.Connection,
    new: Sequence[tuple[str, TriggerNode, str | None]],
    bundle_id: str | None,
    exclude: str = "",
) -> None:
    """New schedules (name, trigger, file), standalone (``bundle_id`` None) or of one bundle
    (:data:`THIS_BUNDLE` at its submit), must not close a ``<program>`` loop with the store's
    unfinished event schedules. Who hears whom is the engine's rule (``_consume_for``): a
    schedule of a bundle hears the coordinators of its bundle and those outside any bundle; a
    standalone one hears every coordinator of the name. A bundle's loops among its own
    schedules are refused by ``validate`` and ``submit``; these are the loops through the
    store, whichever of their schedules comes last."""
    from bundletui.commands.coordinators import app_of

    if not any(next(firing_programs(trigger), None) for _name, trigger, _file in new):
        return  # no loop can pass through a schedule no run's end fires: the store is not read
    triggers: dict[str, TriggerNode] = {}
    scope: dict[str, str | None] = {}
    names: dict[str, str] = {}
    ids: dict[str, str] = {}

    def add(name: str, bundle: str | None, trigger: TriggerNode) -> str:
        key = name if bundle is None else f"{name} ({bundle or 'this bundle'})"
        scope[key], names[key] = bundle, name
        add_trigger(triggers, key, trigger)
        return key

    for head in jobs.unfinished_schedules(conn, exclude, FINISHED):
        other = app_of(head, conn).events
        if other is not None:
            ids.setdefault(add(head.app_name, head.bundle_id, other.trigger), head.id)
    fresh = [(add(name, bundle_id, trigger), trigger, file) for name, trigger, file in new]
    by_name: dict[str, list[str]] = {}
    for key in triggers:
        by_name.setdefault(names[key], []).append(key)

    def hears(key: str, program: str) -> list[str]:
        mine = scope[key]
        return [k for k in by_name.get(program, []) if mine is None or scope[k] in (None, mine)]

    loop = program_loop(triggers, through=[key for key, _t, _f in fresh], hears=hears)
    if loop is not None:
        trigger, file = next((t, f) for key, t, f in fresh if key == loop[0])
        raise loop_error(loop, trigger, file, ids, names)


def landing_warnings(
    apps: Iterable[tuple[CoordinatorApp, str | None]], default_landing: str | Path
) -> list[str]:
    """Feeds outside the landing directory: the engine watches only that directory, so their
    partitions are found by a rescan only (at its start and every 5 minutes). A job that
    names its own ``landing`` is measured against it: that is the directory its engine is
    meant to watch (``run --landing``)."""
    out: list[str] = []
    for app, landing in apps:
        root = Path(landing or default_landing).resolve()
        for feed in app.events.feeds if app.events is not None else ():
            path = Path(feed.path)
            if path == root or path.is_relative_to(root) or path.resolve().is_relative_to(root):
                continue
            out.append(
                f"warning: feed [{feed.name}] of coordinator [{app.name}] watches {feed.path}, "
                f"outside the landing directory {root}: its partitions are found only when the "
                "engine starts and every 5 minutes by a rescan (put the feed under the landing "
                "directory, or run the engine with --landing on a directory that holds it)"
            )
    return out


def register(
    tx: Tx,
    coord_id: str,
    bundle_id: str | None,
    spec: EventSpec,
    events_from: int | None = None,
) -> None:
    """Index the schedule. Partitions already in its feeds are recorded first, so that only
    partitions arriving from now on count as new for it — or from ``events_from`` on, the
    horizon a bundle's start command took (:func:`horizon`) when the engine creates the
    schedule later. A feed on a path that an unfinished schedule watches with another
    done-flag is refused (:func:`feed_clashes`)."""
    clashes = feed_clashes(tx.conn, spec.feeds, exclude=coord_id)
    head = jobs.coord_head(tx.conn, coord_id)
    name, file = (head.app_name, head.app_path) if head is not None else (coord_id, None)
    if clashes:
        raise clash_error(clashes[0], name, file)
    _check_group(tx.conn, spec, name, file, exclude=coord_id)
    check_store_loops(tx.conn, [(name, spec.trigger, file)], bundle_id, exclude=coord_id)
    _record_present(tx, [spec])
    ev.register_schedule(
        tx,
        coord_id,
        bundle_id,
        event_keys(spec),
        [(f.name, f.path, f.done_flag) for f in spec.feeds],
        spec.constraints.group,
        events_from,
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


def suspended(tx: Tx, coord: CoordRow, events_upto: int | None = None) -> None:
    """A suspended schedule's pending jobs are deleted (seed 004); their waiting actions are
    SKIPPED: they will not run, on purpose, so a suspend and resume leaves no error status.
    Its horizon is taken now, or was by a bundle's command (``events_upto``): what landed
    before it and no engine had handed the schedule yet counts after the resume."""
    if events_upto is None:
        events_upto = horizon(tx, [_spec_of(tx, coord)])
    if events_upto is not None:
        ev.suspend_schedule(tx, coord.id, events_upto)
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


def resumed(tx: Tx, coord: CoordRow, events_from: int | None = None) -> None:
    """Resume starts reacting again; what arrived while suspended is ignored: recorded first
    if no engine saw it land (else, found by the engine's next scan, it would count as new).
    ``events_from``: the horizon a bundle's resume command took (:func:`command_horizon`),
    when the engine applies it later; events after it count, and the engine replays them."""
    if events_from is None:
        events_from = horizon(tx, [_spec_of(tx, coord)])
    if events_from is not None:
        ev.resume_schedule(tx, coord.id, events_from)
    ev.set_crons_from(tx, coord.id, tx.now_ms)  # cron times while suspended: not owed


def _spec_of(tx: Tx, coord: CoordRow) -> EventSpec | None:
    from bundletui.commands.coordinators import app_of

    return app_of(coord, tx.conn).events


def command_horizon(tx: Tx, coords: Iterable[CoordRow]) -> int | None:
    """A bundle's suspend or resume reaches its coordinators later, through the engine. Its
    event schedules' horizon is taken now, by the command: what is on disk is recorded first,
    so what lands after the command is on the far side of it, whenever the engine applies it.
    None when no event schedule is among ``coords``."""
    return horizon(tx, [_spec_of(tx, c) for c in coords if c.kind == "event"])


def horizon(tx: Tx, specs: Iterable[EventSpec | None], as_of: int | None = None) -> int | None:
    """The last event that happened before now (or before ``as_of``, a kick-off the engine
    reached late) for these schedules: what is on disk in their feeds is recorded first, so
    that only what lands afterwards counts, whenever the engine gets to the schedules. None
    when there is no event schedule among ``specs``."""
    found = [s for s in specs if s is not None]
    if not found:
        return None
    _record_present(tx, found)
    if as_of is not None and as_of < tx.now_ms:
        return ev.horizon_at(tx.conn, as_of)
    return ev.max_event_id(tx.conn)


def _record_present(tx: Tx, specs: list[EventSpec]) -> None:
    """Record the partitions in the schedules' feeds now (each once: known ones are passed),
    in the order they completed."""
    real_now = int(time.time() * 1000)
    new = [
        (completed_ms(part, feed.done_flag), str(part), feed.path, feed.done_flag, part)
        for spec in specs
        for feed in spec.feeds
        for known in (ev.known_partitions(tx.conn, partition_key(feed.path)),)
        for part in partitions(Path(feed.path), feed.done_flag)
        if str(part) not in known  # recorded before: not sized again (a suspend does this)
    ]
    for completed, text, feed_path, flag, part in sorted(new):
        size = partition_size(part, flag)
        ev.record_partition(tx, feed_path, text, size, on_clock(completed, tx.now_ms, real_now))
