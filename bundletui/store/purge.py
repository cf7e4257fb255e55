"""Which ended jobs a purge may delete, and the deletes (Oozie's PurgeXCommand, SQL-first).

A job goes whole or not at all: a workflow with its sub-workflows, a coordinator with its
actions and every workflow they launched, a bundle with its coordinators. A tree is taken only
when every job in it has ended before its kind's cutoff, so nothing running, nothing recent,
and nothing a parent still refers to is ever deleted. Only parentless jobs are candidates: a
sub-workflow goes with its parent, an action's workflow with its coordinator, a bundle's
coordinator with its bundle, as in Oozie. A tree an engine still has something to do for
(a killed node's process to signal, a group to watch, an outbox item) waits for it.

A coordinator's (or a bundle's) tree too big for one batch is taken in parts, a batch each, so
that no batch holds the write lock for long: its oldest actions with their workflows first, the
jobs themselves with the last part. Each part checks again that the tree may still go (a rerun
in between keeps the rest).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from bundletui._procfs import group_alive
from bundletui.store.db import Tx

WORKFLOW_ENDED = ("SUCCEEDED", "FAILED", "KILLED")
JOB_ENDED = ("SUCCEEDED", "FAILED", "KILLED", "DONEWITHERROR")  # coordinators and bundles

_WF_ENDED_SQL = ", ".join(f"'{s}'" for s in WORKFLOW_ENDED)
_JOB_ENDED_SQL = ", ".join(f"'{s}'" for s in JOB_ENDED)
WORKFLOWS_PER_BATCH = 2_000
ACTIONS_PER_BATCH = 1_000  # a big coordinator's actions taken per part (with their workflows)

# a workflow and everything under it (sub-workflows, to any depth), by the parent index; with,
# for each, whether a node of it still runs (a kill recorded with no engine up leaves the
# node RUNNING until an engine signals its process) or its process group is still watched
_WF_TREE = (
    "WITH RECURSIVE tree(id) AS (SELECT id FROM wf_jobs WHERE {roots}"
    " UNION ALL SELECT w.id FROM wf_jobs w JOIN tree t ON w.parent_id = t.id)"
    " SELECT w.id, w.status, w.end_time,"
    " EXISTS (SELECT 1 FROM wf_nodes n WHERE n.wf_id = w.id AND n.status = 'RUNNING'),"
    " (SELECT group_concat(k.pgid) FROM kill_watch k WHERE k.wf_id = w.id)"
    " FROM wf_jobs w JOIN tree USING (id)"
)


@dataclass
class Purgeable:
    """What one purge deletes; ``workflows`` in the order their rows go (children first)."""

    workflows: list[str] = field(default_factory=list)
    coordinators: list[str] = field(default_factory=list)
    bundles: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)  # a part of a big coordinator's

    def __bool__(self) -> bool:
        return bool(self.workflows or self.coordinators or self.bundles or self.actions)


def _wf_tree(
    conn: sqlite3.Connection,
    roots: str,
    params: Sequence[object],
    cutoff: int,
    pending: set[str],
) -> list[str] | None:
    """The ids of the workflows ``roots`` selects and all under them, when every one ended
    before ``cutoff`` and nothing is left to do for it (no node still running, no process
    group watched, nothing for it in the outbox); None when one is not so."""
    ids = []
    rows = conn.execute(_WF_TREE.format(roots=roots), params)
    for wf_id, status, end, running, watched in rows:
        if status not in WORKFLOW_ENDED or end is None or end >= cutoff:
            return None
        if running or wf_id in pending:
            return None
        # a group watched for what outlived its job (an engine stopped within the grace)
        # holds the tree only while a process is still in it
        if watched and any(group_alive(int(g)) for g in str(watched).split(",")):
            return None
        ids.append(wf_id)
    return ids


def _coordinator_workflows(
    conn: sqlite3.Connection, coord_id: str, cutoff: int, pending: set[str]
) -> list[str] | None:
    if coord_id in pending:
        return None
    return _wf_tree(
        conn,
        "parent_id IN (SELECT id FROM coord_actions WHERE coord_id = ?)",
        (coord_id,),
        cutoff,
        pending,
    )


def _pending(conn: sqlite3.Connection) -> set[str]:
    """The jobs an engine still has something to do for (a signal, a wake-up, a child
    command): their outbox items' targets, an action's or a node's as its job's."""
    return {target.split("@")[0] for (target,) in conn.execute("SELECT target FROM outbox")}


@dataclass
class Cursor:
    """Where the next batch's scan of each kind starts: (time, id) of the last candidate seen,
    so candidates that may not go yet are passed over once, not found again by every batch."""

    workflow: tuple[int, str] = (-1, "")
    coordinator: tuple[int, str] = (-1, "")
    bundle: tuple[int, str] = (-1, "")
    done: bool = False
    # a tree taken in parts: its kind ("coordinator" or "bundle"), its root's id and where
    # that kind's scan goes on once the tree is gone (or may no longer go)
    clearing: tuple[str, str, tuple[int, str]] | None = None


def _candidates(
    conn: sqlite3.Connection,
    source: str,
    when: str,
    where: str,
    statuses: str,
    cutoff: int,
    after: tuple[int, str],
    limit: int,
) -> list[tuple[int, str]]:
    """(time, id) of up to ``limit`` ended rows of ``source`` older than ``cutoff``, after
    ``after``, oldest first. The SQL pieces are this module's constants, never input."""
    return conn.execute(
        f"SELECT {when}, id FROM {source} WHERE {where} status IN ({statuses})"
        f" AND {when} < ? AND ({when}, id) > (?, ?) ORDER BY {when}, id LIMIT ?",
        (cutoff, *after, limit),
    ).fetchall()


