"""Event schedules on the engine (seed 004): intake, the job queue, the constraint checker.

* **Intake**: a landed file that completes a partition of a feed (its done-flag, or a complete
  file when the feed has none) becomes one row in ``events``, deduplicated by path, whether the
  watcher saw it live or a rescan found it. Program events are written by the commands in the
  same transaction as the action's end.
* **Consumption**: new events are read through a cursor kept in the store; for each one the
  reverse index gives the schedules it concerns (O(those)), the event joins each schedule's open
  job (an event belongs to at most one job per schedule — a primary key), and the trigger is
  evaluated. Cursor and job changes commit together, so no event is lost or counted twice.
* **Firing** creates a coordinator action (WAITING, the firing's events recorded on it) and
  moves the job to PENDING_CONSTRAINT; the constraint checker then launches it (PENDING_LAUNCH →
  LAUNCHED in the launch's transaction), holds it with a reason and a time to look again, or
  discards / forces it at its timeout. Time-based parts sit on the engine's due-time heap.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bundletui.commands import coordinators as coordcmd
from bundletui.model.clock import from_ms, to_ms
from bundletui.model.cron import LocalCron
from bundletui.model.events import (
    ConstraintContext,
    Event,
    EventSpec,
    TriggerVerdict,
    Verdict,
    Window,
    check_constraints,
    cron_leaves,
    evaluate,
    event_keys,
    events_needed,
    partition_key,
    satisfied_leaves,
)
from bundletui.model.ids import action_id
from bundletui.model.status import ActionStatus, JobStatus
from bundletui.model.transitions import Event as Ev
from bundletui.model.transitions import Machine, decide
from bundletui.spec.feeds import (
    completed_ms,
    hidden,
    on_clock,
    partition_size,
    partitions,
    size_of,
)
from bundletui.store import events as store
from bundletui.store import jobs
from bundletui.store.db import Tx
from bundletui.store.rows import ActionRow, CoordRow

if TYPE_CHECKING:
    from bundletui.engine.service import Engine

log = logging.getLogger("bundletui.engine.events")
# partitions a batch of file events completed: (partition, feed) -> (completed at, done-flag)
Found = dict[tuple[Path, Path], tuple[int, str]]
A = ActionStatus
J = JobStatus
ACTIVE = (J.RUNNING, J.RUNNINGWITHERROR)
# A paused schedule fires nothing, but keeps what arrives for when its pause is lifted (Oozie's
# pause holds materialization and then catches up; only a suspend drops events, as CDAP's).
PAUSED = (J.PAUSED, J.PAUSEDWITHERROR)
RESCAN_MS = 300_000


class EventService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.recheck: dict[str, None] = {}  # schedules whose held jobs should be looked at again
        self.settling: dict[str, int] = {}  # file-mode partition candidates: path -> size seen
        # how long a file of a feed without done-flag must stop growing (run --settle)
        self.settle_ms = int(engine.config.settle * 1000)

    def install(self) -> None:
        e = self.engine
        e.busy_checks.append(lambda: bool(self.recheck) and not e.safe_mode)
        e.pending_checks.append(self.pending)
        e.recoveries.append(self.recover)
        # In SAFEMODE nothing fires, launches or times out (README, Oozie's SAFEMODE): due
        # times are kept for NORMAL, and events wait in the log past the cursor.
        unless_safe = e.coordinators.unless_safe
        e.on_due("events.cron", unless_safe(self.on_time))
        e.on_due("events.wait", unless_safe(self.on_time))
        e.on_due("events.constraint", unless_safe(self.on_constraint_due))
        e.on_due("events.settle", self.on_settle)
        e.on_outbox(coordcmd.FEEDS_LIVE_AGAIN, lambda tx, cid, _args: self.watch_again(tx, cid))
        e.every("events.rescan", RESCAN_MS / 1000, self.rescan)
        e.landing.listeners.append(self.on_landed)

    # ------------------------------------------------------------------ intake

    def on_landed(self, tx: Tx, batch: list[tuple[str, str]]) -> None:
        found: Found = {}
        for _change, path in batch:
            try:
                self.intake(tx, path, found)
            except OSError as exc:  # one unreadable path, not the batch (QA: all were lost)
                log.warning(
                    "landed %s cannot be looked at (%s); the rescan finds it once it can be",
                    path,
                    exc,
                )
        # A watcher batch is unordered: record oldest first (ids, ${trigger:partitions()}).
        for (part, feed), (t, flag) in sorted(found.items(), key=lambda x: (x[1], str(x[0][0]))):
            self._record(tx, feed, part, t, partition_size(part, flag))

    def intake(self, tx: Tx, path: str, found: Found) -> None:
        """If ``path`` completes a partition of some feed, add it to ``found`` (a file partition
        of a feed without done-flag settles first)."""
        seen: set[tuple[str, str]] = set()
        p = Path(path)
        for ancestor in p.parents:
            for _coord, feed_path, flag in store.feeds_at(tx.conn, str(ancestor)):
                if (feed_path, flag) in seen:
                    continue
                seen.add((feed_path, flag))
                self._intake_for_feed(tx, p, Path(feed_path), flag, found)

    def _intake_for_feed(self, tx: Tx, p: Path, feed: Path, flag: str, found: Found) -> None:
        if flag:
            if p.name == flag and p.parent != feed and p.exists() and not hidden(p.parent, feed):
                found[p.parent, feed] = completed_ms(p.parent, flag), flag
            elif p.is_dir():  # moved in whole
                for part in partitions(feed, flag, under=p):
                    found[part, feed] = completed_ms(part, flag), flag
        elif p.is_file() and not hidden(p, feed):
            size = p.stat().st_size
            self.settling[str(p)] = size
            self.engine.heap.push(tx.now_ms + self.settle_ms, "events.settle", str(p))

    def on_settle(self, tx: Tx, path: str) -> None:
        """A file partition counts once it stopped growing (written, or renamed into place)."""
        before = self.settling.pop(path, None)
        p = Path(path)
        if before is None or not p.is_file():
            return
        size = p.stat().st_size
        if size != before:
            self.settling[path] = size
            self.engine.heap.push(tx.now_ms + self.settle_ms, "events.settle", path)
            return
        for ancestor in p.parents:  # a partition of every feed it lies in
            for feed_path in {
                f for _c, f, flag in store.feeds_at(tx.conn, str(ancestor)) if not flag
            }:
                self._record(tx, Path(feed_path), p, completed_ms(p, ""))

    def _record(
        self, tx: Tx, feed: Path, partition: Path, completed: int, size: int | None = None
    ) -> None:
        """``completed``: when its data completed (real clock), kept on the event so that a
        schedule whose start passed while no engine ran does not count what came before."""
        real_now = to_ms(self.engine.real_clock.now())
        store.record_partition(
            tx,
            str(feed),
            str(partition),
            size_of(partition) if size is None else size,
            on_clock(completed, tx.now_ms, real_now),
        )

    def rescan(self, tx: Tx, coord_id: str | None = None) -> None:
        """Find partitions that landed while nobody watched (start-up, and every few minutes);
        ``coord_id``: in that schedule's feeds only (:meth:`watch_again`)."""
        done: set[tuple[str, str]] = set()
        real_now = to_ms(self.engine.real_clock.now())
        found: list[tuple[int, str, str, str, Path]] = []  # (completed, path, feed, flag, part)
        for coord, feed_path, flag in store.all_feeds(tx.conn):
            if (feed_path, flag) in done or coord_id not in (None, coord):
                continue
            done.add((feed_path, flag))
            # the partitions recorded already are passed over before any is sized: a rescan
            # of a big feed re-inserted (and sized) them all, holding the store's write lock
            # for seconds every few minutes (QA (ak))
            known = store.known_partitions(tx.conn, partition_key(feed_path))
            new = [p for p in partitions(Path(feed_path), flag) if str(p) not in known]
            found += [(completed_ms(p, flag), str(p), feed_path, flag, p) for p in new]
        # oldest first across every feed, so that ids (and ${trigger:partitions()}) follow
        # arrival order: f1 g1 f2 g2 landed while the engine was down pair as they came
        for completed, text, feed_path, flag, part in sorted(found):
            size = partition_size(part, flag)
            if not flag and real_now - completed < self.settle_ms:
                self.settling[text] = size  # may still be growing: settle first
                self.engine.heap.push(tx.now_ms + self.settle_ms, "events.settle", text)
                continue
            self._record(tx, Path(feed_path), part, completed, size)

    def watch_again(self, tx: Tx, coord_id: str) -> None:
        """An ended schedule a command took back to running (a later end time, status=RUNNING,
        a rerun): its feeds were not watched while it was ended (``store.events.LIVE_FEED``),
        so what landed meanwhile — while an engine ran, or before this one started and did
        its start-up rescan — is looked for on disk now, as that rescan does, and counts as
        new from now (the periodic rescan found it minutes later, or a simulated run never)."""
        self.rescan(tx, coord_id)

    # ------------------------------------------------------------------ consumption

    def pump(self, tx: Tx) -> bool:
        if self.engine.safe_mode:
            return False  # the events stay past the cursor: consumed, in order, in NORMAL
        did = False
        cursor = store.pump_cursor(self.engine.db.conn)
        batch = store.events_after(tx.conn, cursor)
        if batch:
            for event in batch:
                self.engine._guarded(tx, f"event {event.id}", self.consume, tx, event)
            self.engine.db.set_meta(tx, store.PUMP_CURSOR, str(batch[-1].id))
            did = True
        if self.recheck:
            ids = list(self.recheck)
            self.recheck.clear()
            # Across every schedule looked at (a group's members), higher priority first, then
            # the oldest: a freed group slot goes to the job that waited for it, not back to
            # the schedule whose run just ended.
            held = [
                job
                for i in range(0, len(ids), 500)
                for job in store.jobs_in(tx.conn, "PENDING_CONSTRAINT", ids[i : i + 500])
            ]
            for job in sorted(held, key=lambda j: (-j.priority, j.id)):
                self.engine._guarded(
                    tx, f"constraints of job {job.id}", self.check_held, tx, job.id
                )
            did = True
        return did

    def pending(self) -> bool:
        """Held jobs to look at, or events past the cursor (an O(1) read of the last id)."""
        if self.engine.safe_mode:
            return False
        if self.recheck:
            return True
        if not self.engine.store_changed:
            return False  # no new event can have been written since the last look
        db = self.engine.db
        return store.max_event_id(db.conn) > store.pump_cursor(db.conn)

    def replay(self, tx: Tx, coord_id: str, after: int) -> None:
        """Hand ``coord_id`` the events after ``after`` that the pump has already consumed."""
        cursor = store.pump_cursor(self.engine.db.conn)
        for event in store.events_for(tx.conn, coord_id, after, cursor):
            self._consume_for(tx, event, coord_id)

    def settle(self, tx: Tx, coord_id: str) -> bool:
        """After a resume: the events the pump passed while the schedule was suspended are
        handed to it first, in order, before any newer one (those it ignores stay ignored).
        True if there were some to hand."""
        after = store.take_replay(tx, coord_id)
        if after is None:
            return False
        self.replay(tx, coord_id, after)
        return True

    def consume(self, tx: Tx, event: Any) -> None:
        """Hand one event to every schedule listening on its key; each schedule in its own
        savepoint, so one that fails does not make the others miss the event."""
        for coord_id, _bundle in store.schedules_for(tx.conn, event.key):
            self.engine._guarded(
                tx, f"event {event.id} for {coord_id}", self._consume_for, tx, event, coord_id
            )

    def _consume_for(self, tx: Tx, event: Any, coord_id: str) -> None:
        coord = jobs.coord_head(tx.conn, coord_id)
        if coord is not None and coord.status == J.PREP and coord.start_time <= tx.now_ms:
            self.process(tx, coord)  # its start time came but nobody moved it on yet
            coord = jobs.coord_head(tx.conn, coord_id)
        if coord is None or coord.status not in (*ACTIVE, *PAUSED) or tx.now_ms >= coord.end_time:
            return  # suspended, not started or ended schedules ignore events
        if self.settle(tx, coord_id):
            coord = jobs.must_coord_head(tx.conn, coord_id)  # firings moved its counters
        if store.ignores(tx.conn, coord_id, event.id):
            return  # from before it started, or landed while it was suspended
        if (
            event.kind == "program"
            and coord.bundle_id
            and event.payload.get("bundle") not in (None, coord.bundle_id)
        ):
            return  # a program trigger names a coordinator of the same bundle
        self._take(tx, coord, event)

    def _take(self, tx: Tx, coord: CoordRow, event: Any) -> None:
        """Give one event to the schedule's open job, and see whether it fires."""
        app = coordcmd.app_of(coord, tx.conn)
        assert app.events is not None
        if event.kind == "partition" and event.path:
            others = [
                k for k in event_keys(app.events) if k.startswith("partition:") and k != event.key
            ]
            taken = store.partition_job(tx.conn, coord.id, others, event.path) if others else None
            if taken is not None and taken[1] != "PENDING_TRIGGER":
                # the same partition through a nested feed, after the job it went to fired:
                # consumed with that job, not the start of another firing
                store.add_event_to_job(tx, coord.id, event.id, taken[0])
                return
        job = store.open_job(tx, coord.id, app.events.priority)
        if not store.add_event_to_job(tx, coord.id, event.id, job.id):
            return
        if coord.status not in ACTIVE:  # paused: evaluated once the pause is lifted
            return
        needed = events_needed(app.events.trigger)
        if needed is not None and needed > 1 and store.job_event_count(tx.conn, job.id) < needed:
            return  # too few events yet for the trigger to hold: no look at them all
        self.evaluate(tx, coord, job.id)

    def evaluate(self, tx: Tx, coord: CoordRow, job_id: int) -> None:
        """Has the open job's trigger fired? Fire it, or schedule the next time to look."""
        job = store.get_job(tx.conn, job_id)
        if job is None or job.state != "PENDING_TRIGGER":
            return
        spec = self._spec(coord)
        self._act(tx, coord, spec, job_id, self._look(tx, coord, spec, job))

    def _act(self, tx: Tx, coord: CoordRow, spec: EventSpec, job_id: int, look: _Look) -> None:
        """Fire the job if its trigger holds, or schedule the next time to look."""
        rows, window, verdict, next_cron = look
        if verdict.fired:
            self.fire(tx, coord, job_id, rows, satisfied_leaves(spec, window, tx.now_ms))
            return
        if verdict.next_check_ms is not None:
            self.engine.heap.push_earlier(verdict.next_check_ms, "events.wait", coord.id)
        if next_cron is not None:
            self.engine.heap.push_earlier(next_cron, "events.cron", coord.id)

    def _look(self, tx: Tx, coord: CoordRow, spec: EventSpec, job: store.JobRow) -> _Look:
        """The open job's events, its window, the trigger's verdict on it, the next cron time."""
        job_id = job.id
        rows = store.job_events(tx.conn, job_id)
        events = [Event(r.key, r.time, r.size, r.path or "") for r in rows]
        # The schedule's first job counts cron times from its start (Quartz's first fire time
        # may equal the start), or from its submission if it started before that: times that
        # passed while no engine ran fire once when one comes, as later missed times do
        # (Quartz's fire-once-now). A job opened by a firing must not count that firing's time.
        # A resume moves that start on: cron times while it was suspended are not owed; a
        # bundle's kick-off reached late moves it back to the kick-off (the times since are).
        opened = job.created_time
        if not store.has_earlier_job(tx.conn, coord.id, job_id):  # its first job
            reference = store.crons_from(tx.conn, coord.id)
            if reference is None:
                reference = min(coord.created_time, job.created_time)
            opened = max(coord.start_time, reference) - 1
        crons, next_cron = self._crons(spec, coord, opened, tx.now_ms)
        window = Window(job.created_time, events, crons)
        return rows, window, evaluate(spec, window, tx.now_ms), next_cron

    def _crons(
        self, spec: EventSpec, coord: CoordRow, opened_ms: int, now: int
    ) -> tuple[frozenset[str], int | None]:
        """Cron leaves whose time came since the job opened, and the next one still to come."""
        fired: set[str] = set()
        upcoming: list[int] = []
        for expr in cron_leaves(spec.trigger):
            nxt = LocalCron(expr, coord.timezone).next_after(from_ms(opened_ms))
            if nxt is None:
                continue
            if to_ms(nxt) <= now:
                fired.add(expr)
            else:
                upcoming.append(to_ms(nxt))
        return frozenset(fired), (min(upcoming) if upcoming else None)

    def on_time(self, tx: Tx, coord_id: str) -> None:
        coord = jobs.coord_head(tx.conn, coord_id)
        if coord is None or coord.status not in ACTIVE or tx.now_ms >= coord.end_time:
            return
        spec = self._spec(coord)
        job = store.open_job(tx, coord_id, spec.priority)
        self.evaluate(tx, coord, job.id)

    def fire(
        self, tx: Tx, coord: CoordRow, job_id: int, rows: list[Any], reason: list[str]
    ) -> None:
        """One firing = one coordinator action, WAITING until its constraints hold."""
        spec = self._spec(coord)
        if spec.constraints.since_last_run_ms and self._merge_into_held(
            tx, coord, job_id, rows, reason
        ):
            self._reopen(tx, coord, spec)
            return
        number = coord.last_action_number + 1
        last = coord.next_materialized_time or 0
        nominal = max(tx.now_ms, last + 1)  # strictly increasing: UNIQUE(coord_id, nominal_time)
        fired = {
            "fired_at": tx.now_ms,
            "reason": reason,
            "events": [_event_json(r) for r in rows],
        }
        aid = action_id(coord.id, number)
        created = decide(Machine.ACTION, None, Ev.SUBMIT).to
        jobs.insert(
            tx,
            ActionRow,
            {
                "id": aid,
                "coord_id": coord.id,
                "action_number": number,
                "nominal_time": nominal,
                "created_time": tx.now_ms,
                "status": created,
                "trigger": json.dumps(fired),
            },
        )
        jobs.update(
            tx, CoordRow, coord.id, last_action_number=number, next_materialized_time=nominal
        )
        job = store.get_job(tx.conn, job_id)
        assert job is not None
        store.move_job(tx, job, "PENDING_CONSTRAINT", fired_time=tx.now_ms, action_id=aid)
        log.debug("%s fired (%s) with %d events", aid, ",".join(reason), len(rows))
        self.check_job(tx, job_id)
        self._reopen(tx, coord, spec)

    def _reopen(self, tx: Tx, coord: CoordRow, spec: EventSpec) -> None:
        """Time keeps running for the next firing of a schedule with a cron or wait leaf."""
        if cron_leaves(spec.trigger) or _has_wait(spec):
            fresh = store.open_job(tx, coord.id, spec.priority)
            self.evaluate(tx, jobs.must_coord_head(tx.conn, coord.id), fresh.id)

    def _merge_into_held(
        self, tx: Tx, coord: CoordRow, job_id: int, rows: list[Any], reason: list[str]
    ) -> bool:
        """A schedule with a minimum interval between runs that already has a fired job waiting
        runs once with both: this firing's events join the waiting job's action (seed 004: a
        notification is added to any job not yet PENDING_LAUNCH; its test scenario: partitions
        arriving within the interval run together once it has passed). Separate actions would
        each wait one more interval, a backlog that grows whenever data comes more often.
        A rerun's job is passed over: it runs its action again with what fired it."""
        for held in store.jobs_in(tx.conn, "PENDING_CONSTRAINT", [coord.id]):
            if held.rerun:
                continue
            action = jobs.get(tx.conn, ActionRow, held.action_id or "")
            if action is None or action.status != A.WAITING:
                continue
            store.move_events(tx, job_id, held.id)
            store.delete_job(tx, job_id)
            fired = json.loads(action.trigger or "{}")
            known = {e["id"] for e in fired.get("events", [])}
            fired.setdefault("events", []).extend(_event_json(r) for r in rows if r.id not in known)
            fired["events"].sort(key=lambda e: e["id"])
            fired["reason"] = [*fired.get("reason", [])]
            fired["reason"] += [r for r in reason if r not in fired["reason"]]
            fired["merged_at"] = [*fired.get("merged_at", []), tx.now_ms]
            jobs.update(tx, ActionRow, action.id, trigger=json.dumps(fired))
            log.debug("%s: %d more events join the waiting run", action.id, len(rows))
            return True
        return False

    # ------------------------------------------------------------------ constraints

    def check_job(self, tx: Tx, job_id: int) -> None:
        """Launch the job if its constraints hold, else say what holds it. The held jobs that
        come before it (higher priority, then first fired) of its schedule or group are looked
        at first, so a slot freed meanwhile (a window that opened while no engine ran) goes to
        them, not to the newest firing."""
        job = store.get_job(tx.conn, job_id)
        if job is None or job.state != "PENDING_CONSTRAINT":
            return
        _from, _last, grp = store.schedule_state(tx.conn, job.coord_id)
        ids = store.group_members(tx.conn, grp) if grp else [job.coord_id]
        mine = (-job.priority, job.id)
        slot_free = self._slot_check(tx, job.coord_id, ids)
        if slot_free():  # else the older ones are held as it is
            for before in store.jobs_in(tx.conn, "PENDING_CONSTRAINT", ids):
                if (-before.priority, before.id) >= mine or not slot_free():
                    break
                if before.retry_at is not None and before.retry_at > tx.now_ms:
                    continue  # held by its own time (a window, a delay): not launchable now
                self.check_held(tx, before.id)
                after = store.get_job(tx.conn, before.id)
                if before.coord_id == job.coord_id and after and after.state == job.state:
                    break  # still held: by a window, delay or gap that holds this one too
        self.check_held(tx, job_id)

    def _slot_check(self, tx: Tx, coord_id: str, group: list[str]) -> Callable[[], bool]:
        """Whether the schedule's concurrency (and its group's) leaves room for one more run,
        asked as often as needed (the limits are read once): the only constraints by which
        one held job's launch holds another."""
        coord = jobs.must_coord_head(tx.conn, coord_id)
        c = self._spec(coord).constraints
        limit = coord.concurrency if coord.concurrency >= 0 else None
        group_max = c.group_max if c.group else None

        def free() -> bool:
            if limit is not None and store.running_in(tx.conn, [coord_id]) >= limit:
                return False
            return group_max is None or store.running_in(tx.conn, group) < group_max

        return free

    def check_held(self, tx: Tx, job_id: int) -> None:
        """One job's constraints, for jobs looked at in their order already."""
        job = store.get_job(tx.conn, job_id)
        if job is None or job.state != "PENDING_CONSTRAINT" or job.action_id is None:
            return
        coord = jobs.must_coord_head(tx.conn, job.coord_id)
        action = jobs.get(tx.conn, ActionRow, job.action_id)
        if action is None or action.status != A.WAITING:
            if action is None or action.status not in (A.READY, A.SUBMITTED, A.RUNNING):
                # killed by hand while held: the job is over (and takes no more events)
                gone = action.status if action is not None else "deleted"
                store.move_job(tx, job, "DISCARDED", held_by=f"action {gone}")
            return
        spec = self._spec(coord)
        # the row's concurrency is the definition's until `change concurrency=` sets it (-1:
        # no limit), as for a time-based coordinator
        c = replace(
            spec.constraints, concurrency=coord.concurrency if coord.concurrency >= 0 else None
        )
        _from, last_run, group = store.schedule_state(tx.conn, coord.id)
        members = store.group_members(tx.conn, group) if group else []
        verdict = check_constraints(
            c,
            ConstraintContext(
                fired_ms=job.fired_time or tx.now_ms,
                now_ms=tx.now_ms,
                running=store.running_in(tx.conn, [coord.id]),
                group_running=store.running_in(tx.conn, members),
                last_run_ms=last_run,
                timezone=coord.timezone,
            ),
        )
        if verdict.verdict is Verdict.SATISFIED:
            self.launch(tx, coord, job, action, forced=verdict.forced)
        elif verdict.verdict is Verdict.NEVER:
            store.move_job(tx, job, "DISCARDED", held_by=verdict.reason)
            coordcmd.move_action(
                tx,
                action,
                Ev.TIMEOUT,
                error_code="EB0802",
                error_message=f"run constraints not met in time: {verdict.reason}",
                held_by=None,
            )
            coordcmd.rollup_tx(tx, self.engine.effects, coord.id)
        else:
            until = verdict.retry_at_ms
            store.update_job(tx, job.id, held_by=verdict.reason, retry_at=until)
            # the constraint's own time, not the timeout's (said apart: the job does not
            # start then, it is discarded, or forced)
            held: dict[str, Any] = {"constraint": verdict.reason, "until": verdict.lifts_at_ms}
            if verdict.timeout_at_ms is not None:
                held |= {"timeout": verdict.timeout_at_ms, "onTimeout": str(c.on_timeout)}
            jobs.update(tx, ActionRow, action.id, held_by=json.dumps(held))
            if until is not None:
                self.engine.heap.push(until, "events.constraint", str(job.id))

    def on_constraint_due(self, tx: Tx, job_id: str) -> None:
        self.check_job(tx, int(job_id))

    def launch(self, tx: Tx, coord: CoordRow, job: Any, action: ActionRow, *, forced: bool) -> None:
        store.move_job(
            tx,
            job,
            "PENDING_LAUNCH",
            held_by="forced at timeout" if forced else None,
            retry_at=None,
        )
        coordcmd.move_action(tx, action, Ev.INPUTS_READY, held_by=None)
        ready = jobs.must_get(tx.conn, ActionRow, action.id)
        app = coordcmd.app_of(coord, tx.conn)
        self.engine.coordinators.launch(tx, coord, app, ready)
        store.set_last_run(tx, coord.id, tx.now_ms)
        launched = store.get_job(tx.conn, job.id)
        assert launched is not None
        store.move_job(tx, launched, "LAUNCHED")
        coordcmd.rollup_tx(tx, self.engine.effects, coord.id)

    def schedule_changed(self, tx: Tx, coord: CoordRow) -> None:
        """A run of this schedule (or of its group) ended, or it was resumed: look again."""
        self.recheck[coord.id] = None
        _from, _last, group = store.schedule_state(tx.conn, coord.id)
        if group:
            for member in store.group_members(tx.conn, group):
                self.recheck[member] = None

    # ------------------------------------------------------------------ lifecycle

    def process(self, tx: Tx, coord: CoordRow) -> None:
        """The coordinator service's hook for event coordinators: start, end, wake."""
        now = tx.now_ms
        if coord.status == J.PREP:
            if now < coord.start_time:
                self.engine.heap.push(coord.start_time, "coord.materialize", coord.id)
                return
            t = decide(Machine.COORDINATOR, coord.status, Ev.MATERIALIZE, coord.id)
            coord = coordcmd.set_status(tx, self.engine.effects, coord, t.to)
            if now > coord.start_time:
                # its start passed while no engine ran: what a rescan found since counts by
                # when it completed (before the start: not new), not by when it was recorded
                events_from, _last, _grp = store.schedule_state(tx.conn, coord.id)
                horizon = max(events_from, store.horizon_at(tx.conn, coord.start_time))
                store.ignore_events_until(tx, coord.id, horizon)
        if coord.status in ACTIVE:
            if self.settle(tx, coord.id):
                coord = jobs.must_coord_head(tx.conn, coord.id)
            spec = self._spec(coord)
            self._rerun(tx, coord, spec)  # after the end time too, as a coordinator's rerun
            if now >= coord.end_time:
                if not coord.done_materialization:
                    jobs.update(tx, CoordRow, coord.id, done_materialization=1)
                return
            self.engine.heap.push(coord.end_time, "coord.materialize", coord.id)
            if (held := store.find_open_job(tx.conn, coord.id)) is not None:
                self._catch_up(tx, coord, held.id)  # events kept while it was paused
            elif cron_leaves(spec.trigger) or _has_wait(spec):  # time runs for the next firing
                job = store.open_job(tx, coord.id, spec.priority)  # (a firing reopens one)
                self.evaluate(tx, coord, job.id)
        self.schedule_changed(tx, coord)

    def _catch_up(self, tx: Tx, coord: CoordRow, job_id: int) -> None:
        """Events kept while it was paused go to its trigger one at a time, in order, as the
        pump hands them to a running schedule: three partitions kept for a count of 2 fire
        once with two and keep the third, as after SAFEMODE or downtime (QA (x): one firing
        took all three)."""
        job = store.get_job(tx.conn, job_id)
        if job is None or job.state != "PENDING_TRIGGER":
            return
        spec = self._spec(coord)
        look = self._look(tx, coord, spec, job)
        rows, _window, verdict, _next = look
        if len(rows) <= 1 or not verdict.fired:  # nothing to share out: looked at as it is
            self._act(tx, coord, spec, job_id, look)
            return
        store.release_events(tx, job_id)
        for row in rows:  # the held job takes the first, a firing opens the next
            fresh = jobs.coord_head(tx.conn, coord.id)  # a firing moves its action counters
            assert fresh is not None
            self._take(tx, fresh, row)

    def _rerun(self, tx: Tx, coord: CoordRow, spec: EventSpec) -> None:
        """Actions a rerun put back to WAITING run again with what fired them (the trigger
        kept on the action, so ``${trigger:…}`` is the same), once the schedule's constraints
        hold, counted from the rerun. Without a job they would wait for ever: an event
        schedule's actions wait for their job's constraints, not for inputs. A job still held
        for the action is its first firing's, left by a kill no engine had looked at yet: it
        is over, and the rerun's own job counts its timeout from the rerun."""
        for aid in jobs.unchecked_waiting(tx.conn, coord.id):
            held = store.held_job_of(tx.conn, aid)
            if held is not None:
                job = store.get_job(tx.conn, held)
                if job is None or job.rerun:
                    continue
                store.move_job(tx, job, "DISCARDED", held_by="action rerun")
            self.check_job(tx, store.rerun_job(tx, coord.id, aid, spec.priority))

    def recover(self, tx: Tx) -> None:
        for coord_id in store.event_schedule_ids(tx.conn):
            coord = jobs.coord_head(tx.conn, coord_id)
            if coord is not None and coord.status in (*ACTIVE, J.PREP):
                self.engine.coordinators.mark(coord_id)
        for job in store.jobs_in(tx.conn, "PENDING_LAUNCH"):
            # The launch never committed (it would have moved the job on): launch again.
            coord = jobs.must_coord_head(tx.conn, job.coord_id)
            action = jobs.get(tx.conn, ActionRow, job.action_id or "")
            if action is not None and action.status == A.READY:
                self.engine.coordinators.launch(tx, coord, coordcmd.app_of(coord, tx.conn), action)
                store.move_job(tx, job, "LAUNCHED")
        self.rescan(tx)

    def _spec(self, coord: CoordRow) -> EventSpec:
        spec = coordcmd.app_of(coord, self.engine.db.conn).events
        assert spec is not None, f"{coord.id} is not an event coordinator"
        return spec


# an open job's events, its window, the trigger's verdict on it, and the next cron time
_Look = tuple[list[store.EventRow], Window, TriggerVerdict, int | None]


def _event_json(r: Any) -> dict[str, Any]:
    """How an event is recorded on the action it fired (``trigger:`` EL reads this)."""
    return {
        "id": r.id,
        "kind": r.kind,
        "key": r.key,
        "path": r.path,
        "size": r.size,
        "time": r.time,
    }


def _has_wait(spec: EventSpec) -> bool:
    from bundletui.model.events import AllOf, AnyOf, Wait

    def walk(node: Any) -> bool:
        if isinstance(node, Wait):
            return True
        if isinstance(node, AllOf | AnyOf):
            return any(walk(c) for c in node.children)
        return False

    return walk(spec.trigger)
