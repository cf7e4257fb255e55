"""A burst of partitions for a schedule that waits for many: how long the engine takes them in.

One event schedule, ``<partitions feed="f" count="C"/>``; N partition directories (each with
its ``_SUCCESS``) are made while no engine runs, then one ``bundletui run`` on the simulated
clock (a separate process) records and counts them all and stops. The figure is that run's
wall time and CPU, and the partitions counted (``info --json``). A QA pass found the intake
quadratic while the trigger was not met (every event re-read the window's events): 4,000
partitions took 36 s, 20,000 never finished in 5 minutes.

Usage: python bench/bench_event_burst.py [--partitions 4000] [--count 1000000] [--base DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine

BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))
DAG = (
    '<dag-app xmlns="uri:bundletui:dag:1.0" name="d"><job name="a"><shell><exec>true</exec>'
    "</shell></job></dag-app>\n"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partitions", type=int, default=4000)
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--base", default=None, help="where the scratch home goes")
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bt-burst-", dir=args.base))
    env = {**os.environ, "BUNDLETUI_HOME": str(home)}
    try:
        feed = home / "landing" / "f"
        feed.mkdir(parents=True)
        (home / "wf.xml").write_text(DAG)
        (home / "es.xml").write_text(
            '<coordinator-app name="es" xmlns="uri:bundletui:coordinator:1.0"'
            ' start="2026-01-01T00:00Z" end="2027-01-01T00:00Z" timezone="UTC">'
            f'<feeds><feed name="f" path="{feed}"/></feeds>'
            f'<trigger><partitions feed="f" count="{args.count}"/></trigger>'
            f"<action><workflow><app-path>{home / 'wf.xml'}</app-path></workflow></action>"
            "</coordinator-app>\n"
        )
        (home / "p.properties").write_text(f"oozie.coord.application.path={home / 'es.xml'}\n")
        sim = ["run", "--clock", "simulated", "--start-time", "2026-03-01T00:00Z"]

        def bt(*argv: str) -> str:
            r = subprocess.run([BUNDLETUI, *argv], env=env, capture_output=True, text=True)
            if r.returncode:
                raise SystemExit(f"bundletui {' '.join(argv)}: {r.stderr}")
            return r.stdout

        bt(*sim, "--until", "2026-03-01T00:00Z")  # the store's clock, before the submit
        coord = bt("submit", str(home / "p.properties"), "--start").strip()
        for i in range(args.partitions):
            p = feed / f"d{i % 100}" / f"p{i}"
            p.mkdir(parents=True)
            (p / "_SUCCESS").touch()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        bt(*sim, "--until", "2026-03-01T00:01Z")
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        info = json.loads(bt("info", coord, "--json"))
        seen = info["materialization"]["progress"][0]["seen"]
        print(machine())
        print(
            f"{args.partitions} partitions for a count of {args.count}: counted {seen};"
            f" engine run {wall:.2f} s wall, {cpu:.2f} s CPU"
            f" ({wall / args.partitions * 1e6:.0f} µs a partition)"
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
