"""Issue 4 §3: the invariants, proven by killing the engine.

A bundle of two coordinators over two months on the simulated clock: ``hourly`` (1,440 nominal
times) reads a raw partition and writes an hourly partition; ``daily`` (59) needs the last 24
hourly partitions (``current(-23)..current(0)``). Every workflow is a shell job that appends its
action id to a trace file, so launches can be counted. The raw partitions are dropped up front,
except a few holes (those hours time out, and so do the days that need them), and a few carry a
FAIL marker (their workflow fails, and the days that need them time out).

The engine's clock starts two days before the end: the first 58 days are a catch-up after
"downtime" (materialized in throttle-sized batches, launched ``concurrency`` at a time), the last
two days pass hour by hour. One run goes uninterrupted; the other is ``kill -9``-ed at random
moments and restarted until it reaches the end. Both must end exactly as the setup says:

* every nominal time materialized exactly once: one action per (coordinator, nominal time),
  numbers 1..N contiguous, nominal time = start + (n-1) x frequency (read with sqlite3);
* every action launched at most once (the trace), and every action that ran launched once;
* nothing missed: the statuses are the expected ones, identical in both runs.

The seed is printed; ``E2E_SEED=<n>`` replays a run.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.e2e4.conftest import (
    BC,
    Bt4,
    at,
    bundle_xml,
    coordinator_xml,
    daily_ds,
    data_in,
    data_out,
    fmt,
    hourly_ds,
    ms,
    trace_counts,
    wait_for,
)

START = "2026-01-01T00:00Z"
DAILY_START = "2026-01-02T00:00Z"
END = "2026-03-02T00:00Z"
CLOCK_START = "2026-03-01T00:00Z"  # 59 days of catch-up, then one day hour by hour
UNTIL = "2026-03-02T01:00Z"  # every timeout (120 min) has passed
HOLES = ("2026-01-05T07:00Z", "2026-02-10T23:00Z", "2026-03-01T13:00Z")  # never land
FAILS = ("2026-01-20T00:00Z", "2026-03-01T05:00Z")  # their workflow fails
LEASE = ("--lease-ttl", "0.5")
N_HOURS = 1440
N_DAYS = 59


def setup(bt: Bt4) -> Path:
    fail_marker = "${coord:dataIn('raw')}/FAIL"
    bt.apps.write(
        "hourly.xml",
        coordinator_xml(
            "hourly",
            controls={"concurrency": "16", "throttle": "48"},
            datasets=[hourly_ds("raw"), hourly_ds("hourly")],
            inputs=[data_in("raw", "raw", "${coord:current(0)}")],
            outputs=[data_out("out", "hourly")],
            conf={"outDir": "${coord:dataOut('out')}", "failIf": fail_marker},
        ),
    )
    bt.apps.write(
        "daily.xml",
        coordinator_xml(
            "daily",
            frequency="${coord:days(1)}",
            start="${dailyStart}",
            controls={"concurrency": "4", "throttle": "12"},  # timeout: the default 120 min
            datasets=[hourly_ds("hourly"), daily_ds("daily")],
            inputs=[
                data_in(
                    "hours",
                    "hourly",
                    start="${coord:current(-23)}",
                    end="${coord:current(0)}",
                )
            ],
            outputs=[data_out("day", "daily")],
            conf={"outDir": "${coord:dataOut('day')}"},
        ),
    )
    bt.apps.write(
        "bundle.xml",
        bundle_xml("invariants", [BC("hourly", "hourly.xml"), BC("daily", "daily.xml")]),
    )
    t, end = at(START), at(END)
    while t < end:
        if fmt(t) not in HOLES:
            part = bt.landing / f"raw/{t:%Y/%m/%d/%H}"
            part.mkdir(parents=True)
            if fmt(t) in FAILS:
                (part / "FAIL").touch()
            (part / "_SUCCESS").touch()
        t += timedelta(hours=1)
    return bt.apps.props(
        "job.properties",
        {
            "oozie.bundle.application.path": "bundle.xml",
            "start": START,
            "end": END,
            "dailyStart": DAILY_START,
        },
    )


def expected() -> dict[str, dict[str, str]]:
    """What the setup says each action ends as."""
    hourly = {}
    t = at(START)
    for _ in range(N_HOURS):
        key = fmt(t)
        hourly[key] = "TIMEDOUT" if key in HOLES else "FAILED" if key in FAILS else "SUCCEEDED"
        t += timedelta(hours=1)
    daily = {}
    d = at(DAILY_START)
    for _ in range(N_DAYS):
        window = [fmt(d - timedelta(hours=h)) for h in range(24)]
        daily[fmt(d)] = (
            "SUCCEEDED" if all(hourly.get(w) == "SUCCEEDED" for w in window) else "TIMEDOUT"
        )
        d += timedelta(days=1)
    return {"hourly": hourly, "daily": daily}


def outcome(bt: Bt4, bundle_id: str) -> dict[str, object]:
    """Everything the run left, read from the store with sqlite3, plus the launch counts."""
    coords = dict(bt.sql("SELECT app_name, id FROM coord_jobs WHERE bundle_id = ?", bundle_id))
    statuses: dict[str, dict[str, str]] = {}
    for name, coord_id in coords.items():
        rows = bt.sql(
            "SELECT action_number, nominal_time, status FROM coord_actions WHERE coord_id = ? "
            "ORDER BY action_number",
            coord_id,
        )
        step = timedelta(hours=1) if name == "hourly" else timedelta(days=1)
        first = at(START if name == "hourly" else DAILY_START)
        # materialized exactly once, nothing missed: 1..N, each at start + (n-1) x frequency
        assert [n for n, _t, _s in rows] == list(range(1, len(rows) + 1)), name
        for n, nominal, _s in rows:
            assert nominal == ms(fmt(first + (n - 1) * step)), (name, n)
        statuses[name] = {fmt(first + (n - 1) * step): s for n, _t, s in rows}
        (dupes,) = bt.sql(
            "SELECT count(*) FROM (SELECT 1 FROM coord_actions WHERE coord_id = ? "
            "GROUP BY nominal_time HAVING count(*) > 1)",
            coord_id,
        )[0]
        assert dupes == 0
    launches = trace_counts(bt.trace)
    ran = {
        aid
        for (aid,) in bt.sql("SELECT id FROM coord_actions WHERE status IN ('SUCCEEDED', 'FAILED')")
    }
    return {
        "statuses": statuses,
        "coordinators": {
            name: s
            for name, s in bt.sql(
                "SELECT app_name, status FROM coord_jobs WHERE bundle_id = ?", bundle_id
            )
        },
        "bundle": bt.sql("SELECT status, pending FROM bundle_jobs WHERE id = ?", bundle_id)[0],
        "launched_more_than_once": sorted(a for a, n in launches.items() if n > 1),
        "ran_without_launch": sorted(ran - set(launches)),
        "launched_without_running": sorted(set(launches) - ran),
        "live_workflows": bt.sql(
            "SELECT count(*) FROM wf_jobs WHERE status NOT IN ('SUCCEEDED','FAILED','KILLED')"
        )[0][0],
    }


def keep(bt: Bt4) -> Path:
    """A failed run's store, logs and trace, copied where pytest's clean-up does not reach."""
    dest = (
        Path(tempfile.gettempdir()) / "bundletui-e2e4-failures" / f"{bt.tmp.name}-{time.time():.0f}"
    )
    dest.mkdir(parents=True, exist_ok=True)
    for f in [*bt.home.glob("bundletui.db*"), *bt.tmp.glob("engine-*.log"), bt.trace]:
        if f.exists():
            shutil.copy2(f, dest / f.name)
    return dest


def check(result: dict[str, object], context: str, bt: Bt4 | None = None) -> None:
    want = expected()
    got = result["statuses"]
    assert isinstance(got, dict)
    wrong = [
        (name, nominal, status, got.get(name, {}).get(nominal))
        for name, statuses in want.items()
        for nominal, status in statuses.items()
        if got.get(name, {}).get(nominal) != status
    ]
    if wrong and bt is not None:
        rows = bt.sql(
            "SELECT c.app_name, a.id, a.status, a.error_code, a.created_time, a.timeout_at, "
            "a.held_by FROM coord_actions a JOIN coord_jobs c ON c.id = a.coord_id "
            "WHERE a.status NOT IN ('SUCCEEDED')"
        )
        logs = "\n".join(e.log()[-2000:] for e in bt.engines)
        kept = keep(bt)
        context += f"\nkept in {kept}\nnot SUCCEEDED: {rows}\nengine logs:\n{logs}"
    assert not wrong, f"(coordinator, nominal, expected, got): {wrong[:20]}\n{context}"
    assert result["coordinators"] == {"hourly": "DONEWITHERROR", "daily": "DONEWITHERROR"}, context
    assert result["bundle"] == ("DONEWITHERROR", 0), context
    assert result["launched_more_than_once"] == [], context
    assert result["ran_without_launch"] == [], context
    assert result["launched_without_running"] == [], context
    assert result["live_workflows"] == 0, context
    counts = Counter(want["hourly"].values())
    assert counts == {"SUCCEEDED": N_HOURS - 5, "TIMEDOUT": 3, "FAILED": 2}


def run_to_the_end(bt: Bt4) -> float:
    t0 = time.monotonic()
    e = bt.engine("--clock", "simulated", "--start-time", CLOCK_START, "--until", UNTIL, *LEASE)
    assert e.wait(180) == 0, e.log()[-3000:]
    return time.monotonic() - t0


def sim_now(bt: Bt4) -> str:
    rows = bt.sql("SELECT value FROM meta WHERE key = 'sim_now'")
    return fmt(datetime.fromtimestamp(int(rows[0][0]) / 1000, UTC)) if rows else "-"


@pytest.mark.slow
def test_an_uninterrupted_two_month_run_ends_as_the_setup_says(tmp_path: Path) -> None:
    bt = Bt4(tmp_path)
    try:
        bundle_id = bt.submit_job(setup(bt), start=True)
        took = run_to_the_end(bt)
        check(outcome(bt, bundle_id), f"uninterrupted run, {took:.1f} s", bt)
    finally:
        bt.cleanup()


@pytest.mark.slow
def test_kill_9_during_two_months_every_nominal_time_once_every_action_launched_at_most_once(
    tmp_path: Path,
) -> None:
    """The same setup, its engine SIGKILLed five times: during start-up and recovery, during
    the catch-up, and once the clock moves hour by hour. It ends exactly as the uninterrupted
    run (both are checked against the same expectation)."""
    seed = int(os.environ.get("E2E_SEED") or random.SystemRandom().randrange(1 << 30))
    rng = random.Random(seed)
    bt = Bt4(tmp_path)
    try:
        bundle_id = bt.submit_job(setup(bt), start=True)
        kills: list[str] = []
        for round_ in range(5):
            e = bt.engine(
                "--clock",
                "simulated",
                "--start-time",
                CLOCK_START,
                "--until",
                UNTIL,
                *LEASE,
                wait=False,
            )
            if round_ == 0:  # anywhere: start-up, recovery, the first ticks
                time.sleep(rng.uniform(0.0, 2.0))
            elif round_ < 4:  # the catch-up: the clock stands still while actions run
                e.wait_log("engine active", 60)
                time.sleep(rng.uniform(0.2, 4.0))
            else:  # the clock moves hour by hour
                e.wait_log("engine active", 60)
                wait_for(lambda e=e: not e.alive() or sim_now(bt) > CLOCK_START, 120, "catch-up")
                time.sleep(rng.uniform(0.0, 1.0))
            if not e.alive():
                break  # it reached the end first
            e.kill9()
            done = bt.sql("SELECT count(*) FROM coord_actions WHERE status = 'SUCCEEDED'")[0][0]
            kills.append(f"{sim_now(bt)}/{done}")
        last = run_to_the_end(bt)
        context = f"seed {seed}; killed at (simulated now/succeeded): {kills}; then {last:.1f} s"
        print(context)
        check(outcome(bt, bundle_id), context, bt)
    finally:
        bt.cleanup()
