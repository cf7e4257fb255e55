"""Issue 4 §2-3: the landing directory, watched by a running engine.

A file event makes the actions waiting on that path READY within a tick (asserted < 2 s from the
drop to the action leaving WAITING); a whole partition renamed into place (files already inside:
the watcher sees one directory event) is found; files that landed while no engine ran are found
when one starts.

These engines run on the real clock (a simulated one with nothing to do would jump to the next
due time, the actions' timeouts): the coordinators' nominal times are long past, so everything is
materialized at start-up and waits on its files.
"""

from __future__ import annotations

import os
import time

import pytest

from tests.e2e4.conftest import (
    DS,
    Bt4,
    coordinator_xml,
    data_in,
    hourly_ds,
    partition,
    trace_lines,
    wait_for,
)

NOMINAL = "2026-01-01T10:00Z"


def waiting_coordinator(bt: Bt4, n_hours: int = 1) -> str:
    xml = coordinator_xml(
        "watched",
        start=NOMINAL,
        end=f"2026-01-01T{10 + n_hours:02d}:00Z",
        controls={"timeout": "-1", "concurrency": "-1"},
        datasets=[hourly_ds("clicks")],
        inputs=[data_in("clicks", "clicks", "${coord:current(0)}")],
    )
    bt.apps.write("c.xml", xml)
    config = bt.apps.props("job.properties", {"oozie.coord.application.path": "c.xml"})
    return bt.submit_job(config)


def left_waiting(bt: Bt4, action_id: str) -> bool:
    return bt.sql("SELECT status FROM coord_actions WHERE id = ?", action_id)[0][0] != "WAITING"


def test_a_file_dropped_while_the_engine_runs_makes_its_action_ready_within_two_seconds(
    bt: Bt4,
) -> None:
    coord_id = waiting_coordinator(bt, n_hours=3)
    bt.engine()
    wait_for(lambda: len(bt.actions(coord_id)) == 3, 20, "three actions WAITING")
    assert set(bt.actions(coord_id).values()) == {"WAITING"}
    time.sleep(1.0)  # the watcher (a thread started with the engine) has set up its watches
    seconds = []
    for hour, number in (("10", 1), ("12", 3)):
        part = bt.landing / partition("clicks", f"2026-01-01T{hour}:00Z")
        part.mkdir(parents=True)
        (part / "part-00000").write_text("x\n")
        (part / "_SUCCESS").touch()
        seconds.append(
            wait_for(lambda n=number: left_waiting(bt, f"{coord_id}@{n}"), 10, f"action {number}")
        )
    assert max(seconds) < 2.0, seconds
    bt.wait_status(coord_id, "RUNNING")
    wait_for(lambda: bt.actions(coord_id) == {1: "SUCCEEDED", 2: "WAITING", 3: "SUCCEEDED"}, 10)
    # the one still waiting says what for
    why = bt.peek(f"{coord_id}@2")["waitingFor"]
    assert why["missing"] == [
        str(bt.landing / partition("clicks", "2026-01-01T11:00Z") / "_SUCCESS")
    ]
    print(f"drop -> action out of WAITING: {[f'{s * 1000:.0f} ms' for s in seconds]}")


def test_a_partition_renamed_into_place_in_one_move_is_found(bt: Bt4) -> None:
    coord_id = waiting_coordinator(bt)
    bt.engine()
    wait_for(lambda: bt.actions(coord_id) == {1: "WAITING"}, 20, "action WAITING")
    time.sleep(1.0)  # the watcher has set up its watches
    staging = bt.landing / "clicks/2026/01/01/.10.staging"  # inside the watched tree
    staging.mkdir(parents=True)
    (staging / "part-00000").write_text("x\n")
    (staging / "_SUCCESS").touch()
    time.sleep(0.3)  # the staging directory's own events are long gone
    os.rename(staging, bt.landing / partition("clicks", NOMINAL))
    seconds = wait_for(lambda: left_waiting(bt, f"{coord_id}@1"), 10, "the renamed partition")
    assert seconds < 2.0
    bt.wait_status(coord_id, "SUCCEEDED")


def test_files_dropped_while_the_engine_is_stopped_are_found_after_restart(bt: Bt4) -> None:
    coord_id = waiting_coordinator(bt, n_hours=2)
    engine = bt.engine()
    wait_for(lambda: bt.actions(coord_id) == {1: "WAITING", 2: "WAITING"}, 20, "WAITING")
    engine.stop()
    bt.land(partition("clicks", NOMINAL))
    engine = bt.engine(wait=False)
    wait_for(lambda: left_waiting(bt, f"{coord_id}@1"), 20, "the file found at start-up")
    engine.kill9()  # not even a clean stop
    bt.land(partition("clicks", "2026-01-01T11:00Z"))
    bt.engine()
    bt.wait_status(coord_id, "SUCCEEDED", timeout=30)
    assert bt.actions(coord_id) == {1: "SUCCEEDED", 2: "SUCCEEDED"}


