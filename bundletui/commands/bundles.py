"""Bundle commands and the seed's pending-flag design (seed 000).

A bundle command changes the bundle, marks each affected bundle action pending, and asks the
engine (through the outbox) to run the child coordinator command; when a coordinator's status
changes, its bundle action takes the status, its pending flag is cleared, and the bundle rolls
up — all in that child's transaction, not in a periodic sweep.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from bundletui.commands import coordinators as coordcmd
from bundletui.commands import schedules
from bundletui.commands.base import Ctx, fail, run
from bundletui.commands.effects import Effects
from bundletui.errors import BundletuiError, CommandError, QueuedError
from bundletui.model import codec
from bundletui.model.apps import BundleApp
from bundletui.model.clock import from_ms, to_ms
from bundletui.model.ids import JobKind, bundle_action_id
from bundletui.model.listing import first_few
from bundletui.model.rollup import BundleRollupInput, bundle_rollup
from bundletui.model.status import (
    COORD_SUSPENDED,
    COORD_UNCHANGEABLE,
    JOB_LIVE,
    JOB_PREP,
    JOB_TERMINAL,
    JobStatus,
    takes_pause_time,
)
from bundletui.model.timeutil import format_oozie_time
from bundletui.model.transitions import Children, Event, Machine, allowed, decide, sources
from bundletui.store import jobs
from bundletui.store.db import Store, Tx
from bundletui.store.rows import BundleActionRow, BundleRow, CoordRow

if TYPE_CHECKING:
    from bundletui.spec.load import Loaded

J = JobStatus


def app_of(bundle: BundleRow) -> BundleApp:
    return _decoded(bundle.app)


@lru_cache(maxsize=256)
def _decoded(app_json: str) -> BundleApp:
    """A bundle's definition, decoded once (its start submits each coordinator with it)."""
    return codec.loads(app_json, BundleApp)


# ----------------------------------------------------------------------------- submit / start


def submit(ctx: Ctx, loaded: Loaded, *, start: bool = False) -> str:
    """Store the bundle in PREP. Every coordinator is resolved first: bad input stores nothing."""
    from bundletui.spec.load import check_bundle_coordinators

    coords = check_bundle_coordinators(loaded, ctx.store.clock)
    app: BundleApp = loaded.app
    schedules = [(c.app.name, c.app.events.trigger, c.app_path) for c in coords if c.app.events]

    def body(tx: Tx) -> str:
        ctx.reused = None
        if loaded.external_id:
            existing = jobs.job_by_external_id(tx.conn, BundleRow, loaded.external_id)
            if existing is not None:
                if start and existing.status == J.PREP:  # "submit and start": it is started
                    start_tx(tx, ctx.effects, existing, Event.START, store=ctx.store)
                ctx.reused = existing.id
                return existing.id
        if schedules:  # loops with the store's schedules (its own were refused by the load)
            from bundletui.commands.schedules import THIS_BUNDLE, check_store_loops

            check_store_loops(tx.conn, schedules, THIS_BUNDLE)
        bundle_id = ctx.store.next_id(tx, JobKind.BUNDLE, loaded.user)
        created = decide(Machine.BUNDLE, None, Event.SUBMIT).to
        jobs.insert(
            tx,
            BundleRow,
            {
                "id": bundle_id,
                "app_name": app.name,
                "app_path": loaded.app_path,
                "external_id": loaded.external_id,
                "user": loaded.user,
                "status": created,
                "kickoff_time": to_ms(app.kickoff_time) if app.kickoff_time else None,
                "created_time": tx.now_ms,
                "conf": json.dumps(dict(loaded.conf)),
                "definition": loaded.definition,
                "app": codec.dumps(app),
            },
        )
        row = jobs.must_get(tx.conn, BundleRow, bundle_id)
        if start:
            start_tx(tx, ctx.effects, row, Event.START, store=ctx.store)
        elif app.kickoff_time is None:
            # kick-off now: the engine starts it, with its event schedules' horizon taken now
            # (what lands between this submit and the engine's start counts as new)
            horizon = start_horizon(tx, ctx.store, row)
            args = None if horizon is None else {"events_from": horizon}
            ctx.effects.child_command(tx, "bundle.wake", bundle_id, args)
        else:
            ctx.effects.wake_bundle(tx, bundle_id)  # kick-off later: the schedules start then
        return bundle_id

    return run(
        ctx,
        "submit",
        None,
        {"app_path": loaded.app_path, "start": start, "external_id": loaded.external_id},
        body,
    )


