"""The feeds bundle as the README's *landing directory* section runs it on the real clock: the
bundle submitted 23 hours back with ``-D start/end``, the engine and the feeder as real
processes; every ingest action ends SUCCEEDED as its partition lands, and the roll-up's first
day keeps waiting for hours before the bundle's start (which never land)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bundletui.model.timeutil import format_oozie_time

ROOT = Path(__file__).resolve().parents[2]
FEEDS = ROOT / "sample_bundles" / "feeds"
BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))


def test_the_readme_recipe_runs_the_ingest_hour_by_hour(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "BUNDLETUI_HOME": str(home), "NO_COLOR": "1"}
    hour = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    start, end = (
        format_oozie_time(hour - timedelta(hours=23)),
        format_oozie_time(hour + timedelta(days=7)),
    )

    def cli(*args: str) -> str:
        done = subprocess.run(
            [BUNDLETUI, *args], env=env, capture_output=True, text=True, timeout=60, check=True
        )
        return done.stdout

    bundle = cli(
        "submit",
        str(FEEDS / "job.properties"),
        "--start",
        "-D",
        f"start={start}",
        "-D",
        f"end={end}",
    ).strip()
    engine = subprocess.Popen(
        [BUNDLETUI, "run", "--lease-ttl", "1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        subprocess.run(
            [sys.executable, str(FEEDS / "feeder.py"), "--landing", str(home / "landing"),
             "--start", start, "--hours", "24", "--interval", "0.05"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip

        def coords() -> dict[str, str]:
            info = json.loads(cli("info", bundle, "--json"))
            return {c["coordJobName"]: c["coordJobId"] for c in info["bundleCoordJobs"]}

        def statuses(coord_id: str) -> list[str]:
            info = json.loads(cli("info", coord_id, "--json", "--len", "100"))
            return [a["status"] for a in info["actions"]]

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ids = coords()
            if "ingest" in ids and statuses(ids["ingest"]) == ["SUCCEEDED"] * 24:
                break
            time.sleep(0.5)
        ids = coords()
        assert statuses(ids["ingest"]) == ["SUCCEEDED"] * 24
        assert statuses(ids["rollup"]) == ["WAITING"]  # day one needs hours before the start
    finally:
        engine.terminate()
        engine.wait(10)


def test_the_feeder_refuses_a_start_without_a_time_in_one_line(tmp_path: Path) -> None:
    """QA: ``--start 2026-01-01`` (no time) was a traceback."""
    r = subprocess.run(
        [sys.executable, str(FEEDS / "feeder.py"), "--landing", str(tmp_path), "--start",
         "2026-01-01", "--hours", "1"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--start '2026-01-01' is not yyyy-MM-ddTHH:mmZ, e.g. 2026-01-01T00:00Z" in r.stderr
    assert list(tmp_path.iterdir()) == []
