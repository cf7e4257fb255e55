"""The landing watcher stays awake (QA, landing directory, twenty-third session).

One unreadable directory in the tree when the engine started stopped the watcher for good
(and the 2 s polling it announced died too), a landing directory removed and made again
between two looks was never watched again, and one unreadable path in a batch of file events
lost the whole batch: each left partitions to the 5-minute rescan. Real engines on the real
clock, real files; the engine runs without root's permission override (``setpriv``), as an
operator's engine does, so that a directory can be unreadable to it.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.e2e5 import conftest
from tests.e2e5.conftest import Bt5, Feed, event_coordinator

FEED = [Feed("f", "${landing}/f")]
ROOT = os.geteuid() == 0

pytestmark = pytest.mark.skipif(
    ROOT and shutil.which("setpriv") is None,
    reason="root reads every directory: setpriv is needed to take the override away",
)


@pytest.fixture
def unprivileged(bt: Bt5, monkeypatch: pytest.MonkeyPatch) -> Bt5:
    """Engines of ``bt`` run without root's permission override."""
    if ROOT:
        wrapper = bt.tmp / "bundletui-unprivileged"
        drop = "-dac_override,-dac_read_search"
        wrapper.write_text(
            f'#!/bin/sh\nexec setpriv --bounding-set {drop} --inh-caps {drop} "{conftest.BUNDLETUI}" "$@"\n'
        )
        wrapper.chmod(0o755)
        monkeypatch.setattr(conftest, "BUNDLETUI", str(wrapper))
    return bt


def schedule(bt: Bt5) -> str:
    app = bt.write("p.xml", event_coordinator("p", feeds=FEED, trigger='<partitions feed="f"/>'))
    return bt.submit(app)


def locked(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    if ROOT:
        os.chown(path, 65534, 65534)  # nobody's
    path.chmod(0o700 if ROOT else 0o000)
    return path


def fired_within(bt: Bt5, coord: str, n: int, seconds: float) -> list[list[str]]:
    actions = bt.wait_actions(coord, n, timeout=seconds)
    runs = bt.runs()
    return [runs[a["id"]].parts for a in actions if a["status"] == "SUCCEEDED"]


def test_an_unreadable_directory_at_start_leaves_the_rest_watched(unprivileged: Bt5) -> None:
    bt = unprivileged
    coord = schedule(bt)
    closed = locked(bt.landing / "f" / "locked")
    e = bt.engine()
    e.wait_log("cannot be watched")
    ok1 = str(bt.land("f", "ok1"))
    assert fired_within(bt, coord, 1, 15) == [[ok1]]  # was: at the 5-minute rescan
    closed.chmod(0o755)  # readable again: the watch comes back, and what is in it is seen
    inside = str(bt.land("f", "locked/p"))
    assert sorted(map(tuple, fired_within(bt, coord, 2, 45))) == sorted([(ok1,), (inside,)])
    assert "landing watcher stopped" not in e.log() and "inotify" not in e.log(), e.log()


def test_a_landing_directory_replaced_between_two_looks_is_watched_anew(bt: Bt5) -> None:
    coord = schedule(bt)
    e = bt.engine()
    p0 = str(bt.land("f", "p0"))
    fired_within(bt, coord, 1, 15)
    shutil.rmtree(bt.landing)
    p1 = str(bt.land("f", "p1"))  # made again at once, with a partition in it
    e.wait_log("was replaced by another; watching the new one")
    time.sleep(1)
    p2 = str(bt.land("f", "p2"))
    parts = fired_within(bt, coord, 3, 15)
    assert sorted(map(tuple, parts)) == [(p0,), (p1,), (p2,)]


def test_an_unreadable_partition_does_not_lose_the_batch_it_came_in(unprivileged: Bt5) -> None:
    bt = unprivileged
    coord = schedule(bt)
    e = bt.engine()
    hidden = bt.land("f", "hidden/p")
    locked(hidden.parent)  # its files' events come with ok1's, within one debounce window
    ok1 = str(bt.land("f", "ok1"))
    assert fired_within(bt, coord, 1, 15) == [[ok1]]
    assert "pump failed" not in e.log(), e.log()


def test_a_feed_named_by_the_real_path_of_a_symlinked_landing_directory_is_watched(
    bt: Bt5,
) -> None:
    """The watcher handed paths on under the landing directory as given only: a feed naming
    the directory the link points to waited for the 5-minute rescan."""
    real = bt.tmp / "real"
    (real / "f").mkdir(parents=True)
    bt.landing.parent.mkdir(parents=True, exist_ok=True)
    bt.landing.symlink_to(real)
    app = bt.write(
        "r.xml",
        event_coordinator(
            "r", feeds=[Feed("f", str(real / "f"))], trigger='<partitions feed="f"/>'
        ),
    )
    coord = bt.submit(app)
    bt.engine()
    time.sleep(0.5)
    part = real / "f" / "p0"
    part.mkdir()
    (part / "_SUCCESS").touch()
    assert fired_within(bt, coord, 1, 15) == [[str(part)]]


def test_a_partition_holding_another_counts_its_own_bytes_only(bt: Bt5) -> None:
    """A day's partition over an hour's counted the hour's bytes again: ``So far`` read 700B
    for 400 bytes on disk."""
    app = bt.write(
        "b.xml", event_coordinator("b", feeds=FEED, trigger='<bytes feed="f" at-least="1KB"/>')
    )
    coord = bt.submit(app)
    bt.land("f", "NP/sub", size=300)
    bt.step("2026-03-01T10:00Z")
    bt.land("f", "NP", size=100)
    bt.step("2026-03-01T10:00Z")
    (leaf,) = bt.info(coord)["materialization"]["progress"]
    assert leaf["seen"] == "400B of 1KB", leaf