def load(tx: Tx, bundle_id: str) -> BundleRow:
    row = jobs.get(tx.conn, BundleRow, bundle_id)
    if row is None:
        raise fail("E0604", bundle_id, hint="list bundles with: bundletui jobs --type bundle")
    return row


def start_tx(
    tx: Tx,
    effects: Effects,
    bundle: BundleRow,
    event: Event = Event.START,
    *,
    store: Store,
    events_from: int | None = None,
) -> None:
    """PREP -> RUNNING; one bundle action per enabled coordinator (PREP, pending); submit each.
    The engine submits them later: an event schedule among them counts what lands from now on
    (or from ``events_from``, the horizon the submit command took), not from then."""
    t = decide(Machine.BUNDLE, bundle.status, event, bundle.id)
    app = app_of(bundle)
    enabled = [c for c in app.coordinators if c.enabled]
    late: int | None = None  # a kick-off the engine reached late
    if events_from is None and enabled:
        # a kick-off reached late (no engine ran then): what completed since it counts
        as_of = (
            max(bundle.kickoff_time, bundle.created_time)  # what was there at submit: not new
            if event is Event.KICKOFF and bundle.kickoff_time is not None
            else None
        )
        events_from = start_horizon(tx, store, bundle, as_of)
        if as_of is not None and as_of < tx.now_ms:  # cron times since the kick-off are owed
            late = as_of
    submit_args: dict[str, Any] = {} if events_from is None else {"events_from": events_from}
    if late is not None:
        submit_args["crons_from"] = late
    if not enabled:
        failed = decide(Machine.BUNDLE, bundle.status, Event.NO_CHILDREN, bundle.id).to
        jobs.update(
            tx, BundleRow, bundle.id, status=failed, start_time=tx.now_ms, end_time=tx.now_ms
        )
        error = CommandError.from_template("E1318", bundle.id)
        _engine_error(tx, "start", bundle.id, {}, f'{error} (every coordinator is enabled="false")')
        return
    child = decide(Machine.COORDINATOR, None, Event.SUBMIT).to  # as it will be submitted
    for coord in enabled:
        jobs.insert(
            tx,
            BundleActionRow,
            {
                "id": bundle_action_id(bundle.id, coord.name),
                "bundle_id": bundle.id,
                "coord_name": coord.name,
                "status": child,
                "pending": 1,
                "critical": int(coord.critical),
            },
        )
        effects.child_command(
            tx, "bundle.submit_coord", bundle.id, {"name": coord.name, **submit_args}
        )
    jobs.update(tx, BundleRow, bundle.id, status=t.to, start_time=tx.now_ms, pending=1)


def start(ctx: Ctx, bundle_id: str) -> None:
    run(
        ctx,
        "start",
        bundle_id,
        None,
        lambda tx: start_tx(tx, ctx.effects, load(tx, bundle_id), store=ctx.store),
    )


def has_started(ctx: Ctx, bundle_id: str) -> bool:
    """Started and not ended: a start asked of it again would change nothing."""
    status = jobs.must_get(ctx.store.conn, BundleRow, bundle_id).status
    return status in JOB_LIVE - JOB_PREP


def start_horizon(tx: Tx, store: Store, bundle: BundleRow, as_of: int | None = None) -> int | None:
    """The horizon of the bundle's event schedules, taken when it starts (or is submitted to
    start now): they are created later, by the engine. A coordinator that does not load is
    left to that submit, which fails it and says why."""
    from bundletui.spec.load import load_bundle_coordinator

    app = app_of(bundle)
    specs = []
    for coord in app.coordinators:
        if not coord.enabled:
            continue
        try:
            loaded = load_bundle_coordinator(app, coord, bundle.conf_dict(), bundle.id, store.clock)
        except BundletuiError:
            continue
        specs.append(loaded.app.events)
    return schedules.horizon(tx, specs, as_of)