def find(
    conn: sqlite3.Connection,
    cursor: Cursor,
    *,
    wf_cutoff: int,
    coord_cutoff: int,
    bundle_cutoff: int,
    limit: int,
    whole: bool = False,
) -> tuple[Purgeable, Cursor]:
    """The next batch: up to ``limit`` parentless candidates of each kind after ``cursor``,
    oldest first, with what goes with those that may go, and the cursor after them. A batch
    stops taking jobs once it holds ``WORKFLOWS_PER_BATCH`` workflows (a year-long hourly
    coordinator brings 8,760): the write lock is held for a batch, not for a backlog. A
    coordinator or bundle bigger than a batch is taken in parts (``clearing``), unless
    ``whole`` (a dry run, which deletes nothing, lists each tree at once)."""
    pending = _pending(conn)
    cutoffs = (wf_cutoff, coord_cutoff, bundle_cutoff)
    if cursor.clearing is not None:
        after = replace(cursor)  # the caller's stays as it was, should this batch be undone
        return _next_part(conn, after, pending, cutoffs), after
    out = Purgeable()
    full = False
    # by the purge index: the planner would take the parent one (parent_id IS NULL) and sort
    wf_rows = _candidates(
        conn, "wf_jobs INDEXED BY wf_jobs_ended", "end_time", "parent_id IS NULL AND",
        _WF_ENDED_SQL, wf_cutoff, cursor.workflow, limit,
    )  # fmt: skip
    wf_at = cursor.workflow
    for wf_end, wf_id in wf_rows:
        if full := len(out.workflows) >= WORKFLOWS_PER_BATCH:
            break
        tree = _wf_tree(conn, "id = ?", (wf_id,), wf_cutoff, pending)
        if tree is not None:
            out.workflows.extend(reversed(tree))
        wf_at = (wf_end, wf_id)
    coord_rows = _candidates(
        conn, "coord_jobs", "last_modified", "bundle_id IS NULL AND", _JOB_ENDED_SQL,
        coord_cutoff, cursor.coordinator, limit,
    )  # fmt: skip
    coord_at = cursor.coordinator
    for modified, coord_id in coord_rows:
        if full := full or len(out.workflows) >= WORKFLOWS_PER_BATCH:
            break
        wfs = _coordinator_workflows(conn, coord_id, wf_cutoff, pending)
        if wfs is not None and _too_big(conn, [coord_id], len(wfs), whole):
            if out:  # the next batch starts with it
                full = True
                break
            clearing = ("coordinator", coord_id, (modified, coord_id))
            return _first_part(conn, clearing, cursor, wf_at, pending, cutoffs)
        if wfs is not None:
            out.workflows.extend(reversed(wfs))
            out.coordinators.append(coord_id)
        coord_at = (modified, coord_id)
    bundle_rows = _candidates(
        conn, "bundle_jobs", "last_modified", "", _JOB_ENDED_SQL, bundle_cutoff, cursor.bundle,
        limit,
    )  # fmt: skip
    bundle_at = cursor.bundle
    for modified, bundle_id in bundle_rows:
        if full := full or len(out.workflows) >= WORKFLOWS_PER_BATCH:
            break
        coords = (
            None
            if bundle_id in pending
            else _bundle_coordinators(conn, bundle_id, coord_cutoff, wf_cutoff, pending)
        )
        if coords is not None and _too_big(
            conn, [c for c, _ in coords], sum(len(w) for _, w in coords), whole
        ):
            if out:
                full = True
                break
            clearing = ("bundle", bundle_id, (modified, bundle_id))
            at = Cursor(wf_at, coord_at, cursor.bundle)
            return _first_part(conn, clearing, at, wf_at, pending, cutoffs)
        if coords is not None:
            for coord_id, wfs in coords:
                out.workflows.extend(reversed(wfs))
                out.coordinators.append(coord_id)
            out.bundles.append(bundle_id)
        bundle_at = (modified, bundle_id)
    scanned = max(len(wf_rows), len(coord_rows), len(bundle_rows)) < limit
    return out, Cursor(wf_at, coord_at, bundle_at, done=scanned and not full)


