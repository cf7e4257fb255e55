"""Coordinator commands: submit, kill / suspend / resume (job or chosen actions), change, rerun,
ignore — and what follows a status change: the coordinator roll-up and, in the same
transaction, the bundle action's status and pending flag and the bundle's roll-up.

Materialization, input checks and launches are the engine's (engine/coordinators.py); these are
the user-facing moves, each checked against the transition tables.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from bundletui.commands import workflows as wfcmd
from bundletui.commands.base import Ctx, fail, run
from bundletui.commands.effects import Effects
from bundletui.errors import CommandError, QueuedError
from bundletui.model import codec
from bundletui.model.apps import CoordinatorApp
from bundletui.model.clock import from_ms, to_ms
from bundletui.model.ids import JobKind
from bundletui.model.java import JAVA_INT_MAX, parse_java_int
from bundletui.model.paths import parse_local_path, sweep_refusal
from bundletui.model.rollup import CoordRollupInput, coord_rollup
from bundletui.model.status import (
    ACTION_ACTIVE,
    ACTION_TERMINAL,
    COORD_UNCHANGEABLE,
    ActionStatus,
    JobStatus,
    WorkflowStatus,
)
from bundletui.model.timeutil import (
    TimeError,
    format_oozie_time,
    option_time,
    parse_oozie_time,
    skip_deadline_ms,
)
from bundletui.model.transitions import Event, Machine, allowed, decide
from bundletui.store import jobs
from bundletui.store.db import Store, Tx

if TYPE_CHECKING:
    from bundletui.spec.load import Loaded

from bundletui.store.rows import ActionRow, CoordRow, WorkflowRow

log = logging.getLogger("bundletui.commands")
J = JobStatus
A = ActionStatus
W = WorkflowStatus

BACKWARD_SUPPORT = False  # Oozie's default is True; the seed shows the *WITHERROR states
_app_cache: dict[tuple[str, int, str], CoordinatorApp] = {}
_conf_cache: dict[tuple[str, int, str], Mapping[str, str]] = {}


def _key(coord: CoordRow) -> tuple[str, int, str]:
    # An id is unique within a store; with the creation time and path also across the stores
    # one process may open (tests, benches). The definition never changes after submit.
    return (coord.id, coord.created_time, coord.app_path)


def app_of(coord: CoordRow, conn: sqlite3.Connection | None = None) -> CoordinatorApp:
    """The coordinator's resolved definition, one object per coordinator (the EL compiler
    caches per object, so materializing many actions compiles once). ``coord`` may be a head
    row (no app text): then it is read through ``conn`` once."""
    key = _key(coord)
    app = _app_cache.get(key)
    if app is None:
        if len(_app_cache) > 20_000:
            _app_cache.clear()
        if not coord.app and conn is None:
            raise ValueError(f"app_of({coord.id}): a head row needs a connection")
        text = coord.app or jobs.coord_text(conn, coord.id, "app")
        app = _app_cache[key] = _decoded_app(text)
    return app


def skip_deadline(coord: CoordRow, app: CoordinatorApp, action: ActionRow) -> int | None:
    """When ``action`` is SKIPPED if it has not started (LAST_ONLY, NONE; None otherwise):
    what the engine times and ``info`` says, from one place."""
    return skip_deadline_ms(
        coord.execution,
        action.action_number,
        action.nominal_time,
        app.start,
        from_ms(coord.end_time),
        app.frequency,
        app.timezone,
    )


def conf_of(coord: CoordRow, conn: sqlite3.Connection | None = None) -> Mapping[str, str]:
    """The coordinator's job configuration, one read-only object per coordinator."""
    key = _key(coord)
    conf = _conf_cache.get(key)
    if conf is None:
        if len(_conf_cache) > 20_000:
            _conf_cache.clear()
        if coord.conf in ("", "{}") and conn is None:
            raise ValueError(f"conf_of({coord.id}): a head row needs a connection")
        text = (
            coord.conf if coord.conf not in ("", "{}") else jobs.coord_text(conn, coord.id, "conf")
        )
        conf = _conf_cache[key] = _decoded_conf(text)
    return conf


# Coordinators submitted from one definition share one decoded app and one conf object, so
# the EL compiler (cached per object) compiles their definition once.
@lru_cache(maxsize=2048)
def _decoded_app(text: str) -> CoordinatorApp:
    return codec.loads(text, CoordinatorApp)


@lru_cache(maxsize=2048)
def _decoded_conf(text: str) -> Mapping[str, str]:
    return MappingProxyType(dict(json.loads(text or "{}")))


# ----------------------------------------------------------------------------- submit


def create_coordinator_tx(
    tx: Tx,
    store: Store,
    effects: Effects,
    loaded: Loaded,
    *,
    bundle_id: str | None = None,
    pause_time: int | None = None,
    status: str | None = None,
    events_from: int | None = None,
) -> str:
    """``status``: the one a bundle's child is born in (PREPSUSPENDED in a suspended bundle),
    else the table's for a submit; ``events_from``: an event schedule's horizon, when a
    bundle's start command took it."""
    app: CoordinatorApp = loaded.app
    coord_id = store.next_id(tx, JobKind.COORDINATOR, loaded.user)
    created = decide(Machine.COORDINATOR, None, Event.SUBMIT).to
    jobs.insert(
        tx,
        CoordRow,
        {
            "id": coord_id,
            "app_name": app.name,
            "app_path": loaded.app_path,
            "bundle_id": bundle_id,
            "external_id": loaded.external_id if bundle_id is None else None,
            "user": loaded.user,
            "kind": "event" if app.events is not None else "time",
            "status": status or created,
            "frequency": app.frequency.json_frequency,
            "time_unit": app.frequency.json_time_unit,
            "timezone": app.timezone,
            "execution": str(app.controls.execution),
            "concurrency": app.controls.concurrency,
            "timeout": app.controls.timeout,
            "throttle": app.controls.throttle,
            "priority": app.events.priority if app.events is not None else 0,
            "start_time": to_ms(app.start),
            "end_time": to_ms(app.end),
            "pause_time": pause_time,
            "created_time": tx.now_ms,
            "conf": json.dumps(dict(loaded.conf)),
            "definition": loaded.definition,
            "app": codec.dumps(app),
        },
    )
    if app.events is not None:
        from bundletui.commands.schedules import register

        register(tx, coord_id, bundle_id, app.events, events_from)
    effects.wake_coordinator(tx, coord_id)
    return coord_id


