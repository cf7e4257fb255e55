"""The store file: pragmas, migrations, transactions, revisions, uniqueness the engine relies on."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest

from bundletui.errors import StoreError
from bundletui.model.ids import JobKind, is_job_id
from bundletui.store import jobs
from bundletui.store.db import Store, Tx
from bundletui.store.rows import CoordRow
from bundletui.store.schema import MIGRATIONS


def _coord(tx_conn: sqlite3.Connection, cid: str) -> None:
    tx_conn.execute(
        """INSERT INTO coord_jobs (id, app_name, app_path, user, status, frequency, time_unit,
        timezone, execution, concurrency, timeout, throttle, start_time, end_time, created_time,
        last_modified, conf, definition, app) VALUES (?, 'c', '/x', 'u', 'PREP', '60', 'MINUTE',
        'UTC', 'FIFO', 1, 120, 12, 0, 1, 0, 0, '{}', '', '{}')""",
        (cid,),
    )


def _action(conn: sqlite3.Connection, cid: str, n: int, nominal: int) -> None:
    conn.execute(
        """INSERT INTO coord_actions (id, coord_id, action_number, nominal_time, created_time,
        status, last_modified) VALUES (?, ?, ?, ?, 0, 'WAITING', 0)""",
        (f"{cid}@{n}", cid, n, nominal),
    )


def _old_store(home: Path, version: int) -> sqlite3.Connection:
    """A store as the first ``version`` migrations made it."""
    from bundletui.store.db import _statements

    conn = sqlite3.connect(home / "bundletui.db", isolation_level=None)
    for script in MIGRATIONS[:version]:
        for statement in _statements(script):
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version={version}")
    conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)",
        [("rev", "0"), ("id_seq", "0"), ("stamp", "260101000000000"), ("clock", "real")],
    )
    return conn


def test_pragmas(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30000
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_reopen_does_not_migrate_again(tmp_path: Path) -> None:
    Store(tmp_path).close()
    store = Store(tmp_path)
    assert store.meta("id_seq") == "0"


def test_a_schema_1_store_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    """A store written by the first schema gains coord_jobs.error_code/error_message on open;
    its coordinator reads back with them empty."""
    conn = _old_store(tmp_path, 1)
    _coord(conn, "0000001-x-C")
    conn.close()
    store = Store(tmp_path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 8
    row = jobs.get(store.conn, CoordRow, "0000001-x-C")
    assert row is not None and (row.app_name, row.error_code, row.error_message) == (
        "c",
        None,
        None,
    )


def test_a_schema_4_store_watches_the_groups_of_its_killed_jobs(tmp_path: Path) -> None:
    """Schema 5 keeps killed jobs' process groups apart (``kill_watch``): an older store's
    KILLED nodes with a pid are copied there, so the next engine looks for their survivors."""
    conn = _old_store(tmp_path, 4)
    conn.execute(
        "INSERT INTO wf_jobs (id, app_name, app_path, form, user, status, created_time,"
        " last_modified, conf, definition, app) VALUES ('w-W', 'a', '/x', 'dag', 'u', 'KILLED',"
        " 0, 0, '{}', '', '{}')"
    )
    conn.executemany(
        "INSERT INTO wf_nodes (id, wf_id, name, type, status, pid, last_modified)"
        " VALUES (?, 'w-W', ?, 'action', ?, ?, 0)",
        [("w-W@a", "a", "KILLED", 41), ("w-W@b", "b", "KILLED", None), ("w-W@c", "c", "OK", 43)],
    )
    conn.close()
    store = Store(tmp_path)
    assert jobs.watched_kills(store.conn) == [(41, "w-W", "a")]


def test_a_schema_2_store_keeps_its_events_and_their_ids_and_nested_feeds_get_one_each(
    tmp_path: Path,
) -> None:
    """Schema 3 rebuilds ``events`` (unique by kind, key and path, not path alone: a partition
    is an event of each feed it lies in). The rows, their ids, the id sequence past a deleted
    event, and the job_events referring to them survive; foreign keys stay on afterwards."""
    conn = _old_store(tmp_path, 2)
    _coord(conn, "0000001-x-C")
    conn.executemany(
        "INSERT INTO events (kind, key, path, size, time, payload) VALUES (?, ?, ?, 1, 0, '{}')",
        [("partition", "partition:/l/c", f"/l/c/eu/p{i}") for i in range(3)],
    )
    conn.execute("DELETE FROM events WHERE id = 3")  # the sequence stays at 3
    conn.execute(
        "INSERT INTO job_queue (coord_id, state, created_time, updated_time)"
        " VALUES ('0000001-x-C', 'PENDING_TRIGGER', 0, 0)"
    )
    conn.execute("INSERT INTO job_events VALUES ('0000001-x-C', 2, 1)")
    with pytest.raises(sqlite3.IntegrityError):  # schema 2: one event per path
        conn.execute(
            "INSERT INTO events (kind, key, path, time) VALUES ('partition', 'partition:/l/c/eu', '/l/c/eu/p1', 0)"
        )
    conn.close()

    store = Store(tmp_path)
    c = store.conn
    assert c.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert c.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert [tuple(r) for r in c.execute("SELECT id, path FROM events ORDER BY id")] == [
        (1, "/l/c/eu/p0"),
        (2, "/l/c/eu/p1"),
    ]
    assert [tuple(r) for r in c.execute("SELECT event_id, job_id FROM job_events")] == [(2, 1)]
    with store.write() as tx:
        new = tx.conn.execute(
            "INSERT INTO events (kind, key, path, time) VALUES ('partition', 'partition:/l/c/eu', '/l/c/eu/p1', 0) RETURNING id"
        ).fetchone()[0]
        assert new == 4  # the same partition, for the nested feed; no id given twice
        with pytest.raises(sqlite3.IntegrityError):
            tx.conn.execute("INSERT INTO job_events VALUES ('0000001-x-C', 99, 1)")


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    Store(tmp_path).close()
    conn = sqlite3.connect(tmp_path / "bundletui.db")
    conn.execute(f"PRAGMA user_version={len(MIGRATIONS) + 5}")
    conn.close()
    with pytest.raises(StoreError) as err:
        Store(tmp_path)
    assert "newer" in err.value.message


def test_missing_store_without_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as err:
        Store(tmp_path / "nope", create=False)
    assert err.value.hint


def test_ids_are_oozie_shaped_and_sequential(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.write() as tx:
        a = store.next_id(tx, JobKind.BUNDLE, "alice")
        b = store.next_id(tx, JobKind.WORKFLOW, "bob smith")
    assert is_job_id(a) and a.startswith("0000001-") and a.endswith("-bundletui-alice-B")
    assert b.startswith("0000002-") and b.endswith("-bundletui-bob_smith-W")


def test_a_long_user_name_is_cut_in_the_id(tmp_path: Path) -> None:
    """The id names the submitter, but a client's 3,000-character user.name does not make a
    3,000-character id."""
    store = Store(tmp_path)
    with store.write() as tx:
        long = store.next_id(tx, JobKind.COORDINATOR, "u" * 3000)
    assert is_job_id(long) and long.endswith(f"-bundletui-{'u' * 16}-C")
    assert len(long) == len("0000001-") + 15 + len("-bundletui-") + 16 + len("-C") == 52


def test_rollback_leaves_store_unchanged(tmp_path: Path) -> None:
    store = Store(tmp_path)
    rev = store.revision()
    with pytest.raises(RuntimeError), store.write() as tx:
        _coord(tx.conn, "c1")
        raise RuntimeError("boom")
    assert store.conn.execute("SELECT count(*) FROM coord_jobs").fetchone()[0] == 0
    assert store.revision() == rev


def test_each_write_transaction_bumps_revision_once(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.write() as tx1:
        pass
    with store.write() as tx2:
        pass
    assert tx2.rev == tx1.rev + 1 == store.revision()


def test_nominal_time_materialized_once_by_unique_keys(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.write() as tx:
        _coord(tx.conn, "c1")
        _action(tx.conn, "c1", 1, 1000)
    with pytest.raises(sqlite3.IntegrityError), store.write() as tx:
        _action(tx.conn, "c1", 2, 1000)  # same nominal time, other number
    with pytest.raises(sqlite3.IntegrityError), store.write() as tx:
        tx.conn.execute(
            "INSERT INTO coord_actions (id, coord_id, action_number, nominal_time, created_time, status, last_modified)"
            " VALUES ('other', 'c1', 1, 2000, 0, 'WAITING', 0)"
        )


def test_data_version_sees_other_connections(tmp_path: Path) -> None:
    a = Store(tmp_path)
    b = Store(tmp_path)
    before = a.data_version()
    assert a.data_version() == before
    with b.write():
        pass
    assert a.data_version() != before


def test_foreign_keys_enforced(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with pytest.raises(sqlite3.IntegrityError), store.write() as tx:
        _action(tx.conn, "no-such-coord", 1, 0)


def test_ids_of_a_transaction_are_stored_at_its_end_and_never_given_twice(tmp_path: Path) -> None:
    """The sequence is counted in memory during a write and stored before its commit: an id
    taken in a rolled-back savepoint is a gap, a rolled-back transaction gives its ids back,
    and another connection continues after every id this one gave."""
    store, other = Store(tmp_path), Store(tmp_path)
    seq = lambda job_id: int(job_id.split("-", 1)[0])  # noqa: E731
    with store.write() as tx:
        first = store.next_id(tx, JobKind.WORKFLOW, "u")
        tx.conn.execute("SAVEPOINT s")
        undone = store.next_id(tx, JobKind.WORKFLOW, "u")
        tx.conn.execute("ROLLBACK TO s")
        tx.conn.execute("RELEASE s")
        last = store.next_id(tx, JobKind.COORDINATOR, "u")
    assert [seq(first), seq(undone), seq(last)] == [1, 2, 3]
    assert other.meta("id_seq") == "3"
    with pytest.raises(RuntimeError), store.write() as tx:
        store.next_id(tx, JobKind.WORKFLOW, "u")
        raise RuntimeError("the transaction fails")
    with other.write() as tx:
        assert seq(other.next_id(tx, JobKind.BUNDLE, "u")) == 4
    with store.write() as tx:
        assert seq(store.next_id(tx, JobKind.WORKFLOW, "u")) == 5
    outside = store.next_id(Tx(store.conn, 0, 0), JobKind.WORKFLOW, "u")  # no write open
    assert seq(outside) == 6 and other.meta("id_seq") == "6"


def test_a_lock_held_by_another_process_past_the_wait_is_eb006_and_begins_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process (not a stopped engine) keeps the write lock: the write waits the whole
    lock wait (2 s here instead of 30), then one error, nothing begun; the lock freed, the
    same store writes again. The busy timeout is back at the full wait afterwards."""
    import subprocess
    import sys
    import time

    from bundletui.store import db

    store = Store(tmp_path)
    rev = store.revision()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            f"c = sqlite3.connect({str(store.path)!r}, isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        monkeypatch.setattr(db, "LOCK_WAIT_MS", 2_000)
        started = time.monotonic()
        with pytest.raises(StoreError) as err, store.write():
            pytest.fail("the write began while another process held the lock")
        took = time.monotonic() - started
        assert err.value.code == "EB006"
        assert "stayed locked for 2 s: another process holds its write lock" in err.value.message
        assert "nothing was changed" in err.value.message
        assert err.value.hint is not None and "kill -CONT" in err.value.hint
        assert 1.9 < took < 6, took
        assert not store.conn.in_transaction
        assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 2_000
    finally:
        holder.kill()
        holder.wait()
    with store.write():
        pass
    assert store.revision() == rev + 1
    store.close()


