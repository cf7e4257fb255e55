"""Event-to-launch latency of event schedules (issue 5): goal p50 <= 20 ms, p99 <= 100 ms.

1,000 live event schedules (``uri:bundletui:coordinator:1.0``, one bundle, each coordinator on
its own feed, ``<partitions count="1"/>``), each launching a one-job DAG whose job is a tiny
binary: ``/bin/date +%s%N``, which prints the moment the job process started into its own log.
A real ``bundletui run`` (a separate process, real clock, the landing watcher) runs them while
this script drops 1,000 partitions, spaced out (20-50 ms apart, random order of feeds).

Latency = the job's printed start time - the moment the partition's done flag was created
(our clock just before creating it, so a preempted feeder never makes it look shorter; its
mtime is checked to agree). Everything between is the
product: inotify -> watcher thread -> engine tick -> event recorded -> reverse index -> job
queue -> trigger -> action -> constraints -> launch -> workflow -> node -> spawn -> exec.

``--mode flag`` (default): partition directories (with their data) exist; only the done flag
lands — data written over time, then marked complete. ``--mode whole``: each partition
directory is created with its data and flag at once, so the watcher may see the flag only
through its re-walk of a new directory (inotify cannot watch a directory before it exists).

Usage: python bench/bench_event_latency.py [--schedules 1000] [--partitions 1000]
       [--gap-ms 20 50] [--mode flag|whole] [--base /dev/shm] [--profile FILE]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine

BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))
DATE = shutil.which("date") or "/bin/date"
GOAL_P50_MS, GOAL_P99_MS = 20.0, 100.0

WORKFLOW = f"""<?xml version="1.0" encoding="UTF-8"?>
<dag-app xmlns="uri:bundletui:dag:1.0" name="stamp">
  <job name="t"><shell><exec>{DATE}</exec><argument>+%s%N</argument></shell></job>
</dag-app>
"""

COORDINATOR = """<?xml version="1.0" encoding="UTF-8"?>
<coordinator-app name="lat-${feed}" xmlns="uri:bundletui:coordinator:1.0"
                 start="${start}" end="${end}" timezone="UTC">
  <feeds><feed name="f" path="${landing}/${feed}"/></feeds>
  <trigger><partitions feed="f" count="1"/></trigger>
  <action><workflow><app-path>WORKFLOW</app-path></workflow></action>