def submit(ctx: Ctx, loaded: Loaded) -> str:
    def body(tx: Tx) -> str:
        ctx.reused = None
        if loaded.external_id:
            existing = jobs.job_by_external_id(tx.conn, CoordRow, loaded.external_id)
            if existing is not None:
                ctx.reused = existing.id
                return existing.id
        return create_coordinator_tx(tx, ctx.store, ctx.effects, loaded)

    return run(
        ctx, "submit", None, {"app_path": loaded.app_path, "external_id": loaded.external_id}, body
    )


def load(tx: Tx, coord_id: str) -> CoordRow:
    row = jobs.coord_head(tx.conn, coord_id)
    if row is None:
        raise fail(
            "E0604", coord_id, hint="list coordinators with: bundletui jobs --type coordinator"
        )
    return row


# ----------------------------------------------------------------------------- status changes


def action_timeout_at(coord: CoordRow, nominal_ms: int, created_ms: int) -> int | None:
    """When a WAITING action times out: ``timeout`` minutes from max(nominal, created)
    (oozie.md §2.4); never with a negative timeout."""
    if coord.timeout < 0:
        return None
    return max(nominal_ms, created_ms) + (coord.timeout + 1) * 60_000


# An outbox item for the engine: an ended event schedule is running again, its feeds to be
# looked at on disk (they were not watched while it was ended).
FEEDS_LIVE_AGAIN = "events.feeds_live_again"


def set_status(tx: Tx, effects: Effects, coord: CoordRow, status: str, **fields: Any) -> CoordRow:
    """Write a coordinator's new status and pass it up to its bundle (seed: BundleStatusUpdateXCommand)."""
    jobs.update(tx, CoordRow, coord.id, status=status, **fields)
    updated = jobs.updated(tx, coord, status=status, **fields)
    if coord.bundle_id and status != coord.status:
        from bundletui.commands.bundles import coordinator_changed

        coordinator_changed(tx, effects, updated)
    if coord.kind == "event":
        from bundletui.commands.schedules import FINISHED

        if coord.status in FINISHED and status not in FINISHED:
            # taken back to running (a later end time, status=RUNNING, a rerun): the engine
            # rescans its feeds when it applies this, whichever process ran the command —
            # what landed while it was ended counts, as the start-up rescan counts what
            # landed while no engine ran
            effects.child_command(tx, FEEDS_LIVE_AGAIN, coord.id)
    return updated


def rollup_tx(tx: Tx, effects: Effects, coord_id: str, coord: CoordRow | None = None) -> CoordRow:
    """Recompute the coordinator's status from its actions (oozie.md §2.3), same transaction.
    ``coord``: the row as this transaction last wrote it, when the caller holds it."""
    return _rollup(tx, effects, coord_id, coord)[0]


def _rollup(
    tx: Tx, effects: Effects, coord_id: str, coord: CoordRow | None = None
) -> tuple[CoordRow, dict[ActionStatus, int]]:
    """:func:`rollup_tx`, and the action counts it was computed from."""
    if coord is None:
        coord = jobs.must_coord_head(tx.conn, coord_id)
    counts = {ActionStatus(k): v for k, v in jobs.action_counts(tx.conn, coord_id).items()}
    new = coord_rollup(
        CoordRollupInput(
            status=JobStatus(coord.status),
            counts=counts,
            done_materialization=bool(coord.done_materialization),
            pending=bool(coord.pending),
        ),
        backward_support=BACKWARD_SUPPORT,
    )
    if new is None:
        return coord, counts
    return set_status(tx, effects, coord, new), counts


def move_action(
    tx: Tx, action: ActionRow, event: Event, *, insert: dict[str, Any] | None = None, **fields: Any
) -> str:
    """``insert``: the action is not written yet (a launch at creation): these are its values,
    and it is written once, in its new state."""
    t = decide(Machine.ACTION, action.status, event, action.id)
    if insert is None:
        jobs.update(tx, ActionRow, action.id, status=t.to, **fields)
    else:
        jobs.insert(tx, ActionRow, {**insert, "status": t.to, **fields})
    if t.to in (A.SUCCEEDED, A.FAILED, A.KILLED):
        from bundletui.commands.schedules import program_finished

        program_finished(tx, action.coord_id, action.id, t.to)  # for event schedules listening
    return t.to


