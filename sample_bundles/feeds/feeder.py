"""Drop hourly click partitions into a landing directory, one every few seconds.

    python3 sample_bundles/feeds/feeder.py --landing ~/.bundletui/landing \
        --start 2026-01-01T00:00Z --hours 48 --interval 2

``--start`` is the bundle's start: on the real clock, submit the bundle with
``-D start=<23 hours ago>`` and feed from there (the README's *landing directory* has the
commands); the shipped job.properties names January 2026, for simulated-clock runs.

Each partition is written under a temporary name and renamed into place, then its _SUCCESS
flag is written last — so a watcher never sees a half-written partition.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

PAGES = ["/", "/search", "/cart", "/checkout", "/help", "/product/1", "/product/2", "/product/3"]


def drop(landing: Path, hour: datetime, rng: random.Random, clicks: int) -> Path:
    part = landing / "clicks" / f"{hour:%Y}" / f"{hour:%m}" / f"{hour:%d}" / f"{hour:%H}"
    part.parent.mkdir(parents=True, exist_ok=True)
    staging = part.parent / f".{hour:%H}.staging"
    staging.mkdir(exist_ok=True)
    lines = [
        f"{hour:%Y-%m-%dT%H}:{rng.randrange(60):02d}\t{rng.choice(PAGES)}\tuser{rng.randrange(500)}\n"
        for _ in range(clicks)
    ]
    (staging / "part-00000").write_text("".join(lines))
    os.replace(staging, part)
    (part / "_SUCCESS").touch()
    return part


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--landing", required=True, type=Path)
    p.add_argument("--start", required=True, help="first hour, yyyy-MM-ddTHH:mmZ")
    p.add_argument("--hours", type=int, default=24)
    p.add_argument("--interval", type=float, default=2.0, help="seconds between partitions")
    p.add_argument("--clicks", type=int, default=200)
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args()
    try:
        start = datetime.strptime(a.start, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)
    except ValueError:
        p.error(f"--start {a.start!r} is not yyyy-MM-ddTHH:mmZ, e.g. 2026-01-01T00:00Z")
    rng = random.Random(a.seed)
    for i in range(a.hours):
        part = drop(a.landing, start + timedelta(hours=i), rng, a.clicks)
        print(f"landed {part}", flush=True)
        if i + 1 < a.hours:
            time.sleep(a.interval)
    return 0


if __name__ == "__main__":
    sys.exit(main())
