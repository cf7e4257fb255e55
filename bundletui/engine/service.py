"""The engine service: one asyncio loop that reacts to what is due, what finished, and what
commands left in the store.

A tick gathers work (outbox items written by commands, due times from the heap, finished
processes, landed files) and applies it in one write transaction, each item inside a savepoint so
one bad item cannot wedge the rest. Processes are started only after the transaction that marks
them RUNNING has committed. With a simulated clock, time jumps to the next due time whenever
nothing is running or ready; the engine code is the same in both modes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bundletui._host import host_label, this_host
from bundletui.engine.heap import Due, DueHeap
from bundletui.errors import BundletuiError, EngineError, StoreError
from bundletui.model.clock import Clock, RealClock, SimulatedClock, from_ms, to_ms
from bundletui.store import jobs
from bundletui.store import lease as lease_store
from bundletui.store.clockstate import set_clock_mode, stored_sim_now
from bundletui.store.db import LOCKED, Store, Tx
from bundletui.store.jobs import has_outbox, outbox_done, outbox_head

if TYPE_CHECKING:
    from bundletui.commands.purge import PurgeDays
    from bundletui.engine.bundles import BundleService
    from bundletui.engine.coordinators import CoordinatorService
    from bundletui.engine.effects import EngineEffects
    from bundletui.engine.events import EventService
    from bundletui.engine.landing import LandingWatcher
    from bundletui.engine.workflows import WorkflowRunner

log = logging.getLogger("bundletui.engine")

OutboxHandler = Callable[[Tx, str, dict[str, Any]], None]
DueHandler = Callable[[Tx, str], None]


@dataclass
class EngineConfig:
    home: Path
    landing: Path | None = None
    clock: str = "real"  # real | simulated | "" (the store's: refused if it was simulated)
    start_time: datetime | None = None
    until: datetime | None = None
    max_workers: int = 32
    lease_ttl: float = 5.0
    settle: float = 0.5  # seconds a file of a feed without done-flag must stop growing
    poll_interval: float = 0.05  # how often other processes' commits are looked for...
    idle_poll_interval: float = 0.1  # ...and once nothing happened for ``idle_after`` seconds
    idle_after: float = 2.0
    backward_support: bool = False
    watch: bool = True  # watch the landing directory
    tick_budget: float = 0.05  # seconds a tick's transaction may run before it commits
    exit_when_idle: bool = False  # stop once nothing runs, waits or is due
    tune_gc: bool = True  # freeze the start-up heap and collect less often (see run())
    purge: PurgeDays | None = None  # purge ended jobs every hour (``run --purge``)

    extra: dict[str, Any] = field(default_factory=dict)


class Engine:
    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.real_clock = RealClock()
        self.clock: Clock = self.real_clock
        self.store: Store | None = None
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.heap = DueHeap()
        self.outbox_handlers: dict[str, OutboxHandler] = {}
        self.due_handlers: dict[str, DueHandler] = {}
        self._asked_to_stop = False  # Ctrl-C, SIGTERM, the console
        self.after_commit: list[Callable[[], object]] = []
        self._warmed = False
        self._active_at = time.monotonic()  # when a tick last did something
        # when this engine took the store over (real clock): a job that ended before it ended
        # while no engine ran, and its workflow then too, not at the recovery's time
        self.up_since_ms = 0
        self.pumps: list[Callable[[Tx], bool]] = []  # called every tick; True = did something
        # a pump's tick slice, in tick budgets (1 if not given), asked each tick
        self.pump_shares: dict[Callable[[Tx], bool], Callable[[], float]] = {}
        self.pending_checks: list[Callable[[], bool]] = []  # does any pump have work? (cheap)

        self.busy_checks: list[Callable[[], bool]] = []  # anything running or ready?
        # a check's stand-in when asking whether the engine may stop (--exit-when-idle,
        # --until): a job frozen by `suspend --freeze` keeps the clock still, not the engine up
        self.stop_checks: dict[Callable[[], bool], Callable[[], bool]] = {}
        self.recoveries: list[Callable[[Tx], None]] = []
        self.startup: list[Callable[[], None]] = []
        # Housekeeping runs on real time (it is about the real file system), never on the due
        # heap: it must not make a simulated clock jump.
        self.housekeeping: dict[str, tuple[float, Callable[[Tx], None]]] = {}
        self._housekeeping_due: set[str] = set()
        self._housekeeping_first: dict[str, float] = {}

        self.shutdown_hooks: list[Callable[[], None]] = []
        # asked when a run that ends by itself (--until, --exit-when-idle) is about to stop:
        # True = work was started that must be done first (the purge's last round)
        self.before_stop: list[Callable[[], bool]] = []
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = False
        self._abandonable = False  # the write being begun may be given up on a stop
        self._data_version = -1
        self._outbox_dirty = True
        self.ticks = 0
        self.store_changed = True  # cheap pending checks may skip store reads when False
        self._did_last = True
        self.safe_mode = False
        self._sim_unsaved = False  # the simulated clock moved; the next tick's commit records it
        self.tick_deadline = 0.0
        # another process holds the store's write lock: since when, and when to try again
        self._locked_since: float | None = None
        self._retry_lock_at = 0.0
        self._tick_since: float | None = None  # the running tick's write began (lease thread reads)
        self.fatal: BundletuiError | None = None  # why it stopped on its own, to say at the end
        self._opened: tuple[int, int] | None = None  # the store file's (device, inode)
        self.state = "starting"  # starting | standby | active | stopped
        self.wake_coordinator_hook: Callable[[Tx, str], None] | None = None
        self.wake_bundle_hook: Callable[[Tx, str], None] | None = None
        self.effects: EngineEffects
        self.workflows: WorkflowRunner
        self.coordinators: CoordinatorService
        self.bundles: BundleService
        self.landing: LandingWatcher
        self.events: EventService
        # as given, made absolute but not resolved: the datasets' ${landing} paths are written
        # that way (through a symlink too); the watcher hands its events back in this form
        self.landing_dir: Path = Path(os.path.abspath(config.landing or config.home / "landing"))
        self._install_subsystems()

    # ------------------------------------------------------------------ wiring

    def _install_subsystems(self) -> None:
        from bundletui.engine.wiring import install

        install(self)

    def on_outbox(self, kind: str, handler: OutboxHandler) -> None:
        self.outbox_handlers[kind] = handler

    def on_due(self, kind: str, handler: DueHandler) -> None:
        self.due_handlers[kind] = handler

    def wake(self) -> None:
        """Thread-safe: something happened, tick soon."""
        if self._loop is None or self._wake is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._wake.set()
        else:
            with contextlib.suppress(RuntimeError):  # its loop closed: it ended, nothing to wake
                self._loop.call_soon_threadsafe(self._wake.set)

    def every(
        self, name: str, seconds: float, fn: Callable[[Tx], None], *, first: float | None = None
    ) -> None:
        """Run ``fn`` inside a tick every ``seconds`` of real time (safety-net rescans, the
        purge); the first time ``first`` seconds after the engine starts, if given."""
        self.housekeeping[name] = (seconds, fn)
        if first is not None:
            self._housekeeping_first[name] = first

    def soon(self, name: str) -> None:
        """Run housekeeping ``name`` at the next tick too (more of it is waiting)."""
        self._housekeeping_due.add(name)
        self.wake()

    def _arm_housekeeping(self, name: str, delay: float | None = None) -> None:
        if self._loop is None or self._stop:
            return
        seconds, _fn = self.housekeeping[name]
        self._loop.call_later(seconds if delay is None else delay, self._housekeeping_fire, name)

    def _housekeeping_fire(self, name: str) -> None:
        self._housekeeping_due.add(name)
        self.wake()
        self._arm_housekeeping(name)

    def outbox_pending(self) -> None:
        """Our own transaction wrote to the outbox (data_version only sees other connections)."""
        self._outbox_dirty = True

    def request_stop(self) -> None:
        self._stop = self._asked_to_stop = True
        self.wake()

    @property
    def db(self) -> Store:
        """The engine's store connection (only while running)."""
        assert self.store is not None, "engine not running"
        return self.store

    def now_ms(self) -> int:
        return to_ms(self.clock.now())

    # ------------------------------------------------------------------ run

    async def run(self) -> None:
        from bundletui.engine.processes import keep_inherited_fds_from_jobs

        keep_inherited_fds_from_jobs()
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self.store = Store(self.config.home, clock=self.real_clock)
        # only a wait whose work can be left to the next engine is given up on a stop (a tick,
        # the recovery, the lease): a write after a commit (started processes' pids) waits
        self.store.give_up_wait = lambda: self._stop and self._abandonable
        # the file it opened: a standby that takes over later checks this one, not whatever
        # is at the path by then (QA: one took over a moved store and made a new empty one)
        self._opened = file_identity(self.store.path)
        try:
            self._check_clock()
            await self._acquire_lease()
            self.up_since_ms = to_ms(self.real_clock.now())
            if self._stop:
                if self._asked_to_stop and self.state == "standby":  # QA: it said nothing
                    log.info("standby stopping, as asked: it never took the store over")
                return
            try:
                # again: while this engine stood by, another may have moved the store's clock
                self._check_clock()
                self._setup_clock()
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    lease_store.release(self.store, self.holder)
                raise
            log.info("engine active (lease holder %s)", self.holder)
            self.state = "active"
            lost = asyncio.Event()
            # beats start before the start-up work: a long recovery, or one waiting for
            # another process's write lock, must not leave the lease unrenewed
            stop_beats = self._start_beats(lost)
            try:
                for hook in self.startup:
                    hook()
                await self._recover()
                if self.config.tune_gc:
                    # A long-running loop: objects alive after start-up (definitions, caches)
                    # are kept out of the cyclic collector's passes, and collections come less
                    # often.
                    gc.freeze()
                    gc.set_threshold(50_000, 20, 20)
                for name in self.housekeeping:
                    self._arm_housekeeping(name, self._housekeeping_first.get(name))
                watch = asyncio.create_task(self._on_lease_lost(lost))
                try:
                    await self._main_loop()
                    if self._asked_to_stop:  # QA: Ctrl-C left the log ending at "active"
                        log.info(
                            "stopping, as asked: running jobs keep running, and the next engine"
                            " on this store takes them over"
                        )
                finally:
                    watch.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await watch
            finally:
                stop_beats.set()  # the thread closes its connection after any beat in flight
        finally:
            for hook in self.shutdown_hooks:
                with contextlib.suppress(Exception):
                    hook()
            if self.state == "active":
                # no 30 s wait for another process's write lock on the way out: a lease left
                # behind expires by itself, and a standby here sees this process gone
                self.store.wait_for_lock(1_000)
                with contextlib.suppress(sqlite3.Error):
                    lease_store.release(self.store, self.holder)
            self.state = "stopped"
            self.store.close()
        if self.fatal is not None:
            raise self.fatal

    def install_signal_handlers(self) -> Callable[[], None]:
        """Ctrl-C, SIGTERM and a hang-up (the SSH session or terminal of a foreground ``run``
        closed) stop the engine; returns what puts the previous handlers back. A hang-up that
        ``nohup`` ignores stays ignored. The loop's handler wakes it from any thread (its
        wakeup fd); a Python-level one on top sets the stop flag as soon as the main thread
        runs Python, even inside a tick that waits for a write lock another process holds,
        and that wait gives up on it."""
        loop = asyncio.get_running_loop()
        sigs = [signal.SIGINT, signal.SIGTERM]
        if signal.getsignal(signal.SIGHUP) is signal.SIG_DFL:
            sigs.append(signal.SIGHUP)
        before = {sig: signal.getsignal(sig) for sig in sigs}

        def on_signal(_sig: int, _frame: object) -> None:
            self._stop = self._asked_to_stop = True

        for sig in sigs:
            loop.add_signal_handler(sig, self.request_stop)
            signal.signal(sig, on_signal)

        def restore() -> None:
            for sig in sigs:
                loop.remove_signal_handler(sig)
                signal.signal(sig, before[sig])

        return restore

    async def _acquire_lease(self) -> None:
        assert self.store is not None
        ttl_ms = int(self.config.lease_ttl * 1000)
        announced = stalled = locked = False
        while not self._stop:
            self._abandonable = True  # a standby asked to stop stops waiting for the lock
            try:
                other = lease_store.try_acquire(
                    self.store,
                    self.holder,
                    os.getpid(),
                    this_host(),
                    self.config.clock or "real",
                    to_ms(self.real_clock.now()),
                    ttl_ms,
                )
            except BundletuiError as exc:
                if exc.code != "EB006":
                    raise
                # the lease looks free but another process holds the write lock (an engine
                # stopped inside its tick, a command, a sqlite3 shell): a standby waits on
                if not locked:
                    log.warning("lease not taken: %s; waiting", exc.message)
                    locked = True
                await self._sleep(min(self.config.lease_ttl / 3, 1.0))
                continue
            finally:
                self._abandonable = False
            if other is None:
                return
            if not announced:
                self.state = "standby"
                log.warning(
                    "another engine holds the store (pid %s on %s); waiting as standby",
                    other.pid,
                    host_label(other.host),
                )
                announced = True
            if not stalled and other.expires <= to_ms(self.real_clock.now()):
                log.warning(
                    "pid %s's lease expired but the process lives (stopped with Ctrl-Z, or "
                    "stalled): not taking over, it would go on starting jobs when it resumes; "
                    "resume it, or stop it (kill %s) and this engine takes over",
                    other.pid,
                    other.pid,
                )
                stalled = True
            await self._sleep(min(self.config.lease_ttl / 3, 1.0))

    def _start_beats(self, lost: asyncio.Event) -> threading.Event:
        """Renew the lease on a thread of its own, timed by that thread, with a connection of
        its own: a tick or a start-up step that blocks the event loop (a long one, or one
        waiting 30 s for another process's write lock) must not stop the beats. (They were
        timed by a coroutine and started after the start-up work: a test holding the lock
        just after "engine active" saw no beat at all.) Returns the event that stops them."""
        stop = threading.Event()
        threading.Thread(
            target=self._beat,
            args=(stop, asyncio.get_running_loop(), lost),
            name="bundletui-lease",
            daemon=True,
        ).start()
        return stop

    def _store_gone(self, path: Path) -> None:
        """The store file was deleted or replaced under the engine: what it writes would go
        to a file nobody else sees, so it stops (its jobs run on, and a new engine on the
        store, once it is back, takes them over)."""
        self.fatal = EngineError(
            "EB008",
            f"the store {path} was deleted, moved or replaced while the engine ran; the engine"
            " stopped",
            hint="put the store back where it was (bundletui.db with its -wal and -shm files),"
            " or restore it, and start the engine again: running jobs go on meanwhile",
        )
        # the whole error, with its hint, is said once, as the engine's run ends
        log.error("the store %s is gone from under the engine: stopping", path)
        self._stop = True
        self.wake()

    async def _on_lease_lost(self, lost: asyncio.Event) -> None:
        await lost.wait()
        log.error("lease lost: another engine took over; stopping")
        self.state = "standby"
        self._stop = True
        self.wake()

    def _beat(
        self, stop: threading.Event, loop: asyncio.AbstractEventLoop, lost: asyncio.Event
    ) -> None:
        """The lease thread. A beat waits for the write lock no longer than the time to the
        next one: when another process holds it for longer (a ``BEGIN IMMEDIATE`` left open, a
        long command), the beat is said once and tried again, and the lease is renewed when
        the lock is free, or found taken over."""
        every = self.config.lease_ttl / 3
        ttl_ms = int(self.config.lease_ttl * 1000)
        assert self.store is not None
        path, opened = self.store.path, self._opened
        try:  # gone before the first beat (a standby's take-over) stops it as after one
            if opened is not None and file_identity(path) != opened:
                raise StoreError("EB008", "moved")
            hb_store = Store(self.config.home, clock=self.real_clock, create=False, cache_mib=1)
        except StoreError:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._store_gone, path)
            return
        hb_store.wait_for_lock(max(ttl_ms // 3, 50))
        missed_since: float | None = None
        try:
            while not stop.wait(every):
                if opened is not None and file_identity(path) != opened:
                    with contextlib.suppress(RuntimeError):  # the loop may have closed
                        loop.call_soon_threadsafe(self._store_gone, path)
                    return
                try:
                    ok = lease_store.heartbeat(
                        hb_store, self.holder, to_ms(self.real_clock.now()), ttl_ms
                    )
                except sqlite3.OperationalError as exc:
                    if self._tick_since is not None:
                        continue  # this engine's own long tick: it renews the lease itself
                    if missed_since is None:
                        missed_since = time.monotonic()
                        locked = exc.sqlite_errorcode in (
                            sqlite3.SQLITE_BUSY,
                            sqlite3.SQLITE_LOCKED,
                        )
                        log.warning(
                            "lease not renewed: %s%s; trying again every %.1f s",
                            exc,
                            " (another process holds the store's write lock)" if locked else "",
                            every,
                        )
                    continue
                if missed_since is not None:
                    log.warning(
                        "lease renewed again, %.1f s after the first missed beat",
                        time.monotonic() - missed_since,
                    )
                    missed_since = None
                if not ok:
                    with contextlib.suppress(RuntimeError):  # the loop may have closed
                        loop.call_soon_threadsafe(lost.set)
                    return
        finally:
            hb_store.close()

    def _check_clock(self) -> None:
        assert self.store is not None
        check_clock(self.store, self.config.clock, self.config.start_time)

    def _setup_clock(self) -> None:
        assert self.store is not None
        if self.config.clock == "simulated":
            resumed = (
                stored_sim_now(self.store) if self.store.meta("clock") == "simulated" else None
            )
            start = resumed or self.config.start_time
            if start is None:  # a simulated store without its time (see _check_clock)
                raise _needs_start_time()
            if resumed and self.config.start_time and resumed < self.config.start_time:
                start = self.config.start_time
            elif resumed and self.config.start_time and self.config.start_time < resumed:
                log.warning(
                    "--start-time %s is before the store's simulated now; a clock does not go "
                    "back: resuming at %s",
                    self.config.start_time.isoformat(),
                    resumed.isoformat(),
                )
            if resumed is None:
                self._warn_real_stamps(start)
            self.clock = SimulatedClock(start)
            with self.store.write() as tx:
                set_clock_mode(self.store, tx, "simulated", start)
            log.info("simulated clock at %s", start.isoformat())
            if self.config.until is not None and self.config.until < start:
                log.warning(
                    "--until %s is before the simulated clock (%s), which does not go back: "
                    "the engine does what is due now and stops",
                    self.config.until.isoformat(),
                    start.isoformat(),
                )
        else:
            self.clock = self.real_clock
            if self.store.meta("clock") != "real":
                with self.store.write() as tx:
                    set_clock_mode(self.store, tx, "real")
        self.store.clock = self.clock

    def _warn_real_stamps(self, start: datetime) -> None:
        """A store's first simulated run after jobs were submitted on the real clock: their
        created and started times are later than the times the simulated engine gives them
        (a workflow may end before it started). Said once, with how to avoid it."""
        assert self.store is not None
        later = jobs.jobs_created_after(self.store.conn, to_ms(start))
        if later:
            log.warning(
                "%d job(s) of this store were submitted on the real clock, after --start-time "
                "%s: their submit and start times read later than the simulated times the "
                "engine gives them. To stamp submissions on the simulated clock, set it first "
                "(bundletui run --clock simulated --start-time T --until T), then submit",
                later,
                start.isoformat(),
            )

    async def _recover(self) -> None:
        """The start-up reconciliation, in one transaction. Another process holding the write
        lock past the wait (a sqlite3 shell left in BEGIN) delays it, as it delays a tick: the
        engine says so and tries again each second rather than exit (nothing of it ran)."""
        assert self.store is not None
        said = False
        while True:
            try:
                with self._abandonable_write() as tx:
                    for recovery in self.recoveries:
                        recovery(tx)
                break
            except BundletuiError as exc:
                if exc.code != LOCKED:
                    raise
                if self._stop:  # the wait was given up for a stop (Ctrl-C)
                    return
                if not said:
                    log.warning("recovery not written: %s; trying again every second", exc.message)
                    said = True
                await asyncio.sleep(1.0)
                if self._stop:
                    return
        if said:
            log.warning("recovery written: the store is writable again")
        self._run_after_commit()

    # ------------------------------------------------------------------ loop

    async def _main_loop(self) -> None:
        assert self.store is not None and self._wake is not None
        while not self._stop:
            self._wake.clear()
            did = self.tick()
            if self._stop:
                break
            if did:
                self._active_at = time.monotonic()
                await asyncio.sleep(0)
                continue
            if self._locked_since is not None:  # work not written yet: no stop, no clock jump
                await self._idle()
                continue
            if self._until_reached():
                if self._work_before_stop():
                    continue
                log.info("reached --until %s; stopping", self.config.until)
                break
            if self._idle_for_good():
                if self._work_before_stop():
                    continue
                log.info("nothing runs, waits or is due; stopping (--exit-when-idle)")
                if self.workflows.frozen:
                    log.info(
                        "left frozen (suspend --freeze): %s; `bundletui resume` lets them go on",
                        ", ".join(sorted(self.workflows.frozen)),
                    )
                break

            if isinstance(self.clock, SimulatedClock) and not self._busy():
                nxt = self.heap.peek_time()
                if nxt is not None and (
                    self.config.until is None or nxt <= to_ms(self.config.until)
                ):
                    self._jump(max(nxt, self.now_ms()))
                    continue
                if self.config.until is not None:
                    self._jump(to_ms(self.config.until))
                    continue
            await self._idle()

    def _work_before_stop(self) -> bool:
        return any([hook() for hook in self.before_stop])  # every hook asked, not the first

    def _busy(self, stopping: bool = False) -> bool:
        checks = self.busy_checks
        if stopping:
            checks = [self.stop_checks.get(check, check) for check in checks]
        return any(check() for check in checks)

    def _idle_for_good(self) -> bool:
        assert self.store is not None
        return (
            self.config.exit_when_idle
            and not self._busy(stopping=True)
            and self.heap.peek_time() is None
            and not has_outbox(self.store.conn)
        )

    def _until_reached(self) -> bool:
        if self.config.until is None:
            return False
        if self.clock.now() < self.config.until:
            return False
        return not self._busy(stopping=True)

    def _jump(self, time_ms: int) -> None:
        assert self.store is not None and isinstance(self.clock, SimulatedClock)
        self.clock.set(from_ms(time_ms))
        # recorded by the next tick, which always follows: the new time commits with the work
        # done at it (a crash in between resumes from the last recorded time and jumps again)
        self._sim_unsaved = True

    async def _idle(self) -> None:
        assert self._wake is not None
        if not self._warmed:
            self._warmed = True
            from bundletui.spec import xmlsafe

            xmlsafe.warm()  # once, while nothing waits: the first launch needs a validator
        # Polling for other processes' commits is most of an idle engine's CPU: a quiet engine
        # looks less often (timed work still wakes it on time, file events and the API at once)
        timeout = self.config.poll_interval
        if time.monotonic() - self._active_at >= self.config.idle_after:
            timeout = max(timeout, self.config.idle_poll_interval)
        nxt = self.heap.peek_time()
        if self._locked_since is not None:  # its due work waits for the lock, not for a time
            timeout = max(0.0, self._retry_lock_at - time.monotonic())
        elif nxt is not None and not isinstance(self.clock, SimulatedClock):
            timeout = min(timeout, max(0.0, (nxt - self.now_ms()) / 1000))
        await self._sleep(timeout)

    async def _sleep(self, seconds: float) -> None:
        assert self._wake is not None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):  # no task per sleep, unlike wait_for
                await self._wake.wait()

    def tick(self) -> bool:
        """Apply everything that is due or waiting; True when anything happened."""
        assert self.store is not None
        if self._locked_since is not None and time.monotonic() < self._retry_lock_at:
            return False
        self.ticks += 1
        version = self.store.data_version()
        # Did anybody (another process, or our own last tick) write since the last look?
        self.store_changed = version != self._data_version or self._did_last
        if version != self._data_version:
            self._data_version = version
            self._outbox_dirty = True
            # Oozie's SAFEMODE pauses materialization, input checks and launches (an operator
            # sets it with `oozie admin -systemmode`; a commit of another process tells us)
            safe = self.store.system_mode() == "SAFEMODE"
            if safe != self.safe_mode:
                self.safe_mode = safe
                log.warning(
                    "system mode %s: %s",
                    "SAFEMODE" if safe else "NORMAL",
                    "materialization, input checks and launches pause"
                    if safe
                    else "coordinators go on",
                )
        did = False
        outbox = outbox_head(self.store.conn) if self._outbox_dirty else []
        self._outbox_dirty = bool(outbox)
        due = self.heap.pop_due(self.now_ms())
        self.tick_deadline = time.monotonic() + self.config.tick_budget
        if not (
            outbox
            or due
            or self._housekeeping_due
            or self._sim_unsaved
            or any(p() for p in self.pending_checks)
        ):
            self._did_last = False
            return False  # nothing to do: no write transaction, no revision, no data_version change
        began, asked = False, time.monotonic()
        try:
            with self._abandonable_write() as tx:
                began, self._tick_since = True, time.monotonic()
                did = self._tick_work(tx, outbox, due)
                if time.monotonic() - self._tick_since > self.config.lease_ttl / 3:
                    # the lease thread could not beat while this tick held the write lock:
                    # renewed here, as it commits (no engine can take the lease meanwhile:
                    # taking it needs the lock)
                    ms = to_ms(self.real_clock.now())
                    lease_store.renew(tx, self.holder, ms, int(self.config.lease_ttl * 1000))
        except BundletuiError as exc:
            if began or exc.code != "EB006":
                raise
            self._write_lock_held(exc.message, due, asked)
            return False
        finally:
            self._tick_since = None
        if self._locked_since is not None:
            log.warning(
                "the store is writable again after %.1f s", time.monotonic() - self._locked_since
            )
            self._locked_since = None
        self._run_after_commit()
        if did:
            self._outbox_dirty = True
        self._did_last = did
        return did

    @contextlib.contextmanager
    def _abandonable_write(self) -> Iterator[Tx]:
        """A write transaction whose wait for the lock a stop may give up (its work is done
        again by the next engine); once begun it runs to its end as any other."""
        assert self.store is not None
        with contextlib.ExitStack() as stack:
            self._abandonable = True
            try:
                tx = stack.enter_context(self.store.write())
            finally:
                self._abandonable = False
            yield tx

    def _write_lock_held(self, why: str, due: list[Due], asked: float) -> None:
        """Another process held the store's write lock past the wait (a command stopped with
        Ctrl-Z inside its transaction, a sqlite3 shell left in BEGIN, an engine stopped inside
        its tick): nothing of this tick was done, so its due work goes back and the tick is
        tried again a second later. The engine goes on (it used to exit here, leaving none)."""
        for d in due:
            self.heap.push_earlier(d.time_ms, d.kind, d.key)
        self._outbox_dirty = True
        if self._stop:  # the wait was given up for a stop: the next engine does the work
            log.warning("tick not written: %s; stopping", why)
            return
        if self._locked_since is None:
            self._locked_since = asked  # when the tick first asked for the lock
            log.warning("tick not written: %s; trying again every second", why)
        self._retry_lock_at = time.monotonic() + 1.0

    def _tick_work(self, tx: Tx, outbox: list[Any], due: list[Due]) -> bool:
        """One tick's work, inside its write transaction."""
        assert self.store is not None
        did = False
        if not lease_store.holds(tx.conn, self.holder):
            raise EngineError(
                "EB202", "engine lease lost during a tick", hint="another engine took over"
            )
        if self._sim_unsaved:
            self.store.set_meta(tx, "sim_now", str(self.now_ms()))
            self._sim_unsaved = False
        for item_id, kind, target, args in outbox:
            did = True
            if outbox_done(tx, item_id):
                self._guarded(
                    tx, f"outbox {kind} {target}", self._dispatch_outbox, tx, kind, target, args
                )
        for d in due:
            did = True
            self._guarded(tx, f"due {d.kind} {d.key}", self._dispatch_due, tx, d)
        for name in sorted(self._housekeeping_due):
            did = True
            self._guarded(tx, f"housekeeping {name}", self.housekeeping[name][1], tx)
        self._housekeeping_due.clear()
        for pump in self.pumps:
            # Each pump gets its own slice: a flood of input checks must not starve launches.
            share = self.pump_shares[pump]() if pump in self.pump_shares else 1.0
            self.tick_deadline = time.monotonic() + self.config.tick_budget * share
            if self._guarded(tx, f"pump {getattr(pump, '__name__', pump)}", pump, tx):
                did = True
        return did

    def _dispatch_outbox(self, tx: Tx, kind: str, target: str, args: dict[str, Any]) -> None:
        handler = self.outbox_handlers.get(kind)
        if handler is None:
            log.warning("no handler for outbox item %s %s", kind, target)
            return
        handler(tx, target, args)

    def _dispatch_due(self, tx: Tx, due: Due) -> None:
        handler = self.due_handlers.get(due.kind)
        if handler is not None:
            handler(tx, due.key)

    @contextlib.contextmanager
    def savepoint(self, tx: Tx, name: str = "item") -> Iterator[None]:
        """What the block wrote (rows, after-commit actions) is undone if it raises, and the
        error goes on; a SQLite error is the store's and aborts the whole tick instead."""
        tx.savepoint(name)
        mark = len(self.after_commit)
        try:
            yield
        except sqlite3.Error:
            raise
        except Exception:
            tx.rollback_to(name)
            del self.after_commit[mark:]
            raise
        tx.release(name)

    def _guarded(self, tx: Tx, what: str, fn: Callable[..., Any], *args: Any) -> Any:
        """Run one work item in a savepoint: its failure is logged and undone, not fatal."""
        try:
            with self.savepoint(tx):
                return fn(*args)
        except BundletuiError as exc:
            log.error("%s: %s", what, exc.describe())
        except sqlite3.Error:
            raise
        except Exception:
            log.exception("%s failed", what)
        return False

    def _run_after_commit(self) -> None:
        actions, self.after_commit = self.after_commit, []
        for action in actions:
            try:
                action()
            except Exception:
                log.exception("after-commit action failed")


def file_identity(path: str | Path) -> tuple[int, int] | None:
    """Which file ``path`` names (device, inode); None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def check_clock(store: Store, clock: str, start_time: datetime | None) -> None:
    """Before the lease (and before a console opens): a store last run on a simulated clock is
    not moved to the real one (its whole backlog due at once, timeouts included) unless that
    is asked for; a new simulated clock needs its start time."""
    simulated = store.meta("clock") == "simulated"
    if clock == "simulated" and start_time is None and not simulated:
        raise _needs_start_time()  # said before the lease: no "engine active" line first
    if not clock and simulated:
        at = stored_sim_now(store)
        raise EngineError(
            "EB203",
            f"this store runs on a simulated clock (at {at.isoformat() if at else '?'})",
            hint="pass --clock simulated to go on with it, or --clock real to move it to the "
            "real clock (everything due until now then happens at once)",
        )


def _needs_start_time() -> EngineError:
    return EngineError(
        "EB201", "a simulated clock needs --start-time", hint="e.g. --start-time 2026-01-01T00:00Z"
    )