def action_workflow_changed(tx: Tx, effects: Effects, act_id: str, wf: WorkflowRow) -> None:
    """A coordinator action follows the workflow it launched (oozie.md §2.4)."""
    action = jobs.get(tx.conn, ActionRow, act_id)
    if action is None or action.external_id != wf.id:
        return
    event = {
        W.SUCCEEDED: Event.SUCCEED,
        W.FAILED: Event.FAIL,
        W.KILLED: Event.KILL,
        W.SUSPENDED: Event.SUSPEND,
        W.RUNNING: Event.RESUME,
    }.get(WorkflowStatus(wf.status))
    if event is None or not allowed(Machine.ACTION, action.status, event):
        return  # e.g. an action that ended already, or a resume of one that was not suspended
    fields: dict[str, Any] = {}
    if event is Event.FAIL:
        fields = {
            "error_code": wf.error_code or "E0711",
            "error_message": wf.error_message or f"workflow {wf.id} failed",
        }
    to = move_action(tx, action, event, **fields)
    coord, counts = _rollup(tx, effects, action.coord_id)
    if to not in ACTION_TERMINAL or coord.kind == "event" or counts.get(A.READY):
        effects.wake_coordinator(tx, action.coord_id)
    # else a freed slot has nothing to take and the roll-up is done: a pass would find
    # nothing to do (materialization is timed by the heap; throttle counts WAITING only)
    if event is Event.SUCCEED:
        _outputs_written(tx, effects, action)


def _outputs_written(tx: Tx, effects: Effects, action: ActionRow) -> None:
    """The action wrote its data-out partitions: actions waiting on them get their input check
    now (``held_by`` cleared = not checked yet), in this transaction, not when — or if — a file
    event arrives: one may be lost while a watcher starts, and a simulated clock does not wait
    for events."""
    stored = json.loads(action.plan or "{}")
    uris = [u for d in (stored.get("plan") or {}).get("data_outs", []) for u in d["uris"]]
    readers: set[str] = set()
    for uri in uris:
        readers.update(jobs.waiting_on(tx.conn, uri))
        readers.update(aid for aid, _path in jobs.waiting_under(tx.conn, uri))
    if not readers:
        return
    coords = set()
    for reader in jobs.waiting_actions(tx.conn, readers):
        jobs.update(tx, ActionRow, reader.id, held_by=None)
        coords.add(reader.coord_id)
    for coord_id in sorted(coords):
        effects.wake_coordinator(tx, coord_id)


# ----------------------------------------------------------------------------- scopes


MAX_ACTION_NUMBER = 2**31 - 1  # Oozie's action numbers are Java ints


def parse_action_scope(text: str, upto: int | None = None, coord_id: str = "") -> list[int]:
    """``1,3-4,7-40`` -> [1, 3, 4, 7, …, 40]. ``upto``: the highest number ``coord_id`` has;
    a range reaching past it is an error before it is spelled out (``1-999999999``)."""
    numbers: list[int] = []
    for part in _scope_items(text, "action scope", "1,3-4"):
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise CommandError(
                "E0302",
                f"Invalid parameter [action scope {text}]",
                hint="use numbers and ranges, e.g. 1,3-4",
                usage=True,
            ) from None
        if a > b or a < 1 or b > MAX_ACTION_NUMBER:
            raise CommandError(
                "E0302",
                f"Invalid parameter [action range {part}]",
                hint=f"ranges go low-high, from 1 to at most {MAX_ACTION_NUMBER}",
                usage=True,
            )
        if upto is not None and b > upto:
            raise CommandError(
                "E0605",
                f"Action does not exist [{coord_id}@{max(a, upto + 1)}]",
                hint=f"the coordinator has {upto} actions",
            )
        numbers.extend(range(a, b + 1))
    if not numbers:
        raise CommandError(
            "E0302",
            f"Invalid parameter [action scope {text!r}]",
            hint="give action numbers and ranges, e.g. 1,3-4",
            usage=True,
        )
    return numbers


def _scope_items(text: str, what: str, example: str) -> list[str]:
    """The comma-separated items of a scope, as Oozie's ``split(",")`` gives them: "1,2," is
    1,2 (Java drops trailing empty strings), "1,,2" or ",1" has an empty item, which Oozie's
    parse of it refuses (E0302)."""
    parts = [p.strip() for p in text.split(",")]
    while parts and not parts[-1]:
        parts.pop()
    if "" in parts:
        raise CommandError(
            "E0302",
            f"Invalid parameter [{what} {text}]: an empty item",
            hint=f"separate the items with single commas, e.g. {example}",
            usage=True,
        )
    return parts


def parse_date_scope(text: str) -> list[tuple[datetime, datetime]]:
    """``d1::d2,d3`` -> inclusive nominal-time ranges."""
    return [(a, b) for a, b, _ranged in _date_parts(text)]


def _date_parts(text: str) -> list[tuple[datetime, datetime, bool]]:
    """Each part of a date scope, and whether it was a ``d1::d2`` range (Oozie's rerun takes
    a range's ended actions only, a single date's action whatever it is)."""
    out = []
    example = "2009-01-01T01:00Z::2009-01-01T05:00Z,2009-01-02T01:00Z"
    for part in _scope_items(text, "date scope", example):
        lo, sep, hi = part.partition("::")
        a = option_time(lo, "date scope")
        b = option_time(hi, "date scope") if sep else a
        if a > b:
            raise CommandError(
                "E0302",
                f"Invalid parameter [date range {part}]",
                hint="the first date must not be after the second",
                usage=True,
            )
        out.append((a, b, bool(sep)))
    return out


# what a ``d1::d2`` range of a rerun takes (Oozie's GET_TERMINATED_ACTIONS_FOR_DATES): the
# actions still in flight are passed over, and SKIPPED ones too (only named ones rerun)
_RERUN_RANGE = (A.TIMEDOUT, A.SUCCEEDED, A.KILLED, A.FAILED, A.IGNORED)


