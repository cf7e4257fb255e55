"""Row-level reads and writes for the job tables. Only this package speaks SQL.

:func:`select`, :func:`count` and :func:`update_where` take a raw WHERE clause: they are the
store's own building blocks. Outside ``store/`` a query has a name and typed arguments
(:func:`running_nodes`, :func:`actions_by_numbers`, the listings in
:mod:`bundletui.store.filters`, ...): ``tests/test_layers.py`` holds every other layer to that.

Writes go through a :class:`Tx` so that every row written records the transaction's ``rev`` and
``last_modified``; that is what lets pollers fetch only what changed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from bundletui.errors import StoreError
from bundletui.model.status import ACTION_ACTIVE
from bundletui.store.db import Tx
from bundletui.store.events import LIVE_FEED
from bundletui.store.rows import (
    ActionRow,
    AuditRow,
    BundleActionRow,
    BundleRow,
    CoordRow,
    NodeRow,
    WorkflowRow,
    columns,
    from_row,
    replace_row,
)

R = TypeVar("R")

TABLE_OF: dict[type, str] = {
    BundleRow: "bundle_jobs",
    BundleActionRow: "bundle_actions",
    CoordRow: "coord_jobs",
    ActionRow: "coord_actions",
    WorkflowRow: "wf_jobs",
    NodeRow: "wf_nodes",
    AuditRow: "audit_log",
}
_COLUMNS: dict[str, frozenset[str]] = {t: frozenset(columns(c)) for c, t in TABLE_OF.items()}


def get(conn: sqlite3.Connection, cls: type[R], key: str) -> R | None:
    row = conn.execute(f"SELECT * FROM {TABLE_OF[cls]} WHERE id = ?", (key,)).fetchone()
    return from_row(cls, row)


def exists(conn: sqlite3.Connection, cls: type, key: str) -> bool:
    row = conn.execute(f"SELECT 1 FROM {TABLE_OF[cls]} WHERE id = ?", (key,)).fetchone()
    return row is not None


def must_get(conn: sqlite3.Connection, cls: type[R], key: str) -> R:
    found = get(conn, cls, key)
    if found is None:
        raise StoreError.from_template("E0604", key, hint="list jobs with: bundletui jobs")
    return found


def select(
    conn: sqlite3.Connection,
    cls: type[R],
    where: str = "1",
    params: Sequence[Any] = (),
    order: str = "",
    limit: int | None = None,
    offset: int = 0,
) -> list[R]:
    sql = f"SELECT * FROM {TABLE_OF[cls]} WHERE {where}"
    if order:
        sql += f" ORDER BY {order}"
    if limit is not None:
        sql += f" LIMIT {int(limit)} OFFSET {int(offset)}"
    return [r for r in (from_row(cls, row) for row in conn.execute(sql, params)) if r is not None]


def count(conn: sqlite3.Connection, cls: type, where: str = "1", params: Sequence[Any] = ()) -> int:
    return int(
        conn.execute(f"SELECT count(*) FROM {TABLE_OF[cls]} WHERE {where}", params).fetchone()[0]
    )


def _check(table: str, names: Iterable[str]) -> None:
    bad = set(names) - _COLUMNS[table]
    if bad:
        raise StoreError("EB010", f"unknown columns for {table}: {sorted(bad)}")


def insert(tx: Tx, cls: type, values: Mapping[str, Any]) -> None:
    tx.conn.execute(*_insert_sql(tx, cls, values))
    tx.changed(TABLE_OF[cls], values.get("id"), values)


def insert_returning(tx: Tx, cls: type[R], values: Mapping[str, Any]) -> R:
    """Insert and return the row as stored (defaults filled in), without a second read."""
    sql, params = _insert_sql(tx, cls, values)
    row = from_row(cls, tx.conn.execute(sql + " RETURNING *", params).fetchone())
    assert row is not None
    tx.changed(TABLE_OF[cls], values.get("id"), values)
    return row


def _insert_sql(tx: Tx, cls: type, values: Mapping[str, Any]) -> tuple[str, list[Any]]:
    table = TABLE_OF[cls]
    data = dict(values)
    if "rev" in _COLUMNS[table]:
        data["rev"] = tx.rev
    if "last_modified" in _COLUMNS[table]:
        data.setdefault("last_modified", tx.now_ms)
    _check(table, data)
    names = ", ".join(data)
    marks = ", ".join("?" for _ in data)
    return f"INSERT INTO {table} ({names}) VALUES ({marks})", list(data.values())


def update(tx: Tx, cls: type, key: str, **values: Any) -> None:
    table = TABLE_OF[cls]
    values["rev"] = tx.rev
    values.setdefault("last_modified", tx.now_ms)
    _check(table, values)
    sets = ", ".join(f"{k} = ?" for k in values)
    tx.conn.execute(f"UPDATE {table} SET {sets} WHERE id = ?", [*values.values(), key])
    tx.changed(table, key, values)


def updated(tx: Tx, row: R, **values: Any) -> R:
    """``row`` as :func:`update` just wrote it (no read back)."""
    return replace_row(
        row,
        rev=tx.rev,
        **{"last_modified": tx.now_ms, **values},
    )


def update_where(tx: Tx, cls: type, where: str, params: Sequence[Any], **values: Any) -> int:
    table = TABLE_OF[cls]
    values["rev"] = tx.rev
    values.setdefault("last_modified", tx.now_ms)
    _check(table, values)
    sets = ", ".join(f"{k} = ?" for k in values)
    keys = (  # `run -v`: one line per row, as for a single update
        [r[0] for r in tx.conn.execute(f"SELECT id FROM {table} WHERE {where}", params)]
        if tx.changes is not None and "status" in values
        else []
    )
    cur = tx.conn.execute(f"UPDATE {table} SET {sets} WHERE {where}", [*values.values(), *params])
    for key in keys:
        tx.changed(table, key, values)
    return cur.rowcount


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=False)


# ----------------------------------------------------------------------------- audit & outbox


def audit(
    tx: Tx,
    *,
    user: str,
    face: str,
    command: str,
    target: str | None,
    args: Mapping[str, Any] | None,
    result: str,
    error: str | None = None,
) -> None:
    tx.conn.execute(
        "INSERT INTO audit_log (time, user, face, command, target, args, result, error)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (tx.now_ms, user, face, command, target, dumps(dict(args or {})), result, error),
    )


def enqueue(tx: Tx, kind: str, target: str, args: Mapping[str, Any] | None = None) -> None:
    """Ask the engine to do something (a child command, a process kill) after this commits."""
    tx.conn.execute(
        "INSERT INTO outbox (kind, target, args, created) VALUES (?, ?, ?, ?)",
        (kind, target, dumps(dict(args or {})), tx.now_ms),
    )


def outbox_head(
    conn: sqlite3.Connection, limit: int = 200
) -> list[tuple[int, str, str, dict[str, Any]]]:
    rows = conn.execute(
        "SELECT id, kind, target, args FROM outbox ORDER BY id LIMIT ?", (limit,)
    ).fetchall()
    return [(r[0], r[1], r[2], json.loads(r[3] or "{}")) for r in rows]


def outbox_done(tx: Tx, item_id: int) -> bool:
    """Remove an outbox item; False if another engine already took it."""
    return tx.conn.execute("DELETE FROM outbox WHERE id = ?", (item_id,)).rowcount == 1


def has_outbox(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM outbox LIMIT 1").fetchone() is not None


# ----------------------------------------------------------------------------- workflows


def workflow_nodes(conn: sqlite3.Connection, wf_id: str) -> list[NodeRow]:
    return select(conn, NodeRow, "wf_id = ?", (wf_id,), order="rowid")


def workflow_by_external_id(conn: sqlite3.Connection, external_id: str) -> WorkflowRow | None:
    rows = select(
        conn, WorkflowRow, "external_id = ?", (external_id,), order="created_time DESC", limit=1
    )
    return rows[0] if rows else None


def job_by_external_id(conn: sqlite3.Connection, cls: type[R], external_id: str) -> R | None:
    rows = select(conn, cls, "external_id = ?", (external_id,), limit=1)
    return rows[0] if rows else None


def children_workflows(conn: sqlite3.Connection, parent_id: str) -> list[WorkflowRow]:
    return select(conn, WorkflowRow, "parent_id = ?", (parent_id,), order="created_time")


def running_workflows(conn: sqlite3.Connection) -> list[WorkflowRow]:
    return select(conn, WorkflowRow, "status = 'RUNNING'")


def running_nodes(conn: sqlite3.Connection, wf_id: str | None = None) -> list[NodeRow]:
    """The RUNNING nodes of one workflow, or of every workflow."""
    if wf_id is None:
        return select(conn, NodeRow, "status = 'RUNNING'")
    return select(conn, NodeRow, "wf_id = ? AND status = 'RUNNING'", (wf_id,))


def last_action_end(conn: sqlite3.Connection, wf_id: str) -> int | None:
    """When the workflow's last action node ended (None: none has)."""
    row = conn.execute(
        "SELECT MAX(ended) FROM wf_nodes WHERE wf_id = ? AND type = 'action'", (wf_id,)
    ).fetchone()
    return row[0] if row is not None else None