def _bundle_coordinators(
    conn: sqlite3.Connection, bundle_id: str, coord_cutoff: int, wf_cutoff: int, pending: set[str]
) -> list[tuple[str, list[str]]] | None:
    """A bundle's coordinators with their workflows, when all may go (Oozie also purges a
    bundle whose coordinators' workflows are too recent, leaving those coordinators behind
    with no bundle; here the bundle waits for them)."""
    coords = []
    for coord_id, status, modified in conn.execute(
        "SELECT id, status, last_modified FROM coord_jobs WHERE bundle_id = ?", (bundle_id,)
    ).fetchall():
        if status not in JOB_ENDED or modified >= coord_cutoff:
            return None
        wfs = _coordinator_workflows(conn, coord_id, wf_cutoff, pending)
        if wfs is None:
            return None
        coords.append((coord_id, wfs))
    return coords


def _too_big(conn: sqlite3.Connection, coords: list[str], workflows: int, whole: bool) -> bool:
    """Whether an eligible tree of ``coords`` with ``workflows`` is too big for one batch
    (never, when the tree is asked for ``whole``)."""
    if whole:
        return False
    if workflows > WORKFLOWS_PER_BATCH:
        return True
    actions = 0
    for coord_id in coords:
        (n,) = conn.execute(
            "SELECT coalesce(sum(n), 0) FROM coord_action_counts WHERE coord_id = ?", (coord_id,)
        ).fetchone()
        actions += n
    return bool(actions > ACTIONS_PER_BATCH)


def _first_part(
    conn: sqlite3.Connection,
    clearing: tuple[str, str, tuple[int, str]],
    cursor: Cursor,
    wf_at: tuple[int, str],
    pending: set[str],
    cutoffs: tuple[int, int, int],
) -> tuple[Purgeable, Cursor]:
    """The first part of a tree found too big for a batch; the scans stay before it."""
    at = Cursor(wf_at, cursor.coordinator, cursor.bundle, clearing=clearing)
    return _next_part(conn, at, pending, cutoffs), at


def _end_clearing(cursor: Cursor) -> None:
    """The tree is gone, or may no longer go: its kind's scan goes on past it."""
    assert cursor.clearing is not None
    kind, _root, key = cursor.clearing
    if kind == "coordinator":
        cursor.coordinator = key
    else:
        cursor.bundle = key
    cursor.clearing = None


