"""Event schedules QA (twenty-second session): what could never fire, or was read wrong, is
refused at validate and submit with the file and line, and nothing is stored.

* A feed on ``hdfs://`` was made a relative local path (``<dir>/hdfs:/namenode…``) and watched
  for ever.
* A done-flag with a path in it (``meta/_DONE``, ``..``) was accepted, but the watcher looks
  for a file in the partition directory itself, so the schedule never fired.
* ``<bytes at-least>`` was read through a float: 99999999999999999999999TB was stored as a
  rounded number past any disk; it is exact now, and at most a Java long.
* ``P1Y``/``P1M`` were called "not an ISO-8601 duration", which they are.
* A delay longer than a discarding timeout discarded every job it held.
"""

from __future__ import annotations

from tests.e2e5.conftest import Bt5, Feed, event_coordinator
from tests.e2e5.test_schedule_checks import PARTS, counts, props, refused


def test_what_could_never_fire_is_refused_with_its_line(bt: Bt5) -> None:
    cases = {
        "hdfs": (
            [Feed("f", "hdfs://namenode:8020/data/clicks")],
            PARTS,
            "",
            "path [hdfs://namenode:8020/data/clicks] is on another file system",
        ),
        "sub": (
            [Feed("f", "${landing}/clicks", "meta/_DONE")],
            PARTS,
            "",
            "done-flag [meta/_DONE] is a path",
        ),
        "up": ([Feed("f", "${landing}/clicks", "..")], PARTS, "", "done-flag [..] is a path"),
        "huge": (
            [Feed("f", "${landing}/clicks")],
            '<bytes feed="f" at-least="99999999999999999999999TB"/>',
            "",
            "size out of range: '99999999999999999999999TB' (at most 8191PB",
        ),
        "year": (
            [Feed("f", "${landing}/clicks")],
            PARTS,
            "<delay>P1Y</delay>",
            "years and months are not supported in a duration: 'P1Y'",
        ),
        "late": (
            [Feed("f", "${landing}/clicks")],
            PARTS,
            '<delay>PT2H</delay><timeout on-timeout="discard">PT1H</timeout>',
            "the timeout [PT1H] is shorter than the delay [PT2H]: every fired job would be "
            "discarded",
        ),
    }
    for name, (feeds, trigger, constraints, text) in cases.items():
        app = bt.write(
            f"{name}.xml",
            event_coordinator(name, feeds=feeds, trigger=trigger, constraints=constraints),
        )
        p = props(bt, app)
        for args in (("validate", str(app), "--config", str(p)), ("submit", str(p))):
            err = refused(bt.cli(*args, check=False))
            assert f"{app}:2: " in err and text in err, err
    assert not (bt.home / "bundletui.db").exists()


def test_a_local_file_uri_and_an_exact_size_are_taken(bt: Bt5) -> None:
    app = bt.write(
        "ok.xml",
        event_coordinator(
            "ok",
            feeds=[Feed("f", f"file://{bt.home}/landing/clicks")],
            trigger='<bytes feed="f" at-least="1.5KB"/>',
            # a delay as long as a discarding timeout runs; a longer one is forced
            constraints='<delay>PT1H</delay><timeout on-timeout="discard">PT1H</timeout>',
        ),
    )
    forced = event_coordinator(
        "forced",
        feeds=[Feed("f", "${landing}/clicks")],
        trigger=PARTS,
        constraints='<delay>PT2H</delay><timeout on-timeout="force">PT1H</timeout>',
    )
    bt.cli("validate", str(bt.write("forced.xml", forced)))
    coord = bt.submit(app)
    trigger = bt.info(coord)["trigger"]
    assert trigger["definition"] == "1536B of f", trigger
    assert [f["path"] for f in trigger["feeds"]] == [f"{bt.home}/landing/clicks"]
    assert counts(bt)["event_feeds"] == 1
