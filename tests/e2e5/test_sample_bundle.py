"""The feeds sample bundle's event-triggered coordinator (``train-on-arrival.xml``): the
naive-Bayes training runs when 4 new click partitions have arrived, inside the night window —
submitted with the sample's own job.properties, fed by the sample's own feeder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e5.conftest import Bt5, fmt_ms, ms

FEEDS = Path(__file__).resolve().parents[2] / "sample_bundles" / "feeds"


def test_validate_and_dryrun_know_the_event_coordinator(bt: Bt5) -> None:
    r = bt.cli("validate", str(FEEDS / "bundle.xml"), str(FEEDS / "train-on-arrival.xml"))
    assert "Valid coordinator-app" in r.stdout
    r = bt.cli("dryrun", str(FEEDS / "job.properties"), "--limit", "2", "--json")
    coords = {c["name"]: c for c in json.loads(r.stdout)["coordinators"]}
    assert set(coords) == {"ingest", "rollup", "train", "train-on-arrival"}
    assert len(coords["ingest"]["actions"]) == 2
    assert coords["train-on-arrival"]["actions"] == []
    assert coords["train-on-arrival"]["events"] == {
        "trigger": "4 new partitions of clicks",
        # info's words (QA (o): "window 22:00-06:00" had no zone, timeouts were in seconds)
        "constraints": ["concurrency 1", "time window 22:00-06:00 UTC"],
        "priority": 5,
    }
    text = bt.cli("dryrun", str(FEEDS / "job.properties"), "--limit", "2").stdout
    assert "fires on: 4 new partitions of clicks" in text


@pytest.mark.slow
def test_training_runs_after_4_new_partitions_inside_the_night_window(bt: Bt5) -> None:
    r = bt.cli(
        "submit",
        str(FEEDS / "job.properties"),
        "-D",
        "start=2026-01-01T00:00Z",
        "-D",
        "end=2026-01-02T00:00Z",
        "--start",
    )
    bundle = r.stdout.strip().splitlines()[-1]
    bt.step("2026-01-01T00:00Z")  # the bundle starts its four coordinators
    coord = bt.coords_of(bundle)["train-on-arrival"]
    feeder = [sys.executable, str(FEEDS / "feeder.py"), "--landing", str(bt.landing)]
    subprocess.run([*feeder, "--start", "2026-01-01T00:00Z", "--hours", "3", "--interval", "0"],
                   check=True, capture_output=True)  # fmt: skip
    bt.step("2026-01-01T03:00Z")
    assert bt.actions(coord) == []  # 3 partitions: not yet
    subprocess.run([*feeder, "--start", "2026-01-01T03:00Z", "--hours", "2", "--interval", "0"],
                   check=True, capture_output=True)  # fmt: skip
    bt.sim("2026-01-01T10:00Z", "2026-01-01T12:00Z")
    (held,) = bt.actions(coord)
    assert held["held_by"] == {"constraint": "time-window", "until": ms("2026-01-01T22:00Z")}
    assert bt.info(held["id"])["waitingFor"]["detail"] == (
        "held by time-window until Thu, 01 Jan 2026 22:00:00 GMT"
    )
    clicks = bt.landing / "clicks" / "2026" / "01" / "01"
    assert bt.fired_paths(held) == [str(clicks / f"{h:02d}") for h in range(4)]

    bt.sim("2026-01-01T12:00Z", "2026-01-01T23:00Z")
    (done,) = bt.actions(coord)
    assert done["status"] == "SUCCEEDED"
    assert fmt_ms(bt.wf_started(done["wf"]) or 0) == "2026-01-01T22:00Z"
    out = bt.landing / "models" / "on-arrival" / "2026-01-01-100000"
    assert (out / "predictions.tsv").read_text().strip()
    conf = json.loads(bt.sql("SELECT run_conf FROM coord_actions WHERE id = ?", done["id"])[0][0])
    assert conf["clicks"].split(",") == bt.fired_paths(done)
    # the fifth partition waits for three more
    assert [s for s, _h in bt.jobs(coord)] == ["LAUNCHED", "PENDING_TRIGGER"]