def submit_child_tx(
    tx: Tx,
    store: Store,
    effects: Effects,
    bundle: BundleRow,
    name: str,
    events_from: int | None = None,
) -> str | None:
    """The engine's half of a bundle start: submit one coordinator (seed: CoordSubmitXCommand).
    Returns the coordinator's id when this call created it."""
    ba = jobs.get(tx.conn, BundleActionRow, bundle_action_id(bundle.id, name))
    if ba is None or ba.coord_id is not None:
        return None  # already done (the outbox item ran before a crash)
    if bundle.status in (J.KILLED, J.FAILED):
        jobs.update(tx, BundleActionRow, ba.id, status=J.KILLED, pending=0)
        rollup_tx(tx, effects, bundle.id)
        return None
    app = app_of(bundle)
    coord = next(c for c in app.coordinators if c.name == name)
    status = decide(Machine.COORDINATOR, None, Event.SUBMIT).to
    if bundle.status in COORD_SUSPENDED:  # a suspended bundle's child is born suspended
        status = decide(Machine.COORDINATOR, status, Event.SUSPEND).to
    # Loading it, or registering it (an event schedule whose feed clashes with one submitted
    # since the bundle was), may refuse it: the child fails, and the bundle says why.
    tx.savepoint("child")
    try:
        from bundletui.spec.load import load_bundle_coordinator

        loaded = load_bundle_coordinator(app, coord, bundle.conf_dict(), bundle.id, store.clock)
        coord_id = coordcmd.create_coordinator_tx(
            tx,
            store,
            effects,
            loaded,
            bundle_id=bundle.id,
            pause_time=bundle.pause_time,
            status=status,
            events_from=events_from,
        )
        if bundle.end_time is not None:
            # an end time the bundle took before this child existed (a change while PREP, or
            # before the engine submitted it): the change it missed, as its siblings had it
            end = format_oozie_time(from_ms(bundle.end_time))
            coordcmd.change_tx(
                tx, effects, jobs.must_coord_head(tx.conn, coord_id), f"endtime={end}"
            )
    except BundletuiError as exc:
        tx.rollback_to("child")
        _child_failed(tx, effects, bundle, ba, coord.critical, exc)
        return None
    tx.release("child")
    # its status now: the end time it missed may have ended it already (an end before its
    # start: SUCCEEDED), and the bundle's row was not linked to it yet to hear of that
    status = jobs.must_coord_head(tx.conn, coord_id).status
    jobs.update(tx, BundleActionRow, ba.id, coord_id=coord_id, status=status, pending=0)
    rollup_tx(tx, effects, bundle.id)
    return coord_id


def _child_failed(
    tx: Tx,
    effects: Effects,
    bundle: BundleRow,
    ba: BundleActionRow,
    critical: bool,
    exc: BundletuiError,
) -> None:
    """A coordinator the bundle could not submit: FAILED, and the bundle follows the seed's
    table (a critical child fails it and kills its siblings)."""
    jobs.update(tx, BundleActionRow, ba.id, status=J.FAILED, pending=0)
    event = Event.CRITICAL_CHILD_FAILED if critical else Event.CHILD_FAILED
    current = jobs.must_get(tx.conn, BundleRow, bundle.id)
    # the table's rows for a child's failed submit; any other status is left to the roll-up
    t = (
        decide(Machine.BUNDLE, current.status, event, bundle.id)
        if allowed(Machine.BUNDLE, current.status, event)
        else None
    )
    if t is not None:
        ended = {"end_time": tx.now_ms} if t.to in JOB_TERMINAL else {}
        jobs.update(tx, BundleRow, bundle.id, status=t.to, **ended)
        if t.children is Children.KILL:
            _cascade(
                tx,
                effects,
                jobs.must_get(tx.conn, BundleRow, bundle.id),
                "coord.kill",
                Event.KILL,
            )
    note = f"coordinator {ba.coord_name} failed to submit: {exc.code}: {exc.message}"
    _engine_error(tx, "submit", bundle.id, {"coordinator": ba.coord_name}, note)
    rollup_tx(tx, effects, bundle.id)


