"""``bundletui purge``: ended jobs older than their kind's days go, whole, with their files.

On the simulated clock, so "30 days ago" is a date in the store, not a wait: jobs end in
January, the clock moves to February, and the real CLI purges. What a purge may never touch
(a running coordinator, a workflow that ended recently, a coordinator whose workflows are still
too recent) is in the same store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bundletui.store import purge as store_purge
from bundletui.store.db import Store
from tests.e2e4.conftest import MARK, Bt4, coordinator_xml, data_in, hourly_ds, wait_for

JAN1 = "2026-01-01T00:00Z"
DAY = 86_400_000
NOW_FEB12 = 1_770_854_400_000  # 2026-02-12T00:00Z


def _workflow(bt: Bt4) -> Path:
    bt.apps.write("wf.xml", MARK.read_text())
    return bt.apps.props("wf.properties", {"oozie.wf.application.path": "wf.xml", "aid": "w"})


def _coordinator(bt: Bt4, name: str, *, starved: bool = False) -> Path:
    extra: dict[str, object] = {}
    if starved:  # waits for data that never lands: RUNNING for good
        extra = {
            "controls": {"timeout": "-1"},
            "datasets": [hourly_ds("never")],
            "inputs": [data_in("in", "never", "${coord:current(0)}")],
        }
    bt.apps.write(f"{name}.xml", coordinator_xml(name, **extra))  # type: ignore[arg-type]
    return bt.apps.props(
        f"{name}.properties",
        {
            "oozie.coord.application.path": f"{name}.xml",
            "start": JAN1,
            "end": "2026-01-01T02:00Z",
        },
    )


def _bundle(bt: Bt4) -> Path:
    bt.apps.write("b1.xml", coordinator_xml("b1"))
    bt.apps.write(
        "bundle.xml",
        '<bundle-app name="nightly" xmlns="uri:oozie:bundle:0.2">'
        "<coordinator name='b1'><app-path>b1.xml</app-path></coordinator></bundle-app>",
    )
    return bt.apps.props(
        "bundle.properties",
        {"oozie.bundle.application.path": "bundle.xml", "start": JAN1, "end": "2026-01-01T02:00Z"},
    )


def _children(bt: Bt4, coord_id: str) -> list[str]:
    return [
        w for (w,) in bt.sql("SELECT external_id FROM coord_actions WHERE coord_id = ?", coord_id)
    ]


def _rows(bt: Bt4) -> dict[str, int]:
    tables = ("wf_jobs", "wf_nodes", "coord_jobs", "coord_actions", "bundle_jobs",
              "bundle_actions", "input_deps")  # fmt: skip
    return {t: bt.sql(f"SELECT count(*) FROM {t}")[0][0] for t in tables}


def test_purge_deletes_ended_jobs_past_their_days_whole_and_nothing_else(bt: Bt4) -> None:
    bt.sim(JAN1, JAN1)  # submissions are stamped on the simulated clock
    old_wf = bt.submit_job(_workflow(bt), start=True)
    old_coord = bt.submit_job(_coordinator(bt, "hourly"))
    bundle = bt.submit_job(_bundle(bt), start=True)
    starved = bt.submit_job(_coordinator(bt, "starved", starved=True))
    bt.sim(JAN1, "2026-01-20T00:00Z")
    recent_wf = bt.submit_job(_workflow(bt), start=True)
    bt.sim("2026-01-20T00:00Z", "2026-02-10T00:00Z")
    b1 = bt.coords_of(bundle)["b1"]
    old_workflows = {old_wf, *_children(bt, old_coord), *_children(bt, b1)}
    assert {bt.status(j) for j in (old_wf, old_coord, bundle, b1, recent_wf)} == {"SUCCEEDED"}
    assert bt.status(starved) == "RUNNING" and len(old_workflows) == 5
    logs = bt.home / "logs"
    assert {p.name for p in logs.iterdir()} == {*old_workflows, recent_wf}
    before = _rows(bt)

    dry = bt.cli("purge", "--dry-run")
    assert set(dry.stdout.split()) == {*old_workflows, old_coord, b1, bundle}
    assert "would purge 5 workflow(s), 2 coordinator(s), 1 bundle(s)" in dry.stderr
    assert _rows(bt) == before

    done = bt.cli("purge")
    assert "purged 5 workflow(s), 2 coordinator(s), 1 bundle(s)" in done.stderr
    gone = (*old_workflows, old_coord, b1, bundle)
    for table, key in (("wf_jobs", "id"), ("wf_nodes", "wf_id"), ("wf_node_counts", "wf_id"),
                       ("coord_jobs", "id"), ("coord_actions", "coord_id"),
                       ("coord_action_counts", "coord_id"), ("bundle_jobs", "id"),
                       ("bundle_actions", "bundle_id")):  # fmt: skip
        marks = ", ".join("?" * len(gone))
        assert bt.sql(f"SELECT count(*) FROM {table} WHERE {key} IN ({marks})", *gone) == [(0,)]
    assert {p.name for p in logs.iterdir()} == {recent_wf}  # and the kept one's log stays
    assert not any((bt.home / "work" / w).exists() for w in old_workflows)
    assert bt.status(recent_wf) == "SUCCEEDED" and bt.status(starved) == "RUNNING"
    assert len(bt.actions(starved)) == 2  # its actions and their input dependencies stay
    assert bt.sql("SELECT count(*) FROM input_deps") == [(2,)]
    missing = bt.fails("info", old_coord, code="E0604")
    assert old_coord in missing.stderr
    audit = bt.sql("SELECT args, result FROM audit_log WHERE command = 'purge'")
    assert [(json.loads(a)["purge"], r) for a, r in audit] == [
        ("wf=30;coord=7;bundle=7;limit=100", "ok")
    ]
    again = bt.cli("purge")
    assert "purged 0 workflow(s), 0 coordinator(s), 0 bundle(s)" in again.stderr


def test_a_coordinator_goes_only_once_its_workflows_are_past_their_days(bt: Bt4) -> None:
    """As in Oozie: a coordinator past its 7 days whose workflows are not past their 30 stays,
    with them; a shorter --wf lets both go."""
    bt.sim(JAN1, JAN1)
    coord = bt.submit_job(_coordinator(bt, "hourly"))
    bt.sim(JAN1, "2026-01-12T00:00Z")
    assert bt.status(coord) == "SUCCEEDED"
    kept = bt.cli("purge")
    assert "purged 0 workflow(s), 0 coordinator(s)" in kept.stderr
    assert bt.status(coord) == "SUCCEEDED" and len(bt.actions(coord)) == 2
    gone = bt.cli("purge", "--wf", "7", "--limit", "1")
    assert "purged 2 workflow(s), 1 coordinator(s)" in gone.stderr
    assert bt.sql("SELECT count(*) FROM coord_jobs") == [(0,)]


def test_bad_purge_arguments_are_one_clear_error_and_change_nothing(bt: Bt4) -> None:
    bt.sim(JAN1, JAN1)
    wf = bt.submit_job(_workflow(bt), start=True)
    bt.sim(JAN1, "2026-03-01T00:00Z")
    before = _rows(bt)
    bad = bt.fails("purge", "--wf", "-1", code="E0303")
    assert "[wf] = [-1]" in bad.stderr and bad.code == 2  # a usage error, as typer's own
    assert bt.fails("purge", "--limit", "0", code="E0303").code == 2
    huge = bt.fails("purge", "--wf", "99999999999", code="E0303")  # its cutoff would overflow
    assert "from 0 to 100,000" in huge.stderr and huge.code == 2
    for spec in ("wf=\u0661", "wf=30;wf=1", "oldCoordAction=true", ""):  # \u0661: Arabic 1
        refused = bt.fails("oozie", "admin", "-purge", spec, code="E0303")
        assert "wf=DAYS;coord=DAYS" in refused.stderr or "e.g. wf=30" in refused.stderr, spec
    # QA: the refusal named no key; it says which one and why
    said = {
        spec: " ".join(bt.fails("oozie", "admin", "-purge", spec, code="E0303").stderr.split())
        for spec in ("wf=0;oldCoordAction=true", "wf=30;wf=1", "days=3")
    }
    assert "oldCoordAction is not supported" in said["wf=0;oldCoordAction=true"], said
    assert "wf given twice" in said["wf=30;wf=1"], said
    assert "'days=3' is not KEY=DAYS with a key of wf, coord, bundle or limit" in said["days=3"]
    assert _rows(bt) == before and bt.status(wf) == "SUCCEEDED"


PARTIAL_SCRIPT = """
import sqlite3, sys, threading, time
from pathlib import Path
from bundletui.store import db