def select_actions(
    conn: sqlite3.Connection,
    coord: CoordRow,
    *,
    actions: str | None = None,
    dates: str | None = None,
    active: bool = False,
    ended: bool = False,
) -> list[ActionRow]:
    """The actions a scope names, each once, by number. ``active``: a date scope takes only
    those not yet ended, as Oozie's kill does (GET_ACTIVE_ACTIONS_FOR_DATES), so "kill
    today's pending hours" works when some have run; numbers given one by one are taken as
    named (one that has ended is refused by the command). ``ended``: a ``d1::d2`` range
    takes only the actions a rerun takes from it, as Oozie's rerun does
    (GET_TERMINATED_ACTIONS_FOR_DATES), so "rerun yesterday" works while today's hour runs;
    a single date is taken as named."""
    if actions is not None and dates is not None:
        raise CommandError(
            "E0302",
            "Invalid parameter [both an action and a date scope]",
            hint="give exactly one of --action 1,3-4 or --date d1::d2",
            usage=True,
        )
    if actions is None and dates is None:
        raise CommandError(
            "E0305",
            "Missing parameter [action or date scope]",
            hint="give exactly one of --action 1,3-4 or --date d1::d2",
            usage=True,
        )
    if actions is not None:
        numbers = parse_action_scope(actions, coord.last_action_number, coord.id)
        rows = jobs.actions_by_numbers(conn, coord.id, numbers)
        found = {r.action_number for r in rows}
        missing = [n for n in numbers if n not in found]
        if missing:
            raise CommandError(
                "E0605",
                f"Action does not exist [{coord.id}@{missing[0]}]",
                hint=f"{coord.id} has {coord.last_action_number} actions",
            )
        return rows
    found_by_id: dict[str, ActionRow] = {}
    ranges = _date_parts(dates or "")
    if not ranges:
        raise CommandError(
            "E0302",
            f"Invalid parameter [date scope {dates!r}]",
            hint="give nominal times and ranges, e.g. 2026-01-01T00:00Z::2026-01-02T00:00Z",
            usage=True,
        )
    for a, b, ranged in ranges:  # ranges may overlap: an action is taken once
        only: tuple[str, ...] = (
            ACTION_ACTIVE if active else (_RERUN_RANGE if ended and ranged else ())
        )
        for row in jobs.actions_between(conn, coord.id, to_ms(a), to_ms(b), only):
            found_by_id.setdefault(row.id, row)
    if not found_by_id:
        ranged = any(r for _a, _b, r in ranges)
        which = (
            " that has not ended yet" if active else (" that has ended" if ended and ranged else "")
        )
        raise CommandError(
            "E0605",
            f"no action of {coord.id}{which} has a nominal time in [{dates}]",
            hint="check the dates with: bundletui info " + coord.id,
        )
    return sorted(found_by_id.values(), key=lambda r: r.action_number)


# ----------------------------------------------------------------------------- kill / suspend / resume


def _kill_action(tx: Tx, effects: Effects, action: ActionRow) -> None:
    move_action(tx, action, Event.KILL)
    if action.trigger and action.status == A.WAITING:
        # an event job held by its constraints is over with its action: said now, not when
        # an engine next looks at it (``info`` showed it still PENDING_CONSTRAINT)
        from bundletui.store import events as event_store

        held = event_store.held_job_of(tx.conn, action.id)
        job = event_store.get_job(tx.conn, held) if held is not None else None
        if job is not None:
            event_store.move_job(tx, job, "DISCARDED", held_by="action KILLED")
    if action.external_id:
        wf = jobs.get(tx.conn, WorkflowRow, action.external_id)
        if wf is not None and allowed(Machine.WORKFLOW, wf.status, Event.KILL):
            wfcmd.kill_tx(tx, effects, wf)


def kill_tx(tx: Tx, effects: Effects, coord: CoordRow) -> None:
    t = decide(Machine.COORDINATOR, coord.status, Event.KILL, coord.id)
    for action in jobs.active_actions(tx.conn, coord.id):
        _kill_action(tx, effects, action)
    set_status(tx, effects, coord, t.to, done_materialization=1, pending=0)


def kill_actions_tx(
    tx: Tx, effects: Effects, coord: CoordRow, rows: Iterable[ActionRow]
) -> list[str]:
    if coord.status in (J.FAILED, J.KILLED):
        raise fail("E1020", coord.id)
    killed = []
    for action in rows:
        _kill_action(tx, effects, action)
        killed.append(action.id)
    rollup_tx(tx, effects, coord.id)
    effects.wake_coordinator(tx, coord.id)
    return killed


def suspend_tx(
    tx: Tx,
    effects: Effects,
    coord: CoordRow,
    *,
    freeze: bool = False,
    events_upto: int | None = None,
) -> None:
    """``freeze``: the running workflows are frozen (SIGSTOP), as ``suspend WF --freeze``;
    ``events_upto``: an event schedule's horizon, taken by a bundle's suspend command."""
    t = decide(Machine.COORDINATOR, coord.status, Event.SUSPEND, coord.id)
    for action in jobs.running_actions(tx.conn, coord.id):
        move_action(tx, action, Event.SUSPEND)
        wf = jobs.get(tx.conn, WorkflowRow, action.external_id or "")
        if wf is not None and wf.status == W.RUNNING:
            wfcmd.suspend_tx(tx, effects, wf, freeze=freeze)
    if coord.kind == "event":
        from bundletui.commands.schedules import suspended

        suspended(tx, coord, events_upto)
    set_status(tx, effects, coord, t.to, suspended_time=tx.now_ms)