# ----------------------------------------------------------------------------- roll-up


def coordinator_changed(tx: Tx, effects: Effects, coord: CoordRow, *, acted: bool = False) -> None:
    """Seed's BundleStatusUpdateXCommand: the bundle action takes the coordinator's status; when
    a child command the bundle asked for has acted (``acted``), its pending count drops even if
    the status did not change. Then the bundle rolls up, in this same transaction."""
    if not coord.bundle_id:
        return
    rows = jobs.bundle_actions_of_coord(tx.conn, coord.bundle_id, coord.id)
    for ba in rows:
        pending = max(ba.pending - 1, 0) if acted else ba.pending
        if ba.status != coord.status or pending != ba.pending:
            jobs.update(tx, BundleActionRow, ba.id, status=coord.status, pending=pending)
    rollup_tx(tx, effects, coord.bundle_id)


def rollup_tx(tx: Tx, effects: Effects, bundle_id: str) -> None:
    bundle = jobs.get(tx.conn, BundleRow, bundle_id)
    if bundle is None:
        return
    counts, pending = jobs.bundle_action_counts(tx.conn, bundle_id)
    critical_failed = jobs.critical_submit_failed(tx.conn, bundle_id)
    new = bundle_rollup(
        BundleRollupInput(
            status=JobStatus(bundle.status),
            counts={JobStatus(k): v for k, v in counts.items()},
            pending=pending,
            pause_time_set=bundle.pause_time is not None,
            suspended_time_set=bundle.suspended_time is not None,
            critical_submit_failed=critical_failed,
        ),
        backward_support=coordcmd.BACKWARD_SUPPORT,
    )
    fields: dict[str, Any] = {}
    if int(pending) != bundle.pending:
        fields["pending"] = int(pending)
    if bundle.status in (J.KILLED, J.FAILED) and new is not J.DONEWITHERROR:
        # A killed or failed bundle stays so: while its children are still acting (pending)
        # the roll-up's "running" rule would otherwise revive it as RUNNING. (The one move
        # allowed: FAILED -> DONEWITHERROR after its failed child ended so.)
        new = None
    if new is not None:
        fields["status"] = new
        if new in JOB_TERMINAL:
            fields["end_time"] = tx.now_ms
    if fields:
        jobs.update(tx, BundleRow, bundle_id, **fields)


# ----------------------------------------------------------------------------- cascades


def _engine_error(tx: Tx, command: str, bundle_id: str, args: dict[str, Any], error: str) -> None:
    """An audit row for what the engine's own step on a bundle refused (no user ran it)."""
    jobs.audit(
        tx,
        user="engine",
        face="engine",
        command=command,
        target=bundle_id,
        args=args,
        result="error",
        error=error,
    )


def _cascade(
    tx: Tx,
    effects: Effects,
    bundle: BundleRow,
    kind: str,
    event: Event,
    args: dict[str, Any] | None = None,
    only: set[str] | None = None,
    pending_too: bool = False,
) -> int:
    """Mark the affected bundle actions pending and ask the engine to act on each coordinator.
    ``pending_too``: also a child whose last command has not acted yet, whatever its status
    now — its status is not the one that command will give it (a resume right after a
    suspend must follow it; a kill must reach a coordinator a queued rerun brings back). The
    engine applies such a command only if the child's status then allows it (``if_allowed``)."""
    n = 0
    for ba in jobs.bundle_actions(tx.conn, bundle.id):
        queued = pending_too and ba.pending > 0 and ba.coord_id is not None
        if only is not None and ba.status not in only and not queued:
            continue
        if ba.coord_id is None:
            if event is Event.KILL and ba.status not in JOB_TERMINAL:
                jobs.update(tx, BundleActionRow, ba.id, status=J.KILLED)
            continue
        jobs.update(tx, BundleActionRow, ba.id, pending=ba.pending + 1)
        given = args
        if only is not None and ba.status not in only:  # there only for its queued command
            given = {**(args or {}), "if_allowed": event.name}
        effects.child_command(tx, kind, ba.coord_id, given)
        n += 1
    if n:
        jobs.update(tx, BundleRow, bundle.id, pending=1)
    return n


