"""The landing directory: file-system events become dependency checks (and partition events).

watchfiles runs in a thread and hands batches of paths to the engine loop; a slow rescan backs
it up (and runs at start-up, for files that landed while the engine was down).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING

import watchfiles

from bundletui.engine.service import file_identity
from bundletui.errors import EngineError
from bundletui.spec.feeds import storable
from bundletui.store import jobs
from bundletui.store.db import Tx

if TYPE_CHECKING:
    from bundletui.engine.service import Engine

log = logging.getLogger("bundletui.engine.landing")
RESCAN_MS = 300_000
FAST_STEP_MS = 5  # something waits on a file: see it within a few ms
IDLE_STEP_MS = 200  # nothing does: wake the watcher five times a second, not 200
MODE_CHECK_S = 1.0
RECHECK_DELAYS = (0.05, 0.25, 1.0, 3.0)  # seconds after a directory appears
DELIVERED_MAX = 200_000
POLL_DELAY_MS = 2_000  # when inotify cannot watch the tree: a walk of it every 2 s
RETRY_WATCH_S = 30.0  # when neither can (an unreadable directory): the watch tried again


class LandingWatcher:
    def __init__(self, engine: Engine, root: Path) -> None:
        self.engine = engine
        self.root = root
        # where the root really is: watchfiles reports paths under it (a symlinked landing
        # directory's, or /tmp's on macOS), which dependencies written under the root as
        # given would never match
        self._real = os.path.realpath(root)
        self.events: deque[tuple[str, str]] = deque()
        self._stop = threading.Event()
        self._restart = threading.Event()
        self.step_ms = FAST_STEP_MS
        self._thread: threading.Thread | None = None
        self.listeners: list = []  # (tx, [(change, path)]) -> None, for event schedules
        # path -> (inode, mtime) when it was last handed on: a re-walk passes on only what is
        # new or changed since, not every file of the tree again (loop thread only)
        self._delivered: dict[str, tuple[int, int]] = {}
        self._watched: tuple[int, int] | None = None  # (device, inode) of the watched root
        self._pinned: int | None = None  # a descriptor of it, held open (see _pin)

    def install(self) -> None:
        e = self.engine
        e.startup.append(self.start)
        e.shutdown_hooks.append(self.stop)
        e.pumps.insert(0, self.pump)
        e.pending_checks.append(lambda: bool(self.events))
        e.recoveries.append(self.recover)
        e.every("landing.rescan", RESCAN_MS / 1000, self.rescan)

    def start(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise EngineError(
                "EB204",
                f"cannot make the landing directory {self.root}: {exc.strerror or exc}",
                hint="give --landing a directory this user can write (it is made if missing),"
                " on a writable file system",
            ) from None
        if not self.engine.config.watch:
            return
        self._thread = threading.Thread(target=self._run, name="bundletui-landing", daemon=True)
        self._thread.start()
        loop = self.engine._loop
        if loop is not None:
            loop.call_later(MODE_CHECK_S, self.check_mode)
            # what lands between the start-up rescan and the moment the watch is in place
            # has no event: walked a few times as the watch comes up (it waited for the
            # 5-minute rescan)
            self._look_again([str(self.root)])

    def stop(self) -> None:
        """Stop and wait for the watcher thread: leaving it inside watchfiles' Rust code while
        the interpreter shuts down can crash the process (watchfiles #331)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        if self._pinned is not None and (self._thread is None or not self._thread.is_alive()):
            os.close(self._pinned)
            self._pinned = None

    def _run(self) -> None:
        """watchfiles polls its queue every ``step`` ms: 1–5 ms makes a landed file visible at
        once but costs ~3 % of a core while idle, so the step is short only while something
        waits on a file (see :meth:`check_mode`), and the watch restarts when that changes.
        If inotify refuses (its watch limit reached over a big tree), the tree is polled."""
        polling = gone = False
        blind = ""  # why the tree cannot be watched, when it was said
        while not self._stop.is_set():
            if gone and self.root.is_dir():
                log.warning("the landing directory %s is back; watching it again", self.root)
                gone = False
                loop = self.engine._loop
                if loop is not None:  # what landed before the new watch: walked again
                    with contextlib.suppress(RuntimeError):
                        loop.call_soon_threadsafe(self._look_again, [str(self.root)])
            try:
                self._watch(polling)
            except Exception as exc:  # the rescan keeps things going even so
                if not self.root.is_dir():  # deleted, or moved with the home: not a limit
                    if not gone:
                        log.error(
                            "the landing directory %s is gone; it is watched again once it is"
                            " back (a file landed meanwhile is found by the rescan)",
                            self.root,
                        )
                        gone = True
                    self._stop.wait(POLL_DELAY_MS / 1000)
                    continue
                unreadable = _unreadable(exc)
                if not polling and not unreadable:
                    log.error(
                        "the landing directory %s cannot be watched (%s); polling it every"
                        " %.0f s instead. For events at once, allow more inotify watches, e.g."
                        " sysctl fs.inotify.max_user_watches=524288",
                        self.root,
                        exc,
                        POLL_DELAY_MS / 1000,
                    )
                    polling = True
                    continue
                # Neither watch nor poll can take the tree (a directory in it this user cannot
                # read: both walk it all). Never give up: walk it ourselves, passing over what
                # cannot be read, and try the watch again now and then (QA: one locked
                # directory left the engine blind, for good, to the whole landing directory).
                said = f"{unreadable or exc}"
                if said != blind:
                    log.error(
                        "the landing directory %s cannot be watched (%s); it is walked every"
                        " %.0f s instead, and the watch is tried again every %.0f s",
                        self.root,
                        said,
                        POLL_DELAY_MS / 1000,
                        RETRY_WATCH_S,
                    )
                    blind = said
                self._walk_for(RETRY_WATCH_S)
                polling = False
                continue
            blind = ""

    def _pin(self) -> None:
        """Hold the watched directory open: its inode cannot be reused while we do, so a
        directory removed and made again at once has another (else ``rm -rf`` and ``mkdir``
        can give the new one the old number, and the watch stays on a dead directory)."""
        if self._pinned is not None:
            os.close(self._pinned)
            self._pinned = None
        try:
            self._pinned = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            self._watched = None
            return
        st = os.fstat(self._pinned)
        self._watched = (st.st_dev, st.st_ino)  # as file_identity gives it

    def _walk_for(self, seconds: float) -> None:
        """Walk the tree every :data:`POLL_DELAY_MS` for ``seconds`` (from this thread: the
        walk itself runs on the engine loop, which owns what was handed on)."""
        end = time.monotonic() + seconds
        while not self._stop.is_set() and time.monotonic() < end:
            loop = self.engine._loop
            if loop is not None:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._recheck, str(self.root))
            self._stop.wait(POLL_DELAY_MS / 1000)

    def _watch(self, polling: bool) -> None:
        while not self._stop.is_set():
            self._restart.clear()
            # the directory watched now (a symlinked root may point elsewhere than before):
            # check_mode compares, and a replaced directory is watched anew
            self._real = os.path.realpath(self.root)
            self._pin()
            for changes in watchfiles.watch(
                self.root,
                stop_event=_Either(self._stop, self._restart),
                debounce=50,
                step=self.step_ms,
                recursive=True,
                raise_interrupt=False,
                yield_on_timeout=False,
                rust_timeout=250,  # how soon a stop request is seen
                force_polling=polling,
                poll_delay_ms=POLL_DELAY_MS,
            ):
                for change, path in changes:
                    if change != watchfiles.Change.deleted:
                        self.events.append((change.name, self._as_given(path)))
                self.engine.wake()

    def _as_given(self, path: str) -> str:
        """``path`` under the root as it was given, not as resolved."""
        real, root = self._real, str(self.root)
        if real != root and (path == real or path.startswith(real + os.sep)):
            return root + path[len(real) :]
        return path

    def _as_real(self, path: str) -> str:
        """``path`` under the root as given, under the directory the root really is."""
        real, root = self._real, str(self.root)
        if real != root and (path == root or path.startswith(root + os.sep)):
            return real + path[len(root) :]
        return path

    def check_mode(self) -> None:
        """Short polling step while actions or event schedules wait on files, long otherwise
        (a read-only look every second, from the engine loop)."""
        store = self.engine.store
        if store is None or self._stop.is_set():
            return
        waiting = jobs.anything_waits_on_files(store.conn)
        step = FAST_STEP_MS if waiting else IDLE_STEP_MS
        now = file_identity(self.root)
        if not self.root.is_dir():
            # a watch on a directory that is gone sees nothing, and says nothing: its thread
            # starts again, finds it gone, says so, and waits for it
            self._restart.set()
        elif self._watched is not None and now != self._watched:
            # removed and made again (or moved aside, or its link pointed elsewhere) between
            # two looks: the watch is on the old one, which nothing writes to any more
            log.warning(
                "the landing directory %s was replaced by another; watching the new one",
                self.root,
            )
            self._watched = now
            self._restart.set()
            self._look_again([str(self.root)])
        elif step != self.step_ms:
            self.step_ms = step
            self._restart.set()
            self._look_again([str(self.root)])  # nothing landed during the switch is missed
        loop = self.engine._loop
        if loop is not None:
            loop.call_later(MODE_CHECK_S, self.check_mode)

    def pump(self, tx: Tx) -> bool:
        if not self.events:
            return False
        batch: list[tuple[str, str]] = []
        while self.events:
            batch.append(self.events.popleft())
        # a directory that appeared may have filled before inotify watched it: what is in it
        # now joins this batch (and the delayed re-walks below catch what comes later)
        for change, path in list(batch):
            if change == "added" and os.path.isdir(path):
                batch.extend(self._undelivered(path))
        # a symlinked landing directory: a feed or dataset may name the directory as given or
        # as it really is (QA: one named by its real path waited for the rescan), so each
        # path is handed on in both forms
        batch.extend([(c, real) for c, p in batch if (real := self._as_real(p)) != p])
        batch = [(c, p) for c, p in batch if storable(p)]  # not valid UTF-8: passed over
        # watchfiles hands over a set: put it back in landing order, so partitions that land
        # within one debounce window are still consumed first-come, first-served
        batch.sort(key=_landing_order)
        paths = sorted({p for _c, p in batch})
        if len(self._delivered) > DELIVERED_MAX:
            self._delivered.clear()
        for p in paths:
            key = _identity(p)
            if key is not None:
                self._delivered[p] = key
        self.engine.coordinators.paths_landed(tx, paths)
        for listener in self.listeners:
            listener(tx, batch)
        self._look_again([p for c, p in batch if c != "recheck" and os.path.isdir(p)])
        return True

    def _look_again(self, directories: list[str]) -> None:
        """A directory that just appeared may fill up before inotify watches it, so its files'
        own events can be lost: walk it again a few times shortly after (real time)."""
        loop = self.engine._loop
        if loop is None:
            return
        for path in directories:
            for delay in RECHECK_DELAYS:
                loop.call_later(delay, self._recheck, path)

    def _recheck(self, path: str) -> None:
        found = self._undelivered(path)
        if found:
            self.events.extend(found)
            self.engine.wake()

    def _undelivered(self, path: str) -> list[tuple[str, str]]:
        """The files and directories under ``path`` not handed on yet (or changed since);
        what cannot be read is passed over (``os.walk`` skips it)."""
        found = []
        for root, _dirs, files in os.walk(path):
            for p in (root, *(os.path.join(root, f) for f in files)):
                key = _identity(p)
                if key is not None and self._delivered.get(p) != key:
                    found.append(("recheck", p))
        return found

    def recover(self, tx: Tx) -> None:
        self.engine.coordinators.rescan(tx)

    def rescan(self, tx: Tx) -> None:
        self.engine.coordinators.rescan(tx)


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


def _unreadable(exc: Exception) -> str | None:
    """The reason, when a watch failed on a directory this user cannot read (the notify
    crate's "Permission denied (os error 13) about [path]"), or on a name that is not UTF-8
    (which polling fails on too)."""
    text = str(exc)
    if "Unable to decode path" in text:  # watchfiles takes no name that is not UTF-8
        return f"{text}: a name in it is not valid UTF-8, and is passed over; rename it"
    return text if "os error 13" in text or "Permission denied" in text else None


class _Either:
    """A stop event for watchfiles that is set when either of two events is."""

    def __init__(self, a: threading.Event, b: threading.Event) -> None:
        self._a, self._b = a, b

    def is_set(self) -> bool:
        return self._a.is_set() or self._b.is_set()


def _landing_order(item: tuple[str, str]) -> tuple[int, str]:
    try:
        return os.stat(item[1]).st_mtime_ns, item[1]
    except OSError:
        return 0, item[1]
