"""Oozie's PurgeService in the engine (``run --purge``): every hour, the ended jobs past their
days go, one batch per tick, so the write lock is held for one batch at a time.

The first look comes a little after the engine starts, not at once: a restart serves first.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

from bundletui.commands.purge import Purged, PurgeDays, purge_batch, remove_files
from bundletui.store.db import Tx
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

    def install(self) -> None:
        self.engine.every("purge", PURGE_INTERVAL, self.batch, first=FIRST_PURGE_AFTER)

    def batch(self, tx: Tx) -> None:
        found, self.cursor = purge_batch(tx, self.engine.db, self.days, self.cursor, tx.now_ms)
        if found:
            self.engine.after_commit.append(functools.partial(self._committed, found))
        if self.cursor.done:
            self.engine.after_commit.append(self._round_over)
        else:  # more candidates: the next batch at the next tick
            self.engine.after_commit.append(functools.partial(self.engine.soon, "purge"))

    def _committed(self, found: Purgeable) -> None:
        self.round.add(found)
        self.round.unremoved += remove_files(self.engine.db, found.workflows)

    def _round_over(self) -> None:
        done, self.round, self.cursor = self.round, Purged(), Cursor()
        if done.workflows or done.coordinators or done.bundles:
            log.info(
                "purged %d workflow(s), %d coordinator(s), %d bundle(s) (%s)",
                len(done.workflows),
                len(done.coordinators),
                len(done.bundles),
                self.days.describe(),
            )
        for left in done.unremoved:
            log.warning("purge: not removed: %s", left)
