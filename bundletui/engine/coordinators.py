"""The coordinator service: materialize, check inputs, time out, skip, launch (oozie.md §2.4–2.5).

Event-driven: a coordinator is looked at when it is due (its next nominal time, its pause time),
when a command or a finished workflow wakes it, or when a file it waits for lands. Each nominal
time is materialized once — the store's UNIQUE(coord_id, nominal_time) guarantees it, and the
coordinator's ``last_action_number`` moves in the same transaction as the inserted actions.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bundletui.commands import coordinators as coordcmd
from bundletui.commands import workflows as wfcmd
from bundletui.engine.failures import launch_error
from bundletui.errors import BundletuiError
from bundletui.model import codec
from bundletui.model.apps import CoordinatorApp, ExecutionOrder, WorkflowApp
from bundletui.model.clock import from_ms, to_ms
from bundletui.model.ids import action_id
from bundletui.model.status import (
    COORD_MATERIALIZING,
    COORD_SUBMITTABLE,
    COORD_SUSPENDED,
    ActionStatus,
    JobStatus,
)
from bundletui.model.timeutil import iter_nominal_times
from bundletui.model.transitions import Event, Machine, allowed, decide
from bundletui.spec.datasets import local_exists
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import ActionRow, CoordRow, WorkflowRow, columns, replace_row

if TYPE_CHECKING:
    from bundletui.engine.service import Engine

log = logging.getLogger("bundletui.engine.coordinators")
J = JobStatus
A = ActionStatus

BATCH = 10_000  # oozie action.batch.size
RECHECK_MS = 60_000  # coord.input.check.requeue.interval
POLL_MAX_MS = 60_000


class CoordinatorService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dirty: dict[str, None] = {}
        self.check = _Checks()  # actions whose inputs should be checked now
        self._poll_backoff: dict[str, int] = {}
        self._raced: set[str] = set()  # actions re-checked once because an input landed mid-check
        self._held: list[tuple[Callable[[Tx, str], None], str]] = []  # dues reached in SAFEMODE
        # coordinator -> its actions whose input check or timeout came while it was suspended,
        # checked at resume (a restart finds them again: it checks every WAITING action)
        self._after_resume: dict[str, set[str]] = {}
        self._wf_cache: dict[tuple[str, float, frozenset[str]], Any] = {}
        self._wf_paths: dict[tuple[str, str], Path] = {}  # (coordinator file, app path) -> file
        self._wf_mtimes: dict[Path, tuple[int, float]] = {}  # file -> (tick's rev, its mtime)

    def install(self) -> None:
        e = self.engine
        e.pumps.insert(0, self.pump)
        e.busy_checks.append(self._has_work)
        e.pending_checks.append(self._has_work)
        e.recoveries.append(self.recover)
        e.wake_coordinator_hook = lambda tx, cid: self.mark(cid)
        e.on_outbox("coord.wake", lambda tx, cid, args: self.mark(cid))
        e.on_due("coord.materialize", lambda tx, cid: self.mark(cid))
        e.on_due("coord.pause", lambda tx, cid: self.mark(cid))
        e.on_due("action.timeout", self.unless_safe(self.on_timeout))
        e.on_due("action.skip", self.unless_safe(self.on_skip))
        e.on_due("action.recheck", lambda tx, aid: self.check.add(aid))
        e.on_due("action.poll", lambda tx, aid: self.check.add(aid))

    def mark(self, coord_id: str) -> None:
        self.dirty[coord_id] = None

    # ------------------------------------------------------------------ safe mode

    def _has_work(self) -> bool:
        """In SAFEMODE the work waits (kept in memory) and the engine counts as idle."""
        return bool(self.dirty or self.check or self._held) and not self.engine.safe_mode

    def unless_safe(self, fn: Callable[[Tx, str], None]) -> Callable[[Tx, str], None]:
        """A due time reached in SAFEMODE (an action's timeout, a skip, an event schedule's
        cron or constraint) is kept for when the mode goes back to NORMAL, as Oozie's paused
        input checks time actions out then."""

        def handler(tx: Tx, key: str) -> None:
            if self.engine.safe_mode:
                self._held.append((fn, key))
            else:
                fn(tx, key)

        return handler

    # ------------------------------------------------------------------ pump

    def pump(self, tx: Tx) -> bool:
        """Coordinators first (launches), then input checks; within the tick's time budget,
        leaving the rest for the next tick (a restart's thousands of re-checks included)."""
        if self.engine.safe_mode:
            return False  # nothing materializes, is checked or launches (Oozie's SAFEMODE)
        deadline = self.engine.tick_deadline
        did = False
        held, self._held = self._held, []
        for fn, key in held:
            self.engine._guarded(tx, f"held {key}", fn, tx, key)
            did = True
        while self.dirty and time.monotonic() < deadline:
            cid = next(iter(self.dirty))
            del self.dirty[cid]
            self.engine._guarded(tx, f"coordinator {cid}", self.process, tx, cid)
            did = True
        while self.check and time.monotonic() < deadline:
            aid = self.check.pop()
            self.engine._guarded(tx, f"input check {aid}", self.check_action, tx, aid)
            did = True
        return did

    def process(self, tx: Tx, coord_id: str) -> None:
        coord = jobs.coord_head(tx.conn, coord_id)
        if coord is None:
            return
        now = tx.now_ms
        if coord_id in self._after_resume and coord.status not in COORD_SUSPENDED:
            for aid in self._after_resume.pop(coord_id):
                self.check.add(aid)  # inputs first, as Oozie's check: then the timeout
        if coord.kind == "event":  # actions come from triggers, not nominal times
            coord = self._pause_check(tx, coord, now)
            self.engine.events.process(tx, coord)
            coordcmd.rollup_tx(tx, self.engine.effects, coord_id)
            return
        # Actions READY at creation are not written yet: the launch below writes each once,
        # in its final state (RUNNING, FAILED or SKIPPED); those left are written READY.
        fresh: list[dict[str, Any]] = []
        # materialized before the pause check: when the clock has jumped past the pause
        # time, the actions before it are due all the same (they stop at the pause time)
        if JobStatus(coord.status) in COORD_MATERIALIZING and not coord.done_materialization:
            coord = self._materialize_or_fail(tx, coord, now, fresh)
        coord = self._pause_check(tx, coord, now)
        counts = jobs.action_counts(tx.conn, coord_id)  # read once for both steps below
        self._check_unchecked(tx, coord_id, counts)
        submittable = JobStatus(coord.status) in COORD_SUBMITTABLE
        checked = self._check_own(tx, coord_id) if submittable else False
        if checked:
            counts = jobs.action_counts(tx.conn, coord_id)
        held: CoordRow | None = coord  # the row as last written, unless a launch failed
        if (
            submittable
            and checked is not None
            and not self.submit_ready(tx, coord, now, counts, fresh)
        ):
            held = None
        for values in fresh:
            jobs.insert(tx, ActionRow, values)
        coordcmd.rollup_tx(tx, self.engine.effects, coord_id, held)

    def _check_own(self, tx: Tx, coord_id: str) -> bool | None:
        """The input checks queued for this coordinator's actions, run before it launches:
        after a restart, or files landing in the same tick, an older action whose data came
        is READY before the slot goes to one materialized now (FIFO by nominal time). Whether
        any ran; None when the tick's time ran out first: the rest wait for the next tick,
        and so do this coordinator's launches."""
        own = self.check.take(coord_id)
        deadline = self.engine.tick_deadline
        for n, aid in enumerate(own):
            if time.monotonic() >= deadline:
                for rest in own[n:]:
                    self.check.add(rest)
                self.mark(coord_id)
                return None
            self.engine._guarded(tx, f"input check {aid}", self.check_action, tx, aid)
        return bool(own)

    def _check_unchecked(self, tx: Tx, coord_id: str, counts: dict[str, int]) -> None:
        """WAITING actions nobody has checked yet (a rerun put them back to WAITING, with
        ``held_by`` cleared) get their input check now, not at the next engine start."""
        if not counts.get(A.WAITING):
            return
        for aid in jobs.unchecked_waiting(tx.conn, coord_id):
            self.check.add(aid)

    def _pause_check(self, tx: Tx, coord: CoordRow, now: int) -> CoordRow:
        pause = coord.pause_time
        if pause is None:
            return coord
        if pause <= now and allowed(Machine.COORDINATOR, coord.status, Event.PAUSE):
            t = decide(Machine.COORDINATOR, coord.status, Event.PAUSE, coord.id)
            return coordcmd.set_status(tx, self.engine.effects, coord, t.to)
        if pause > now:
            self.engine.heap.push(pause, "coord.pause", coord.id)
        return coord

    # ------------------------------------------------------------------ materialize

    def _materialize_or_fail(
        self, tx: Tx, coord: CoordRow, now: int, fresh: list[dict[str, Any]]
    ) -> CoordRow:
        """Materialization that throws fails the coordinator, as Oozie's
        CoordMaterializeTransitionXCommand does: this batch's actions are discarded, the error is
        kept on the row for ``info``, and the bundle hears of it. Retrying each tick would only
        fail the same way; ``change status=RUNNING`` (after fixing the cause) tries again."""
        try:
            with self.engine.savepoint(tx, "materialize"):
                return self.materialize(tx, coord, now, fresh)
        except sqlite3.Error:
            raise
        except Exception as exc:
            fresh.clear()  # the batch is discarded
            if isinstance(exc, BundletuiError):
                code, message = exc.code, str(exc).removeprefix(f"{exc.code}: ")
                message += f" (hint: {exc.hint})" if exc.hint else ""
                log.error("coordinator %s: materialization failed: %s", coord.id, exc.describe())
            else:  # not a user mistake we know of: keep the traceback in the log
                code, message = "E1012", f"Coord Job Materialization Error: {exc!r}"
                log.exception("coordinator %s: materialization failed", coord.id)
            t = decide(Machine.COORDINATOR, coord.status, Event.MATERIALIZE_FAILED, coord.id)
            return coordcmd.set_status(
                tx, self.engine.effects, coord, t.to, error_code=code, error_message=message
            )

    def materialize(
        self, tx: Tx, coord: CoordRow, now: int, fresh: list[dict[str, Any]]
    ) -> CoordRow:
        """Create the actions due by ``now``; returns the coordinator row as written. Those
        READY at creation are added to ``fresh``, for the caller to write."""
        app = coordcmd.app_of(coord, tx.conn)
        counts = jobs.action_counts(tx.conn, coord.id)
        throttled = ExecutionOrder(coord.execution) in (ExecutionOrder.FIFO, ExecutionOrder.LIFO)
        budget = (
            min(max(coord.throttle - counts.get(A.WAITING, 0), 0), BATCH) if throttled else BATCH
        )
        index = coord.last_action_number
        created = 0
        next_time: int | None = None
        done = True
        pause = coord.pause_time
        for idx, nominal in iter_nominal_times(
            app.start, from_ms(coord.end_time), app.frequency, app.timezone, first_index=index
        ):
            nominal_ms = to_ms(nominal)
            if pause is not None and nominal_ms >= pause:
                next_time, done = nominal_ms, False
                break
            if nominal_ms > now or created >= budget:
                next_time, done = nominal_ms, False
                break
            ready = self._create_action(tx, coord, app, idx + 1, nominal_ms, now)
            if ready is not None:
                fresh.append(ready)
            created += 1
            index = idx + 1
        recorded = next_time
        if done:  # Oozie records the first nominal time not materialized, at or after the end
            after = next(
                iter_nominal_times(app.start, None, app.frequency, app.timezone, first_index=index),
                None,
            )
            recorded = to_ms(after[1]) if after is not None else None
        fields: dict[str, Any] = {
            "last_action_number": index,
            "next_materialized_time": recorded,
            "done_materialization": int(done),
        }
        start_ms = to_ms(app.start)
        if coord.status == J.PREP and (created or now >= start_ms):
            # RUNNING once its start is reached, as Oozie's materialization sets it, even when
            # the first nominal time comes later (a cron or endOfDays frequency)
            t = decide(Machine.COORDINATOR, coord.status, Event.MATERIALIZE, coord.id)
            written = coordcmd.set_status(tx, self.engine.effects, coord, t.to, **fields)
        elif (
            created
            or fields["next_materialized_time"] != coord.next_materialized_time
            or done != bool(coord.done_materialization)
        ):
            jobs.update(tx, CoordRow, coord.id, **fields)
            written = jobs.updated(tx, coord, **fields)
        else:
            written = coord
        if next_time is not None and next_time > now and (pause is None or next_time < pause):
            self.engine.heap.push(next_time, "coord.materialize", coord.id)
        elif (
            next_time is not None
            and next_time <= now
            and created >= budget
            and (budget == BATCH or self._throttle_free(tx, coord))
        ):
            self.mark(coord.id)  # a catch-up cut short: go on in the next tick
        if written.status == J.PREP and start_ms > now:  # RUNNING at its start (see above)
            self.engine.heap.push_earlier(start_ms, "coord.materialize", coord.id)
        return written

    def _throttle_free(self, tx: Tx, coord: CoordRow) -> bool:
        """Fewer WAITING actions than the throttle, as this batch left them (when they fill
        it, one leaving WAITING wakes the coordinator). Actions READY at once, or whose inputs
        were there already, do not count, and with free slots nothing else would wake it."""
        return jobs.action_counts(tx.conn, coord.id).get(A.WAITING, 0) < coord.throttle

    def _create_action(
        self, tx: Tx, coord: CoordRow, app: CoordinatorApp, number: int, nominal_ms: int, now: int
    ) -> dict[str, Any] | None:
        """Write the action, or return its row's values when it is READY at once (nothing to
        wait for on disk): the caller launches it or writes it."""
        from bundletui.engine import coord_inputs

        aid = action_id(coord.id, number)
        plan = coord_inputs.plan(tx.conn, app, coord, number, nominal_ms, now)
        deps = coord_inputs.dependencies(plan)
        timeout_at = coordcmd.action_timeout_at(coord, nominal_ms, now)
        created = decide(Machine.ACTION, None, Event.SUBMIT).to
        values = {
            "id": aid,
            "coord_id": coord.id,
            "action_number": number,
            "nominal_time": nominal_ms,
            "created_time": now,
            "status": created,
            "timeout_at": timeout_at,
            "plan": json.dumps({"plan": plan.to_dict()}),
        }
        if not deps:  # no input on disk to wait for: READY at once
            result = coord_inputs.check(app, plan, now, _nothing_exists)
            if result.ready:
                values["status"] = decide(Machine.ACTION, created, Event.INPUTS_READY, aid).to
                values["plan"] = json.dumps(result.plan_json)
                return values
        action = jobs.insert_returning(tx, ActionRow, values)
        jobs.insert_input_deps(
            tx, ((aid, path, name, seq, 0) for seq, (path, name) in enumerate(deps))
        )
        # no wake-up when READY: process() goes on to submit_ready for this coordinator
        self._evaluate(
            tx, coord, app, action, plan, now, {path: False for path, _name in deps}, wake=False
        )
        return None

    # ------------------------------------------------------------------ inputs

    def check_action(self, tx: Tx, aid: str) -> None:
        from bundletui.engine import coord_inputs

        action = jobs.get(tx.conn, ActionRow, aid)
        if action is None or action.status != A.WAITING:
            return
        coord = jobs.must_coord_head(tx.conn, action.coord_id)
        if coord.kind == "event":
            self.engine.events.schedule_changed(tx, coord)  # held by constraints, not inputs
            return
        if coord.status in COORD_SUSPENDED:  # Oozie checks only RUNNING / PAUSED jobs' inputs
            self._after_resume.setdefault(coord.id, set()).add(aid)
            if action.timeout_at is not None:  # reached while suspended: held for the resume
                self.engine.heap.push(action.timeout_at, "action.timeout", aid)
            return
        app = coordcmd.app_of(coord, tx.conn)
        plan = coord_inputs.load_plan(tx.conn, app, coord, action, tx.now_ms)

        if action.plan is None:
            deps = coord_inputs.dependencies(plan)
            jobs.insert_input_deps(
                tx, ((aid, path, name, seq, 0) for seq, (path, name) in enumerate(deps))
            )
        self._evaluate(tx, coord, app, action, plan, tx.now_ms)

    def _evaluate(
        self,
        tx: Tx,
        coord: CoordRow,
        app: CoordinatorApp,
        action: ActionRow,
        plan: Any,
        now: int,
        available: dict[str, bool] | None = None,
        *,
        wake: bool = True,
    ) -> None:
        """Check the action's inputs against the file system; READY, or schedule the next look.
        ``available``: the dependencies as recorded (read from the store when not given)."""
        from bundletui.engine import coord_inputs

        if available is None:
            available = {
                path: bool(ok) for path, _name, _seq, ok in jobs.input_deps_of(tx.conn, action.id)
            }
        newly: list[str] = []

        def exists(path: str) -> bool:
            if available.get(path):
                return True
            found = local_exists(path)
            if found and path in available:
                newly.append(path)
                available[path] = True
            return found

        result = coord_inputs.check(app, plan, now, exists)
        # The check stops at the first missing path and reports the rest unchecked (Oozie's
        # missingDependencies); local paths cost a stat, so "why it waits" names only the
        # paths that are really missing, and the others are recorded as available.
        missing = result.missing if result.ready else [p for p in result.missing if not exists(p)]
        for path in newly:
            jobs.mark_available(tx, action.id, path)
        if not result.ready and not missing and action.id not in self._raced:
            # every input exists now: one landed between the check and this look (a workflow
            # writing it as we went). It is recorded available, so no landing event will wake
            # this action again: check it once more now, or it would wait until its timeout.
            self._raced.add(action.id)
            self.check.add(action.id)
        if result.ready:
            self._raced.discard(action.id)
            coordcmd.move_action(
                tx, action, Event.INPUTS_READY, plan=json.dumps(result.plan_json), held_by=None
            )
            self._poll_backoff.pop(action.id, None)
            self.engine.heap.cancel("action.timeout", action.id)
            if wake:
                self.mark(coord.id)
            return
        jobs.update(
            tx,
            ActionRow,
            action.id,
            held_by=json.dumps(
                {
                    "missing": missing[:50],
                    "unresolved": result.unresolved,
                    # an input-logic wait= that holds it though an alternative may be there
                    **(
                        {"waitUntil": result.wait_until, "waitFor": result.wait_for}
                        if result.wait_until is not None
                        else {}
                    ),
                }
            ),
            plan=json.dumps(result.plan_json),
        )
        if action.timeout_at is not None:
            self.engine.heap.push(action.timeout_at, "action.timeout", action.id)
        if result.wait_until is not None:
            self.engine.heap.push_earlier(result.wait_until, "action.recheck", action.id)
        if result.unresolved:
            self.engine.heap.push_earlier(now + RECHECK_MS, "action.recheck", action.id)
        outside = [p for p in missing if not self._in_landing(p)]
        if outside:
            delay = self._poll_backoff.get(action.id, 500) * 2
            delay = min(delay, POLL_MAX_MS)
            self._poll_backoff[action.id] = delay
            self.engine.heap.push_earlier(now + delay, "action.poll", action.id)
        self._schedule_skip(coord, app, action)

    def _in_landing(self, path: str) -> bool:
        landing = self.engine.landing_dir
        return landing is not None and _local(path).startswith(str(landing).rstrip("/") + "/")

    def on_timeout(self, tx: Tx, aid: str) -> None:
        action = jobs.get(tx.conn, ActionRow, aid)
        if (
            action is None
            or not allowed(Machine.ACTION, action.status, Event.TIMEOUT)
            or action.timeout_at is None
        ):
            return
        if tx.now_ms < action.timeout_at:
            self.engine.heap.push(action.timeout_at, "action.timeout", aid)
            return
        coord = jobs.coord_head(tx.conn, action.coord_id)
        if coord is not None and coord.status in COORD_SUSPENDED:  # delayed, not lost: see resume
            self._after_resume.setdefault(coord.id, set()).add(aid)
            return
        coordcmd.move_action(
            tx,
            action,
            Event.TIMEOUT,
            error_code="E1025",
            error_message="inputs did not arrive before the timeout",
        )
        self._poll_backoff.pop(aid, None)
        self._raced.discard(aid)
        coordcmd.rollup_tx(tx, self.engine.effects, action.coord_id)
        self.mark(action.coord_id)

    # ------------------------------------------------------------------ LAST_ONLY / NONE

    def _schedule_skip(self, coord: CoordRow, app: CoordinatorApp, action: ActionRow) -> None:
        deadline = coordcmd.skip_deadline(coord, app, action)
        if deadline is not None:
            self.engine.heap.push(deadline + 1, "action.skip", action.id)

    def on_skip(self, tx: Tx, aid: str) -> None:
        action = jobs.get(tx.conn, ActionRow, aid)
        if action is None or not allowed(Machine.ACTION, action.status, Event.SKIP):
            return
        coord = jobs.must_coord_head(tx.conn, action.coord_id)
        deadline = coordcmd.skip_deadline(coord, coordcmd.app_of(coord, tx.conn), action)
        if deadline is None or tx.now_ms <= deadline:
            return
        coordcmd.move_action(tx, action, Event.SKIP)
        self.engine.heap.cancel("action.timeout", aid)
        coordcmd.rollup_tx(tx, self.engine.effects, coord.id)
        self.mark(coord.id)

    # ------------------------------------------------------------------ launch

    def submit_ready(
        self,
        tx: Tx,
        coord: CoordRow,
        now: int,
        counts: dict[str, int],
        fresh: list[dict[str, Any]] | None = None,
    ) -> bool:
        """Launch READY actions within the free slots (``counts``: the coordinator's stored
        actions by status). ``fresh``: READY actions not written yet; those this writes are
        taken out of it. False when a launch failed: the caller rolls the coordinator up
        from the store, not from the row it holds."""
        fresh = [] if fresh is None else fresh
        if not counts.get(A.READY) and not fresh:
            return True
        active = counts.get(A.SUBMITTED, 0) + counts.get(A.RUNNING, 0)
        slots = 1_000_000 if coord.concurrency < 0 else coord.concurrency - active
        execution = ExecutionOrder(coord.execution)
        # LAST_ONLY / NONE skip stale READY actions on the way: look past them (a pass that only
        # skipped would otherwise leave the rest READY with nothing to wake the coordinator),
        # also when every slot is taken (oozie.md §2.4: a READY action is SKIPPED too)
        skipping = execution in (ExecutionOrder.LAST_ONLY, ExecutionOrder.NONE)
        if slots <= 0 and not skipping:
            return True
        newest_first = execution is not ExecutionOrder.FIFO
        clean = True
        limit = None if skipping else slots
        ready: list[ActionRow] = []
        if counts.get(A.READY):
            ready = jobs.ready_actions(tx.conn, coord.id, newest_first=newest_first, limit=limit)
        unwritten = {v["id"]: v for v in fresh}
        if unwritten:
            ready.extend(_unwritten_row(v) for v in fresh)
            ready.sort(key=lambda a: a.nominal_time, reverse=newest_first)
            ready = ready if limit is None else ready[:limit]
        app = coordcmd.app_of(coord, tx.conn)
        written: set[str] = set()
        for action in ready:
            insert = unwritten.get(action.id)
            deadline = coordcmd.skip_deadline(coord, app, action)
            if deadline is not None and now > deadline:
                coordcmd.move_action(tx, action, Event.SKIP, insert=insert)
                written.add(action.id)
                continue
            if slots <= 0:  # no slot left; older ones may still be skipped
                if deadline is not None:  # skipped at its deadline if no slot frees by then
                    self.engine.heap.push(deadline + 1, "action.skip", action.id)
                continue
            if self.engine._guarded(
                tx, f"launch {action.id}", self.launch, tx, coord, app, action, insert, False
            ):
                written.add(action.id)
                slots -= 1
                continue
            clean = False
            now_row = jobs.get(tx.conn, ActionRow, action.id)
            if now_row is None or now_row.status == A.READY:
                slots -= 1  # undone, still READY (or never written): tried again later
                continue
            # it FAILED: it holds no slot, so the next READY one may take it; those beyond
            # this pass's batch are launched by another pass (nothing else would wake it)
            if insert is not None:
                written.add(action.id)
            self.mark(coord.id)
        if written:
            fresh[:] = [v for v in fresh if v["id"] not in written]
        return clean

    def launch(
        self,
        tx: Tx,
        coord: CoordRow,
        app: CoordinatorApp,
        action: ActionRow,
        insert: dict[str, Any] | None = None,
        rollup: bool = True,
    ) -> bool:
        """Start the action's workflow; False when the action failed instead. ``insert``: the
        action's row is not written yet (these are its values): it is written in its new state.
        ``rollup`` False: the caller rolls the coordinator up once its other new actions are
        written (before, a failed one alone would roll it up FAILED)."""
        from bundletui.engine import coord_inputs

        effects = self.engine.effects
        # a re-run's: the failed-nodes mark, and the properties ``rerun -D/--config`` gave
        conf = action.run_conf_dict()
        rerun = None
        if action.external_id and conf.pop(coordcmd.RERUN_FAILNODES, None) == "true":
            rerun = jobs.get(tx.conn, WorkflowRow, action.external_id)
        # READY -> SUBMITTED -> RUNNING (or FAILED) in one transaction: both transitions are
        # checked against the table, the row is written once, in its final state
        launched = decide(Machine.ACTION, action.status, Event.LAUNCH, action.id).to
        submitted = replace_row(action, status=launched)
        try:
            with self.engine.savepoint(tx, "launch"):
                if rerun is not None:
                    # ``rerun --failed``: its workflow runs the failed nodes again, its
                    # definition read again from the file, as a workflow rerun does
                    wfcmd.rerun_tx(
                        tx, effects, rerun, failed_nodes=True, conf=conf, clock=self.engine.clock
                    )
                    coordcmd.move_action(tx, submitted, Event.STARTED)
                    return True
                run_conf = coord_inputs.run_conf(tx.conn, app, coord, submitted, tx.now_ms)
                run_conf.update(conf)
                sub = self._workflow_submission(coord, app, run_conf, tx.rev)
                wf_id = wfcmd.create_workflow_tx(
                    tx, self.engine.db, effects, sub, start=True, parent_id=action.id
                )
        except sqlite3.Error:
            raise
        except Exception as exc:
            # Any failure to start the workflow fails the action, as Oozie's
            # CoordActionStartXCommand does (E1005 when it is not one of ours): left READY, it
            # would be tried again every tick, and fail the same way, for ever.
            code, message = launch_error(exc, "E1005", log, f"launch of {action.id}")
            coordcmd.move_action(
                tx, submitted, Event.FAIL, insert=insert, error_code=code, error_message=message
            )
            if rollup:
                coordcmd.rollup_tx(tx, effects, coord.id)
            return False
        coordcmd.move_action(
            tx,
            submitted,
            Event.STARTED,
            insert=insert,
            external_id=wf_id,
            run_conf=json.dumps(run_conf),
        )
        return True

    def _workflow_submission(
        self, coord: CoordRow, app: CoordinatorApp, conf: dict[str, str], rev: int
    ) -> wfcmd.WorkflowSubmission:
        """The workflow an action launches; its definition is read once per file version."""
        from bundletui.spec.config import resolve_app_path, with_defaults
        from bundletui.spec.load import load_app
        from bundletui.spec.xmlsafe import AppKind

        where = (coord.app_path, app.workflow_app_path)
        path = self._wf_paths.get(where)
        if path is None:
            base = Path(coord.app_path).parent
            path = self._wf_paths[where] = resolve_app_path(
                app.workflow_app_path, AppKind.WORKFLOW, base
            )
        # Keyed by the names the conf defines too: the <parameters> defaults kept here are those
        # this conf leaves undefined (two coordinators sharing a workflow file may differ).
        # The file is looked at once per tick (``rev``), not once per launch: a herd launches
        # thousands from one file in a tick, and an edit is seen by the next tick's launches.
        seen = self._wf_mtimes.get(path)
        if seen is None or seen[0] != rev:
            seen = self._wf_mtimes[path] = (rev, path.stat().st_mtime)
        key = (str(path), seen[1], frozenset(conf))
        cached = self._wf_cache.get(key)
        if cached is None:
            loaded = load_app(path, conf, self.engine.clock, kinds=(AppKind.WORKFLOW,))
            cached = (
                loaded.app,
                loaded.definition,
                loaded.app_path,
                loaded.defaults,  # as written: ${day}/out is expanded for each action
                codec.dumps(loaded.app),  # serialized once, stored with every workflow
            )
            self._wf_cache[key] = cached
        wf_app, definition, app_path, defaults, app_json = cached
        assert isinstance(wf_app, WorkflowApp)
        merged = with_defaults(conf, defaults) if defaults else dict(conf)
        return wfcmd.WorkflowSubmission(
            wf_app,
            merged,
            definition,
            app_path,
            coord.user,
            priority=coord.priority,
            app_json=app_json,
        )

    # ------------------------------------------------------------------ recovery

    def recover(self, tx: Tx) -> None:
        for coord in jobs.live_coordinators(tx.conn):
            if (
                coord.status in (J.PREP, J.RUNNING, J.RUNNINGWITHERROR)
                and not coord.done_materialization
            ):
                due = (
                    coord.next_materialized_time
                    if coord.next_materialized_time is not None
                    else coord.start_time
                )
                if coord.status == J.PREP:  # RUNNING at its start, before its first action
                    due = min(due, coord.start_time)
                self.engine.heap.push(due, "coord.materialize", coord.id)
            if coord.pause_time is not None:
                self.engine.heap.push(coord.pause_time, "coord.pause", coord.id)
            if coord.status in (J.RUNNING, J.RUNNINGWITHERROR):
                self.mark(coord.id)
        for action in jobs.waiting_actions(tx.conn):
            self.check.add(action.id)  # files may have landed while we were down
        for coord_id in jobs.coords_with_ready(tx.conn):
            self.mark(coord_id)

    # ------------------------------------------------------------------ landing events

    def paths_landed(self, tx: Tx, paths: list[str]) -> None:
        """Files or directories appeared: wake the actions waiting on them (O(waiters))."""
        for path in paths:
            # a dependency is stored as written in the uri-template: a plain path or file://
            for form in (path, f"file://{path}"):
                for aid in jobs.waiting_on(tx.conn, form):
                    self.check.add(aid)
                if os.path.isdir(path):
                    for aid, _dep in jobs.waiting_under(tx.conn, form):
                        self.check.add(aid)

    def rescan(self, tx: Tx) -> None:
        for aid, path in jobs.all_waiting_deps(tx.conn):
            if os.path.exists(_local(path)):
                self.check.add(aid)


class _Checks:
    """Actions whose inputs are to be checked, in the order they were asked for, and by
    coordinator (an action id is ``<coordinator id>@<n>``), so one coordinator's are taken at
    once without a scan of the rest."""

    def __init__(self) -> None:
        self._order: dict[str, None] = {}
        self._by_coord: dict[str, dict[str, None]] = {}

    def add(self, aid: str) -> None:
        if aid not in self._order:
            self._order[aid] = None
            self._by_coord.setdefault(aid.rpartition("@")[0], {})[aid] = None

    def pop(self) -> str:
        aid = next(iter(self._order))
        del self._order[aid]
        coord_id = aid.rpartition("@")[0]
        own = self._by_coord[coord_id]
        del own[aid]
        if not own:
            del self._by_coord[coord_id]
        return aid

    def take(self, coord_id: str) -> list[str]:
        own = list(self._by_coord.pop(coord_id, ()))
        for aid in own:
            del self._order[aid]
        return own

    def __bool__(self) -> bool:
        return bool(self._order)


_ACTION_COLUMNS = columns(ActionRow)


def _unwritten_row(values: dict[str, Any]) -> ActionRow:
    """The row ``values`` would be once written (the columns' defaults filled in)."""
    row: dict[str, Any] = dict.fromkeys(_ACTION_COLUMNS)
    row.update(pending=0, last_modified=values["created_time"], rev=0)
    row.update(values)
    return ActionRow(**row)


def _nothing_exists(_path: str) -> bool:
    return False


def _local(path: str) -> str:
    return path[7:] if path.startswith("file://") else path