def _live_children(tx: Tx, bundle_id: str) -> list[CoordRow]:
    """The bundle's coordinators that have not ended."""
    out = []
    for ba in jobs.bundle_actions_with_coord(tx.conn, bundle_id):
        coord = jobs.coord_head(tx.conn, ba.coord_id or "")
        if coord is not None and coord.status not in JOB_TERMINAL:
            out.append(coord)
    return out


def kill_tx(tx: Tx, effects: Effects, bundle: BundleRow) -> None:
    t = decide(Machine.BUNDLE, bundle.status, Event.KILL, bundle.id)
    jobs.update(tx, BundleRow, bundle.id, status=t.to, end_time=tx.now_ms)
    _cascade(
        tx,
        effects,
        jobs.must_get(tx.conn, BundleRow, bundle.id),
        "coord.kill",
        Event.KILL,
        only=set(sources(Machine.COORDINATOR, Event.KILL)),
        pending_too=True,  # QA: a rerun queued before the kill ran after it, under a KILLED bundle
    )
    rollup_tx(tx, effects, bundle.id)


def suspend_tx(tx: Tx, effects: Effects, bundle: BundleRow, *, freeze: bool = False) -> None:
    """``freeze``: each coordinator freezes its running workflows (SIGSTOP)."""
    t = decide(Machine.BUNDLE, bundle.status, Event.SUSPEND, bundle.id)
    jobs.update(tx, BundleRow, bundle.id, status=t.to, suspended_time=tx.now_ms)
    if t.children is Children.SUSPEND:
        from bundletui.commands.schedules import command_horizon

        only = {J.RUNNING, J.RUNNINGWITHERROR, J.PREP, J.PAUSED, J.PAUSEDWITHERROR}
        upto = command_horizon(tx, _live_children(tx, bundle.id))
        args: dict[str, Any] = {"freeze": True} if freeze else {}
        if upto is not None:
            args["events_upto"] = upto
        _cascade(
            tx,
            effects,
            bundle,
            "coord.suspend",
            Event.SUSPEND,
            args or None,
            only={str(s) for s in only},
            pending_too=True,
        )


def resume_tx(tx: Tx, effects: Effects, bundle: BundleRow) -> None:
    t = decide(Machine.BUNDLE, bundle.status, Event.RESUME, bundle.id)
    jobs.update(tx, BundleRow, bundle.id, status=t.to, suspended_time=None)
    if t.children is Children.RESUME:
        from bundletui.commands.schedules import command_horizon

        only = sources(Machine.COORDINATOR, Event.RESUME)
        horizon = command_horizon(tx, _live_children(tx, bundle.id))
        _cascade(
            tx,
            effects,
            bundle,
            "coord.resume",
            Event.RESUME,
            args=None if horizon is None else {"events_from": horizon},
            only={str(s) for s in only},
            pending_too=True,
        )
    effects.wake_bundle(tx, bundle.id)


