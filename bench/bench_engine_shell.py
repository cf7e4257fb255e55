"""Shell-job overhead through the whole engine (issue 3 §6): goal ≤ 5 ms per job.

One ``uri:bundletui:dag:1.0`` workflow of N shell jobs running ``true`` with no dependencies
(``max-parallel`` N, engine ``max_workers`` N), submitted through the real path and run by the
real engine, timed from engine start to the tick that sees the workflow SUCCEEDED; against N
bare ``subprocess.run(["true"])`` one after another. Overhead per job = (ours - bare) / N.

Also shown: the same engine run of one in-process fs job (the fixed cost of starting the engine:
store, lease, recovery, first tick), so the per-job figure can be read with and without it.
``bench/bench_shell_overhead.py`` times the process layer alone (spawn + watcher).

Usage: python bench/bench_engine_shell.py [--jobs 200] [--rounds 5] [--profile FILE]
"""

from __future__ import annotations

import argparse
import cProfile
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import dag_xml, dependencies, machine, run_engine, submit, write_app

TRUE = shutil.which("true") or "/bin/true"
GOAL_MS = 5.0


def bare(n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        subprocess.run([TRUE], check=True)
    return time.perf_counter() - t


def engine_shell(n: int, profile: cProfile.Profile | None = None) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory(prefix="bench-shell-") as tmp:
        root = Path(tmp)
        xml = dag_xml(f"true-{n}", dependencies("flat", n), shell_exec=TRUE, max_parallel=n)
        wf_id = submit(root / "home", write_app(root / "app", xml))
        run = run_engine(root / "home", wf_id, max_workers=n, profile=profile)
        if run.status != "SUCCEEDED" or run.nodes.get("SUCCEEDED") != n:
            raise SystemExit(f"{n} shell jobs: {run.status} {run.nodes}")
        return run.seconds, run.cpu, run.ticks


def engine_startup() -> float:
    with tempfile.TemporaryDirectory(prefix="bench-shell-") as tmp:
        root = Path(tmp)
        xml = dag_xml("one", dependencies("flat", 1), touch_dir=root / "out")
        wf_id = submit(root / "home", write_app(root / "app", xml))
        return run_engine(root / "home", wf_id).seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--profile", metavar="FILE", help="cProfile one extra engine run into FILE")
    args = ap.parse_args()
    n = args.jobs

    print(machine())
    rows: dict[str, list[float]] = {"bare": [], "engine": [], "cpu": [], "startup": []}
    ticks: list[int] = []
    for _ in range(args.rounds):
        rows["bare"].append(bare(n))
        seconds, cpu, t = engine_shell(n)
        rows["engine"].append(seconds)
        rows["cpu"].append(cpu)
        ticks.append(t)
        rows["startup"].append(engine_startup())
    med = {k: statistics.median(v) for k, v in rows.items()}
    ms = 1000 / n
    print(f"{n} shell jobs of `{TRUE}`, no dependencies, median of {args.rounds} rounds:")
    print(
        f"  {'bare subprocess.run, sequential':44} {med['bare']:7.3f} s  {med['bare'] * ms:6.2f} ms/job"
    )
    print(
        f"  {'engine: start -> workflow SUCCEEDED':44} {med['engine']:7.3f} s  {med['engine'] * ms:6.2f} ms/job"
        f"  ({statistics.median(ticks):.0f} ticks)"
    )
    print(
        f"  {'engine process CPU time over that span':44} {med['cpu']:7.3f} s"
        f"  {med['cpu'] * ms:6.2f} ms/job  (the jobs themselves not included)"
    )
    print(f"  {'engine start-up alone (1 fs job)':44} {med['startup']:7.3f} s")
    over = (med["engine"] - med["bare"]) * ms
    over_net = (med["engine"] - med["startup"] - med["bare"]) * ms
    verdict = "OK" if over <= GOAL_MS else "MISSED"
    print(
        f"overhead per job (engine - bare) / N:             {over:+.2f} ms   goal <= {GOAL_MS:g} ms: {verdict}"
    )
    print(f"same, start-up excluded:                          {over_net:+.2f} ms")
    if args.profile:
        prof = cProfile.Profile()
        engine_shell(n, prof)
        prof.dump_stats(args.profile)
        print(f"profile: {args.profile} (python -m pstats FILE)")


if __name__ == "__main__":
    main()
