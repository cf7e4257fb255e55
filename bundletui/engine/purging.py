"""Oozie's PurgeService in the engine (``run --purge``): every hour of real time (as Oozie's
service, whatever the engine's clock), the ended jobs past their days go, one batch per tick,
so the write lock is held for one batch at a time.

The first look comes a little after the engine starts, not at once: a restart serves first.
A run that ends by itself (``--until``, ``--exit-when-idle``) looks at once, and once more
before it stops: a simulated month is purged as of its end (QA: the README said so, and no
round came).
"""

from __future__ import annotations

import functools
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from bundletui.commands.purge import Purged, PurgeDays, purge_batch, remove_files
from bundletui.store.db import Store, Tx
from bundletui.store.purge import Cursor, Purgeable

if TYPE_CHECKING:
    from bundletui.engine.service import Engine

log = logging.getLogger(__name__)

PURGE_INTERVAL = 3600.0  # Oozie's oozie.service.PurgeService.purge.interval
FIRST_PURGE_AFTER = 10.0


class PurgeService:
    def __init__(self, engine: Engine, days: PurgeDays) -> None:
        self.engine = engine
        self.days = days
        self.cursor = Cursor()
        self.round = Purged()  # what this hour's round has deleted so far
        # files go on a thread of their own: a year-long coordinator's 8,760 directories
        # removed on the loop held up launches and completions for seconds (QA)
        self._files = ThreadPoolExecutor(1, thread_name_prefix="bundletui-purge")
        self._must_finish = False  # a round the engine may not stop before
        self._ends_by_itself = False  # --until, --exit-when-idle (known at install)
        self._last_done = False

    def install(self) -> None:
        # a run that ends by itself (--exit-when-idle, --until) purges first, at once, and is
        # not idle before that round is over: it stopped before the round's 10 s (QA)
        config = self.engine.config
        self._ends_by_itself = config.exit_when_idle or config.until is not None
        self._must_finish = self._ends_by_itself
        first = 0.0 if self._must_finish else FIRST_PURGE_AFTER
        self.engine.every("purge", PURGE_INTERVAL, self.batch, first=first)
        self.engine.busy_checks.append(lambda: self._must_finish)
        self.engine.before_stop.append(self._last_round)
        self.engine.shutdown_hooks.append(self._files.shutdown)  # a batch's files, not lost

    def _last_round(self) -> bool:
        """The round before the engine stops, once (a round under way is finished first).
        None in SAFEMODE: the first round said so already."""
        if self._last_done or self.engine.safe_mode:
            return False
        self._last_done = self._must_finish = True
        self.engine.soon("purge")
        return True

    def batch(self, tx: Tx) -> None:
        try:
            self._batch(tx)
        except sqlite3.Error:
            raise  # the tick is tried again, as any work that needs the store
        except Exception:
            # logged by the engine; a run that ends by itself must not wait for this round
            # for ever (review: --until never stopped after a purge that failed)
            self._must_finish = False
            raise

    def _batch(self, tx: Tx) -> None:
        if self.engine.safe_mode:  # no job is changed in SAFEMODE, by any face (README)
            log.warning(
                "purge skipped: the system is in SAFEMODE%s",
                "" if self._ends_by_itself else "; the next round is in an hour",
            )
            self._must_finish = False
            return
        found, self.cursor = purge_batch(tx, self.engine.db, self.days, self.cursor, tx.now_ms)
        if found:
            self.engine.after_commit.append(functools.partial(self._committed, found))
        if self.cursor.done:
            self.engine.after_commit.append(self._round_over)
        else:  # more candidates: the next batch at the next tick
            self.engine.after_commit.append(functools.partial(self.engine.soon, "purge"))

    def _committed(self, found: Purgeable) -> None:
        self.round.add(found)
        self._files.submit(_remove, self.engine.db, found.workflows)

    def _round_over(self) -> None:
        self._must_finish = False
        done, self.round, self.cursor = self.round, Purged(), Cursor()
        if done:
            log.info(
                "purged %d workflow(s), %d coordinator(s), %d bundle(s) (%s)",
                len(done.workflows),
                len(done.coordinators),
                len(done.bundles),
                self.days.describe(),
            )


def _remove(store: Store, workflows: list[str]) -> None:
    for left in remove_files(store, workflows):
        log.warning("purge: not removed: %s", left)