def running_node_count(conn: sqlite3.Connection, wf_id: str) -> int:
    return count(conn, NodeRow, "wf_id = ? AND status = 'RUNNING'", (wf_id,))


def running_nodes_with_pid(conn: sqlite3.Connection) -> list[NodeRow]:
    """The RUNNING nodes whose process has started (the store knows its group)."""
    return select(conn, NodeRow, "status = 'RUNNING' AND pid IS NOT NULL")


def nodes_running_child(conn: sqlite3.Connection, wf_id: str, child_id: str) -> list[NodeRow]:
    """A workflow's RUNNING sub-workflow nodes that run the workflow ``child_id``."""
    where = "wf_id = ? AND external_id = ? AND status = 'RUNNING'"
    return select(conn, NodeRow, where, (wf_id, child_id))


def ready_nodes(conn: sqlite3.Connection) -> list[NodeRow]:
    return select(conn, NodeRow, "status = 'READY'")


def failed_nodes(conn: sqlite3.Connection, wf_id: str) -> list[NodeRow]:
    return select(conn, NodeRow, "wf_id = ? AND status = 'FAILED'", (wf_id,))


def audit_rows(
    conn: sqlite3.Connection, target: str | None = None, limit: int = 100
) -> list[AuditRow]:
    if target:
        return select(conn, AuditRow, "target = ?", (target,), order="id DESC", limit=limit)
    return select(conn, AuditRow, order="id DESC", limit=limit)


