"""Crash test of issue 5: 500 partitions dropped quickly by a separate feeder process while
``bundletui run`` is killed with SIGKILL at random points and restarted, several times.

The schedule consumes 5 partitions per firing. Afterwards, read-only through sqlite3 and from
each action's recorded trigger: every partition was recorded once and consumed by exactly one
action (none twice, none lost), every job went forward to LAUNCHED, and each workflow ran once
with exactly the partitions its action recorded. The seed is printed; set E2E_SEED to replay.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.e2e5.conftest import Bt5, Feed, event_coordinator, wait_for

N = 500
COUNT = 5

FEEDER = """
import os, random, sys, time
root, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
for i in range(n):
    name = f"{i // 100:02d}/p{i:04d}"
    final = os.path.join(root, name)
    if i % 2:  # written in place, the done flag last
        os.makedirs(final, exist_ok=True)
        with open(os.path.join(final, "part-00000"), "w") as f:
            f.write(name)
        open(os.path.join(final, "_SUCCESS"), "w").close()
    else:  # staged under a hidden name and renamed into place, complete
        stage = os.path.join(root, f".stage-{i}")
        os.makedirs(stage)
        with open(os.path.join(stage, "part-00000"), "w") as f:
            f.write(name)
        open(os.path.join(stage, "_SUCCESS"), "w").close()
        os.makedirs(os.path.dirname(final), exist_ok=True)
        os.replace(stage, final)
    time.sleep(rng.uniform(0, 0.008))
print("fed", n, flush=True)
"""


@pytest.mark.slow
def test_kill_9_while_500_partitions_land_every_partition_consumed_exactly_once(
    bt: Bt5, tmp_path: Path
) -> None:
    seed = int(os.environ.get("E2E_SEED") or random.SystemRandom().randrange(1 << 30))
    print(f"E2E_SEED={seed}")
    rng = random.Random(seed)
    app = bt.write(
        "crash.xml",
        event_coordinator(
            "crash",
            feeds=[Feed("f", "${landing}/crash")],
            trigger=f'<partitions feed="f" count="{COUNT}"/>',
        ),
    )
    coord = bt.submit(app, start="2020-01-01T00:00Z", end="2099-01-01T00:00Z")
    root = bt.landing / "crash"
    root.mkdir(parents=True)
    script = tmp_path / "feeder.py"
    script.write_text(FEEDER)

    lease = ("--lease-ttl", "0.5")
    bt.engine(*lease)
    feeder = subprocess.Popen(
        [sys.executable, str(script), str(root), str(N), str(seed)],
        stdout=subprocess.PIPE,
        text=True,
    )
    kills = 0
    while kills < 6 or feeder.poll() is None:
        time.sleep(rng.uniform(0.05, 0.8))
        bt.engines[-1].kill9()
        kills += 1
        engine = bt.engine(*lease, wait=False)
        if rng.random() < 0.3:  # now and then, kill it again while it starts / recovers
            time.sleep(rng.uniform(0.0, 0.6))
            engine.kill9()
            kills += 1
            bt.engine(*lease, wait=False)
    assert feeder.wait(30) == 0
    bt.engines[-1].wait_log("engine active")
    wait_for(
        lambda: (
            bt.sql(
                "SELECT count(*) FROM coord_actions WHERE coord_id = ? AND status = 'SUCCEEDED'",
                coord,
            )
            == [(N // COUNT,)]
        ),
        timeout=60,
        what=f"{N // COUNT} actions SUCCEEDED",
    )
    time.sleep(0.3)
    print(f"{kills} kills")

    expected = sorted(str(root / f"{i // 100:02d}" / f"p{i:04d}") for i in range(N))
    # the events table: each partition once
    paths = [p for (p,) in bt.sql("SELECT path FROM events WHERE kind = 'partition'")]
    assert sorted(paths) == expected
    # job_events: each event consumed by one job of this schedule (the primary key says at
    # most once; the count says none lost), and every job went forward to LAUNCHED
    per_event = bt.sql(
        "SELECT e.path, count(j.job_id) FROM events e LEFT JOIN job_events j"
        " ON j.event_id = e.id AND j.coord_id = ? GROUP BY e.path",
        coord,
    )
    assert sorted(per_event) == [(p, 1) for p in expected]
    states = Counter(s for s, _h in bt.jobs(coord))
    assert states == {"LAUNCHED": N // COUNT}
    assert (
        bt.sql(
            "SELECT count(*) FROM job_events j JOIN job_queue q ON q.id = j.job_id"
            " WHERE j.coord_id = ? GROUP BY j.job_id HAVING count(*) != ?",
            coord,
            COUNT,
        )
        == []
    )
    # each action's recorded trigger: 5 partitions, together all 500, none twice
    actions = bt.actions(coord)
    assert len(actions) == N // COUNT
    fired = [bt.fired_paths(a) for a in actions]
    assert all(len(f) == COUNT for f in fired)
    flat = [p for f in fired for p in f]
    assert sorted(flat) == expected
    # the workflows' own view agrees: each ran once, with exactly its action's partitions
    runs = bt.runs()
    assert set(runs) == {a["id"] for a in actions}
    for a, f in zip(actions, fired, strict=True):
        run = runs[a["id"]]
        assert run.launches == 1, run.raw
        assert run.parts == f
