"""store/changes (the console's incremental reads) and the backend's poll on a real store:
only rows written after a revision come back, a poll with no commit in between is skipped by
``PRAGMA data_version``, pages and counts come from indexes."""

from __future__ import annotations

from bundletui.commands import dispatch
from bundletui.commands.base import Ctx
from bundletui.store import changes as ch
from bundletui.store.db import Store
from bundletui.tui.backend import Backend
from tests.tui.conftest import Env, submit


def coords(store: Store, env: Env) -> dict[str, ch.TreeRow]:
    return {r.name: r for r in ch.bundle_coordinators(store.conn) if r.parent == env.bundle}


def test_changed_since_returns_only_newer_rows(env: Env) -> None:
    with Store(env.home) as store:
        before = ch.revision(store.conn)
        assert not ch.changed_since(store.conn, before)
        hourly = coords(store, env)["hourly"]
        dispatch.suspend(Ctx(store, face="console"), hourly.id)
        got = ch.changed_since(store.conn, before)
        assert got.rev > before
        assert {r.id for r in got.rows if r.kind == ch.COORD} == {hourly.id}
        assert all(r.rev > before for r in got.rows)
        assert next(r for r in got.rows if r.id == hourly.id).status == "SUSPENDED"


def test_levels_pages_and_counts(env: Env) -> None:
    wf = submit(env, "wf", start=False)
    with Store(env.home) as store:
        top = ch.top_level(store.conn)
        assert [(r.kind, r.id) for r in top] == [(ch.BUNDLE, env.bundle), (ch.WORKFLOW, wf)]
        hourly = coords(store, env)["hourly"]
        rows, total = ch.coordinator_actions(store.conn, hourly.id, 4)
        assert total == 6 and [r.name for r in rows] == ["@3", "@4", "@5", "@6"]
        assert ch.coordinator_counts(store.conn, [hourly.id]) == {hourly.id: {"WAITING": 6}}
        totals = ch.totals(store.conn)
        assert totals.actions == {"WAITING": 6, "SUCCEEDED": 2}
        assert totals.bundles == {"RUNNING": 1}
        assert ch.action_numbers(store.conn, hourly.id, ("WAITING",)) == [1, 2, 3, 4, 5, 6]
        assert [r.id for r in ch.find_jobs(store.conn, "hour")] == [hourly.id]
        assert ch.one(store.conn, ch.ACTION, f"{hourly.id}@2") is not None
        assert ch.one(store.conn, ch.ACTION, f"{hourly.id}@99") is None


def test_poll_skips_when_nothing_was_committed(env: Env) -> None:
    backend = Backend(env.home)
    try:
        first = backend.initial()
        assert backend.poll(first.rev, frozenset()).changes is None  # data_version unchanged
        forced = backend.poll(first.rev, frozenset(), force=True)
        assert forced.changes is not None and not forced.changes
        with Store(env.home) as other:
            hourly = coords(other, env)["hourly"]
            dispatch.kill(Ctx(other), f"{hourly.id}@1")
        poll = backend.poll(first.rev, frozenset({hourly.id}))
        assert poll.changes is not None
        assert {r.id for r in poll.changes.rows if r.kind == ch.ACTION} == {f"{hourly.id}@1"}
        assert poll.counts[hourly.id] == {"WAITING": 5, "KILLED": 1}
        assert poll.totals is not None and poll.totals.actions["KILLED"] == 1
        # until the screen has applied it, a poll it may yet drop does not count as seen
        assert backend.poll(first.rev, frozenset()).changes is not None
        backend.applied(poll)
        assert backend.poll(poll.changes.rev, frozenset()).changes is None
    finally:
        backend.close()


def test_lineage_walks_up_from_any_id(env: Env) -> None:
    backend = Backend(env.home)
    try:
        with Store(env.home) as store:
            hourly = coords(store, env)["hourly"]
        action = f"{hourly.id}@3"
        assert backend.lineage(action) == [
            (ch.BUNDLE, env.bundle),
            (ch.COORD, hourly.id),
            (ch.ACTION, action),
        ]
        assert backend.lineage("0000099-nothing-C") == []
    finally:
        backend.close()


def test_a_backlog_comes_in_complete_revisions(env: Env) -> None:
    from bundletui.store import jobs
    from bundletui.store.rows import ActionRow

    with Store(env.home) as store:
        hourly = coords(store, env)["hourly"]
        start = ch.revision(store.conn)
        revs = []
        for batch in ([1, 2, 3, 4, 5], [6], [1, 2], [3]):
            with store.write() as tx:
                for n in batch:
                    jobs.update(tx, ActionRow, f"{hourly.id}@{n}", status="READY")
                revs.append(tx.rev)
        seen: list[tuple[int, str]] = []
        since, calls = start, 0
        while True:
            got = ch.changed_since(store.conn, since, limit=3)
            calls += 1
            seen += [(r.rev, r.id) for r in got.rows if r.kind == ch.ACTION]
            assert all(since < r.rev <= got.rev for r in got.rows)
            since = got.rev
            if not got.more:
                break
        # every row once, at the revision that last wrote it (rows are current, not a log),
        # although the first transaction wrote more rows than the limit
        last = {1: revs[2], 2: revs[2], 3: revs[3], 4: revs[0], 5: revs[0], 6: revs[1]}
        assert sorted(seen) == sorted((rev, f"{hourly.id}@{n}") for n, rev in last.items())
        assert calls >= 2 and since == revs[-1]
        big = ch.changed_since(store.conn, start, limit=1)  # @4 and @5 share the first revision
        assert {r.id for r in big.rows} == {f"{hourly.id}@4", f"{hourly.id}@5"} and big.more
