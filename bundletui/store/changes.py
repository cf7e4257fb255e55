"""The console's reads: the job tree level by level, rows changed since a revision, counts.

Every query is indexed so a poll costs O(changes), not O(store): ``rev`` indexes give the rows
written after the last poll, ``coord_action_counts`` (trigger-kept) gives action counts without
scanning actions, and a coordinator's actions page by ``UNIQUE(coord_id, action_number)``.
Rows come back as :class:`TreeRow`, the few columns a tree line needs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

BUNDLE = "bundle"
COORD = "coord"
ACTION = "action"
WORKFLOW = "workflow"
NODE = "node"


@dataclass(frozen=True, slots=True)
class TreeRow:
    """One job as the tree shows it.

    ``parent`` is the store's parent: a coordinator's bundle, an action's coordinator, a
    node's workflow, a workflow's parent (an action or a workflow; None when submitted alone).
    ``order`` sorts siblings. ``link`` is the workflow an action launched.
    """

    kind: str
    id: str
    parent: str | None
    name: str
    status: str
    order: int
    rev: int
    nominal: int | None = None
    link: str | None = None
    error: str | None = None
    pending: int = 0
    pause_time: int | None = None
    attempt: int = 0
    event: bool = False  # an event schedule (a coordinator fired by events, not by time)


@dataclass
class Changes:
    """Everything written after a revision, up to ``rev`` (one consistent snapshot)."""

    since: int
    rev: int
    rows: list[TreeRow] = field(default_factory=list)
    more: bool = False  # a table had more than the limit: poll again from ``rev``

    def __bool__(self) -> bool:
        return bool(self.rows)


_BUNDLE_COLS = "id, app_name, status, created_time, rev, pending, pause_time"
_COORD_COLS = "id, bundle_id, app_name, status, created_time, rev, pending, pause_time, kind"
_ACTION_COLS = (
    "id, coord_id, action_number, status, rev, nominal_time, external_id, error_code, pending"
)
_WF_COLS = "id, parent_id, app_name, status, created_time, rev, error_code"
_NODE_COLS = "id, wf_id, name, status, rowid, rev, error_code, attempt"


def _bundle(r: Sequence[Any]) -> TreeRow:
    return TreeRow(
        BUNDLE,
        str(r[0]),
        None,
        str(r[1]),
        str(r[2]),
        -int(r[3]),
        int(r[4]),
        pending=int(r[5]),
        pause_time=r[6],
    )


def _coord(r: Sequence[Any]) -> TreeRow:
    created = int(r[4])
    return TreeRow(
        COORD,
        str(r[0]),
        r[1],
        str(r[2]),
        str(r[3]),
        created if r[1] is not None else -created,  # newest first at the top level
        int(r[5]),
        pending=int(r[6]),
        pause_time=r[7],
        event=r[8] == "event",
    )


def _action(r: Sequence[Any]) -> TreeRow:
    number = int(r[2])
    return TreeRow(
        ACTION,
        str(r[0]),
        str(r[1]),
        f"@{number}",
        str(r[3]),
        number,
        int(r[4]),
        nominal=r[5],
        link=r[6],
        error=r[7],
        pending=int(r[8]),
    )


def _workflow(r: Sequence[Any]) -> TreeRow:
    return TreeRow(
        WORKFLOW,
        str(r[0]),
        r[1],
        str(r[2]),
        str(r[3]),
        -int(r[4]),
        int(r[5]),
        error=r[6],
    )


def _node(r: Sequence[Any]) -> TreeRow:
    return TreeRow(
        NODE,
        str(r[0]),
        str(r[1]),
        str(r[2]),
        str(r[3]),
        int(r[4]),
        int(r[5]),
        error=r[6],
        attempt=int(r[7]),
    )


# ----------------------------------------------------------------------------- levels


def revision(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = 'rev'").fetchone()
    return int(row[0]) if row else 0


def top_level(conn: sqlite3.Connection, workflow_limit: int = 500) -> list[TreeRow]:
    """Bundles, coordinators submitted alone, and the newest workflows submitted alone."""
    rows = [_bundle(r) for r in conn.execute(f"SELECT {_BUNDLE_COLS} FROM bundle_jobs")]
    rows += [
        _coord(r)
        for r in conn.execute(f"SELECT {_COORD_COLS} FROM coord_jobs WHERE bundle_id IS NULL")
    ]
    rows += [
        _workflow(r)
        for r in conn.execute(
            f"SELECT {_WF_COLS} FROM wf_jobs WHERE parent_id IS NULL"
            " ORDER BY created_time DESC LIMIT ?",
            (workflow_limit,),
        )
    ]
    return rows


def existing(conn: sqlite3.Connection, ids: Iterable[str]) -> set[str]:
    """Which of these bundle, coordinator and workflow ids are still in the store."""
    wanted, found = list(ids), set()
    for i in range(0, len(wanted), 500):
        chunk = wanted[i : i + 500]
        marks = ", ".join("?" * len(chunk))
        for table in ("bundle_jobs", "coord_jobs", "wf_jobs"):
            found |= {
                r[0] for r in conn.execute(f"SELECT id FROM {table} WHERE id IN ({marks})", chunk)
            }
    return found


def bundle_coordinators(conn: sqlite3.Connection) -> list[TreeRow]:
    """Every coordinator that belongs to a bundle (the second level is always loaded)."""
    return [
        _coord(r)
        for r in conn.execute(
            f"SELECT {_COORD_COLS} FROM coord_jobs WHERE bundle_id IS NOT NULL"
            " ORDER BY created_time, id"
        )
    ]


def coordinator_actions(
    conn: sqlite3.Connection, coord_id: str, limit: int
) -> tuple[list[TreeRow], int]:
    """The newest ``limit`` actions of a coordinator (by number) and how many it has."""
    rows = [
        _action(r)
        for r in conn.execute(
            f"SELECT {_ACTION_COLS} FROM coord_actions WHERE coord_id = ?"
            " ORDER BY action_number DESC LIMIT ?",
            (coord_id, limit),
        )
    ]
    total = conn.execute(
        "SELECT coalesce(sum(n), 0) FROM coord_action_counts WHERE coord_id = ?", (coord_id,)
    ).fetchone()[0]
    rows.reverse()
    return rows, int(total)


def workflow_nodes(conn: sqlite3.Connection, wf_id: str) -> list[TreeRow]:
    return [
        _node(r)
        for r in conn.execute(
            f"SELECT {_NODE_COLS} FROM wf_nodes WHERE wf_id = ? ORDER BY rowid", (wf_id,)
        )
    ]


def one(conn: sqlite3.Connection, kind: str, job_id: str) -> TreeRow | None:
    """One job's tree row by kind, or None when it does not exist."""
    table, cols, make = _TABLES[kind]
    r = conn.execute(f"SELECT {cols} FROM {table} WHERE id = ?", (job_id,)).fetchone()
    return None if r is None else make(r)