def resume_tx(tx: Tx, effects: Effects, coord: CoordRow, events_from: int | None = None) -> None:
    """``events_from``: an event schedule's horizon, taken by a bundle's resume command."""
    t = decide(Machine.COORDINATOR, coord.status, Event.RESUME, coord.id)
    for action in jobs.suspended_actions(tx.conn, coord.id):
        move_action(tx, action, Event.RESUME)
        wf = jobs.get(tx.conn, WorkflowRow, action.external_id or "")
        if wf is not None and wf.status == W.SUSPENDED:
            wfcmd.resume_tx(tx, effects, wf)
    if coord.kind == "event":
        from bundletui.commands.schedules import resumed

        resumed(tx, coord, events_from)
    set_status(tx, effects, coord, t.to, suspended_time=None)

    effects.wake_coordinator(tx, coord.id)  # catch up: actions are delayed, not lost


def kill(
    ctx: Ctx, coord_id: str, *, actions: str | None = None, dates: str | None = None
) -> list[str]:
    def body(tx: Tx) -> list[str]:
        coord = load(tx, coord_id)
        if actions is not None or dates is not None:  # a scope given empty kills nothing
            rows = select_actions(tx.conn, coord, actions=actions, dates=dates, active=True)
            return kill_actions_tx(tx, ctx.effects, coord, rows)
        kill_tx(tx, ctx.effects, coord)
        return []

    return run(ctx, "kill", coord_id, {"action": actions, "date": dates}, body)


def hold_actions(
    ctx: Ctx,
    coord_id: str,
    *,
    resume: bool = False,
    actions: str | None = None,
    dates: str | None = None,
    freeze: bool = False,
) -> list[str]:
    """Suspend (or resume) chosen actions: their workflows, which the actions follow (Oozie's
    console suspends an action's workflow). Each must be running (or suspended); one that is
    not refuses the command, with nothing changed."""
    command = "resume" if resume else "suspend"
    event = Event.RESUME if resume else Event.SUSPEND
    want = A.SUSPENDED if resume else A.RUNNING  # the one status the table takes it from

    def body(tx: Tx) -> list[str]:
        coord = load(tx, coord_id)
        rows = select_actions(tx.conn, coord, actions=actions, dates=dates)
        for action in rows:
            wf = jobs.get(tx.conn, WorkflowRow, action.external_id or "")
            if wf is None or not allowed(Machine.ACTION, action.status, event):
                raise fail(
                    "E1100",
                    f"{command} of {action.id}: it is {action.status}",
                    hint=f"{command} applies to {want} actions; bundletui info {coord_id} "
                    "lists them",
                )
            if resume:
                wfcmd.resume_tx(tx, ctx.effects, wf)
            else:
                wfcmd.suspend_tx(tx, ctx.effects, wf, freeze=freeze)
        rollup_tx(tx, ctx.effects, coord.id)
        return [r.id for r in rows]

    args = {"action": actions, "date": dates, **({"freeze": True} if freeze else {})}
    return run(ctx, command, coord_id, args, body)


# ----------------------------------------------------------------------------- change


CHANGE_KEYS = ("endtime", "concurrency", "pausetime", "status")
_CHANGE_EXAMPLES = {
    "endtime": "2026-01-01T00:00Z",
    "pausetime": "2026-01-01T00:00Z",
    "concurrency": "2",
    "status": "RUNNING",
}


def parse_change(value: str, allowed: Iterable[str], code: str, job_id: str) -> dict[str, str]:
    allowed = tuple(allowed)
    # Oozie's templates: E1015 "Invalid coordinator job change value {0}, {1}", E1317 the bundle's
    said = f"Invalid {'bundle' if code == 'E1317' else 'coordinator'} job change value {value}"
    out: dict[str, str] = {}
    for part in (p for p in value.split(";") if p.strip()):
        key, sep, val = part.partition("=")
        key = key.strip().lower()
        if not sep and key in allowed:
            example = _CHANGE_EXAMPLES[key]
            raise CommandError(
                code,
                f"{said}, {key} needs a value",
                hint=f"--value '{key}={example}'"
                + ("; an empty pausetime= clears it" if key == "pausetime" else ""),
                usage=True,
            )
        if not sep or key not in allowed:
            raise CommandError(
                code,
                f"{said}, unknown key [{key}]",
                hint=f"keys: {', '.join(allowed)}; e.g. --value 'pausetime=2026-01-01T00:00Z'",
                usage=True,
            )
        if key in out:
            raise CommandError(
                code,
                f"{said}, [{key}] given twice",
                hint="give each key once",
                usage=True,
            )
        out[key] = val.strip()
    if not out:
        raise CommandError(
            code,
            f"{said}, nothing to change for {job_id}",
            hint="e.g. 'endtime=2026-12-31T00:00Z;concurrency=2'",
            usage=True,
        )
    return out


def change_time(changes: dict[str, str], key: str, value: str, code: str, kind: str) -> int:
    """A time in a ``change`` value, its error said as the change's own (E1015 for a
    coordinator, E1317 for a bundle), not as a coordinator XML's attribute (E1003)."""
    try:
        return to_ms(parse_oozie_time(changes[key], what=key))
    except TimeError as exc:
        raise CommandError(
            code,
            f"Invalid {kind} job change value {value}, {key}: {exc.detail}",
            hint=exc.hint,
            usage=True,
        ) from None


