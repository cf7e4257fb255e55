"""Idle (issue 4 §6): 10,000 coordinators waiting far in the future; engine CPU < 1 % of a core,
RSS < 300 MB.

10,000 hourly coordinators starting a year from now, submitted through the real path
(``load_job`` once, ``submit_loaded`` 10,000 times, one command transaction each). Then
``bundletui run --home HOME`` (real clock) runs as a real process; once it has settled (every
coordinator has its next materialization time recorded and the store revision is no longer
jumping), its CPU time (utime + stime of all its threads, /proc/PID/stat) is sampled over
``--seconds`` and divided by the wall time: % of one core. RSS (VmRSS) is read at the end, with
the peak (VmHWM). Also shown: the store commits the idle engine made (``meta.rev`` moves once per
write transaction) and the WAL file's size.

Usage: python bench/bench_idle.py [--coords 10000] [--seconds 30] [--profile FILE]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _coord_common import (
    CoordSpec,
    connect,
    loadavg,
    machine,
    sample,
    start_engine,
    submit_many,
    thread_cpu,
    wait_for,
    write_coordinator,
)

GOAL_CPU = 1.0  # % of one core
GOAL_RSS_MB = 300.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coords", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=30.0, help="CPU sampling window")
    ap.add_argument("--dir", type=Path, help="work directory (default: a temporary one in /tmp)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--profile", metavar="FILE", help="run the engine under cProfile into FILE")
    args = ap.parse_args()
    n = args.coords

    print(machine())
    root = Path(tempfile.mkdtemp(prefix="bench-idle-", dir=args.dir))
    home = root / "home"
    start = (datetime.now(UTC) + timedelta(days=365)).replace(minute=0, second=0, microsecond=0)
    spec = CoordSpec(
        name="idle",
        start=start,
        end=start + timedelta(days=365),
        out=f"{root}/out/${{coord:actionId()}}",
    )
    props = write_coordinator(root / "app", spec)
    t = time.perf_counter()
    submit_many(home, props, n)
    submit_s = time.perf_counter() - t
    print(
        f"{n:,} hourly coordinators starting {start:%Y-%m-%d %H:%M} UTC, submitted in"
        f" {submit_s:.1f} s ({submit_s / n * 1000:.2f} ms each)"
    )

    proc = start_engine(home, root / "engine.log", profile=args.profile)
    conn = connect(home)
    try:
        t0 = time.monotonic()
        wait_for(
            "the engine to settle",
            lambda: (
                proc.check_alive()
                or conn.execute(
                    "SELECT count(*) FROM coord_jobs WHERE next_materialized_time IS NOT NULL"
                ).fetchone()[0]
                == n
            ),
            timeout=600,
            every=0.1,
        )
        settled = time.monotonic() - t0
        after_start = sample(proc.pid)
        time.sleep(2.0)  # let the start-up tick's after-effects pass
        rev0 = _rev(conn)
        wal0 = _wal(home)
        s0 = sample(proc.pid)
        th0 = thread_cpu(proc.pid)
        print(
            f"engine settled {settled:.2f} s after start ({after_start.cpu:.2f} s CPU,"
            f" RSS {after_start.rss_kb / 1024:.0f} MB); sampling {args.seconds:g} s;"
            f" loadavg {loadavg()}"
        )
        time.sleep(args.seconds)
        s1 = sample(proc.pid)
        th1 = thread_cpu(proc.pid)
        rev1 = _rev(conn)
        wal1 = _wal(home)
        proc.check_alive()
    finally:
        conn.close()
        code = proc.stop()
    wall = s1.t - s0.t
    cpu_pct = (s1.cpu - s0.cpu) / wall * 100
    rss = s1.rss_kb / 1024
    commits = rev1 - rev0
    print(f"idle engine over {wall:.1f} s (loadavg at the end {loadavg()}):")
    print(
        f"  CPU  {cpu_pct:6.2f} % of one core ({s1.cpu - s0.cpu:.2f} s)"
        f"   goal < {GOAL_CPU:g} %: {'OK' if cpu_pct < GOAL_CPU else 'MISSED'}"
    )
    print(
        f"  RSS  {rss:6.1f} MB (peak {s1.hwm_kb / 1024:.1f} MB), {s1.threads} threads"
        f"   goal < {GOAL_RSS_MB:g} MB: {'OK' if rss < GOAL_RSS_MB else 'MISSED'}"
    )
    print(
        f"  store commits while idle: {commits} ({commits / wall:.1f}/s);"
        f" WAL {wal0 / 1e6:.1f} -> {wal1 / 1e6:.1f} MB"
    )
    per_thread = sorted(((tid, th1[tid] - th0.get(tid, 0.0)) for tid in th1), key=lambda kv: -kv[1])
    print(
        "  by thread: "
        + ", ".join(
            f"{'main' if tid == proc.pid else f'tid {tid}'} {cpu / wall * 100:.2f} %"
            for tid, cpu in per_thread
        )
    )
    if args.profile:
        print(f"engine exit {code}; profile: {args.profile} (python -m pstats FILE)")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"kept {root}")


def _rev(conn: object) -> int:
    import sqlite3

    assert isinstance(conn, sqlite3.Connection)
    return int(conn.execute("SELECT value FROM meta WHERE key = 'rev'").fetchone()[0])


def _wal(home: Path) -> int:
    wal = home / "bundletui.db-wal"
    return wal.stat().st_size if wal.exists() else 0


if __name__ == "__main__":
    main()
