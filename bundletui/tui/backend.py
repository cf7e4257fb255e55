"""Everything the console asks of the store, as blocking calls for thread workers.

Two connections: one for reads (polls, details, pages) and one for commands, so a poll never
queues behind a command's write lock and a command never waits for a poll (dolphie's rule).
Each is guarded by a lock because workers may overlap. Nothing here touches Textual.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from bundletui.commands import coord_queries, queries
from bundletui.commands.base import Ctx
from bundletui.commands.purge import PURGE_META_KEY
from bundletui.errors import BundletuiError
from bundletui.model.clock import RealClock
from bundletui.model.ids import IdKind, kind_of
from bundletui.store import changes as ch
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.lease import Lease, read_lease
from bundletui.store.rows import AuditRow, CoordRow
from bundletui.tui.printable import printable

T = TypeVar("T")


@dataclass
class Initial:
    top: list[ch.TreeRow]
    coordinators: list[ch.TreeRow]
    counts: dict[str, dict[str, int]]
    rev: int
    totals: ch.Totals
    lease: Lease | None
    server_now: datetime
    simulated: bool
    system_mode: str = "NORMAL"
    purged: str | None = None  # the revision of the last purge that deleted jobs


@dataclass
class Poll:
    """One poll's findings. ``changes`` is None when the store did not change at all."""

    changes: ch.Changes | None
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    reloaded: dict[str, tuple[list[ch.TreeRow], int]] = field(default_factory=dict)
    totals: ch.Totals | None = None
    lease: Lease | None = None
    server_now: datetime | None = None
    simulated: bool = False
    system_mode: str = "NORMAL"
    purged: str | None = None
    seconds: float = 0.0
    data_version: int = -1  # the store's version it read at (see Backend.applied)


@dataclass(frozen=True)
class LogFile:
    """A node's stdout or stderr, of one of its attempts. ``node`` names its section (a
    sub-workflow's node as ``parent-node → child-node``); ``attempt_text`` tells a retried
    node's attempts apart (``attempt 2 of up to 3``); ``headed``: whether the log it belongs
    to has more than one section, when each is named (``commands.logs`` decides all three)."""

    node: str
    stream: str  # out | err
    path: Path
    attempt: int = 1
    attempt_text: str | None = None
    headed: bool = False

    def label(self, *, named: bool) -> str:
        """``stdout`` / ``stderr``, after the node's name when ``named``; a retried node's
        attempt is always said, so an earlier attempt's failure is not read as the last's."""
        stream = "stdout" if self.stream == "out" else "stderr"
        if self.attempt_text is not None:
            return f"{self.node} ({self.attempt_text}) {stream}"
        return f"{self.node} {stream}" if named else stream