def change_tx(
    tx: Tx, effects: Effects, coord: CoordRow, value: str, *, as_of: int | None = None
) -> None:
    """``endtime=…;concurrency=…;pausetime=…;status=RUNNING`` with oozie.md §2.5 / §1.5 rules.
    ``as_of``: when a bundle's change command was accepted; the engine applies it to each
    coordinator later (after a restart, much later), and a pause time that was ahead of the
    command must not be refused as past then."""
    changes = parse_change(value, CHANGE_KEYS, "E1015", coord.id)
    before = coord.status
    for key, val in changes.items():
        if val == "" and key != "pausetime":
            raise CommandError(
                "E1015",
                f"Invalid coordinator job change value {value}, {key} needs a value",
                hint=f"{key}=<value>",
                usage=True,
            )
    if coord.status in COORD_UNCHANGEABLE and set(changes) - {"status"}:
        raise fail(  # Oozie's one template for both: the hint says which it is
            "E1016",
            hint=f"{coord.id} is {coord.status}: only status=RUNNING can change a killed or "
            "ignored coordinator",
        )
    now = tx.now_ms if as_of is None else min(as_of, tx.now_ms)
    if changes.get("status", "").upper() == "IGNORED":  # what ``ignore C`` does (oozie.md §2.3)
        if coord.pending or not allowed(Machine.COORDINATOR, coord.status, Event.IGNORE):
            raise CommandError(  # Oozie's CoordChangeXCommand words
                "E1015",
                f"Invalid coordinator job change value {value}, Only FAILED or KILLED "
                f"non-pending job can be changed to IGNORED. Current job status is "
                f"{coord.status} and pending is {str(bool(coord.pending)).lower()}",
                hint="ignore a FAILED or KILLED coordinator once the engine has run its "
                "commands; its ended actions: bundletui ignore ID --action N",
            )
        t = decide(Machine.COORDINATOR, coord.status, Event.IGNORE, coord.id)
        coord = set_status(tx, effects, coord, t.to)
    elif "status" in changes:
        if changes["status"].upper() != "RUNNING":
            raise CommandError(
                "E1015",
                f"Invalid coordinator job change value {value}, status must be RUNNING or IGNORED",
                hint="status=RUNNING (a FAILED, KILLED or IGNORED coordinator) or "
                "status=IGNORED (a FAILED or KILLED one)",
                usage=True,
            )
        if not allowed(Machine.COORDINATOR, coord.status, Event.CHANGE_STATUS_RUNNING):
            raise CommandError(
                "E1015",
                f"Invalid coordinator job change value {value}, Only FAILED, KILLED, IGNORED "
                f"job can be changed to RUNNING. Current job status is {coord.status}",
                hint="status=RUNNING brings back a coordinator that was killed, failed or "
                "ignored; a running one needs no change",
            )
        t = decide(Machine.COORDINATOR, coord.status, Event.CHANGE_STATUS_RUNNING, coord.id)
        nxt = coord.next_materialized_time
        if nxt is None and coord.last_action_number == 0:
            nxt = coord.start_time  # killed before its first materialization: it starts now
        coord = set_status(
            tx,
            effects,
            coord,
            t.to,
            done_materialization=0
            if nxt is not None and nxt < coord.end_time
            else coord.done_materialization,
            error_code=None,  # a failed materialization is tried again
            error_message=None,
        )
    if "concurrency" in changes:
        concurrency = parse_java_int(changes["concurrency"])
        if concurrency is None:  # Oozie's Integer.parseInt
            whole = re.fullmatch(r"[+-]?\d+", changes["concurrency"].strip())
            raise CommandError(
                "E1015",
                f"Invalid coordinator job change value {value}, concurrency "
                + ("is out of range" if whole else "must be an integer"),
                hint=f"concurrency=2 (a whole number up to {JAVA_INT_MAX})",
                usage=True,
            )
        if coord.kind == "event" and (concurrency == 0 or concurrency < -1):
            # its <concurrency max> is at least 1: 0 would hold every fired job for ever
            raise CommandError(
                "E1015",
                f"Invalid coordinator job change value {value}, an event schedule's concurrency "
                "is at least 1, or -1 for no limit",
                hint="concurrency=1",
            )
        jobs.update(tx, CoordRow, coord.id, concurrency=concurrency)
    if "endtime" in changes:
        end = change_time(changes, "endtime", value, "E1015", "coordinator")
        _delete_unstarted(tx, coord, end)
        fields: dict[str, Any] = {"end_time": end}
        next_mat = coord.next_materialized_time
        fields["done_materialization"] = (
            1 if (next_mat is not None and next_mat >= end) or end <= coord.start_time else 0
        )
        if fields["done_materialization"] == 0 and allowed(
            Machine.COORDINATOR, coord.status, Event.CHANGE_END
        ):
            t = decide(Machine.COORDINATOR, coord.status, Event.CHANGE_END, coord.id)
            coord = set_status(tx, effects, coord, t.to, **fields)
        else:
            jobs.update(tx, CoordRow, coord.id, **fields)
    if "pausetime" in changes:
        raw = changes["pausetime"]
        if raw:
            pause = change_time(changes, "pausetime", value, "E1015", "coordinator")
            if pause < now:
                raise CommandError(
                    "E1015",
                    f"Invalid coordinator job change value {value}, pausetime must be a non-past time",
                    hint=f"now is {format_oozie_time(from_ms(now))}",
                )
            _delete_unstarted(tx, coord, pause)
        else:
            pause = None
        jobs.update(tx, CoordRow, coord.id, pause_time=pause)
        current = jobs.must_coord_head(tx.conn, coord.id)
        if (pause is None or pause > now) and allowed(
            Machine.COORDINATOR, current.status, Event.UNPAUSE
        ):
            t = decide(Machine.COORDINATOR, current.status, Event.UNPAUSE, coord.id)
            set_status(tx, effects, current, t.to)
    rollup_tx(tx, effects, coord.id)
    if "status" in changes:
        after = jobs.must_coord_head(tx.conn, coord.id)
        if after.status == before:  # rolled straight back: say so, change nothing
            move = " or move its end (--value endtime=…)" if before == J.FAILED else ""
            raise CommandError(
                "E1015",
                f"Invalid coordinator job change value {value}: {coord.id} has nothing left to"
                f" run (every action has ended and no nominal time is left before its end), so"
                f" it would be {before} again at once",
                hint=f"rerun actions (bundletui rerun {coord.id} --action 1-"
                f"{after.last_action_number}){move}",
            )
    effects.wake_coordinator(tx, coord.id)