# ----------------------------------------------------------------------------- coordinators


def live_coordinators(conn: sqlite3.Connection) -> list[CoordRow]:
    """The coordinators that have not ended (IGNORED ones neither)."""
    return select(
        conn,
        CoordRow,
        "status IN ('PREP','RUNNING','RUNNINGWITHERROR','PAUSED','PAUSEDWITHERROR','SUSPENDED','SUSPENDEDWITHERROR','PREPPAUSED','PREPSUSPENDED')",
    )


def actions_of(conn: sqlite3.Connection, coord_id: str) -> list[ActionRow]:
    """Every action of a coordinator, by number."""
    return select(conn, ActionRow, "coord_id = ?", (coord_id,), order="action_number")


def launched_actions(
    conn: sqlite3.Connection, coord_id: str, newest: int
) -> tuple[list[ActionRow], int]:
    """The newest ``newest`` actions of a coordinator that launched a workflow, by number,
    and how many launched one in all."""
    where = "coord_id = ? AND external_id IS NOT NULL"
    rows = select(conn, ActionRow, where, (coord_id,), order="action_number DESC", limit=newest)
    return rows[::-1], count(conn, ActionRow, where, (coord_id,))


def actions_by_numbers(
    conn: sqlite3.Connection, coord_id: str, numbers: Sequence[int]
) -> list[ActionRow]:
    """Those of the actions numbered ``numbers`` that exist, by number."""
    return select(
        conn,
        ActionRow,
        f"coord_id = ? AND action_number IN ({','.join('?' * len(numbers))})",
        (coord_id, *numbers),
        order="action_number",
    )


def actions_between(
    conn: sqlite3.Connection,
    coord_id: str,
    first_ms: int,
    last_ms: int,
    statuses: Sequence[str] = (),
) -> list[ActionRow]:
    """The actions of nominal times ``first_ms`` to ``last_ms`` (both included), of one of
    ``statuses`` when some are given."""
    status = f" AND status IN ({','.join('?' * len(statuses))})" if statuses else ""
    return select(
        conn,
        ActionRow,
        f"coord_id = ? AND nominal_time BETWEEN ? AND ?{status}",
        (coord_id, first_ms, last_ms, *statuses),
    )


