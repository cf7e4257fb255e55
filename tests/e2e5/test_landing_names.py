"""A name in the landing directory that is not valid UTF-8 is passed over, not fatal (QA,
security, twenty-fifth session): one such partition stopped the engine at every start (its
start-up rescan could not store the path), and while it ran lost the batch it came in and
made `suspend` of the schedule fail. Real engine, real clock, real files."""

from __future__ import annotations

from tests.e2e5.conftest import Bt5
from tests.e2e5.test_landing_watch_qa import fired_within, schedule

BAD = "bad\udcff"  # the byte 0xff, as Python names it (surrogate escape)


def test_a_name_not_utf8_is_passed_over_and_the_rest_fires(bt: Bt5) -> None:
    coord = schedule(bt)
    bt.land("f", BAD)  # there before the engine starts: its start-up rescan met it
    e = bt.engine()
    ok1 = str(bt.land("f", "ok1"))
    assert fired_within(bt, coord, 1, 15) == [[ok1]]
    bt.land("f", BAD + "2")  # and while it runs, with a good one beside it
    ok2 = str(bt.land("f", "ok2"))
    assert sorted(map(tuple, fired_within(bt, coord, 2, 15))) == [(ok1,), (ok2,)]
    assert bt.cli("suspend", coord).code == 0
    log = e.log()
    assert "not valid UTF-8" in log and "Traceback" not in log and "inotify" not in log, log
