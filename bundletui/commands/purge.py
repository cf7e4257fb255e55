"""``purge``: delete ended jobs older than a number of days, with their logs and work
directories (Oozie's PurgeService and ``oozie admin -purge``; its defaults: workflows 30 days,
coordinators and bundles 7, batches of 100).

Each batch is one write transaction, so an engine running beside it waits for one batch at a
time, never for the whole purge, and a purge cut short leaves whole jobs or none. A job's files
go after the batch that deleted its rows has committed: a crash in between leaves directories,
never rows whose logs are gone.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from dataclasses import dataclass, field
from typing import TypedDict

from bundletui.commands import workflows as wfcmd
from bundletui.commands.base import Ctx, fail, run
from bundletui.errors import BundletuiError
from bundletui.model.clock import to_ms
from bundletui.store import purge as store_purge
from bundletui.store.db import Store, Tx

DAY_MS = 86_400_000
MAX_DAYS = 100_000  # some 270 years: beyond it a cutoff leaves SQLite's integers
MAX_LIMIT = 100_000
PURGE_META_KEY = "purged_rev"
"""The revision of the last purge that deleted something: a console reloads its tree when it
changes (rows that are gone leave no newer revision to poll for)."""


class Cutoffs(TypedDict):
    """What ended before these times (ms) may go, per kind."""

    wf_cutoff: int
    coord_cutoff: int
    bundle_cutoff: int


@dataclass(frozen=True)
class PurgeDays:
    """How old an ended job must be to go, in days, per kind; ``limit``: parentless jobs of
    each kind per batch (Oozie's ``wf``, ``coord``, ``bundle`` and ``limit``)."""

    wf: int = 30
    coord: int = 7
    bundle: int = 7
    limit: int = 100

    def __post_init__(self) -> None:
        for name in ("wf", "coord", "bundle"):
            if not 0 <= getattr(self, name) <= MAX_DAYS:
                raise fail(
                    "E0303",
                    name,
                    getattr(self, name),
                    hint=f"a number of days, from 0 to {MAX_DAYS:,}",
                    usage=True,
                )
        if not 1 <= self.limit <= MAX_LIMIT:
            raise fail(
                "E0303", "limit", self.limit, hint=f"a batch size, 1 to {MAX_LIMIT:,}", usage=True
            )

    def cutoffs(self, now_ms: int) -> Cutoffs:
        return {
            "wf_cutoff": now_ms - self.wf * DAY_MS,
            "coord_cutoff": now_ms - self.coord * DAY_MS,
            "bundle_cutoff": now_ms - self.bundle * DAY_MS,
        }

    def describe(self) -> str:
        return f"wf={self.wf};coord={self.coord};bundle={self.bundle};limit={self.limit}"


# ASCII digits: \d takes any script's
_SPEC_ITEM = re.compile(r"^(wf|coord|bundle|limit)=([0-9]{1,9})$")


def parse_purge_spec(text: str) -> PurgeDays:
    """``wf=30;coord=7;bundle=7;limit=100`` (as ``oozie admin -purge`` spells it; a key left
    out keeps Oozie's default), or ``default`` for all of them."""
    if text.strip().lower() == "default":
        return PurgeDays()
    values: dict[str, int] = {}
    for item in filter(None, (p.strip() for p in re.split(r"[;,]", text))):
        m = _SPEC_ITEM.match(item)
        if m is None or m.group(1) in values:
            key = item.partition("=")[0].strip()
            why = (
                f"{key} given twice"
                if m is not None
                else f"{key} is not supported (Oozie's oldCoordAction: purging a running"
                " coordinator's old actions is not done here)"
                if key.lower() == "oldcoordaction"
                else f"{item!r} is not KEY=DAYS with a key of wf, coord, bundle or limit"
            )
            raise fail(
                "E0303",
                "purge",
                text,
                hint=f"{why}; give wf=DAYS;coord=DAYS;bundle=DAYS;limit=N, each at most once"
                " (e.g. wf=30;coord=7;bundle=7), or default",
                usage=True,
            )
        values[m.group(1)] = int(m.group(2))
    if not values:
        raise fail(
            "E0303", "purge", text, hint="e.g. wf=30;coord=7;bundle=7, or default", usage=True
        )
    return PurgeDays(**values)


@dataclass
class Purged:
    """What a purge deleted (or, for a dry run, would delete)."""

    workflows: list[str] = field(default_factory=list)
    coordinators: list[str] = field(default_factory=list)
    bundles: list[str] = field(default_factory=list)
    unremoved: list[str] = field(default_factory=list)  # directories that could not be removed
    actions: int = 0  # of trees taken in parts (their jobs go with the last part)
    partly: str | None = None  # the tree the last batch left partly purged

    def add(self, found: store_purge.Purgeable) -> None:
        self.workflows += found.workflows
        self.coordinators += found.coordinators
        self.bundles += found.bundles
        self.actions += len(found.actions)

    def __bool__(self) -> bool:
        return bool(self.workflows or self.coordinators or self.bundles or self.actions)

    def counts(self) -> str:
        return (
            f"{len(self.workflows)} workflow(s), {len(self.coordinators)} coordinator(s),"
            f" {len(self.bundles)} bundle(s)"
        )


def purge_batch(
    tx: Tx, store: Store, days: PurgeDays, cursor: store_purge.Cursor, now_ms: int
) -> tuple[store_purge.Purgeable, store_purge.Cursor]:
    """One batch, in ``tx``: find, delete, and mark the store purged (for consoles). The
    files go with :func:`remove_files`, once ``tx`` has committed."""
    found, after = store_purge.find(tx.conn, cursor, **days.cutoffs(now_ms), limit=days.limit)
    if found:
        store_purge.delete(tx, found)
        store.set_meta(tx, PURGE_META_KEY, str(tx.rev))
    return found, after


def remove_files(store: Store, workflows: list[str]) -> list[str]:
    """Each purged workflow's log and work directories; those that could not be removed.
    (Only the store's home is read, never its connection: a thread may do it.)"""
    left: list[str] = []
    for wf_id in workflows:
        for folder in (wfcmd.log_dir(store, wf_id), wfcmd.work_dir(store, wf_id)):
            try:
                shutil.rmtree(folder)
            except FileNotFoundError:
                pass
            except OSError as exc:
                left.append(f"{folder}: {exc.strerror or exc}")
    return left


def purge(ctx: Ctx, days: PurgeDays, *, dry_run: bool = False) -> Purged:
    """Delete (``dry_run``: only find) the ended jobs older than ``days``, batch by batch."""
    now = to_ms(ctx.store.clock.now())  # one cutoff for every batch
    purged = Purged()
    try:
        _purge(ctx, days, now, purged, dry_run)
    except (BundletuiError, sqlite3.DatabaseError) as exc:
        # the batches before the one that failed have committed: "nothing was changed" is
        # only that batch's truth (QA)
        if not dry_run and purged:
            partly = (
                f"; {purged.partly} was left partly purged (its oldest actions gone), the"
                " next purge takes the rest"
                if purged.partly
                else ""
            )
            exc.add_note(
                f"purged {purged.counts()} in the batches before this error, with their"
                f" files; the batch it stopped in was undone{partly}"
            )
        raise
    return purged


def _purge(ctx: Ctx, days: PurgeDays, now: int, purged: Purged, dry_run: bool) -> None:
    cursor = store_purge.Cursor()
    while not cursor.done:
        if dry_run:
            with ctx.store.read() as conn:
                found, cursor = store_purge.find(  # each tree whole: nothing is deleted
                    conn, cursor, **days.cutoffs(now), limit=days.limit, whole=True
                )
        else:

            def batch(tx: Tx, at: store_purge.Cursor = cursor) -> store_purge.Purgeable:
                nonlocal cursor
                found, cursor = purge_batch(tx, ctx.store, days, at, now)
                return found

            found = run(ctx, "purge", None, {"purge": days.describe()}, batch)
            purged.unremoved += remove_files(ctx.store, found.workflows)
            purged.partly = None if cursor.clearing is None else cursor.clearing[1]
        purged.add(found)