def change_tx(tx: Tx, effects: Effects, bundle: BundleRow, value: str) -> None:
    """``pausetime=…`` / ``endtime=…`` (oozie.md §1.5), forwarded to every non-KILLED coordinator."""
    changes = coordcmd.parse_change(value, ("pausetime", "endtime"), "E1317", bundle.id)
    if "pausetime" in changes and not takes_pause_time(bundle.status, bundle=True):
        raise fail(
            "E1312",
            bundle.id,
            bundle.status,
            hint="a pause time applies to a bundle that has not ended; its end time can "
            "still change (unless it was killed)",
        )
    if bundle.status == J.KILLED:
        raise CommandError(
            "E1317",
            f"Invalid bundle job change value {value}, the bundle is KILLED",
            hint="a killed bundle does not run again: submit it anew",
        )
    fields: dict[str, Any] = {}
    if "pausetime" in changes:
        raw = changes["pausetime"]
        if raw:
            pause = coordcmd.change_time(changes, "pausetime", value, "E1317", "bundle")
            if pause < tx.now_ms:
                raise CommandError(
                    "E1317",
                    f"Invalid bundle job change value {value}, pausetime must be a non-past time",
                    hint=f"now is {format_oozie_time(from_ms(tx.now_ms))}",
                )
            fields["pause_time"] = pause
        else:
            fields["pause_time"] = None
    if "endtime" in changes:
        # both kept on the bundle, where Oozie's record keeps only the pause time (oozie.md §7):
        # a coordinator the bundle submits later takes both, as those that exist now do
        end = coordcmd.change_time(changes, "endtime", value, "E1317", "bundle")
        if bundle.kickoff_time is not None and end < bundle.kickoff_time:
            raise CommandError(
                "E1317",
                f"Invalid bundle job change value {value}, end time is before kick-off time",
            )
        fields["end_time"] = end
        if allowed(Machine.BUNDLE, bundle.status, Event.CHANGE_END):  # ended: runs on to it
            t = decide(Machine.BUNDLE, bundle.status, Event.CHANGE_END, bundle.id)
            fields["status"] = t.to
    jobs.update(tx, BundleRow, bundle.id, **fields)
    current = jobs.must_get(tx.conn, BundleRow, bundle.id)
    if (
        "pause_time" in fields
        and (fields["pause_time"] is None or fields["pause_time"] > tx.now_ms)
        and allowed(Machine.BUNDLE, current.status, Event.UNPAUSE)
    ):
        t = decide(Machine.BUNDLE, current.status, Event.UNPAUSE, bundle.id)
        jobs.update(tx, BundleRow, bundle.id, status=t.to)
    _check_children_accept(tx, effects, bundle, value)
    _cascade(
        tx,
        effects,
        current,
        "coord.change",
        Event.SUSPEND,
        {"value": value, "as_of": tx.now_ms},
        # passed by: Oozie's BundleJobChangeXCommand reads only un-ignored bundle actions, and a
        # killed coordinator refuses every change (E1016)
        only={str(s) for s in JobStatus if s not in COORD_UNCHANGEABLE},
    )
    effects.wake_bundle(tx, bundle.id)


def _check_children_accept(tx: Tx, effects: Effects, bundle: BundleRow, value: str) -> None:
    """Oozie applies a bundle change to each coordinator at once and reports their refusals as
    E1320. Ours is carried out by the engine later, so each coordinator's change is tried here
    in a savepoint and undone: a refusal fails the whole command, with nothing changed."""
    errors: list[str] = []
    for ba in jobs.bundle_actions_with_coord(tx.conn, bundle.id):
        coord = jobs.coord_head(tx.conn, ba.coord_id or "")
        if coord is None or coord.status in COORD_UNCHANGEABLE:
            continue
        tx.savepoint("child_check")
        try:
            coordcmd.change_tx(tx, _NoEffects(), coord, value)
        except BundletuiError as exc:
            errors.append(f"{ba.coord_name}: {exc.code}: {exc.message}")
        finally:
            tx.rollback_to("child_check")
    if errors:
        raise CommandError(
            "E1320",
            f"Bundle Job change error, [{first_few(errors, '; ')}]",
            hint="fix what the coordinators refuse (e.g. a pause time before a running action), then change again",
        )