def actions_from(conn: sqlite3.Connection, coord_id: str, nominal_ms: int) -> list[ActionRow]:
    """The actions at or after a nominal time, by number."""
    return select(
        conn,
        ActionRow,
        "coord_id = ? AND nominal_time >= ?",
        (coord_id, nominal_ms),
        order="action_number",
    )


_ACTIVE = f"status IN ({','.join('?' * len(ACTION_ACTIVE))})"


def active_actions(conn: sqlite3.Connection, coord_id: str) -> list[ActionRow]:
    """A coordinator's actions that have not ended (:data:`ACTION_ACTIVE`)."""
    return select(conn, ActionRow, f"coord_id = ? AND {_ACTIVE}", (coord_id, *ACTION_ACTIVE))


def running_actions(conn: sqlite3.Connection, coord_id: str) -> list[ActionRow]:
    return select(conn, ActionRow, "coord_id = ? AND status = 'RUNNING'", (coord_id,))


def suspended_actions(conn: sqlite3.Connection, coord_id: str) -> list[ActionRow]:
    return select(conn, ActionRow, "coord_id = ? AND status = 'SUSPENDED'", (coord_id,))


def ready_actions(
    conn: sqlite3.Connection, coord_id: str, *, newest_first: bool, limit: int | None
) -> list[ActionRow]:
    """A coordinator's READY actions by nominal time, the first ``limit`` (None: all)."""
    return select(
        conn,
        ActionRow,
        "coord_id = ? AND status = 'READY'",
        (coord_id,),
        order=f"nominal_time {'DESC' if newest_first else 'ASC'}",
        limit=limit,
    )


def waiting_actions(
    conn: sqlite3.Connection, among: Collection[str] | None = None
) -> list[ActionRow]:
    """The WAITING actions, of every coordinator or those of the ids ``among``."""
    if among is None:
        return select(conn, ActionRow, "status = 'WAITING'")
    return select(
        conn,
        ActionRow,
        f"id IN ({','.join('?' * len(among))}) AND status = 'WAITING'",
        tuple(among),
    )


def action_counts(conn: sqlite3.Connection, coord_id: str) -> dict[str, int]:
    """Actions of a coordinator by status (trigger-maintained: O(statuses), not O(actions))."""
    rows = conn.execute(
        "SELECT status, n FROM coord_action_counts WHERE coord_id = ? AND n > 0", (coord_id,)
    )
    return {r[0]: r[1] for r in rows}


def bundle_action_counts(conn: sqlite3.Connection, bundle_id: str) -> tuple[dict[str, int], bool]:
    """Bundle actions by status (IGNORED excluded) and whether any is pending."""
    counts: dict[str, int] = {}
    pending = False
    for status, n, p in conn.execute(
        "SELECT status, count(*), max(pending) FROM bundle_actions WHERE bundle_id = ? GROUP BY status",
        (bundle_id,),
    ):
        if status != "IGNORED":
            counts[status] = n
        pending = pending or bool(p)
    return counts, pending


def insert_input_deps(tx: Tx, rows: Iterable[tuple[str, str, str, int, int]]) -> None:
    """(action_id, path, data_in, seq, available)"""
    tx.conn.executemany(
        "INSERT OR IGNORE INTO input_deps (action_id, path, data_in, seq, available) VALUES (?, ?, ?, ?, ?)",
        rows,
    )


def drop_input_deps(tx: Tx, action_id: str) -> None:
    """Forget an action's dependencies (a rerun with -refresh resolves them again)."""
    tx.conn.execute("DELETE FROM input_deps WHERE action_id = ?", (action_id,))


