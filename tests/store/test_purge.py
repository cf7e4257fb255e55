"""The purge's batches: a candidate that may not go yet is passed over, not found again.

Rows are written straight into a real store (the shapes the engine writes): the trees a purge
must refuse — a workflow with a sub-workflow still running, one with a sub-workflow that ended
too recently — are cheaper to state than to run.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bundletui.store import purge
from bundletui.store.db import Store

DAY = 86_400_000
NOW = 100 * DAY
CUTOFF = NOW - 30 * DAY


def _wf(
    conn: sqlite3.Connection, wf_id: str, status: str, end: int | None, parent: str | None = None
) -> None:
    conn.execute(
        """INSERT INTO wf_jobs (id, app_name, app_path, form, parent_id, user, status,
        created_time, end_time, last_modified, conf, definition, app)
        VALUES (?, 'w', '/x', 'dag', ?, 'u', ?, 0, ?, 0, '{}', '', '{}')""",
        (wf_id, parent, status, end),
    )


def _batches(store: Store, limit: int) -> list[list[str]]:
    """The workflows each batch of a purge in batches of ``limit`` deletes."""
    cursor, batches = purge.Cursor(), []
    while not cursor.done:
        assert len(batches) < 50, "the batches never end: the same candidates found again"
        with store.write() as tx:
            found, cursor = purge.find(
                tx.conn, cursor, wf_cutoff=CUTOFF, coord_cutoff=CUTOFF, bundle_cutoff=CUTOFF,
                limit=limit,
            )  # fmt: skip
            purge.delete(tx, found)
        batches.append(found.workflows)
    return batches


def _all(store: Store, limit: int) -> list[str]:
    return [wf for batch in _batches(store, limit) for wf in batch]


def test_batches_pass_over_trees_that_may_not_go_and_take_the_rest(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.write() as tx:
        # the oldest two ended long ago, but a sub-workflow of each has not (or only lately)
        _wf(tx.conn, "W1", "SUCCEEDED", 1 * DAY)
        _wf(tx.conn, "W1.sub", "RUNNING", None, parent="W1")
        _wf(tx.conn, "W2", "FAILED", 2 * DAY)
        _wf(tx.conn, "W2.sub", "SUCCEEDED", NOW - DAY, parent="W2")
        # these may go, a whole tree with a grandchild
        _wf(tx.conn, "W3", "KILLED", 3 * DAY)
        _wf(tx.conn, "W3.sub", "KILLED", 3 * DAY, parent="W3")
        _wf(tx.conn, "W3.sub.sub", "KILLED", 3 * DAY, parent="W3.sub")
        _wf(tx.conn, "W4", "SUCCEEDED", 4 * DAY)
        # too recent, and not ended
        _wf(tx.conn, "W5", "SUCCEEDED", NOW - DAY)
        _wf(tx.conn, "W6", "RUNNING", None)
    deleted = _all(store, limit=1)
    assert deleted == ["W3.sub.sub", "W3.sub", "W3", "W4"]  # children before their parents
    left = {r[0] for r in store.conn.execute("SELECT id FROM wf_jobs")}
    assert left == {"W1", "W1.sub", "W2", "W2.sub", "W5", "W6"}
    store.close()


def test_a_schema_6_store_gains_the_purge_index_and_keeps_its_workflows(tmp_path: Path) -> None:
    from tests.store.test_db import _old_store

    conn = _old_store(tmp_path, 6)
    _wf(conn, "W1", "SUCCEEDED", 1 * DAY)
    conn.close()
    store = Store(tmp_path)
    plan = " ".join(
        str(tuple(r))
        for r in store.conn.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM wf_jobs INDEXED BY wf_jobs_ended"
            " WHERE parent_id IS NULL AND end_time < 1"
        )
    )
    assert "wf_jobs_ended" in plan
    assert _all(store, limit=10) == ["W1"]
    store.close()


def test_a_batch_stops_at_its_workflow_budget_but_never_splits_a_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch holds the write lock: past ``WORKFLOWS_PER_BATCH`` workflows it takes no more
    jobs (the rest go in the next), though a tree bigger than that goes whole, alone."""
    monkeypatch.setattr(purge, "WORKFLOWS_PER_BATCH", 2)
    store = Store(tmp_path)
    with store.write() as tx:
        _wf(tx.conn, "W1", "SUCCEEDED", 1 * DAY)
        _wf(tx.conn, "W1.a", "SUCCEEDED", 1 * DAY, parent="W1")
        _wf(tx.conn, "W1.b", "SUCCEEDED", 1 * DAY, parent="W1")
        _wf(tx.conn, "W2", "SUCCEEDED", 2 * DAY)
        _wf(tx.conn, "W3", "SUCCEEDED", 3 * DAY)
        _wf(tx.conn, "W4", "SUCCEEDED", 4 * DAY)
    assert _batches(store, limit=10) == [
        ["W1.b", "W1.a", "W1"],
        ["W2", "W3"],
        ["W4"],
    ]
    store.close()
