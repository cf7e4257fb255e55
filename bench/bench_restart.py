"""Restart (issue 4 §6): with 1,000,000 action rows in the store, serving again in < 2 s.

The store: 100 hourly coordinators (a data-in on ``<home>/landing/feed/YYYY/MM/DD/HH``, done
flag ``_SUCCESS``; concurrency 2, throttle 200) submitted through the real path, then 10,000
actions each written by SQL in one transaction, the last action due an hour ago and the next
one due in the future (no catch-up). Per coordinator: 9,900 terminal actions (SUCCEEDED, with
FAILED every 997th, KILLED every 1,999th, TIMEDOUT every 4,999th), 1 RUNNING (its workflow,
created by ``create_workflow_tx``, is RUNNING and has not advanced yet: the engine died right
after launching it), 2 READY (inputs there, held by concurrency), and 97 WAITING on a partition
that has not landed (plan, ``held_by`` and ``input_deps`` rows as the materializer writes
them). With ``--workflows``, every terminal action also gets its wf_jobs + wf_nodes rows.

"Serving again" is measured from the moment ``bundletui run --home HOME`` is spawned until a
probe workflow (one fs ``touchz``, submitted through the real path while the engine was down)
is SUCCEEDED in the store. The probe can only finish once the new engine holds the lease, has
run recovery (which queues an input check for every WAITING action, re-queues READY nodes and
RUNNING workflows) and has committed a tick: exactly "taking commands again". A reader polls
the store every 5 ms. Also shown: when the lease was taken (``engine_lease.acquired``).

Three starts on the same store, each with its own probe:
  first start   a store that no engine has opened (the generated one);
  clean restart after SIGTERM of the previous engine (it released the lease);
  crash restart an engine is started, serves, and gets ``kill -9`` (its lease row is left
                behind, unexpired); the next one is timed.
And the floor: ``bundletui run --help`` (interpreter + CLI imports), for scale.

Usage: python bench/bench_restart.py [--coords 100] [--actions 10000] [--workflows] [--keep]
         [--reuse ROOT]     (time starts again on a store kept by --keep; no 1M-row rebuild)
         [--profile FILE]   (cProfile of the clean restart's engine process)
$BENCH_BUNDLETUI runs another ``bundletui`` executable as the engine (A/B experiments).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _coord_common import (
    BUNDLETUI,
    CoordSpec,
    EngineProc,
    connect,
    loadavg,
    machine,
    ms,
    oozie_time,
    sample,
    start_engine,
    submit_each,
    submit_many,
    write_coordinator,
)

GOAL_S = 2.0
HOUR = 3_600_000
RUNNING, READY, WAITING = 1, 2, 97  # per coordinator, the newest actions


# ----------------------------------------------------------------------------- the store


def build_store(root: Path, coords: int, actions: int, workflows: bool) -> Path:
    from bundletui.commands import coordinators as coordcmd
    from bundletui.commands import workflows as wfcmd
    from bundletui.commands.effects import OutboxEffects
    from bundletui.engine import coord_inputs
    from bundletui.model.ids import action_id
    from bundletui.spec.load import load_app
    from bundletui.spec.xmlsafe import AppKind
    from bundletui.store import jobs
    from bundletui.store.db import Store, current_user
    from bundletui.store.rows import CoordRow

    home = root / "home"
    landing = home / "landing"
    now = datetime.now(UTC)
    nxt = now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    start = nxt - timedelta(hours=actions)
    spec = CoordSpec(
        name="feed",
        start=start,
        end=nxt + timedelta(days=365),
        out=f"{root}/out/${{coord:actionId()}}",
        concurrency=2,
        throttle=200,
        datasets=(
            "  <datasets>\n"
            f'    <dataset name="feed" frequency="${{coord:hours(1)}}"'
            f' initial-instance="{oozie_time(start)}" timezone="UTC">\n'
            "      <uri-template>file://${landing}/feed/${YEAR}/${MONTH}/${DAY}/${HOUR}"
            "</uri-template>\n"
            "    </dataset>\n"
            "  </datasets>\n"
            "  <input-events>\n"
            '    <data-in name="in" dataset="feed"><instance>${coord:current(0)}</instance>'
            "</data-in>\n"
            "  </input-events>\n"
        ),
        properties={"landing": str(landing)},
    )
    props = write_coordinator(root / "app", spec)
    t = time.perf_counter()
    ids = submit_many(home, props, coords)
    print(f"  submitted {coords} coordinators in {time.perf_counter() - t:.2f} s")

    t = time.perf_counter()
    store = Store(home)
    user = current_user()
    wf_loaded = load_app(
        root / "app" / "workflow.xml",
        {"out": "x", "user.name": user},
        store.clock,
        kinds=(AppKind.WORKFLOW,),
    )
    s0, last_terminal = ms(start), actions - RUNNING - READY - WAITING
    now_ms = ms(now)
    with store.write() as tx:
        coord0 = jobs.must_get(tx.conn, CoordRow, ids[0])
        app = coordcmd.app_of(coord0)
        sample_plan = coord_inputs.plan(tx.conn, app, coord0, 1, s0, now_ms)
        ready = coord_inputs.check(app, sample_plan, now_ms, lambda _p: True)
        terminal_plan = json.dumps(ready.plan_json)
        run_conf = json.dumps({"out": f"{root}/out/x", "user.name": user, "nominalTime": "x"})
        for n, cid in enumerate(ids):
            # the terminal history: one INSERT … SELECT per coordinator
            tx.conn.execute(
                "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < ?)"
                " INSERT INTO coord_actions (id, coord_id, action_number, nominal_time,"
                " created_time, status, external_id, run_conf, plan, error_code, last_modified,"
                " rev)"
                " SELECT ? || '@' || n, ?, n, ? + (n - 1) * 3600000, ? + (n - 1) * 3600000,"
                " CASE WHEN n % 4999 = 0 THEN 'TIMEDOUT' WHEN n % 1999 = 0 THEN 'KILLED'"
                "  WHEN n % 997 = 0 THEN 'FAILED' ELSE 'SUCCEEDED' END,"
                " CASE WHEN n % 4999 = 0 THEN NULL ELSE printf('%07d-%03d-generated-W', n, ?) END,"
                " ?, ?, CASE WHEN n % 997 = 0 THEN 'E0711' END, ? + (n - 1) * 3600000 + 60000, ?"
                " FROM k",
                (last_terminal, cid, cid, s0, s0, n, run_conf, terminal_plan, s0, tx.rev),
            )
            coord = jobs.must_get(tx.conn, CoordRow, cid)
            for number in range(last_terminal + 1, actions + 1):
                nominal = s0 + (number - 1) * HOUR
                aid = action_id(cid, number)
                plan = coord_inputs.plan(tx.conn, app, coord, number, nominal, nominal)
                deps = coord_inputs.dependencies(plan)
                k = number - last_terminal
                if k <= RUNNING + READY:
                    checked = coord_inputs.check(app, plan, nominal, lambda _p: True)
                    status = "RUNNING" if k <= RUNNING else "READY"
                    held, stored, available = None, checked.plan_json, 1
                else:
                    checked = coord_inputs.check(app, plan, nominal, lambda _p: False)
                    status, available = "WAITING", 0
                    held = json.dumps({"missing": checked.missing[:50]})
                    stored = checked.plan_json
                tx.conn.execute(
                    "INSERT INTO coord_actions (id, coord_id, action_number, nominal_time,"
                    " created_time, status, held_by, plan, last_modified, rev)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        aid,
                        cid,
                        number,
                        nominal,
                        nominal,
                        status,
                        held,
                        json.dumps(stored),
                        nominal,
                        tx.rev,
                    ),
                )
                tx.conn.executemany(
                    "INSERT INTO input_deps (action_id, path, data_in, seq, available)"
                    " VALUES (?, ?, ?, ?, ?)",
                    [(aid, p, name, seq, available) for seq, (p, name) in enumerate(deps)],
                )
                if status == "RUNNING":
                    conf = {"out": f"{root}/out/{aid}", "user.name": user}
                    sub = wfcmd.WorkflowSubmission(
                        wf_loaded.app, conf, wf_loaded.definition, wf_loaded.app_path, user
                    )
                    wf_id = wfcmd.create_workflow_tx(
                        tx, store, OutboxEffects(), sub, start=True, parent_id=aid
                    )
                    tx.conn.execute(
                        "UPDATE coord_actions SET external_id = ?, run_conf = ? WHERE id = ?",
                        (wf_id, json.dumps(conf), aid),
                    )
            tx.conn.execute(
                "UPDATE coord_jobs SET status = 'RUNNING', last_action_number = ?,"
                " next_materialized_time = ?, done_materialization = 0 WHERE id = ?",
                (actions, ms(nxt), cid),
            )
        if workflows:
            _terminal_workflows(tx.conn)
    store.close()
    took = time.perf_counter() - t
    conn = connect(home)
    try:
        total = conn.execute("SELECT count(*) FROM coord_actions").fetchone()[0]
        by_status = dict(conn.execute("SELECT status, count(*) FROM coord_actions GROUP BY status"))
        wf_rows = conn.execute("SELECT count(*) FROM wf_jobs").fetchone()[0]
        deps = conn.execute("SELECT count(*) FROM input_deps").fetchone()[0]
    finally:
        conn.close()
    size = sum(p.stat().st_size for p in home.glob("bundletui.db*"))
    print(
        f"  generated {total:,} action rows in one transaction in {took:.1f} s"
        f" ({total / took:,.0f} rows/s); store {size / 1e6:,.0f} MB"
    )
    print(f"  actions: {', '.join(f'{s} {c:,}' for s, c in sorted(by_status.items()))}")
    print(f"  wf_jobs rows {wf_rows:,}; input_deps rows {deps:,}")
    return home


def _terminal_workflows(conn: sqlite3.Connection) -> None:
    """A SUCCEEDED/FAILED/KILLED workflow (and its one node) per terminal action that names one,
    copied from the RUNNING workflow the generator created (same definition size)."""
    template = conn.execute("SELECT * FROM wf_jobs LIMIT 1").fetchone()
    cols = [d[0] for d in conn.execute("SELECT * FROM wf_jobs LIMIT 0").description]
    keep = [c for c in cols if c not in ("id", "parent_id", "status", "end_time", "rev")]
    del template
    conn.execute(
        f"INSERT INTO wf_jobs (id, parent_id, status, end_time, rev, {', '.join(keep)})"
        f" SELECT a.external_id, a.id, CASE a.status WHEN 'FAILED' THEN 'FAILED'"
        f" WHEN 'KILLED' THEN 'KILLED' ELSE 'SUCCEEDED' END, a.last_modified, a.rev,"
        f" {', '.join('t.' + c for c in keep)}"
        " FROM coord_actions a, (SELECT * FROM wf_jobs LIMIT 1) t"
        " WHERE a.external_id LIKE '%-generated-W'"
    )
    conn.execute(
        "INSERT INTO wf_nodes (id, wf_id, name, type, status, attempt, started, ended,"
        " last_modified, rev)"
        " SELECT w.id || '@touch', w.id, 'touch', 'ACTION', w.status, 1, w.end_time,"
        " w.end_time, w.end_time, w.rev FROM wf_jobs w WHERE w.id LIKE '%-generated-W'"
    )


# ----------------------------------------------------------------------------- one start


@dataclass
class Start:
    lease_s: float  # spawn -> engine_lease.acquired by the new process
    serving_s: float  # spawn -> probe SUCCEEDED (observed)
    cpu_s: float  # the engine process's CPU time (user + sys) when the probe was seen done
    standby: bool  # the engine logged that it waited for another engine's lease
    proc: EngineProc


def probe(root: Path, home: Path, name: str) -> str:
    """A one-job fs workflow, submitted (started) while no engine runs."""
    from _coord_common import DAG_NS

    name = f"{name}-{int(time.time())}"
    app = root / "probes" / name
    app.mkdir(parents=True, exist_ok=True)
    (app / "workflow.xml").write_text(
        f'<dag-app xmlns="{DAG_NS}" name="probe-{name}">\n'
        f'  <job name="touch"><fs><touchz path="{root}/probes/{name}.done"/></fs></job>\n'
        "</dag-app>\n"
    )
    (app / "job.properties").write_text("oozie.wf.application.path=workflow.xml\n")
    return submit_each(home, [app / "job.properties"])[0]


def start_and_time(root: Path, home: Path, name: str, profile: str | None = None) -> Start:
    wf_id = probe(root, home, name)
    conn = connect(home)
    try:
        spawn_wall = time.time()
        t0 = time.monotonic()
        proc = start_engine(home, root / f"engine-{name}.log", profile=profile)
        lease_s = None
        while True:
            now = time.monotonic()
            if lease_s is None:
                row = conn.execute("SELECT pid, acquired FROM engine_lease").fetchone()
                if row is not None and row[0] == proc.pid:
                    lease_s = row[1] / 1000 - spawn_wall
            status = conn.execute("SELECT status FROM wf_jobs WHERE id = ?", (wf_id,)).fetchone()
            if status and status[0] == "SUCCEEDED":
                serving = now - t0
                cpu = sample(proc.pid).cpu
                break
            if status and status[0] in ("FAILED", "KILLED"):
                raise SystemExit(f"probe {wf_id} {status[0]}")
            if now - t0 > 300:
                raise SystemExit(f"probe not done after 300 s:\n{proc.log()[-3000:]}")
            proc.check_alive()
            time.sleep(0.005)
        if lease_s is None:
            row = conn.execute("SELECT pid, acquired FROM engine_lease").fetchone()
            lease_s = row[1] / 1000 - spawn_wall if row else float("nan")
    finally:
        conn.close()
    return Start(lease_s, serving, cpu, "standby" in proc.log(), proc)


def cli_floor() -> float:
    t = time.perf_counter()
    subprocess.run([BUNDLETUI, "run", "--help"], check=True, capture_output=True)
    return time.perf_counter() - t


# ----------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coords", type=int, default=100)
    ap.add_argument("--actions", type=int, default=10_000, help="per coordinator")
    ap.add_argument("--workflows", action="store_true", help="wf rows for terminal actions too")
    ap.add_argument("--dir", type=Path, help="work directory (default: a temporary one in /tmp)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--profile", metavar="FILE", help="cProfile the clean restart's engine")
    ap.add_argument(
        "--reuse", type=Path, metavar="ROOT", help="time starts on a store kept by --keep"
    )
    args = ap.parse_args()

    print(machine())
    if args.reuse:
        root, args.keep = args.reuse.resolve(), True
    else:
        root = Path(tempfile.mkdtemp(prefix="bench-restart-", dir=args.dir))
    try:
        if args.reuse:
            home = root / "home"
            print(f"reusing the store in {home}")
        else:
            print(f"building the store ({args.coords} coordinators x {args.actions:,} actions):")
            home = build_store(root, args.coords, args.actions, args.workflows)
        floor = cli_floor()
        print(f"floor: `bundletui run --help` takes {floor:.3f} s (interpreter + CLI imports)")
        print(f"loadavg {loadavg()}")
        results: list[tuple[str, Start]] = []

        first = start_and_time(root, home, "first")
        label = "start on the kept store" if args.reuse else "first start (fresh store)"
        results.append((label, first))
        first.proc.stop()

        clean = start_and_time(root, home, "clean", profile=args.profile)
        results.append(("clean restart (after SIGTERM)", clean))
        clean.proc.stop()

        victim = start_and_time(root, home, "victim")  # an engine serving, then kill -9
        time.sleep(0.5)
        victim.proc.kill9()
        crash = start_and_time(root, home, "crash")
        results.append(("crash restart (after kill -9)", crash))
        crash.proc.stop()

        print(f"from `bundletui run` spawn (loadavg at the end {loadavg()}):")
        print(f"  {'':32} {'lease taken':>11} {'serving (probe done)':>20} {'engine CPU':>11}")
        for label, r in results:
            verdict = "OK" if r.serving_s < GOAL_S else "MISSED"
            note = "  (waited as standby for the dead engine's lease)" if r.standby else ""
            print(
                f"  {label:32} {r.lease_s:9.3f} s {r.serving_s:18.3f} s {r.cpu_s:9.2f} s"
                f"   goal < {GOAL_S:g} s: {verdict}{note}"
            )
        if args.profile:
            print(f"profile of the clean restart's engine: {args.profile}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"kept {root}")


if __name__ == "__main__":
    main()