db.LOCK_WAIT_MS = 1_000  # the 30 s a command waits, shortened
home = Path(sys.argv[1])

def hold() -> None:  # another process's transaction, taken once the first batch has committed
    conn = sqlite3.connect(home / "bundletui.db", timeout=30, isolation_level=None)
    while not conn.execute("SELECT 1 FROM meta WHERE key = 'purged_rev'").fetchone():
        time.sleep(0.001)
    conn.execute("BEGIN IMMEDIATE")
    time.sleep(3)
    conn.execute("ROLLBACK")

threading.Thread(target=hold, daemon=True).start()
sys.argv = ["bundletui", "purge", "--wf", "1", "--limit", "1", "--home", str(home)]
from bundletui.cli import main
main()
"""


def test_a_purge_cut_short_says_what_it_purged_before(bt: Bt4) -> None:
    """QA (review): a purge whose second batch found the write lock taken said "nothing was
    changed" after its first batch had deleted a job and its files. The error says what went
    before it. (The first job's 3,000 files give the other process time to take the lock.)"""
    bt.sim(JAN1, JAN1)
    wfs = [bt.submit_job(_workflow(bt), start=True) for _ in range(2)]
    bt.sim(JAN1, "2026-01-10T00:00Z")
    for wf in wfs:
        (bt.home / "work" / wf).mkdir(parents=True, exist_ok=True)
        for i in range(3_000):
            (bt.home / "work" / wf / f"part-{i}").touch()
    p = subprocess.run(
        [sys.executable, "-c", PARTIAL_SCRIPT, str(bt.home)],
        capture_output=True, text=True, timeout=60, env=bt.env,
    )  # fmt: skip
    assert p.returncode == 1 and "Error: EB006" in p.stderr, p.stderr
    assert "note: purged 1 workflow(s), 0 coordinator(s), 0 bundle(s) in the batches" in p.stderr
    assert len(bt.sql("SELECT id FROM wf_jobs")) == 1


def test_oozie_admin_purge_deletes_them_before_it_returns(bt: Bt4) -> None:
    """``oozie admin -purge wf=..;coord=..`` as Oozie's CLI spells it; Oozie's server queues
    the purge, here it is done when the command says so."""
    bt.sim(JAN1, JAN1)
    old = bt.submit_job(_workflow(bt), start=True)
    bt.sim(JAN1, "2026-01-20T00:00Z")
    recent = bt.submit_job(_workflow(bt), start=True)
    bt.sim("2026-01-20T00:00Z", "2026-01-25T00:00Z")
    out = bt.cli("oozie", "admin", "-purge", "wf=10;limit=5")
    assert out.stdout == "Purge command executed successfully\n"
    assert bt.sql("SELECT id FROM wf_jobs") == [(recent,)]
    assert not (bt.home / "logs" / old).exists() and (bt.home / "logs" / recent).exists()


def test_run_purge_deletes_them_every_hour_a_batch_per_tick(bt: Bt4) -> None:
    """``run --purge``, Oozie's PurgeService: its first round a little after the start, in
    batches of ``limit`` (one per tick), logged once when the round is over."""
    bt.sim(JAN1, JAN1)
    wfs = [bt.submit_job(_workflow(bt), start=True) for _ in range(2)]
    coord = bt.submit_job(_coordinator(bt, "hourly"))
    starved = bt.submit_job(_coordinator(bt, "starved", starved=True))
    bt.sim(JAN1, "2026-01-20T00:00Z")
    gone = {*wfs, *_children(bt, coord)}
    engine = bt.engine("--clock", "simulated", "--purge", "wf=7;coord=7;limit=1")
    engine.wait_log("purged 4 workflow(s), 1 coordinator(s), 0 bundle(s)", timeout=30)
    assert "wf=7;coord=7;bundle=7;limit=1" in engine.log()
    assert bt.sql("SELECT id FROM coord_jobs") == [(starved,)]
    assert bt.sql("SELECT count(*) FROM wf_jobs") == [(0,)]
    # the files go on the engine's file thread once each batch has committed: the round's log
    # line may come first on a loaded machine
    wait_for(
        lambda: not any((bt.home / "logs" / w).exists() for w in gone), what="the logs removed"
    )
    assert len(bt.sql("SELECT * FROM audit_log WHERE command = 'purge'")) == 0  # the engine's own
    assert engine.stop() == 0


def test_run_purge_that_ends_by_itself_purges_first(bt: Bt4) -> None:
    """QA (review): ``run --purge --exit-when-idle`` stopped before its first round (10 s
    after the start) and purged nothing; a run that ends by itself purges first, at once."""
    bt.sim(JAN1, JAN1)
    wf = bt.submit_job(_workflow(bt), start=True)
    bt.sim(JAN1, "2026-03-01T00:00Z")
    run = bt.cli("run", "--clock", "simulated", "--exit-when-idle", "--purge", "default")
    assert "purged 1 workflow(s)" in run.stdout + run.stderr, run
    assert bt.sql("SELECT count(*) FROM wf_jobs") == [(0,)] and not (bt.home / "logs" / wf).exists()


def test_run_purge_that_ends_by_itself_purges_again_before_it_stops(bt: Bt4) -> None:
    """QA (README): "at once, and before stopping": no round came before stopping, so a
    simulated month run with ``--until`` left the jobs that had aged past their days in it."""
    bt.sim(JAN1, JAN1)
    wf = bt.submit_job(_workflow(bt), start=True)
    bt.sim(JAN1, "2026-01-01T00:01Z")  # it ended a minute ago: too young for wf=1 at the start
    run = bt.cli("run", "--clock", "simulated", "--until", "2026-01-05T00:00Z", "--purge", "wf=1")
    said = run.stdout + run.stderr
    assert said.count("purged 1 workflow(s)") == 1, said
    assert said.index("purged 1 workflow(s)") < said.index("reached --until"), said
    assert bt.sql("SELECT count(*) FROM wf_jobs") == [(0,)] and not (bt.home / "logs" / wf).exists()
    # in SAFEMODE: skipped, said once, with no "next round" for a run that is stopping (QA)
    bt.cli("oozie", "admin", "-systemmode", "SAFEMODE")
    run = bt.cli("run", "--clock", "simulated", "--until", "2026-01-06T00:00Z", "--purge", "wf=1")
    said = run.stdout + run.stderr
    assert said.count("purge skipped: the system is in SAFEMODE") == 1, said
    assert "next round" not in said and "reached --until" in said, said


def test_run_purge_skips_its_round_in_safemode(bt: Bt4) -> None:
    """SAFEMODE changes no job through any face, the engine's purge included: the round is
    skipped, said in the log, and the jobs stay."""
    bt.sim(JAN1, JAN1)
    wf = bt.submit_job(_workflow(bt), start=True)
    bt.sim(JAN1, "2026-03-01T00:00Z")
    bt.cli("oozie", "admin", "-systemmode", "SAFEMODE")
    engine = bt.engine("--clock", "simulated", "--purge", "default")
    engine.wait_log("purge skipped: the system is in SAFEMODE", timeout=30)
    assert bt.sql("SELECT id FROM wf_jobs") == [(wf,)] and (bt.home / "logs" / wf).exists()
    assert engine.stop() == 0


def test_a_killed_job_whose_process_still_runs_is_not_purged(bt: Bt4) -> None:
    """QA (purge, high): a kill recorded with no engine up makes the workflow KILLED at once
    while its node stays RUNNING until an engine signals the process; a purge then deleted
    the rows, and the next engine never stopped the process. Such a tree waits for the
    engine, and goes once the engine has killed the job and seen its group gone."""
    hold = bt.tmp / "hold"
    hold.touch()
    engine = bt.engine()
    wf = bt.submit_job(_workflow(bt), {"holdWhile": str(hold)}, start=True)
    wait_for(lambda: bt.sql("SELECT status FROM wf_nodes WHERE wf_id = ?", wf) == [("RUNNING",)])
    wait_for(lambda: bt.sql("SELECT pid FROM wf_nodes WHERE wf_id = ?", wf)[0][0] is not None)
    (pid,) = bt.sql("SELECT pid FROM wf_nodes WHERE wf_id = ?", wf)[0]
    assert engine.stop() == 0  # its job goes on
    bt.cli("kill", wf)
    assert bt.status(wf) == "KILLED"
    kept = bt.cli("purge", "--wf", "0")
    assert "purged 0 workflow(s)" in kept.stderr, kept
    assert bt.sql("SELECT count(*) FROM wf_jobs") == [(1,)]
    assert os.path.exists(f"/proc/{pid}")
    bt.engine()
    wait_for(lambda: not os.path.exists(f"/proc/{pid}") or _zombie(pid), 15, "the job killed")
    wait_for(
        lambda: "purged 1 workflow(s)" in bt.cli("purge", "--wf", "0").stderr,
        15,
        "the purge once the engine has seen to it",
    )
    assert bt.sql("SELECT count(*) FROM wf_jobs") == [(0,)]


def _zombie(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_a_tree_too_big_for_a_batch_goes_in_parts_and_stops_if_it_comes_back(
    bt: Bt4, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA (scale): a 300-coordinator bundle's purge was one transaction of 311,700 workflows:
    47 s of write lock, the engine's lease not renewed for 35 s, a submit meanwhile lost. A
    coordinator's or bundle's tree too big for a batch now goes in parts, its oldest actions
    and their workflows a batch each, the jobs with the last; each part checks again that the
    tree may still go. (Real stores from the real engine; the part size made small here.)"""
    monkeypatch.setattr(store_purge, "ACTIONS_PER_BATCH", 5)
    bt.sim(JAN1, JAN1)
    twelve = {"end": "2026-01-01T12:00Z"}
    coord = bt.submit_job(_coordinator(bt, "hourly"), twelve)
    bundle = bt.submit_job(_bundle(bt), twelve, start=True)
    bt.sim(JAN1, "2026-02-12T00:00Z")
    assert bt.status(coord) == "SUCCEEDED" and bt.status(bundle) == "SUCCEEDED"
    (child,) = bt.coords_of(bundle).values()
    cutoffs = {"wf_cutoff": NOW_FEB12 - 7 * DAY, "coord_cutoff": NOW_FEB12 - 7 * DAY,
               "bundle_cutoff": NOW_FEB12 - 7 * DAY}  # fmt: skip

    store = Store(bt.home)
    with store.read() as conn:  # a dry run lists each tree whole
        whole, _ = store_purge.find(conn, store_purge.Cursor(), **cutoffs, limit=10, whole=True)
    assert (len(whole.workflows), whole.coordinators, whole.bundles) == (
        24,
        [coord, child],
        [bundle],
    )

    parts: list[store_purge.Purgeable] = []
    cursor = store_purge.Cursor()
    while not cursor.done:
        assert len(parts) < 20, parts
        with store.write() as tx:
            found, cursor = store_purge.find(tx.conn, cursor, **cutoffs, limit=10)
            store_purge.delete(tx, found)
        parts.append(found)
        if len(parts) == 1:  # mid-way through the coordinator: still there, fewer actions
            assert found.actions == [f"{coord}@{n}" for n in range(1, 6)] and not found.coordinators
            assert len(found.workflows) == 5 and bt.status(coord) == "SUCCEEDED"
            assert sorted(bt.actions(coord)) == list(range(6, 13))
    assert all(len(p.actions) <= 5 and len(p.workflows) <= 5 for p in parts), parts
    assert [p.coordinators for p in parts if p.coordinators] == [[coord], [child]]
    assert [p.bundles for p in parts if p.bundles] == [[bundle]]
    assert sum(len(p.workflows) for p in parts) == 24
    assert {t: n for t, n in _rows(bt).items() if n} == {}

    store.close()


def test_a_tree_taken_in_parts_stops_when_a_rerun_brings_it_back(
    bt: Bt4, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_purge, "ACTIONS_PER_BATCH", 5)
    bt.sim(JAN1, JAN1)
    coord = bt.submit_job(_coordinator(bt, "hourly"), {"end": "2026-01-01T12:00Z"})
    bt.sim(JAN1, "2026-02-12T00:00Z")
    cutoffs = {"wf_cutoff": NOW_FEB12 - 7 * DAY, "coord_cutoff": NOW_FEB12 - 7 * DAY,
               "bundle_cutoff": NOW_FEB12 - 7 * DAY}  # fmt: skip
    store = Store(bt.home)
    with store.write() as tx:
        first, cursor = store_purge.find(tx.conn, store_purge.Cursor(), **cutoffs, limit=10)
        store_purge.delete(tx, first)
    assert len(first.actions) == 5 and cursor.clearing is not None
    bt.cli("rerun", coord, "--action", "12")  # between two parts: it is back
    rest = []
    while not cursor.done:
        with store.write() as tx:
            found, cursor = store_purge.find(tx.conn, cursor, **cutoffs, limit=10)
            store_purge.delete(tx, found)
        rest.append(found)
    store.close()
    assert not any(rest), rest
    assert sorted(bt.actions(coord)) == list(range(6, 13)) and bt.status(coord) == "RUNNING"
    assert bt.actions(coord)[12] == "WAITING"


FAILING_SECOND_PART = """
import sqlite3, sys
import bundletui.store.purge as p
p.ACTIONS_PER_BATCH = 3
real, calls = p.delete, []
def delete(tx, what):  # SQLite's own error, as a full disk gives it, at the second part
    calls.append(1)
    if len(calls) == 2:
        raise sqlite3.OperationalError("database or disk is full")
    return real(tx, what)
p.delete = delete
sys.argv = ["bundletui", *sys.argv[1:]]
from bundletui.cli import main
main()
"""


def test_a_purge_that_fails_between_parts_says_what_it_left_partly_purged(bt: Bt4) -> None:
    """Review: a coordinator whose actions never launched a workflow lost three of them to a
    first part, the second part failed, and the error said "nothing was changed"."""
    bt.sim(JAN1, JAN1)
    coord = bt.submit_job(_coordinator(bt, "waits", starved=True), {"end": "2026-01-01T08:00Z"})
    bt.sim(JAN1, "2026-01-01T09:00Z")
    bt.cli("kill", coord)
    bt.sim("2026-01-01T09:00Z", "2026-02-12T00:00Z")
    assert len(bt.actions(coord)) == 8 and not _children(bt, coord)[0]
    p = subprocess.run(
        [sys.executable, "-c", FAILING_SECOND_PART, "purge"],
        capture_output=True, text=True, env=bt.env, timeout=60,
    )  # fmt: skip
    assert p.returncode == 1 and "disk is full" in p.stderr, p
    said = " ".join(p.stderr.split())
    assert "in the batches before this error" in said, said
    assert f"{coord} was left partly purged (its oldest actions gone), the next purge" in said
    assert sorted(bt.actions(coord)) == [4, 5, 6, 7, 8]
    bt.cli("purge")  # takes the rest
    assert bt.sql("SELECT count(*) FROM coord_jobs") == [(0,)]