def waiting_on(conn: sqlite3.Connection, path: str) -> list[str]:
    """Actions waiting for exactly this path (indexed: O(actions waiting on it))."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT action_id FROM input_deps WHERE path = ? AND available = 0", (path,)
        )
    ]


def waiting_under(conn: sqlite3.Connection, prefix: str) -> list[tuple[str, str]]:
    """(action_id, path) of waiting dependencies below a directory (an index range scan)."""
    base = prefix.rstrip("/") + "/"
    return [
        (r[0], r[1])
        for r in conn.execute(
            "SELECT action_id, path FROM input_deps WHERE available = 0 AND path >= ? AND path < ?",
            (base, base[:-1] + "0"),
        )
    ]


def mark_available(tx: Tx, action_id: str, path: str) -> None:
    tx.conn.execute(
        "UPDATE input_deps SET available = 1 WHERE action_id = ? AND path = ?", (action_id, path)
    )


def input_deps_of(conn: sqlite3.Connection, action_id: str) -> list[tuple[str, str, int, int]]:
    """(path, data_in, seq, available) in materialization order."""
    return [
        (r[0], r[1], r[2], r[3])
        for r in conn.execute(
            "SELECT path, data_in, seq, available FROM input_deps WHERE action_id = ? ORDER BY seq",
            (action_id,),
        )
    ]


def all_waiting_deps(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return [
        (r[0], r[1])
        for r in conn.execute("SELECT action_id, path FROM input_deps WHERE available = 0")
    ]


def unchecked_waiting(conn: sqlite3.Connection, coord_id: str) -> list[str]:
    """A coordinator's WAITING actions that no input check holds (a rerun put them back)."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT id FROM coord_actions WHERE status = 'WAITING' AND coord_id = ? "
            "AND held_by IS NULL",
            (coord_id,),
        )
    ]


def coords_with_ready(conn: sqlite3.Connection) -> set[str]:
    return {
        r[0]
        for r in conn.execute("SELECT DISTINCT coord_id FROM coord_actions WHERE status = 'READY'")
    }


def delete_actions_from(tx: Tx, coord_id: str, nominal_ms: int) -> None:
    """Drop a coordinator's actions at or after a nominal time (``change endtime`` earlier)."""
    tx.conn.execute(
        "DELETE FROM coord_actions WHERE coord_id = ? AND nominal_time >= ?",
        (coord_id, nominal_ms),
    )


def unfinished_schedules(
    conn: sqlite3.Connection, exclude: str, finished: Sequence[str]
) -> list[CoordRow]:
    """The event schedules whose status is not in ``finished``, but ``exclude``, oldest first
    (a new one's ``<program>`` loops are checked against them)."""
    marks = ",".join("?" * len(finished))
    return select(
        conn,
        CoordRow,
        f"kind = 'event' AND id != ? AND status NOT IN ({marks})",
        (exclude, *finished),
        order="id",
    )


def coord_name_and_bundle(conn: sqlite3.Connection, coord_id: str) -> tuple[str, str | None] | None:
    row = conn.execute(
        "SELECT app_name, bundle_id FROM coord_jobs WHERE id = ?", (coord_id,)
    ).fetchone()
    return None if row is None else (row[0], row[1])


def bundles_to_schedule(conn: sqlite3.Connection) -> list[BundleRow]:
    """The bundles with a kick-off or a pause still to come: not ended, not suspended."""
    return select(
        conn,
        BundleRow,
        "status IN ('PREP','RUNNING','RUNNINGWITHERROR','PREPPAUSED','PAUSED','PAUSEDWITHERROR')",
    )


def bundle_actions(
    conn: sqlite3.Connection, bundle_id: str, *, ordered: bool = False
) -> list[BundleActionRow]:
    """A bundle's actions (one a coordinator it names); ``ordered``: in the bundle's order."""
    order = "rowid" if ordered else ""
    return select(conn, BundleActionRow, "bundle_id = ?", (bundle_id,), order=order)


def coord_children(
    conn: sqlite3.Connection, bundle_id: str, *, ordered: bool = False
) -> list[CoordRow]:
    """A bundle's coordinator jobs; ``ordered``: in the order they were written."""
    return select(conn, CoordRow, "bundle_id = ?", (bundle_id,), order="rowid" if ordered else "")


def bundle_actions_with_coord(conn: sqlite3.Connection, bundle_id: str) -> list[BundleActionRow]:
    """A bundle's actions whose coordinator job was written."""
    return select(conn, BundleActionRow, "bundle_id = ? AND coord_id IS NOT NULL", (bundle_id,))


def bundle_actions_of_coord(
    conn: sqlite3.Connection, bundle_id: str, coord_id: str
) -> list[BundleActionRow]:
    return select(conn, BundleActionRow, "bundle_id = ? AND coord_id = ?", (bundle_id, coord_id))


def pending_bundle_actions(conn: sqlite3.Connection, coord_id: str) -> list[BundleActionRow]:
    """The bundle actions of a coordinator with a command the engine has not run yet."""
    return select(conn, BundleActionRow, "coord_id = ? AND pending > 0", (coord_id,))


