"""The store's named queries: the rows each returns, and the statements the listings and the
action page send (the SQL the commands used to write themselves, kept as it was)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bundletui.store import filters, jobs
from bundletui.store.db import Store
from bundletui.store.rows import ActionRow, CoordRow
from tests.store.test_db import _action, _coord

STATUSES = ["SUCCEEDED", "READY", "WAITING", "READY", "RUNNING"]  # actions 1 to 5


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """Coordinator c1 with five actions an hour apart (nominal n * 3,600,000), of
    :data:`STATUSES`."""
    store = Store(tmp_path)
    with store.write() as tx:
        _coord(tx.conn, "c1")
        for n, status in enumerate(STATUSES, 1):
            _action(tx.conn, "c1", n, n * 3_600_000)
            tx.conn.execute(
                "UPDATE coord_actions SET status = ? WHERE action_number = ?", (status, n)
            )
    yield store
    store.close()


def _numbers(rows: list[ActionRow]) -> list[int]:
    return [r.action_number for r in rows]


def _traced(store: Store) -> list[str]:
    sent: list[str] = []
    store.conn.set_trace_callback(sent.append)
    return sent


def test_the_coordinators_actions_by_number_time_and_status(store: Store) -> None:
    conn = store.conn
    assert _numbers(jobs.actions_of(conn, "c1")) == [1, 2, 3, 4, 5]
    assert _numbers(jobs.actions_by_numbers(conn, "c1", [4, 2, 9])) == [2, 4]
    assert _numbers(jobs.actions_from(conn, "c1", 3 * 3_600_000)) == [3, 4, 5]
    assert sorted(_numbers(jobs.actions_between(conn, "c1", 2 * 3_600_000, 4 * 3_600_000))) == [
        2,
        3,
        4,
    ]
    ready_or_waiting = jobs.actions_between(conn, "c1", 0, 9 * 3_600_000, ("READY", "WAITING"))
    assert sorted(_numbers(ready_or_waiting)) == [2, 3, 4]
    assert sorted(_numbers(jobs.active_actions(conn, "c1"))) == [2, 3, 4, 5]
    assert _numbers(jobs.running_actions(conn, "c1")) == [5]
    assert _numbers(jobs.suspended_actions(conn, "c1")) == []
    assert _numbers(jobs.waiting_actions(conn)) == [3]
    assert _numbers(jobs.waiting_actions(conn, {"c1@3", "c1@4"})) == [3]


def test_ready_actions_oldest_or_newest_first_and_the_launch_query_as_tuned(store: Store) -> None:
    sent = _traced(store)
    assert _numbers(jobs.ready_actions(store.conn, "c1", newest_first=False, limit=1)) == [2]
    assert _numbers(jobs.ready_actions(store.conn, "c1", newest_first=True, limit=None)) == [4, 2]
    assert sent == [
        "SELECT * FROM coord_actions WHERE coord_id = 'c1' AND status = 'READY'"
        " ORDER BY nominal_time ASC LIMIT 1 OFFSET 0",
        "SELECT * FROM coord_actions WHERE coord_id = 'c1' AND status = 'READY'"
        " ORDER BY nominal_time DESC",
    ]


def test_a_listing_sends_the_filters_terms_in_their_order(store: Store) -> None:
    sent = _traced(store)
    total, rows = filters.job_listing(
        store.conn,
        CoordRow,
        {"status": ["PREP", "RUNNING"], "text": ["c", "x"], "unit": ["MINUTE"]},
        created_from=[0],
        created_to=[10],
        sort="modified",
        limit=50,
        offset=0,
    )
    assert (total, [c.id for c in rows]) == (1, ["c1"])
    where = (
        "status IN ('PREP','RUNNING') AND ((app_name LIKE '%c%' OR user LIKE '%c%' OR id = 'c')"
        " OR (app_name LIKE '%x%' OR user LIKE '%x%' OR id = 'x')) AND time_unit IN ('MINUTE')"
        " AND created_time >= 0 AND created_time <= 10"
    )
    assert sent == [
        f"SELECT count(*) FROM coord_jobs WHERE {where}",
        f"SELECT * FROM coord_jobs WHERE {where}"
        " ORDER BY last_modified DESC, id DESC LIMIT 50 OFFSET 0",
    ]
    sent.clear()
    assert filters.job_listing(store.conn, CoordRow, {}, limit=5, offset=5) == (1, [])
    assert sent[-1] == (
        "SELECT * FROM coord_jobs WHERE 1 ORDER BY created_time DESC, id DESC LIMIT 5 OFFSET 5"
    )


def test_the_action_page_filters_sorts_and_counts(store: Store) -> None:
    conn = store.conn
    ready_or_later = ({"status": ["READY", "RUNNING"]}, [("nominaltime", ">=", 3 * 3_600_000)])
    assert filters.count_filtered_actions(conn, "c1", *ready_or_later) == 2
    page = filters.filtered_actions(
        conn, "c1", *ready_or_later, by="nominal", descending=True, limit=None, offset=0
    )
    assert _numbers(page) == [5, 4]
    not_ready = ({}, [("status", "!=", "READY")])
    by_status = filters.filtered_actions(
        conn, "c1", *not_ready, by="status", descending=False, limit=2, offset=1
    )
    assert _numbers(by_status) == [1, 3]  # RUNNING, then SUCCEEDED, WAITING
    assert filters.count_filtered_actions(conn, "c1", {}, []) == 5
    with pytest.raises(KeyError):  # no comparator but these reaches the SQL
        filters.count_filtered_actions(conn, "c1", {}, [("status", "; DROP", "x")])


def test_where_an_action_stands_on_an_unfiltered_page(store: Store) -> None:
    conn = store.conn
    fourth = {"status": "READY", "nominal_time": 4 * 3_600_000}
    assert filters.actions_before(conn, "c1", **fourth, by="nominal", descending=False) == 3
    assert filters.actions_before(conn, "c1", **fourth, by="nominal", descending=True) == 1
    # by status: READY (4 before 2, newest first), RUNNING, SUCCEEDED, WAITING
    assert filters.actions_before(conn, "c1", **fourth, by="status", descending=False) == 0
    assert filters.actions_before(conn, "c1", **fourth, by="status", descending=True) == 3
