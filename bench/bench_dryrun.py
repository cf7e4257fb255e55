"""Time ``dryrun`` of an hourly coordinator over 10 years (87,600 actions) whose data-in
spans 24 hourly instances (goal: under 5 s).

Run: ``.venv/bin/python bench/bench_dryrun.py [--json]`` — prints the figure and the machine.
``--json`` also times serializing the result as ``bundletui dryrun --json`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

from bundletui.model.clock import SimulatedClock
from bundletui.model.timeutil import parse_oozie_time
from bundletui.spec.dryrun import dryrun

COORDINATOR = """<coordinator-app name="hourly-10y" frequency="${coord:hours(1)}"
    start="2015-01-01T00:00Z" end="2025-01-01T00:00Z" timezone="UTC"
    xmlns="uri:oozie:coordinator:0.4">
  <datasets>
    <dataset name="clicks" frequency="${coord:hours(1)}" initial-instance="2014-01-01T00:00Z"
             timezone="UTC">
      <uri-template>file://${root}/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template>
    </dataset>
    <dataset name="daily" frequency="${coord:days(1)}" initial-instance="2014-01-01T00:00Z"
             timezone="UTC">
      <uri-template>file://${root}/out/${YEAR}${MONTH}${DAY}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="input" dataset="clicks">
      <start-instance>${coord:current(-23)}</start-instance>
      <end-instance>${coord:current(0)}</end-instance>
    </data-in>
  </input-events>
  <output-events>
    <data-out name="output" dataset="daily"><instance>${coord:current(0)}</instance></data-out>
  </output-events>
  <action>
    <workflow>
      <app-path>${root}/wf</app-path>
      <configuration>
        <property><name>inputs</name><value>${coord:dataIn('input')}</value></property>
        <property><name>output</name><value>${coord:dataOut('output')}</value></property>
        <property><name>day</name>
          <value>${coord:formatTime(coord:nominalTime(), 'yyyyMMdd')}</value></property>
      </configuration>
    </workflow>
  </action>
</coordinator-app>
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--json", action="store_true", help="also time json.dumps of the result")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "coordinator.xml"
        path.write_text(COORDINATOR)
        # a few days of real input, so some actions find their done flags
        for hour in range(72):
            d = root / "clicks" / "2015" / "01" / f"{1 + hour // 24:02d}" / f"{hour % 24:02d}"
            d.mkdir(parents=True)
            (d / "_SUCCESS").touch()
        clock = SimulatedClock(parse_oozie_time("2025-06-01T00:00Z"))
        best = cpu = float("inf")
        result: dict = {}
        for _ in range(3):
            began, began_cpu = time.perf_counter(), time.process_time()
            result = dryrun(path, [f"root={root}"], clock)
            best = min(best, time.perf_counter() - began)
            cpu = min(cpu, time.process_time() - began_cpu)
        actions = result["coordinators"][0]["actions"]
        n_uris = sum(len(a["data_in"]["input"]) for a in actions)
        print(
            f"dryrun: {len(actions):,} actions, {n_uris:,} data-in URIs: {best:.2f} s "
            f"(best of 3; CPU {cpu:.2f} s; load average {os.getloadavg()[0]:.1f})"
        )
        if args.json:
            began = time.perf_counter()
            text = json.dumps(result, indent=2)
            print(
                f"json.dumps(indent=2): {len(text) / 1e6:.0f} MB in {time.perf_counter() - began:.2f} s"
            )
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()} ({platform.system()} {platform.release()})"
    )


if __name__ == "__main__":
    main()