def _delete_unstarted(tx: Tx, coord: CoordRow, limit_ms: int) -> None:
    """WAITING/READY actions at or after the new end/pause are deleted; others are an error (E1022)."""
    rows = jobs.actions_from(tx.conn, coord.id, limit_ms)
    busy = [r for r in rows if r.status not in (A.WAITING, A.READY)]
    if busy:
        raise fail(
            "E1022", busy[0].id, hint=f"{busy[0].id} is {busy[0].status}; choose a time after it"
        )
    if rows:
        jobs.delete_actions_from(tx, coord.id, limit_ms)
        first = min(r.action_number for r in rows)
        jobs.update(
            tx,
            CoordRow,
            coord.id,
            last_action_number=first - 1,
            next_materialized_time=min(r.nominal_time for r in rows),
            done_materialization=0,
        )


def change(ctx: Ctx, coord_id: str, value: str) -> None:
    run(
        ctx,
        "change",
        coord_id,
        {"value": value},
        lambda tx: change_tx(tx, ctx.effects, load(tx, coord_id), value),
    )


# ----------------------------------------------------------------------------- rerun / ignore


def rerun_rows(
    tx: Tx, coord: CoordRow, *, actions: str | None = None, dates: str | None = None
) -> list[ActionRow]:
    """The actions a rerun would take, or why it is refused (a bundle rerun checks its
    coordinators with this before it queues anything)."""
    if coord.status in (J.PREP, J.PREPSUSPENDED, J.PREPPAUSED):
        raise CommandError.from_template(
            "E1018", f"coordinator {coord.id} is {coord.status}: no actions are materialized"
        )
    if coord.status == J.IGNORED:
        raise CommandError.from_template(
            "E1018",
            f"coordinator {coord.id} is IGNORED",
            hint=f"bring it back first: bundletui change {coord.id} --value status=RUNNING",
        )
    try:
        rows = select_actions(tx.conn, coord, actions=actions, dates=dates, ended=True)
    except CommandError as exc:
        if exc.code != "E0605" or "::" not in (dates or ""):
            raise  # a single date names its action: none there is E0605
        raise CommandError(
            "E1018",
            f"Coord Job Rerun Error: {exc.message}: nothing to rerun",
            hint=f"a date range reruns the actions in it that have ended; see them with: "
            f"bundletui info {coord.id}",
        ) from None
    # what a rerun takes when named (Oozie's isTerminalStatus): the action table's RERUN rows
    not_done = [r for r in rows if not allowed(Machine.ACTION, r.status, Event.RERUN)]
    if not_done:
        raise CommandError(
            "E1018",
            f"Coord Job Rerun Error: part or all actions are not eligible to rerun! ({not_done[0].id} is {not_done[0].status})",
            hint="only actions that have ended can be rerun (TIMEDOUT, SUCCEEDED, KILLED, "
            "FAILED, IGNORED or SKIPPED); a date range d1::d2 passes over the others",
        )
    return rows


# in an action's run configuration: its next launch re-runs the failed nodes of its workflow
RERUN_FAILNODES = "oozie.wf.rerun.failnodes"


def rerun_tx(
    tx: Tx,
    effects: Effects,
    coord: CoordRow,
    *,
    actions: str | None = None,
    dates: str | None = None,
    refresh: bool = False,
    nocleanup: bool = False,
    failed: bool = False,
    conf: dict[str, str] | None = None,
    notes: list[str] | None = None,
) -> list[str]:
    """``conf``: properties laid over each action's run configuration when it starts again
    (oozie.md §2.6's ``-config``); they hold for this re-run, a later one computes it afresh.
    ``notes``: gets, for the face to tell, each action LAST_ONLY / NONE will skip at once."""
    rows = rerun_rows(tx, coord, actions=actions, dates=dates)
    if conf:  # expanded now, over the job's properties, as a workflow rerun's: errors here
        from bundletui.spec.config import expand_conf

        expanded = expand_conf({**coord.conf_dict(), **conf})
        conf = {key: expanded[key] for key in conf}
    t = (
        decide(Machine.COORDINATOR, coord.status, Event.RERUN, coord.id)
        if allowed(Machine.COORDINATOR, coord.status, Event.RERUN)
        else None
    )
    app = app_of(coord, tx.conn)
    for action in rows:
        stored = json.loads(action.plan or "{}")
        outs = {d["name"]: d["uris"] for d in (stored.get("plan") or {}).get("data_outs", [])}
        if not failed and not nocleanup:
            keep = {d.name for d in app.data_outs if d.nocleanup}
            for name, uris in outs.items():
                if name in keep:
                    continue
                for uri in uris:
                    _cleanup(uri, notes)
        # only a TIMEDOUT action's timeout counts again, from now (oozie.md §2.4, Oozie's
        # CoordRerunXCommand); any other keeps its created time, and so its deadline
        created = tx.now_ms if action.status == A.TIMEDOUT else action.created_time
        fields: dict[str, Any] = {
            "error_code": None,
            "error_message": None,
            "held_by": None,
            "created_time": created,
            "timeout_at": action_timeout_at(coord, action.nominal_time, created),
        }
        if failed and action.external_id:
            run_conf = {**action.run_conf_dict(), **(conf or {})}
            run_conf[RERUN_FAILNODES] = "true"
            fields["run_conf"] = json.dumps(run_conf)
        else:
            # the launch computes the run configuration again and lays these over it
            fields["external_id"] = None
            fields["run_conf"] = json.dumps(conf) if conf else None
        move_action(tx, action, Event.RERUN, **fields)
        if refresh:
            jobs.drop_input_deps(tx, action.id)
            jobs.update(tx, ActionRow, action.id, plan=None)
        else:
            # as Oozie, only the dependencies still missing are checked again: inputs found
            # once count as found (a purge since does not hold the rerun)
            pinned = _pinned_plan(stored)
            if pinned is not None:
                jobs.update(tx, ActionRow, action.id, plan=pinned)
    if t is not None and t.to != coord.status:
        set_status(tx, effects, coord, t.to)
    rollup_tx(tx, effects, coord.id)
    effects.wake_coordinator(tx, coord.id)
    if notes is not None:
        notes += _skipped_at_once(tx, coord, app, rows)
    return [r.id for r in rows]