def test_data_that_landed_while_the_engine_was_down_keeps_fifo_order_at_restart(bt: Bt4) -> None:
    """QA (s): concurrency 1, FIFO; @1-@3 wait; their data lands while no engine runs, and the
    clock has moved on by then. At restart the action materialized first took the free slot
    (03:00 ran before 00:00): the queued input checks ran after the launches. Now a
    coordinator's own checks run before it launches, and the runs are in nominal order."""
    start = "2026-01-01T00:00Z"
    xml = coordinator_xml(
        "fifo",
        start=start,
        end="2026-01-01T07:00Z",
        controls={"timeout": "-1", "concurrency": "1", "execution": "FIFO"},
        datasets=[hourly_ds("clicks")],
        inputs=[data_in("clicks", "clicks", "${coord:current(0)}")],
    )
    bt.apps.write("c.xml", xml)
    coord_id = bt.submit_job(
        bt.apps.props("job.properties", {"oozie.coord.application.path": "c.xml"})
    )
    bt.sim(start, "2026-01-01T02:30Z")
    assert bt.actions(coord_id) == {1: "WAITING", 2: "WAITING", 3: "WAITING"}
    bt.land(*(partition("clicks", f"2026-01-01T{h:02d}:00Z") for h in range(7)))
    bt.sim("2026-01-01T06:30Z", "2026-01-01T06:30Z")
    assert set(bt.actions(coord_id).values()) == {"SUCCEEDED"}
    ran = [line.rpartition("@")[2] for line in trace_lines(bt.trace)]
    assert ran == [str(n) for n in range(1, 8)], ran


def test_a_landing_directory_reached_through_a_symlink_wakes_its_actions_at_once(
    bt: Bt4,
) -> None:
    """QA (v): with the landing directory a symlink (as /tmp is on macOS), the watcher reported
    the resolved paths, which no dependency (written under the path as given) matched: files
    were found by the backoff poll, up to a minute late."""
    real = bt.tmp / "real-landing"
    real.mkdir()
    bt.home.mkdir()
    bt.landing.symlink_to(real)
    coord_id = waiting_coordinator(bt, n_hours=2)
    bt.engine()
    wait_for(lambda: len(bt.actions(coord_id)) == 2, 20, "two actions WAITING")
    time.sleep(1.0)  # the watcher has set up its watches
    seconds = []
    for hour, number, under in (("10", 1, bt.landing), ("11", 2, real)):  # either name
        part = under / partition("clicks", f"2026-01-01T{hour}:00Z")
        part.mkdir(parents=True)
        (part / "_SUCCESS").touch()
        seconds.append(
            wait_for(lambda n=number: left_waiting(bt, f"{coord_id}@{n}"), 30, f"action {number}")
        )
    assert max(seconds) < 2.0, seconds


@pytest.mark.parametrize(
    "template",
    [
        "${landing}//clicks//${YEAR}/${MONTH}/${DAY}/${HOUR}/",
        "${landing}/raw/../clicks/./${YEAR}/${MONTH}/${DAY}/${HOUR}",  # no raw/ on disk
    ],
)
def test_a_uri_template_with_doubled_slashes_is_woken_by_the_watcher(
    bt: Bt4, template: str
) -> None:
    """QA (v): ``${landing}//clicks/…/`` named a path no watcher event matched (dependencies
    are looked up by their exact text): the file was found by the 5-minute rescan. The
    template's path is tidied at submit; the workflow sees the tidy URI too. ``.`` and ``..``
    segments go as Hadoop's ``Path`` drops them (``raw/../`` was looked up as written, and
    the OS finds no such file while ``raw/`` does not exist)."""
    xml = coordinator_xml(
        "tidy",
        start=NOMINAL,
        end="2026-01-01T11:00Z",
        controls={"timeout": "-1"},
        datasets=[DS("clicks", template)],
        inputs=[data_in("clicks", "clicks", "${coord:current(0)}")],
    )
    bt.apps.write("c.xml", xml)
    coord_id = bt.submit_job(
        bt.apps.props("job.properties", {"oozie.coord.application.path": "c.xml"})
    )
    bt.engine()
    wait_for(lambda: bt.actions(coord_id) == {1: "WAITING"}, 20, "the action WAITING")
    why = bt.peek(f"{coord_id}@1")["waitingFor"]
    assert why["missing"] == [str(bt.landing / partition("clicks", NOMINAL) / "_SUCCESS")]
    time.sleep(1.0)  # the watcher has set up its watches
    bt.land(partition("clicks", NOMINAL))
    assert wait_for(lambda: left_waiting(bt, f"{coord_id}@1"), 30, "action 1") < 2.0


def test_a_landing_directory_removed_and_made_again_is_watched_again(bt: Bt4) -> None:
    """QA (disk) / CI: with the landing directory gone (deleted, or moved with its home) the
    watcher logged a traceback and stopped for good, after a first message blaming the
    inotify limit; files landed once it was back waited for the 5-minute rescan. It says the
    directory is gone, and watches it again once it is back."""
    import shutil

    coord_id = waiting_coordinator(bt)
    engine = bt.engine()
    wait_for(lambda: len(bt.actions(coord_id)) == 1, 20, "the action WAITING")
    time.sleep(1.0)  # the watches are set up
    shutil.rmtree(bt.landing)
    engine.wait_log("the landing directory", timeout=10)
    bt.landing.mkdir()
    engine.wait_log("is back; watching it again", timeout=10)
    time.sleep(0.5)
    part = bt.landing / partition("clicks", NOMINAL)
    part.mkdir(parents=True)
    (part / "_SUCCESS").touch()
    wait_for(lambda: left_waiting(bt, f"{coord_id}@1"), 5, "the action out of WAITING")
    said = engine.log()
    assert "is gone" in said and "inotify" not in said and "Traceback" not in said, said
