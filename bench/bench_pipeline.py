"""Pipeline throughput on the simulated clock (issue 4 §6): goal >= 5,000 actions/s end to end.

10 coordinators x one year hourly (87,600 actions). Each action's workflow is one in-process fs
action: ``touchz ${out}`` with ``out = DIR/cN/${coord:formatTime(coord:nominalTime(),
'yyyyMMddHH')}``. Each coordinator is a coordinator.xml + workflow.xml + job.properties submitted
through ``load_job`` + ``submit_loaded``; then the real engine runs in-process
(``Engine(EngineConfig(clock="simulated", start_time=START, until=END, watch=False))`` under
``asyncio.run``) and is timed from ``run()`` to its return. Every transition is committed
(WAL, synchronous=NORMAL, the store's default). At the end: every action SUCCEEDED, every
workflow SUCCEEDED, and every file exists.

Modes:
  step     the clock starts at the coordinators' start and walks the year hour by hour
           (the engine jumps to the next due time whenever nothing is busy): the issue's figure;
  catchup  the clock starts at the end of the year: the whole year is due at once (catch-up
           after a long downtime), bounded by concurrency/throttle.

Same run: raw sqlite3 inserting the same number of rows into a table shaped like
coord_actions (same columns, keys and file system, one transaction, WAL NORMAL): the ceiling.
And the floor: the rows the engine wrote for one action (action, workflow, node), copied with new
ids into the store as submitted, in their final state, with the action's file created and no
scheduling logic at all, one commit per simulated hour (as the engine commits), without the
files, and one commit per 100 hours: what this machine allows before any engine work.

Usage: python bench/bench_pipeline.py [--coords 10] [--hours 8760] [--mode step|catchup|both]
         [--form dag|oozie] [--concurrency 1] [--throttle 12] [--dir DIR] [--keep]
         [--profile FILE] [--pyinstrument FILE.html] [--floor-sample N]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import logging
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _coord_common import (
    CoordSpec,
    connect,
    count_sql,
    machine,
    print_sql_counts,
    submit_each,
    write_coordinator,
)

GOAL = 5_000.0
START = datetime(2025, 1, 1, tzinfo=UTC)


# ----------------------------------------------------------------------------- the ceiling


def sqlite_ceiling(path: Path, rows: int) -> float:
    """rows/s inserting ``rows`` coord_actions-shaped rows in one transaction (WAL NORMAL)."""
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(
            "CREATE TABLE coord_actions (id TEXT PRIMARY KEY, coord_id TEXT NOT NULL,"
            " action_number INTEGER NOT NULL, nominal_time INTEGER NOT NULL,"
            " created_time INTEGER NOT NULL, status TEXT NOT NULL, pending INTEGER NOT NULL"
            " DEFAULT 0, external_id TEXT, run_conf TEXT, error_code TEXT, error_message TEXT,"
            " held_by TEXT, timeout_at INTEGER, plan TEXT, trigger TEXT,"
            " last_modified INTEGER NOT NULL, rev INTEGER NOT NULL DEFAULT 0,"
            " UNIQUE (coord_id, action_number), UNIQUE (coord_id, nominal_time))"
        )
        coord = "0000001-260101000000000-oozie-user-C"
        base = int(START.timestamp() * 1000)
        data = [
            (
                f"{coord}@{i + 1}",
                coord,
                i + 1,
                base + i * 3_600_000,
                base,
                "SUCCEEDED",
                f"0{i:06d}-260101000000000-oozie-user-W",
                '{"plan":{"data_ins":[],"data_outs":[]}}',
                base,
                i,
            )
            for i in range(rows)
        ]
        t = time.perf_counter()
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO coord_actions (id, coord_id, action_number, nominal_time, created_time,"
            " status, external_id, plan, last_modified, rev) VALUES (?,?,?,?,?,?,?,?,?,?)",
            data,
        )
        conn.execute("COMMIT")
        return rows / (time.perf_counter() - t)
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


# ----------------------------------------------------------------------------- the floor


def store_floor(
    submitted: Path, done: Path, out: Path, coords: int, rows: int, per_tx: int, files: bool
) -> float:
    """actions/s writing what the engine writes per action, with no scheduling logic at all.

    ``submitted``: a copy of the store as submitted (coordinators, no actions); ``done``: the
    engine's store after the run, whose first action, workflow and node rows are the templates.
    Per action: its coord_actions, wf_jobs and wf_nodes rows in their final state (same columns,
    sizes, indexes and count triggers, new ids and times), its file created with ``os.open``
    when ``files``; per transaction: each coordinator's row updated and the store's rev bumped,
    as the engine does; ``per_tx`` actions per write transaction (10 = one simulated hour).
    """
    src = sqlite3.connect(done)
    try:
        action = src.execute("SELECT * FROM coord_actions ORDER BY rowid LIMIT 1").fetchone()
        wf = src.execute("SELECT * FROM wf_jobs WHERE id = ?", (action[7],)).fetchone()
        node = src.execute("SELECT * FROM wf_nodes WHERE wf_id = ?", (wf[0],)).fetchone()
    finally:
        src.close()
    path = submitted.with_name(f"floor-{per_tx}-{int(files)}.db")
    shutil.copy(submitted, path)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for pragma in (
            "PRAGMA journal_mode=WAL",
            "PRAGMA synchronous=NORMAL",
            "PRAGMA foreign_keys=ON",
            "PRAGMA temp_store=FILE",
            "PRAGMA cache_size=-65536",
        ):
            conn.execute(pragma)
        ids = [r[0] for r in conn.execute("SELECT id FROM coord_jobs ORDER BY id")][:coords]
        dirs = [out / f"floor-{per_tx}-{int(files)}" / f"c{c}" for c in range(len(ids))]
        for d in dirs:
            d.mkdir(parents=True, exist_ok=True)
        insert = {
            table: f"INSERT INTO {table} VALUES ({','.join('?' * len(row))})"
            for table, row in (("coord_actions", action), ("wf_jobs", wf), ("wf_nodes", node))
        }
        conf, plan = json.loads(action[8]), json.loads(action[13])
        base = int(START.timestamp() * 1000)
        rev = 1_000
        t = time.perf_counter()
        n = 0
        while n < rows:
            conn.execute("BEGIN IMMEDIATE")
            a_rows, w_rows, n_rows = [], [], []
            for _ in range(min(per_tx, rows - n)):
                c, number = n % len(ids), n // len(ids) + 1
                nominal = base + (number - 1) * 3_600_000
                aid, wid = f"{ids[c]}@{number}", f"{n:07d}-floor-W"
                target = dirs[c] / f"{number:08d}"
                conf["out"] = str(target)
                plan["plan"]["number"] = number
                run_conf = json.dumps(conf)
                a_rows.append(
                    (
                        *(aid, ids[c], number, nominal, nominal, *action[5:7], wid, run_conf),
                        *(*action[9:13], json.dumps(plan), action[14], nominal, rev),
                    )
                )
                w_rows.append((wid, *wf[1:4], aid, *wf[5:19], run_conf, *wf[20:22], rev))
                n_rows.append((f"{wid}@{node[2]}", wid, *node[2:18], nominal, rev))
                if files:
                    os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
                n += 1
            conn.executemany(insert["wf_jobs"], w_rows)
            conn.executemany(insert["wf_nodes"], n_rows)
            conn.executemany(insert["coord_actions"], a_rows)
            conn.executemany(
                "UPDATE coord_jobs SET last_action_number = ?, rev = ?, last_modified = ?"
                " WHERE id = ?",
                [(n // len(ids), rev, base, cid) for cid in ids],
            )
            conn.execute("UPDATE meta SET value = ? WHERE key = 'rev'", (str(rev),))
            conn.execute("COMMIT")
            rev += 1
        return rows / (time.perf_counter() - t)
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


# ----------------------------------------------------------------------------- one run


@dataclass
class Run:
    mode: str
    actions: int
    submit_s: float
    engine_s: float
    engine_cpu: float
    ticks: int
    commits: int
    ceiling: float
    floors: dict[str, float]

    @property
    def rate(self) -> float:
        return self.actions / self.engine_s


def run_once(
    root: Path,
    mode: str,
    coords: int,
    hours: int,
    form: str,
    concurrency: int,
    throttle: int,
    profiler: Any = None,
    sql_counts: dict[str, int] | None = None,
    floor_sample: int = 20_000,
) -> Run:
    from bundletui.engine.service import Engine, EngineConfig

    home, out = root / "home", root / "out"
    end = START + timedelta(hours=hours)
    props = []
    for c in range(coords):
        spec = CoordSpec(
            name=f"pipe{c}",
            start=START,
            end=end,
            out=f"{out}/c{c}/${{coord:formatTime(coord:nominalTime(), 'yyyyMMddHH')}}",
            concurrency=concurrency,
            throttle=throttle,
            form=form,
        )
        props.append(write_coordinator(root / "apps" / f"c{c}", spec))
    t = time.perf_counter()
    ids = submit_each(home, props)
    submit_s = time.perf_counter() - t
    assert len(ids) == coords

    total = coords * hours
    ceiling = sqlite_ceiling(root / "ceiling.db", total)

    submitted = root / "submitted.db"
    with connect(home) as live, sqlite3.connect(submitted) as copy:
        live.backup(copy)

    logging.getLogger("bundletui").setLevel(logging.WARNING)
    engine = Engine(
        EngineConfig(
            home=home,
            clock="simulated",
            start_time=START if mode == "step" else end,
            until=end,
            watch=False,
        )
    )
    rev0 = _rev(home)
    t, c = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.start() if hasattr(profiler, "start") else profiler.enable()
    try:
        with count_sql(sql_counts):
            asyncio.run(engine.run())
    finally:
        if profiler is not None:
            profiler.stop() if hasattr(profiler, "stop") else profiler.disable()
    engine_s, engine_cpu = time.perf_counter() - t, time.process_time() - c
    commits = _rev(home) - rev0
    _verify(home, out, ids, hours)
    sample = min(total, floor_sample)
    floors = (
        {
            label: store_floor(submitted, home / "bundletui.db", out, coords, sample, per_tx, files)
            for label, per_tx, files in (
                ("one commit per simulated hour, files created", coords, True),
                ("one commit per simulated hour, no files", coords, False),
                ("one commit per 100 simulated hours, files created", coords * 100, True),
            )
        }
        if sample
        else {}
    )
    return Run(mode, total, submit_s, engine_s, engine_cpu, engine.ticks, commits, ceiling, floors)


def _rev(home: Path) -> int:
    conn = connect(home)
    try:
        return int(conn.execute("SELECT value FROM meta WHERE key = 'rev'").fetchone()[0])
    finally:
        conn.close()


def _verify(home: Path, out: Path, ids: list[str], hours: int) -> None:
    total = len(ids) * hours
    conn = connect(home)
    try:
        actions = dict(conn.execute("SELECT status, count(*) FROM coord_actions GROUP BY status"))
        wfs = dict(conn.execute("SELECT status, count(*) FROM wf_jobs GROUP BY status"))
        coords = dict(conn.execute("SELECT status, count(*) FROM coord_jobs GROUP BY status"))
    finally:
        conn.close()
    files = sum(len(os.listdir(out / f"c{c}")) for c in range(len(ids)) if (out / f"c{c}").is_dir())
    problems = []
    if actions != {"SUCCEEDED": total}:
        problems.append(f"actions {actions}")
    if wfs != {"SUCCEEDED": total}:
        problems.append(f"workflows {wfs}")
    if coords != {"SUCCEEDED": len(ids)}:
        problems.append(f"coordinators {coords}")
    if files != total:
        problems.append(f"{files} files, expected {total}")
    if problems:
        raise SystemExit("verification failed: " + "; ".join(problems))
    print(
        f"  verified: {total:,} actions SUCCEEDED, {total:,} workflows SUCCEEDED,"
        f" {len(ids)} coordinators SUCCEEDED, {files:,} files"
    )


# ----------------------------------------------------------------------------- the file system


def file_create_us(where: Path, n: int = 2_000) -> float:
    """CPU µs to create one empty file (open O_CREAT, close) in a fresh directory under ``where``.

    On this VM the figure has swung from ~20 to ~800 µs within minutes on one ext4 file system,
    with nothing else running: each action creates one file, so the end-to-end figure and the
    floor with files can only be read next to it (printed before and after the engine run).
    """
    d = Path(tempfile.mkdtemp(prefix="fs-probe-", dir=where))
    try:
        t = time.process_time()
        for i in range(n):
            os.close(os.open(d / f"{i:06d}", os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o644))
        return (time.process_time() - t) / n * 1e6
    finally:
        shutil.rmtree(d, ignore_errors=True)


# ----------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coords", type=int, default=10)
    ap.add_argument("--hours", type=int, default=8760)
    ap.add_argument("--mode", choices=("step", "catchup", "both"), default="step")
    ap.add_argument("--form", choices=("dag", "oozie"), default="dag")
    ap.add_argument("--concurrency", type=int, default=1, help="coordinator concurrency")
    ap.add_argument("--throttle", type=int, default=12, help="coordinator throttle")
    ap.add_argument("--dir", type=Path, help="work directory (default: a temporary one in /tmp)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--profile", metavar="FILE", help="cProfile the engine run into FILE")
    ap.add_argument("--pyinstrument", metavar="FILE", help="pyinstrument the engine run (HTML)")
    ap.add_argument(
        "--floor-sample",
        type=int,
        default=20_000,
        help="actions written by each floor measurement (0: skip the floor)",
    )
    ap.add_argument(
        "--trace-sql", action="store_true", help="count the engine's SQL statements by shape"
    )
    args = ap.parse_args()

    print(machine())
    modes = ("step", "catchup") if args.mode == "both" else (args.mode,)
    total = args.coords * args.hours
    print(
        f"{args.coords} coordinators x {args.hours:,} hourly actions = {total:,} actions;"
        f" workflow: one fs touchz ({args.form} form); concurrency {args.concurrency},"
        f" throttle {args.throttle}; WAL synchronous=NORMAL, one write transaction per tick"
    )
    for mode in modes:
        root = Path(tempfile.mkdtemp(prefix=f"bench-pipe-{mode}-", dir=args.dir))
        profiler: Any = None
        sql_counts: dict[str, int] | None = {} if args.trace_sql else None
        if args.profile:
            profiler = cProfile.Profile()
        elif args.pyinstrument:
            from pyinstrument import Profiler

            profiler = Profiler(interval=0.001)
        probe_before = file_create_us(root)
        try:
            r = run_once(
                root,
                mode,
                args.coords,
                args.hours,
                args.form,
                args.concurrency,
                args.throttle,
                profiler,
                sql_counts,
                args.floor_sample,
            )
            probe_after = file_create_us(root)
        finally:
            if not args.keep:
                shutil.rmtree(root, ignore_errors=True)
        print(
            f"[{mode}] file system: creating an empty file took {probe_before:,.0f} us of CPU"
            f" before the run, {probe_after:,.0f} us after (each action creates one)"
        )
        print(f"[{mode}] submit {args.coords} coordinators: {r.submit_s:.2f} s")
        print(
            f"[{mode}] engine start -> --until reached: {r.engine_s:.2f} s wall,"
            f" {r.engine_cpu:.2f} s CPU; {r.ticks:,} ticks, {r.commits:,} commits"
            f" ({r.commits / r.actions:.2f} per action)"
        )
        verdict = "OK" if r.rate >= GOAL else "MISSED"
        print(
            f"[{mode}] throughput: {r.rate:,.0f} actions/s end to end"
            f" ({r.engine_s / r.actions * 1e6:,.0f} us/action wall,"
            f" {r.engine_cpu / r.actions * 1e6:,.0f} us CPU); goal >= {GOAL:,.0f}/s: {verdict}"
        )
        print(
            f"[{mode}] ceiling: raw sqlite3, {r.actions:,} coord_actions-shaped rows in one"
            f" transaction: {r.ceiling:,.0f} rows/s ({r.ceiling / r.rate:,.0f}x ours)"
        )
        for label, rate in r.floors.items():
            print(
                f"[{mode}] floor: the engine's own rows (action, workflow, node; coordinators and"
                f" rev per commit), no scheduling logic, {label}: {rate:,.0f} actions/s"
            )
        if sql_counts is not None:
            print_sql_counts(sql_counts, r.actions, "action")
        if args.profile:
            profiler.dump_stats(f"{args.profile}.{mode}" if len(modes) > 1 else args.profile)
            print(f"[{mode}] profile written (python -m pstats FILE)")
        elif args.pyinstrument:
            name = f"{args.pyinstrument}.{mode}.html" if len(modes) > 1 else args.pyinstrument
            Path(name).write_text(profiler.output_html())
            Path(name + ".txt").write_text(
                profiler.output_text(unicode=False, color=False, show_all=False)
            )
            print(f"[{mode}] pyinstrument report: {name}")
    print(f"loadavg at the end: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")


if __name__ == "__main__":
    main()