def critical_submit_failed(conn: sqlite3.Connection, bundle_id: str) -> bool:
    """A critical coordinator of the bundle failed to be submitted (it has no job)."""
    return (
        conn.execute(
            "SELECT 1 FROM bundle_actions WHERE bundle_id = ? AND critical = 1"
            " AND coord_id IS NULL AND status = 'FAILED'",
            (bundle_id,),
        ).fetchone()
        is not None
    )


def insert_nodes(tx: Tx, rows: Iterable[tuple[str, str, str, str, str]]) -> None:
    """A new workflow's nodes: (id, wf_id, name, type, status), stamped with the transaction."""
    tx.conn.executemany(
        "INSERT INTO wf_nodes (id, wf_id, name, type, status, last_modified, rev)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(*r, tx.now_ms, tx.rev) for r in rows],
    )


KillWatch = tuple[int, str, str]  # (process group, workflow id, node name)


def watch_kill(tx: Tx, pgid: int, wf_id: str, node: str) -> None:
    """A killed (or just ended) job's group, kept until an engine has SIGKILLed what of it
    outlived its SIGTERM or seen it gone: an engine killed within the grace time leaves the
    SIGKILL to the next one."""
    tx.conn.execute(
        "INSERT OR IGNORE INTO kill_watch (pgid, wf_id, node) VALUES (?, ?, ?)",
        (pgid, wf_id, node),
    )


def watched_kills(conn: sqlite3.Connection) -> list[KillWatch]:
    """The groups of killed jobs an engine has not seen to yet (an engine start looks for
    members that outlived their kill)."""
    return [(r[0], r[1], r[2]) for r in conn.execute("SELECT pgid, wf_id, node FROM kill_watch")]


def unwatch_kills(tx: Tx, items: Sequence[KillWatch]) -> None:
    tx.conn.executemany(
        "DELETE FROM kill_watch WHERE pgid = ? AND wf_id = ? AND node = ?", list(items)
    )


def delete_nodes(tx: Tx, node_ids: Sequence[str]) -> None:
    """Nodes a workflow's definition no longer has (a rerun read it again)."""
    tx.conn.executemany("DELETE FROM wf_nodes WHERE id = ?", [(n,) for n in node_ids])


def end_nodes_in(tx: Tx, wf_id: str, among: Iterable[str], to: str) -> int:
    """A workflow's nodes whose status is one of ``among`` move to ``to`` (not one of them), all
    at once: the statuses and ``to`` come from the caller's transition table (a kill of the nodes
    no process runs for). Their retry is no longer due; a node that has run (``attempt`` > 0:
    one waiting out its retry interval) ends now, one that never started gets no end time."""
    statuses = sorted(among)
    if not statuses:
        return 0
    where = f"wf_id = ? AND status IN ({','.join('?' * len(statuses))})"
    params = (wf_id, *statuses)
    ran = update_where(
        tx, NodeRow, f"{where} AND attempt > 0", params, status=to, due_time=None, ended=tx.now_ms
    )
    return ran + update_where(tx, NodeRow, where, params, status=to, due_time=None)


def workflow_priority(conn: sqlite3.Connection, wf_id: str) -> int:
    row = conn.execute("SELECT priority FROM wf_jobs WHERE id = ?", (wf_id,)).fetchone()
    return int(row[0]) if row else 0


# ----------------------------------------------------------------------------- workflow reads for the runner

_HEAD_TEXTS = {"app": "'' AS app", "definition": "'' AS definition", "conf": "'{}' AS conf"}


def _head_select(cls: type) -> str:
    """The row's columns in field order (so ``from_row`` builds it positionally, ~10x faster
    than by name), its big texts replaced by empty ones."""
    return ", ".join(_HEAD_TEXTS.get(c, c) for c in columns(cls))


_HEAD_SQL = f"SELECT {_head_select(WorkflowRow)} FROM wf_jobs WHERE id = ?"


def workflow_head(conn: sqlite3.Connection, wf_id: str) -> WorkflowRow | None:
    """A workflow row without its definition, app and conf (their size grows with the number
    of nodes; the runner keeps the decoded app per workflow instead)."""
    return from_row(WorkflowRow, conn.execute(_HEAD_SQL, (wf_id,)).fetchone())