def _skipped_at_once(
    tx: Tx, coord: CoordRow, app: CoordinatorApp, rows: list[ActionRow]
) -> list[str]:
    """A rerun under LAST_ONLY / NONE of an action whose time to start has passed: it waits
    again and is SKIPPED at once, as Oozie's input check skips it; said, not left to be
    found in ``info``."""
    out = []
    for row in rows:
        deadline = skip_deadline(coord, app, row)
        if deadline is not None and tx.now_ms > deadline:
            out.append(
                f"{row.id} will be SKIPPED, not run: under {coord.execution} an action that "
                f"has not started by {format_oozie_time(from_ms(deadline))} is skipped"
            )
    return out


def _pinned_plan(stored: dict[str, Any]) -> str | None:
    """Without ``--refresh``, latest() / future() stay as they were first resolved (only
    ``--refresh`` re-evaluates them, oozie.md §2.6): the resolved URIs become the plan's."""
    from bundletui.spec.action_plan import ActionPlan

    resolved = stored.get("data_in") or {}
    if not stored.get("plan") or not resolved:
        return None
    plan = ActionPlan.from_dict(stored["plan"])
    ins = [
        d._replace(uris=tuple(resolved[d.name]), pending=())
        if d.pending and resolved.get(d.name) is not None
        else d
        for d in plan.data_ins
    ]
    if ins == list(plan.data_ins):
        return None
    return json.dumps({"plan": plan._replace(data_ins=tuple(ins)).to_dict()})


def _cleanup(uri: str, notes: list[str] | None) -> None:
    """A rerun deletes its action's output first (Oozie's cleanup): never the root or a
    top-level directory, which a data-out built from an empty value can name."""
    local = parse_local_path(uri)
    if not isinstance(local, str):
        return  # not a local path: nothing of ours to delete
    why = sweep_refusal(local, "delete", os.path.realpath)
    if why is not None:
        said = f"output [{uri}] not cleaned up: {why}"
        if notes is not None:
            notes.append(said)
        else:  # a bundle's rerun (run by the engine) has no notes to say it in
            log.warning("rerun: %s", said)
        return
    path = Path(local)
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists():
        path.unlink(missing_ok=True)


def rerun(ctx: Ctx, coord_id: str, notes: list[str] | None = None, **kw: Any) -> list[str]:
    def tx_fn(tx: Tx) -> list[str]:
        coord = load(tx, coord_id)
        _no_bundle_command_queued(tx, coord)
        return rerun_tx(tx, ctx.effects, coord, notes=notes, **kw)

    return run(ctx, "rerun", coord_id, kw, tx_fn)


def _no_bundle_command_queued(tx: Tx, coord: CoordRow) -> None:
    """A bundle command (a kill, a suspend) queued for this coordinator and not yet run by the
    engine would act after a rerun accepted now, and undo it unseen: refused until it ran."""
    queued = jobs.pending_bundle_actions(tx.conn, coord.id)
    if queued:
        raise QueuedError(
            "E1018",
            f"Coord Job Rerun Error: a command of bundle {coord.bundle_id} queued for {coord.id}"
            " has not been run by the engine yet",
            hint="start the engine (bundletui run) or wait until it has run the command, then"
            " rerun",
        )


def ignore_tx(
    tx: Tx,
    effects: Effects,
    coord: CoordRow,
    *,
    actions: str | None = None,
    dates: str | None = None,
) -> list[str]:
    if actions is not None or dates is not None:  # a scope given empty ignores nothing
        rows = select_actions(tx.conn, coord, actions=actions, dates=dates)
        bad = [r for r in rows if r.status not in (A.FAILED, A.KILLED, A.TIMEDOUT)]
        if bad:
            raise CommandError(
                "E1024",
                f"Cannot run ignore command: [{bad[0].id} is {bad[0].status}]",
                hint="only FAILED, KILLED or TIMEDOUT actions can be ignored",
            )
        for r in rows:
            move_action(tx, r, Event.IGNORE)
        rollup_tx(tx, effects, coord.id)
        return [r.id for r in rows]
    if coord.pending:
        raise QueuedError("E1024", f"Cannot run ignore command: [{coord.id} is pending]")
    t = decide(Machine.COORDINATOR, coord.status, Event.IGNORE, coord.id)
    set_status(tx, effects, coord, t.to)
    return [coord.id]


def ignore(
    ctx: Ctx, coord_id: str, *, actions: str | None = None, dates: str | None = None
) -> list[str]:
    return run(
        ctx,
        "ignore",
        coord_id,
        {"action": actions, "date": dates},
        lambda tx: ignore_tx(tx, ctx.effects, load(tx, coord_id), actions=actions, dates=dates),
    )
