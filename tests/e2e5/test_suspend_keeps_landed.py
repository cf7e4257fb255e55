"""What landed before a suspend still counts after the resume; what landed during it does not.

A QA crash pass: an event schedule RUNNING, no engine; p0–p2 land; ``suspend`` then
``resume``; the next ``bundletui run`` fired none of them (without the suspend and resume it
fired all three). The resume ignored every event up to the newest, which took the partitions
that had completed before the suspend and that no engine had handed the schedule yet. The
suspend now keeps its own horizon: what the schedule had not been handed by then is still
its to count, in order of arrival, whenever an engine gets to it. Through the real CLI and
real ``bundletui run`` processes on the simulated clock.
"""

from __future__ import annotations

import sqlite3

import pytest

from tests.e2e5.conftest import Bt5, Feed, bundle, event_coordinator

FEED = [Feed("f", "${landing}/f")]


def running_schedule(bt: Bt5, via: str) -> tuple[str, str]:
    """(the id to suspend and resume, the schedule's id): a schedule firing on each new
    partition of f, RUNNING, alone or in a bundle."""
    app = bt.write(
        "plain.xml", event_coordinator("plain", feeds=FEED, trigger='<partitions feed="f"/>')
    )
    if via == "coord":
        coord = bt.submit(app)
        bt.step("2026-03-01T10:00Z")
        return coord, coord
    b = bt.submit(bt.write("b.xml", bundle("b", [("plain", app, {})])), kind="bundle")
    bt.step("2026-03-01T10:00Z")
    return b, bt.coords_of(b)["plain"]


def fired(bt: Bt5, coord: str) -> list[list[str]]:
    """The partitions each action ran with, in the order of the actions; all succeeded."""
    actions = bt.actions(coord)
    assert {a["status"] for a in actions} <= {"SUCCEEDED"}, actions
    runs = bt.runs()
    return [runs[a["id"]].parts for a in actions]


@pytest.mark.parametrize("via", ["coord", "bundle"])
def test_partitions_landed_before_a_suspend_fire_after_the_resume(bt: Bt5, via: str) -> None:
    target, coord = running_schedule(bt, via)
    before = [str(bt.land("f", f"p{i}")) for i in range(3)]
    bt.cli("suspend", target)
    bt.cli("resume", target)
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    assert bt.status(coord) == "RUNNING"
    assert fired(bt, coord) == [[p] for p in before]


@pytest.mark.parametrize("via", ["coord", "bundle"])
def test_only_what_landed_during_the_suspension_is_ignored(bt: Bt5, via: str) -> None:
    target, coord = running_schedule(bt, via)
    p0 = str(bt.land("f", "p0"))
    bt.cli("suspend", target)
    bt.land("f", "during")
    bt.cli("resume", target)
    p2 = str(bt.land("f", "p2"))
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    assert fired(bt, coord) == [[p0], [p2]]


@pytest.mark.parametrize("via", ["coord", "bundle"])
def test_an_engine_that_ran_while_suspended_hands_them_over_at_the_resume(
    bt: Bt5, via: str
) -> None:
    """The engine starts while the schedule is SUSPENDED: its start-up scan and pump pass p0
    (landed before the suspend) and ``during`` (landed in it). The resume gets p0 back."""
    target, coord = running_schedule(bt, via)
    p0 = str(bt.land("f", "p0"))
    bt.cli("suspend", target)
    bt.land("f", "during")
    bt.step("2026-03-01T10:00Z")
    assert bt.status(coord) == "SUSPENDED"
    assert bt.actions(coord) == []
    bt.cli("resume", target)
    p2 = str(bt.land("f", "p2"))
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    assert fired(bt, coord) == [[p0], [p2]]


def test_two_suspensions_before_any_engine_each_ignore_only_their_own(bt: Bt5) -> None:
    target, coord = running_schedule(bt, "coord")
    kept = []
    for i in range(2):
        kept.append(str(bt.land("f", f"before{i}")))
        bt.cli("suspend", target)
        bt.land("f", f"during{i}")
        bt.cli("resume", target)
    kept.append(str(bt.land("f", "after")))
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    assert fired(bt, coord) == [[p] for p in kept]


def test_a_pending_count_is_still_dropped_by_a_suspend_with_an_engine_running(bt: Bt5) -> None:
    """Seed 004: a suspend deletes the schedule's pending jobs. Partitions an engine had
    handed to a job that had not fired are gone with it; they are not handed back."""
    app = bt.write(
        "two.xml",
        event_coordinator("two", feeds=FEED, trigger='<partitions feed="f" count="2"/>'),
    )
    coord = bt.submit(app)
    bt.step("2026-03-01T10:00Z")
    bt.land("f", "p0")
    bt.step("2026-03-01T10:00Z")
    bt.cli("suspend", coord)
    bt.cli("resume", coord)
    p1, p2 = (str(bt.land("f", n)) for n in ("p1", "p2"))
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    assert fired(bt, coord) == [[p1, p2]]


def test_a_suspension_from_before_the_upgrade_resumes_as_it_used_to(bt: Bt5) -> None:
    """A schedule suspended by a version that kept no suspend horizon (migration 8 adds it,
    empty): its resume ignores everything up to the resume, as that version's did, and
    what lands afterwards counts."""
    target, coord = running_schedule(bt, "coord")
    bt.land("f", "p0")
    bt.cli("suspend", target)
    conn = sqlite3.connect(bt.home / "bundletui.db")
    with conn:
        conn.execute("UPDATE event_schedules SET suspended_upto = NULL")  # as the old one left it
    conn.close()
    bt.cli("resume", target)
    after = str(bt.land("f", "after"))
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    assert fired(bt, coord) == [[after]]


def test_a_second_suspension_before_any_engine_keeps_what_the_first_resume_owed(bt: Bt5) -> None:
    """Review: an engine passed p0 while the schedule was suspended; the resume owed it p0,
    but a second suspend before any engine moved the threshold past it: p0 was lost."""
    target, coord = running_schedule(bt, "coord")
    p0 = str(bt.land("f", "p0"))
    bt.cli("suspend", target)
    bt.step("2026-03-01T10:00Z")  # its pump passes p0 while the schedule is suspended
    bt.cli("resume", target)
    bt.cli("suspend", target)
    bt.cli("resume", target)
    p2 = str(bt.land("f", "p2"))
    bt.sim("2026-03-01T10:00Z", "2026-03-01T11:00Z")
    assert fired(bt, coord) == [[p0], [p2]]