def workflow_app_json(conn: sqlite3.Connection, wf_id: str) -> str:
    row = conn.execute("SELECT app FROM wf_jobs WHERE id = ?", (wf_id,)).fetchone()
    return str(row[0]) if row else ""


def workflow_conf_json(conn: sqlite3.Connection, wf_id: str) -> str:
    row = conn.execute("SELECT conf FROM wf_jobs WHERE id = ?", (wf_id,)).fetchone()
    return str(row[0]) if row else "{}"


def node_states(
    conn: sqlite3.Connection, wf_id: str, names: Iterable[str] | None = None
) -> dict[str, tuple[str, str | None]]:
    """name -> (status, transition), for some nodes or all (a narrow read)."""
    if names is None:
        rows = conn.execute(
            "SELECT name, status, transition FROM wf_nodes WHERE wf_id = ?", (wf_id,)
        )
        return {r[0]: (r[1], r[2]) for r in rows}
    wanted = list(names)
    out: dict[str, tuple[str, str | None]] = {}
    for i in range(0, len(wanted), 500):
        chunk = wanted[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for r in conn.execute(
            f"SELECT name, status, transition FROM wf_nodes WHERE wf_id = ? AND name IN ({marks})",
            (wf_id, *chunk),
        ):
            out[r[0]] = (r[1], r[2])
    return out


def node_counts(conn: sqlite3.Connection, wf_id: str) -> dict[str, int]:
    """Nodes of a workflow by status (trigger-kept: O(statuses))."""
    rows = conn.execute("SELECT status, n FROM wf_node_counts WHERE wf_id = ? AND n > 0", (wf_id,))
    return {r[0]: r[1] for r in rows}


def first_failed_node(conn: sqlite3.Connection, wf_id: str) -> NodeRow | None:
    """The failed node whose error a FAILED workflow reports."""
    rows = select(
        conn,
        NodeRow,
        "wf_id = ? AND status IN ('FAILED', 'DEPENDENT_FAILED') AND error_code IS NOT NULL",
        (wf_id,),
        order="ended, rowid",
        limit=1,
    )
    return rows[0] if rows else None


_COORD_HEAD_SQL = f"SELECT {_head_select(CoordRow)} FROM coord_jobs WHERE id = ?"


def coord_head(conn: sqlite3.Connection, coord_id: str) -> CoordRow | None:
    """A coordinator row without its definition, app and conf texts (hot paths: the engine
    keeps the decoded app and conf per coordinator)."""
    return from_row(CoordRow, conn.execute(_COORD_HEAD_SQL, (coord_id,)).fetchone())


def must_coord_head(conn: sqlite3.Connection, coord_id: str) -> CoordRow:
    row = coord_head(conn, coord_id)
    if row is None:
        raise StoreError.from_template(
            "E0604", coord_id, hint="list jobs with: bundletui jobs --type coordinator"
        )
    return row


def coord_text(conn: sqlite3.Connection | None, coord_id: str, column: str) -> str:
    if conn is None or column not in ("app", "conf", "definition"):
        return ""
    row = conn.execute(f"SELECT {column} FROM coord_jobs WHERE id = ?", (coord_id,)).fetchone()
    return str(row[0]) if row else ""


def anything_waits_on_files(conn: sqlite3.Connection) -> bool:
    """Is some action waiting for a dependency, or some event schedule watching a feed?"""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM input_deps WHERE available = 0)"
        f" OR EXISTS (SELECT 1 FROM event_feeds WHERE {LIVE_FEED})"
    ).fetchone()
    return bool(row[0])


def bundle_coordinator_names(conn: sqlite3.Connection, bundle_id: str) -> list[str]:
    """The names of a bundle's coordinators, in the bundle's order."""
    rows = conn.execute(
        "SELECT coord_name FROM bundle_actions WHERE bundle_id = ? ORDER BY rowid", (bundle_id,)
    )
    return [name for (name,) in rows]


def jobs_created_after(conn: sqlite3.Connection, ms: int) -> int:
    """How many bundles, coordinators and workflows were created after ``ms``."""
    return sum(
        int(conn.execute(f"SELECT count(*) FROM {t} WHERE created_time > ?", (ms,)).fetchone()[0])
        for t in ("bundle_jobs", "coord_jobs", "wf_jobs")
    )