_TABLES = {
    BUNDLE: ("bundle_jobs", _BUNDLE_COLS, _bundle),
    COORD: ("coord_jobs", _COORD_COLS, _coord),
    ACTION: ("coord_actions", _ACTION_COLS, _action),
    WORKFLOW: ("wf_jobs", _WF_COLS, _workflow),
    NODE: ("wf_nodes", _NODE_COLS, _node),
}


# ----------------------------------------------------------------------------- changes


def changed_since(conn: sqlite3.Connection, since: int, limit: int = 20_000) -> Changes:
    """Rows of every job table written after revision ``since`` (each an indexed range scan).

    Call inside one read transaction so ``rev`` and the rows agree. When a table has more than
    ``limit`` such rows, the answer stops at a revision every table is complete up to and says
    ``more``: the caller asks again from the returned ``rev``.
    """
    rev = revision(conn)
    out = Changes(since, rev)
    if rev <= since:
        return out
    by_table: list[list[TreeRow]] = []
    upto = cut = rev
    for table, cols, make in _TABLES.values():
        rows = [
            make(r)
            for r in conn.execute(
                f"SELECT {cols} FROM {table} WHERE rev > ? ORDER BY rev LIMIT ?",
                (since, limit + 1),
            )
        ]
        if len(rows) > limit:
            # complete only below the revision of the first row left out
            cut = min(cut, rows[limit].rev)
            upto = min(upto, cut - 1)
            out.more = True
        by_table.append(rows)
    if out.more and upto <= since:
        # one transaction wrote more than the limit: take that whole revision, unbounded
        upto = cut
        by_table = [
            [
                make(r)
                for r in conn.execute(
                    f"SELECT {cols} FROM {table} WHERE rev > ? AND rev <= ? ORDER BY rev",
                    (since, upto),
                )
            ]
            for table, cols, make in _TABLES.values()
        ]
    if out.more:
        out.rev = upto
        out.more = upto < rev
    for rows in by_table:
        out.rows += [r for r in rows if r.rev <= upto]
    return out