def _next_part(
    conn: sqlite3.Connection,
    cursor: Cursor,
    pending: set[str],
    cutoffs: tuple[int, int, int],
) -> Purgeable:
    """The next part of the tree being cleared: up to ``ACTIONS_PER_BATCH`` of its oldest
    actions with every workflow under them; once none is left, its jobs. The root is checked
    again each time (still ended, still past its days, nothing queued for it), and each
    part's workflows; a tree that may no longer go keeps what is left of it."""
    assert cursor.clearing is not None
    kind, root, _key = cursor.clearing
    wf_cutoff, coord_cutoff, bundle_cutoff = cutoffs
    if kind == "coordinator":
        rows = conn.execute(
            "SELECT id, status, last_modified FROM coord_jobs WHERE id = ?", (root,)
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT id, status, last_modified FROM coord_jobs WHERE bundle_id = ?", (root,)
        ).fetchall()
        bundle = conn.execute(
            "SELECT status, last_modified FROM bundle_jobs WHERE id = ?", (root,)
        ).fetchone()
        if (
            bundle is None
            or bundle[0] not in JOB_ENDED
            or bundle[1] >= bundle_cutoff
            or root in pending
        ):
            rows = []  # gone, or back
    eligible = bool(rows) and all(
        status in JOB_ENDED and modified < coord_cutoff and coord_id not in pending
        for coord_id, status, modified in rows
    )
    if not eligible:
        _end_clearing(cursor)
        return Purgeable()
    part = Purgeable()
    for coord_id, _status, _modified in rows:  # a bundle's small coordinators share a part
        room = ACTIONS_PER_BATCH - len(part.actions)
        if room <= 0:
            break
        numbers = conn.execute(
            "SELECT id, action_number FROM coord_actions WHERE coord_id = ?"
            " ORDER BY action_number LIMIT ?",
            (coord_id, room),
        ).fetchall()
        if not numbers:
            continue
        tree = _wf_tree(
            conn,
            "parent_id IN (SELECT id FROM coord_actions WHERE coord_id = ? AND action_number <= ?)",
            (coord_id, numbers[-1][1]),
            wf_cutoff,
            pending,
        )
        if tree is None:  # a workflow of it runs again, or is too recent: the rest stays
            _end_clearing(cursor)
            return Purgeable()
        part.workflows.extend(reversed(tree))
        part.actions.extend(a for a, _n in numbers)
    if part:
        return part
    # no action left: the jobs themselves (and any workflow left under them, checked)
    out = Purgeable()
    for coord_id, _status, _modified in rows:
        wfs = _coordinator_workflows(conn, coord_id, wf_cutoff, pending)
        if wfs is None:
            _end_clearing(cursor)
            return Purgeable()
        out.workflows.extend(reversed(wfs))
        out.coordinators.append(coord_id)
    if kind == "bundle":
        out.bundles.append(root)
    _end_clearing(cursor)
    return out


def delete(tx: Tx, what: Purgeable) -> None:
    """Delete the jobs and all rows under them (nodes, actions, input dependencies, event
    queues: by the schema's cascades) and their trigger-kept counts."""
    conn = tx.conn
    conn.executemany("DELETE FROM wf_jobs WHERE id = ?", [(i,) for i in what.workflows])
    conn.executemany("DELETE FROM wf_node_counts WHERE wf_id = ?", [(i,) for i in what.workflows])
    conn.executemany("DELETE FROM kill_watch WHERE wf_id = ?", [(i,) for i in what.workflows])
    conn.executemany("DELETE FROM coord_actions WHERE id = ?", [(i,) for i in what.actions])
    conn.executemany("DELETE FROM coord_jobs WHERE id = ?", [(i,) for i in what.coordinators])
    conn.executemany(
        "DELETE FROM coord_action_counts WHERE coord_id = ?", [(i,) for i in what.coordinators]
    )
    conn.executemany("DELETE FROM bundle_jobs WHERE id = ?", [(i,) for i in what.bundles])