class _NoEffects:
    """Effects of a trial run that is rolled back: nothing must leak out of it."""

    def advance_workflow(self, tx: Tx, wf_id: str) -> None: ...
    def node_done(self, tx: Tx, wf_id: str, node: str, status: str) -> None: ...
    def nodes_ready(self, tx: Tx, wf_id: str, priority: int, node_ids: list[str]) -> None: ...
    def signal_workflow(self, tx: Tx, wf_id: str, what: str) -> None: ...
    def wake_coordinator(self, tx: Tx, coord_id: str) -> None: ...
    def wake_bundle(self, tx: Tx, bundle_id: str) -> None: ...
    def child_command(
        self, tx: Tx, kind: str, target: str, args: dict[str, Any] | None = None
    ) -> None: ...


def rerun_tx(
    tx: Tx,
    effects: Effects,
    bundle: BundleRow,
    *,
    coordinators: str | None,
    dates: str | None,
    refresh: bool,
    nocleanup: bool,
) -> tuple[list[str], list[str]]:
    """``-coordinator c1,c2`` and/or ``-date d1::d2`` (oozie.md §1.7). Returns the
    coordinators whose rerun is queued, and why each coordinator in the dates that reruns
    nothing was passed over (the operator is told both)."""
    for option, given in (("--coordinator", coordinators), ("--date", dates)):
        if given is not None and not given.replace(",", "").strip():  # "" is not "all"
            raise CommandError(
                "E1018",
                f"Coord Job Rerun Error: {option} is empty",
                hint="name the coordinators or dates, or leave the option out",
                usage=True,  # as kill C --action '' (exit 2)
            )
    if not coordinators and not dates:
        raise CommandError(
            "E1018",
            "Coord Job Rerun Error: give coordinator names and/or date ranges",
            hint="e.g. --coordinator ingest --date 2026-01-01T00:00Z::2026-01-02T00:00Z",
            usage=True,
        )
    t = decide(Machine.BUNDLE, bundle.status, Event.RERUN, bundle.id)
    names = {n.strip() for n in (coordinators or "").split(",") if n.strip()}
    queued: list[str] = []  # the coordinators whose rerun the engine runs
    passed: list[str] = []  # why each coordinator in scope reruns nothing
    children = jobs.bundle_actions(tx.conn, bundle.id)
    for ba in children:
        if names and ba.coord_name not in names:
            continue
        if ba.coord_id is None:
            if names:  # named, and never submitted: say so rather than do nothing
                raise CommandError(
                    "E1018",
                    f"Coord Job Rerun Error: coordinator {ba.coord_name} of {bundle.id} was "
                    f"never submitted ({ba.status}): it has no actions to rerun",
                    hint=f"see why with: bundletui info {bundle.id}; fix its definition and "
                    "submit the bundle again",
                )
            continue
        if ba.pending:
            # its statuses are about to change: a check against them now would be stale, and
            # the engine would refuse the second rerun in its log only
            raise QueuedError(
                "E1018",
                "Coord Job Rerun Error: a command queued for this coordinator has not been "
                f"run by the engine yet [coordinator {ba.coord_name}]",
                hint="start the engine (bundletui run) or wait until it has run the command "
                f"(its Pending column in bundletui info {bundle.id} reads -), then rerun",
            )
        coord = jobs.must_coord_head(tx.conn, ba.coord_id)
        scope = (
            dates
            or f"{format_oozie_time(from_ms(coord.start_time))}::{format_oozie_time(from_ms(coord.end_time))}"
        )
        # Checked now, not only when the engine runs it: a refusal there would be a log line
        # while this command said "ok" (Oozie queues it and says nothing either). That
        # includes the coordinator's own status (an IGNORED one is not rerun).
        try:
            coordcmd.rerun_rows(tx, coord, dates=scope)
            decide(Machine.COORDINATOR, coord.status, Event.RERUN, coord.id)
        except BundletuiError as exc:
            if exc.code in ("E0605", "E1018", "E1100") and not names:
                # no action in the dates, one not finished, or a coordinator that cannot
                # rerun: passed over, as Oozie's one coordinator rerun per coordinator fails
                # alone while the others run
                passed.append(f"{ba.coord_name}: {exc.message}")
                continue
            raise CommandError(
                exc.code, f"{exc.message} [coordinator {ba.coord_name}]", hint=exc.hint
            ) from None
        jobs.update(tx, BundleActionRow, ba.id, pending=ba.pending + 1)
        effects.child_command(
            tx,
            "coord.rerun",
            coord.id,
            {"dates": scope, "refresh": refresh, "nocleanup": nocleanup},
        )
        queued.append(coord.id)
    if not queued:  # Oozie says nothing and reruns nothing: a mistake, most likely
        raise _nothing_to_rerun(bundle, children, names, dates, passed)
    # end_time is when an ended bundle ended, or the end time a change gave a live one: only
    # the first is no longer true (QA: a rerun erased the end time a change had just set)
    ended = bundle.end_time if bundle.status not in JOB_TERMINAL else None
    jobs.update(tx, BundleRow, bundle.id, status=t.to, pending=1, end_time=ended)
    return queued, passed