def test_a_schema_3_store_gains_the_schedules_resume_time(tmp_path: Path) -> None:
    """Schema 4: event_schedules.crons_from (when a schedule was last resumed), empty for the
    schedules a schema-3 store already has."""
    conn = _old_store(tmp_path, 3)
    _coord(conn, "0000001-x-C")
    conn.execute("INSERT INTO event_schedules (coord_id, events_from) VALUES ('0000001-x-C', 0)")
    conn.close()
    store = Store(tmp_path)
    rows = store.conn.execute("SELECT coord_id, crons_from FROM event_schedules").fetchall()
    assert [tuple(r) for r in rows] == [("0000001-x-C", None)]


def test_transitions_are_logged_after_the_commit_and_not_when_undone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``run -v``: a status written in a savepoint that is rolled back is not logged, one kept
    is, and only once the transaction has committed; nothing when the log is off."""
    store = Store(tmp_path)
    cid = "0000001-260101000000000-bundletui-u-C"
    with store.write() as tx:
        _coord(tx.conn, cid)
        assert tx.changes is None  # DEBUG is off: nothing is collected
    caplog.set_level("DEBUG", logger="bundletui.transitions")
    with store.write() as tx:
        tx.savepoint("kept")
        jobs.update(tx, CoordRow, cid, status="RUNNING")
        tx.savepoint("undone")
        jobs.update(tx, CoordRow, cid, status="KILLED")
        tx.rollback_to("undone")
        tx.release("kept")
        jobs.update(tx, CoordRow, cid, status="SUSPENDED")
        assert not caplog.records  # not before the commit
    assert [r.getMessage() for r in caplog.records] == [
        f"coordinator {cid} -> RUNNING",
        f"coordinator {cid} -> SUSPENDED",
    ]
    caplog.clear()
    with pytest.raises(RuntimeError), store.write() as tx:
        jobs.update(tx, CoordRow, cid, status="KILLED")
        raise RuntimeError("rolled back")
    assert not caplog.records
    with store.write() as tx:  # a bulk update (a kill's nodes) is one line per row too
        jobs.update_where(tx, CoordRow, "status = ?", ("SUSPENDED",), status="KILLED")
        jobs.update(tx, CoordRow, cid, status="KILLED", pending=0)  # written again: one line
    assert [r.getMessage() for r in caplog.records] == [f"coordinator {cid} -> KILLED"]


def test_the_workflow_listing_reads_an_index_not_a_sort(tmp_path: Path) -> None:
    """QA (ak): `jobs` and the API's listing sorted the whole wf_jobs table for each page
    (0.3-0.7 s at 105,000 workflows, growing with the store)."""
    store = Store(tmp_path)
    for where, index in (
        ("", "wf_jobs_created"),
        ("WHERE status IN ('SUCCEEDED')", "wf_jobs_status"),
    ):
        plan = " ".join(
            str(r[-1])
            for r in store.conn.execute(
                f"EXPLAIN QUERY PLAN SELECT * FROM wf_jobs {where}"
                " ORDER BY created_time DESC, id DESC LIMIT 50 OFFSET 100"
            )
        )
        assert index in plan and "TEMP B-TREE" not in plan, plan


def test_another_programs_database_with_a_schema_version_is_refused_and_left_as_it_was(
    tmp_path: Path,
) -> None:
    """QA (disk): a foreign SQLite file was taken as ours whenever its user_version was not 0:
    switched to WAL (changed, though "never changed"), then blamed as damaged."""
    for i, table in enumerate(("foo (x)", "meta (k, v)", "meta (key, value)")):
        home = tmp_path / str(i)  # a meta table of its own, too (QA regression hunt)
        home.mkdir()
        conn = sqlite3.connect(home / "bundletui.db")
        conn.execute(f"CREATE TABLE {table}")
        conn.execute("PRAGMA user_version = 2")
        conn.commit()
        conn.close()
        with pytest.raises(StoreError) as refused:
            Store(home)
        assert refused.value.code == "EB004" and "something else" in refused.value.message
        conn = sqlite3.connect(home / "bundletui.db")
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        conn.close()


def test_an_empty_database_left_by_a_failed_first_submit_is_no_store_to_a_reader(
    tmp_path: Path,
) -> None:
    """QA (disk): a first submit that failed on a full disk left a 4 KB file with no tables;
    ``jobs`` (told not to make a store) then silently built a whole empty store in it."""
    conn = sqlite3.connect(tmp_path / "bundletui.db")
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("VACUUM")
    conn.close()
    assert (tmp_path / "bundletui.db").stat().st_size > 0
    with pytest.raises(StoreError) as refused:
        Store(tmp_path, create=False)
    assert refused.value.code == "EB001"
    conn = sqlite3.connect(tmp_path / "bundletui.db")
    assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    conn.close()
    Store(tmp_path).close()  # a submit may still make the store there


def _make_store(home: str) -> None:  # in a child process
    try:
        Store(home).close()
    except StoreError:
        os._exit(3)
    os._exit(0)


def test_a_store_being_made_is_never_seen_half_made(tmp_path: Path) -> None:
    """CI: ``bundletui run`` on a new home and a ``submit`` just after it; the submit opened
    the engine's file before its schema committed and failed EB001 "the file is empty"
    (review: waiting for the lock there could fail the engine's switch to WAL, or call the
    store another program's, EB004). A store is made whole beside its place and linked in:
    a reader that opens it the moment the file appears finds all of it, and its maker never
    fails."""
    import multiprocessing

    fork = multiprocessing.get_context("fork")
    seen: dict[str, int] = {}
    for i in range(60):
        home = tmp_path / str(i)
        home.mkdir()
        maker = fork.Process(target=_make_store, args=(str(home),))
        maker.start()
        path = home / "bundletui.db"
        while not path.exists() and maker.is_alive():
            pass
        try:
            with Store(home, create=False) as store:
                outcome = "whole" if store.meta("stamp") else "no stamp"
        except StoreError as exc:
            outcome = exc.code
        maker.join(30)
        key = f"{outcome}, maker exit {maker.exitcode}"
        seen[key] = seen.get(key, 0) + 1
        left = [p.name for p in home.iterdir() if not p.name.startswith("bundletui.db")]
        assert left == []  # the maker's own file is gone once it is linked in
    assert seen == {"whole, maker exit 0": 60}, seen


def test_a_maker_killed_half_way_leaves_nothing_once_a_store_is_made(tmp_path: Path) -> None:
    """A maker killed (-9) while it made the store left its file of its own: the next maker
    removes it. Not another container's (its pid is not in our /proc), nor a live maker's."""
    from bundletui._host import this_host

    key = this_host().partition("/")[2]
    dead = tmp_path / f".bundletui.db.{key}.999999999.1.new"
    live = tmp_path / f".bundletui.db.{key}.{os.getpid()}.1.new"
    other = tmp_path / ".bundletui.db.0000000000.999999999.1.new"
    for f in (dead, Path(f"{dead}-journal"), live, other):
        f.write_bytes(b"")
    Store(tmp_path).close()
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    assert left == sorted([live.name, other.name])
    # QA: killed while another process made the store, so no later maker came: an engine's
    # open (one that may make a store) removes it too; a reader's does not write
    dead.write_bytes(b"")
    Store(tmp_path, create=False).close()
    assert dead.exists()
    Store(tmp_path).close()
    assert not dead.exists()


def test_a_store_is_not_migrated_under_a_live_engine_of_an_older_bundletui(
    tmp_path: Path,
) -> None:
    """QA (upgrades): any command migrated the store when it opened it, even with an older
    engine running on it, which then crashed at its next landed file (the table it wrote had
    changed under it). While the lease's holder lives the store is left as it is (EB009);
    once it is gone, the first open migrates."""
    import socket
    import subprocess
    import time

    from bundletui.store.schema import MIGRATIONS

    old_engine = subprocess.Popen(["sleep", "30"])
    try:
        time.sleep(0.05)
        conn = _old_store(tmp_path, 6)
        now = int(time.time() * 1000)
        conn.execute(
            "INSERT INTO engine_lease (id, holder, pid, host, mode, acquired, heartbeat, expires)"
            " VALUES (1, 'old', ?, ?, 'active', ?, ?, ?)",
            (old_engine.pid, socket.gethostname(), now, now, now - 60_000),  # expired, alive
        )
        conn.close()
        with pytest.raises(StoreError) as refused:
            Store(tmp_path)
        assert refused.value.code == "EB009"
        assert f"pid {old_engine.pid}" in refused.value.message
        conn = sqlite3.connect(tmp_path / "bundletui.db")
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
        conn.close()
    finally:
        old_engine.kill()
        old_engine.wait()
    store = Store(tmp_path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    store.close()


def test_a_read_only_store_of_an_older_schema_says_it_needs_migrating(tmp_path: Path) -> None:
    """QA (upgrades): an old store whose file is read-only (a backup, an auditor's copy) was
    refused with a hint that its directory must be writable, which it was. The file is made
    read-only by a read-only bind mount in a private namespace (root writes past chmod)."""
    import subprocess

    conn = _old_store(tmp_path, 6)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    db = tmp_path / "bundletui.db"
    p = subprocess.run(
        ["unshare", "-U", "-r", "-m", "sh", "-c",
         'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 97; shift; exec "$@"',
         "sh", str(db), sys.executable, "-c",
         "import sys; from bundletui.store.db import Store; Store(sys.argv[1])", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if p.returncode == 97 or "unshare" in p.stderr[:200]:
        pytest.skip(f"no private mount namespace here: {p.stderr[-300:]}")
    assert "must be migrated to" in p.stderr and "read-only" in p.stderr, p.stderr
    assert "directory" not in p.stderr.split("StoreError:")[-1], p.stderr