def coordinator_counts(
    conn: sqlite3.Connection, coord_ids: Iterable[str]
) -> dict[str, dict[str, int]]:
    """Action counts by status for these coordinators (trigger-kept: O(statuses) each)."""
    ids = list(dict.fromkeys(coord_ids))
    out: dict[str, dict[str, int]] = {c: {} for c in ids}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for coord_id, status, n in conn.execute(
            f"SELECT coord_id, status, n FROM coord_action_counts"
            f" WHERE coord_id IN ({marks}) AND n > 0",
            chunk,
        ):
            out[coord_id][status] = n
    return out


def all_coordinator_counts(conn: sqlite3.Connection) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for coord_id, status, n in conn.execute(
        "SELECT coord_id, status, n FROM coord_action_counts WHERE n > 0"
    ):
        out.setdefault(coord_id, {})[status] = n
    return out


@dataclass(frozen=True)
class Totals:
    """Jobs by status for the header."""

    bundles: dict[str, int]
    coordinators: dict[str, int]
    actions: dict[str, int]
    workflows: dict[str, int]


def totals(conn: sqlite3.Connection) -> Totals:
    def grouped(sql: str) -> dict[str, int]:
        return {str(s): int(n) for s, n in conn.execute(sql) if n}

    return Totals(
        grouped("SELECT status, count(*) FROM bundle_jobs GROUP BY status"),
        grouped("SELECT status, count(*) FROM coord_jobs GROUP BY status"),
        grouped("SELECT status, sum(n) FROM coord_action_counts GROUP BY status"),
        grouped(
            "SELECT status, count(*) FROM wf_jobs WHERE status IN ('RUNNING', 'SUSPENDED',"
            " 'FAILED', 'KILLED') GROUP BY status"
        ),
    )


def find_jobs(conn: sqlite3.Connection, text: str, limit: int = 20) -> list[TreeRow]:
    """Bundles and coordinators whose id or name matches ``text`` (exact id first)."""
    like = f"%{text}%"
    rows = [
        _bundle(r)
        for r in conn.execute(
            f"SELECT {_BUNDLE_COLS} FROM bundle_jobs WHERE id = ? OR app_name LIKE ? LIMIT ?",
            (text, like, limit),
        )
    ]
    rows += [
        _coord(r)
        for r in conn.execute(
            f"SELECT {_COORD_COLS} FROM coord_jobs WHERE id = ? OR app_name LIKE ? LIMIT ?",
            (text, like, limit),
        )
    ]
    rows.sort(key=lambda r: (r.id != text, r.name != text))
    return rows


def action_numbers(
    conn: sqlite3.Connection, coord_id: str, statuses: Sequence[str], limit: int = 1000
) -> list[int]:
    """Numbers of a coordinator's actions in these statuses (the partial index on active
    statuses, or a scan of one coordinator's actions for finished ones)."""
    marks = ",".join("?" * len(statuses))
    return [
        int(r[0])
        for r in conn.execute(
            f"SELECT action_number FROM coord_actions WHERE coord_id = ? AND status IN ({marks})"
            " ORDER BY action_number LIMIT ?",
            (coord_id, *statuses, limit),
        )
    ]