def unknown_coordinators_note(conn: Any, bundle_id: str, given: str | None) -> str | None:
    """Oozie's bundle rerun passes over names it does not know, and so does ours; a mistyped
    name then reruns nothing without a word, so every face tells the operator which."""
    if not given:
        return None
    known = jobs.bundle_coordinator_names(conn, bundle_id)
    unknown = [
        n for n in dict.fromkeys(x.strip() for x in given.split(",")) if n and n not in known
    ]
    if not unknown:
        return None
    return (
        f"bundle {bundle_id} has no coordinator named {', '.join(unknown)};"
        f" its coordinators: {', '.join(known)}"
    )


def _nothing_to_rerun(
    bundle: BundleRow,
    children: list[BundleActionRow],
    names: set[str],
    dates: str | None,
    passed: list[str],
) -> CommandError:
    known = ", ".join(ba.coord_name for ba in children)
    if names:
        return CommandError(
            "E1018",
            f"Coord Job Rerun Error: bundle {bundle.id} has no coordinator named "
            f"{', '.join(sorted(names))}: nothing to rerun",
            hint=f"its coordinators: {known}",
        )
    why = f" ({'; '.join(passed)})" if passed else ""
    return CommandError(
        "E1018",
        f"Coord Job Rerun Error: no coordinator of bundle {bundle.id} has an action to rerun"
        f" in [{dates}]{why}",
        hint=f"see its coordinators' actions with: bundletui info {bundle.id}",
    )


def kill(ctx: Ctx, bundle_id: str) -> None:
    run(ctx, "kill", bundle_id, None, lambda tx: kill_tx(tx, ctx.effects, load(tx, bundle_id)))


def suspend(ctx: Ctx, bundle_id: str, *, freeze: bool = False) -> None:
    run(
        ctx,
        "suspend",
        bundle_id,
        {"freeze": True} if freeze else None,
        lambda tx: suspend_tx(tx, ctx.effects, load(tx, bundle_id), freeze=freeze),
    )


def resume(ctx: Ctx, bundle_id: str) -> None:
    run(ctx, "resume", bundle_id, None, lambda tx: resume_tx(tx, ctx.effects, load(tx, bundle_id)))


def change(ctx: Ctx, bundle_id: str, value: str) -> None:
    run(
        ctx,
        "change",
        bundle_id,
        {"value": value},
        lambda tx: change_tx(tx, ctx.effects, load(tx, bundle_id), value),
    )


def rerun(
    ctx: Ctx,
    bundle_id: str,
    *,
    coordinators: str | None = None,
    dates: str | None = None,
    refresh: bool = False,
    nocleanup: bool = False,
) -> tuple[list[str], list[str]]:
    args = {
        "coordinators": coordinators,
        "dates": dates,
        "refresh": refresh,
        "nocleanup": nocleanup,
    }
    return run(
        ctx,
        "rerun",
        bundle_id,
        args,
        lambda tx: rerun_tx(
            tx,
            ctx.effects,
            load(tx, bundle_id),
            coordinators=coordinators,
            dates=dates,
            refresh=refresh,
            nocleanup=nocleanup,
        ),
    )
