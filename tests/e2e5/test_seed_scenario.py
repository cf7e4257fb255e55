"""Seed 004's own test scenario, on the real engine with a simulated clock.

"Configure a schedule to run whenever there is ANY new partition, but configure a minimum
interval (5 minutes) between runs. Add five partitions, distributed evenly across a five minute
time window. The first partition being added will trigger a workflow run, but the partitions
added right after it shouldn't trigger a workflow run because sufficient time hasn't passed."

Here the later partitions are not lost either: they wait (held by since-last-run, as `bundletui
info <action> --json` says) and run once, together, when the interval has passed.
"""

from __future__ import annotations

from tests.e2e5.conftest import Bt5, Feed, event_coordinator, fmt_ms, ms


def test_any_new_partition_with_a_5_minute_minimum_interval(bt: Bt5) -> None:
    app = bt.write(
        "any.xml",
        event_coordinator(
            "any-partition",
            feeds=[Feed("clicks", "${landing}/clicks")],
            trigger='<partitions feed="clicks"/>',  # count defaults to 1: ANY new partition
            constraints="<since-last-run>PT5M</since-last-run>",
        ),
    )
    coord = bt.submit(app)
    parts = []
    for i, minute in enumerate(("10:00", "10:01", "10:02", "10:03", "10:04")):
        parts.append(str(bt.land("clicks", f"2026-03-01-{i}")))
        bt.step(f"2026-03-01T{minute}Z")
        actions = bt.actions(coord)
        # the first partition triggers at once; the others never add a run of their own
        assert actions[0]["status"] == "SUCCEEDED"
        assert bt.fired_paths(actions[0]) == parts[:1]
        assert len(actions) == min(i + 1, 2)
        if i:
            held = actions[1]
            assert held["status"] == "WAITING"
            assert held["held_by"] == {
                "constraint": "since-last-run",
                "until": ms("2026-03-01T10:05Z"),
            }
            assert bt.fired_paths(held) == parts[1 : i + 1]

    why = bt.info(f"{coord}@2")["waitingFor"]
    assert why["reason"] == "constraint"
    assert why["constraint"] == "since-last-run"
    assert why["until"] == "Sun, 01 Mar 2026 10:05:00 GMT"

    bt.sim("2026-03-01T10:04Z", "2026-03-01T10:30Z")
    actions = bt.actions(coord)
    assert [a["status"] for a in actions] == ["SUCCEEDED", "SUCCEEDED"]
    runs = bt.runs()
    assert set(runs) == {a["id"] for a in actions}
    assert runs[actions[1]["id"]].parts == parts[1:]  # once, together, in arrival order
    assert all(r.launches == 1 for r in runs.values())
    started = [fmt_ms(bt.wf_started(a["wf"]) or 0) for a in actions]
    assert started == ["2026-03-01T10:00Z", "2026-03-01T10:05Z"]
    # every partition consumed by exactly one job of this schedule, all launched
    consumed = bt.sql(
        "SELECT e.path, count(*) FROM job_events j JOIN events e ON e.id = j.event_id"
        " WHERE j.coord_id = ? GROUP BY e.path",
        coord,
    )
    assert sorted(consumed) == sorted((p, 1) for p in parts)
    assert [s for s, _held in bt.jobs(coord)] == ["LAUNCHED", "LAUNCHED"]