</coordinator-app>
"""


def feed(i: int) -> str:
    return f"s{i:04d}"


def sql(home: Path, query: str, *params: object) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{home / 'bundletui.db'}?mode=ro", uri=True, timeout=30)
    try:
        return list(conn.execute(query, params))
    finally:
        conn.close()


def wait(
    what: str, predicate: object, timeout: float, engine: subprocess.Popen[bytes], log: Path
) -> float:
    t0 = time.monotonic()
    while not predicate():  # type: ignore[operator]
        if engine.poll() is not None:
            raise SystemExit(f"engine exited {engine.returncode}:\n{log.read_text()[-3000:]}")
        if time.monotonic() - t0 > timeout:
            raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)
    return time.monotonic() - t0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def submit_coordinators(home: Path, props: Path, feeds: list[str]) -> None:
    """What ``bundletui submit props -D feed=F --start`` does (load_job + submit_loaded), for
    each feed, in this process: a thousand CLI starts would only time Python's start-up."""
    from bundletui.commands.base import Ctx
    from bundletui.commands.submit import submit_loaded
    from bundletui.spec.load import load_job
    from bundletui.store.db import Store, current_user

    store = Store(home)
    try:
        ctx = Ctx(store, face="cli")
        for f in feeds:
            loaded = load_job(props, [f"feed={f}"], store.clock, user=current_user())
            submit_loaded(ctx, loaded, start=True)
    finally:
        store.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schedules", type=int, default=1000)
    ap.add_argument("--partitions", type=int, default=1000)
    ap.add_argument("--gap-ms", type=float, nargs=2, default=(20.0, 50.0))
    ap.add_argument("--mode", choices=("flag", "whole"), default="flag")
    ap.add_argument("--base", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--max-workers", type=int, default=64)
    ap.add_argument("--profile", help="run the engine under cProfile, stats to this file")
    ap.add_argument(
        "--bundle",
        action="store_true",
        help="the schedules as one bundle of N coordinators (default: N coordinators)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--nice", type=int, default=0, help="run the engine under nice -n N")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    n, m = a.schedules, a.partitions

    root = Path(tempfile.mkdtemp(prefix="bench-events-", dir=a.base))
    home, landing, apps = root / "home", root / "home" / "landing", root / "app"
    apps.mkdir(parents=True)
    env = {**os.environ, "BUNDLETUI_HOME": str(home), "NO_COLOR": "1"}
    engine: subprocess.Popen[bytes] | None = None
    try:
        (apps / "stamp.xml").write_text(WORKFLOW)
        (apps / "coord.xml").write_text(COORDINATOR.replace("WORKFLOW", str(apps / "stamp.xml")))
        if a.bundle:
            coords = "".join(
                f'<coordinator name="{feed(i)}"><app-path>{apps / "coord.xml"}</app-path>'
                f"<configuration><property><name>feed</name><value>{feed(i)}</value></property>"
                "</configuration></coordinator>"
                for i in range(n)
            )
            (apps / "bundle.xml").write_text(
                f'<bundle-app name="latency" xmlns="uri:oozie:bundle:0.2">{coords}</bundle-app>\n'
            )
        kind = "bundle" if a.bundle else "coord"
        (apps / "job.properties").write_text(
            f"oozie.{kind}.application.path={apps / (kind + '.xml')}\n"
            f"start=2020-01-01T00:00Z\nend=2099-01-01T00:00Z\nlanding={landing}\n"
        )
        targets = [rng.randrange(n) for _ in range(m)] if m > n else rng.sample(range(n), m)
        parts = [landing / feed(i) / f"p{k:04d}" for k, i in enumerate(targets)]
        for i in range(n):
            (landing / feed(i)).mkdir(parents=True)
        if a.mode == "flag":  # the data is there, the flag lands later
            for p in parts:
                p.mkdir()
                (p / "part-00000").write_text("x" * 100)

        t = time.perf_counter()
        if a.bundle:  # one bundle of n coordinators, submitted with the CLI
            subprocess.run(
                [BUNDLETUI, "submit", str(apps / "job.properties"), "--start"],
                env=env,
                check=True,
                capture_output=True,
            )
        else:  # n coordinators, each through the path of `bundletui submit -D feed=…`
            submit_coordinators(home, apps / "job.properties", [feed(i) for i in range(n)])
        cmd = [BUNDLETUI, "run", "--home", str(home), "--max-workers", str(a.max_workers)]
        if a.profile:
            cmd = [sys.executable, "-m", "cProfile", "-o", a.profile, *cmd]
        if a.nice:  # e.g. -10 on a box shared with other work: the engine and its jobs first
            cmd = ["nice", "-n", str(a.nice), *cmd]
        log = (root / "engine.log").open("wb")
        engine = subprocess.Popen(cmd, env=env, stdout=log, stderr=log)
        wait(
            f"{n} schedules running",
            lambda: sql(home, "SELECT count(*) FROM coord_jobs WHERE status = 'RUNNING'") == [(n,)],
            600,
            engine,
            root / "engine.log",
        )
        setup = time.perf_counter() - t
        time.sleep(1.0)  # let the engine settle (start-up rescan, roll-ups)

        cpu0 = cpu_seconds(engine.pid)
        flags: list[tuple[str, int, int]] = []  # path, clock just before / after the touch
        t = time.perf_counter()
        for p in parts:
            if a.mode == "whole":
                p.mkdir()
                (p / "part-00000").write_text("x" * 100)
            before = time.time_ns()
            (p / "_SUCCESS").touch()
            flags.append((str(p), before, time.time_ns()))
            time.sleep(rng.uniform(*a.gap_ms) / 1000)
        drop = time.perf_counter() - t
        wait(
            f"{m} workflows",
            lambda: sql(home, "SELECT count(*) FROM wf_jobs WHERE status = 'SUCCEEDED'") == [(m,)],
            120,
            engine,
            root / "engine.log",
        )
        cpu = cpu_seconds(engine.pid) - cpu0

        # partition path -> the workflow it fired (the action's recorded trigger) -> its stamp;
        # the event's time is the engine's clock in the tick that recorded it
        wf_of = {
            str(path): (str(wf), int(seen))  # type: ignore[call-overload]
            for path, wf, seen in sql(
                home,
                "SELECT json_extract(a.trigger, '$.events[0].path'), a.external_id,"
                " json_extract(a.trigger, '$.events[0].time') FROM coord_actions a",
            )
        }
        latencies, detect, process, mtime_skew = [], [], [], []
        touch_ms = max((after - before) / 1e6 for _p, before, after in flags)
        for path, created_ns, _after in flags:
            wf, seen_ms = wf_of[path]
            out = home / "logs" / wf / "t.0.1.out"
            started_ns = int(out.read_text().split()[0])
            latencies.append((started_ns - created_ns) / 1e6)
            detect.append(seen_ms - created_ns / 1e6)
            process.append(started_ns / 1e6 - seen_ms)
            mtime_skew.append(abs(os.stat(Path(path) / "_SUCCESS").st_mtime_ns - created_ns) / 1e6)
        ticks = sum(1 for line in (root / "engine.log").read_text().splitlines() if "ERROR" in line)

        print(machine())
        print(
            f"{n} event schedules, {m} partitions ({a.mode} mode) dropped {a.gap_ms[0]:.0f}-"
            f"{a.gap_ms[1]:.0f} ms apart over {drop:.1f} s; store and landing under {root.parent}"
        )
        print(f"setup (submit + engine creating {n} schedules): {setup:.1f} s")
        print(
            "done flag created -> job process started (ms): "
            f"p50 {pct(latencies, 50):.1f}  p90 {pct(latencies, 90):.1f}  "
            f"p99 {pct(latencies, 99):.1f}  max {max(latencies):.1f}  "
            f"mean {statistics.fmean(latencies):.1f}  min {min(latencies):.1f}"
        )
        for label, xs in (
            ("  flag -> event recorded (watcher, wake-up, tick)", detect),
            ("  event recorded -> job started (trigger .. spawn, exec)", process),
        ):
            print(f"{label}: p50 {pct(xs, 50):.1f}  p90 {pct(xs, 90):.1f}  p99 {pct(xs, 99):.1f}")
        print(
            f"(from our clock just before creating the flag; the touch took at most "
            f"{touch_ms:.2f} ms; flag mtime within {max(mtime_skew):.2f} ms; engine nice {a.nice})"
        )
        print(
            f"engine CPU during the drop: {cpu:.2f} s = {cpu / m * 1000:.1f} ms per partition "
            f"(load average {os.getloadavg()[0]:.2f}); engine errors logged: {ticks}"
        )
        ok = pct(latencies, 50) <= GOAL_P50_MS and pct(latencies, 99) <= GOAL_P99_MS
        print(
            f"goal p50 <= {GOAL_P50_MS:.0f} ms, p99 <= {GOAL_P99_MS:.0f} ms: {'met' if ok else 'MISSED'}"
        )
        return 0
    finally:
        if engine is not None and engine.poll() is None:
            engine.send_signal(signal.SIGTERM)
            try:
                engine.wait(30)
            except subprocess.TimeoutExpired:
                engine.kill()
        if a.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