class Backend:
    def __init__(self, home: Path, action_limit: int = 200) -> None:
        self.home = home
        self.action_limit = action_limit  # a coordinator's newest actions in the tree
        self._read = Store(home, create=False)  # a console never makes a store (EB001)
        self._cmd: Store | None = None
        self._read_lock = threading.Lock()
        self._cmd_lock = threading.Lock()
        self._data_version = -1
        self.real_clock = RealClock()

    @property
    def db_path(self) -> Path:
        return self._read.path

    def close(self) -> None:
        with self._read_lock:
            self._read.close()
        with self._cmd_lock:
            if self._cmd is not None:
                self._cmd.close()

    def _reading(self, fn: Callable[[Any], T]) -> T:
        with self._read_lock, self._read.read() as conn:
            return fn(conn)

    # ------------------------------------------------------------------ tree

    def initial(self) -> Initial:
        return self._reading(self._initial)

    def _initial(self, conn: Any) -> Initial:
        self._data_version = self._read.data_version()
        return Initial(
            ch.top_level(conn),
            ch.bundle_coordinators(conn),
            ch.all_coordinator_counts(conn),
            ch.revision(conn),
            ch.totals(conn),
            read_lease(conn),
            self._read.clock.now(),
            self._read.meta("clock") == "simulated",
            self._read.system_mode(),
            self._read.meta(PURGE_META_KEY),
        )

    def reload(self, shown: set[str]) -> tuple[Initial, set[str]]:
        """:meth:`initial` again, and which of the ``shown`` jobs are gone (after a purge),
        from one snapshot: a purge between two reads showed its jobs for another poll."""
        return self._reading(lambda conn: (self._initial(conn), shown - ch.existing(conn, shown)))

    def poll(self, since: int, loaded_coords: frozenset[str], *, force: bool = False) -> Poll:
        """Rows changed after revision ``since``; nothing at all when ``PRAGMA data_version``
        says no other connection committed since the last poll."""
        t0 = time.perf_counter()
        with self._read_lock:
            version = self._read.data_version()
            if version == self._data_version and not force:
                return Poll(None, seconds=time.perf_counter() - t0)
            with self._read.read() as conn:
                lease = read_lease(conn)
                changes = ch.changed_since(conn, since)
                out = Poll(
                    changes,
                    data_version=version,
                    lease=lease,
                    server_now=self._read.clock.now(),
                    simulated=self._read.meta("clock") == "simulated",
                    system_mode=self._read.system_mode(),
                    purged=self._read.meta(PURGE_META_KEY),
                )
                if changes.rows:  # an idle engine's ticks move the revision, not the rows
                    touched = {r.parent for r in changes.rows if r.kind == ch.ACTION}
                    touched |= {r.id for r in changes.rows if r.kind == ch.COORD}
                    touched.discard(None)
                    out.counts = ch.coordinator_counts(conn, [t for t in touched if t])
                    for coord_id in sorted(
                        {r.id for r in changes.rows if r.kind == ch.COORD} & loaded_coords
                    ):
                        out.reloaded[coord_id] = ch.coordinator_actions(
                            conn, coord_id, self.action_limit
                        )
                    out.totals = ch.totals(conn)
        out.seconds = time.perf_counter() - t0
        return out

    def applied(self, poll: Poll) -> None:
        """The screen has taken ``poll``: a store still at its version has nothing new. Kept
        apart from :meth:`poll`, because a poll the screen drops (a newer one was started
        meanwhile) must not make the next one skip the changes it read."""
        if poll.changes is not None:
            self._data_version = poll.data_version

    def children(
        self, kind: str, item_id: str, link: str | None
    ) -> tuple[list[ch.TreeRow], int, int]:
        """A coordinator's newest actions (and its total), an action's or workflow's nodes,
        with the revision they were read at."""

        def body(conn: Any) -> tuple[list[ch.TreeRow], int, int]:
            rev = ch.revision(conn)
            if kind == ch.COORD:
                rows, total = ch.coordinator_actions(conn, item_id, self.action_limit)
                return rows, total, rev
            wf_id = link if kind == ch.ACTION else item_id
            if not wf_id:
                return [], 0, rev
            rows = ch.workflow_nodes(conn, wf_id)
            return rows, len(rows), rev

        return self._reading(body)

    def action_numbers(self, coord_id: str, statuses: tuple[str, ...]) -> list[int]:
        return self._reading(lambda conn: ch.action_numbers(conn, coord_id, statuses))

    def find(self, text: str) -> list[ch.TreeRow]:
        return self._reading(lambda conn: ch.find_jobs(conn, text))

    def lineage(self, job_id: str) -> list[tuple[str, str]]:
        """(kind, id) from the top of the tree down to ``job_id`` (for ``:job``)."""

        def body(conn: Any) -> list[tuple[str, str]]:
            cur = job_id
            kind = kind_of(cur)
            chain: list[tuple[str, str]] = []
            if kind is IdKind.WORKFLOW_NODE:
                node = ch.one(conn, ch.NODE, cur)
                if node is None:
                    return []
                chain.append((ch.NODE, cur))
                wf = ch.one(conn, ch.WORKFLOW, node.parent or "")
                if wf is None:
                    return []
                if wf.parent is None:
                    return [(ch.WORKFLOW, wf.id), *chain]
                cur, kind = wf.parent, kind_of(wf.parent)
            if kind is IdKind.WORKFLOW:
                wf = ch.one(conn, ch.WORKFLOW, cur)
                if wf is None:
                    return []
                if wf.parent is None:
                    return [(ch.WORKFLOW, cur), *chain]
                cur, kind = wf.parent, kind_of(wf.parent)
            if kind is IdKind.COORD_ACTION:
                action = ch.one(conn, ch.ACTION, cur)
                if action is None:
                    return []
                chain.insert(0, (ch.ACTION, cur))
                cur, kind = action.parent or "", IdKind.COORDINATOR
            if kind is IdKind.COORDINATOR:
                coord = ch.one(conn, ch.COORD, cur)
                if coord is None:
                    return []
                chain.insert(0, (ch.COORD, cur))
                if coord.parent is not None:
                    chain.insert(0, (ch.BUNDLE, coord.parent))
                return chain
            if kind is IdKind.BUNDLE and ch.one(conn, ch.BUNDLE, cur) is not None:
                return [(ch.BUNDLE, cur)]
            return []

        return self._reading(body)

    # ------------------------------------------------------------------ views

    def info(self, item_id: str, kind: str) -> dict[str, Any]:
        def body(conn: Any) -> dict[str, Any]:
            if kind == ch.COORD:
                info = coord_queries.coordinator_info(conn, item_id, length=0)
                if info.get("schedule") == "event" and (info.get("counts") or {}).get("WAITING"):
                    # the first job still held says which run constraint holds it and until
                    # when (the details' "why"); one indexed row, not the whole page
                    info["actions"] = coord_queries.coordinator_info(
                        conn, item_id, length=1, filter_text="status=WAITING"
                    ).get("actions", [])
                return info
            return queries.job_info(conn, item_id)

        return self._reading(body)

    def action_page(
        self,
        coord_id: str,
        offset: int,
        length: int,
        sort: tuple[str, bool] = ("n", True),
        around: str | None = None,
    ) -> dict[str, Any]:
        """One page of a coordinator's actions, newest first (one indexed query), or sorted
        by ``sort`` (the table's column, descending) over all of them. With ``around`` (an
        action id), the page that holds that action, wherever ``offset`` was."""
        column, descending = sort
        order = "desc" if descending else "asc"
        by = "status" if column == "status" else "nominal"

        def body(conn: Any) -> dict[str, Any]:
            coord = jobs.get(conn, CoordRow, coord_id)
            if coord is None:
                return {"actions": [], "total": 0, "offset": offset}
            start = offset
            if around is not None:
                at = coord_queries.action_position(conn, coord_id, around, order=order, by=by)
                start = offset if at is None else (at - 1) // length * length + 1
            page = coord_queries.action_page(
                conn, coord, offset=start, length=length, order=order, by=by
            )
            return {"actions": page.actions, "total": page.total, "offset": page.offset}

        return self._reading(body)

    def definition(self, item_id: str) -> str:
        return self._reading(lambda conn: coord_queries.definition_of(conn, item_id))

    def audit(self, target: str | None = None, limit: int = 200) -> list[AuditRow]:
        return self._reading(lambda conn: jobs.audit_rows(conn, target, limit))

    def log_files(self, kind: str, item_id: str, link: str | None) -> list[LogFile]:
        """The stdout/stderr files of a node, or of every node a workflow (an action's: its
        ``link``) has run, every attempt's in order; a sub-workflow node's are its child's
        nodes' (``commands.logs.sections``, as every face)."""
        from bundletui.commands import logs

        def body(conn: Any) -> logs.Sections | None:
            job_id = link if kind == ch.ACTION else item_id
            if kind not in (ch.NODE, ch.WORKFLOW, ch.ACTION) or not job_id:
                return None  # no process of its own, or an action with no workflow yet
            try:
                return logs.sections(self._read, job_id, conn=conn)
            except BundletuiError:  # gone meanwhile (purged): nothing to show
                return None

        found = self._reading(body)
        if found is None:
            return []
        return [
            LogFile(s.name, stream, path, s.files.attempt, s.attempt_text, found.headed)
            for s in found.sections
            for stream, path in (("out", s.files.out), ("err", s.files.err))
        ]

    # ------------------------------------------------------------------ commands

    def command(self, fn: Callable[[Ctx], T]) -> T:
        """Run one command function as the console (audited with face=console)."""
        with self._cmd_lock:
            if self._cmd is None:
                self._cmd = Store(self.home)
            return fn(Ctx(self._cmd, face="console"))

    def store_now(self) -> datetime:
        with self._read_lock:
            return self._read.clock.now()


def read_tail(path: Path, offset: int, limit: int = 256 * 1024) -> tuple[str, int]:
    """New text of a growing file from ``offset`` (at most ``limit`` bytes from the end the
    first time); returns the text and the next offset."""
    try:
        with path.open("rb") as f:
            f.seek(0, 2)
            size = f.tell()
            if size < offset:
                offset = 0  # truncated or replaced: start over
            start = max(offset, size - limit) if offset == 0 else offset
            f.seek(start)
            data = f.read()
    except FileNotFoundError:
        return "", offset
    text = printable(data.decode("utf-8", "replace"))  # a job's escapes are shown, not obeyed
    if offset == 0 and start > 0:  # said, not hidden: the view starts part-way into the file
        text = f"(… {start:,} earlier bytes not shown; the whole file: {path})\n{text}"
    return text, start + len(data)
